"""Full hands through the daemon process: real ptys, real ZeroMQ (CURVE), real SQLite.

Includes a kill -9 in the middle of a hand followed by a restart that resumes the same hand, and a
subscriber on the public endpoint, subscribed to everything, that never sees a hole card.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import zmq
import zmq.asyncio

from table_controller.engine import Act, ActionKind, Card, LegalActions
from table_controller.feeds import Feed, FeedClient, Message, check_no_hole_cards, decode
from table_controller.journal import EntryKind, Journal, thaw
from table_controller.journal.anchor import read_anchor
from table_controller.simtable.devices.hands import feeder_of, hands_of
from table_controller.simtable.players import passive
from table_controller.simtable.rig import SimRig
from table_controller.simtable.session import DealerSession, dealer_session
from tests.controller.rig import cards, e2e_rig

# Button seat 1, small blind 2, big blind 3; hole cards go 2, 3, 1, 2, 3, 1.
DECK = ["Ah", "Kd", "2c", "As", "Kh", "3c",  # hole cards
        "7s", "9s", "Qc", "Jd",  # burn, flop
        "4h", "5s",  # burn, turn
        "6h", "8d",  # burn, river
        "Tc", "Td", "Th", "Ts", "Jc", "Jh", "Js", "Qd", "Qh", "Qs", "Kc", "Ks", "Ac", "Ad"]
HOLES = {2: ("Ah", "As"), 3: ("Kd", "Kh"), 1: ("2c", "3c")}


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[SimRig]:
    r = e2e_rig(tmp_path)
    try:
        yield r
    finally:
        r.stop()


def dealing(rig: SimRig, ctx: zmq.asyncio.Context | None = None,
            **kw: Any) -> contextlib.AbstractAsyncContextManager[DealerSession]:
    """The simulated dealer, the shoe loaded with :data:`DECK` at the first hand."""
    return dealer_session(rig, decks=[cards(DECK)], ctx=ctx, **kw)


def arun(coro: Any, timeout: float = 60.0) -> Any:
    async def main() -> Any:
        return await asyncio.wait_for(coro, timeout)

    return asyncio.run(main())


class PublicTap:
    """A raw SUB socket on the public feed, subscribed to everything."""

    def __init__(self, ctx: zmq.asyncio.Context, endpoint: str) -> None:
        self.sock = ctx.socket(zmq.SUB)
        self.sock.linger = 0
        self.sock.setsockopt(zmq.SUBSCRIBE, b"")
        self.sock.connect(endpoint)
        self.messages: list[Message] = []
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while True:
            frames = await self.sock.recv_multipart()
            self.messages.append(decode(frames[-1]))

    async def close(self) -> None:
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task
        self.sock.close(linger=0)

    def assert_no_hole_card(self, holes: Mapping[int, tuple[str, ...]]) -> None:
        shown: set[int] = set()
        for msg in self.messages:
            if msg.type == "event" and msg.data.get("event") == "show":
                shown.add(int(msg.data["seat"]))
            secret = [c for s, cs in holes.items() if s not in shown for c in cs]
            check_no_hole_cards(msg.data, secret, what=f"public {msg.type} #{msg.seq}")


def fold_seat_1(legal: LegalActions, pot: int) -> Act:
    if legal.seat == 1:
        return Act(1, ActionKind.FOLD)
    return passive(legal, pot)


async def seat_three(d: DealerSession) -> None:
    for seat in (1, 2, 3):
        await d.ok("seat", seat=seat, player=f"p{seat}", stack=10_000)


def test_full_hand_end_to_end_and_public_feed_never_sees_a_hole_card(rig: SimRig) -> None:
    rig.start_daemon()

    async def main() -> None:
        ctx = zmq.asyncio.Context()
        tap = PublicTap(ctx, rig.endpoints["public"])
        try:
            async with dealing(rig, ctx) as d:
                await asyncio.sleep(0.3)  # the tap's subscription is in place (slow joiner)
                await seat_three(d)
                await d.wait(lambda: d.prompt["step"]["kind"] == "start_hand")
                await d.step()  # start
                await d.play_until(lambda s: s["kind"] == "start_hand", fold_seat_1)
                status = (await d.ok("status")).result
                assert status["hands_played"] == 1
                assert status["stacks"] == {"1": 10_000, "2": 10_100, "3": 9_900}
                # the daemon's own account of its loop (timed turns) and heartbeats
                loop = status["loop"]
                assert loop["turns"]["turns"] > 0 and loop["commands"]["turns"] > 0
                assert set(loop["heartbeats"]) >= {"count", "late_max_ms", "worst"}
                # surveillance (CURVE, display key) sees what public and dealer never do
                watcher = FeedClient(ctx, feed=Feed.SURVEILLANCE,
                                     feed_endpoint=rig.endpoints["surveillance"],
                                     snapshot_endpoint=rig.endpoints["surveillance_snapshot"],
                                     table_id="T1", keys=rig.display_keys())
                try:
                    ev = await watcher.next_event(timeout=30.0)
                    assert ev is not None and ev.state is not None, ev
                    assert ev.state["burn_cards"] == ["7s", "4h", "6h"]
                finally:
                    await watcher.close()
                assert status["irregularities"] == []
                assert status["device_health"]["shoe"]["link"] == "ok"
                # a clean link: nothing refused and resent, nothing twice (the technicians'
                # health signal; the devices wait 10 s for an ACK, so a late one is no resend)
                health = {n: (h["retransmissions"], h["duplicates"])
                          for n, h in status["device_health"].items()
                          if n in ("shoe", "chips")}
                assert health == {"shoe": (0, 0), "chips": (0, 0)}, (
                    status["device_health"], loop)

                def texts() -> list[str]:
                    return [m.data["text"] for m in [*d.messages, *tap.messages]
                            if m.type == "announcement"]

                await d.wait(lambda: "Move the button to seat 2" in texts())
                assert "Main pot 200 to seat 2" in texts()
                assert "Option to the big blind, seat 3" in texts()
                await asyncio.sleep(0.2)
                assert tap.messages, "the public tap heard nothing"
                tap.assert_no_hole_card(HOLES)
                kinds = {m.type for m in tap.messages}
                assert {"prompt", "event", "table_state", "announcement"} <= kinds
        finally:
            await tap.close()
            ctx.destroy(linger=0)

    arun(main())
    assert rig.terminate() == 0
    phh = list(rig.phh_dir.glob("*.phh"))
    assert [p.name for p in phh] == ["hand-000001.phh"]
    assert "finishing_stacks = [10100, 9900, 10000]" in phh[0].read_text()


def test_kill_9_mid_hand_then_restart_resumes_the_same_hand(rig: SimRig) -> None:
    rig.start_daemon()
    before: dict[str, Any] = {}
    raise_seq = 0

    def raise_1(legal: LegalActions, pot: int) -> Act:
        if legal.seat == 1:
            return Act(1, ActionKind.RAISE, 300)
        return passive(legal, pot)

    async def first_half() -> None:
        nonlocal raise_seq
        async with dealing(rig) as d:
            await seat_three(d)
            await d.wait(lambda: d.prompt["step"]["kind"] == "start_hand")
            await d.step()
            await d.play_until(lambda s: s["kind"] == "act")
            raise_seq = d.console.next_seq
            await d.step(raise_1)  # seat 1 raises to 300 (chips on its zone)
            await d.step(raise_1)  # seat 2 calls
            assert d.prompt["step"]["kind"] == "act" and d.prompt["step"]["seat"] == 3
            await d.wait(lambda: d.state.get("prompt", {}).get("id") == d.prompt["id"]
                         and d.state["seats"]["2"]["bet"] == 300)
            before.update(d.state)

    arun(first_half())
    rig.kill()
    ready = rig.start_daemon()
    assert ready["replayed"] > 20

    async def second_half() -> None:
        ctx = zmq.asyncio.Context()
        try:
            async with dealer_session(rig, first_seq=raise_seq, ctx=ctx) as d:
                await d.wait(lambda: bool(d.state))
                after = d.state
                for key in ("hand", "button", "seats", "board", "pots", "to_act", "current_bet",
                            "prompt", "hole_cards", "held", "irregularities"):
                    assert after[key] == before[key], key
                # a display joining now (late) gets the same table, hole cards masked
                late = FeedClient(ctx, feed=Feed.PUBLIC, feed_endpoint=rig.endpoints["public"],
                                  snapshot_endpoint=rig.endpoints["snapshot"], table_id="T1")
                try:
                    ev = await late.next_event(timeout=30.0)
                    assert ev is not None and ev.state is not None
                    for key in ("hand", "seats", "pots", "to_act", "prompt"):
                        assert ev.state[key] == after[key], key
                    assert ev.state["hole_cards"] == {"1": ["??", "??"], "2": ["??", "??"],
                                                      "3": ["??", "??"]}
                finally:
                    await late.close()
                # the raise resent with its seq is answered from the record, not applied again
                again = await d.cmd("raise", seat=1, to=300)
                assert again.accepted and again.replayed
                d.console.reserve_seq()  # the call of seat 2 (seq + 1) was used too
                await d.play_until(lambda s: s["kind"] == "start_hand")
                status = (await d.ok("status")).result
                assert status["hands_played"] == 1
                assert status["chips_in_play"] == 30_000
                assert status["stacks"] == {"1": 9_700, "2": 10_600, "3": 9_700}
                assert status["irregularities"] == []
        finally:
            ctx.destroy(linger=0)

    arun(second_half())
    assert rig.terminate() == 0
    with contextlib.closing(Journal.open(rig.journal_path, readonly=True)) as j:
        raises = [e for e in j.entries() if e.kind is EntryKind.DEALER_COMMAND
                  and thaw(e.payload["command"]).get("command") == "raise"]
        assert len(raises) == 1
        starts = [e for e in j.entries() if e.kind is EntryKind.HAND_START]
        assert len(starts) == 1
        j.verify()


def test_the_anchor_of_a_card_read_is_written_once_its_prompt_is_published(
        rig: SimRig) -> None:
    """Journal, publish, then the anchor: the card's entry is anchored without another append."""
    rig.start_daemon()

    async def deal_a_card() -> None:
        async with dealing(rig) as d:
            await seat_three(d)
            await d.wait(lambda: d.prompt["step"]["kind"] == "start_hand")
            await d.play_until(lambda s: s["kind"] == "deal_hole")
            before = d.prompt["id"]
            await d.step()  # the first hole card: one device_event entry
            await d.wait_after(before)
            # the table then sits waiting for the next card: whatever the journal's newest
            # entry is (the card, or a camera look journaled after it), the anchor reaches it
            # with no further append
            deadline = time.monotonic() + 10.0
            while True:
                with contextlib.closing(Journal.open(rig.journal_path, readonly=True)) as j:
                    last = j.get(j.last_seq)
                    cards = [e for e in j.entries() if e.kind is EntryKind.DEVICE_EVENT
                             and "card" in e.payload["text"]]
                head = read_anchor(rig.journal_path)
                assert head is not None
                if head.seq == last.seq:
                    break
                assert time.monotonic() < deadline, (head, last.seq)
                await asyncio.sleep(0.05)
            assert head.hash == last.hash
            assert cards and cards[-1].seq <= head.seq, (cards[-1:], head)

    arun(deal_a_card())
    assert rig.terminate() == 0


