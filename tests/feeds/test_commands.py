"""Command endpoint + Lazy Pirate client over real sockets, replies stored in a real journal."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import zmq
import zmq.asyncio

from table_controller.errors import RuleError
from table_controller.feeds import (
    ClientKeys,
    Command,
    CommandClient,
    CommandReply,
    CommandServer,
    CommandTimeout,
    CurveServer,
    FeedError,
    KeyAllowList,
    KeyRefused,
    Message,
    decode,
    load_key_pair,
)
from table_controller.journal import Entry, EntryKind, Journal
from tests.feeds.helpers import arun, make_keys


class FakeTable:
    """A stand-in for the daemon: counts applications, refuses some commands."""

    def __init__(self, delay: float = 0.0) -> None:
        self.decided: list[Command] = []
        self.applied: list[tuple[str, int]] = []
        self.folded: set[int] = set()
        self.delay = delay

    async def handle(self, cmd: Command) -> CommandReply:
        self.decided.append(cmd)
        if self.delay:
            await asyncio.sleep(self.delay)
        if cmd.name == "fold":
            seat = int(cmd.args["seat"])
            if seat in self.folded:
                return CommandReply(False, f"seat {seat} has already folded")
            return CommandReply(True, "", {"seat": seat})
        if cmd.name == "raise":
            raise RuleError("min-raise", "a raise must be to at least 200")
        if cmd.name == "call":
            raise ZeroDivisionError("bug")
        return CommandReply(True)

    async def committed(self, cmd: Command, reply: CommandReply, entry: Entry) -> None:
        assert entry.kind is EntryKind.DEALER_COMMAND
        if reply.accepted:
            self.applied.append((cmd.console, cmd.seq))
            if cmd.name == "fold":
                self.folded.add(int(cmd.args["seat"]))


def _server(ctx: zmq.asyncio.Context, journal: Journal, table: FakeTable,
            curve: CurveServer | None = None, endpoint: str = "tcp://127.0.0.1:*"
            ) -> CommandServer:
    return CommandServer(ctx, endpoint, table_id="T1", journal=journal,
                         handler=table.handle, on_committed=table.committed, curve=curve)


def test_commands_replies_and_journal(tmp_path: Path) -> None:
    async def body(ctx: zmq.asyncio.Context) -> None:
        table = FakeTable()
        with Journal.open(tmp_path / "j.db") as journal:
            async with _server(ctx, journal, table) as server, CommandClient(
                ctx, server.bound, table_id="T1", console_id="c1", timeout=3.0
            ) as client:
                r = await client.send("fold", seat=3)
                assert r.accepted and r.result == {"seat": 3} and not r.replayed
                r = await client.send("fold", seat=3)
                assert not r.accepted and "already folded" in r.reason
                r = await client.send("raise", seat=4, to=150)
                assert not r.accepted and "[min-raise]" in r.reason
                r = await client.send("call", seat=4)
                assert not r.accepted and "internal error: ZeroDivisionError" in r.reason
                r = await client.send("dance")
                assert not r.accepted and r.reason.startswith("bad command: unknown command")
                r = await client.send("fold", seat=0)
                assert not r.accepted and "fold.seat" in r.reason
                assert client.next_seq == 7
                other_table = CommandClient(ctx, server.bound, table_id="T9", console_id="c1")
                r = await other_table.send("start")
                await other_table.close()
                assert not r.accepted and "wrong table" in r.reason
            assert table.applied == [("c1", 1)]
            assert len(table.decided) == 4  # malformed commands never reach the handler
            entries = list(journal.entries())
            assert [e.payload["seq"] for e in entries] == [1, 2, 3, 4, 5, 6]
            assert entries[0].payload["reply"]["accepted"] is True
            assert entries[0].payload["command"] == {"command": "fold", "seat": 3}
            assert journal.reply_for("c1", 2) is not None

    arun(body)


def test_resent_command_answered_from_record_and_applied_once(tmp_path: Path) -> None:
    path = tmp_path / "j.db"

    async def first(ctx: zmq.asyncio.Context) -> str:
        table = FakeTable()
        with Journal.open(path) as journal:
            async with _server(ctx, journal, table) as server, CommandClient(
                ctx, server.bound, table_id="T1", console_id="c1"
            ) as client:
                body = {"command": "fold", "seat": 5}
                r1 = await client.resend(41, body)
                r2 = await client.resend(41, body)
                assert r1.accepted and not r1.replayed
                assert r2.accepted and r2.replayed and r2.result == r1.result
                # same seq, different command: refused, not recorded, not applied
                r3 = await client.resend(41, {"command": "fold", "seat": 6})
                assert not r3.accepted and "duplicate seq" in r3.reason
                assert table.applied == [("c1", 41)] and len(table.decided) == 1
                assert server.replayed == 1
                assert journal.last_seq == 1
                return server.bound

    endpoint = arun(first)

    async def after_restart(ctx: zmq.asyncio.Context) -> None:
        table = FakeTable()  # a fresh daemon: nothing in memory
        with Journal.open(path) as journal:  # the journal is reopened (and verified)
            async with _server(ctx, journal, table, endpoint=endpoint) as server, CommandClient(
                ctx, server.bound, table_id="T1", console_id="c1"
            ) as client:
                r = await client.resend(41, {"command": "fold", "seat": 5})
                assert r.accepted and r.replayed and r.result == {"seat": 5}
                assert table.decided == [] and table.applied == []
                assert journal.last_seq == 1

    arun(after_restart)


def test_lazy_pirate_retries_with_the_same_seq(tmp_path: Path) -> None:
    async def body(ctx: zmq.asyncio.Context) -> None:
        table = FakeTable(delay=0.5)  # slower than the client's timeout
        with Journal.open(tmp_path / "j.db") as journal:
            async with _server(ctx, journal, table) as server, CommandClient(
                ctx, server.bound, table_id="T1", console_id="c1", timeout=0.3, retries=4
            ) as client:
                r = await client.send("fold", seat=2)
                assert r.accepted and r.replayed  # the answer to a resend, from the record
                assert client.resends >= 1
                assert len(table.decided) == 1 and table.applied == [("c1", 1)]

    arun(body)


def test_client_gives_up_when_nobody_answers() -> None:
    async def body(ctx: zmq.asyncio.Context) -> None:
        router = ctx.socket(zmq.ROUTER)
        router.linger = 0
        router.bind("tcp://127.0.0.1:*")
        ep = str(router.get_string(zmq.LAST_ENDPOINT))
        client = CommandClient(ctx, ep, table_id="T1", console_id="c1", timeout=0.1, retries=2)
        with pytest.raises(CommandTimeout, match="after 2 tries"):
            await client.send("start")
        await client.close()
        router.close(linger=0)
        with pytest.raises(FeedError, match="console id"):
            CommandClient(ctx, ep, table_id="T1", console_id="")

    arun(body)


def test_handle_raw_rejects_bad_messages(tmp_path: Path) -> None:
    async def body(ctx: zmq.asyncio.Context) -> None:
        with Journal.open(tmp_path / "j.db") as journal:
            server = _server(ctx, journal, FakeTable())
            for raw, why in [
                (b"{", "bad message: not JSON"),
                (Message("heartbeat", 1, "T1", 0.0, {}).encode(), "expected a command"),
                (Message("command", 1, "T1", 0.0, {"command": "start"}).encode(),
                 "needs a console id"),
            ]:
                reply = await server.handle_raw(raw, None)
                assert reply.type == "reply" and not reply.data["accepted"]
                assert why in reply.data["reason"]
            assert journal.last_seq == 0

    arun(body)


def test_curve_only_allowed_consoles(tmp_path: Path) -> None:
    keys = make_keys(tmp_path / "server", "server")
    keys.update(make_keys(tmp_path / "consoles", "console1"))
    keys.update(make_keys(tmp_path / "other", "intruder"))
    (tmp_path / "displays").mkdir()
    server_pub = keys["server"].with_suffix(".key")

    async def body(ctx: zmq.asyncio.Context) -> None:
        curve = CurveServer.from_files(ctx, server_secret_key=keys["server"],
                                       displays_dir=tmp_path / "displays",
                                       consoles_dir=tmp_path / "consoles")
        curve.start()
        client_ctx = zmq.asyncio.Context()
        table = FakeTable()
        try:
            with Journal.open(tmp_path / "j.db") as journal:
                async with _server(ctx, journal, table, curve=curve) as server:
                    good = CommandClient(client_ctx, server.bound, table_id="T1",
                                         console_id="c1",
                                         keys=ClientKeys.from_files(keys["console1"], server_pub))
                    bad = CommandClient(client_ctx, server.bound, table_id="T1",
                                        console_id="c2", timeout=0.3, retries=2,
                                        keys=ClientKeys.from_files(keys["intruder"], server_pub))
                    plain = CommandClient(client_ctx, server.bound, table_id="T1",
                                          console_id="c3", timeout=0.3, retries=1)
                    try:
                        r = await good.send("fold", seat=1)
                        assert r.accepted
                        assert table.decided[0].key == load_key_pair(keys["console1"])[0].decode()
                        with pytest.raises((CommandTimeout, KeyRefused)):  # refused: said at once
                            await bad.send("fold", seat=2)
                        with pytest.raises(CommandTimeout):
                            await plain.send("fold", seat=2)
                        assert len(table.decided) == 1 and journal.last_seq == 1
                        # a removed key is refused at once, even on its open connection
                        curve.consoles.remove(load_key_pair(keys["console1"])[0])
                        r = await good.send("fold", seat=3)
                        assert not r.accepted and "not authorised" in r.reason
                        assert len(table.decided) == 1 and journal.last_seq == 1
                    finally:
                        for c in (good, bad, plain):
                            await c.close()
        finally:
            client_ctx.destroy(linger=0)
            curve.stop()

    arun(body)


def test_reply_message_shape() -> None:
    raw = Message("reply", 3, "T1", 1.0, {"accepted": True, "reason": "", "result": {},
                                            "replayed": False, "command": "start"},
                  console="c1").encode()
    m = decode(raw)
    assert m.console == "c1" and m.data["command"] == "start"
    assert isinstance(KeyAllowList(), KeyAllowList)


def test_endpoint_keeps_serving_after_an_internal_failure(tmp_path: Path) -> None:
    async def body(ctx: zmq.asyncio.Context) -> None:
        journal = Journal.open(tmp_path / "j.db")
        table = FakeTable()
        async with _server(ctx, journal, table) as server, CommandClient(
            ctx, server.bound, table_id="T1", console_id="c1", timeout=3.0
        ) as client:
            journal.close()  # the journal fails under the endpoint
            r = await client.send("fold", seat=1)
            assert not r.accepted and "nothing changed" in r.reason
            assert table.applied == []
            server.journal = Journal.open(tmp_path / "j.db")
            try:
                r = await client.send("fold", seat=1)
                assert r.accepted and table.applied == [("c1", 2)]
            finally:
                server.journal.close()

    arun(body)
