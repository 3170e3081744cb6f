"""Archived journal entries in the central store (real PostgreSQL): shipped, verified, recalled.

The shipper reads the journal across its archive files: entries archived before it shipped
them are shipped from the archives, in order, and the central copy verifies against the table's
journal, archives included.
"""

from __future__ import annotations

import datetime
from pathlib import Path

import psycopg

from table_controller.central.query import hand_record, verify
from table_controller.central.shipper import Shipper
from table_controller.journal import Journal
from table_controller.journal.recall import format_hand
from tests.central.tables import TAGS, FakeTable
from tests.journal.archives import AT, DAY0, day_time


def _play_days(journal: Journal, days: int, hands: int) -> None:
    table = FakeTable(journal)
    for d in range(days):
        table.clock = day_time(DAY0 + datetime.timedelta(days=d), 1.0)
        for _ in range(hands):
            table.play_hand()
            if journal.last_hand % 2 == 0:
                table.clock += 1
                journal.append_checkpoint({"hand": journal.last_hand}, wall_time=table.clock,
                                          mono_time=float(journal.last_seq + 1))


def _ship(path: Path, url: str) -> int:
    s = Shipper(path, "T1", url, resolve=TAGS.get, batch=50)
    try:
        return s.ship_pending()
    finally:
        s.close()


def test_archived_entries_ship_and_verify(tmp_path: Path, pg_url: str) -> None:
    path = tmp_path / "journal.db"
    with Journal.open(path) as journal:
        _play_days(journal, 2, 3)
    shipped_before = _ship(path, pg_url)  # some shipped before the archiving ...
    with Journal.open(path) as journal:
        more = FakeTable(journal, seed=2)
        more.clock = day_time(DAY0 + datetime.timedelta(days=2), 1.0)
        for _ in range(4):
            more.play_hand()
            if journal.last_hand % 2 == 0:
                journal.append_checkpoint({"hand": journal.last_hand}, wall_time=more.clock + 1,
                                          mono_time=float(journal.last_seq + 1))
        unshipped = journal.last_seq
        done = journal.archive(journal.cuts_before(DAY0 + datetime.timedelta(days=3), AT),
                               at=AT, wall_time=day_time(DAY0, 80), mono_time=1e7)
        assert len(done) == 3 and done[-1].last > shipped_before  # ... some only archived
        last = journal.last_seq
    assert last > unshipped
    assert _ship(path, pg_url) == last - shipped_before  # the rest, archived ones first
    with psycopg.connect(pg_url) as conn:
        result = verify(conn, "T1", journal_path=path)
        assert result.ok, result.problems
        assert result.entries == last
        with Journal.open(path, readonly=True) as journal:
            for hand in (1, 8):  # from the first archive, and the last
                assert format_hand(hand_record(conn, "T1", hand)) == \
                    format_hand(journal.hand_entries(hand))
