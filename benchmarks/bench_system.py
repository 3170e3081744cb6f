"""Whole system, ``--fast``: full hands per second through daemon, journal, feeds and sims over
ptys, beside the same players and dealer on the rules engine alone, in the same run.
"""

from __future__ import annotations

import asyncio
import io
import time

from rich.console import Console

from table_controller.simtable.demo import run_demo
from table_controller.simtable.engine_table import EngineTable

HANDS = 30
SEED = 1


def engine_alone(hands: int) -> tuple[int, float]:
    stacks = {s: 10_000 for s in range(1, 6)}
    t0 = time.perf_counter()
    run = EngineTable(stacks, seats=6, seed=SEED).play(hands)
    return run.hands, time.perf_counter() - t0


def whole_system(hands: int) -> tuple[int, float, bool]:
    console = Console(file=io.StringIO())
    t0 = time.perf_counter()
    summary = asyncio.run(run_demo(hands=hands, seed=SEED, fast=True, console=console,
                                   live=False))
    return summary.hands_played, time.perf_counter() - t0, summary.chips_agree


def main() -> None:
    n_sys, t_sys, agree = whole_system(HANDS)
    n_eng, t_eng = engine_alone(2_000)
    print(f"whole system --fast: {n_sys} hands in {t_sys:.2f} s = {n_sys / t_sys:.2f} hands/s "
          f"(including daemon start and stop; chips agree: {agree})")
    print(f"engine alone, same players and dealer logic: {n_eng} hands in {t_eng:.2f} s = "
          f"{n_eng / t_eng:,.0f} hands/s")
    print(f"ratio: the whole system is {(n_eng / t_eng) / (n_sys / t_sys):,.0f}x slower")


if __name__ == "__main__":
    main()
