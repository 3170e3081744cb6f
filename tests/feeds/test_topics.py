"""Topics carry the table (``T1/prompt``): the floor proxy filters by table; lag shows as stale."""

from __future__ import annotations

import asyncio

import pytest
import zmq
import zmq.asyncio

from table_controller.displays.live import DisplayModel
from table_controller.displays.render import render_floor
from table_controller.feeds import (
    Feed,
    FeedClient,
    FeedEndpoints,
    FeedError,
    FeedEvent,
    FeedEventKind,
    FeedHub,
    decode,
    table_topic,
    topic,
)
from table_controller.feeds.proxy import FloorProxy, TopicFilter
from tests.feeds.helpers import arun, next_kind


def test_every_message_and_heartbeat_has_the_table_in_its_topic() -> None:
    async def body(ctx: zmq.asyncio.Context) -> None:
        async with FeedHub(ctx, table_id="T7", endpoints=FeedEndpoints.loopback(),
                           heartbeat_interval=0.05) as hub:
            sub = ctx.socket(zmq.SUB)
            sub.linger = 0
            sub.setsockopt(zmq.SUBSCRIBE, b"")
            sub.connect(hub.bound["public"])
            seen: dict[str, bytes] = {}
            while "prompt" not in seen or "heartbeat" not in seen:
                await hub.publish(Feed.PUBLIC, "prompt", {"text": "hi"})
                if await sub.poll(100):
                    first, raw = await sub.recv_multipart()
                    seen[decode(raw).type] = first
            sub.close(linger=0)
            assert seen == {"prompt": b"T7/prompt", "heartbeat": b"T7/heartbeat"}

    arun(body)
    assert topic("T7", "prompt").startswith(table_topic("T7"))


def test_a_table_id_with_a_slash_is_refused() -> None:
    with pytest.raises(FeedError, match="must not contain '/'"):
        FeedHub(zmq.asyncio.Context.instance(), table_id="T/1",
                endpoints=FeedEndpoints.loopback())


def test_topic_filter_is_bounded() -> None:
    f = TopicFilter(max_tables=2)
    f.saw(b"T9/heartbeat")
    assert f.seen == {b"T9/"}
    assert f.subscription(b"\x01A/") == b"A/"
    assert f.subscription(b"\x01B/prompt") == b"B/"
    # the third distinct table asked for gets everything (its SUB filters locally) ...
    assert f.subscription(b"\x01C/") == b""
    # ... but tables asked for already, and tables seen in the traffic, keep their filter
    assert f.subscription(b"\x01A/") == b"A/"
    assert f.subscription(b"\x01T9/") == b"T9/"
    # malformed or too long ids, legacy type topics, everything: everything
    for frame in (b"\x01" + b"x" * 33 + b"/", b"\x01-bad/", b"\x01prompt", b"\x01", b"\x01/"):
        assert f.subscription(frame) == b""
    assert f.subscription(b"\x00A/") is None  # unsubscriptions are ignored
    assert f.asked == {b"A/", b"B/"} and f.everything == 6


def test_the_proxy_sends_a_display_only_the_tables_it_follows() -> None:
    async def body(ctx: zmq.asyncio.Context) -> None:
        async with FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback(),
                           heartbeat_interval=0.05) as h1, \
                FeedHub(ctx, table_id="T10", endpoints=FeedEndpoints.loopback(),
                        heartbeat_interval=0.05) as h10, \
                FeedHub(ctx, table_id="T2", endpoints=FeedEndpoints.loopback(),
                        heartbeat_interval=0.05) as h2:
            with FloorProxy([h.bound["public"] for h in (h1, h10, h2)],
                            "tcp://127.0.0.1:*") as proxy:
                # an XSUB sees what the proxy sends it, unfiltered by its own socket
                raw = ctx.socket(zmq.XSUB)
                raw.linger = 0
                raw.connect(proxy.bound)
                await raw.send(b"\x01" + table_topic("T1"))
                await raw.send(b"\x01" + topic("T2", "prompt"))
                everything = ctx.socket(zmq.SUB)
                everything.linger = 0
                everything.setsockopt(zmq.SUBSCRIBE, b"")
                everything.connect(proxy.bound)
                got: set[str] = set()
                all_tables: set[str] = set()
                loop = asyncio.get_running_loop()
                deadline = loop.time() + 10
                while loop.time() < deadline and (len(got) < 2 or len(all_tables) < 3):
                    for h in (h1, h10, h2):
                        await h.publish(Feed.PUBLIC, "prompt", {"text": "hi"})
                    while await raw.poll(20):
                        got.add(decode((await raw.recv_multipart())[-1]).table)
                    while await everything.poll(0):
                        all_tables.add(decode((await everything.recv_multipart())[-1]).table)
                # T10's messages never reach the T1 display (the prefix ends with '/')
                assert got == {"T1", "T2"}
                assert all_tables == {"T1", "T10", "T2"}
                assert proxy.filter.asked == {b"T1/", b"T2/"}
                for s in (raw, everything):
                    s.close(linger=0)

    arun(body, timeout=30)


def test_a_feed_that_lags_is_stale_until_it_catches_up() -> None:
    behind = [0.0]

    def display_clock() -> float:
        import time

        return time.time() + behind[0]

    async def body(ctx: zmq.asyncio.Context) -> None:
        async with FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback(),
                           heartbeat_interval=0.05) as hub:
            client = FeedClient(ctx, feed=Feed.PUBLIC, feed_endpoint=hub.bound["public"],
                                snapshot_endpoint=hub.bound["snapshot"], table_id="T1",
                                stale_after=5.0, wall_clock=display_clock)
            assert client.subscription == b"T1/"
            async with client:
                await next_kind(client, FeedEventKind.SNAPSHOT, timeout=10)
                behind[0] = 60.0  # the display now takes each message a minute late
                await hub.publish(Feed.PUBLIC, "prompt", {"text": "hi"})
                stale, before = await next_kind(client, FeedEventKind.STALE, timeout=10)
                assert stale.lag >= 55 and "behind the table" in stale.reason
                assert client.stale and client.stats.stale == 1
                behind[0] = 0.0
                caught, before = await next_kind(client, FeedEventKind.CAUGHT_UP, timeout=10)
                assert caught.lag < 5 and not client.stale
                assert all(e.kind is not FeedEventKind.STALE for e in before)

    arun(body, timeout=30)


def test_the_floor_screen_says_stale_not_live() -> None:
    from table_controller.feeds import Message

    model = DisplayModel(["T1", "T2"])
    for t in ("T1", "T2"):
        model.on_event(t, FeedEvent(FeedEventKind.SNAPSHOT, 1, state={"hand": 3}))
    model.on_event("T1", FeedEvent(FeedEventKind.STALE, 1, lag=8.0, reason="8.0 s behind"))
    msg = Message("event", 2, "T1", 0.0, {"text": "Seat 2 calls"})
    model.on_event("T1", FeedEvent(FeedEventKind.UPDATE, 2, message=msg, lag=8.0))
    assert model.views["T1"].connection == "stale"  # an update does not make it live
    assert model.views["T2"].connection == "live"
    from rich.console import Console

    console = Console(width=140, record=True)
    console.print(render_floor(model.ordered()))
    text = console.export_text()
    assert "stale" in text and "1 behind (stale)" in text
    model.on_event("T1", FeedEvent(FeedEventKind.CAUGHT_UP, 2, lag=0.1))
    assert model.views["T1"].connection == "live"
