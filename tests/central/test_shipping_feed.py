"""The daemon puts the shipper's progress on the feeds: a ``shipping`` message a change."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from pathlib import Path
from typing import Any

import zmq.asyncio

from table_controller.central.shipper import ShipStatus
from table_controller.daemon.shipping import (
    ERROR_CHARS,
    SILENT_AFTER,
    follow_shipping,
    shipping_body,
)
from table_controller.feeds import Feed, FeedEndpoints, FeedHub

NOW = 1_800_000_000.0
STATUS = ShipStatus(table="T1", journal="/j/journal.db", journal_id="ab" * 32,
                    url="postgresql://tc@db/floor", state="caught_up", local_seq=120,
                    shipped_seq=120, behind=0, last_shipped_at=NOW - 3, last_error="",
                    updated_at=NOW - 1)


def write(path: Path, **changes: Any) -> None:
    path.write_text(dataclasses.replace(STATUS, **changes).to_json(), encoding="utf-8")


def test_the_body_says_how_far_behind_and_when_and_never_the_url(tmp_path: Path) -> None:
    path = tmp_path / "journal.db.central.json"
    assert shipping_body(path, NOW)["status"] == "unknown"  # no shipper status yet
    write(path)
    body = shipping_body(path, NOW)
    assert body == {"status": "caught_up", "behind": 0, "local_seq": 120, "shipped_seq": 120,
                    "last_shipped_at": NOW - 3, "error": "", "updated_at": NOW - 1}
    write(path, state="retrying", behind=40, local_seq=160, last_error="x" * 999)
    body = shipping_body(path, NOW)
    assert body["status"] == "retrying" and body["behind"] == 40
    assert len(body["error"]) == ERROR_CHARS
    # a shipper that stopped writing its status is not running (killed, or never started)
    write(path, updated_at=NOW - SILENT_AFTER - 1)
    assert shipping_body(path, NOW)["status"] == "silent"
    write(path, state="refused", updated_at=NOW - 3600)
    assert shipping_body(path, NOW)["status"] == "refused"  # says why, not just "silent"
    path.write_text("{not json", encoding="utf-8")
    assert shipping_body(path, NOW)["status"] == "unknown"


def test_follow_publishes_each_change_once_and_keeps_it_in_the_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "journal.db.central.json"
    write(path)

    async def body() -> None:
        ctx = zmq.asyncio.Context()
        hub = FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback())
        await hub.start()
        try:
            await hub.broadcast("table_state", {"table": "T1", "hand": 4}, state={
                "table": "T1", "hand": 4})
            extra: dict[str, Any] = {"table": "T1"}
            clock = [NOW]
            task = asyncio.create_task(follow_shipping(path, hub, extra, interval=0.01,
                                                       clock=lambda: clock[0]))

            async def until(cond: Any) -> None:
                async with asyncio.timeout(10):
                    while not cond():
                        await asyncio.sleep(0.01)

            await until(lambda: "shipping" in extra)
            seq = hub.seq(Feed.PUBLIC)
            for feed in Feed:
                st = hub.state(feed)
                assert st["hand"] == 4 and st["shipping"]["status"] == "caught_up"
            # only updated_at moves: nothing is sent
            write(path, updated_at=NOW)
            await asyncio.sleep(0.2)
            assert hub.seq(Feed.PUBLIC) == seq
            # the database goes away: one message, in every feed's snapshot and the extras
            write(path, state="retrying", behind=40, local_seq=160, last_error="refused")
            await until(lambda: hub.state(Feed.PUBLIC)["shipping"]["status"] == "retrying")
            assert hub.seq(Feed.PUBLIC) == seq + 1
            assert extra["shipping"]["behind"] == 40
            # the shipper dies: its status goes stale, the floor is told once
            clock[0] = NOW + SILENT_AFTER + 5
            await until(lambda: hub.state(Feed.DEALER)["shipping"]["status"] == "silent")
            await asyncio.sleep(0.2)
            assert hub.seq(Feed.PUBLIC) == seq + 2
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        finally:
            await hub.stop()
            ctx.destroy(linger=0)

    asyncio.run(asyncio.wait_for(body(), 60))


def test_an_error_text_that_reads_like_a_secret_card_is_withheld(tmp_path: Path) -> None:
    path = tmp_path / "journal.db.central.json"
    write(path, state="retrying", behind=5, last_error="could not resolve host 7c")

    async def body() -> None:
        ctx = zmq.asyncio.Context()
        hub = FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback())
        await hub.start()
        try:
            hub.set_secret_cards(["7c"])  # seat 3 holds the seven of clubs
            extra: dict[str, Any] = {}
            task = asyncio.create_task(follow_shipping(path, hub, extra, interval=0.01,
                                                       clock=lambda: NOW))
            async with asyncio.timeout(10):
                while "shipping" not in extra:
                    await asyncio.sleep(0.01)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            assert extra["shipping"]["status"] == "retrying"
            assert "7c" not in extra["shipping"]["error"]
        finally:
            await hub.stop()
            ctx.destroy(linger=0)

    asyncio.run(asyncio.wait_for(body(), 60))
