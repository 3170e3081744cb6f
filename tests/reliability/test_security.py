"""Security against the real daemon process (CURVE on tcp://127.0.0.1, SQLite journal).

- A console without an allowed key cannot act: its CURVE handshake is refused, it gets no reply,
  and nothing changes (status, snapshot, journal).
- A replayed command is answered from the record and not applied twice, also over a new
  connection; a seq reused for another command is refused.
- Subscribers of every kind on the public side (SUB ``""``, SUB with topic prefixes, the dealer
  feed, a SUB and a raw XSUB through the floor proxy) never receive a hole card over full hands
  with showdowns and all-ins; the surveillance feed does (the control).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq
import zmq.asyncio

from table_controller.feeds import (
    ClientKeys,
    CommandClient,
    CommandReply,
    CommandTimeout,
    KeyRefused,
    Message,
    create_key_pair,
)
from table_controller.journal import EntryKind, Journal
from table_controller.simtable.rig import RigOptions, SimRig
from table_controller.simtable.soak import (
    STATE_KEYS,
    STATUS_KEYS,
    JournalFacts,
    SoakOptions,
    check_leaks,
    fetch_snapshot,
    run_soak,
    start_rig,
    without_devices,
)
from tests.reliability.counts import COUNTS


@pytest.fixture(scope="module")
def rig() -> Iterator[SimRig]:
    r = start_rig(RigOptions(seats=6, security="curve", camera_level="exact"), tcp=True)
    try:
        yield r
    finally:
        assert r.stop() == 0


def arun(coro: Any, timeout: float = 60.0) -> Any:
    async def main() -> Any:
        return await asyncio.wait_for(coro, timeout)

    return asyncio.run(main())


def console(ctx: zmq.asyncio.Context, rig: SimRig, keys: ClientKeys | None, name: str, *,
            timeout: float = 5.0, retries: int = 3, first_seq: int = 1) -> CommandClient:
    return CommandClient(ctx, rig.endpoints["commands"], table_id=rig.options.table_id,
                         console_id=name, keys=keys, timeout=timeout, retries=retries,
                         first_seq=first_seq)


def allowed_keys(rig: SimRig) -> ClientKeys:
    keys = rig.console_keys()
    assert isinstance(keys, ClientKeys)
    return keys


async def state_of(ctx: zmq.asyncio.Context, rig: SimRig, c: CommandClient
                   ) -> tuple[dict[str, Any], dict[str, Any]]:
    status = (await c.send("status")).result
    snap = await fetch_snapshot(ctx, rig.endpoints["snapshot"], rig.options.table_id)
    return without_devices(status, STATUS_KEYS), without_devices(snap, STATE_KEYS)


def journal_consoles(rig: SimRig) -> set[str]:
    with contextlib.closing(Journal.open(rig.dir / "journal.db", readonly=True)) as j:
        return {str(e.payload.get("console")) for e in j.entries()
                if e.kind is EntryKind.DEALER_COMMAND}


def test_a_console_without_an_allowed_key_cannot_act(rig: SimRig, tmp_path: Path) -> None:
    _, intruder_secret = create_key_pair(tmp_path, "intruder")
    server_pub = rig.keys["server_public"]
    create_key_pair(tmp_path, "other-server")
    strangers: dict[str, ClientKeys | None] = {
        "intruder": ClientKeys.from_files(intruder_secret, server_pub),
        "plain": None,
        "wrong-server-key": ClientKeys.from_files(rig.keys["console_secret"],
                                                  tmp_path / "other-server.key"),
        # a display's key is allowed on the surveillance feed, not on the command endpoint
        "display-key": ClientKeys.from_files(rig.keys["display_secret"], server_pub),
    }

    async def main() -> None:
        ctx = zmq.asyncio.Context()
        try:
            ok = console(ctx, rig, allowed_keys(rig), "floor-1")
            assert (await ok.send("seat", seat=1, player="Ann", stack=5000)).accepted
            await asyncio.sleep(0.3)
            before = await state_of(ctx, rig, ok)
            for name, keys in strangers.items():
                c = console(ctx, rig, keys, name, timeout=0.5, retries=1)
                for body in ({"command": "seat", "seat": 2, "player": "Eve", "stack": 10**6},
                             {"command": "buy_in", "seat": 1, "amount": 10**6}):
                    with pytest.raises((CommandTimeout, KeyRefused)):  # refused: said at once
                        await c.request(body)
                    COUNTS["commands refused (no allowed key)"] += 1
                await c.close()
            await asyncio.sleep(0.3)
            after = await state_of(ctx, rig, ok)
            assert after == before
            await ok.close()
        finally:
            ctx.destroy(linger=0)

    arun(main())
    assert journal_consoles(rig).isdisjoint(strangers)


def test_a_replayed_command_is_not_applied_twice(rig: SimRig) -> None:
    async def main() -> None:
        ctx = zmq.asyncio.Context()
        try:
            keys = allowed_keys(rig)
            c = console(ctx, rig, keys, "floor-2", first_seq=100)
            await c.send("seat", seat=4, player="Bo", stack=3000)
            status = (await c.send("status")).result
            stack = status["stacks"]["4"]
            seq = c.next_seq
            first = await c.send("buy_in", seat=4, amount=700)
            assert first.accepted and not first.replayed, first.reason
            again = await c.resend(seq, {"command": "buy_in", "seat": 4, "amount": 700})
            assert again.accepted and again.replayed
            # a new connection (a console restarted with the same id) gets the record too
            c2 = console(ctx, rig, keys, "floor-2", first_seq=seq)
            third = await c2.send("buy_in", seat=4, amount=700)
            assert third.replayed and third.to_data() == first.to_data()
            # the same seq for another command is refused, not applied
            other: CommandReply = await c2.resend(seq, {"command": "buy_in", "seat": 4,
                                                        "amount": 900})
            assert not other.accepted and "duplicate seq" in other.reason
            after = (await c.send("status")).result
            assert after["stacks"]["4"] == stack + 700
            COUNTS["replayed commands answered from the record"] += 2
            await c.close()
            await c2.close()
        finally:
            ctx.destroy(linger=0)

    arun(main())
    with contextlib.closing(Journal.open(rig.dir / "journal.db", readonly=True)) as j:
        buy_ins = [e for e in j.entries() if e.kind is EntryKind.DEALER_COMMAND
                   and e.payload["console"] == "floor-2"
                   and e.payload["command"]["command"] == "buy_in"]
        assert len(buy_ins) == 1


def test_public_side_subscribers_never_get_a_hole_card() -> None:
    report = asyncio.run(asyncio.wait_for(run_soak(SoakOptions(hands=4, seed=3, taps=True,
                                                               time_budget=300)), 420))
    print("\n".join(report.lines()))
    leaks = report.leaks
    assert not report.errors, report.errors
    assert leaks["leaks"] == []
    assert leaks["surveillance_hole_cards"] > 0, "the control saw no hole card"
    assert leaks["showdowns"] > 0 and leaks["all_ins"] > 0
    for kind in ("public:all", "public:table", "public:partial", "public:event",
                 "public:table_state", "dealer:all", "floor:sub", "floor:table", "floor:xsub"):
        assert leaks["messages"][kind] > 50, kind
    assert report.ok
    COUNTS["public-side messages checked"] += sum(
        n for k, n in leaks["messages"].items() if k != "surveillance")
    COUNTS["hands"] += report.hands_played


def test_the_leak_check_finds_a_planted_hole_card() -> None:
    facts = JournalFacts(holes={1: {2: ["Ah", "Kd"], 3: ["7c", "7d"]}}, burns={1: ["2s"]})
    stream = [
        Message("hand_start", 1, "T1", 0.0, {"hand": 1}),
        Message("event", 2, "T1", 0.0, {"event": "hole_card", "seat": 2, "hole_card": "??"}),
        Message("event", 3, "T1", 0.0, {"event": "board", "card": "Qs"}),
        Message("announcement", 4, "T1", 0.0, {"text": "seat 3 holds 7c"}),
        Message("event", 5, "T1", 0.0, {"event": "hole_card", "hole_card": "Kd"}),
        Message("event", 6, "T1", 0.0, {"event": "show", "seat": 2, "cards": ["Ah", "Kd"]}),
        Message("table_state", 7, "T1", 0.0, {"hand": 1, "burn": "2s"}),
    ]
    rep = check_leaks({"public:all": stream, "public:event": stream[1:3]}, facts)
    assert len(rep.leaks) == 5, rep.leaks
    assert any("7c" in x for x in rep.leaks) and any("2s" in x for x in rep.leaks)
    assert rep.showdowns == 1
