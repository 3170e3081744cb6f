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
from table_controller.feeds.commands import CommandClient
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
