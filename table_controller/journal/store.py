"""The table's journal: an append-only, hash-chained SQLite log that survives a power cut.

Rules this module keeps:

1. Every :meth:`Journal.append` is committed durably (SQLite WAL, ``synchronous=FULL``), then
   its head is written durably to the anchor file (:mod:`.anchor`), before it returns. An entry
   the caller was handed back is on disk; nothing is ever half-written. ``anchor=False`` defers
   the anchor to :meth:`Journal.sync_anchor`, the next append or the close (at most one behind).
   The write paths are :mod:`.writing`; this module opens, sets up and closes the journal.
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

import fcntl
import hashlib
import os
import sqlite3
import threading
from pathlib import Path
from types import TracebackType
from typing import Any

from table_controller.errors import JournalDamagedError, JournalError
from table_controller.journal import layout
from table_controller.journal.anchor import Anchor, anchor_path, read_anchor
from table_controller.journal.archive import ArchiveFile, ArchiveRecord
from table_controller.journal.chain import (
    GENESIS_HASH,
    Chain,
    Entry,
    EntryKind,
    HandRecord,
    canonical_json,
    entry_hash,
    thaw,
)
from table_controller.journal.records import CommandRecord
from table_controller.journal.verifying import WINDOW_HANDS
from table_controller.journal.watch import WriteWatch
from table_controller.journal.writing import JournalWriting

__all__ = [
    "GENESIS_HASH", "WINDOW_HANDS", "CommandRecord", "Entry", "EntryKind", "HandRecord",
    "Journal",
    "canonical_json", "entry_hash", "thaw",
]

#: Version of the on-disk schema of a journal created now (:mod:`.layout`); a journal of a
#: version not in :data:`.layout.SCHEMAS` is refused.
SCHEMA_VERSION = layout.CURRENT

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


class Journal(JournalWriting):
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