def test_irregularities_through_the_daemon_hold_and_are_resolved(rig: SimRig) -> None:
    rig.start_daemon()

    async def main() -> None:
        ctx = zmq.asyncio.Context()
        tap = PublicTap(ctx, rig.endpoints["public"])
        try:
            async with dealing(rig, ctx) as d:
                await asyncio.sleep(0.3)
                await seat_three(d)
                await d.wait(lambda: d.prompt["step"]["kind"] == "start_hand")
                await d.step()
                await d.play_until(lambda s: s["kind"] == "deal_hole")
                # a tag no deck knows: hold, resolve, resume, deal again
                d.io.hands.draw_unregistered()
                await d.wait(lambda: d.prompt["step"]["kind"] == "hold")
                refused = await d.cmd("resume")
                assert not refused.accepted and "resolve irregularity 1" in refused.reason
                await d.ok("resolve", irregularity=1, note="foreign card taken out")
                await d.ok("resume", note="dealing on")
                await d.wait(lambda: d.prompt["step"] == {"kind": "deal_hole", "seat": 2,
                                                          "round": 1})
                await d.play_until(lambda s: s["kind"] == "act")
                # seat 1 calls 100 but only 50 lands on its zone: after the settle window,
                # a hold
                await d.ok("call", seat=1)
                d.io.felt.put(1, 50)
                await d.wait(lambda: d.state.get("held") is True, timeout=30.0)
                irr = d.state["irregularities"]
                assert [(i["kind"], i["zone"], i["expected"], i["sensed"]) for i in irr] == [
                    ("chip_difference", 1, 100, 50)]
                d.io.felt.put(1, 50)
                await d.ok("resolve", note="50 more put in")
                await d.ok("resume")
                await d.wait(lambda: d.prompt["step"]["kind"] == "act")
                await d.play_until(lambda s: s["kind"] == "act" and s["seat"] == 2
                                   and s["legal"]["is_bet"])
                # the camera sees another card than the shoe read in slot 3: reported, no hold
                d.io.lay_board(2, Card.parse("Ac"))
                await d.wait(lambda: any(i["kind"] == "board_mismatch"
                                         for i in d.state.get("irregularities", [])))
                assert not d.state["held"]
                # the chip sensors are unplugged mid-hand: hold; the floor voids the hand
                d.io.hands.unplug("chips")
                await d.wait(lambda: d.state.get("held") is True, timeout=30.0)
                assert d.state["devices"]["chips"] == "lost"
                d.io.hands.replug("chips")
                await d.wait(lambda: d.state["devices"]["chips"] == "ok", timeout=30.0)
                voided = await d.ok("void", reason="chip sensors lost")
                assert voided.result["refunds"] == {"1": 100, "2": 100, "3": 100}
                await d.wait(lambda: d.prompt["step"]["kind"] == "start_hand")
                status = (await d.ok("status")).result
                assert status["stacks"] == {"1": 10_000, "2": 10_000, "3": 10_000}
                kinds = [i["kind"] for i in status["irregularities"]]
                assert kinds == ["unknown_card", "chip_difference", "board_mismatch",
                                 "device_lost"]
                assert all(i["resolved"] for i in status["irregularities"])
                await asyncio.sleep(0.2)
                public_kinds = [m.data.get("kind") for m in tap.messages
                                if m.type == "irregularity"]
                assert public_kinds == kinds
                assert sum(1 for m in tap.messages if m.type == "hold") == 3
                tap.assert_no_hole_card(HOLES)
        finally:
            await tap.close()
            ctx.destroy(linger=0)

    arun(main())
    assert rig.terminate() == 0
    with contextlib.closing(Journal.open(rig.journal_path, readonly=True)) as j:
        holds = [e for e in j.entries() if e.kind is EntryKind.HOLD]
        resolutions = [e for e in j.entries() if e.kind is EntryKind.RESOLUTION]
        assert len(holds) == 3 and len(resolutions) >= 5


