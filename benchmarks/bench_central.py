"""The central store at floor scale: many tables' journals shipped into one PostgreSQL.

Part 1: ``--tables`` tables (default 200), each a journal written at a busy table's pace
(``--rate`` entries a second, default 2: some 90 entries a hand, a hand every 45 s) with its own
shipper, spread over ``--procs`` processes, for ``--seconds``. Measured: entries a second
sustained, shipping lag (central ``shipped_at`` minus the entry's wall time; p50 / p99 / max),
bytes a hand in the central store (entries, hands and irregularities with their indexes).
Part 2: the ``hands`` table filled to ``--hands`` rows (default 1,000,000) with COPY, then
"every hand with Ah on the river this shift" (8 hours of 24 in the data) timed.

``python -m benchmarks.bench_central [--url postgresql://...]``: without ``--url`` (or
``TC_TEST_POSTGRES_URL``) a scratch server is started with ``tools/scratch_postgres.sh``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import random
import statistics
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg

from table_controller.central.schema import migrate
from table_controller.central.shipper import Shipper
from table_controller.journal import Journal
from tests.central.tables import DECK, TAGS, FakeTable

ROOT = Path(__file__).resolve().parents[1]


class _Paced:
    """A journal whose appends keep a table's pace (what FakeTable writes through)."""

    def __init__(self, journal: Journal, interval: float, stop: threading.Event) -> None:
        self.journal = journal
        self.interval = interval
        self.stop = stop
        self.next = time.monotonic() + random.random() * interval

    @property
    def last_hand(self) -> int:
        return self.journal.last_hand

    def append(self, kind: str, payload: dict[str, object], *, wall_time: float,
               mono_time: float) -> None:
        delay = self.next - time.monotonic()
        if delay > 0:
            self.stop.wait(delay)
        self.next += self.interval
        self.journal.append(kind, payload, wall_time=time.time(), mono_time=time.monotonic())


def _worker(url: str, base: str, tables: list[str], rate: float, seconds: float) -> None:
    stop = threading.Event()
    shippers, threads = [], []

    def write(table_id: str) -> None:
        with Journal.open(Path(base) / f"{table_id}.db") as journal:
            paced = _Paced(journal, 1.0 / rate, stop)
            fake = FakeTable(paced, seed=hash(table_id) & 0xFFFF)  # type: ignore[arg-type]
            while not stop.is_set():
                fake.play_hand(irregularity="exposed_card" if random.random() < 0.02 else None)

    for t in tables:
        th = threading.Thread(target=write, args=(t,), daemon=True)
        th.start()
        threads.append(th)
    time.sleep(0.5)
    for t in tables:
        s = Shipper(Path(base) / f"{t}.db", t, url, resolve=TAGS.get, poll=0.1)
        shippers.append(s)
        th = threading.Thread(target=s.run, daemon=True)
        th.start()
        threads.append(th)
    time.sleep(seconds)
    stop.set()
    time.sleep(3.0)  # let the shippers catch up the last hand
    for s in shippers:
        s.stop()
    for th in threads:
        th.join(30)


