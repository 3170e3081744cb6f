"""CURVE: only allow-listed display keys get the surveillance feed; revocation cuts them off."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import zmq
import zmq.asyncio

from table_controller.feeds import (
    ClientKeys,
    CurveServer,
    Feed,
    FeedClient,
    FeedEndpoints,
    FeedError,
    FeedEventKind,
    FeedHub,
    KeyAllowList,
    KeyFileError,
    create_key_pair,
    load_public_key,
)
from tests.feeds.helpers import arun, make_keys, next_kind


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Path]:
    k = make_keys(tmp_path / "server", "server")
    k.update(make_keys(tmp_path / "displays", "display1", "display2"))
    k.update(make_keys(tmp_path / "intruders", "intruder"))
    k.update(make_keys(tmp_path / "consoles", "console1"))
    return k


def _client_keys(keys: dict[str, Path], name: str) -> ClientKeys:
    return ClientKeys.from_files(keys[name], keys["server"].with_suffix(".key"))


def test_key_files(tmp_path: Path) -> None:
    pub, sec = create_key_pair(tmp_path, "a")
    assert pub.name == "a.key" and sec.name == "a.key_secret"
    assert sec.stat().st_mode & 0o777 == 0o600
    assert len(load_public_key(pub)) == 40
    with pytest.raises(KeyFileError, match="already exists"):
        create_key_pair(tmp_path, "a")
    with pytest.raises(KeyFileError, match="plain file name"):
        create_key_pair(tmp_path, "../x")
    with pytest.raises(KeyFileError, match="no secret key"):
        ClientKeys.from_files(pub, pub)
    with pytest.raises(KeyFileError, match="does not exist"):
        KeyAllowList.from_dir(tmp_path / "nope")
    allow = KeyAllowList.from_dir(tmp_path)
    assert len(allow) == 1 and allow.allows(load_public_key(pub))
    assert not allow.allows(None)


def test_surveillance_allow_list_and_revocation(keys: dict[str, Path], tmp_path: Path) -> None:
    async def body(ctx: zmq.asyncio.Context) -> None:
        curve = CurveServer.from_files(
            ctx, server_secret_key=keys["server"], displays_dir=tmp_path / "displays",
            consoles_dir=tmp_path / "consoles",
        )
        with pytest.raises(FeedError, match="must run before"):
            curve.secure(ctx.socket(zmq.PUB), "displays")
        curve.start()
        client_ctx = zmq.asyncio.Context()
        try:
            async with FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback(),
                               curve=curve, heartbeat_interval=0.05) as hub:
                await hub.publish(Feed.SURVEILLANCE, "hand", {"hole_cards": {"3": ["Ah", "Kd"]}},
                                  state={"hole_cards": {"3": ["Ah", "Kd"]}})

                def client(name: str | None, hb: float = 0.5) -> FeedClient:
                    return FeedClient(
                        client_ctx, feed=Feed.SURVEILLANCE,
                        feed_endpoint=hub.bound["surveillance"],
                        snapshot_endpoint=hub.bound["surveillance_snapshot"], table_id="T1",
                        keys=None if name is None else _client_keys(keys, name),
                        heartbeat_timeout=hb, snapshot_timeout=0.3,
                    )

                good = client("display1", hb=1.5)  # generous: no spurious loss under load
                intruder, plain = client("intruder"), client(None)
                try:
                    snap, _ = await next_kind(good, FeedEventKind.SNAPSHOT)
                    assert snap.state == {"hole_cards": {"3": ["Ah", "Kd"]}}
                    for bad in (intruder, plain):
                        _, before = await next_kind(bad, FeedEventKind.LOST, timeout=30)
                        assert before == [] and bad.stats.snapshots == 0
                    await asyncio.sleep(0.1)
                    await hub.publish(Feed.SURVEILLANCE, "x", {"n": 2})
                    ev, _ = await next_kind(good, FeedEventKind.UPDATE)
                    assert ev.seq == 2
                    for bad in (intruder, plain):
                        assert await bad.next_event(timeout=0.3) is None
                        assert bad.stats.updates == 0 and bad.stats.heartbeats == 0
                    # revoke display1: its open connection is cut, and it cannot come back
                    await hub.revoke_display(load_public_key(keys["display1"]))
                    await hub.publish(Feed.SURVEILLANCE, "x", {"n": 3})
                    _lost, before = await next_kind(good, FeedEventKind.LOST, timeout=6)
                    assert all(e.kind is not FeedEventKind.UPDATE for e in before)
                    # display2 (still allowed) connects to the rebound sockets
                    other = client("display2", hb=1.5)
                    try:
                        snap, _ = await next_kind(other, FeedEventKind.SNAPSHOT)
                        assert snap.seq == 3
                    finally:
                        await other.close()
                finally:
                    for c in (good, intruder, plain):
                        await c.close()
        finally:
            client_ctx.destroy(linger=0)
            curve.stop()

    arun(body, timeout=20)


def test_curve_server_from_config(keys: dict[str, Path], tmp_path: Path) -> None:
    from table_controller.config import KeysSection

    async def body(ctx: zmq.asyncio.Context) -> None:
        assert CurveServer.from_config(ctx, KeysSection(security="none")) is None
        section = KeysSection(security="curve", server_secret_key=keys["server"],
                              displays_dir=tmp_path / "displays",
                              consoles_dir=tmp_path / "consoles")
        curve = CurveServer.from_config(ctx, section)
        assert curve is not None and len(curve.displays) == 2 and len(curve.consoles) == 1

    arun(body)


def test_one_context_two_domains_do_not_mix(keys: dict[str, Path], tmp_path: Path) -> None:
    """Hub and command endpoint share one context and authenticator, as in the daemon: a display
    key cannot send commands, a console key cannot read the surveillance feed."""
    from table_controller.feeds import (
        Command,
        CommandClient,
        CommandReply,
        CommandServer,
        CommandTimeout,
    KeyRefused,
    )
    from table_controller.journal import Journal

    server_pub = keys["server"].with_suffix(".key")

    async def accept(cmd: Command) -> CommandReply:
        return CommandReply(True)

    async def body(ctx: zmq.asyncio.Context) -> None:
        curve = CurveServer.from_files(
            ctx, server_secret_key=keys["server"], displays_dir=tmp_path / "displays",
            consoles_dir=tmp_path / "consoles",
        )
        curve.start()
        cctx = zmq.asyncio.Context()
        try:
            with Journal.open(tmp_path / "j.db") as journal:
                hub = FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback(),
                              curve=curve, heartbeat_interval=0.05)
                server = CommandServer(ctx, "tcp://127.0.0.1:*", table_id="T1",
                                       journal=journal, handler=accept, curve=curve)
                await hub.start()
                await server.start()
                async with hub, server:
                    await hub.publish(Feed.SURVEILLANCE, "x", {"n": 1}, state={"n": 1})
                    console_as_display = FeedClient(
                        cctx, feed=Feed.SURVEILLANCE, feed_endpoint=hub.bound["surveillance"],
                        snapshot_endpoint=hub.bound["surveillance_snapshot"],
                        keys=ClientKeys.from_files(keys["console1"], server_pub),
                        heartbeat_timeout=0.4, snapshot_timeout=0.2)
                    display_as_console = CommandClient(
                        cctx, server.bound, table_id="T1", console_id="d1", timeout=0.3,
                        retries=1, keys=ClientKeys.from_files(keys["display1"], server_pub))
                    console = CommandClient(
                        cctx, server.bound, table_id="T1", console_id="c1",
                        keys=ClientKeys.from_files(keys["console1"], server_pub))
                    display = FeedClient(
                        cctx, feed=Feed.SURVEILLANCE, feed_endpoint=hub.bound["surveillance"],
                        snapshot_endpoint=hub.bound["surveillance_snapshot"],
                        keys=ClientKeys.from_files(keys["display1"], server_pub))
                    try:
                        _, before = await next_kind(console_as_display, FeedEventKind.LOST)
                        assert before == []
                        with pytest.raises((CommandTimeout, KeyRefused)):  # refused: said at once
                            await display_as_console.send("start")
                        assert (await console.send("start")).accepted
                        snap, _ = await next_kind(display, FeedEventKind.SNAPSHOT)
                        assert snap.state == {"n": 1}
                        assert journal.last_seq == 1
                    finally:
                        for c in (console_as_display, display):
                            await c.close()
                        for cc in (display_as_console, console):
                            await cc.close()
        finally:
            cctx.destroy(linger=0)
            curve.stop()

    arun(body)
