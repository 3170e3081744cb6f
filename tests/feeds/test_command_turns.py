"""The command endpoint's turns: bounded work per turn, one commit for a turn's reads, fairness.

Stepped (:meth:`CommandServer.serve_turn` called directly) or event-based (a handler that waits
for the test's go-ahead, consoles on ``inproc://``, where a sent message is in the server's
queue when ``send`` returns): no wall-clock budget.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import zmq
import zmq.asyncio

from table_controller.feeds import Command, CommandReply, CommandServer, Message, decode
from table_controller.feeds.commands import COMMANDS_PER_TURN
from table_controller.journal import CommandRecord, Entry, Journal
from tests.feeds.helpers import arun


def _command(seq: int, console: str = "c1", command: str = "status", **args: object) -> bytes:
    return Message("command", seq, "T1", 1.0, {"command": command, **args}, console).encode()


class _CountingJournal(Journal):
    """A journal that counts its group commits (and their sizes)."""

    commits: list[int]

    def append_commands(self, records: Sequence[CommandRecord], *, wall_time: float,
                        mono_time: float) -> list[Entry]:
        """Count, then journal as :class:`Journal` does."""
        self.commits.append(len(records))
        return super().append_commands(records, wall_time=wall_time, mono_time=mono_time)


def _journal(path: Path) -> _CountingJournal:
    journal = _CountingJournal.open(path)
    assert isinstance(journal, _CountingJournal)
    journal.commits = []
    return journal


def test_a_turn_of_status_commands_is_one_commit_and_answers_in_order(tmp_path: Path) -> None:
    journal = _journal(tmp_path / "j.sqlite")
    committed: list[int] = []

    async def handler(cmd: Command) -> CommandReply:
        return CommandReply(True, "", {"hand": 1})

    async def on_committed(cmd: Command, reply: CommandReply, entry: object) -> None:
        committed.append(cmd.seq)

    async def body(ctx: zmq.asyncio.Context) -> None:
        server = CommandServer(ctx, "inproc://turns-1", table_id="T1", journal=journal,
                               handler=handler, on_committed=on_committed)
        turn = [([b"peer"], _command(seq), None) for seq in range(1, 11)]
        assert await server.serve_turn(turn) == []
        assert journal.commits == [10]
        replies = [reply for _envelope, reply in server.last_turn]
        assert [r.seq for r in replies] == list(range(1, 11))
        assert all(r.data["accepted"] and r.data["result"] == {"hand": 1} for r in replies)
        assert committed == list(range(1, 11))
        assert server.handled == 10
        assert journal.last_seq == 10
        # each is recorded as a read-only command (without its answer), once
        for seq in range(1, 11):
            stored = journal.stored_command("c1", seq)
            assert stored is not None and dict(stored[1])["read_only"] is True

    try:
        arun(body)
    finally:
        journal.close()


def test_a_command_that_changes_the_table_ends_the_turn_after_the_reads_before_it(
    tmp_path: Path,
) -> None:
    journal = _journal(tmp_path / "j.sqlite")
    order: list[tuple[str, int]] = []
    applied_when_decided: list[int] = []

    async def handler(cmd: Command) -> CommandReply:
        if cmd.name == "raise":  # decided on the table the reads before it left
            applied_when_decided.append(len(order))
        return CommandReply(True)

    async def on_committed(cmd: Command, reply: CommandReply, entry: object) -> None:
        order.append((cmd.name, cmd.seq))

    async def body(ctx: zmq.asyncio.Context) -> None:
        server = CommandServer(ctx, "inproc://turns-2", table_id="T1", journal=journal,
                               handler=handler, on_committed=on_committed)
        turn = [([b"p"], _command(1), None), ([b"p"], _command(2), None),
                ([b"p"], _command(3, command="raise", seat=3, to=400), None),
                ([b"p"], _command(4), None), ([b"p"], _command(5), None)]
        left = await server.serve_turn(turn)
        # the two reads share one commit, journaled before the raise; the rest waits
        assert journal.commits == [2, 1]
        assert order == [("status", 1), ("status", 2), ("raise", 3)]
        assert applied_when_decided == [2]
        assert [r.seq for _e, r in server.last_turn] == [1, 2, 3]
        assert left == turn[3:]
        assert await server.serve_turn(left) == []
        assert journal.commits == [2, 1, 2]
        assert [e.payload["seq"] for e in journal.entries()] == [1, 2, 3, 4, 5]

    try:
        arun(body)
    finally:
        journal.close()


def test_a_command_resent_in_the_same_turn_is_answered_from_the_first(tmp_path: Path) -> None:
    journal = _journal(tmp_path / "j.sqlite")
    decided: list[int] = []

    async def handler(cmd: Command) -> CommandReply:
        decided.append(cmd.seq)
        return CommandReply(True)

    async def body(ctx: zmq.asyncio.Context) -> None:
        server = CommandServer(ctx, "inproc://turns-3", table_id="T1", journal=journal,
                               handler=handler)
        assert await server.serve_turn([([b"p"], _command(1), None),
                                        ([b"p"], _command(1), None)]) == []
        first, again = (r for _e, r in server.last_turn)
        assert first.data["accepted"] and not first.data["replayed"]
        assert again.data["accepted"] and again.data["replayed"]
        assert journal.last_seq == 1 and server.replayed == 1

    try:
        arun(body)
    finally:
        journal.close()


def test_a_flooding_console_does_not_hold_up_another_consoles_command(tmp_path: Path) -> None:
    journal = Journal.open(tmp_path / "j.sqlite")
    decided: list[str] = []
    go = asyncio.Event()
    held = asyncio.Event()

    async def handler(cmd: Command) -> CommandReply:
        if cmd.console == "flood" and cmd.seq == 1:
            held.set()
            await go.wait()  # the server is busy with the flood's backlog
        decided.append(cmd.console)
        return CommandReply(True)

    async def body(ctx: zmq.asyncio.Context) -> None:
        async with CommandServer(ctx, "inproc://turns-fair", table_id="T1", journal=journal,
                                 handler=handler) as server:
            flood = ctx.socket(zmq.DEALER)
            flood.sndhwm = 0
            flood.connect(server.bound)
            n = 300
            for seq in range(1, n + 1):
                await flood.send_multipart([b"", _command(seq, "flood")])
            await asyncio.wait_for(held.wait(), 30)
            other = ctx.socket(zmq.DEALER)
            other.connect(server.bound)
            await other.send_multipart([b"", _command(1, "other")])  # queued on return
            go.set()
            assert await other.poll(30_000), "the other console got no reply"
            reply = decode((await other.recv_multipart())[-1])
            assert reply.data["accepted"] and reply.console == "other"
            before = decided.index("other")
            # answered within the turn the flood was in and the next (ZeroMQ takes the
            # consoles' connections in turn), not after the flood's 300
            assert before <= 2 * COMMANDS_PER_TURN
            got = 0
            while got < n:
                assert await flood.poll(30_000), f"the flood stalled after {got} replies"
                await flood.recv_multipart()
                got += 1
            assert decided.count("flood") == n
            for s in (flood, other):
                s.close(linger=0)

    try:
        arun(body, timeout=60)
    finally:
        journal.close()
