"""A camera's stream of frames: what the benchmark's dealer does, and what the recogniser reads
again (:func:`benchmarks.bench_vision.stream_scenes`, :meth:`BoardRecognizer.read`)."""

from __future__ import annotations

import numpy as np

from benchmarks.bench_vision import stream_scenes
from hardware.sim import scene as S

from .conftest import Faces
from .helpers import Tally, make_rig, score


def test_a_dealt_hand_is_read_in_full_only_where_the_board_changed(kennard: Faces) -> None:
    """One hand dealt, six frames a street: the street's last card laid under the dealer's
    hand and short of its place, the hand drawing back, a hand passing halfway; every frame
    of an unchanged board after one read in full is answered without reading it again, and
    every card is read right or not at all."""
    rig = make_rig(kennard, 130, S.Level.MEDIUM)
    rng = np.random.default_rng(1300)
    scenes = stream_scenes(kennard, rng, S.Level.MEDIUM, rig.camera, 24, per_step=6)
    assert len(scenes) == 24
    with_hand = [k for k, sc in enumerate(scenes) if sc.hand is not None]
    # Each street: its first frame, the hand drawing back (not on the empty board), halfway.
    assert with_hand == [0, 3, 6, 7, 9, 12, 13, 15, 18, 19, 21]
    for street in (1, 2, 3):
        laying, rest = scenes[6 * street], scenes[6 * street + 2]
        last = max(p.slot for p in rest.placements)
        short = next(p for p in laying.placements if p.slot == last)
        placed = next(p for p in rest.placements if p.slot == last)
        assert 3.0 <= short.centre_mm[1] - placed.centre_mm[1] <= 12.0
        assert laying.hand is not None and laying.hand.centre_mm[1] > placed.centre_mm[1] + 70
    rec = rig.profile.recognizer()
    tally = Tally()
    readings = []
    for sc in scenes:
        before = rec.unchanged_frames
        readings.append(rec.read(sc.image))
        score(sc.truth, readings[-1], tally)
        if sc.hand is not None:
            assert rec.unchanged_frames == before      # a hand changes the board: read
    assert tally.wrong == 0
    assert tally.correct >= 0.9 * tally.cards
    # Frame 5 of each street follows a read of the same board (frame 4, after the passing
    # hand), and so does frame 2 of the empty board: not read again. A street's frames 0, 1
    # and 3 show a hand, frames 2 and 4 follow one.
    assert rec.unchanged_frames == 5
    assert readings[2] is readings[1]
    for street in range(4):
        assert readings[6 * street + 5] is readings[6 * street + 4]
