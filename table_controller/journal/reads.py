"""The journal's read paths: entries, hands, stored replies, every row checked as it is read.

Rules this module keeps (the journal's rule 4, :mod:`.store`):

1. Every row read is checked against the verified chain (:meth:`.chain.Chain.check`); rows
   appended since by a writer beside a read-only handle are verified as they are reached.
2. Lookups (a command's reply, a hand's entries) come from the chain in memory, never from an
   SQLite index or side table.
3. A journal opened from a checkpoint knows the entries before it only by their pins: a read
   that needs any other one verifies the whole chain first (:meth:`JournalReads._complete`),
   once; recent hands, the last entry of each kind and the configurations never need it.
4. Entries moved into archive files (:mod:`.archive`) are read from them, across files, in
   order: a row the verified chain knows is checked against it; any other against the chain
   of its archive, verified whole (SHA-256 and every entry) the first time it is used. A hand
   is in one file (archives are cut at checkpoints, between hands).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from table_controller.errors import JournalDamagedError, JournalError
from table_controller.journal import layout
from table_controller.journal.archive import (
    ArchiveFile,
    ArchiveRecord,
    check_present,
    read_rows,
    records_of,
)
from table_controller.journal.chain import (
    GENESIS_HASH,
    Chain,
    Entry,
    EntryKind,
    HandRecord,
    NotVerified,
    Row,
    thaw,
)
from table_controller.journal.chain import archives_of as archives_of_entry
from table_controller.journal.watch import WriteWatch

#: Archive files a journal keeps open at most (each verified one keeps its chain in memory).
OPEN_ARCHIVES = 8


class JournalReads:
    """The read paths of :class:`~.store.Journal` (a mixin: the journal owns the state)."""

    _conn: sqlite3.Connection
    #: The journal's one-write-at-a-time lock (:mod:`.store`, rule 8).
    _lock: threading.RLock
    #: The threads inside a write (:mod:`.watch`).
    watch: WriteWatch
    _path: Path
    _readonly: bool
    _chain: Chain
    #: The file's schema (:mod:`.layout`).
    _schema: int
    #: The journal's archives, oldest first (:mod:`.archive`).
    _records: tuple[ArchiveRecord, ...]
    #: The archives opened so far, by file name.
    _files: dict[str, ArchiveFile]

    @property
    def _floor(self) -> int:
        """The last archived entry (0: none); the live file holds the entries after it."""
        return self._records[-1].last if self._records else 0

    @property
    def archives(self) -> tuple[ArchiveRecord, ...]:
        """The journal's archive files, oldest first (:mod:`.archive`)."""
        return self._records

    def _archive(self, rec: ArchiveRecord) -> ArchiveFile:
        """Return archive ``rec``, open (checked cheaply: :func:`.archive.check_present`)."""
        f = self._files.pop(rec.file, None)
        if f is None:
            f = ArchiveFile(check_present(self._path, rec), rec)
            if len(self._files) >= OPEN_ARCHIVES:  # the least recently used one is closed
                self._files.pop(next(iter(self._files))).close()
        self._files[rec.file] = f  # (the most recently used last)
        return f

    def _close_archives(self) -> None:
        for f in self._files.values():
            f.close()
        self._files.clear()

    def _adopt_archives(self) -> None:
        """Take the archives a daemon made since this reader opened (verified by catch-up).

        :raises JournalDamagedError: if the new list does not match the verified chain.
        """
        try:
            row = self._conn.execute("SELECT value FROM meta WHERE key = 'archives'").fetchone()
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            raise self._unreadable(exc) from exc
        if row is None:
            return
        try:
            raw = json.loads(str(row[0]))
        except ValueError:
            raise JournalDamagedError(f"journal {self._path}: its list of archives is "
                                      "damaged") from None
        records = records_of(raw, str(self._path))
        if len(records) > len(self._records):
            self._records = records
            self._catch_up()

    def _match_archives(self) -> None:
        """Check the verified chain's list of archives against the one being used.

        :raises JournalDamagedError: if they differ.
        """
        recorded = self._chain.archives
        if recorded is None:
            seq = self._chain.last_of.get(EntryKind.ARCHIVE)
            if seq is None:
                if self._records:
                    raise JournalDamagedError(
                        f"journal {self._path} lists archives but has no archive entry "
                        "(rolled back past it?)")
                return
            recorded = archives_of_entry(self.get(seq))
        if records_of(recorded, str(self._path)) != self._records:
            raise JournalDamagedError(
                f"journal {self._path}: its list of archives does not match its last archive "
                f"entry {self._chain.last_of.get(EntryKind.ARCHIVE)} (altered)")

    def _check_open(self) -> None:
        raise NotImplementedError

    def _complete(self) -> None:
        """Verify the whole chain (a journal opened from a checkpoint)."""
        raise NotImplementedError

    def _unreadable(self, exc: BaseException) -> JournalDamagedError:
        return JournalDamagedError(f"journal {self._path} cannot be read (damaged): {exc}")

    @property
    def last_hand(self) -> int:
        """Number of the last hand started (0 when none)."""
        return self._chain.last_hand

    @property
    def verified_from(self) -> int:
        """First entry this handle verified the chain from (1: all; else a checkpoint)."""
        return self._chain.base + 1

    @property
    def last_seq(self) -> int:
        """Sequence number of the last verified entry (0 when empty)."""
        return self._chain.count

    def _command_entry(self, console_id: str, seq: int) -> Entry | None:
        self._check_open()
        at = self._chain.commands.get((console_id, seq))
        if at is None and self._readonly:
            self._catch_up()
            at = self._chain.commands.get((console_id, seq))
        if at is None and seq <= self._chain.last_command.get(console_id, -1):
            if self._chain.base > self._floor:
                self._complete()  # an old command: its entry is before the verified window
                at = self._chain.commands.get((console_id, seq))
            for rec in reversed(self._records):  # an older one: in an archive
                if at is not None:
                    break
                at = self._archive(rec).chain().commands.get((console_id, seq))
        return None if at is None else self.get(at)

    def reply_for(self, console_id: str, seq: int) -> dict[str, Any] | None:
        """Return the stored reply for command ``(console_id, seq)``, or ``None`` if unseen.

        :raises JournalDamagedError: if the command's entry cannot be read back as verified.
        """
        entry = self._command_entry(console_id, seq)
        if entry is None:
            return None
        reply: dict[str, Any] = thaw(entry.payload.get("reply", {}))
        return reply

    def stored_command(
        self, console_id: str, seq: int
    ) -> tuple[Mapping[str, Any], dict[str, Any]] | None:
        """Return ``(command, reply)`` recorded for ``(console_id, seq)``, or ``None`` if unseen.

        :raises JournalDamagedError: if the command's entry cannot be read back as verified.
        """
        entry = self._command_entry(console_id, seq)
        if entry is None:
            return None
        command = entry.payload.get("command", {})
        reply: dict[str, Any] = thaw(entry.payload.get("reply", {}))
        return command, reply

    def last_command_seq(self, console_id: str) -> int | None:
        """Return the highest command sequence number stored for a console, or ``None``."""
        self._check_open()
        return self._chain.last_command.get(console_id)

    def newest_seq(self) -> int:
        """Return the sequence number of the newest entry on disk now (0 when empty).

        Unlike :attr:`last_seq` (this handle's verified head), this sees entries another process
        appended since this read-only handle was opened (a shipper beside the daemon).

        :raises JournalDamagedError: if the database cannot be read.
        """
        self._check_open()
        try:
            row = self._conn.execute("SELECT MAX(seq) FROM entries").fetchone()
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            raise self._unreadable(exc) from exc
        return 0 if row is None or row[0] is None else int(row[0])

    def _stored_hash(self, seq: int) -> str | None:
        """Return the hash of entry ``seq``: verified if known, else as stored (or ``None``)."""
        if seq == 0:
            return GENESIS_HASH
        if self._chain.known(seq) and seq <= self._chain.count:
            return self._chain.digest(seq)
        if self._records and seq == self._floor:
            return self._records[-1].last_hash  # the live file's first entry chains to it
        with self._lock:
            row = self._conn.execute("SELECT hash FROM entries WHERE seq = ?",
                                     (seq,)).fetchone()
        if row is None:
            return None
        digest = row[0]
        if isinstance(digest, bytes):
            return digest.hex() if len(digest) == 32 else None
        return digest if isinstance(digest, str) else None

    def _row(self, seq: int) -> Row | None:
        """Return stored row ``seq`` of the live file as it is, unchecked (``None``: none)."""
        with self._lock:
            raw = self._conn.execute(f"SELECT {layout.COLUMNS[self._schema]} FROM entries "
                                     "WHERE seq = ?", (seq,)).fetchall()
        return next(layout.rows(self._schema, raw, self._stored_hash), None)

    def _rows(self, lo: int, hi: int | None) -> Iterator[Row]:
        """Yield the stored rows ``lo < seq <= hi`` in order, across files (rule 4)."""
        for rec in self._records:
            if rec.last <= lo:
                continue
            if hi is not None and rec.first > hi:
                return
            yield from self._archive(rec).rows(lo, hi)
            lo = rec.last
        lo = max(lo, self._floor)
        if hi is not None and hi <= lo:
            return
        yield from read_rows(self._conn, self._schema, lo, hi, lambda: self._chain.count,
                             self._stored_hash, self._chain.bad, self._unreadable)

    def _checked(self, row: Row) -> Entry:
        """Check a row read (rule 4): against the verified chain, else its archive's."""
        seq = row[0]
        if isinstance(seq, int) and seq <= self._floor and not self._chain.known(seq):
            rec = next(r for r in self._records if r.holds(seq))
            return self._archive(rec).chain().check(row)
        try:
            return self._chain.check(row)
        except NotVerified:
            self._complete()
            return self._chain.check(row)

    def _hand_span(self, hand: int) -> tuple[int, int | None] | None:
        """Return where hand ``hand`` is (its first and last entry), or ``None``."""
        span = self._chain.hands.get(hand)
        if span is not None or not 0 < hand <= self._chain.last_hand:
            return span
        rec = next((r for r in self._records if r.holds_hand(hand)), None)
        if rec is not None:
            return self._archive(rec).chain().hands.get(hand)
        if self._chain.base > self._floor:
            self._complete()  # an old hand: before the verified window
        return self._chain.hands.get(hand)

    def _catch_up(self, upto: int | None = None) -> None:
        """Verify the rows appended (by a writer beside this handle) up to ``upto``."""
        for row in self._rows(self._chain.count, upto):
            self._chain.check(row)
        if self._chain.archives is not None and \
                records_of(self._chain.archives, str(self._path)) != self._records:
            self._match_archives()  # (raises: the list differs from the verified one)

    def entries(
        self, since: int = 0, *, until: int | None = None, hand: int | None = None
    ) -> Iterator[Entry]:
        """Iterate over entries with ``seq > since`` (and ``<= until``), in order.

        Entries are read in batches of 1000, so a long journal is not loaded whole; appending
        while iterating is allowed (new entries are included). Every entry is checked against
        the verified chain (rule 4).

        :param since: skip entries up to and including this sequence number (0 = from the start).
        :param until: stop after this sequence number (``None`` = to the end).
        :param hand: only entries of this hand.
        :raises JournalDamagedError: if a row is missing, altered or unreadable.
        """
        self._check_open()
        if self._readonly:
            self._adopt_archives()
        lo, hi = max(0, since), until
        if hand is not None:
            if hand not in self._chain.hands and self._readonly:
                self._catch_up()
            span = self._hand_span(hand)
            if span is None:
                return
            start, end = span
            lo = max(lo, start - 1)
            if end is not None:
                hi = end if hi is None else min(hi, end)
        if hi is not None and hi <= lo:
            return
        live = max(lo, self._floor)  # (the entries up to the floor are archived: rule 4)
        if live < self._chain.base and (hi is None or hi > live) and \
                not (hi == lo + 1 and self._chain.known(hi)):
            self._complete()  # entries before the verified window (one pinned entry is known)
        if lo > self._chain.count:
            self._catch_up(lo)
        for row in self._rows(lo, hi):
            entry = self._checked(row)
            if hand is not None and entry.hand != hand:
                return
            yield entry

    def get(self, seq: int) -> Entry:
        """Return entry ``seq``.

        :raises JournalError: if there is no such entry.
        """
        for e in self.entries(since=seq - 1, until=seq):
            return e
        raise JournalError(f"no entry {seq} (the journal has {self.last_seq})")

    def hand_entries(self, hand: int) -> HandRecord:
        """Return every entry of hand number ``hand``.

        :raises JournalError: if there is no such hand.
        """
        entries = tuple(self.entries(hand=hand))
        if not entries:
            raise JournalError(f"no hand {hand} (the journal has hands 1..{self.last_hand})")
        return HandRecord(hand, entries, entries[-1].kind is EntryKind.HAND_END)

    def recent_hands(self, n: int = 10) -> list[HandRecord]:
        """Return the last ``n`` hands (including one in progress), oldest first.

        :raises JournalError: if ``n`` < 1.
        """
        if n < 1:
            raise JournalError(f"number of hands must be >= 1, got {n}")
        first = max(1, self.last_hand - n + 1)
        return [self.hand_entries(h) for h in range(first, self.last_hand + 1)]
