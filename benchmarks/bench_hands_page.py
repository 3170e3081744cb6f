"""The surveillance hand search of ``floor-web`` (``GET /hands``) at a million hands.

The central store's ``hands`` table is filled to ``--hands`` rows (default 1,000,000: 200
tables over 24 hours, six seats with their hole cards, an irregularity in one hand of 200;
:func:`benchmarks.bench_central.fill_hands`), then a real ``floor-web --central`` process is
asked for the search page by a logged-in surveillance user, one request at a time: each
search ``--requests`` times (default 40, after 3 not counted). Measured per search: the whole
page request (HTTP round trip, the query in the server's thread, the HTML of up to 500 rows)
p50 / p99, and the query alone (:func:`~table_controller.central.query.find_hands` with the
page's limit, from this process) p50, with the hands found and the page's size.

``python -m benchmarks.bench_hands_page [--url postgresql://...]``: without ``--url`` (or
``TC_TEST_POSTGRES_URL``) a scratch server is started with ``tools/scratch_postgres.sh``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import psycopg
from argon2 import PasswordHasher

from benchmarks.bench_central import ROOT, fill_hands, scratch_database
from table_controller.floorweb.auth import add_user
from table_controller.floorweb.central import MAX_RESULTS, search_filters

PASSWORD = "bench password"
#: The searches timed: a name and the form's fields.
SEARCHES: tuple[tuple[str, dict[str, str]], ...] = (
    ("Ah on the river, last 8 h", {"river": "Ah", "since": "8h"}),
    ("Ah anywhere, last 8 h", {"card": "Ah", "since": "8h"}),
    ("seat 3 held Ah, last 8 h", {"seat": "3", "card": "Ah", "since": "8h"}),
    ("one table, last 8 h", {"table": "Q007", "since": "8h"}),
    ("one irregularity kind, all day", {"irregularity": "misdeal"}),
    ("one table, seat 3 held Kd", {"table": "Q042", "seat": "3", "card": "Kd"}),
)


def percentile(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


async def login(http: aiohttp.ClientSession, base: str) -> None:
    async with http.get(f"{base}/login") as r:
        m = re.search(r'name="csrf" value="([^"]+)"', await r.text())
    assert m is not None
    async with http.post(f"{base}/login", data={"username": "sam", "password": PASSWORD,
                                                "csrf": m.group(1)}) as r:
        assert r.status == 200, r.status


async def time_pages(base: str, requests: int) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        await login(http, base)
        for name, fields in SEARCHES:
            times: list[float] = []
            size = 0
            for i in range(requests + 3):
                t = time.perf_counter()
                async with http.get(f"{base}/hands", params=fields) as r:
                    body = await r.text()
                    assert r.status == 200, (r.status, body[:300])
                if i >= 3:
                    times.append(time.perf_counter() - t)
                size = len(body.encode())
            out[name] = {"p50_ms": statistics.median(times) * 1000,
                         "p99_ms": percentile(times, 99) * 1000, "page_kb": size / 1024}
    return out


def time_queries(url: str, requests: int) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    with psycopg.connect(url) as conn:
        for name, fields in SEARCHES:
            search = search_filters(fields)
            times, found = [], 0
            for i in range(requests + 3):
                t = time.perf_counter()
                found = len(search.find(conn))
                if i >= 3:
                    times.append(time.perf_counter() - t)
            out[name] = {"query_p50_ms": statistics.median(times) * 1000, "found": found}
    return out


def bench(url: str, hands: int, requests: int) -> list[dict[str, Any]]:
    t = time.perf_counter()
    with psycopg.connect(url) as conn:
        fill_hands(conn, hands, hole=True)
        row = conn.execute("SELECT pg_total_relation_size('hands')").fetchone()
    print(f"filled {hands:,} hands in {time.perf_counter() - t:.0f} s "
          f"({(row[0] if row else 0) / 2**20:.0f} MB with indexes)", flush=True)
    work = Path(tempfile.mkdtemp(prefix="fw-hands-bench-"))
    users = work / "users.json"
    add_user(users, "sam", "surveillance", PASSWORD,
             PasswordHasher(time_cost=1, memory_cost=64, parallelism=1))
    # one table that never answers: the page under test is the search, not the live view
    web = subprocess.Popen([sys.executable, "-m", "table_controller", "floor-web",
                            "--users", str(users), "--listen", "127.0.0.1:0",
                            "--ready-file", str(work / "web.json"), "--central", url,
                            "--table", "X=tcp://127.0.0.1:9,tcp://127.0.0.1:9"], cwd=ROOT)
    try:
        deadline = time.monotonic() + 60
        while not (work / "web.json").exists():
            if web.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("floor-web did not start")
            time.sleep(0.1)
        base = json.loads((work / "web.json").read_text())["url"].rstrip("/")
        pages = asyncio.run(time_pages(base, requests))
    finally:
        web.terminate()
        web.wait(10)
    queries = time_queries(url, requests)
    return [{"search": name, **pages[name], **queries[name]} for name, _ in SEARCHES]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="bench_hands_page")
    p.add_argument("--url")
    p.add_argument("--hands", type=int, default=1_000_000)
    p.add_argument("--requests", type=int, default=40)
    args = p.parse_args(argv if argv is not None else [])
    with scratch_database(args.url) as url:
        rows = bench(url, args.hands, args.requests)
        print(f"GET /hands, {args.requests} requests each, at most {MAX_RESULTS} rows a page:")
        for r in rows:
            print(f"  {r['search']:<32} page p50 {r['p50_ms']:6.1f} ms  p99 {r['p99_ms']:6.1f} "
                  f"ms  (query alone p50 {r['query_p50_ms']:6.1f} ms; {r['found']:>3} rows "
                  f"shown, {r['page_kb']:.0f} KB)")


if __name__ == "__main__":
    main(sys.argv[1:])