def test_bad_configuration_exits_2_naming_the_key(tmp_path: Path) -> None:
    from table_controller.cli import main

    bad = tmp_path / "bad.toml"
    text = (Path(__file__).resolve().parents[2] / "examples" / "table.toml").read_text()
    bad.write_text(text.replace("big_blind = 100", "big_blind = -5"))
    assert main(["run", "--config", str(bad)]) == 2
    typo = tmp_path / "typo.toml"
    typo.write_text(text.replace("small_blind = 50", "smal_blind = 50"))
    assert main(["run", "--config", str(typo)]) == 2


def test_card_drawn_while_the_daemon_is_dead_is_not_lost(rig: SimRig) -> None:
    rig.start_daemon()

    async def deal_two() -> None:
        async with dealing(rig) as d:
            await seat_three(d)
            await d.wait(lambda: d.prompt["step"]["kind"] == "start_hand")
            await d.step()
            await d.play_until(lambda s: s["kind"] == "deal_hole")
            await d.step()
            assert d.prompt["step"] == {"kind": "deal_hole", "seat": 3, "round": 1}

    arun(deal_two())
    rig.kill()
    feeder_of(rig).draw()  # the shoe keeps the frame until a host acknowledges it
    rig.start_daemon()

    async def check() -> None:
        async with dealer_session(rig) as d:
            await d.wait(lambda: d.prompt["step"] == {"kind": "deal_hole", "seat": 1,
                                                      "round": 1})
            await d.wait(lambda: d.state.get("hole_cards", {}).get("3") == ["??"])

    arun(check())
    assert rig.terminate() == 0


