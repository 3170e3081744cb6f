"""A console whose key the table refuses is told so at once, not after every retry."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import zmq.asyncio

from table_controller.feeds import (
    ClientKeys,
    Command,
    CommandReply,
    CommandServer,
    CurveServer,
    KeyRefused,
    create_key_pair,
)
from table_controller.feeds.console_client import CommandClient
from table_controller.journal import Journal
from tests.feeds.helpers import arun


async def _accept(cmd: Command) -> CommandReply:
    return CommandReply(True, "", {"did": cmd.name})


@pytest.mark.parametrize("who", ["allowed", "intruder", "wrong_server_key"])
def test_the_console_learns_at_once_whether_its_key_was_refused(tmp_path: Path,
                                                                 who: str) -> None:
    _, server_secret = create_key_pair(tmp_path / "server", "server")
    (tmp_path / "displays").mkdir()
    _, allowed = create_key_pair(tmp_path / "consoles", "console-1")
    _, intruder = create_key_pair(tmp_path / "elsewhere", "intruder")
    create_key_pair(tmp_path / "other", "other")
    secret = {"allowed": allowed, "intruder": intruder, "wrong_server_key": allowed}[who]
    server_key = (tmp_path / "other" / "other.key" if who == "wrong_server_key"
                  else tmp_path / "server" / "server.key")

    async def body(ctx: zmq.asyncio.Context) -> None:
        curve = CurveServer.from_files(ctx, server_secret_key=server_secret,
                                       displays_dir=tmp_path / "displays",
                                       consoles_dir=tmp_path / "consoles")
        curve.start()
        try:
            with Journal.open(tmp_path / "j.db") as journal:
                async with CommandServer(ctx, "tcp://127.0.0.1:*", table_id="T1",
                                         journal=journal, handler=_accept,
                                         curve=curve) as server:
                    # the retries alone would take 3 x 20 s: the refusal must come first
                    client = CommandClient(ctx, server.bound, table_id="T1", console_id="c1",
                                           keys=ClientKeys.from_files(secret, server_key),
                                           timeout=20.0, retries=3)
                    loop = asyncio.get_running_loop()
                    t0 = loop.time()
                    try:
                        if who == "allowed":
                            reply = await client.send("status")
                            assert reply.accepted
                        else:
                            with pytest.raises(KeyRefused) as info:
                                await client.send("status")
                            text = str(info.value)
                            assert ("consoles_dir" in text) if who == "intruder" else (
                                "server.key" in text)
                            assert loop.time() - t0 < 20.0  # before the first retry
                    finally:
                        await client.close()
        finally:
            curve.stop()

    arun(body, timeout=90)


def test_a_display_whose_key_is_refused_is_told_at_once(tmp_path: Path) -> None:
    from table_controller.feeds import Feed, FeedClient, FeedEndpoints, FeedEventKind, FeedHub

    _, server_secret = create_key_pair(tmp_path / "server", "server")
    (tmp_path / "displays").mkdir()
    (tmp_path / "consoles").mkdir()
    _, intruder = create_key_pair(tmp_path / "elsewhere", "monitor-9")

    async def body(ctx: zmq.asyncio.Context) -> None:
        curve = CurveServer.from_files(ctx, server_secret_key=server_secret,
                                       displays_dir=tmp_path / "displays",
                                       consoles_dir=tmp_path / "consoles")
        curve.start()
        try:
            async with FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback(),
                               curve=curve, heartbeat_interval=0.1) as hub:
                client = FeedClient(
                    ctx, feed=Feed.SURVEILLANCE, feed_endpoint=hub.bound["surveillance"],
                    snapshot_endpoint=hub.bound["surveillance_snapshot"], table_id="T1",
                    keys=ClientKeys.from_files(intruder, tmp_path / "server" / "server.key"),
                    heartbeat_timeout=30.0, snapshot_timeout=0.3)
                try:
                    ev = await client.next_event(timeout=20)  # long before 30 s of silence
                    assert ev is not None and ev.kind is FeedEventKind.LOST
                    assert ev.reason.startswith("key refused") and "displays_dir" in ev.reason
                    assert client.key_refused == ev.reason
                finally:
                    await client.close()
        finally:
            curve.stop()

    arun(body, timeout=90)
