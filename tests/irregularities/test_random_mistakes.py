"""Random dealing mistakes over many hands: nothing crashes, chips are conserved, replay agrees."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping
from typing import Any

import pytest

from calibration.chips import default_chip_config
from hardware.sim.shoe import sim_deck_profile
from table_controller.controller.core import TableCore
from table_controller.controller.events import HandEnded
from table_controller.simtable.core_io import CoreIO
from table_controller.simtable.dealer import Mistakes, SimDealer, prompt_step
from table_controller.simtable.players import make_players

MISDEALT = ("wrong_seat", "skipped", "dealt_in", "wrong_count", "button")


class RandomMistakes(Mistakes):
    def __init__(self, io: CoreIO, rng: random.Random, rate: float) -> None:
        self.io = io
        self.rng = rng
        self.rate = rate
        self.made: list[str] = []

    async def before(self, dealer: SimDealer, prompt: Mapping[str, Any]) -> bool:
        step = prompt_step(prompt)
        kind = step.get("kind")
        if kind not in ("deal_hole", "act", "burn") or self.rng.random() > self.rate:
            return False
        choice = self.rng.choice(["extra", "premature", "exposed", "boxed", "misdealt"])
        self.made.append(choice)
        if choice == "extra" and kind == "act":
            self.io.draw()
        elif choice == "premature" and kind == "act":
            for _ in range(self.rng.choice((2, 4))):
                self.io.draw()
        elif choice == "exposed":
            await dealer.send({"command": "exposed", "seat": self.rng.choice((1, 2, 4, 6)),
                               "round": self.rng.choice((1, 2))})
        elif choice == "boxed":
            await dealer.send({"command": "boxed"})
        elif choice == "misdealt":
            await dealer.send({"command": "misdealt", "what": self.rng.choice(MISDEALT)})
        return False  # the dealer then does what the (possibly new) prompt says


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_dealing_mistakes_keep_the_table_sound(seed: int) -> None:
    seats = {1: 10_000, 2: 5_000, 4: 2_000, 6: 8_000}
    io = CoreIO(seats=6, small_blind=50, big_blind=100, deck=sim_deck_profile(1),
                chips=default_chip_config(6))
    seen: list[tuple[Any, float]] = []
    handle = io.core.handle

    def recording(inp: Any, now: float) -> Any:
        seen.append((inp, now))
        return handle(inp, now)

    io.core.handle = recording  # type: ignore[method-assign]
    rng = random.Random(seed)
    players = make_players(seats, seed)
    mistakes = RandomMistakes(io, rng, rate=0.08)
    dealer = SimDealer(io, lambda legal, pot: players[legal.seat].decide(legal, pot),
                       seats={s: (players[s].name, v) for s, v in seats.items()},
                       hands=30, seed=seed, mistakes=mistakes)

    async def run() -> None:
        idle = 0
        while not dealer.finished(io.prompt):
            if await dealer.handle(io.prompt, io.state()):
                idle = 0
                continue
            idle += 1
            assert idle < 4, f"stuck at {io.prompt}"
            io.advance(2.0)

    asyncio.run(run())
    assert len(mistakes.made) > 5
    ended = [o for o in io.outputs if isinstance(o, HandEnded)]
    assert len(ended) >= 30
    summary = io.core.summary()
    assert summary["chips_in_play"] + summary["rake_total"] == sum(seats.values())
    assert io.core.hand is None
    twin = TableCore(io.core.table.config, dict(io.core.resolver._cards),
                     default_chip_config(6))
    for inp, now in seen:
        twin.handle(inp, now)
    assert twin.summary() == summary