def ship_floor(url: str, tables: int, procs: int, rate: float, seconds: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as base, psycopg.connect(url) as conn:
        migrate(conn)
        t0 = time.time()
        names = [f"B{i:03d}" for i in range(tables)]
        workers = [multiprocessing.Process(target=_worker, args=(url, base, names[i::procs], rate,
                                                                 seconds)) for i in range(procs)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        # steady state: from 3 s after the start (the shippers start 0.5 s after the writers)
        # until the writers were told to stop (they then finish the hand at once)
        start, end = t0 + 3.0, t0 + 0.5 + seconds
        row = conn.execute(
            "SELECT count(*), percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY lag), "
            "max(lag) FROM (SELECT extract(epoch FROM shipped_at) - wall_time AS lag "
            "FROM entries WHERE wall_time >= %s AND wall_time < %s AND table_id LIKE 'B%%') x",
            (start, end)).fetchone()
        assert row is not None
        count, (p50, p99), worst = int(row[0]), row[1], float(row[2])
        seconds = end - start
        hands = conn.execute("SELECT count(*) FROM hands WHERE table_id LIKE 'B%'").fetchone()
        size = conn.execute("SELECT pg_total_relation_size('entries') + "
                            "pg_total_relation_size('hands') + "
                            "pg_total_relation_size('irregularities')").fetchone()
        assert hands is not None and size is not None
        return {"entries": count, "per_second": count / seconds, "lag_p50": float(p50),
                "lag_p99": float(p99), "lag_max": worst, "hands": int(hands[0]),
                "bytes_per_hand": int(size[0]) / max(1, int(hands[0]))}


#: Irregularity kinds :func:`fill_hands` gives one hand in 200 (``hole=True``).
KINDS = ("exposed_card", "misdeal", "chip_difference", "unknown_card")


def fill_hands(conn: psycopg.Connection[tuple[object, ...]], n_hands: int, *,
               hole: bool = False) -> None:
    """Fill the ``hands`` table with ``n_hands`` rows of 200 tables (``Q000``..) over 24 h.

    ``hole``: the six seats' hole cards too (in ``hole`` and ``cards``, as the shipper
    derives them) and an irregularity in one hand of 200; without it, the board only.
    """
    rng = random.Random(1)
    now = time.time()
    migrate(conn)
    conn.execute("DELETE FROM hands WHERE table_id LIKE 'Q%'")
    with conn.cursor() as cur, cur.copy(
            "COPY hands (table_id, journal_id, hand, started, seats, board, hole, cards, "
            "irregularities, first_seq, last_seq) FROM STDIN") as copy:
        for i in range(n_hands):
            dealt = rng.sample(DECK, 17 if hole else 5)
            board = dealt[:5]
            started = now - rng.random() * 86400
            holes = ({str(s): dealt[5 + 2 * (s - 1):7 + 2 * (s - 1)] for s in range(1, 7)}
                     if hole else {})
            irr = [KINDS[i % len(KINDS)]] if hole and rng.random() < 0.005 else []
            copy.write_row((f"Q{i % 200:03d}", "q", i // 200 + 1,
                            time.strftime("%Y-%m-%d %H:%M:%S+00", time.gmtime(started)),
                            [1, 2, 3, 4, 5, 6], board, json.dumps(holes),
                            dealt if hole else board, irr, i * 90, i * 90 + 89))
    conn.commit()
    conn.execute("ANALYZE hands")
    conn.commit()


def river_query(url: str, n_hands: int) -> dict[str, float]:
    with psycopg.connect(url) as conn:
        fill_hands(conn, n_hands)
        times, found = [], 0
        for _ in range(7):
            t = time.perf_counter()
            rows = conn.execute("SELECT table_id, hand, started, board FROM hands "
                                "WHERE board[5] = 'Ah' AND started >= now() - interval '8 hours' "
                                "ORDER BY started").fetchall()
            times.append(time.perf_counter() - t)
            found = len(rows)
        conn.commit()
        return {"hands": n_hands, "found": found, "median_ms": statistics.median(times) * 1000,
                "max_ms": max(times) * 1000}


def _server() -> tuple[str, dict[str, str] | None]:
    url = os.environ.get("TC_TEST_POSTGRES_URL")
    if url:
        return url, None
    env = {**os.environ, "TC_PG_DIR": tempfile.mkdtemp(prefix="tc-pg-bench-"),
           "TC_PG_PORT": "55499"}
    os.chmod(env["TC_PG_DIR"], 0o755)
    subprocess.run(["bash", str(ROOT / "tools" / "scratch_postgres.sh"), "start"], env=env,
                   check=True, stdout=subprocess.DEVNULL)
    return "postgresql://tc@127.0.0.1:55499/tc_test", env


@contextlib.contextmanager
def scratch_database(given: str | None) -> Iterator[str]:
    """Yield the URL of a new, empty database, dropped afterwards.

    :param given: a server's URL (``--url``); ``None`` starts a scratch server for the run
        (``tools/scratch_postgres.sh``) and stops it afterwards.
    """
    env = None
    url = given
    if url is None:
        url, env = _server()
    db = f"bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {db}".encode())
    try:
        yield url.rsplit("/", 1)[0] + "/" + db
    finally:
        with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)".encode())
        if env is not None:
            subprocess.run(["bash", str(ROOT / "tools" / "scratch_postgres.sh"), "stop"], env=env,
                           check=False, stdout=subprocess.DEVNULL)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="bench_central")
    p.add_argument("--url")
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--procs", type=int, default=4)
    p.add_argument("--rate", type=float, default=2.0, help="entries a second a table")
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--hands", type=int, default=1_000_000)
    args = p.parse_args(argv if argv is not None else [])
    with scratch_database(args.url) as url:
        f = ship_floor(url, args.tables, args.procs, args.rate, args.seconds)
        print(f"{args.tables} tables at {args.rate:g} entries/s each for {args.seconds:g} s: "
              f"{f['entries']:.0f} entries, {f['per_second']:.0f} entries/s sustained, lag p50 "
              f"{f['lag_p50'] * 1000:.0f} ms, p99 {f['lag_p99'] * 1000:.0f} ms, max "
              f"{f['lag_max'] * 1000:.0f} ms; {f['hands']:.0f} hands, "
              f"{f['bytes_per_hand']:.0f} bytes a hand")
        q = river_query(url, args.hands)
        print(f"hands table {q['hands']:.0f} rows: Ah on the river in the last 8 h: "
              f"{q['found']:.0f} hands in {q['median_ms']:.1f} ms median "
              f"({q['max_ms']:.1f} ms max of 7)")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
