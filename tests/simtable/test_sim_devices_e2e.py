"""A whole hand on the real daemon with the simulated devices in their own process.

``sim run`` in one process, ``table-controller run --config DIR/table.toml`` (``serial://``
ports only) in another; the test is the dealer: ``sim ctl`` verbs over the control socket and
dealer commands through a console. Every wait is on an event (the daemon's prompt, a file).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import zmq.asyncio

from calibration.chips import default_chip_config
from table_controller.feeds import CommandClient
from table_controller.phh import load
from table_controller.simtable.devices.control import ControlClient
from tests.simtable.simprocs import TIMEOUT, console, daemon, sim_run, urls, wait_for

pytestmark = pytest.mark.timeout(300)

#: The cards the dealer picks, in the order the prompts ask for them.
CARDS = ["As", "Kd", "Ah", "Kc", "2c", "7d", "9h", "Js", "3s", "4d", "5c", "6h"]


async def prompt_after(client: CommandClient, last: int | None) -> tuple[dict[str, Any],
                                                                         dict[str, Any]]:
    """Wait for a prompt whose id is not ``last``; return it and the status."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        status = (await client.request({"command": "status"})).result
        prompt = status.get("prompt")
        if isinstance(prompt, Mapping) and prompt.get("id") != last:
            return dict(prompt), dict(status)
        assert time.monotonic() < deadline, f"no new prompt after {last}: {status}"
        await asyncio.sleep(0.05)


async def play_hand(d: Path, client: CommandClient, ctl: ControlClient) -> list[str]:
    """Deal one hand by its prompts; return the kinds of the prompts seen."""
    cfg = default_chip_config(2)
    zone = cfg.seat_zones
    bets = {1: 0, 2: 0}
    pot = 0
    cards = list(CARDS)
    to_lay: list[tuple[int, str]] = []
    kinds: list[str] = []
    last: int | None = None
    started = False
    while True:
        prompt, status = await prompt_after(client, last)
        last = prompt["id"]
        step = prompt["step"]
        kind = step["kind"]
        kinds.append(kind)
        for slot, card in to_lay:  # a board card goes on the felt once the shoe read it
            ctl("board", slot, card)
        to_lay.clear()
        if kind == "seat_players":
            for seat, name in ((1, "Alice"), (2, "Bob")):
                reply = await client.request({"command": "seat", "seat": seat, "player": name,
                                              "stack": 10_000})
                assert reply.accepted, reply.reason
        elif kind == "start_hand":
            if started:
                return kinds
            started = True
            ctl("shuffle")
            assert (await client.request({"command": "start"})).accepted
        elif kind == "post":
            seat = int(step["seat"])
            bets[seat] += int(step["amount"])
            ctl("chips", zone[seat], bets[seat])
        elif kind in ("deal_hole", "burn"):
            ctl("draw", cards.pop(0))
        elif kind == "board":
            card = cards.pop(0)
            ctl("draw", card)
            to_lay.append((int(step["slot"]), card))
        elif kind == "act":
            seat, legal = int(step["seat"]), step["legal"]
            if legal.get("can_check"):
                body = {"command": "check", "seat": seat}
            else:
                body = {"command": "call", "seat": seat}
                bets[seat] += int(legal["call_amount"])
            reply = await client.request(body)
            assert reply.accepted, reply.reason
            ctl("chips", zone[seat], bets[seat])
        elif kind == "collect":
            pot = sum(int(p["amount"]) for p in step["pots"])
            for seat in bets:
                bets[seat] = 0
                ctl("chips", zone[seat], 0)
            ctl("chips", cfg.pot_zone, pot)
        elif kind == "show":
            assert (await client.request({"command": "confirm", "prompt": last})).accepted
        elif kind == "award":
            pot -= int(step["amount"])
            ctl("chips", cfg.pot_zone, pot)
            for slot in range(5):
                ctl("board", slot, "empty")
        else:
            raise AssertionError(f"unexpected prompt {prompt} ({status.get('irregularities')})")


@pytest.mark.parametrize(("shoe", "chips"), [("ref", "ref"), ("pn532", "rfid")])
def test_a_whole_hand_with_sim_run_and_the_daemon_in_their_own_processes(
        tmp_path: Path, shoe: str, chips: str) -> None:
    d = tmp_path / "table"
    with sim_run(d, "--seats", "2", "--seed", "7", "--shoe", shoe, "--chips", chips) as sim:
        sim_urls = urls(d)
        scheme = {"ref": "serial", "pn532": "pn532", "rfid": "rfidchips"}
        assert sim_urls["shoe"].startswith(f"{scheme[shoe]}://{d / 'shoe'}")
        assert sim_urls["chips"].startswith(f"{scheme[chips]}://{d / 'chips'}")
        config = (d / "table.toml").read_text()
        assert f'shoe = "{sim_urls["shoe"]}"' in config
        assert f'chips = "{sim_urls["chips"]}"' in config
        assert "sim://shoe" not in config and "sim://chips" not in config
        with daemon(d / "table.toml"), ControlClient(d / "ctl.sock") as ctl:
            ctx = zmq.asyncio.Context()
            client = console(ctx, d)

            async def main() -> tuple[list[str], Mapping[str, Any]]:
                try:
                    kinds = await play_hand(d, client, ctl)
                    status = (await client.request({"command": "status"})).result
                    return kinds, status
                finally:
                    await client.close()

            try:
                kinds, status = asyncio.run(main())
            finally:
                ctx.destroy(linger=0)
            state = ctl("state")
        phh = wait_for("the hand's PHH file", lambda: sorted((d / "phh").glob("*.phh")))
    assert sim.returncode == 0
    assert {"post", "deal_hole", "board", "act", "collect", "show", "award"} <= set(kinds)
    assert status["hands_played"] == 1 and status["irregularities"] == []
    hand = load(phh[0])
    drawn = state["shoe"]["drawn"]
    assert drawn == CARDS  # four hole cards, then burn + flop, burn + turn, burn + river
    h = drawn
    # the button (seat 2, Bob: p1) posts the small blind and is dealt first
    assert (hand.players, hand.seats) == (("Bob", "Alice"), (2, 1))
    assert _actions(phh[0]) == [
        f"d dh p1 {h[0]}{h[2]}", f"d dh p2 {h[1]}{h[3]}", "p2 cc", "p1 cc",
        f"d db {h[5]}{h[6]}{h[7]}", "p1 cc", "p2 cc", f"d db {h[9]}", "p1 cc", "p2 cc",
        f"d db {h[11]}", "p1 cc", "p2 cc", f"p1 sm {h[0]}{h[2]}", f"p2 sm {h[1]}{h[3]}"]
    assert hand.starting_stacks == (10_000, 10_000)
    # aces win the 200 pot, less the 5 % rake
    assert hand.finishing_stacks == (10_090, 9_900)
    assert status["stacks"] == {"1": 9_900, "2": 10_090}
    if shoe == "ref":
        assert state["shoe"]["sent"]["CARD_DRAWN"] == len(drawn)
    else:  # the last card drawn lies on the PN532's antenna
        assert state["shoe"]["antenna"] == drawn[-1]
    assert state["board"] == [None] * 5 and state["chips"]["zones"] == {}


def _actions(path: Path) -> list[str]:
    import tomllib

    actions: list[str] = tomllib.loads(path.read_text())["actions"]
    return actions
