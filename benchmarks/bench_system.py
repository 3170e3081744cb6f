"""Whole system, ``--fast``: full hands per second through daemon, journal, feeds and sims over
ptys, beside the same players and dealer on the rules engine alone, in the same run.
"""

from __future__ import annotations

import asyncio
import io
import os
import time

from rich.console import Console

from table_controller.simtable.demo import run_demo
from table_controller.simtable.engine_table import EngineTable

HANDS = 30
SEED = 1


def engine_alone(hands: int) -> tuple[int, float]:
    """Play ``hands`` hands on the engine alone (new tables when players go broke)."""
    played, seed, elapsed = 0, SEED, 0.0
    while played < hands:
        stacks = {s: 10_000 for s in range(1, 6)}
        t0 = time.perf_counter()
        run = EngineTable(stacks, seats=6, seed=seed).play(hands - played)
        elapsed += time.perf_counter() - t0
        played += run.hands
        seed += 1
    return played, elapsed


def whole_system(hands: int) -> tuple[int, float, float, bool]:
    console = Console(file=io.StringIO())
    t0 = time.perf_counter()
    summary = asyncio.run(run_demo(hands=hands, seed=SEED, fast=True, console=console,
                                   live=False))
    return (summary.hands_played, time.perf_counter() - t0, summary.startup_seconds,
            summary.chips_agree)


def main() -> None:
    load = os.getloadavg()[0]
    n_sys, t_sys, t_start, agree = whole_system(HANDS)
    n_eng, t_eng = engine_alone(2_000)
    play = t_sys - t_start
    print(f"load average at start: {load:.1f}")
    print(f"whole system --fast: {n_sys} hands in {t_sys:.2f} s = {n_sys / t_sys:.2f} hands/s "
          f"overall; start-up {t_start:.2f} s; playing {n_sys / play:.2f} hands/s "
          f"({1000 * play / max(n_sys, 1):.0f} ms a hand); chips agree: {agree}")
    print(f"engine alone, same players and dealer logic: {n_eng} hands in {t_eng:.2f} s = "
          f"{n_eng / t_eng:,.0f} hands/s ({1e6 * t_eng / n_eng:.0f} us a hand)")
    print(f"ratio (playing): the whole system is {(n_eng / t_eng) / (n_sys / play):,.0f}x slower")


if __name__ == "__main__":
    main()
