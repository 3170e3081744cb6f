"""Damage a journal as an attacker or a clumsy operator would: every damage refused or harmless.

Outcomes (:class:`~tests.journal.damage.Outcome`): refused at open, or harmless (opens, every
entry, reply and hand exactly as before); never accepted silently, never a crash.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from table_controller.errors import JournalDamagedError, JournalError
from table_controller.journal import Journal
from table_controller.journal.anchor import Head, read_anchor
from table_controller.journal.compact import deflate
from tests.journal.damage import (
    Outcome,
    copy_journal,
    fill,
    flip,
    judge,
    reference,
    stored_json,
    write_in_child,
)

PAGE = 4096


def _closed(factory: pytest.TempPathFactory, schema: int) -> Path:
    path = factory.mktemp(f"closed{schema}") / "j.db"
    with Journal.open(path, schema=schema) as j:
        assert j.schema == schema
        fill(j, 40)
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0
    # schema 2 compresses the payloads (the padding above most of all)
    assert (100 if schema == 1 else 64) * 1024 < path.stat().st_size < 1024 * 1024
    return path


@pytest.fixture(scope="module")
def closed_of(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """Cleanly closed journals of a few hundred KB, by schema (the WAL checkpointed in)."""
    return {schema: _closed(tmp_path_factory, schema) for schema in (1, 2)}


@pytest.fixture(scope="module", params=[2, 1], ids=["schema2", "schema1"])
def closed(closed_of: dict[int, Path], request: pytest.FixtureRequest) -> Path:
    """A cleanly closed journal of each schema."""
    return closed_of[request.param]


@pytest.fixture(scope="module", params=[2, 1], ids=["schema2", "schema1"])
def crashed(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Path:
    """A journal whose writer died without closing: its last hands are in the WAL only."""
    path = tmp_path_factory.mktemp("crashed") / "j.db"
    with Journal.open(path, schema=request.param) as j:
        fill(j, 5)
    write_in_child(path, 6)
    assert Path(f"{path}-wal").stat().st_size > 10 * PAGE
    return path


def test_crashed_journal_is_intact(crashed: Path, tmp_path: Path) -> None:
    ref = reference(copy_journal(crashed, tmp_path / "ref"))
    assert judge(copy_journal(crashed, tmp_path / "c"), ref) == (Outcome.HARMLESS, "")
    assert len(ref.hands) == 11


def test_deleted_wal_is_refused(crashed: Path, tmp_path: Path) -> None:
    ref = reference(copy_journal(crashed, tmp_path / "ref"))
    copy = copy_journal(crashed, tmp_path / "c")
    os.unlink(f"{copy}-wal")
    os.unlink(f"{copy}-shm")
    outcome, why = judge(copy, ref)
    assert outcome is Outcome.REFUSED
    assert "rolled back" in why and str(copy) in why


@pytest.mark.parametrize("keep", [0.0, 0.25, 0.5, 0.9, 0.999])
def test_cut_wal_is_refused(crashed: Path, tmp_path: Path, keep: float) -> None:
    ref = reference(copy_journal(crashed, tmp_path / "ref"))
    copy = copy_journal(crashed, tmp_path / "c")
    wal = Path(f"{copy}-wal")
    os.truncate(wal, int(wal.stat().st_size * keep))
    outcome, why = judge(copy, ref)
    assert outcome is Outcome.REFUSED, why
    assert "rolled back" in why


def test_one_bit_in_every_wal_frame(crashed: Path, tmp_path: Path) -> None:
    ref = reference(copy_journal(crashed, tmp_path / "ref"))
    size = Path(f"{crashed}-wal").stat().st_size
    outcomes: Counter[Outcome] = Counter()
    frame = 24 + PAGE
    for n, offset in enumerate(range(0, size, frame)):
        # the WAL header, then a byte inside each frame (its header or its page)
        copy = copy_journal(crashed, tmp_path / f"f{n}")
        flip(copy.with_name(copy.name + "-wal"), offset + (n * 997) % min(frame, size - offset),
             n % 8)
        outcome, why = judge(copy, ref)
        outcomes[outcome] += 1
        assert outcome in (Outcome.REFUSED, Outcome.HARMLESS), (offset, outcome, why)
        shutil.rmtree(copy.parent)
    assert outcomes[Outcome.REFUSED] > 0


@pytest.mark.parametrize("where", [17, 1000, 2222, 3591, 4001])
def test_one_bit_in_every_page(closed: Path, tmp_path: Path, where: int) -> None:
    """Every page of the file in turn, at a few places in the page: refused or harmless."""
    ref = reference(closed)
    pages = closed.stat().st_size // PAGE
    outcomes: Counter[Outcome] = Counter()
    bad: list[str] = []
    for page in range(pages):
        copy = copy_journal(closed, tmp_path / f"p{page}")
        flip(copy, page * PAGE + where, page % 8)
        outcome, why = judge(copy, ref)
        outcomes[outcome] += 1
        if outcome not in (Outcome.REFUSED, Outcome.HARMLESS):
            bad.append(f"page {page}: {outcome.value}: {why}")
        shutil.rmtree(copy.parent)
    assert not bad, "\n".join(bad)
    assert outcomes[Outcome.REFUSED] > pages // 2


def test_cut_tail_and_rewritten_head_is_refused(closed: Path, tmp_path: Path) -> None:
    ref = reference(closed)
    copy = copy_journal(closed, tmp_path / "c")
    conn = sqlite3.connect(copy)
    seq, digest = conn.execute("SELECT seq, hash FROM entries WHERE seq = 300").fetchone()
    digest = digest.hex() if isinstance(digest, bytes) else digest
    conn.execute("DELETE FROM entries WHERE seq > 300")
    conn.execute("UPDATE meta SET value = ? WHERE key = 'head_seq'", (str(seq),))
    conn.execute("UPDATE meta SET value = ? WHERE key = 'head_hash'", (digest,))
    conn.commit()
    conn.close()
    for readonly in (False, True):
        outcome, why = judge(copy, ref, readonly=readonly)
        assert outcome is Outcome.REFUSED
        assert f"it ends at entry 300, its anchor records entry {len(ref.hashes)}" in why


def test_anchor_deleted_damaged_or_old(closed: Path, tmp_path: Path) -> None:
    ref = reference(closed)
    copy = copy_journal(closed, tmp_path / "gone")
    os.unlink(f"{copy}.anchor")
    outcome, why = judge(copy, ref)
    assert outcome is Outcome.REFUSED and "anchor" in why and "missing" in why
    copy = copy_journal(closed, tmp_path / "junk")
    Path(f"{copy}.anchor").write_bytes(b"\0" * 256)
    assert judge(copy, ref)[0] is Outcome.REFUSED
    # an old copy of journal and anchor put back beside a newer anchor: rolled back
    old = tmp_path / "old" / "j.db"
    with Journal.open(old) as j:
        fill(j, 3)
    newer = copy_journal(old, tmp_path / "newer")
    with Journal.open(newer) as j:
        fill(j, 1, start=3)
    shutil.copy2(old, newer)
    with pytest.raises(JournalDamagedError, match="rolled back"):
        Journal.open(newer)
    # another journal's anchor
    other = copy_journal(closed, tmp_path / "other")
    shutil.copy2(f"{newer}.anchor", f"{other}.anchor")
    with pytest.raises(JournalDamagedError, match="does not match its anchor"):
        Journal.open(other)


def test_journal_file_deleted_is_refused(closed: Path, tmp_path: Path) -> None:
    copy = copy_journal(closed, tmp_path / "c")
    os.unlink(copy)
    with pytest.raises(JournalDamagedError, match="is missing"):
        Journal.open(copy)


def test_a_power_cut_before_the_anchor_is_accepted(tmp_path: Path) -> None:
    """Committed, then the power went before the anchor was written: one entry ahead is fine."""
    path = tmp_path / "j.db"
    with Journal.open(path) as j:
        fill(j, 2)
        n = j.last_seq
    anchor = Path(f"{path}.anchor").read_bytes()
    with Journal.open(path) as j:
        j.append("decision", {"text": "one more"}, wall_time=1.0, mono_time=1.0)
    Path(f"{path}.anchor").write_bytes(anchor)
    with Journal.open(path) as j:
        assert j.last_seq == n + 1
    # the anchor is written again at open: now two entries past the old one are refused
    with Journal.open(path) as j:
        j.append("decision", {"text": "and another"}, wall_time=1.0, mono_time=1.0)
    Path(f"{path}.anchor").write_bytes(anchor)
    with pytest.raises(JournalDamagedError, match=f"entries {n + 2}..{n + 2} past its anchor"):
        Journal.open(path)
    with Journal.open(path, readonly=True) as j:  # beside a daemon: not judged
        assert j.last_seq == n + 2


def test_a_crash_before_a_deferred_anchor_is_accepted(tmp_path: Path) -> None:
    """``append(anchor=False)``: a crash before the anchor is written leaves it one behind.

    The crash images are copies taken while the writer is open (the journal committed, the
    anchor deferred); the next append anchors the entry before it first, so the anchor is never
    two behind, and an anchor two behind (put back) is still refused.
    """
    path = tmp_path / "j.db"
    with Journal.open(path) as j:
        fill(j, 1)
        n = j.last_seq
        j.append("decision", {"text": "deferred"}, wall_time=1.0, mono_time=1.0, anchor=False)
        assert read_anchor(path) == Head(n, j.get(n).hash)
        crash = copy_journal(path, tmp_path / "crash1")  # committed, anchor not yet written
        old = Path(f"{crash}.anchor").read_bytes()
        j.append("decision", {"text": "deferred too"}, wall_time=1.0, mono_time=1.0,
                 anchor=False)
        anchored = read_anchor(path)  # the entry before is anchored before the next commit
        assert anchored is not None and anchored.seq == n + 1
        crash2 = copy_journal(path, tmp_path / "crash2")
        j.sync_anchor()
        anchored = read_anchor(path)
        assert anchored is not None and anchored.seq == n + 2
        j.append("decision", {"text": "deferred at the close"}, wall_time=1.0, mono_time=1.0,
                 anchor=False)
    anchored = read_anchor(path)  # the close writes it
    assert anchored is not None and anchored.seq == n + 3
    for image, last in ((crash, n + 1), (crash2, n + 2)):
        with Journal.open(image) as j:  # one entry ahead of its anchor: a crash, accepted
            assert j.last_seq == last
            j.verify()
    # two ahead is refused: the first crash image's anchor put back after one more append
    with Journal.open(crash) as j:
        j.append("decision", {"text": "one more"}, wall_time=1.0, mono_time=1.0, anchor=False)
    Path(f"{crash}.anchor").write_bytes(old)
    with pytest.raises(JournalDamagedError, match=f"entries {n + 2}..{n + 2} past its anchor"):
        Journal.open(crash)


def test_accept_damage_of_a_lost_wal(crashed: Path, tmp_path: Path) -> None:
    from table_controller.journal import EntryKind
    from table_controller.journal.repair import accept_damage

    ref = reference(copy_journal(crashed, tmp_path / "ref"))
    copy = copy_journal(crashed, tmp_path / "c")
    os.unlink(f"{copy}-wal")
    done = accept_damage(copy, reason="WAL lost in a disk swap", operator="floor supervisor",
                         wall_time=2e9, mono_time=5.0)
    assert done.lost_to == len(ref.hashes) and "rolled back" in done.damage
    assert (done.evidence / "j.db").exists() and (done.evidence / "j.db.anchor").exists()
    with Journal.open(copy) as j:
        assert j.last_seq == done.kept + 1 == done.entry
        assert [e.hash for e in j.entries(until=done.kept)] == list(ref.hashes[:done.kept])
        op = j.get(done.entry)
        assert op.kind is EntryKind.OPERATOR
        assert op.payload["lost"] == {"from": done.kept + 1, "to": len(ref.hashes)}
        assert op.payload["reason"] == "WAL lost in a disk swap"
    with pytest.raises(JournalError, match="no damage to accept"):
        accept_damage(copy, reason="x", operator="y", wall_time=2e9, mono_time=5.0)


def test_accept_damage_of_an_altered_entry(closed: Path, tmp_path: Path) -> None:
    from table_controller.journal.repair import accept_damage

    copy = copy_journal(closed, tmp_path / "c")
    conn = sqlite3.connect(copy)
    conn.execute("UPDATE entries SET payload = ? WHERE seq = 123", (stored_json(copy, "{}"),))
    conn.commit()
    conn.close()
    done = accept_damage(copy, reason="bad sector", operator="tech", wall_time=2e9,
                         mono_time=1e9)
    assert done.kept == 122 and done.lost_from == 123 and "123" in done.damage
    with Journal.open(copy, readonly=True) as j:
        assert j.last_seq == 123


def test_a_journal_from_before_anchors_is_anchored_at_its_first_writer_open(
        tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with Journal.open(path) as j:
        fill(j, 2)
        n = j.last_seq
    os.unlink(f"{path}.anchor")
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM meta WHERE key = 'anchored'")
    conn.commit()
    conn.close()
    with Journal.open(path, readonly=True) as j:  # read-only: not judged, not changed
        assert j.last_seq == n
    assert not Path(f"{path}.anchor").exists()
    with Journal.open(path) as j:
        assert j.last_seq == n
    assert Path(f"{path}.anchor").exists()
    os.unlink(f"{path}.anchor")  # from now on, a lost anchor is damage
    with pytest.raises(JournalDamagedError, match=r"anchor .* is missing"):
        Journal.open(path)


def test_a_cut_database_file_is_refused(closed: Path, tmp_path: Path) -> None:
    ref = reference(closed)
    size = closed.stat().st_size
    for n, keep in enumerate((0, 100, PAGE, size // 3, size // 2, size - PAGE, size - 1)):
        copy = copy_journal(closed, tmp_path / f"c{n}")
        os.truncate(copy, keep)
        outcome, why = judge(copy, ref)
        assert outcome is Outcome.REFUSED, (keep, outcome, why)
        assert str(copy) in why


_EVERY_SCHEMA = [
    "UPDATE entries SET hand = hand + 1 WHERE seq = 40",
    "UPDATE entries SET hand = NULL WHERE seq = 41",
    "UPDATE entries SET mono_time = 'x' WHERE seq = 43",
    "UPDATE entries SET wall_time = wall_time + 1e-6 WHERE seq = 43",
    "UPDATE entries SET seq = 100000 WHERE seq = 46",
    "UPDATE entries SET hash = (SELECT hash FROM entries WHERE seq = 44) WHERE seq = 45",
    "UPDATE meta SET value = '9' WHERE key = 'schema'",
]
_FIELD_DAMAGE = [
    *((1, sql) for sql in _EVERY_SCHEMA),
    (1, "UPDATE entries SET kind = 'decision' WHERE seq = 42"),
    (1, "UPDATE entries SET kind = 'nonsense' WHERE seq = 42"),
    (1, "UPDATE entries SET prev_hash = hash WHERE seq = 45"),
    (1, "UPDATE entries SET payload = CAST(payload AS BLOB) WHERE seq = 44"),
    (1, "UPDATE entries SET payload = '{}' WHERE seq = 44"),
    (1, "UPDATE meta SET value = '2' WHERE key = 'schema'"),
    *((2, sql) for sql in _EVERY_SCHEMA),
    # schema 2: the kind as a code, the hash as 32 bytes, no prev_hash (the row before's hash)
    (2, "UPDATE entries SET kind = 2 WHERE seq = 42"),
    (2, "UPDATE entries SET kind = 99 WHERE seq = 42"),
    (2, "UPDATE entries SET kind = -1 WHERE seq = 42"),
    (2, "UPDATE entries SET kind = 'device_event' WHERE seq = 42"),
    (2, "UPDATE entries SET hash = lower(hex(hash)) WHERE seq = 45"),
    # the payload compressed against the schema's dictionary: as text, cut, or other JSON
    (2, "UPDATE entries SET payload = '{}' WHERE seq = 44"),
    (2, "UPDATE entries SET payload = substr(payload, 1, length(payload) - 1) WHERE seq = 44"),
    (2, "UPDATE entries SET payload = payload || x'00' WHERE seq = 44"),
    (2, "UPDATE entries SET payload = (SELECT payload FROM entries WHERE seq = 43) "
        "WHERE seq = 44"),
    (2, "UPDATE entries SET payload = deflate('{\"pad\":\"x\"}') WHERE seq = 44"),
    (2, "UPDATE entries SET hash = substr(hash, 1, 31) WHERE seq = 45"),
    (2, "UPDATE entries SET hash = zeroblob(32) WHERE seq = 45"),
    (2, "UPDATE entries SET hash = zeroblob(32) WHERE seq = (SELECT MAX(seq) FROM entries)"),
    (2, "UPDATE meta SET value = '1' WHERE key = 'schema'"),
]


@pytest.mark.parametrize(("schema", "sql"), _FIELD_DAMAGE)
def test_every_stored_field_is_covered(closed_of: dict[int, Path], tmp_path: Path,
                                       schema: int, sql: str) -> None:
    closed = closed_of[schema]
    ref = reference(closed)
    copy = copy_journal(closed, tmp_path / "c")
    conn = sqlite3.connect(copy)
    conn.create_function("deflate", 1, deflate)
    conn.execute(sql)
    conn.commit()
    conn.close()
    assert judge(copy, ref)[0] is Outcome.REFUSED


def test_the_side_tables_of_old_journals_are_never_trusted(closed_of: dict[int, Path],
                                                           tmp_path: Path) -> None:
    """``replies`` rows (what journals before the chain covered every lookup kept) and an
    ``entries_hand`` index are never read: a forged reply or index changes no answer."""
    closed = closed_of[1]
    ref = reference(closed)
    copy = copy_journal(closed, tmp_path / "c")
    conn = sqlite3.connect(copy)
    conn.execute("INSERT INTO replies VALUES ('c0', 0, 3, '{\"accepted\": false}')")
    conn.execute("INSERT INTO replies VALUES ('zz', 1, 3, '{\"accepted\": true}')")
    conn.execute("CREATE INDEX entries_hand ON entries (hand)")
    conn.commit()
    conn.close()
    assert judge(copy, ref, readonly=True) == (Outcome.HARMLESS, "")
    with Journal.open(copy, readonly=True) as j:
        assert j.reply_for("zz", 1) is None
