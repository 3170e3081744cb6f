"""The terminal floor display through ``floor-proxy``: many tables, latency and the display's CPU.

Three processes, as on a floor: the publishers (one FeedHub per table, ipc endpoints, each table
sending ``--rate`` messages a second: an event, a prompt, a whole ``table_state`` in turn), the
real ``table-controller floor-proxy`` with every table's public feed as a frontend, and the
terminal floor display (``run_display("floor", ...)``, what ``table-controller display --role
floor`` runs, drawing into a terminal-sized ``rich`` console that writes to ``/dev/null``), which
notes when its model holds each table's new ``seq``.

Measured while every table publishes for ``--seconds``:

- latency from publish (the publisher's wall clock just before the send) to the display's model
  holding a ``seq`` that covers the message, p50/p99/max (the screen redraws 8 times a second on
  top of it);
- messages not reached by the display 5 s after the publishers stopped;
- whether the screen said so: rows shown ``stale`` (or ``syncing`` / ``lost``) at some time,
  and messages more than 2 s late while their row said ``live``;
- the CPU of the display and of the proxy (``/proc``).

``--src DIR`` runs the three processes from another checkout (the scheme before the topics
carried the table: ``--src`` of that commit is the baseline, measured in the same run):

``python -m benchmarks.bench_floorproxy --tables 50 100 200 --rate 2 --seconds 20
--baseline-src /tmp/base``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
OWN_SRC = HERE.parent.parent
LATE = 2.0


def table_state(table: str, n: int) -> dict[str, Any]:
    """A busy 9-seat table's public state (as the floor-web benchmark sends)."""
    seats = {str(s): {"player": f"P{s}", "stack": 10_000 - n % 500 + s, "bet": (n + s) % 300,
                      "sitting_out": False, "in_hand": True, "folded": s == 5, "all_in": False}
             for s in range(1, 10)}
    return {"table": table, "hand": n // 40 + 1, "hands_played": n // 40, "button": 1 + n % 9,
            "seats": seats, "phase": "betting", "street": ("preflop", "flop", "turn")[n % 3],
            "board": ["Qs", "Jh", "2d", None, None],
            "pots": [{"amount": 1500 + n, "eligible": [1, 2, 3]}],
            "to_act": 1 + n % 9, "current_bet": 200, "held": False, "holds": [],
            "hole_cards": {str(s): ["??", "??"] for s in range(1, 10)},
            "irregularities": [], "devices": {"shoe": "ok", "chips": "ok", "camera": "ok"},
            "prompt": {"id": n, "text": f"Seat {1 + n % 9} to act", "step": {"kind": "act"}}}


async def publish(tables: int, rate: float, seconds: float, out: Path) -> None:
    """The publisher process: hubs, then ``rate`` messages/s per table, then the record."""
    import zmq
    import zmq.asyncio

    from table_controller.feeds import Feed, FeedEndpoints, FeedHub

    ctx = zmq.asyncio.Context()
    ctx.set(zmq.MAX_SOCKETS, 6 * tables + 64)
    hubs = []
    for i in range(tables):
        eps = FeedEndpoints(*(f"ipc://{out}/t{i}-{n}" for n in ("p", "d", "s", "n", "sn")))
        hub = FeedHub(ctx, table_id=f"T{i:03d}", endpoints=eps, heartbeat_interval=1.0)
        await hub.start()
        st = table_state(hub.table_id, 0)
        await hub.publish(Feed.PUBLIC, "table_state", st, state=st)
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
        n, i = divmod(k, tables)
        due = start + n * interval + i * interval / tables
        if due >= end:
            break
        delay = due - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        hub = hubs[i]
        ts = time.time()
        if n % 3 == 0:
            await hub.publish(Feed.PUBLIC, "event", {"text": f"Seat {n % 9 + 1} calls 200"})
        elif n % 3 == 1:
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


async def display(backend: str, out: Path) -> None:
    """The display process: the floor screen for every table, noting when each seq arrives."""
    from rich.console import Console

    from table_controller.displays.live import DisplayModel, TableSource, run_display

    eps: dict[str, list[str]] = json.loads((out / "endpoints.json").read_text())
    sources = [TableSource(t, backend, snap) for t, (_feed, snap) in eps.items()]
    arrivals: dict[str, list[tuple[int, float, str]]] = {t: [] for t in eps}
    last_seq = dict.fromkeys(eps, -1)
    shown: dict[str, set[str]] = {t: set() for t in eps}
    check = [0.0]

    def note(model: DisplayModel) -> None:
        now = time.time()
        for t, v in model.views.items():
            shown[t].add(v.connection)
            if v.seq != last_seq[t]:
                last_seq[t] = v.seq
                arrivals[t].append((v.seq, now, v.connection))
        if not (out / "live").exists() and all(v.connection == "live"
                                               for v in model.views.values()):
            (out / "live").write_text("1")

    def stop(model: DisplayModel) -> bool:
        now = time.monotonic()
        if now - check[0] < 0.2:
            return False
        check[0] = now
        return (out / "stop").exists()

    with open(os.devnull, "w") as sink:
        console = Console(file=sink, force_terminal=True, width=160, height=max(60, len(eps) + 8))
        await run_display("floor", sources, console=console, live=True, on_change=note,
                          until=stop, heartbeat_timeout=3.0)
    import table_controller

    (out / "arrivals.json").write_text(json.dumps({"code": table_controller.__file__,
                                                   "arrivals": arrivals,
                                                   "shown": {t: sorted(s) for t, s in
                                                             shown.items()}}))


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")


