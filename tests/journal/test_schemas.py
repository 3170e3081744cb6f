"""On-disk schemas: schema 1 journals still open and grow; ``journal migrate`` rewrites them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from table_controller.cli import main
from table_controller.errors import JournalDamagedError, JournalError
from table_controller.journal import EntryKind, Journal
from table_controller.journal.layout import CURRENT
from table_controller.journal.repair import migrate
from tests.journal.damage import fill, judge, reference


def _old(tmp_path: Path, hands: int = 6) -> Path:
    path = tmp_path / "j.db"
    with Journal.open(path, schema=1) as j:
        fill(j, hands)
    return path


def test_a_new_journal_has_the_current_schema(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.db") as j:
        assert j.schema == CURRENT == 2
    with pytest.raises(JournalError, match="schema 7"):
        Journal.open(tmp_path / "k.db", schema=7)


def test_a_schema_1_journal_opens_read_only_and_writable_and_keeps_its_schema(
        tmp_path: Path) -> None:
    path = _old(tmp_path)
    ref = reference(path)
    with Journal.open(path, readonly=True, full=True) as j:
        assert j.schema == 1 and len(ref.hashes) == j.last_seq
    with Journal.open(path) as j:
        fill(j, 2, start=j.last_hand)
        assert j.schema == 1
    with Journal.open(path, readonly=True, full=True) as j:
        assert [e.hash for e in j.entries(until=len(ref.hashes))] == list(ref.hashes)


def test_migrate_keeps_every_entry_and_hash_and_journals_it(tmp_path: Path) -> None:
    path = _old(tmp_path, 20)
    ref = reference(path)
    before = path.stat().st_size
    done = migrate(path, reason="smaller journal", operator="tech", wall_time=2e9,
                   mono_time=1.0)
    assert (done.old, done.new, done.entries) == (1, 2, len(ref.hashes))
    assert (done.evidence / "j.db").exists() and (done.evidence / "j.db.anchor").exists()
    with Journal.open(path, full=True) as j:
        assert j.schema == 2 and j.last_seq == done.entry == len(ref.hashes) + 1
        assert [e.hash for e in j.entries(until=len(ref.hashes))] == list(ref.hashes)
        for (console, seq), reply in ref.replies.items():
            assert j.reply_for(console, seq) == reply
        op = j.get(done.entry)
        assert op.kind is EntryKind.OPERATOR
        assert op.payload["migrated"] == {"from": 1, "to": 2, "entries": len(ref.hashes)}
        assert op.prev_hash == ref.hashes[-1]
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    assert path.stat().st_size < before
    with pytest.raises(JournalError, match="nothing to migrate"):
        migrate(path, reason="again", operator="tech", wall_time=2e9, mono_time=1.0)


def test_a_damaged_journal_is_not_migrated(tmp_path: Path) -> None:
    path = _old(tmp_path)
    ref = reference(path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE entries SET hand = hand + 1 WHERE seq = 20")
    conn.commit()
    conn.close()
    with pytest.raises(JournalDamagedError, match="first bad sequence number 20"):
        migrate(path, reason="x", operator="y", wall_time=2e9, mono_time=1.0)
    assert judge(path, ref)[0].name == "REFUSED"
    assert not list(tmp_path.glob("j.db.schema1-*"))


def test_journal_migrate_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _old(tmp_path)
    assert main(["journal", "migrate", "--journal", str(path), "--operator", "tech"]) == 0
    assert "migrated from schema 1 to 2" in capsys.readouterr().out
    assert main(["journal", "migrate", "--journal", str(path), "--operator", "tech"]) == 1
    assert "nothing to migrate" in capsys.readouterr().err
    assert main(["journal", "verify", "--journal", str(path)]) == 0
