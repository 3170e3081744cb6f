"""The shipper against a real PostgreSQL: order, idempotency, outages, kill -9, forks."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from table_controller.central.common import ForkedJournalError
from table_controller.central.query import find_hands, hand_record, verify
from table_controller.central.shipper import Shipper, read_status
from table_controller.journal import Journal
from table_controller.journal.recall import format_hand
from tests.central.conftest import PgServer
from tests.central.tables import TAGS, FakeTable

TIMEOUT = 60.0


def wait_for(what: Callable[[], bool], timeout: float = TIMEOUT) -> None:
    end = time.monotonic() + timeout
    while not what():
        if time.monotonic() > end:
            raise AssertionError("timed out")
        time.sleep(0.02)


def counts(url: str, table: str) -> tuple[int, int, int]:
    with psycopg.connect(url) as conn:
        try:
            row = conn.execute("SELECT count(*), count(DISTINCT seq), coalesce(max(seq), 0) "
                               "FROM entries WHERE table_id = %s", (table,)).fetchone()
        except psycopg.errors.UndefinedTable:  # the shipper has not made the schema yet
            return 0, 0, 0
    assert row is not None
    return int(row[0]), int(row[1]), int(row[2])


class Running:
    def __init__(self, shipper: Shipper) -> None:
        self.shipper = shipper
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.shipper.run()
        except BaseException as exc:
            self.error = exc

    def stop(self) -> None:
        self.shipper.stop()
        self.thread.join(TIMEOUT)


@pytest.fixture
def running() -> Iterator[Callable[[Shipper], Running]]:
    started: list[Running] = []

    def start(shipper: Shipper) -> Running:
        r = Running(shipper)
        started.append(r)
        return r
    yield start
    for r in started:
        r.stop()


def shipper(path: Path, table: str, url: str, **kw: object) -> Shipper:
    return Shipper(path, table, url, resolve=TAGS.get, poll=0.02, retry_min=0.05,
                   retry_max=0.5, **kw)  # type: ignore[arg-type]


def test_ships_a_running_table(tmp_path: Path, pg_url: str,
                               running: Callable[[Shipper], Running]) -> None:
    path = tmp_path / "journal.db"
    with Journal.open(path) as journal:
        table = FakeTable(journal)
        table.play_hand()
        running(shipper(path, "T1", pg_url, status_path=tmp_path / "status.json", batch=50))
        for i in range(5):
            table.play_hand(irregularity="exposed_card" if i == 2 else None)
        last = journal.last_seq
        wait_for(lambda: counts(pg_url, "T1")[2] == last)
        assert counts(pg_url, "T1") == (last, last, last)
        wait_for(lambda: read_status(tmp_path / "status.json").shipped_seq == last)
        status = read_status(tmp_path / "status.json")
        assert status.behind == 0 and status.local_seq == last and status.table == "T1"
        with psycopg.connect(pg_url) as conn:
            hands = find_hands(conn, table="T1")
            assert [h.hand for h in hands] == [1, 2, 3, 4, 5, 6]
            for h in hands:
                assert h.board == table.hands[h.hand]["board"]
                assert h.hole == table.hands[h.hand]["hole"]
            assert [h.hand for h in find_hands(conn, irregularity="exposed_card")] == [4]
            river = table.hands[2]["board"][4]  # type: ignore[index]
            assert 2 in [h.hand for h in find_hands(conn, river=river)]
            held = table.hands[3]["hole"]["2"][0]  # type: ignore[index]
            assert [h.hand for h in find_hands(conn, seat=2, card=held)] == [3]
            assert format_hand(hand_record(conn, "T1", 3)) == \
                format_hand(journal.hand_entries(3))
            result = verify(conn, "T1", journal_path=path)
            assert result.ok, result.problems
            assert result.entries == last


def test_database_down_and_back_loses_nothing(
        tmp_path: Path, pg_server: PgServer, running: Callable[[Shipper], Running]) -> None:
    url = pg_server.database()
    path = tmp_path / "journal.db"
    with Journal.open(path) as journal:
        table = FakeTable(journal, seed=2)
        r = running(shipper(path, "T1", url, status_path=tmp_path / "s.json", batch=20))
        for _ in range(3):
            table.play_hand()
        first = journal.last_seq
        wait_for(lambda: counts(url, "T1")[2] == first)
        pg_server.halt()
        try:
            for _ in range(4):  # the table goes on; the journal is the buffer
                table.play_hand()
            wait_for(lambda: (st := read_status(tmp_path / "s.json")).state == "retrying"
                     and st.behind > 0)
        finally:
            pg_server.resume()
        table.play_hand()
        last = journal.last_seq
        wait_for(lambda: counts(url, "T1")[2] == last)
        assert counts(url, "T1") == (last, last, last)
        assert r.error is None
        with psycopg.connect(url) as conn:
            assert verify(conn, "T1", journal_path=path).ok
            assert len(find_hands(conn, table="T1")) == 8


def test_shipper_killed_mid_shipping_resumes(tmp_path: Path, pg_url: str) -> None:
    path = tmp_path / "journal.db"
    with Journal.open(path) as journal:
        table = FakeTable(journal, seed=3)
        for _ in range(60):
            table.play_hand()
        last = journal.last_seq
    argv = [sys.executable, "-m", "table_controller", "central", "ship", "--journal", str(path),
            "--table", "T9", "--url", pg_url, "--batch", "7"]
    for _ in range(2):  # killed twice at a point part-way through
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            before = counts(pg_url, "T9")[2]
            wait_for(lambda b=before: counts(pg_url, "T9")[2] > b + 30)  # type: ignore[misc]
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(TIMEOUT)
    assert counts(pg_url, "T9")[2] < last
    done = subprocess.run([*argv, "--once"], capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    assert counts(pg_url, "T9") == (last, last, last)
    with psycopg.connect(pg_url) as conn:
        assert verify(conn, "T9", journal_path=path).ok
        hands = find_hands(conn, table="T9")
        assert len(hands) == 60 and all(len(h.board) == 5 for h in hands)


def test_two_tables_at_once(tmp_path: Path, pg_url: str,
                            running: Callable[[Shipper], Running]) -> None:
    paths = [tmp_path / "a.db", tmp_path / "b.db"]
    journals = [Journal.open(p) for p in paths]
    try:
        tables = [FakeTable(j, seed=10 + i) for i, j in enumerate(journals)]
        for i, p in enumerate(paths):
            running(shipper(p, f"T{i + 1}", pg_url, batch=13))
        for _ in range(5):
            for t in tables:
                t.play_hand()
        for i, j in enumerate(journals):
            last = j.last_seq
            wait_for(lambda i=i, last=last: counts(pg_url, f"T{i + 1}")[2] == last)  # type: ignore[misc]
        with psycopg.connect(pg_url) as conn:
            assert len(find_hands(conn)) == 10
            for i, p in enumerate(paths):
                assert verify(conn, f"T{i + 1}", journal_path=p).ok
    finally:
        for j in journals:
            j.close()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "table_controller", "central", *args],
                          capture_output=True, text=True, timeout=TIMEOUT)


def test_tampered_central_row_is_caught(tmp_path: Path, pg_url: str) -> None:
    path = tmp_path / "journal.db"
    with Journal.open(path) as journal:
        table = FakeTable(journal, seed=4)
        for _ in range(3):
            table.play_hand()
    s = shipper(path, "T1", pg_url)
    assert s.ship_pending() > 0
    s.close()
    ok = _cli("verify", "--url", pg_url, "--table", "T1", "--journal", str(path))
    assert ok.returncode == 0, ok.stderr
    with psycopg.connect(pg_url) as conn:
        conn.execute("UPDATE entries SET payload = jsonb_set(payload, '{text}', "
                     "'\"Board card 1: Ah\"') WHERE table_id = 'T1' AND seq = 40")
        conn.execute("UPDATE entries SET payload_text = replace(payload_text, 'seat 3', "
                     "'seat 4') WHERE table_id = 'T1' AND seq = 4")
    bad = _cli("verify", "--url", pg_url, "--table", "T1")
    assert bad.returncode == 4
    assert "entry 4: content does not match its hash" in bad.stdout
    assert "entry 40: payload (jsonb) differs" in bad.stdout
    with psycopg.connect(pg_url) as conn:
        conn.execute("DELETE FROM entries WHERE table_id = 'T1' AND seq = 20")
        problems = verify(conn, "T1").problems
    assert any("entry 20: missing" in p for p in problems)


def test_forked_local_journal_is_refused(tmp_path: Path, pg_url: str) -> None:
    path = tmp_path / "journal.db"
    with Journal.open(path) as journal:
        FakeTable(journal, seed=5).play_hand()
    fork = tmp_path / "fork.db"
    shutil.copy(path, fork)  # a restored backup (journal and anchor) that then went its own way
    shutil.copy(f"{path}.anchor", f"{fork}.anchor")
    with Journal.open(path) as journal:
        FakeTable(journal, seed=6, clock=1_900_000_000.0).play_hand()
    with Journal.open(fork) as journal:
        FakeTable(journal, seed=7, clock=1_900_000_000.0).play_hand()
    s = shipper(path, "T1", pg_url)
    s.ship_pending()
    s.close()
    forked = shipper(fork, "T1", pg_url, status_path=tmp_path / "s.json")
    with pytest.raises(ForkedJournalError, match="differs"):
        forked.run()
    assert read_status(tmp_path / "s.json").state == "refused"
    out = _cli("ship", "--journal", str(fork), "--table", "T1", "--url", pg_url)
    assert out.returncode == 4 and "forked or tampered" in out.stderr
    # rows of the fork already in the store under another content are refused too
    with psycopg.connect(pg_url) as conn:
        conn.execute("UPDATE journals SET shipped_seq = 10, shipped_hash = "
                     "(SELECT hash FROM entries WHERE table_id = 'T1' AND seq = 10)")
    s = shipper(fork, "T1", pg_url)
    with pytest.raises(ForkedJournalError, match="already in the central store"):
        s.ship_pending()
    s.close()


def test_cli_hands_json_and_report(tmp_path: Path, pg_url: str) -> None:
    path = tmp_path / "journal.db"
    with Journal.open(path) as journal:
        table = FakeTable(journal, seed=8)
        table.play_hand()
        table.play_hand(irregularity="misdeal_exposed")
    assert _cli("ship", "--journal", str(path), "--table", "T3", "--url", pg_url,
                "--once").returncode == 0
    out = _cli("hands", "--url", pg_url, "--since", "2020-01-01", "--json")
    assert out.returncode == 0, out.stderr
    import json

    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [(r["table"], r["hand"]) for r in rows] == [("T3", 1), ("T3", 2)]
    assert all({"table", "hand", "started", "board"} <= set(r) for r in rows)
    report = _cli("report", "--url", pg_url, "--since", "2020-01-01")
    assert "misdeal_exposed" in report.stdout and "1 irregularities" in report.stdout
    recall = _cli("recall", "--url", pg_url, "--table", "T3", "--hand", "2")
    with Journal.open(path, readonly=True) as journal:
        assert recall.stdout.rstrip("\n") == format_hand(journal.hand_entries(2))
