from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TypedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.errors import JournalError
from table_controller.journal import GENESIS_HASH, EntryKind, Journal, thaw
from table_controller.journal.compact import deflate


class _T(TypedDict):
    wall_time: float
    mono_time: float


def _t(i: int) -> _T:
    return {"wall_time": 1_700_000_000.0 + i, "mono_time": 100.0 + i}


def _hand(j: Journal, n_events: int = 3, start: int = 0) -> None:
    j.append(EntryKind.HAND_START, {"text": "hand starts", "button": 1}, **_t(start))
    for i in range(n_events):
        j.append(EntryKind.DEVICE_EVENT, {"text": f"card {i}", "i": i}, **_t(start + i + 1))
    j.append(EntryKind.HAND_END, {"text": "hand over"}, **_t(start + n_events + 1))


def test_append_and_reopen(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "journal.db"
    with Journal.open(path) as j:
        assert j.last_seq == 0 and j.head_hash == GENESIS_HASH
        e1 = j.append(EntryKind.DEVICE_EVENT, {"a": [1, 2], "b": {"c": None}}, **_t(1))
        e2 = j.append("decision", {"x": "y"}, **_t(2))
        assert (e1.seq, e2.seq) == (1, 2)
        assert e2.prev_hash == e1.hash
        assert e1.hand is None
        assert thaw(e1.payload) == {"a": [1, 2], "b": {"c": None}}
        with pytest.raises(TypeError):
            e1.payload["a"] = 3  # type: ignore[index]
    with Journal.open(path) as j:
        assert j.last_seq == 2
        got = list(j.entries())
        assert got == [e1, e2]
        assert list(j.entries(since=1)) == [e2]
        assert j.get(2) == e2
        e3 = j.append(EntryKind.HOLD, {"reason": "x"}, **_t(3))
        assert e3.seq == 3 and e3.prev_hash == e2.hash


def test_wal_and_full_sync(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    Journal.open(path).close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    j = Journal.open(path)
    assert j._conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    j.close()


def test_bad_input_changes_nothing(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.db") as j:
        j.append(EntryKind.DECISION, {"ok": 1}, **_t(0))
        head = j.head_hash
        with pytest.raises(JournalError, match="unknown entry kind"):
            j.append("bogus", {}, **_t(1))
        with pytest.raises(JournalError, match="not plain JSON"):
            j.append(EntryKind.DECISION, {"x": object()}, **_t(1))
        with pytest.raises(JournalError, match="not plain JSON"):
            j.append(EntryKind.DECISION, {"x": float("nan")}, **_t(1))
        with pytest.raises(JournalError, match="wall_time"):
            j.append(EntryKind.DECISION, {}, wall_time=float("inf"), mono_time=0.0)
        with pytest.raises(JournalError, match="no hand open"):
            j.append(EntryKind.HAND_END, {}, **_t(1))
        assert j.last_seq == 1 and j.head_hash == head
        assert j.verify() == 1


def test_hands(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with Journal.open(path) as j:
        j.append(EntryKind.DEALER_COMMAND, {"seat": 1}, **_t(0))
        for h in range(12):
            _hand(j, n_events=h % 3, start=h * 10)
        j.append(EntryKind.HAND_START, {}, **_t(500))
        j.append(EntryKind.DEVICE_EVENT, {"in": "progress"}, **_t(501))
        with pytest.raises(JournalError, match="hand 13 is open"):
            j.append(EntryKind.HAND_START, {}, **_t(502))
        assert j.current_hand == 13
    with Journal.open(path) as j:
        assert j.current_hand == 13 and j.last_hand == 13
        hands = j.recent_hands()
        assert [h.hand for h in hands] == list(range(4, 14))
        assert all(h.complete for h in hands[:-1]) and not hands[-1].complete
        assert hands[-1].entries[-1].payload["in"] == "progress"
        h5 = j.hand_entries(5)
        assert h5.entries[0].kind is EntryKind.HAND_START
        assert h5.entries[-1].kind is EntryKind.HAND_END
        assert len(h5.entries) == 2 + (4 % 3)
        assert [h.hand for h in j.recent_hands(2)] == [12, 13]
        with pytest.raises(JournalError, match="no hand 99"):
            j.hand_entries(99)
        j.append(EntryKind.HAND_END, {"void": True}, **_t(503))
        assert j.current_hand is None


def test_command_replies(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with Journal.open(path) as j:
        assert j.reply_for("c1", 1) is None
        reply = {"accepted": True, "reason": "", "data": {"n": 1}}
        e = j.append_command("c1", 1, {"command": "fold", "seat": 3}, reply, **_t(0))
        assert e.kind is EntryKind.DEALER_COMMAND
        assert e.payload["console"] == "c1" and e.payload["seq"] == 1
        assert j.reply_for("c1", 1) == reply
        assert j.reply_for("c2", 1) is None
        with pytest.raises(JournalError, match="already stored"):
            j.append_command("c1", 1, {"command": "fold"}, reply, **_t(1))
        assert j.last_seq == 1  # the refused duplicate wrote nothing
        with pytest.raises(JournalError, match="console id"):
            j.append_command("", 2, {}, reply, **_t(1))
    with Journal.open(path) as j:
        assert j.reply_for("c1", 1) == reply
        assert j.last_command_seq("c1") == 1
        assert j.last_command_seq("zz") is None


def _tamper(path: Path, sql: str, params: tuple[object, ...] = ()) -> None:
    conn = sqlite3.connect(path)
    conn.execute(sql, params)
    conn.commit()
    conn.close()


@pytest.fixture
def filled(tmp_path: Path) -> Path:
    path = tmp_path / "j.db"
    with Journal.open(path) as j:
        for i in range(10):
            j.append(EntryKind.DEVICE_EVENT, {"i": i}, **_t(i))
    return path


def test_tamper_payload(filled: Path) -> None:
    # a well-formed payload (compressed as the schema stores it) with other content
    _tamper(filled, "UPDATE entries SET payload = ? WHERE seq = 4", (deflate('{"i":99}'),))
    with pytest.raises(JournalError, match="first bad sequence number 4"):
        Journal.open(filled)


def test_tamper_time(filled: Path) -> None:
    _tamper(filled, "UPDATE entries SET wall_time = wall_time + 1 WHERE seq = 7")
    with pytest.raises(JournalError, match="first bad sequence number 7"):
        Journal.open(filled)


def test_delete_middle(filled: Path) -> None:
    _tamper(filled, "DELETE FROM entries WHERE seq = 5")
    with pytest.raises(JournalError, match="first bad sequence number 5"):
        Journal.open(filled)


def test_truncate_tail(filled: Path) -> None:
    _tamper(filled, "DELETE FROM entries WHERE seq >= 8")
    with pytest.raises(JournalError, match=r"first bad sequence number 8.*truncated"):
        Journal.open(filled)


def test_rehash_without_head_detected(filled: Path) -> None:
    # rewrite the last entry consistently with its own hash: the head still catches it
    _tamper(filled, "UPDATE entries SET hash = ? WHERE seq = 10", ("f" * 64,))
    with pytest.raises(JournalError, match="first bad sequence number 10"):
        Journal.open(filled)


def test_not_a_journal(tmp_path: Path) -> None:
    p = tmp_path / "junk.db"
    p.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(JournalError, match=r"junk\.db"):
        Journal.open(p)


def test_readonly(filled: Path, tmp_path: Path) -> None:
    with Journal.open(filled, readonly=True) as j:
        assert j.last_seq == 10
        with pytest.raises(JournalError, match="read-only"):
            j.append(EntryKind.DECISION, {}, **_t(0))
    with pytest.raises(JournalError, match="no journal"):
        Journal.open(tmp_path / "missing.db", readonly=True)


def test_closed(filled: Path) -> None:
    j = Journal.open(filled)
    j.close()
    j.close()
    with pytest.raises(JournalError, match="closed"):
        j.append(EntryKind.DECISION, {}, **_t(0))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c, max_size=3),
    max_leaves=8,
)


@settings(max_examples=30, deadline=None)
@given(payloads=st.lists(st.dictionaries(st.text(max_size=5), json_values, max_size=4),
                         min_size=1, max_size=5))
def test_payload_roundtrip(tmp_path_factory: pytest.TempPathFactory,
                           payloads: list[dict[str, object]]) -> None:
    path = tmp_path_factory.mktemp("rt") / "j.db"
    with Journal.open(path) as j:
        written = [j.append(EntryKind.DECISION, p, **_t(i)) for i, p in enumerate(payloads)]
    with Journal.open(path) as j:
        read = list(j.entries())
    assert read == written
    assert [thaw(e.payload) for e in read] == payloads


def test_entries_in_batches(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.db") as j:
        j._conn.execute("PRAGMA synchronous=OFF")  # speed only; durability is tested elsewhere
        for i in range(2100):
            j.append(EntryKind.DEVICE_EVENT, {"i": i}, **_t(i))
        seqs = [e.seq for e in j.entries()]
        assert seqs == list(range(1, 2101))
        assert [e.seq for e in j.entries(since=999, until=1002)] == [1000, 1001, 1002]
        it = j.entries(since=2099)
        assert next(it).seq == 2100
        j.append(EntryKind.DECISION, {}, **_t(0))  # appended while iterating: included
        assert [e.seq for e in it] == [2101]


def test_single_writer(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    j = Journal.open(path)
    with pytest.raises(JournalError, match="in use by another writer"):
        Journal.open(path)
    with Journal.open(path, readonly=True) as r:  # readers are fine
        assert r.last_seq == 0
    j.close()
    Journal.open(path).close()  # the lock is released on close


def test_frozen_payload_can_be_journaled_again(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.db") as j:
        e = j.append(EntryKind.DECISION, {"a": {"b": [1, 2]}, "t": (3, 4)}, **_t(0))
        again = j.append(EntryKind.DECISION, e.payload, **_t(1))
        assert thaw(again.payload) == {"a": {"b": [1, 2]}, "t": [3, 4]}


def test_a_full_disk_is_called_a_full_disk(tmp_path: Path) -> None:
    from table_controller.errors import JournalError

    with Journal.open(tmp_path / "j.db") as journal:
        # SQLite's page limit stands for the disk: it fails as a full disk does (SQLITE_FULL)
        pages = journal._conn.execute("PRAGMA page_count").fetchone()[0]
        journal._conn.execute(f"PRAGMA max_page_count = {pages + 2}")
        with pytest.raises(JournalError) as info:
            for i in range(200):
                journal.append("decision", {"text": "x" * 4000, "n": i}, wall_time=1.0,
                               mono_time=float(i))
        assert "the disk is full" in str(info.value)
        assert "rollback" not in str(info.value)


def _wal_frames(path: Path) -> int:
    """The frames in the WAL of ``path`` (read by a checkpoint of a second connection)."""
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1])
    finally:
        conn.close()


def test_checkpoint_wal_starts_the_wal_over_and_keeps_every_entry(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with Journal.open(path) as j:
        _hand(j, 40)
        heads = (j.last_seq, j.head_hash)
        assert j.checkpoint_wal()
        assert (j.last_seq, j.head_hash) == heads  # outside the chain
        assert _wal_frames(path) <= 2  # the WAL holds the one commit that started it over
        assert j.checkpoint_wal()
        _hand(j, 1, start=50)
        frames = _wal_frames(path)
    assert 0 < frames <= 2 * 3 + 2  # the hand's three commits, after that one: not restarted
    with Journal.open(path, full=True) as j:  # verifies the chain, the head and the anchor
        assert j.last_seq == 45 and j.current_hand is None
        assert [e.kind for e in j.entries()][-3:] == [
            EntryKind.HAND_START, EntryKind.DEVICE_EVENT, EntryKind.HAND_END]
    with Journal.open(path, readonly=True) as j:
        assert not j.checkpoint_wal()
    j.close()
    with pytest.raises(JournalError):
        j.append(EntryKind.DEVICE_EVENT, {"text": "x"}, **_t(99))
    assert not j.checkpoint_wal()  # closed: nothing to do
