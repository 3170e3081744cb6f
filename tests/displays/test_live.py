from __future__ import annotations

import asyncio
import io
from pathlib import Path

import zmq.asyncio
from rich.console import Console

from table_controller.displays.live import DisplayModel, TableSource, run_display
from table_controller.feeds import Feed, FeedClient, FeedEndpoints, FeedEventKind, FeedHub
from tests.feeds.helpers import arun, next_kind

STATE = {"table": "T1", "hand": 3, "street": "preflop", "button": 1,
         "seats": {"1": {"player": "Ann", "stack": 900, "bet": 100},
                   "2": {"player": "Bo", "stack": 950, "bet": 50}},
         "board": [], "pots": [], "to_act": 1}


def ipc_endpoints(tmp: Path, tag: str) -> FeedEndpoints:
    return FeedEndpoints(*(f"ipc://{tmp}/{tag}-{n}" for n in
                           ("pub", "dealer", "surv", "snap", "ssnap")))


def test_model_follows_snapshot_updates_loss_and_recovery(tmp_path: Path) -> None:
    eps = ipc_endpoints(tmp_path, "a")

    async def body(ctx: zmq.asyncio.Context) -> None:
        hub = FeedHub(ctx, table_id="T1", endpoints=eps, heartbeat_interval=0.1, epoch="e1")
        await hub.start()
        await hub.publish(Feed.PUBLIC, "table", {}, state=STATE)
        client = FeedClient(ctx, feed=Feed.PUBLIC, feed_endpoint=eps.public,
                            snapshot_endpoint=eps.snapshot, table_id="T1",
                            heartbeat_timeout=0.6, snapshot_timeout=0.3)
        model = DisplayModel(["T1"])
        await client.start()
        ev, _ = await next_kind(client, FeedEventKind.SNAPSHOT)
        v = model.on_event("T1", ev)
        assert v.hand == 3 and v.connection == "live" and v.seats[0].player == "Ann"
        await asyncio.sleep(0.3)  # slow joiner: let the subscription reach the publisher
        await hub.publish(Feed.PUBLIC, "announcement", {"text": "Seat 1 raises to 300"})
        ev, _ = await next_kind(client, FeedEventKind.UPDATE)
        v = model.on_event("T1", ev)
        assert v.announcements[-1] == "Seat 1 raises to 300"
        await hub.stop()
        ev, _ = await next_kind(client, FeedEventKind.LOST, timeout=30)
        v = model.on_event("T1", ev)
        assert v.connection == "lost"
        hub2 = FeedHub(ctx, table_id="T1", endpoints=eps, heartbeat_interval=0.1, epoch="e2")
        await hub2.start()
        await hub2.publish(Feed.PUBLIC, "table", {}, state={**STATE, "hand": 4})
        ev, _ = await next_kind(client, FeedEventKind.RECOVERED, timeout=30)
        v = model.on_event("T1", ev)
        assert v.connection == "live" and v.hand == 4
        assert v.announcements[-1] == "connection recovered"
        await client.close()
        await hub2.stop()

    arun(body, timeout=20)


def test_run_display_prints_plain_frames_when_not_a_terminal(tmp_path: Path) -> None:
    eps = ipc_endpoints(tmp_path, "b")
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None, force_terminal=False)

    async def body(ctx: zmq.asyncio.Context) -> None:
        hub = FeedHub(ctx, table_id="T1", endpoints=eps, heartbeat_interval=0.1)
        await hub.start()
        await hub.publish(Feed.DEALER, "prompt",
                          {"id": 7, "text": "Seat 1 to act: fold, call 50, or raise to 200"},
                          state={**STATE, "prompt": {"id": 7, "text": "Seat 1 to act"}})
        model = await run_display(
            "dealer", [TableSource("T1", eps.dealer, eps.snapshot)], console=console,
            duration=1.5, heartbeat_timeout=1.0, plain_every=0.1)
        assert model.views["T1"].prompt is not None
        await hub.stop()

    arun(body, timeout=20)
    text = out.getvalue()
    assert "SEAT 1 TO ACT" in text and "dealer display" in text


def test_a_display_adopts_the_tables_heartbeat_timeout(tmp_path: Path) -> None:
    from table_controller.displays.live import follow

    eps = ipc_endpoints(tmp_path, "t")

    async def body(ctx: zmq.asyncio.Context) -> None:
        state = {**STATE, "name": "High limit 4", "timing": {"heartbeat_interval": 5.0,
                                                              "heartbeat_timeout": 15.0}}
        async with FeedHub(ctx, table_id="T1", endpoints=eps, heartbeat_interval=0.1) as hub:
            await hub.publish(Feed.PUBLIC, "table", {}, state=state)
            client = FeedClient(ctx, feed=Feed.PUBLIC, feed_endpoint=eps.public,
                                snapshot_endpoint=eps.snapshot, table_id="T1",
                                heartbeat_timeout=3.0, snapshot_timeout=0.3)
            await client.start()
            model, changed = DisplayModel(["T1"]), asyncio.Event()
            task = asyncio.create_task(follow(client, "T1", model, changed, adopt_timing=True))
            try:
                for _ in range(600):
                    if model.views.get("T1") is not None and model.views["T1"].hand == 3:
                        break
                    await asyncio.sleep(0.01)
                assert client.heartbeat_timeout == 15.0
                assert model.views["T1"].name == "High limit 4"
            finally:
                task.cancel()
                await client.close()

    arun(body, timeout=30)
