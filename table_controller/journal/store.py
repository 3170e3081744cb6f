"""The table's journal: an append-only, hash-chained SQLite log that survives a power cut.

Rules this module keeps:

1. Every :meth:`Journal.append` is committed durably (SQLite WAL, ``synchronous=FULL``), then
   its head is written durably to the anchor file (:mod:`.anchor`), before it returns. An entry
   the caller was handed back is on disk; nothing is ever half-written. ``anchor=False`` defers
   the anchor to :meth:`Journal.sync_anchor`, the next append or the close (at most one behind).
2. Sequence numbers start at 1 and go up by exactly one. Entries are never updated or deleted
   (only :mod:`.repair`, a deliberate journaled operator act, cuts a damaged tail), but old
   ones move, unchanged, into sealed archive files (:mod:`.archiving`, :mod:`.archive`; an
   ``archive`` entry records each), which every read and verification goes across.
3. Every stored field is covered by the hash chain (:mod:`.chain`), in either on-disk schema
   (:mod:`.layout`: a journal is created in :data:`SCHEMA_VERSION`, an older one keeps its
   own until ``journal migrate``, :func:`.repair.migrate`). :meth:`Journal.verify`
   checks the database (``PRAGMA quick_check``), the whole chain, the head kept in the ``meta``
   table and the anchor beside the file: a truncated, rolled-back (deleted or damaged ``-wal``),
   altered or unreadable journal raises :class:`~table_controller.errors.JournalDamagedError`
   naming the file and the first bad sequence number. :meth:`Journal.open` does the same, but
   on a journal with checkpoints it verifies from a checkpoint at least :data:`WINDOW_HANDS`
   hands back (rule 7), so an open does not grow with the journal; every read before it
   verifies the whole chain first (:mod:`.reads`), and ``journal verify`` always does
   (:mod:`.verifying`; with archives, every file).
4. Every read checks each row against the verified chain (and verifies rows appended since, for
   a read-only handle beside the daemon); lookups (a command's reply, a hand's entries) come
   from the chain in memory, never from an SQLite index or side table. An SQLite error while
   reading is a :class:`~table_controller.errors.JournalDamagedError` naming the file.
5. Hands are bracketed by ``hand_start`` / ``hand_end`` entries. The journal numbers hands 1, 2, ...
   and stamps every entry appended while a hand is open with that hand number. A ``hand_start``
   while a hand is open, or a ``hand_end`` with none open, is refused (and changes nothing).
6. A dealer command and its reply are one entry (:meth:`Journal.append_command`), keyed by
   ``(console_id, seq)``: a resent command is answered from :meth:`Journal.reply_for`, even
   after a restart, and never applied twice. :meth:`Journal.append_commands` commits several
   (the read-only commands of one turn of the command endpoint) in one transaction.

7. A ``checkpoint`` entry (:meth:`Journal.append_checkpoint`) is written between hands only. It
   holds the caller's state (the table, for recovery), a hash of it, and the chain's summary
   (:meth:`.chain.Chain.summary`). The ``meta`` table keeps the last checkpoints' sequence and
   hand numbers as a *hint* where to start verifying: a wrong hint can only make the open
   verify more (or find the damage), never accept an entry unverified.
8. One write at a time, from any thread: every append (its rows, commit, chain and anchor),
   the anchor's deferred write, an archiving and the close hold one lock, as do the reads of a
   single stored row. So the command endpoint commits in its writer thread, off the event
   loop (:mod:`table_controller.feeds.commands`), while the loop appends device inputs: one
   waits for the other's commit, and the chain's order is the commits' order. Other reads do
   not wait: they read only rows the chain has accepted, which are committed and never change.
   :attr:`Journal.watch` (:mod:`.watch`) tells which threads are inside a write (waiting for
   the lock included), for the feeds' heartbeat keeper.
9. SQLite copies the WAL into the database (a *checkpoint*) inside the commit that takes the
   WAL past 1,000 pages, and the commit after it starts the WAL over, syncing its header: two
   slow commits. A writer may do both at a moment of its choosing
   (:meth:`Journal.checkpoint_wal`, one write like the others); durability is the same.

Time is passed in (``wall_time`` from :func:`time.time`, ``mono_time`` from
:func:`time.monotonic`); the journal never reads a clock.

Recovery contract: after a crash the daemon opens the journal (which verifies it) and replays
:meth:`Journal.entries` in order through the same code paths that produced them; the journal
provides the iteration, the daemon owns the applying.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import math
import os
import sqlite3
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from table_controller.errors import JournalDamagedError, JournalError
from table_controller.journal import layout
from table_controller.journal.anchor import Anchor, Head, anchor_path, read_anchor
from table_controller.journal.archive import ArchiveFile, ArchiveRecord
from table_controller.journal.archiving import JournalArchiving
from table_controller.journal.chain import (
    GENESIS_HASH,
    Chain,
    Entry,
    EntryKind,
    HandRecord,
    Row,
    canonical_json,
    entry_hash,
    thaw,
)
from table_controller.journal.records import CommandRecord, command_payloads
from table_controller.journal.verifying import WINDOW_HANDS
from table_controller.journal.watch import WriteWatch

__all__ = [
    "GENESIS_HASH", "WINDOW_HANDS", "CommandRecord", "Entry", "EntryKind", "HandRecord",
    "Journal",
    "canonical_json", "entry_hash", "thaw",
]

#: Version of the on-disk schema of a journal created now (:mod:`.layout`); a journal of a
#: version not in :data:`.layout.SCHEMAS` is refused.
SCHEMA_VERSION = layout.CURRENT
#: Version of the checkpoint entry's payload.
CHECKPOINT_VERSION = 1
#: Checkpoints kept in the ``meta`` hint.
_HINTS = 8

_META = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
)"""
#: What schema 1 also had: ``replies`` (and the ``entries_hand`` index) are what journals
#: written before the chain covered every lookup kept; nothing writes or reads them now
#: (rule 4).
_SCHEMA_1_EXTRA = """
CREATE TABLE IF NOT EXISTS replies (
    console_id TEXT    NOT NULL,
    seq        INTEGER NOT NULL,
    entry_seq  INTEGER NOT NULL,
    reply      TEXT    NOT NULL,
    PRIMARY KEY (console_id, seq)
);
DROP INDEX IF EXISTS entries_hand
"""


