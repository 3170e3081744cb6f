"""The table's journal: an append-only, hash-chained SQLite log that survives a power cut.

Rules this module keeps:

1. Every :meth:`Journal.append` is committed durably (SQLite WAL, ``synchronous=FULL``) before it
   returns. An entry the caller was handed back is on disk; nothing is ever half-written.
2. Sequence numbers start at 1 and go up by exactly one. Entries are never updated or deleted.
3. Each entry stores ``hash = SHA-256(previous hash + canonical content)`` (the first entry chains
   from :data:`GENESIS_HASH`), and the ``meta`` table keeps the head (last sequence number and
   hash) updated in the same transaction. :meth:`Journal.open` verifies the whole chain and the
   head: an edited, deleted, reordered or truncated entry raises :class:`JournalError` naming the
   first bad sequence number.
4. Hands are bracketed by ``hand_start`` / ``hand_end`` entries. The journal numbers hands 1, 2, ...
   and stamps every entry appended while a hand is open with that hand number. A ``hand_start``
   while a hand is open, or a ``hand_end`` with none open, is refused (and changes nothing).
5. A dealer command and its reply are stored in one transaction (:meth:`Journal.append_command`),
   keyed by ``(console_id, seq)``: a resent command is answered from :meth:`Journal.reply_for`,
   even after a restart, and never applied twice.

Time is passed in (``wall_time`` from :func:`time.time`, ``mono_time`` from
:func:`time.monotonic`); the journal never reads a clock.

Recovery contract: after a crash the daemon opens the journal (which verifies it) and replays
:meth:`Journal.entries` in order through the same code paths that produced them; the journal
provides the iteration, the daemon owns the applying.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import math
import os
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType, TracebackType
from typing import Any

from table_controller.errors import JournalError

#: ``prev_hash`` of entry 1.
GENESIS_HASH = "0" * 64
#: Version of the on-disk schema; a journal with another version is refused.
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS entries (
    seq        INTEGER PRIMARY KEY,
    kind       TEXT    NOT NULL,
    wall_time  REAL    NOT NULL,
    mono_time  REAL    NOT NULL,
    hand       INTEGER,
    payload    TEXT    NOT NULL,
    prev_hash  TEXT    NOT NULL,
    hash       TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_hand ON entries (hand);
CREATE TABLE IF NOT EXISTS replies (
    console_id TEXT    NOT NULL,
    seq        INTEGER NOT NULL,
    entry_seq  INTEGER NOT NULL,
    reply      TEXT    NOT NULL,
    PRIMARY KEY (console_id, seq)
);
"""


class EntryKind(StrEnum):
    """What an entry records."""

    DEVICE_EVENT = "device_event"
    DEALER_COMMAND = "dealer_command"
    DECISION = "decision"
    HOLD = "hold"
    RESOLUTION = "resolution"
    HAND_START = "hand_start"
    HAND_END = "hand_end"

    def describe(self) -> str:
        """Plain words, e.g. ``"device event"``."""
        return self.value.replace("_", " ")


@dataclass(frozen=True, slots=True)
class Entry:
    """One committed journal entry.

    :param seq: sequence number, 1, 2, 3, ... without gaps.
    :param kind: what the entry records.
    :param wall_time: wall-clock time (seconds since the epoch) passed in by the caller.
    :param mono_time: monotonic time passed in by the caller.
    :param hand: number of the hand open when the entry was written (``None`` between hands).
    :param payload: the JSON data (read-only mapping).
    :param prev_hash: hash of the previous entry (:data:`GENESIS_HASH` for entry 1).
    :param hash: SHA-256 hex digest of ``prev_hash`` + this entry's canonical content.
    """

    seq: int
    kind: EntryKind
    wall_time: float
    mono_time: float
    hand: int | None
    payload: Mapping[str, Any]
    prev_hash: str
    hash: str


@dataclass(frozen=True, slots=True)
class HandRecord:
    """All entries of one hand, ``hand_start`` first.

    :param hand: the hand number assigned by the journal.
    :param entries: every entry of the hand in order.
    :param complete: ``True`` when the hand's ``hand_end`` entry has been written.
    """

    hand: int
    entries: tuple[Entry, ...]
    complete: bool