def _wait_for(path: Path, procs: list[subprocess.Popen[bytes]], what: str,
              timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        for p in procs:
            if p.poll() is not None:
                raise RuntimeError(f"{what}: a process died (exit {p.returncode})")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: not within {timeout:g} s")
        time.sleep(0.1)


def bench(tables: int, rate: float, seconds: float, src: Path) -> dict[str, Any]:
    """One run: publishers, proxy and display from the checkout ``src``."""
    work = Path(tempfile.mkdtemp(prefix="fp-"))
    env = {**os.environ, "PYTHONPATH": str(src)}  # run in ``work``: not the caller's tree
    me = [sys.executable, str(HERE)]
    procs: list[subprocess.Popen[bytes]] = []
    try:
        pub = subprocess.Popen([*me, "--publisher", str(work), "--tables", str(tables),
                                "--rate", str(rate), "--seconds", str(seconds)], env=env, cwd=work)
        procs.append(pub)
        _wait_for(work / "ready", procs, "publishers")
        eps: dict[str, list[str]] = json.loads((work / "endpoints.json").read_text())
        backend = f"ipc://{work}/floor"
        fronts = [a for feed, _snap in eps.values() for a in ("--frontend", feed)]
        proxy = subprocess.Popen([sys.executable, "-m", "table_controller", "floor-proxy",
                                  *fronts, "--backend", backend], env=env,
                                 cwd=work, stdout=subprocess.DEVNULL)
        procs.append(proxy)
        time.sleep(1.0)
        disp = subprocess.Popen([*me, "--display", str(work), "--backend", backend], env=env,
                                cwd=work)
        procs.append(disp)
        _wait_for(work / "live", procs, "every row live")
        time.sleep(1.0)
        d0, p0, t0 = cpu_seconds(disp.pid), cpu_seconds(proxy.pid), time.monotonic()
        (work / "go").write_text("1")
        _wait_for(work / "done", procs, "publishing", timeout=seconds + 120)
        d1, p1, t1 = cpu_seconds(disp.pid), cpu_seconds(proxy.pid), time.monotonic()
        load = os.getloadavg()[0]
        time.sleep(5.0)  # the display's last chance to catch up
        (work / "stop").write_text("1")
        disp.wait(60)
    finally:
        (work / "stop").write_text("1")
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
    sent: dict[str, list[float]] = json.loads((work / "sent.json").read_text())
    rec = json.loads((work / "arrivals.json").read_text())
    latencies: list[float] = []
    late_live = 0
    undelivered = 0
    for table, times in sent.items():
        covered = 1  # seq 1 = the initial state
        for seq, at, shown in rec["arrivals"].get(table, []):
            for s in range(max(covered + 1, 2), min(seq, len(times)) + 1):
                lat = at - times[s - 1]
                latencies.append(lat)
                if lat > LATE and shown == "live":
                    late_live += 1
            covered = max(covered, seq)
        undelivered += max(0, len(times) - covered)
    flagged = sum(1 for s in rec["shown"].values() if {"stale", "syncing", "lost"} & set(s))
    duration = t1 - t0
    return {
        "tables": tables, "rate": rate, "code": rec["code"], "seconds": round(duration, 1),
        "published_per_s": round(sum(len(v) - 1 for v in sent.values()) / duration, 1),
        "deliveries": len(latencies),
        "latency_p50_ms": round(statistics.median(latencies) * 1000, 1) if latencies else None,
        "latency_p99_ms": round(percentile(latencies, 99) * 1000, 1) if latencies else None,
        "latency_max_ms": round(max(latencies) * 1000, 1) if latencies else None,
        "undelivered_after_5s": undelivered,
        "late_while_live": late_live,
        "rows_shown_stale_or_worse": flagged,
        "display_cpu_percent": round((d1 - d0) / duration * 100, 1),
        "proxy_cpu_percent": round((p1 - p0) / duration * 100, 1),
        "load_average_1min": round(load, 1),
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else "")
    p.add_argument("--tables", type=int, nargs="+", default=[50, 100, 200])
    p.add_argument("--rate", type=float, default=2.0, help="messages/s per table")
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--baseline-src", type=Path, default=None,
                   help="a checkout of the scheme to compare with, run first at each size")
    p.add_argument("--src", type=Path, default=OWN_SRC, help=argparse.SUPPRESS)
    p.add_argument("--publisher", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--display", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--backend", help=argparse.SUPPRESS)
    args = p.parse_args(argv or [])
    if args.publisher is not None:
        asyncio.run(publish(args.tables[0], args.rate, args.seconds, args.publisher))
        return
    if args.display is not None:
        asyncio.run(display(args.backend, args.display))
        return
    srcs = ([args.baseline_src] if args.baseline_src else []) + [args.src]
    for n in args.tables:
        for src in srcs:
            result = bench(n, args.rate, args.seconds, src)
            print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
