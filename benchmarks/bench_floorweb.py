"""Floor web under load: many busy tables into one ``floor-web``, 20 WebSocket clients.

Three processes, as on a floor: the publishers (one FeedHub per table in one process, each
sending ``--rate`` messages a second: an event, a prompt, a whole ``table_state`` in turn), the
real ``table-controller floor-web`` (one ``--table ID=FEED,SNAPSHOT`` per table), and this one
with ``--clients`` aiohttp WebSocket clients logged in as the floor role.

Measured while every table publishes for ``--seconds``:

- messages/s published and table updates/s received by the clients;
- latency from publish (the publisher's wall clock just before the send) to a client holding a
  row whose ``seq`` covers the message (each message counts once per client), p50/p99/max;
- lost: messages whose ``seq`` no client row ever reached by the end, and rows that left
  ``live`` (a gap in a feed) during the run;
- the floor-web process's CPU (``/proc``), per table.

``python -m benchmarks.bench_floorweb --tables 200 --rate 5 --clients 20 --seconds 30``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import zmq
import zmq.asyncio
from argon2 import PasswordHasher

from table_controller.feeds import Feed, FeedEndpoints, FeedHub
from table_controller.floorweb.auth import add_user

PASSWORD = "bench password"


def table_state(table: str, n: int) -> dict[str, Any]:
    seats = {str(s): {"player": f"P{s}", "stack": 10_000 - n % 500 + s, "bet": (n + s) % 300,
                      "sitting_out": False, "in_hand": True, "folded": s == 5, "all_in": False}
             for s in range(1, 10)}
    return {"table": table, "hand": n // 40 + 1, "hands_played": n // 40, "button": 1 + n % 9,
            "seats": seats, "phase": "betting", "street": ("preflop", "flop", "turn")[n % 3],
            "board": ["Qs", "Jh", "2d", None, None], "pots": [{"amount": 1500 + n,
                                                               "eligible": [1, 2, 3]}],
            "to_act": 1 + n % 9, "current_bet": 200, "held": False, "holds": [],
            "hole_cards": {str(s): ["??", "??"] for s in range(1, 10)},
            "irregularities": [], "devices": {"shoe": "ok", "chips": "ok", "camera": "ok"},
            "prompt": {"id": n, "text": f"Seat {1 + n % 9} to act", "step": {"kind": "act"}}}


async def publish(tables: int, rate: float, seconds: float, out: Path) -> None:
    """The publisher process: hubs, then ``rate`` messages/s per table, then the record."""
    ctx = zmq.asyncio.Context()
    ctx.set(zmq.MAX_SOCKETS, 6 * tables + 64)  # five sockets a hub
    hubs = []
    base = Path(tempfile.mkdtemp(prefix="fw-bench-"))
    for i in range(tables):
        eps = FeedEndpoints(*(f"ipc://{base}/t{i}-{n}" for n in ("p", "d", "s", "n", "sn")))
        hub = FeedHub(ctx, table_id=f"T{i:03d}", endpoints=eps, heartbeat_interval=1.0)
        await hub.start()
        await hub.publish(Feed.PUBLIC, "table_state", table_state(hub.table_id, 0),
                          state=table_state(hub.table_id, 0))
        hubs.append(hub)
    (out / "endpoints.json").write_text(json.dumps(
        {h.table_id: [h.bound["public"], h.bound["snapshot"]] for h in hubs}))
    (out / "ready").write_text("1")
    while not (out / "go").exists():
        await asyncio.sleep(0.05)
    sent: dict[str, list[float]] = {h.table_id: [0.0] for h in hubs}  # index = seq - 1
    interval = 1.0 / rate
    start = time.monotonic() + 0.1
    end = start + seconds
    k = 0
    while True:
        # table i's n-th message is due at start + n * interval + i * interval / tables
        n, i = divmod(k, tables)
        due = start + n * interval + i * interval / tables
        if due >= end:
            break
        delay = due - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        hub = hubs[i]
        kind = n % 3
        ts = time.time()
        if kind == 0:
            await hub.publish(Feed.PUBLIC, "event", {"text": f"Seat {n % 9 + 1} calls 200"})
        elif kind == 1:
            await hub.publish(Feed.PUBLIC, "prompt", {"id": n, "text": "Seat 2 to act",
                                                      "step": {"kind": "act", "seat": 2}})
        else:
            st = table_state(hub.table_id, n)
            await hub.publish(Feed.PUBLIC, "table_state", st, state=st)
        sent[hub.table_id].append(ts)
        k += 1
    (out / "sent.json").write_text(json.dumps(sent))
    (out / "done").write_text("1")
    while not (out / "stop").exists():
        await asyncio.sleep(0.05)
    for hub in hubs:
        await hub.stop()
    ctx.destroy(linger=0)


class Client:
    """One floor browser: a WebSocket applying snapshot and diffs, noting when seqs arrive."""

    def __init__(self) -> None:
        self.rows: dict[str, dict[str, Any]] = {}
        self.arrivals: dict[str, list[tuple[int, float]]] = {}
        self.snapshots = 0
        self.not_live = 0
        self.messages = 0
        self.updates = 0
        self.live = asyncio.Event()

    def _note(self, table: str, row: dict[str, Any], now: float) -> None:
        self.arrivals.setdefault(table, []).append((int(row.get("seq") or 0), now))

    async def run(self, http: aiohttp.ClientSession, url: str) -> None:
        async with http.ws_connect(url, max_msg_size=0) as ws:
            async for msg in ws:
                now = time.time()
                body = json.loads(msg.data)
                self.messages += 1
                if body["t"] == "snapshot":
                    self.snapshots += 1
                    self.rows = {r["id"]: r for r in body["rows"]}
                    for t, r in self.rows.items():
                        self._note(t, r, now)
                else:
                    for t, d in body["rows"].items():
                        r = self.rows.setdefault(t, {})
                        r.update(d)
                        self.updates += 1
                        if "seq" in d:
                            self._note(t, r, now)
                        if self.live.is_set() and r.get("feed") != "live":
                            self.not_live += 1
                if self.rows and all(r.get("feed") == "live" for r in self.rows.values()):
                    self.live.set()


async def login(http: aiohttp.ClientSession, base: str) -> None:
    async with http.get(f"{base}/login") as r:
        m = re.search(r'name="csrf" value="([^"]+)"', await r.text())
    assert m is not None
    async with http.post(f"{base}/login", data={"username": "bench", "password": PASSWORD,
                                                "csrf": m.group(1)}) as r:
        assert r.status == 200, r.status


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")


async def bench(tables: int, rate: float, clients: int, seconds: float) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="fw-bench-run-"))
    users = work / "users.json"
    add_user(users, "bench", "floor", PASSWORD, PasswordHasher(time_cost=1, memory_cost=64,
                                                               parallelism=1))
    pub = subprocess.Popen([sys.executable, "-m", "benchmarks.bench_floorweb", "--publisher",
                            str(work), "--tables", str(tables), "--rate", str(rate),
                            "--seconds", str(seconds)])
    web: subprocess.Popen[bytes] | None = None
    try:
        while not (work / "ready").exists():
            if pub.poll() is not None:
                raise RuntimeError("the publisher died")
            await asyncio.sleep(0.1)
        eps = json.loads((work / "endpoints.json").read_text())
        args = [a for t, (feed, snap) in eps.items() for a in ("--table", f"{t}={feed},{snap}")]
        web = subprocess.Popen([sys.executable, "-m", "table_controller", "floor-web",
                                "--users", str(users), "--listen", "127.0.0.1:0",
                                "--ready-file", str(work / "web.json"), *args])
        while not (work / "web.json").exists():
            if web.poll() is not None:
                raise RuntimeError("floor-web died")
            await asyncio.sleep(0.1)
        base = json.loads((work / "web.json").read_text())["url"].rstrip("/")
        ws_url = base.replace("http", "ws", 1) + "/ws"
        cs = [Client() for _ in range(clients)]
        sessions = [aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
                    for _ in cs]
        try:
            for http in sessions:
                await login(http, base)
            tasks = [asyncio.create_task(c.run(h, ws_url)) for c, h in zip(cs, sessions,
                                                                            strict=True)]
            await asyncio.wait_for(asyncio.gather(*(c.live.wait() for c in cs)), 60)
            cpu0, t0 = cpu_seconds(web.pid), time.monotonic()
            pub0, own0 = cpu_seconds(pub.pid), time.process_time()
            updates0 = sum(c.updates for c in cs)
            (work / "go").write_text("1")
            while not (work / "done").exists():
                await asyncio.sleep(0.1)
            cpu1, t1 = cpu_seconds(web.pid), time.monotonic()
            pub1, own1 = cpu_seconds(pub.pid), time.process_time()
            load = os.getloadavg()[0]
            updates1 = sum(c.updates for c in cs)
            await asyncio.sleep(2.0)  # let the last flushes arrive
            sent: dict[str, list[float]] = json.loads((work / "sent.json").read_text())
            (work / "stop").write_text("1")
            for t in tasks:
                t.cancel()
            for t in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await t
        finally:
            for http in sessions:
                await http.close()
    finally:
        (work / "stop").write_text("1")
        for proc in (web, pub):
            if proc is not None:
                proc.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(10)
    latencies: list[float] = []
    lost = 0
    total = sum(len(v) - 1 for v in sent.values())
    for c in cs:
        for table, times in sent.items():
            arrivals = c.arrivals.get(table, [])
            covered = 0
            for seq, at in arrivals:
                for s in range(max(covered + 1, 2), seq + 1):  # seq 1 = the initial state
                    latencies.append(at - times[s - 1])
                covered = max(covered, seq)
            lost += max(0, len(times) - covered)
    duration = t1 - t0
    return {
        "tables": tables, "rate": rate, "clients": clients, "seconds": round(duration, 1),
        "published_per_s": round(total / duration, 1),
        "row_updates_per_s_per_client": round((updates1 - updates0) / duration / clients, 1),
        "latency_p50_ms": round(statistics.median(latencies) * 1000, 1),
        "latency_p99_ms": round(percentile(latencies, 99) * 1000, 1),
        "latency_max_ms": round(max(latencies) * 1000, 1),
        "deliveries": len(latencies), "lost": lost,
        "rows_not_live": sum(c.not_live for c in cs),
        "snapshots": sum(c.snapshots for c in cs),
        "cpu_percent_of_a_core": round((cpu1 - cpu0) / duration * 100, 1),
        "cpu_ms_per_table_per_s": round((cpu1 - cpu0) / duration / tables * 1000, 3),
        "publisher_cpu_percent": round((pub1 - pub0) / duration * 100, 1),
        "clients_cpu_percent": round((own1 - own0) / duration * 100, 1),
        "load_average_1min": round(load, 1),
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else "")
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--rate", type=float, default=5.0, help="messages/s per table")
    p.add_argument("--clients", type=int, default=20)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--publisher", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args(argv or [])
    if args.publisher is not None:
        asyncio.run(publish(args.tables, args.rate, args.seconds, args.publisher))
        return
    result = asyncio.run(bench(args.tables, args.rate, args.clients, args.seconds))
    for k, v in result.items():
        print(f"{k:<32} {v}")


if __name__ == "__main__":
    main(sys.argv[1:])
