"""A command's journal commit off the event loop: heartbeats go on, replies wait for the commit.

The commit is made slow deterministically: the journal's anchor ``fdatasync`` (inside the
commit, under the journal's lock) waits for the test's go-ahead when the command endpoint's
writer thread calls it. Real sockets, a real SQLite journal; no wall-clock budget (events, and
generous timeouts that only end a hung test).
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import zmq
import zmq.asyncio

from table_controller.feeds import (
    Command,
    CommandReply,
    CommandServer,
    FeedEndpoints,
    FeedHub,
    Message,
    decode,
)
from table_controller.journal import EntryKind, Journal
from tests.feeds.helpers import arun

#: Seconds after which a test that waits for an event is hung (never a budget to meet).
HUNG = 20.0


class _Gate:
    """A slow disk flush on demand: the writer thread's ``fdatasync`` waits for :attr:`go`."""

    def __init__(self, real: Callable[[int], None]) -> None:
        self.real = real
        self.entered = threading.Event()
        self.go = threading.Event()
        #: wall time the held flush began (heartbeats stamped after it were sent meanwhile)
        self.since = 0.0

    def fdatasync(self, fd: int) -> None:
        if threading.current_thread().name.startswith("command-journal") and not self.go.is_set():
            self.since = time.time()
            self.entered.set()
            self.go.wait(HUNG)
        self.real(fd)


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> _Gate:
    held = _Gate(os.fdatasync)
    monkeypatch.setattr(os, "fdatasync", held.fdatasync)
    return held


def _command(seq: int, command: str, **args: object) -> bytes:
    return Message("command", seq, "T1", 1.0, {"command": command, **args}, "c1").encode()


async def _until(event: threading.Event) -> None:
    assert await asyncio.to_thread(event.wait, HUNG), "the commit never started"


@pytest.mark.parametrize("command", ["status", "fold"])
def test_a_held_commit_does_not_stop_heartbeats_and_its_reply_waits_for_it(
    tmp_path: Path, gate: _Gate, command: str
) -> None:
    journal = Journal.open(tmp_path / "j.sqlite")

    async def handler(cmd: Command) -> CommandReply:
        # a status is read-only; the fold is refused: both change nothing, so both commit
        # in the writer thread
        return CommandReply(True) if cmd.name == "status" else CommandReply(False, "no hand")

    async def body(ctx: zmq.asyncio.Context) -> None:
        async with FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback(),
                           heartbeat_interval=0.02) as hub, \
                CommandServer(ctx, f"inproc://off-loop-{command}", table_id="T1",
                              journal=journal, handler=handler) as server:
            sub = ctx.socket(zmq.SUB)
            sub.setsockopt(zmq.SUBSCRIBE, b"")
            sub.connect(hub.bound["public"])
            console = ctx.socket(zmq.DEALER)
            console.connect(server.bound)
            args = {"seat": 3} if command == "fold" else {}
            await console.send_multipart([b"", _command(1, command, **args)])
            await _until(gate.entered)
            # the commit is held in the writer thread: the loop goes on beating
            beats = 0
            while beats < 3:
                _topic, raw = await asyncio.wait_for(sub.recv_multipart(), HUNG)
                msg = decode(raw)
                if msg.type == "heartbeat" and msg.ts > gate.since:
                    beats += 1
            assert not gate.go.is_set()
            events = console.getsockopt(zmq.EVENTS)
            assert isinstance(events, int) and not events & zmq.POLLIN, \
                "a reply left before its commit"
            gate.go.set()
            frames = await asyncio.wait_for(console.recv_multipart(), HUNG)
            reply = decode(frames[-1])
            assert reply.seq == 1 and reply.data["accepted"] is (command == "status")
            # what the reply depends on is on disk, seen by another handle on the file
            with Journal.open(tmp_path / "j.sqlite", readonly=True) as reader:
                stored = reader.stored_command("c1", 1)
                assert stored is not None and stored[0]["command"] == command
            assert server.turns.off_loop == 1
            sub.close(linger=0)
            console.close(linger=0)

    try:
        arun(body, timeout=3 * HUNG)
    finally:
        journal.close()


def test_an_append_beside_a_held_commit_waits_for_it_and_follows_it(
    tmp_path: Path, gate: _Gate
) -> None:
    """A device input's append (another thread here) waits at the journal's lock."""
    journal = Journal.open(tmp_path / "j.sqlite")
    beside_done = threading.Event()

    def beside() -> None:
        journal.append(EntryKind.DECISION, {"text": "a device input"}, wall_time=1.0,
                       mono_time=1.0)
        beside_done.set()

    async def handler(cmd: Command) -> CommandReply:
        return CommandReply(True)

    async def body(ctx: zmq.asyncio.Context) -> None:
        server = CommandServer(ctx, "inproc://off-loop-order", table_id="T1", journal=journal,
                               handler=handler)
        turn = asyncio.create_task(server.serve_turn([([b"p"], _command(1, "status"), None)]))
        await _until(gate.entered)
        other = threading.Thread(target=beside)
        other.start()
        other.join(0.2)
        assert not beside_done.is_set(), "an append went in beside a commit in flight"
        gate.go.set()
        assert await asyncio.wait_for(turn, HUNG) == []
        await asyncio.to_thread(other.join, HUNG)
        assert beside_done.is_set()
        assert [e.kind for e in journal.entries()] == [EntryKind.DEALER_COMMAND,
                                                       EntryKind.DECISION]
        await server.stop()

    try:
        arun(body, timeout=3 * HUNG)
        journal.verify()
    finally:
        journal.close()


def test_an_accepted_command_that_changes_the_table_commits_and_applies_on_the_loop(
    tmp_path: Path, gate: _Gate
) -> None:
    journal = Journal.open(tmp_path / "j.sqlite")
    applied: list[int] = []

    async def handler(cmd: Command) -> CommandReply:
        return CommandReply(True)

    async def on_committed(cmd: Command, reply: CommandReply, entry: object) -> None:
        applied.append(journal.last_seq)  # applied once journaled, no turn of the loop between

    async def body(ctx: zmq.asyncio.Context) -> None:
        server = CommandServer(ctx, "inproc://off-loop-fold", table_id="T1", journal=journal,
                               handler=handler, on_committed=on_committed)
        assert await server.serve_turn([([b"p"], _command(1, "fold", seat=3), None)]) == []
        assert applied == [1] and server.turns.off_loop == 0
        assert not gate.entered.is_set()
        assert server.last_turn[0][1].data["accepted"]

    try:
        arun(body)
    finally:
        journal.close()
