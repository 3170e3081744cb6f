"""The benchmark's scene seeds: the ones earlier runs recorded stay, and no two scenes of one
run share a seed however many designs are listed."""

from __future__ import annotations

from benchmarks.bench_vision import extra_seed, situation_seed


def test_recorded_seeds_unchanged() -> None:
    # a run's recorded seeds (docs/benchmarks.md) are reproduced: ten designs, two levels
    assert situation_seed(2880000, 5, 4, 1) == 2883541
    assert extra_seed(2860000, 19, 1) == 2861000 + 1900 + 10


def test_no_two_scenes_share_a_seed() -> None:
    seeds = [extra_seed(0, d, lv) for d in range(45) for lv in range(3)]
    seeds += [situation_seed(0, s, d, lv) for s in range(10) for d in range(45) for lv in range(3)]
    seeds += [100 * d + 10 * lv for d in range(2) for lv in range(3)]  # the repository designs
    seeds += [500, 501]  # the wrong-deck runs
    seeds += [9000 + 100 * d + 10 * lv for d in range(10) for lv in range(3)]  # the streams
    assert len(seeds) == len(set(seeds))
