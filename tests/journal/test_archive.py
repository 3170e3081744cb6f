"""Archive files: the chain across files, every read across them, tampering, crashes."""

from __future__ import annotations

import datetime
import itertools
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from table_controller.errors import JournalDamagedError, JournalError
from table_controller.journal import EntryKind, Journal
from table_controller.journal.archive import (
    ArchiveRecord,
    archive_files,
    gaming_day,
    parse_hour,
    sha256_of,
    write_file,
)
from table_controller.journal.archiving import STEPS
from table_controller.journal.chain import entry_hash
from table_controller.journal.layout import rows as layout_rows
from tests.journal.archives import AT, DAY0, build, day_time, play_day, snapshot

DAYS = 4


def archived(tmp_path: Path, days: int = DAYS) -> tuple[Path, list[tuple[int, str]]]:
    """Build a journal of ``days`` gaming days, archive all but the last; return it and its
    entries (sequence number, hash) before archiving."""
    path = tmp_path / "t" / "journal.db"
    build(path, days)
    before = snapshot(path)
    with Journal.open(path) as j:
        cuts = j.cuts_before(DAY0 + datetime.timedelta(days=days - 1), AT)
        done = j.archive(cuts, at=AT, wall_time=day_time(DAY0, 30), mono_time=1e6)
    assert len(done) == days - 1
    return path, before


def files(path: Path) -> list[Path]:
    return [p for p in archive_files(path) if not p.name.endswith(".pending")]


def test_archiving_moves_old_days_into_sealed_files_and_the_chain_goes_on(tmp_path: Path) -> None:
    path, before = archived(tmp_path)
    names = [p.name for p in files(path)]
    assert names == ["journal-2026-11-01.db", "journal-2026-11-02.db", "journal-2026-11-03.db"]
    for p in files(path):
        assert not os.access(p, os.W_OK) or os.geteuid() == 0
        assert p.stat().st_mode & 0o222 == 0  # read-only
    after = snapshot(path)
    # every entry kept, hash unchanged; then the archive entries
    assert after[:len(before)] == before
    assert len(after) == len(before) + DAYS - 1
    with Journal.open(path, readonly=True) as j:
        recs = j.archives
        assert [r.file for r in recs] == names
        assert recs[0].first == 1 and recs[0].prev_hash == "0" * 64
        for a, b in itertools.pairwise(recs):
            assert b.first == a.last + 1 and b.prev_hash == a.last_hash
        assert j.verified_from == recs[-1].last + 1  # the live file starts at a checkpoint
        assert j.get(recs[-1].last + 1).kind is EntryKind.CHECKPOINT
        last = j.last_of(EntryKind.ARCHIVE)
        assert last is not None and len(last.payload["archives"]) == DAYS - 1
        # the live file holds only the entries after the last archive
        conn = sqlite3.connect(path)
        assert conn.execute("SELECT MIN(seq) FROM entries").fetchone()[0] == recs[-1].last + 1
        conn.close()


def test_every_read_reads_across_archives(tmp_path: Path) -> None:
    path, before = archived(tmp_path)
    with Journal.open(path, readonly=True) as j:
        assert [h.hand for h in j.recent_hands(10)] == list(range(11, 21))
        old = j.hand_entries(2)  # in the first archive
        assert old.complete and old.entries[0].kind is EntryKind.HAND_START
        assert [e.seq for e in j.entries(since=5, until=30)] == list(range(6, 31))
        assert [(e.seq, e.hash) for e in j.entries()][:len(before)] == before
        assert j.reply_for("dealer", 1) == {"accepted": True, "reason": ""}
        assert j.stored_command("dealer", 7) is not None
        assert j.config_for(1) is None
        assert j.get(1).seq == 1
    with Journal.open(path) as j:  # the writer too; and it goes on appending
        assert j.hand_entries(1).hand == 1
        play_day(j, DAY0 + datetime.timedelta(days=DAYS - 1), 1, start_hour=10)
    assert snapshot(path)[:len(before)] == before


