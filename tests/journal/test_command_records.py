"""What the command endpoint journals: read-only commands without their answer, the key's name."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import zmq.asyncio

from table_controller.feeds import Command, CommandReply, CommandServer
from table_controller.feeds.messages import Message
from table_controller.feeds.security import KeyAllowList
from table_controller.journal import EntryKind, Journal
from table_controller.journal.recall import describe_entry
from tests.feeds.helpers import arun


def _raw(seq: int, name: str, **args: object) -> bytes:
    return Message("command", seq, "T1", 1.0, {"command": name, **args}, "c1").encode()


def test_status_is_journaled_without_its_answer_and_answered_afresh(tmp_path: Path) -> None:
    calls: list[str] = []

    async def handler(cmd: Command) -> CommandReply:
        calls.append(cmd.name)
        return CommandReply(True, "", {"big": "x" * 4000, "n": len(calls)})

    async def body(ctx: zmq.asyncio.Context) -> None:
        with Journal.open(tmp_path / "j.db") as journal:
            server = CommandServer(ctx, "tcp://127.0.0.1:*", table_id="T1", journal=journal,
                                   handler=handler)
            first = await server.handle_raw(_raw(1, "status"), None)
            assert first.data["result"]["n"] == 1
            (entry,) = journal.entries()
            assert entry.payload["reply"] == {"accepted": True, "reason": "", "result": {},
                                              "read_only": True}
            assert len(entry.payload["command"]) == 1
            again = await server.handle_raw(_raw(1, "status"), None)
            assert again.data["replayed"] and again.data["result"]["n"] == 2
            assert journal.last_seq == 1  # the resend wrote nothing
            # a state-changing command is still answered from the record
            await server.handle_raw(_raw(2, "fold", seat=3), None)
            resent = await server.handle_raw(_raw(2, "fold", seat=3), None)
            assert resent.data["replayed"] and resent.data["result"]["n"] == 3
            assert calls == ["status", "status", "fold"]

    arun(body)


def test_the_console_key_is_named_in_the_journal_and_recall(tmp_path: Path) -> None:
    from table_controller.feeds.security import CurveServer, create_key_pair, load_public_key

    consoles = tmp_path / "consoles"
    consoles.mkdir()
    public, _ = create_key_pair(consoles, "pit-boss-2")
    key = load_public_key(public).decode()

    async def handler(cmd: Command) -> CommandReply:
        return CommandReply(True)

    async def body(ctx: zmq.asyncio.Context) -> None:
        server_pub, server_sec = zmq.curve_keypair()
        curve = CurveServer(ctx, public_key=server_pub, secret_key=server_sec,
                            displays=KeyAllowList(), consoles=KeyAllowList.from_dir(consoles))
        with Journal.open(tmp_path / "j.db") as journal:
            server = CommandServer(ctx, "tcp://127.0.0.1:*", table_id="T1", journal=journal,
                                   handler=handler, curve=curve)
            reply = await server.handle_raw(_raw(1, "fold", seat=2), key)
            assert reply.data["accepted"]
            (entry,) = journal.entries()
            assert entry.kind is EntryKind.DEALER_COMMAND
            assert entry.payload["key"] == "pit-boss-2"
            assert "from c1 (key pit-boss-2) #1: fold seat=2" in describe_entry(entry)

    arun(body)


def test_recall_into_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    from tests.journal.damage import fill

    path = tmp_path / "j.db"
    with Journal.open(path) as j:
        fill(j, 30)
    proc = subprocess.Popen([sys.executable, "-m", "table_controller", "recall", "--journal",
                             str(path), "--hands", "30"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # as `head -1` does
    err = proc.stderr.read().decode()
    assert proc.wait(60) == 0
    assert "Traceback" not in err and "BrokenPipe" not in err, err
