"""The keys, console and floor-proxy subcommands, against real sockets."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import zmq
import zmq.asyncio

from table_controller.cli import main
from table_controller.cli.console import ConsoleSession, LineError, help_text, parse_line
from table_controller.feeds import (
    Command,
    CommandClient,
    CommandReply,
    CommandServer,
    Feed,
    FeedEndpoints,
    FeedHub,
    decode,
    load_public_key,
)
from table_controller.feeds.proxy import FloorProxy
from table_controller.journal import Journal
from tests.feeds.helpers import arun


def test_keys_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["keys", "--out", str(tmp_path / "k"), "--name", "console-1"]) == 0
    out = capsys.readouterr().out
    key = load_public_key(tmp_path / "k" / "console-1.key").decode()
    assert key in out
    assert (tmp_path / "k" / "console-1.key_secret").stat().st_mode & 0o777 == 0o600
    assert main(["keys", "--out", str(tmp_path / "k"), "--name", "console-1"]) == 1
    assert "already exists" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("line", "body"),
    [
        ("fold 3", {"command": "fold", "seat": 3}),
        ("CALL 2", {"command": "call", "seat": 2}),
        ("raise 3 400", {"command": "raise", "seat": 3, "to": 400}),
        ("bet 3 200", {"command": "bet", "seat": 3, "amount": 200}),
        ("allin 5", {"command": "all_in", "seat": 5}),
        ("start", {"command": "start"}),
        ("seat 4 Ann Lee 10000", {"command": "seat", "seat": 4, "player": "Ann Lee",
                                  "stack": 10000}),
        ("seat 4 Ann 10000", {"command": "seat", "seat": 4, "player": "Ann", "stack": 10000}),
        ("buyin 4 500", {"command": "buy_in", "seat": 4, "amount": 500}),
        ("hold chips missing from the pot", {"command": "hold",
                                              "reason": "chips missing from the pot"}),
        ("resume", {"command": "resume"}),
        ("resume all clear", {"command": "resume", "note": "all clear"}),
        ("confirm", {"command": "confirm"}),
        ("confirm 12", {"command": "confirm", "prompt": 12}),
        ("resolve chips recounted", {"command": "resolve", "note": "chips recounted"}),
        ("resolve irregularity=4 ok", {"command": "resolve", "irregularity": 4, "note": "ok"}),
        ("raise 3", None),
        ("raise 3 lots", None),
        ("fold 3 4", None),
        ("dance", None),
        ("hold", None),
    ],
)
def test_parse_line(line: str, body: dict[str, object] | None) -> None:
    if body is None:
        with pytest.raises(LineError):
            parse_line(line)
    else:
        assert parse_line(line) == body


def test_help_lists_every_command() -> None:
    text = help_text()
    for name in ("fold", "raise <seat> <to>", "start", "hold <reason>", "confirm [prompt]"):
        assert name in text


async def _accept_all(cmd: Command) -> CommandReply:
    if cmd.name == "raise":
        return CommandReply(False, "raise must be to at least 200")
    return CommandReply(True, "", {"did": cmd.name})


def test_console_session(tmp_path: Path) -> None:
    async def body(ctx: zmq.asyncio.Context) -> None:
        with Journal.open(tmp_path / "j.db") as journal:
            async with CommandServer(ctx, "tcp://127.0.0.1:*", table_id="T1", journal=journal,
                                     handler=_accept_all) as server:
                client = CommandClient(ctx, server.bound, table_id="T1", console_id="term",
                                       timeout=3.0)
                s = ConsoleSession(client)
                out = await s.handle_line("fold 3")
                assert out is not None and out.startswith("OK: fold seat=3")
                out = await s.handle_line("raise 3 100")
                assert out == "REFUSED: raise seat=3 to=100 - raise must be to at least 200"
                assert (await s.handle_line("dance 3") or "").startswith("? unknown command")
                assert await s.handle_line("retry") == "nothing to retry"
                assert await s.handle_line("quit") is None
                await client.close()
            # the daemon is gone: no answer, then retry with the same seq once it is back
            client = CommandClient(ctx, server.bound, table_id="T1", console_id="term",
                                   timeout=0.2, retries=1, first_seq=3)
            s = ConsoleSession(client)
            out = await s.handle_line("start")
            assert out is not None and out.startswith("NO ANSWER") and "same seq 3" in out
            async with CommandServer(ctx, server.bound, table_id="T1", journal=journal,
                                     handler=_accept_all):
                out = await s.handle_line("retry")
                assert out is not None and out.startswith("OK: start")
            await client.close()
            assert journal.reply_for("term", 3) is not None

    arun(body)


@pytest.fixture
def server_thread(tmp_path: Path) -> Iterator[str]:
    """A command endpoint running in its own thread and event loop."""
    ready = threading.Event()
    stop = threading.Event()
    bound: list[str] = []

    def run() -> None:
        async def serve() -> None:
            ctx = zmq.asyncio.Context()
            with Journal.open(tmp_path / "j.db") as journal:
                async with CommandServer(ctx, "tcp://127.0.0.1:*", table_id="T1",
                                         journal=journal, handler=_accept_all) as server:
                    bound.append(server.bound)
                    ready.set()
                    while not stop.is_set():
                        await asyncio.sleep(0.02)
            ctx.destroy(linger=0)

        asyncio.run(serve())

    t = threading.Thread(target=run, daemon=True)
    t.start()
    assert ready.wait(10)
    yield bound[0]
    stop.set()
    t.join(10)


def test_console_command_line(server_thread: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["console", "--connect", server_thread, "--table", "T1", "--id", "cli",
                 "-c", "fold 3", "-c", "start"]) == 0
    out = capsys.readouterr().out
    assert "OK: fold seat=3" in out and "OK: start" in out
    assert main(["console", "--connect", server_thread, "--table", "T1",
                 "-c", "raise 3 50"]) == 1
    assert "REFUSED" in capsys.readouterr().out
    assert main(["console"]) == 1
    assert "give --connect" in capsys.readouterr().err


def test_floor_proxy_sees_many_tables() -> None:
    async def body(ctx: zmq.asyncio.Context) -> None:
        async with FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback()) as h1, \
                FeedHub(ctx, table_id="T2", endpoints=FeedEndpoints.loopback()) as h2:
            with FloorProxy([h1.bound["public"], h2.bound["public"]],
                            "tcp://127.0.0.1:*") as proxy:
                sub = ctx.socket(zmq.SUB)
                sub.linger = 0
                sub.setsockopt(zmq.SUBSCRIBE, b"")
                sub.connect(proxy.bound)
                seen: set[str] = set()
                deadline = time.monotonic() + 30
                while seen != {"T1", "T2"} and time.monotonic() < deadline:
                    await h1.publish(Feed.PUBLIC, "prompt", {"text": "hi"})
                    await h2.publish(Feed.PUBLIC, "prompt", {"text": "hi"})
                    while await sub.poll(50):
                        seen.add(decode((await sub.recv_multipart())[-1]).table)
                sub.close(linger=0)
                assert seen == {"T1", "T2"}

    arun(body)


def test_floor_proxy_bad_backend(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["floor-proxy", "--frontend", "tcp://127.0.0.1:1", "--backend", "nope://x"]) == 1
    assert "floor proxy" in capsys.readouterr().err
