"""Through ``floor-proxy``: each table's tracker follows its own messages out of the one stream."""

from __future__ import annotations

import asyncio
from pathlib import Path

import zmq.asyncio

from table_controller.feeds import Feed, FeedEndpoints, FeedHub
from table_controller.feeds.proxy import FloorProxy
from table_controller.floorweb.fanout import FLOOR, Fanout
from table_controller.floorweb.sources import FeedFollowers, table_specs
from tests.floorweb.helpers import state


def test_followers_through_the_floor_proxy(tmp_path: Path) -> None:
    async def body() -> None:
        ctx = zmq.asyncio.Context()
        hubs = []
        try:
            for t in ("T1", "T2"):
                hub = FeedHub(ctx, table_id=t, endpoints=FeedEndpoints.loopback(),
                              heartbeat_interval=0.1)
                await hub.start()
                await hub.publish(Feed.PUBLIC, "table_state", state(t), state=state(t))
                hubs.append(hub)
            with FloorProxy([h.bound["public"] for h in hubs], "tcp://127.0.0.1:*") as proxy:
                specs = table_specs(tables=[f"{h.table_id}={h.bound['snapshot']}" for h in hubs],
                                    connect=proxy.bound)
                followers = FeedFollowers(specs, heartbeat_timeout=2.0)
                fan = Fanout(followers.trackers, coalesce=0.01)
                fan.add(FLOOR, "floor")
                await followers.start(fan)
                try:
                    trackers = followers.trackers
                    async with asyncio.timeout(15):
                        while not all(t.feed == "live" for t in trackers.values()):
                            await asyncio.sleep(0.05)
                        # (had the proxy's subscription not reached the hub yet, the next
                        # heartbeat shows the gap and the client re-snapshots: same outcome)
                        st = state("T2", holds=["dispute"])
                        await hubs[1].publish(Feed.PUBLIC, "table_state", st, state=st)
                        while not trackers["T2"].row()["holds"]:
                            await asyncio.sleep(0.05)
                    assert trackers["T1"].row()["holds"] == []  # T2's message is not T1's
                    assert trackers["T1"].seq == 1 and trackers["T2"].seq == 2
                finally:
                    await followers.stop()
                    fan.close()
        finally:
            for h in hubs:
                await h.stop()
            ctx.destroy(linger=0)

    asyncio.run(asyncio.wait_for(body(), 30))
