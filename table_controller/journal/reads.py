"""The journal's read paths: entries, hands, stored replies, every row checked as it is read.

Rules this module keeps (the journal's rule 4, :mod:`.store`):

1. Every row read is checked against the verified chain (:meth:`.chain.Chain.check`); rows
   appended since by a writer beside a read-only handle are verified as they are reached.
2. Lookups (a command's reply, a hand's entries) come from the chain in memory, never from an
   SQLite index or side table.
3. A journal opened from a checkpoint knows the entries before it only by their pins: a read
   that needs any other one verifies the whole chain first (:meth:`JournalReads._complete`),
   once; recent hands, the last entry of each kind and the configurations never need it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from table_controller.errors import JournalDamagedError, JournalError
from table_controller.journal import layout
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

_BATCH = 1000


class JournalReads:
    """The read paths of :class:`~.store.Journal` (a mixin: the journal owns the state)."""

    _conn: sqlite3.Connection
    _path: Path
    _readonly: bool
    _chain: Chain
    #: The file's schema (:mod:`.layout`).
    _schema: int

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
        if at is None and not self._chain.complete and \
                seq <= self._chain.last_command.get(console_id, -1):
            self._complete()  # an old command: its entry is before the verified window
            at = self._chain.commands.get((console_id, seq))
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
        row = self._conn.execute("SELECT hash FROM entries WHERE seq = ?", (seq,)).fetchone()
        if row is None:
            return None
        digest = row[0]
        if isinstance(digest, bytes):
            return digest.hex() if len(digest) == 32 else None
        return digest if isinstance(digest, str) else None

    def _row(self, seq: int) -> Row | None:
        """Return stored row ``seq`` as it is, unchecked (``None`` if there is none)."""
        raw = self._conn.execute(f"SELECT {layout.COLUMNS[self._schema]} FROM entries "
                                 "WHERE seq = ?", (seq,)).fetchall()
        return next(layout.rows(self._schema, raw, self._stored_hash), None)

    def _rows(self, lo: int, hi: int | None) -> Iterator[Row]:
        """Yield the stored rows ``lo < seq <= hi`` in order, checking none is missing."""
        sql = f"SELECT {layout.COLUMNS[self._schema]} FROM entries WHERE seq > ?"
        if hi is not None:
            sql += " AND seq <= ?"
        sql += f" ORDER BY seq LIMIT {_BATCH}"
        expected = lo + 1
        last: tuple[int, str | None] | None = None

        def prev_of(seq: int) -> str | None:
            if last is not None and last[0] == seq:
                return last[1]
            return self._stored_hash(seq)

        while True:
            params = (expected - 1,) if hi is None else (expected - 1, hi)
            try:
                rows = list(layout.rows(self._schema, self._conn.execute(sql, params).fetchall(),
                                        prev_of))
            except (sqlite3.Error, UnicodeDecodeError) as exc:
                raise self._unreadable(exc) from exc
            if rows:
                last = (rows[-1][0], rows[-1][7])
            for row in rows:
                if row[0] != expected:
                    raise self._chain.bad(expected, f"entry {expected} is missing "
                                                    f"(next is {row[0]!r})")
                yield row
                expected += 1
            known = self._chain.count if hi is None else min(hi, self._chain.count)
            if expected <= known and not rows:
                raise self._chain.bad(expected,
                                      f"entries {expected}..{known} are gone (truncated)")
            if len(rows) < _BATCH and expected > known:
                break

    def _catch_up(self, upto: int | None = None) -> None:
        """Verify the rows appended (by a writer beside this handle) up to ``upto``."""
        for row in self._rows(self._chain.count, upto):
            self._chain.check(row)

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
        lo, hi = max(0, since), until
        if hand is not None:
            if hand not in self._chain.hands and self._readonly:
                self._catch_up()
            if hand not in self._chain.hands and not self._chain.complete and \
                    0 < hand <= self._chain.last_hand:
                self._complete()  # an old hand: before the verified window
            span = self._chain.hands.get(hand)
            if span is None:
                return
            start, end = span
            lo = max(lo, start - 1)
            if end is not None:
                hi = end if hi is None else min(hi, end)
        if hi is not None and hi <= lo:
            return
        if lo < self._chain.base and not (hi == lo + 1 and self._chain.known(hi)):
            self._complete()  # entries before the verified window (one pinned entry is known)
        if lo > self._chain.count:
            self._catch_up(lo)
        for row in self._rows(lo, hi):
            try:
                entry = self._chain.check(row)
            except NotVerified:  # pragma: no cover - the window was completed above
                self._complete()
                entry = self._chain.check(row)
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