def test_recall_and_verify_commands_across_archives(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from table_controller.cli import main

    path = tmp_path / "t" / "journal.db"
    build(path, DAYS)
    assert main(["journal", "archive", "--journal", str(path), "--before", "2026-11-04",
                 "--at", "06:00"]) == 0
    out = capsys.readouterr().out
    assert out.count("archived to") == 3 and "journal-2026-11-01.db" in out
    assert main(["journal", "verify", "--journal", str(path)]) == 0
    assert "(3 archives), verified" in capsys.readouterr().out
    assert main(["recall", "--journal", str(path), "--hand", "2"]) == 0
    out = capsys.readouterr().out
    assert "Hand 2 - started" in out
    assert main(["recall", "--journal", str(path), "--hands", "2"]) == 0
    assert "Hand 20 - started" in capsys.readouterr().out
    # nothing more to archive
    assert main(["journal", "archive", "--journal", str(path), "--before", "2026-11-04"]) == 0
    assert "nothing to archive" in capsys.readouterr().out


def test_archiving_is_refused_where_it_cannot_be(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    build(path, 2)
    with Journal.open(path) as j, pytest.raises(JournalError, match="before a checkpoint"):
        j.archive([3], at=AT, wall_time=1.0, mono_time=1.0)  # not a checkpoint
    with Journal.open(path, readonly=True) as j, pytest.raises(JournalError, match="read-only"):
        j.archive([22], at=AT, wall_time=1.0, mono_time=1.0)


# -- tampering: each is refused, naming the file ---------------------------------------------

def _refused(path: Path, name: str, *, full: bool = True) -> str:
    """Open the journal (and, with ``full``, verify it); return the one-line refusal."""
    with pytest.raises(JournalDamagedError) as err, \
            Journal.open(path, readonly=True, full=full) as j:
        if not full:
            for rec in j.archives:
                j.hand_entries(rec.hands[0] if rec.hands else 1)
    msg = str(err.value)
    assert name in msg and "\n" not in msg, msg
    return msg


def test_a_deleted_archive_is_refused_at_open(tmp_path: Path) -> None:
    path, _ = archived(tmp_path)
    victim = files(path)[1]
    victim.unlink()
    assert "is missing" in _refused(path, victim.name, full=False)
    with pytest.raises(JournalDamagedError, match=r"journal-2026-11-02\.db"):
        Journal.open(path).close()  # the daemon does not start


def test_a_flipped_bit_in_an_archive_is_refused_when_read_and_by_verify(tmp_path: Path) -> None:
    path, _ = archived(tmp_path)
    victim = files(path)[0]
    os.chmod(victim, 0o644)
    data = bytearray(victim.read_bytes())
    data[len(data) - 700] ^= 0x10
    victim.write_bytes(bytes(data))
    assert "altered" in _refused(path, victim.name)
    assert "altered" in _refused(path, victim.name, full=False)  # reading a hand in it


def test_a_truncated_archive_is_refused_at_open(tmp_path: Path) -> None:
    path, _ = archived(tmp_path)
    victim = files(path)[2]
    os.chmod(victim, 0o644)
    with open(victim, "r+b") as f:
        f.truncate(victim.stat().st_size - 4096)
    assert "truncated" in _refused(path, victim.name, full=False)


def test_two_swapped_archives_are_refused_at_open(tmp_path: Path) -> None:
    path, _ = archived(tmp_path)
    a, b = files(path)[1:3]
    tmp = a.with_name("x")
    a.rename(tmp)
    b.rename(a)
    tmp.rename(b)
    assert a.stat().st_size == b.stat().st_size  # same size: the seal tells them apart
    assert "swapped" in _refused(path, a.name, full=False)


def _forge(victim: Path, *, keep_header: bool) -> None:
    """Rewrite an archive with one entry changed and every hash after it recomputed."""
    conn = sqlite3.connect(f"file:{victim}?mode=ro", uri=True)
    schema = int(conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()[0])
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    raw = conn.execute("SELECT * FROM entries ORDER BY seq").fetchall()
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    app = conn.execute("PRAGMA application_id").fetchone()[0]
    conn.close()
    rows = list(layout_rows(schema, raw, lambda _s: meta["prev_hash"]))
    forged = []
    prev = meta["prev_hash"]
    for i, (seq, kind, wall, mono, hand, payload, _p, _h) in enumerate(rows):
        if i == 3:
            payload = payload.replace("card", "CARD")
        digest = entry_hash(prev, seq, kind, wall, mono, hand, payload)
        forged.append((seq, kind, wall, mono, hand, payload, prev, digest))
        prev = digest
    os.chmod(victim, 0o644)
    victim.unlink()
    write_file(victim, schema, forged, day=meta["day"], journal=meta["archive_of"])
    if keep_header:  # a forger who also puts the recorded seal back in the header
        os.chmod(victim, 0o644)
        c = sqlite3.connect(victim)
        c.execute(f"PRAGMA user_version = {version}")
        c.execute(f"PRAGMA application_id = {app}")
        c.close()


def test_a_rehashed_forgery_is_refused(tmp_path: Path) -> None:
    path, _ = archived(tmp_path)
    victim = files(path)[1]
    original = tmp_path / "original.db"
    shutil.copy2(victim, original)
    _forge(victim, keep_header=False)
    _refused(path, victim.name, full=False)
    os.chmod(victim, 0o644)
    shutil.copy2(original, victim)
    _forge(victim, keep_header=True)
    assert victim.stat().st_size == next(
        r.size for r in Journal.open(path, readonly=True).archives if r.file == victim.name)
    assert "altered" in _refused(path, victim.name)
    assert "altered" in _refused(path, victim.name, full=False)


def test_a_live_journal_rolled_back_past_an_archive_entry_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    build(path, 3)
    old = tmp_path / "old"
    old.mkdir()
    for f in (path, Path(f"{path}.anchor")):
        shutil.copy2(f, old / f.name)
    with Journal.open(path) as j:
        j.archive(j.cuts_before(DAY0 + datetime.timedelta(days=2), AT), at=AT,
                  wall_time=1.0, mono_time=1e6)
    # the database put back alone: its anchor says it is rolled back
    shutil.copy2(old / path.name, path)
    with pytest.raises(JournalDamagedError, match=r"rolled back|not recorded"):
        Journal.open(path).close()
    # database and anchor put back: the archives it does not record give it away
    shutil.copy2(old / f"{path.name}.anchor", f"{path}.anchor")
    msg = _refused(path, "journal-2026-11-01.db", full=False)
    assert "not recorded" in msg


def test_an_archive_from_another_journal_is_refused(tmp_path: Path) -> None:
    path, _ = archived(tmp_path)
    other = tmp_path / "o" / "journal.db"
    with Journal.open(other) as j:  # another table's journal
        j.append(EntryKind.START, {"text": "another table"}, wall_time=day_time(DAY0, 0),
                 mono_time=0.0)
        play_day(j, DAY0, 5)
        play_day(j, DAY0 + datetime.timedelta(days=1), 5)
        j.archive(j.cuts_before(DAY0 + datetime.timedelta(days=1), AT), at=AT, wall_time=1.0,
                  mono_time=1.0)
    victim = files(path)[0]
    os.chmod(victim, 0o644)
    shutil.copy2(files(other)[0], victim)
    _refused(path, victim.name, full=False)


# -- crash safety ----------------------------------------------------------------------------

KILLER = r"""
import datetime, os, sys
from table_controller.journal import Journal
sys.path.insert(0, sys.argv[3])
from archives import AT, DAY0

def step(name):
    if name == sys.argv[2]:
        os._exit(9)  # as a kill -9 would: no close, no cleanup

with Journal.open(sys.argv[1]) as j:
    cuts = j.cuts_before(DAY0 + datetime.timedelta(days=2), AT)
    j.archive(cuts, at=AT, wall_time=1.0, mono_time=1e6, step=step)
"""


@pytest.mark.parametrize("at", [*STEPS, "torn"])
def test_a_kill_at_any_step_leaves_the_old_or_the_new_state(tmp_path: Path, at: str) -> None:
    path = tmp_path / "journal.db"
    build(path, 3)
    before = snapshot(path)
    if at == "torn":  # killed while writing the file: a partial .pending file
        (tmp_path / "journal-2026-11-01.db.pending").write_bytes(b"SQLite format 3\0" + b"x" * 99)
    else:
        here = Path(__file__).parent
        done = subprocess.run([sys.executable, "-c", KILLER, str(path), at, str(here)],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 9, done.stderr
    # a reader beside it sees a verified journal, old or new, every entry kept
    after = snapshot(path)
    assert after[:len(before)] == before
    with Journal.open(path, readonly=True) as j:
        state = "new" if j.archives else "old"
    assert state == ("old" if at in ("torn", "written") else "new")
    # the writer's next open completes (or undoes) the archiving
    Journal.open(path).close()
    names = sorted(p.name for p in archive_files(path))
    assert names == ([] if state == "old" else ["journal-2026-11-01.db"])
    assert snapshot(path)[:len(before)] == before
    with Journal.open(path) as j:  # and archiving again works from there
        j.archive(j.cuts_before(DAY0 + datetime.timedelta(days=3), AT), at=AT,
                  wall_time=2.0, mono_time=2e6)
        assert [r.file for r in j.archives] == ["journal-2026-11-01.db",
                                                "journal-2026-11-02.db",
                                                "journal-2026-11-03.db"]
    assert snapshot(path)[:len(before)] == before


# -- gaming days and the daemon's own archiving ------------------------------------------------

def test_gaming_days_start_at_the_configured_hour() -> None:
    at = parse_hour("06:00")
    assert gaming_day(day_time(DAY0, 23.99), at) == DAY0
    assert gaming_day(day_time(DAY0, 24.0), at) == DAY0 + datetime.timedelta(days=1)
    for bad in ("6:00", "25:00x", "noon"):
        with pytest.raises(ValueError):
            parse_hour(bad)


class SteppedWall:
    """A wall clock the test steps."""

    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def test_the_daemon_archives_once_a_gaming_day_ended_between_hands_only(tmp_path: Path) -> None:
    from table_controller.daemon.journaling import Journaler

    path = tmp_path / "journal.db"
    wall = SteppedWall(day_time(DAY0, 1))
    with Journal.open(path) as j:
        jr = Journaler(j, checkpoint=lambda: {"state": 1}, archive_at=AT, wall=wall)
        play_day(j, DAY0, 4)
        wall.t = day_time(DAY0, 23.9)
        assert jr.between_hands(1.0) == []  # the day has not ended
        # the day ends during a hand: nothing is archived until it is over
        j.append(EntryKind.HAND_START, {}, wall_time=wall.t, mono_time=2.0)
        wall.t = day_time(DAY0, 24.5)
        assert jr.between_hands(3.0) == []
        j.append(EntryKind.HAND_END, {}, wall_time=wall.t, mono_time=4.0)
        done = jr.between_hands(5.0)
        assert [r.file for r in done] == ["journal-2026-11-01.db"]  # the day that ended
        assert done[0].hands == (1, 5)
        assert j.get(done[0].last + 1).kind is EntryKind.CHECKPOINT
        assert jr.between_hands(6.0) == []  # once a day
        wall.t = day_time(DAY0, 30)
        play_day(j, DAY0 + datetime.timedelta(days=1), 2, start_hour=7)
        assert jr.between_hands(7.0) == []
        wall.t = day_time(DAY0, 48.1)
        done = jr.between_hands(8.0)
        assert [(r.file, r.hands) for r in done] == [("journal-2026-11-02.db", (6, 7))]
        assert len(j.archives) == 2
    assert Journal.open(path, readonly=True, full=True).last_hand == 7


def test_archive_at_is_read_from_the_configuration() -> None:
    import tomllib

    from table_controller.config import parse_config
    from table_controller.errors import ConfigError

    example = Path(__file__).resolve().parents[2] / "examples" / "table.toml"
    data = tomllib.loads(example.read_text())
    assert parse_config(data, base_dir=Path("/b")).journal.archive_at == datetime.time(6, 0)
    data["journal"]["archive_at"] = "off"
    assert parse_config(data, base_dir=Path("/b")).journal.archive_at is None
    del data["journal"]["archive_at"]
    assert parse_config(data, base_dir=Path("/b")).journal.archive_at is None
    for bad in ("5.30", 6):
        data["journal"]["archive_at"] = bad
        with pytest.raises(ConfigError, match=r"journal\.archive_at"):
            parse_config(data, base_dir=Path("/b"))


def test_an_archive_record_reads_back(tmp_path: Path) -> None:
    rec = ArchiveRecord("j-2026-11-01.db", "2026-11-01", 1, 9, (1, 2), "0" * 64, "a" * 64,
                        "b" * 64, 4096)
    assert ArchiveRecord.from_json(rec.to_json(), "x") == rec
    for broken in ({}, {**rec.to_json(), "file": "../x"}, {**rec.to_json(), "last": 0}):
        with pytest.raises(JournalDamagedError):
            ArchiveRecord.from_json(broken, "x")
    p = tmp_path / "f"
    p.write_bytes(b"abc")
    assert sha256_of(p) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_the_floor_recall_page_reads_an_archived_hand(tmp_path: Path) -> None:
    from table_controller.floorweb.app import read_recall

    path, _ = archived(tmp_path)
    assert "Hand 2 - started" in read_recall(path, "2")
    assert "Hand 20 - started" in read_recall(path, "")
    victim = files(path)[0]
    os.chmod(victim, 0o644)
    data = bytearray(victim.read_bytes())
    data[len(data) - 700] ^= 0x10
    victim.write_bytes(bytes(data))
    assert "recall failed" in read_recall(path, "2") and victim.name in read_recall(path, "2")


def test_a_reader_opened_before_the_archiving_reads_on_across_it(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    build(path, 3)
    before = snapshot(path)
    with Journal.open(path, readonly=True) as reader:  # a shipper beside the daemon
        assert [(e.seq, e.hash) for e in reader.entries(until=10)] == before[:10]
        with Journal.open(path) as j:
            j.archive(j.cuts_before(DAY0 + datetime.timedelta(days=2), AT), at=AT,
                      wall_time=1.0, mono_time=1e6)
            play_day(j, DAY0 + datetime.timedelta(days=2), 1, start_hour=12)
            last = j.last_seq
        got = [(e.seq, e.hash) for e in reader.entries(since=10)]
        assert got[:len(before) - 10] == before[10:]
        assert got[-1][0] == last and len(reader.archives) == 2
        assert reader.hand_entries(1).hand == 1


def test_damage_in_the_live_file_of_an_archived_journal_can_be_accepted(tmp_path: Path) -> None:
    from table_controller.journal.repair import accept_damage

    path, before = archived(tmp_path)
    with Journal.open(path) as j:
        floor = j.archives[-1].last
        play_day(j, DAY0 + datetime.timedelta(days=DAYS - 1), 2, start_hour=12)
        head = j.last_seq
    conn = sqlite3.connect(path)  # the live file's tail cut, its head rewritten
    conn.execute("DELETE FROM entries WHERE seq > ?", (head - 5,))
    conn.execute("UPDATE meta SET value = ? WHERE key = 'head_seq'", (str(head - 5),))
    conn.commit()
    conn.close()
    with pytest.raises(JournalDamagedError, match="truncated"):
        Journal.open(path).close()
    done = accept_damage(path, reason="test", operator="tester", wall_time=1.0, mono_time=1e7)
    assert done.kept == head - 5 and done.lost_to == head  # (what its anchor recorded)
    with Journal.open(path, full=True) as j:
        assert j.archives[-1].last == floor
        assert [(e.seq, e.hash) for e in j.entries(until=floor)] == before[:floor]
        assert j.last_of(EntryKind.OPERATOR) is not None
    # a cut that takes the archive entries too cannot be accepted: the backup is put back
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM entries WHERE seq > ?", (floor + 2,))
    conn.commit()
    conn.close()
    with pytest.raises(JournalError, match="took its archive entry"):
        accept_damage(path, reason="test", operator="tester", wall_time=1.0, mono_time=1e8)


def test_damage_in_an_archive_is_not_accepted_but_put_back(tmp_path: Path) -> None:
    from table_controller.journal.repair import accept_damage

    path, _ = archived(tmp_path)
    victim = files(path)[0]
    saved = victim.read_bytes()
    victim.unlink()
    with pytest.raises(JournalError, match="from the backup"):
        accept_damage(path, reason="test", operator="tester", wall_time=1.0, mono_time=1.0)
    victim.write_bytes(saved)  # put back from the backup: it verifies again
    assert Journal.open(path, readonly=True, full=True).last_hand == 20


def test_many_archives_read_with_few_files_open(tmp_path: Path) -> None:
    from table_controller.journal.reads import OPEN_ARCHIVES

    path = tmp_path / "journal.db"
    build(path, OPEN_ARCHIVES + 4, hands=3)
    before = snapshot(path)
    with Journal.open(path) as j:
        j.archive(j.cuts_before(DAY0 + datetime.timedelta(days=OPEN_ARCHIVES + 3), AT),
                  at=AT, wall_time=1.0, mono_time=1e6)
        assert len(j.archives) == OPEN_ARCHIVES + 3
    with Journal.open(path, readonly=True) as j:
        for h in range(1, j.last_hand + 1):
            assert j.hand_entries(h).complete
        assert [(e.seq, e.hash) for e in j.entries()][:len(before)] == before
        assert len(os.listdir(f"/proc/{os.getpid()}/fd")) < 200
    assert snapshot(path)[:len(before)] == before


def test_journal_verify_names_a_damaged_archive_with_exit_status_4(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from table_controller.cli import main

    path, _ = archived(tmp_path)
    victim = files(path)[1]
    os.chmod(victim, 0o644)
    data = bytearray(victim.read_bytes())
    data[len(data) - 900] ^= 0x01
    victim.write_bytes(bytes(data))
    assert main(["journal", "verify", "--journal", str(path)]) == 4
    err = capsys.readouterr().err.strip()
    assert victim.name in err and "altered" in err and "\n" not in err
    assert main(["recall", "--journal", str(path), "--hands", "3"]) == 0  # the live file: fine
    capsys.readouterr()
    assert main(["recall", "--journal", str(path), "--hand", "5"]) == 1  # in that archive
    assert victim.name in capsys.readouterr().err
