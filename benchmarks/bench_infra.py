"""Bare costs of the infrastructure: journal commit (SQLite WAL, synchronous=FULL) and one ZeroMQ
PUB->SUB hop on loopback. The controller benchmark reuses these functions as its baseline, measured
in the same run: ``from benchmarks.bench_infra import journal_commit, zmq_hop``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import zmq

from table_controller.journal import EntryKind, Journal

PAYLOAD = {
    "text": "shoe read the 7 of clubs for seat 3 (hole card 2)",
    "device": "shoe", "event": "card", "tag": "04:A2:19:7C:55:80", "seat": 3, "round": 2,
    "hole_card": "7c", "frame": 1234,
}


@dataclass(frozen=True)
class Stats:
    """Latency summary in microseconds."""

    name: str
    n: int
    p50_us: float
    p99_us: float
    max_us: float

    def line(self) -> str:
        return (f"{self.name:<42} n={self.n:<6} p50 {self.p50_us:9.1f} us   "
                f"p99 {self.p99_us:9.1f} us   max {self.max_us:9.1f} us")


def summarise(name: str, samples_s: list[float]) -> Stats:
    us = sorted(s * 1e6 for s in samples_s)
    q = statistics.quantiles(us, n=100, method="inclusive")
    return Stats(name, len(us), q[49], q[98], us[-1])


def journal_commit(n: int = 2000, directory: Path | None = None) -> Stats:
    """Time ``Journal.append`` (one committed, fsynced entry of about 250 bytes) ``n`` times."""
    with tempfile.TemporaryDirectory(dir=directory) as d:
        samples: list[float] = []
        with Journal.open(Path(d) / "bench.db") as j:
            for i in range(n):
                t0 = time.perf_counter()
                j.append(EntryKind.DEVICE_EVENT, PAYLOAD, wall_time=time.time(),
                         mono_time=float(i))
                samples.append(time.perf_counter() - t0)
    return summarise("journal append (WAL, synchronous=FULL)", samples)


def zmq_hop(n: int = 5000, endpoint: str = "tcp://127.0.0.1:*") -> Stats:
    """Time one PUB->SUB hop of a ~250-byte JSON message on loopback (send to receive)."""
    import json

    ctx = zmq.Context()
    pub = ctx.socket(zmq.PUB)
    sub = ctx.socket(zmq.SUB)
    try:
        for s in (pub, sub):
            s.linger = 0
        pub.bind(endpoint)
        sub.setsockopt(zmq.SUBSCRIBE, b"")
        sub.connect(pub.get_string(zmq.LAST_ENDPOINT))
        body = json.dumps({"v": 1, "type": "card_dealt", "seq": 0, "table": "T1",
                           "ts": time.time(), "data": PAYLOAD}).encode()
        # slow joiner: publish until the subscription has arrived
        while True:
            pub.send_multipart([b"warmup", body])
            if sub.poll(10):
                sub.recv_multipart()
                break
        while sub.poll(0):
            sub.recv_multipart()
        samples: list[float] = []
        for _ in range(n):
            t0 = time.perf_counter()
            pub.send_multipart([b"card_dealt", body])
            sub.recv_multipart()
            samples.append(time.perf_counter() - t0)
    finally:
        pub.close(linger=0)
        sub.close(linger=0)
        ctx.term()
    return summarise(f"zmq PUB->SUB hop ({endpoint.split(':')[0]} loopback)", samples)


def feed_hop(n: int = 2000) -> Stats:
    """Time FeedHub.publish -> FeedClient UPDATE event (asyncio, JSON, redaction, seq checks)."""
    import asyncio

    import zmq.asyncio

    from table_controller.feeds import Feed, FeedClient, FeedEndpoints, FeedEventKind, FeedHub

    async def run() -> list[float]:
        ctx = zmq.asyncio.Context()
        samples: list[float] = []
        try:
            hub = FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback())
            await hub.start()
            client = FeedClient(ctx, feed=Feed.PUBLIC, feed_endpoint=hub.bound["public"],
                                snapshot_endpoint=hub.bound["snapshot"])
            async with hub, client:
                while (ev := await client.next_event(1.0)) is None or (
                        ev.kind is not FeedEventKind.SNAPSHOT):
                    pass
                # slow joiner: publish until an update arrives
                while True:
                    await hub.publish(Feed.PUBLIC, "warmup", PAYLOAD)
                    ev = await client.next_event(0.05)
                    if ev is not None and ev.kind is FeedEventKind.UPDATE:
                        break
                while await client.next_event(0.05) is not None:
                    pass
                for _ in range(n):
                    t0 = time.perf_counter()
                    await hub.publish(Feed.PUBLIC, "card_dealt", PAYLOAD)
                    ev = await client.next_event(1.0)
                    samples.append(time.perf_counter() - t0)
                    if ev is None or ev.kind is not FeedEventKind.UPDATE:
                        raise RuntimeError(f"expected an update, got {ev}")
        finally:
            ctx.destroy(linger=0)
        return samples

    return summarise("FeedHub.publish -> FeedClient update", asyncio.run(run()))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks infra")
    parser.add_argument("--journal-n", type=int, default=2000)
    parser.add_argument("--zmq-n", type=int, default=5000)
    args = parser.parse_args(argv or [])
    with tempfile.TemporaryDirectory() as d:
        for stats in (
            journal_commit(args.journal_n),
            zmq_hop(args.zmq_n),
            zmq_hop(args.zmq_n, f"ipc://{d}/hop"),
            feed_hop(args.zmq_n // 2),
        ):
            print(stats.line(), flush=True)


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
