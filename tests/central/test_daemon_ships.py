"""A real daemon with ``[central] url`` ships its journal while it plays (the demo's --central)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from table_controller.central.query import find_hands
from table_controller.simtable.demo import run_demo


def test_the_demo_ships_its_journal_through_the_daemon(pg_url: str, tmp_path: Path) -> None:
    import psycopg

    summary = asyncio.run(run_demo(hands=3, fast=True, seed=7, table_id="TS1", live=False,
                                   out=tmp_path / "out", central=pg_url))
    assert summary.hands_played == 3
    with psycopg.connect(pg_url) as conn:
        during = list(find_hands(conn, table="TS1"))
    # the shipper stops with the daemon; what it had not sent yet (a busy machine, a short
    # run) is sent by a catch-up run on the saved journal, without a duplicate
    exe = str(Path(sys.executable).with_name("table-controller"))
    catch_up = subprocess.run([exe, "central", "ship", "--journal",
                               str(tmp_path / "out" / "journal.db"), "--table", "TS1",
                               "--url", pg_url, "--once"],
                              capture_output=True, text=True, timeout=120, check=False)
    assert catch_up.returncode == 0, catch_up.stderr
    with psycopg.connect(pg_url) as conn:
        hands = list(find_hands(conn, table="TS1"))
    assert len(hands) == 3 and len(during) <= 3
    out = subprocess.run([exe, "central", "hands", "--url", pg_url, "--table", "TS1", "--json"],
                         capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["hand"] for r in rows] == [1, 2, 3]
    assert all(len(r["board"]) <= 5 for r in rows)
