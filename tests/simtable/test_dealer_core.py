from __future__ import annotations

import asyncio

import pytest

from calibration.chips import default_chip_config
from hardware.sim.shoe import sim_deck_profile

pytest.importorskip("table_controller.controller.core")

from table_controller.controller.events import HandEnded
from table_controller.engine import RakeRule
from table_controller.simtable.core_io import CoreIO
from table_controller.simtable.dealer import SimDealer
from table_controller.simtable.players import make_players


def play(hands: int, seed: int) -> tuple[CoreIO, SimDealer]:
    seats = {1: 10_000, 2: 5_000, 4: 2_000, 6: 8_000}
    io = CoreIO(seats=6, small_blind=50, big_blind=100, deck=sim_deck_profile(1),
                chips=default_chip_config(6), rake=RakeRule(500, 500))
    players = make_players(seats, seed)
    dealer = SimDealer(io, lambda legal, pot: players[legal.seat].decide(legal, pot),
                       seats={s: (players[s].name, v) for s, v in seats.items()},
                       hands=hands, seed=seed)

    async def run() -> None:
        idle = 0
        while not dealer.finished(io.prompt):
            if await dealer.handle(io.prompt, io.state()):
                idle = 0
                continue
            idle += 1
            assert idle < 3, f"stuck at {io.prompt}"
            io.advance(2.0)

    asyncio.run(run())
    return io, dealer


def test_the_dealer_plays_hands_through_the_controller_core() -> None:
    io, dealer = play(25, seed=3)
    ended = [o for o in io.outputs if isinstance(o, HandEnded)]
    assert len(ended) == 25 and not any(e.voided for e in ended)
    assert io.irregularities == []
    assert dealer.log.refused == []
    summary = io.core.summary()
    assert summary["chips_in_play"] + summary["rake_total"] == 25_000


def test_players_muck_beaten_hands_and_the_chips_still_agree() -> None:
    seats = {1: 20_000, 2: 20_000, 4: 20_000, 6: 20_000}
    io = CoreIO(seats=6, small_blind=50, big_blind=100, deck=sim_deck_profile(1),
                chips=default_chip_config(6))
    players = make_players(seats, 1)
    dealer = SimDealer(io, lambda legal, pot: players[legal.seat].decide(legal, pot),
                       seats={s: (players[s].name, v) for s, v in seats.items()},
                       hands=10, seed=1, mucks=lambda seat: True)

    async def run() -> None:
        idle = 0
        while not dealer.finished(io.prompt):
            if await dealer.handle(io.prompt, io.state()):
                idle = 0
                continue
            idle += 1
            assert idle < 3, f"stuck at {io.prompt}"
            io.advance(2.0)

    asyncio.run(run())
    assert io.irregularities == [] and dealer.log.refused == []
    sent = [body["command"] for body, _ in dealer.log.commands]
    assert dealer.log.mucked > 0 and sent.count("muck") == dealer.log.mucked
    assert "show" in sent and "confirm" not in sent
    assert io.core.summary()["chips_in_play"] == 80_000


def test_busted_players_buy_back_in_or_leave_for_new_ones_and_the_chips_agree() -> None:
    """Short stacks and a lobby: the run goes on for every hand asked; the cage's chips count."""
    from table_controller.simtable.players import Lobby

    seats = {1: 300, 2: 300, 3: 300}
    io = CoreIO(seats=6, small_blind=50, big_blind=100, deck=sim_deck_profile(1),
                chips=default_chip_config(6), rake=RakeRule(500, 500))
    lobby = Lobby(seats, seed=2, buy_in=300, big_blind=100, leave=0.5)
    dealer = SimDealer(io, lobby.decide, seats={s: (lobby.players[s].name, v)
                                                for s, v in seats.items()},
                       hands=60, seed=2, lobby=lobby)

    async def run() -> None:
        idle = 0
        while not dealer.finished(io.prompt):
            if await dealer.handle(io.prompt, io.state()):
                idle = 0
                continue
            idle += 1
            assert idle < 3, f"stuck at {io.prompt}"
            io.advance(2.0)

    asyncio.run(run())
    ended = [o for o in io.outputs if isinstance(o, HandEnded)]
    assert len(ended) == 60 and not any(e.voided for e in ended)
    assert io.irregularities == [] and dealer.log.refused == []
    assert dealer.log.rebuys > 0 and dealer.log.newcomers > 0
    sent = [body["command"] for body, _ in dealer.log.commands]
    assert sent.count("buy_in") == dealer.log.rebuys
    assert sent.count("unseat") == dealer.log.newcomers
    assert dealer.log.buy_ins >= 100 * (dealer.log.rebuys + dealer.log.newcomers)
    summary = io.core.summary()
    assert summary["chips_in_play"] + summary["rake_total"] == 900 + dealer.log.buy_ins
    # the new players play: their names are at the table
    names = {v["player"] for v in io.state()["seats"].values() if isinstance(v, dict)
             and v.get("player")}
    assert names & {"Kay", "Lu", "Max", "Ned", "Oz", "Pia", "Quin", "Ray", "Sol", "Tess"}
