"""The journal's write paths: appends, group commits, checkpoints, the anchor and the WAL.

Rules this module keeps (the journal's rules 1, 5, 6, 7, 8 and 9, :mod:`.store`):

1. Every append is committed durably, then its head is written to the anchor file
   (:mod:`.anchor`), before it returns; ``anchor=False`` defers the anchor to
   :meth:`JournalWriting.sync_anchor`, the next append or the close (at most one behind).
2. A hand bracket out of order, an unknown kind, a bad payload or a non-finite time is refused
   before anything is written; several entries (a group commit) are one transaction, all or
   none.
3. One write at a time, from any thread: every write holds the journal's lock and is marked in
   its :class:`~.watch.WriteWatch`; the chain (:mod:`.chain`) and the anchor follow the commit.
4. A ``checkpoint`` entry is written between hands only, and its sequence and hand numbers are
   kept in the ``meta`` table as a hint where an open starts verifying (:mod:`.verifying`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from table_controller.errors import JournalError
from table_controller.journal import layout
from table_controller.journal.anchor import Head
from table_controller.journal.archiving import JournalArchiving
from table_controller.journal.chain import Entry, EntryKind, Row, canonical_json, entry_hash
from table_controller.journal.records import CommandRecord, command_payloads

#: Version of the checkpoint entry's payload.
CHECKPOINT_VERSION = 1
#: Checkpoints kept in the ``meta`` hint.
_HINTS = 8


class JournalWriting(JournalArchiving):
    """The write paths of :class:`~.store.Journal` (a mixin: the journal owns the state)."""

    _closed: bool
    #: How many times :meth:`checkpoint_wal` started the WAL over.
    _restarts: int

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