def test_die_with_parent_stops_an_orphaned_daemon(rig: SimRig) -> None:
    import os
    import subprocess
    import sys
    import time

    ready = rig.dir / "orphan-ready.json"
    code = (
        "import subprocess, sys, time\n"
        "p = subprocess.Popen([sys.executable, '-m', 'table_controller', 'run', '--config', "
        f"{str(rig.config_path)!r}, '--ready-file', {str(ready)!r}, '--die-with-parent'])\n"
        "print(p.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=env)
    assert parent.stdout is not None
    daemon_pid = int(parent.stdout.readline())
    deadline = time.monotonic() + 20
    while not ready.exists():
        assert time.monotonic() < deadline, "daemon not ready"
        time.sleep(0.05)
    parent.kill()
    parent.wait(5)
    deadline = time.monotonic() + 10
    while os.path.exists(f"/proc/{daemon_pid}"):
        status = Path(f"/proc/{daemon_pid}/status").read_text()
        if "State:\tZ" in status:
            break
        assert time.monotonic() < deadline, "the orphaned daemon is still running"
        time.sleep(0.05)


@pytest.mark.slow
def test_rendered_board_is_recognised_through_the_daemon(tmp_path: Path) -> None:
    rig = e2e_rig(tmp_path, camera_level="easy")
    try:
        rig.start_daemon()

        async def main() -> None:
            async with dealing(rig) as d:
                await seat_three(d)
                await d.wait(lambda: d.prompt["step"]["kind"] == "start_hand")
                await d.step()
                await d.play_until(lambda s: s["kind"] == "start_hand", fold_seat_1)
                await asyncio.sleep(3.5)  # longer than the camera window
                status = (await d.ok("status")).result
                assert status["irregularities"] == []
                assert status["device_health"]["camera"]["frames"] >= 2

        arun(main(), timeout=120)
        assert rig.terminate() == 0
    finally:
        rig.stop()


def test_example_configuration_runs_and_stops_on_sigterm(tmp_path: Path) -> None:
    import json
    import os
    import re
    import signal
    import subprocess
    import sys
    import time

    repo = Path(__file__).resolve().parents[2]
    text = (repo / "examples" / "table.toml").read_text()
    text = re.sub(r'tcp://127\.0\.0\.1:\d+', "tcp://127.0.0.1:*", text)
    text = text.replace("~/.local/state/table-controller/T1", str(tmp_path / "state"))
    config = tmp_path / "table.toml"
    config.write_text(text)
    ready = tmp_path / "ready.json"
    env = dict(os.environ, PYTHONPATH=str(repo))
    proc = subprocess.Popen([sys.executable, "-m", "table_controller", "run", "--config",
                             str(config), "--ready-file", str(ready), "--die-with-parent"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 20
        while not ready.exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        info = json.loads(ready.read_text())
        assert set(info["endpoints"]) == {"public", "dealer", "surveillance", "snapshot",
                                          "surveillance_snapshot", "commands"}
        proc.send_signal(signal.SIGTERM)
        out, _err = proc.communicate(timeout=15)
        assert proc.returncode == 0
        assert out.decode().startswith("ready table=T1 replayed=0 ")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_device_back_while_the_daemon_was_down_is_ok_after_the_restart(rig: SimRig) -> None:
    rig.start_daemon()
    hands = hands_of(rig)
    probes = iter(range(1000))

    async def devices() -> dict[str, str]:
        async with dealer_session(rig, console=f"probe-{next(probes)}") as d:
            return dict((await d.ok("status")).result["devices"])

    hands.unplug("shoe")
    deadline = time.monotonic() + 30
    while arun(devices())["shoe"] != "lost":
        assert time.monotonic() < deadline, "the shoe never became lost"
        time.sleep(0.1)
    rig.kill()  # the daemon dies before it sees the shoe come back
    hands.replug("shoe")
    rig.start_daemon()  # ready once the links are synced: the shoe said hello
    assert arun(devices())["shoe"] == "ok"
    assert rig.terminate() == 0


def test_the_daemon_restarts_while_the_shoe_is_unplugged_and_the_hand_resumes(rig: SimRig) -> None:
    # a power cut during a hand; the shoe's cable is out when the controller comes back
    rig.start_daemon()
    hands = hands_of(rig)

    async def first_half() -> None:
        async with dealing(rig) as d:
            await seat_three(d)
            await d.wait(lambda: d.prompt["step"]["kind"] == "start_hand")
            await d.play_until(lambda s: s["kind"] == "deal_hole")
            await d.step()  # one hole card dealt

    arun(first_half())
    rig.kill()
    hands.unplug("shoe")
    ready = rig.start_daemon()  # starts anyway: journal recovered, the shoe lost
    assert ready["replayed"] > 5

    async def second_half() -> None:
        async with dealer_session(rig, console="dealer-2") as d:
            await d.wait(lambda: d.state.get("held") is True, timeout=30.0)
            status = (await d.ok("status")).result
            assert status["devices"]["shoe"] == "lost"
            assert status["device_health"]["shoe"]["link"] == "lost"
            assert [i["kind"] for i in status["irregularities"]] == ["device_lost"]
            assert d.prompt["step"]["kind"] == "hold"
            refused = await d.cmd("resume")
            assert not refused.accepted
            hands.replug("shoe")  # the driver's reopen loop finds it
            await d.wait(lambda: d.state["devices"]["shoe"] == "ok", timeout=8.0)
            await d.ok("resolve", note="shoe plugged back in")
            await d.ok("resume", note="shoe back")
            await d.wait(lambda: d.prompt["step"]["kind"] == "deal_hole")
            await d.play_until(lambda s: s["kind"] == "start_hand")
            status = (await d.ok("status")).result
            assert status["hands_played"] == 1
            assert status["chips_in_play"] == 30_000
            assert [i["resolved"] for i in status["irregularities"]] == [True]

    arun(second_half())
    assert rig.terminate() == 0