def lock_writer(path: Path) -> int:
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


class Journal(JournalArchiving):
    """The journal of one table. Open it with :meth:`Journal.open`.

    Writes are serialised by a lock (rule 8): a writer thread may commit while another
    thread appends; the second waits for the first's commit.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> with Journal.open(os.path.join(d, "j.db")) as j:
    ...     e = j.append(EntryKind.HAND_START, {"button": 3}, wall_time=1.0, mono_time=2.0)
    ...     (e.seq, e.hand, j.last_seq, j.current_hand)
    (1, 1, 1, 1)
    """

    def __init__(
        self, conn: sqlite3.Connection, path: Path, *, readonly: bool, lock_fd: int | None = None,
        schema: int = SCHEMA_VERSION,
    ) -> None:
        """Use :meth:`Journal.open`."""
        self._conn = conn
        #: The schema of a journal this open creates; then the file's (:meth:`_setup`).
        self._schema = schema
        self._lock_fd = lock_fd
        self._path = path
        self._readonly = readonly
        self._chain = Chain(str(path))
        self._anchor: Anchor | None = None
        #: Created by this open (no anchor expected yet).
        self._fresh = False
        self._closed = False
        self._records: tuple[ArchiveRecord, ...] = ()
        self._files: dict[str, ArchiveFile] = {}
        #: Held by every write, and by the reads of one stored row (rule 8).
        self._lock = threading.RLock()
        #: The threads inside a write (waiting for the lock included): :mod:`.watch`.
        self.watch = WriteWatch()
        #: How many times :meth:`checkpoint_wal` started the WAL over.
        self._restarts = 0

    # -- lifecycle ---------------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, readonly: bool = False,
             anchored: bool = True, full: bool = False, schema: int = SCHEMA_VERSION) -> Journal:
        """Open (or create) the journal at ``path`` and verify it.

        :param path: the SQLite file; its directory is created if missing (not when read-only).
            A writer holds an exclusive lock on ``<path>.lock`` until :meth:`close` (or its
            process ends): two daemons cannot write one journal.
        :param readonly: open without write access (for ``recall`` beside a running daemon).
        :param anchored: keep the anchor file (``False`` only to measure its cost).
        :param full: verify the whole chain and the database (``journal verify``); otherwise
            from the last checkpoint at least :data:`WINDOW_HANDS` hands back (rule 3).
        :param schema: the on-disk schema of a journal created by this open (:mod:`.layout`;
            an existing journal keeps its own).
        :raises JournalDamagedError: if the journal is not a journal, is truncated, rolled back,
            altered or unreadable (the message names the file and the first bad entry).
        :raises JournalError: if the file cannot be opened, is locked by another writer, or has
            another schema version.
        """
        p = Path(path)
        lock_fd: int | None = None
        try:
            if readonly:
                if not p.exists():
                    raise JournalError(f"no journal at {p}")
                # the anchor before the database: a writer beside us is never behind it
                head = read_anchor(p)
                conn = sqlite3.connect(
                    f"{p.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None
                )
            else:
                p.parent.mkdir(parents=True, exist_ok=True)
                lock_fd = lock_writer(p)
                try:
                    head = read_anchor(p)
                    if head is not None and head.seq and not p.exists():
                        raise JournalDamagedError(
                            f"journal {p} is missing, its anchor {anchor_path(p)} records "
                            f"entry {head.seq}")
                    # one writer at a time (rule 8), not always the opening thread
                    conn = sqlite3.connect(str(p), isolation_level=None,
                                           check_same_thread=False)
                except BaseException:
                    os.close(lock_fd)
                    raise
        except (OSError, sqlite3.Error) as exc:
            raise JournalError(f"cannot open journal {p}: {exc}") from exc
        if schema not in layout.SCHEMAS:
            conn.close()
            if lock_fd is not None:
                os.close(lock_fd)
            raise JournalError(f"journal schema {schema} is not one of {layout.SCHEMAS}")
        journal = cls(conn, p, readonly=readonly, lock_fd=lock_fd, schema=schema)
        try:
            journal._setup()
            journal._load_archives()
            journal._check_files()
            if full:
                journal.verify()
            else:
                journal._verify_recent()
                journal._match_archives()
            if anchored:
                journal._check_anchor(head)
        except JournalError:
            journal.close()
            raise
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            # (SQLite's own message about a damaged schema may not even decode)
            journal.close()
            raise JournalDamagedError(f"journal {p} is not readable: {exc}") from exc
        return journal

    def _setup(self) -> None:
        c = self._conn
        if not self._readonly:
            mode = c.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise JournalError(f"journal {self._path}: cannot switch to WAL mode ({mode})")
            c.execute("PRAGMA synchronous=FULL")
            c.execute("BEGIN IMMEDIATE")
            c.execute(_META)
            fresh = c.execute("SELECT COUNT(*) FROM meta").fetchone()[0] == 0
            c.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', ?)",
                (str(self._schema),),
            )
            schema = self._meta("schema")
            if schema in {str(s) for s in layout.SCHEMAS}:
                c.execute(layout.ENTRIES[int(schema or 0)])
                if schema == "1":
                    for stmt in _SCHEMA_1_EXTRA.split(";"):
                        if stmt.strip():
                            c.execute(stmt)
            c.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('head_seq', '0')")
            c.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('head_hash', ?)", (GENESIS_HASH,)
            )
            if fresh:
                c.execute("INSERT INTO meta (key, value) VALUES ('anchored', '1')")
                self._fresh = True
            c.execute("COMMIT")
        version = self._meta("schema")
        if version not in {str(s) for s in layout.SCHEMAS}:
            raise JournalDamagedError(
                f"journal {self._path}: schema version {version!r}, expected one of "
                f"{', '.join(str(s) for s in layout.SCHEMAS)}"
            )
        self._schema = int(version)

    def _meta(self, key: str) -> str | None:
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def close(self) -> None:
        """Close the database (idempotent; waits for a commit in flight in another thread)."""
        with self._lock:
            self._close()

    def _close(self) -> None:
        if not self._closed:
            self._closed = True
            self._close_archives()
            self._conn.close()
            if self._anchor is not None:
                self._anchor.close()
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
    def schema(self) -> int:
        """The file's on-disk schema (:mod:`.layout`)."""
        return self._schema

    @property
    def head_hash(self) -> str:
        """Hash of the last verified entry (:data:`GENESIS_HASH` when empty)."""
        return self._chain.head

    @property
    def current_hand(self) -> int | None:
        """Number of the hand in progress, or ``None`` between hands."""
        return self._chain.open_hand

    def last_of(self, kind: EntryKind) -> Entry | None:
        """Return the last entry of ``kind`` (``None`` if there is none).

        :raises JournalDamagedError: if it cannot be read back as verified.
        """
        seq = self._chain.last_of.get(kind)
        return None if seq is None else self.get(seq)

    def config_for(self, seq: int) -> Entry | None:
        """Return the ``config`` entry in force at entry ``seq``, or ``None``.

        That is the last one before it, else the first one (a journal from before
        configurations were recorded).

        :raises JournalDamagedError: if it cannot be read back as verified.
        """
        configs = self._chain.configs
        before = [c for c in configs if c <= seq]
        at = before[-1] if before else (configs[0] if configs else None)
        return None if at is None else self.get(at)

    # -- writing -----------------------------------------------------------------------------

    def append(
        self,
        kind: EntryKind | str,
        payload: Mapping[str, Any],
        *,
        wall_time: float,
        mono_time: float,
        anchor: bool = True,
    ) -> Entry:
        """Append one entry and commit it durably before returning.

        :param kind: an :class:`EntryKind` (or its value).
        :param payload: plain JSON data. By convention a ``"text"`` key holds plain words, which
            ``table-controller recall`` prints.
        :param anchor: ``False``: write the anchor later (rule 1; the caller publishes first).
        :raises JournalError: on a bad kind or payload, a hand bracket out of order (nothing is
            written), or a write failure.
        """
        return self._append(kind, payload, wall_time, mono_time, anchor)

    def sync_anchor(self) -> None:
        """Write the anchor an ``append(..., anchor=False)`` deferred (:meth:`.Anchor.sync`)."""
        anchor = self._anchor
        if anchor is None or anchor.pending is None:
            # nothing deferred: no write, no lock (a head deferred by another thread's
            # ``anchor=False`` append just now is written by its own sync, its next append or
            # the close: rule 1)
            return
        with self.watch.writing(), self._lock:
            if self._anchor is not None:
                self._anchor.sync()

    def checkpoint_wal(self) -> bool:
        """Copy the committed WAL into the database now, and start the WAL over (rule 9).

        A passive checkpoint (it never waits for a reader), then, when it copied every frame,
        one small commit outside the chain (``meta``'s ``wal`` key: how many times this open
        started the WAL over), so the WAL starts over now, not at the next entry's commit.

        :returns: whether the WAL started over (``False`` for a read-only or closed journal,
            or when a reader kept frames in use).
        :raises JournalError: if the database cannot be written.
        """
        if self._readonly:
            return False
        with self.watch.writing(), self._lock:
            if self._closed:
                return False
            c = self._conn
            try:
                busy, frames, copied = c.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                if busy or frames != copied:
                    return False
                self._restarts += 1
                c.execute("BEGIN IMMEDIATE")
                c.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('wal', ?)",
                          (str(self._restarts),))
                c.execute("COMMIT")
            except sqlite3.Error as exc:
                if c.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        c.execute("ROLLBACK")
                raise JournalError(f"cannot checkpoint journal {self._path}: {exc}") from exc
            return True

    def append_command(
        self,
        console_id: str,
        seq: int,
        command: Mapping[str, Any],
        reply: Mapping[str, Any],
        *,
        wall_time: float,
        mono_time: float,
        key: str | None = None,
    ) -> Entry:
        """Journal a dealer command with its reply, in one entry.

        The entry is a ``dealer_command`` whose payload is
        ``{"console": console_id, "seq": seq, "command": command, "reply": reply}`` (and
        ``"key"``: the name of the CURVE key that authenticated the console, when given).

        :raises JournalError: if ``(console_id, seq)`` is already recorded (answer it from
            :meth:`reply_for` instead), on a bad payload, or on a write failure.
        """
        return self.append_commands([CommandRecord(console_id, seq, command, reply, key)],
                                    wall_time=wall_time, mono_time=mono_time)[0]

    def append_commands(self, records: Sequence[CommandRecord], *, wall_time: float,
                        mono_time: float) -> list[Entry]:
        """Journal several dealer commands (as :meth:`append_command`) in one transaction.

        One commit and one anchor write for all of them (a group commit): the entries are on
        disk together, in the order given, or none is (a refused record writes nothing).

        :raises JournalError: if a ``(console, seq)`` is already recorded or given twice, on a
            bad payload, or on a write failure.
        """
        payloads: list[tuple[EntryKind | str, Mapping[str, Any]]] = [
            (EntryKind.DEALER_COMMAND, p) for p in command_payloads(records, self._chain.commands)]
        return self._append_many(payloads, wall_time, mono_time)

    def append_checkpoint(self, state: Mapping[str, Any], *, wall_time: float,
                          mono_time: float) -> Entry:
        """Journal a checkpoint of the caller's state between hands (rule 7).

        The payload is ``{"text", "version", "hand", "chain", "state", "state_hash"}``:
        ``hand`` the last hand started, ``chain`` the summary of the chain before the entry,
        ``state_hash`` the SHA-256 of the state's canonical JSON.

        :raises JournalError: while a hand is open, on a bad payload, or on a write failure.
        """
        self._check_open()
        if self._chain.open_hand is not None:
            raise JournalError(f"checkpoint while hand {self._chain.open_hand} is open "
                               "(checkpoints are written between hands)")
        state_json = canonical_json(state)
        return self._append(EntryKind.CHECKPOINT, {
            "text": f"checkpoint after hand {self._chain.last_hand}",
            "version": CHECKPOINT_VERSION, "hand": self._chain.last_hand,
            "chain": self._chain.summary(), "state": state,
            "state_hash": hashlib.sha256(state_json.encode()).hexdigest()}, wall_time, mono_time)

    def last_checkpoint(self) -> tuple[Entry, dict[str, Any]] | None:
        """Return the last checkpoint entry and its state, or ``None`` if there is none.

        :raises JournalDamagedError: if it cannot be read back as verified, or its state does
            not match its hash.
        """
        entry = self.last_of(EntryKind.CHECKPOINT)
        if entry is None:
            return None
        state: dict[str, Any] = thaw(entry.payload.get("state", {}))
        if hashlib.sha256(canonical_json(state).encode()).hexdigest() != \
                entry.payload.get("state_hash"):
            raise self._chain.bad(entry.seq, "checkpoint state does not match its hash")
        return entry, state

    def _append(
        self,
        kind: EntryKind | str,
        payload: Mapping[str, Any],
        wall_time: float,
        mono_time: float,
        anchor: bool = True,
        also: Callable[[sqlite3.Connection], None] | None = None,
    ) -> Entry:
        return self._append_many([(kind, payload)], wall_time, mono_time, anchor, also)[0]

    def _append_many(
        self,
        items: Sequence[tuple[EntryKind | str, Mapping[str, Any]]],
        wall_time: float,
        mono_time: float,
        anchor: bool = True,
        also: Callable[[sqlite3.Connection], None] | None = None,
    ) -> list[Entry]:
        """Append ``items`` in one transaction; the chain and the anchor follow its commit."""
        with self.watch.writing(), self._lock:  # rule 8: one write at a time, any thread
            return self._write_many(items, wall_time, mono_time, anchor, also)

    def _write_many(
        self,
        items: Sequence[tuple[EntryKind | str, Mapping[str, Any]]],
        wall_time: float,
        mono_time: float,
        anchor: bool,
        also: Callable[[sqlite3.Connection], None] | None,
    ) -> list[Entry]:
        self._check_open()
        if self._readonly:
            raise JournalError(f"journal {self._path} is open read-only")
        for name, t in (("wall_time", wall_time), ("mono_time", mono_time)):
            if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t):
                raise JournalError(f"{name} must be a finite number, got {t!r}")
        chain = self._chain
        seq, prev = chain.count, chain.head
        open_hand, last_hand = chain.open_hand, chain.last_hand
        rows: list[tuple[Row, EntryKind]] = []
        hand: int | None
        for kind, payload in items:
            try:
                k = EntryKind(kind)
            except ValueError:
                kinds = ", ".join(x.value for x in EntryKind)
                raise JournalError(f"unknown entry kind {kind!r} (one of {kinds})") from None
            if not isinstance(payload, Mapping):
                raise JournalError(f"payload must be a mapping, got {type(payload).__name__}")
            payload_json = canonical_json(payload)
            if k is EntryKind.CHECKPOINT and open_hand is not None:
                raise JournalError(f"checkpoint while hand {open_hand} is open")
            if k is EntryKind.HAND_START:
                if open_hand is not None:
                    raise JournalError(
                        f"hand start while hand {open_hand} is open (end it first)"
                    )
                last_hand = last_hand + 1
                open_hand = hand = last_hand
            else:
                if k is EntryKind.HAND_END and open_hand is None:
                    raise JournalError("hand end with no hand open")
                hand = open_hand
                if k is EntryKind.HAND_END:
                    open_hand = None
            seq += 1
            digest = entry_hash(prev, seq, k.value, wall_time, mono_time, hand, payload_json)
            rows.append(((seq, k.value, float(wall_time), float(mono_time), hand, payload_json,
                          prev, digest), k))
            prev = digest
        if not rows:
            return []
        self.sync_anchor()  # the entry before these is anchored before they are written
        c = self._conn
        try:
            c.execute("BEGIN IMMEDIATE")
            try:
                for row, k in rows:
                    c.execute(layout.insert_sql(self._schema), layout.stored(self._schema, row))
                    if k is EntryKind.CHECKPOINT:
                        c.execute("INSERT OR REPLACE INTO meta (key, value) VALUES "
                                  "('checkpoints', ?)", (self._hints(row[0], row[4]),))
                c.execute("UPDATE meta SET value = ? WHERE key = 'head_seq'", (str(seq),))
                c.execute("UPDATE meta SET value = ? WHERE key = 'head_hash'", (prev,))
                if also is not None:
                    also(c)  # in the same transaction (an archiving: :mod:`.archiving`)
                c.execute("COMMIT")
            except BaseException:
                # SQLite may have rolled back already (a full disk does): the original error
                # is the one to report, not "cannot rollback - no transaction is active"
                if c.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        c.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            first = rows[0][0][0]
            if getattr(exc, "sqlite_errorname", "") == "SQLITE_FULL" or "full" in str(exc):
                raise JournalError(f"cannot write entry {first} to {self._path}: the disk is "
                                   "full (free space on it, then restart)") from exc
            raise JournalError(f"cannot write entry {first} to {self._path}: {exc}") from exc
        entries = [chain.accept(row) for row, _k in rows]
        if self._anchor is not None:
            self._anchor.write(Head(seq, prev), defer=not anchor)
        return entries

    def _hints(self, seq: int, hand: int | None) -> str:
        """Return the ``meta`` hint with checkpoint ``seq`` added (the last :data:`_HINTS`)."""
        try:
            old = [(int(s), int(h)) for s, h in json.loads(self._meta("checkpoints") or "[]")]
        except (ValueError, TypeError):
            old = []
        return json.dumps([*old, (seq, hand if hand is not None else self._chain.last_hand)]
                          [-_HINTS:])

    def _check_open(self) -> None:
        if self._closed:
            raise JournalError(f"journal {self._path} is closed")
