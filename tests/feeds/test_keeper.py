"""The heartbeat keeper: heartbeats while the loop's thread is blocked in a journal write.

Stepped (:meth:`HeartbeatKeeper.check` with the test's ``now``), and one run where the loop's
thread really blocks in a journal commit whose ``fdatasync`` waits for the test's go-ahead,
given by a thread that counts the heartbeats a subscriber gets meanwhile. Real sockets, a real
journal; no wall-clock budget (events, and timeouts that only end a hung test).
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path

import pytest
import zmq
import zmq.asyncio

from table_controller.feeds import Feed, FeedEndpoints, FeedHub, decode
from table_controller.feeds.keeper import HeartbeatKeeper
from table_controller.journal import EntryKind, Journal, WriteWatch
from tests.feeds.helpers import arun

HUNG = 20.0


async def _subscribed(hub: FeedHub, n: int = 1) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + HUNG
    while hub.subscriptions < n:
        assert loop.time() < deadline, "the subscription was never taken"
        await asyncio.sleep(0.01)


def test_beats_only_inside_a_write_when_due_and_for_a_bounded_time() -> None:
    clock = [0.0]

    async def body(ctx: zmq.asyncio.Context) -> None:
        async with FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback(),
                           heartbeat_interval=0.05, mono_clock=lambda: clock[0],
                           epoch="e1") as hub:
            sub = ctx.socket(zmq.SUB)
            sub.setsockopt(zmq.SUBSCRIBE, b"")
            sub.connect(hub.bound["public"])
            await _subscribed(hub)
            await hub.publish(Feed.PUBLIC, "count", {"n": 1})
            _topic, raw = await asyncio.wait_for(sub.recv_multipart(), HUNG)
            assert decode(raw).type == "count"
            watch = WriteWatch()
            keeper = HeartbeatKeeper(hub, watch, keep_for=1.0)
            assert keeper.check(0.5) == []  # the loop is not in a write: nothing (rule 1)
            with watch.writing():
                assert keeper.check(0.04) == []  # not due yet
                assert keeper.check(0.06) == list(Feed)
                assert keeper.check(0.08) == []  # its own beat is the last one
                with watch.writing():  # a nested write is the same write
                    assert keeper.check(0.12) == list(Feed)
                assert keeper.check(1.2) == []  # past keep_for in one write (rule 2)
            with watch.writing():  # a new write
                assert keeper.check(1.3) == list(Feed)
            assert keeper.sent == 9
            for _ in range(3):
                topic, raw = await asyncio.wait_for(sub.recv_multipart(), HUNG)
                msg = decode(raw)
                assert topic == b"T1/heartbeat" and msg.type == "heartbeat"
                assert msg.seq == 1 and msg.data == {"epoch": "e1", "interval": 0.05}
            sub.close(linger=0)

    arun(body)


def test_heartbeats_go_on_while_the_loop_is_blocked_in_a_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = Journal.open(tmp_path / "j.sqlite")
    loop_thread = threading.get_ident()
    entered, go = threading.Event(), threading.Event()
    since = [0.0]
    beats: list[float] = []
    real = os.fdatasync

    def fdatasync(fd: int) -> None:
        if threading.get_ident() == loop_thread and not go.is_set():
            since[0] = time.time()
            entered.set()
            go.wait(HUNG)
        real(fd)

    async def body(ctx: zmq.asyncio.Context) -> None:
        async with FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback(),
                           heartbeat_interval=0.02) as hub:
            keeper = HeartbeatKeeper(hub, journal.watch)
            counter = zmq.Context()
            sub = counter.socket(zmq.SUB)
            sub.setsockopt(zmq.SUBSCRIBE, b"")
            sub.rcvtimeo = int(HUNG * 1000)
            sub.connect(hub.bound["public"])

            def count() -> None:  # beside the blocked loop: 3 heartbeats, then the go-ahead
                try:
                    entered.wait(HUNG)
                    while len(beats) < 3:
                        msg = decode(sub.recv_multipart()[1])
                        if msg.type == "heartbeat" and msg.ts > since[0]:
                            beats.append(msg.ts)
                except zmq.Again:
                    pass
                finally:
                    go.set()

            await _subscribed(hub)
            keeper.start()
            counting = threading.Thread(target=count)
            counting.start()
            try:
                monkeypatch.setattr(os, "fdatasync", fdatasync)
                # a device input's commit, on the loop's thread: it blocks the loop
                journal.append(EntryKind.DECISION, {"text": "a device input"}, wall_time=1.0,
                               mono_time=1.0)
            finally:
                go.set()
                await asyncio.to_thread(counting.join, HUNG)
                keeper.stop()
                sub.close(linger=0)
                counter.term()
            assert len(beats) == 3, "no heartbeat while the loop was blocked in a commit"
            assert keeper.sent >= 3

    try:
        arun(body, timeout=3 * HUNG)
    finally:
        journal.close()


def test_sleeps_until_a_heartbeat_can_be_due_unless_the_loop_is_in_a_write() -> None:
    clock = [0.0]

    async def body(ctx: zmq.asyncio.Context) -> None:
        async with FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback(),
                           heartbeat_interval=0.2, mono_clock=lambda: clock[0],
                           epoch="e1") as hub:
            watch = WriteWatch()
            keeper = HeartbeatKeeper(hub, watch)
            clock[0] = 1.0
            for feed in Feed:  # every feed sent at 1.0, the public one again at 1.1
                await hub.publish(feed, "count", {"n": 1})
            clock[0] = 1.1
            await hub.publish(Feed.PUBLIC, "count", {"n": 2})
            assert keeper.check(1.15) == []
            # the loop not in a write: until the first feed's heartbeat can be due (1.2)
            assert keeper.next_look(1.15, 0.025) == pytest.approx(0.05)
            assert keeper.check(1.25) == []  # due, but the loop sends it itself
            assert keeper.next_look(1.25, 0.025) == 0.025  # due: look again soon
            with watch.writing():
                assert keeper.check(1.25) == [Feed.DEALER, Feed.SURVEILLANCE]
                # in a write: every quarter interval, even with nothing due before 1.3
                assert keeper.next_look(1.25, 0.025) == 0.025
            assert keeper.check(1.26) == []
            assert keeper.next_look(1.26, 0.025) == pytest.approx(0.04)  # the public at 1.3
            clock[0] = 5.0
            for feed in Feed:
                await hub.publish(feed, "count", {"n": 3})
            assert keeper.check(5.0) == []
            assert keeper.next_look(5.0, 0.025) == pytest.approx(0.2)  # at most an interval

    arun(body)
