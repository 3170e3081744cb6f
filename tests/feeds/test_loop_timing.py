"""Heartbeats sent when due and counted late, the loop's turns timed, command turns on a budget.

Stepped clocks and counted events only: no wall-clock budget.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import zmq
import zmq.asyncio

from table_controller import looptime
from table_controller.feeds import (
    Command,
    CommandReply,
    CommandServer,
    Feed,
    FeedEndpoints,
    FeedHub,
    Message,
)
from table_controller.feeds.commands import COMMANDS_PER_TURN, TURN_BUDGET
from table_controller.journal import Journal
from table_controller.looptime import Lateness, LoopStats
from tests.feeds.helpers import arun


def test_the_heartbeat_task_sleeps_until_the_first_feed_is_due() -> None:
    async def body(ctx: zmq.asyncio.Context) -> None:
        t = [100.0]
        async with FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback(),
                           heartbeat_interval=1.0, mono_clock=lambda: t[0]) as hub:
            # every feed last sent at 100: due at 101; woken at least every quarter interval
            assert hub.heartbeat_wait(100.0) == 0.25
            assert abs(hub.heartbeat_wait(100.9) - 0.1) < 1e-9
            assert hub.heartbeat_wait(101.0) == 0.0
            assert hub.heartbeat_wait(105.0) == 0.0
            t[0] = 100.5
            await hub.publish(Feed.DEALER, "x", {})  # the dealer feed is due later, not sooner
            assert abs(hub.heartbeat_wait(100.95) - 0.05) < 1e-9

    arun(body)


def test_heartbeats_are_counted_late_from_their_due_time() -> None:
    async def body(ctx: zmq.asyncio.Context) -> None:
        t = [100.0]
        async with FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback(),
                           heartbeat_interval=1000.0, mono_clock=lambda: t[0]) as hub:
            t[0] = 600.0
            await hub.publish(Feed.DEALER, "x", {})
            t[0] = 1100.25  # public and surveillance were due at 1100
            assert await hub.tick(t[0]) == [Feed.PUBLIC, Feed.SURVEILLANCE]
            report = hub.heartbeat_report()
            assert report["count"] == 2 and report["late_over_100ms"] == 2
            assert report["late_max_ms"] == 250.0
            assert report["worst"] is None  # a clock that is not the loop's: not explained
            t[0] = 1600.0  # the dealer feed on time
            assert await hub.tick(t[0]) == [Feed.DEALER]
            assert hub.heartbeat_report()["count"] == 3
            assert hub.heartbeat_report()["late_max_ms"] == 250.0
            # a message after the feed's heartbeat was due takes its place, late
            t[0] = 2600.5
            await hub.publish(Feed.DEALER, "x", {})
            report = hub.heartbeat_report()
            assert report["count"] == 4 and report["late_max_ms"] == 500.0
            t[0] = 2700.0  # and one before it was due is not a heartbeat late
            await hub.publish(Feed.DEALER, "x", {})
            assert hub.heartbeat_report()["count"] == 4

    arun(body)


def test_turns_are_counted_and_a_span_is_told_apart() -> None:
    stats = LoopStats()
    stats.record(10.0, 10.030, 0.030)   # 30 ms of work
    stats.record(10.050, 10.170, 0.010, 0.070)  # 120 ms: 10 on the CPU, 70 waiting for one
    stats.record(10.200, 10.201, 0.001)
    data = stats.to_data()
    assert data["turns"] == 3
    assert data["turns_over_ms"] == {"20": 2, "50": 1, "100": 1}
    assert [t["wall_ms"] for t in data["longest_turns"]] == [120.0, 30.0, 1.0]
    # from 10.0 to 10.2: 150 ms in turns (40 ms CPU), 50 ms waiting
    span = stats.between(10.0, 10.2)
    assert span.turns == 2
    assert abs(span.turns_ms - 150.0) < 1e-6 and abs(span.turns_cpu_ms - 40.0) < 1e-6
    assert abs(span.waiting_ms - 50.0) < 1e-6
    assert abs(span.longest_turn_ms - 120.0) < 1e-6
    # inside the turns: 40 ms on the CPU, 70 ms waiting for one, 40 ms blocked
    assert abs(span.turns_queued_ms - 70.0) < 1e-6 and abs(span.blocked_ms - 40.0) < 1e-6
    assert data["longest_turns"][0] == {"wall_ms": 120.0, "cpu_ms": 10.0, "queued_ms": 70.0}
    # a turn cut by the span counts for its part (CPU pro rata)
    half = stats.between(10.110, 10.2)
    assert abs(half.turns_ms - 60.0) < 1e-6 and abs(half.turns_cpu_ms - 5.0) < 1e-6
    stats.clear()
    assert stats.to_data()["turns"] == 0 and stats.between(0.0, 100.0).turns == 0


def test_a_timed_loop_counts_its_turns_and_explains_a_late_event() -> None:
    seen: list[LoopStats | None] = []
    late = Lateness()

    async def main() -> None:
        for _ in range(5):
            await asyncio.sleep(0)
        seen.append(looptime.loop_stats())
        now = time.monotonic()
        late.record(1000.0, now)  # due long before the loop started: every turn is in it

    with asyncio.Runner(loop_factory=looptime.new_event_loop) as runner:
        runner.run(main())
    stats = seen[0]
    assert stats is not None and stats.turns >= 5
    assert late.count == 1 and late.late_over_100ms == 1 and late.worst is not None
    assert abs(late.worst.span_ms - 1e6) < 1e-3 and late.worst.turns >= 5

    async def untimed() -> LoopStats | None:
        return looptime.loop_stats()

    assert asyncio.run(untimed()) is None
    assert looptime.loop_stats() is None  # no loop running


def _command(seq: int) -> bytes:
    return Message("command", seq, "T1", 1.0, {"command": "status"}, "c1").encode()


def test_a_command_turn_stops_at_its_budget(tmp_path: Path) -> None:
    journal = Journal.open(tmp_path / "j.sqlite")
    t = [50.0]
    step = TURN_BUDGET * 0.4  # each command "takes" 40 % of the budget on the stepped clock

    async def handler(cmd: Command) -> CommandReply:
        t[0] += step
        return CommandReply(True)

    async def body(ctx: zmq.asyncio.Context) -> None:
        server = CommandServer(ctx, "inproc://budget", table_id="T1", journal=journal,
                               handler=handler, mono_clock=lambda: t[0])
        assert COMMANDS_PER_TURN > 5
        turn = [([b"p"], _command(seq), None) for seq in range(1, 6)]
        left = await server.serve_turn(turn)
        # the third command took the turn past its budget: the rest wait for the next turn
        assert left == turn[3:]
        assert [r.seq for _e, r in server.last_turn] == [1, 2, 3]
        assert await server.serve_turn(left) == []
        assert [r.seq for _e, r in server.last_turn] == [4, 5]
        report = server.turn_report()
        assert report["turns"] == 2 and report["cut_by_budget"] == 1
        assert journal.last_seq == 5

    try:
        arun(body)
    finally:
        journal.close()