def _mapping(value: Any) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def canonical_json(payload: Mapping[str, Any]) -> str:
    """Serialise a payload the one way the hash chain depends on (sorted keys, no spaces).

    >>> canonical_json({"b": 1, "a": [1, 2]})
    '{"a":[1,2],"b":1}'

    Read-only mappings (an :attr:`Entry.payload`) and tuples are accepted.

    :raises JournalError: if the payload is not JSON-serialisable or holds NaN / infinity.
    """
    try:
        return json.dumps(
            payload, sort_keys=True, separators=(",", ":"), allow_nan=False, default=_mapping
        )
    except (TypeError, ValueError) as exc:
        raise JournalError(f"payload is not plain JSON: {exc}") from exc


def entry_hash(
    prev_hash: str,
    seq: int,
    kind: str,
    wall_time: float,
    mono_time: float,
    hand: int | None,
    payload_json: str,
) -> str:
    """Return the chain hash of one entry (hex SHA-256 of the previous hash + the content)."""
    content = json.dumps(
        [seq, kind, repr(float(wall_time)), repr(float(mono_time)), hand, payload_json],
        separators=(",", ":"),
    )
    return hashlib.sha256((prev_hash + content).encode("utf-8")).hexdigest()


def _lock(path: Path) -> int:
    """Take the single-writer lock of a journal (``<path>.lock``); released on close or exit."""
    fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise JournalError(
            f"journal {path} is in use by another writer (is a daemon already running?)"
        ) from None
    return fd


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """Turn a frozen payload (read-only mappings, tuples) back into plain dicts and lists."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [thaw(v) for v in value]
    return value


class Journal:
    """The journal of one table. Open it with :meth:`Journal.open`; use it from one thread.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> with Journal.open(os.path.join(d, "j.db")) as j:
    ...     e = j.append(EntryKind.HAND_START, {"button": 3}, wall_time=1.0, mono_time=2.0)
    ...     (e.seq, e.hand, j.last_seq, j.current_hand)
    (1, 1, 1, 1)
    """

    def __init__(
        self, conn: sqlite3.Connection, path: Path, *, readonly: bool, lock_fd: int | None = None
    ) -> None:
        """Use :meth:`Journal.open`."""
        self._conn = conn
        self._lock_fd = lock_fd
        self._path = path
        self._readonly = readonly
        self._last_seq = 0
        self._head = GENESIS_HASH
        self._last_hand = 0
        self._open_hand: int | None = None
        self._closed = False

    # -- lifecycle ---------------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, readonly: bool = False) -> Journal:
        """Open (or create) the journal at ``path`` and verify it.

        :param path: the SQLite file; its directory is created if missing (not when read-only).
            A writer holds an exclusive lock on ``<path>.lock`` until :meth:`close` (or its
            process ends): two daemons cannot write one journal.
        :param readonly: open without write access (for ``recall`` beside a running daemon).
        :raises JournalError: if the file cannot be opened, is locked by another writer, is not a
            journal, has another schema version, or does not verify (the message names the
            first bad sequence number).
        """
        p = Path(path)
        try:
            if readonly:
                if not p.exists():
                    raise JournalError(f"no journal at {p}")
                conn = sqlite3.connect(
                    f"{p.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None
                )
            else:
                p.parent.mkdir(parents=True, exist_ok=True)
                lock_fd = _lock(p)
                try:
                    conn = sqlite3.connect(str(p), isolation_level=None)
                except BaseException:
                    os.close(lock_fd)
                    raise
        except (OSError, sqlite3.Error) as exc:
            raise JournalError(f"cannot open journal {p}: {exc}") from exc
        journal = cls(conn, p, readonly=readonly, lock_fd=None if readonly else lock_fd)
        try:
            journal._setup()
            journal.verify()
        except JournalError:
            journal.close()
            raise
        except sqlite3.Error as exc:
            journal.close()
            raise JournalError(f"journal {p} is not readable: {exc}") from exc
        return journal

    def _setup(self) -> None:
        c = self._conn
        if not self._readonly:
            mode = c.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise JournalError(f"journal {self._path}: cannot switch to WAL mode ({mode})")
            c.execute("PRAGMA synchronous=FULL")
            c.execute("BEGIN IMMEDIATE")
            for stmt in _SCHEMA.split(";"):
                if stmt.strip():
                    c.execute(stmt)
            c.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', ?)",
                (str(SCHEMA_VERSION),),
            )
            c.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('head_seq', '0')")
            c.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('head_hash', ?)", (GENESIS_HASH,)
            )
            c.execute("COMMIT")
        version = self._meta("schema")
        if version != str(SCHEMA_VERSION):
            raise JournalError(
                f"journal {self._path}: schema version {version!r}, expected {SCHEMA_VERSION}"
            )

    def _meta(self, key: str) -> str | None:
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def close(self) -> None:
        """Close the database (idempotent)."""
        if not self._closed:
            self._closed = True
            self._conn.close()
            if self._lock_fd is not None:
                os.close(self._lock_fd)  # releases the writer's lock
                self._lock_fd = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- properties --------------------------------------------------------------------------

    @property
    def path(self) -> Path:
        """The journal file."""
        return self._path

    @property
    def last_seq(self) -> int:
        """Sequence number of the last committed entry (0 when empty)."""
        return self._last_seq

    @property
    def head_hash(self) -> str:
        """Hash of the last committed entry (:data:`GENESIS_HASH` when empty)."""
        return self._head

    @property
    def current_hand(self) -> int | None:
        """Number of the hand in progress, or ``None`` between hands."""
        return self._open_hand

    @property
    def last_hand(self) -> int:
        """Number of the last hand started (0 when none)."""
        return self._last_hand

    # -- verification ------------------------------------------------------------------------

    def verify(self) -> int:
        """Check the whole chain, the sequence numbers, the hand brackets and the head.

        Also restores the in-memory head, last hand and open hand from disk.

        :returns: the number of entries verified.
        :raises JournalError: naming the first bad sequence number.
        """
        self._check_open()
        # one read transaction: a daemon appending meanwhile (recall beside it) is not seen
        self._conn.execute("BEGIN")
        try:
            return self._verify()
        finally:
            self._conn.execute("COMMIT")

    def _verify(self) -> int:
        expected_seq = 1
        prev = GENESIS_HASH
        last_hand = 0
        open_hand: int | None = None
        cur = self._conn.execute(
            "SELECT seq, kind, wall_time, mono_time, hand, payload, prev_hash, hash "
            "FROM entries ORDER BY seq"
        )
        for seq, kind, wall, mono, hand, payload, prev_hash, digest in cur:
            if seq != expected_seq:
                raise self._bad(expected_seq, f"entry {expected_seq} is missing (next is {seq})")
            if prev_hash != prev:
                raise self._bad(seq, f"does not chain to entry {seq - 1}")
            if entry_hash(prev, seq, kind, wall, mono, hand, payload) != digest:
                raise self._bad(seq, "content does not match its hash (altered)")
            try:
                k = EntryKind(kind)
            except ValueError:
                raise self._bad(seq, f"unknown kind {kind!r}") from None
            if k is EntryKind.HAND_START:
                if open_hand is not None or hand != last_hand + 1:
                    raise self._bad(seq, "hand start out of order")
                last_hand = open_hand = hand
            elif hand != open_hand:
                raise self._bad(seq, f"hand number {hand}, expected {open_hand}")
            if k is EntryKind.HAND_END:
                if open_hand is None:
                    raise self._bad(seq, "hand end with no hand open")
                open_hand = None
            prev = digest
            expected_seq += 1
        count = expected_seq - 1
        head_seq = self._meta("head_seq")
        head_hash = self._meta("head_hash")
        if head_seq != str(count) or head_hash != prev:
            raise self._bad(
                count + 1 if head_seq is not None and head_seq.isdigit() and int(head_seq) > count
                else max(count, 1),
                f"truncated or altered: the head records entry {head_seq}, "
                f"the log ends at entry {count}",
            )
        self._last_seq = count
        self._head = prev
        self._last_hand = last_hand
        self._open_hand = open_hand
        return count

    def _bad(self, seq: int, why: str) -> JournalError:
        return JournalError(
            f"journal {self._path} does not verify: first bad sequence number {seq}: {why}"
        )

    # -- writing -----------------------------------------------------------------------------

    def append(
        self,
        kind: EntryKind | str,
        payload: Mapping[str, Any],
        *,
        wall_time: float,
        mono_time: float,
    ) -> Entry:
        """Append one entry and commit it durably before returning.

        :param kind: an :class:`EntryKind` (or its value).
        :param payload: plain JSON data. By convention a ``"text"`` key holds plain words, which
            ``table-controller recall`` prints.
        :raises JournalError: on a bad kind or payload, a hand bracket out of order (nothing is
            written), or a write failure.
        """
        return self._append(kind, payload, wall_time, mono_time, None)

    def append_command(
        self,
        console_id: str,
        seq: int,
        command: Mapping[str, Any],
        reply: Mapping[str, Any],
        *,
        wall_time: float,
        mono_time: float,
    ) -> Entry:
        """Journal a dealer command with its reply and store the reply, in one transaction.

        The entry is a ``dealer_command`` whose payload is
        ``{"console": console_id, "seq": seq, "command": command, "reply": reply}``.

        :raises JournalError: if a reply for ``(console_id, seq)`` is already stored (answer it
            from :meth:`reply_for` instead), on a bad payload, or on a write failure.
        """
        if not console_id or not isinstance(console_id, str):
            raise JournalError(f"console id must be a non-empty string, got {console_id!r}")
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
            raise JournalError(f"command seq must be an integer >= 0, got {seq!r}")
        reply_json = canonical_json(reply)
        payload = {"console": console_id, "seq": seq, "command": command, "reply": reply}
        return self._append(
            EntryKind.DEALER_COMMAND, payload, wall_time, mono_time, (console_id, seq, reply_json)
        )

    def _append(
        self,
        kind: EntryKind | str,
        payload: Mapping[str, Any],
        wall_time: float,
        mono_time: float,
        reply: tuple[str, int, str] | None,
    ) -> Entry:
        self._check_open()
        if self._readonly:
            raise JournalError(f"journal {self._path} is open read-only")
        try:
            k = EntryKind(kind)
        except ValueError:
            kinds = ", ".join(x.value for x in EntryKind)
            raise JournalError(f"unknown entry kind {kind!r} (one of {kinds})") from None
        if not isinstance(payload, Mapping):
            raise JournalError(f"payload must be a mapping, got {type(payload).__name__}")
        for name, t in (("wall_time", wall_time), ("mono_time", mono_time)):
            if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t):
                raise JournalError(f"{name} must be a finite number, got {t!r}")
        payload_json = canonical_json(payload)
        if k is EntryKind.HAND_START:
            if self._open_hand is not None:
                raise JournalError(
                    f"hand start while hand {self._open_hand} is open (end it first)"
                )
            hand: int | None = self._last_hand + 1
        else:
            if k is EntryKind.HAND_END and self._open_hand is None:
                raise JournalError("hand end with no hand open")
            hand = self._open_hand
        seq = self._last_seq + 1
        digest = entry_hash(self._head, seq, k.value, wall_time, mono_time, hand, payload_json)
        c = self._conn
        try:
            c.execute("BEGIN IMMEDIATE")
            try:
                c.execute(
                    "INSERT INTO entries (seq, kind, wall_time, mono_time, hand, payload, "
                    "prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (seq, k.value, float(wall_time), float(mono_time), hand, payload_json,
                     self._head, digest),
                )
                if reply is not None:
                    c.execute(
                        "INSERT INTO replies (console_id, seq, entry_seq, reply) "
                        "VALUES (?, ?, ?, ?)",
                        (reply[0], reply[1], seq, reply[2]),
                    )
                c.execute("UPDATE meta SET value = ? WHERE key = 'head_seq'", (str(seq),))
                c.execute("UPDATE meta SET value = ? WHERE key = 'head_hash'", (digest,))
                c.execute("COMMIT")
            except BaseException:
                c.execute("ROLLBACK")
                raise
        except sqlite3.IntegrityError as exc:
            raise JournalError(
                f"reply for console {reply[0]!r} seq {reply[1]} already stored"
                if reply is not None
                else f"cannot write entry {seq}: {exc}"
            ) from exc
        except sqlite3.Error as exc:
            raise JournalError(f"cannot write entry {seq} to {self._path}: {exc}") from exc
        prev_hash = self._head
        self._last_seq = seq
        self._head = digest
        if k is EntryKind.HAND_START:
            self._last_hand = self._last_hand + 1
            self._open_hand = hand
        elif k is EntryKind.HAND_END:
            self._open_hand = None
        return Entry(
            seq, k, float(wall_time), float(mono_time), hand, _freeze(json.loads(payload_json)),
            prev_hash, digest,
        )

    # -- reading -----------------------------------------------------------------------------

    def reply_for(self, console_id: str, seq: int) -> dict[str, Any] | None:
        """Return the stored reply for command ``(console_id, seq)``, or ``None`` if unseen."""
        self._check_open()
        row = self._conn.execute(
            "SELECT reply FROM replies WHERE console_id = ? AND seq = ?", (console_id, seq)
        ).fetchone()
        if row is None:
            return None
        result: dict[str, Any] = json.loads(row[0])
        return result

    def stored_command(
        self, console_id: str, seq: int
    ) -> tuple[Mapping[str, Any], dict[str, Any]] | None:
        """Return ``(command, reply)`` recorded for ``(console_id, seq)``, or ``None`` if unseen."""
        self._check_open()
        row = self._conn.execute(
            "SELECT e.payload, r.reply FROM replies r JOIN entries e ON e.seq = r.entry_seq "
            "WHERE r.console_id = ? AND r.seq = ?",
            (console_id, seq),
        ).fetchone()
        if row is None:
            return None
        payload = json.loads(row[0])
        reply: dict[str, Any] = json.loads(row[1])
        return _freeze(payload.get("command", {})), reply

    def last_command_seq(self, console_id: str) -> int | None:
        """Return the highest command sequence number stored for a console, or ``None``."""
        self._check_open()
        row = self._conn.execute(
            "SELECT MAX(seq) FROM replies WHERE console_id = ?", (console_id,)
        ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def newest_seq(self) -> int:
        """Return the sequence number of the newest entry on disk now (0 when empty).

        Unlike :attr:`last_seq` (this handle's own head), this sees entries another process
        appended since this read-only handle was opened (a shipper beside the daemon).
        """
        self._check_open()
        row = self._conn.execute("SELECT MAX(seq) FROM entries").fetchone()
        return 0 if row is None or row[0] is None else int(row[0])

    def entries(
        self, since: int = 0, *, until: int | None = None, hand: int | None = None
    ) -> Iterator[Entry]:
        """Iterate over entries with ``seq > since`` (and ``<= until``), in order.

        Entries are read in batches of 1000, so a long journal is not loaded whole; appending
        while iterating is allowed (new entries are included).

        :param since: skip entries up to and including this sequence number (0 = from the start).
        :param until: stop after this sequence number (``None`` = to the end).
        :param hand: only entries of this hand.
        """
        self._check_open()
        sql = (
            "SELECT seq, kind, wall_time, mono_time, hand, payload, prev_hash, hash "
            "FROM entries WHERE seq > ?"
        )
        params: list[Any] = [since]
        if until is not None:
            sql += " AND seq <= ?"
            params.append(until)
        if hand is not None:
            sql += " AND hand = ?"
            params.append(hand)
        sql += " ORDER BY seq LIMIT 1000"
        while True:
            rows = self._conn.execute(sql, [since, *params[1:]]).fetchall()
            if not rows:
                return
            for seq, kind, wall, mono, h, payload, prev_hash, digest in rows:
                yield Entry(
                    seq, EntryKind(kind), wall, mono, h, _freeze(json.loads(payload)),
                    prev_hash, digest,
                )
            since = rows[-1][0]

    def get(self, seq: int) -> Entry:
        """Return entry ``seq``.

        :raises JournalError: if there is no such entry.
        """
        for e in self.entries(since=seq - 1, until=seq):
            return e
        raise JournalError(f"no entry {seq} (the journal has {self._last_seq})")

    def hand_entries(self, hand: int) -> HandRecord:
        """Return every entry of hand number ``hand``.

        :raises JournalError: if there is no such hand.
        """
        entries = tuple(self.entries(hand=hand))
        if not entries:
            raise JournalError(f"no hand {hand} (the journal has hands 1..{self._last_hand})")
        return HandRecord(hand, entries, entries[-1].kind is EntryKind.HAND_END)

    def recent_hands(self, n: int = 10) -> list[HandRecord]:
        """Return the last ``n`` hands (including one in progress), oldest first.

        :raises JournalError: if ``n`` < 1.
        """
        if n < 1:
            raise JournalError(f"number of hands must be >= 1, got {n}")
        first = max(1, self._last_hand - n + 1)
        return [self.hand_entries(h) for h in range(first, self._last_hand + 1)]

    def _check_open(self) -> None:
        if self._closed:
            raise JournalError(f"journal {self._path} is closed")
