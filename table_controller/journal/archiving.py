"""Archiving: moving a journal's old entries into sealed archive files (:mod:`.archive`).

Rules this module keeps:

1. Only a writer archives, only whole verified entries, and only up to (not including) a
   ``checkpoint`` entry: that checkpoint stays the first entry of the live file, so an open
   still verifies from a checkpoint and a restart still replays from the last one.
2. Each archive is made in three steps, each leaving a state an open verifies:

   a. the archive is written whole as ``<file>.pending`` (synced, read-only);
   b. one transaction of the live file appends the ``archive`` entry (listing every archive,
      the new one included), keeps that list in ``meta`` and deletes the archived rows;
   c. the file gets its final name (the directory synced).

   A crash before (b) leaves the old journal and an unrecorded ``.pending`` file (removed at
   the next writer's open); one after (b) a recorded ``.pending`` file (renamed at the next
   writer's open). Nothing in between exists (b is one SQLite transaction).
3. The archive of a cut closes the gaming day of its last entry (its file is named after it):
   the daemon writes a checkpoint once a gaming day has ended, between hands, and cuts there,
   so its archives hold one gaming day each; ``journal archive --before DATE`` cuts at the
   last checkpoint of each gaming day before ``DATE`` (:meth:`JournalArchiving.cuts_before`).
4. After archiving, the live file is shrunk (``VACUUM``) when no reader holds it; it is one
   atomic SQLite operation that changes no entry.
"""

from __future__ import annotations

import datetime
import logging
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from table_controller.errors import JournalError
from table_controller.journal.anchor import fsync_dir
from table_controller.journal.archive import (
    PENDING,
    ArchiveRecord,
    archive_files,
    archive_name,
    gaming_day,
    hint_json,
    write_file,
)
from table_controller.journal.chain import Entry, EntryKind, Row
from table_controller.journal.verifying import JournalVerify

log = logging.getLogger(__name__)

#: The steps of one archiving, in order (named to a ``step`` observer: crash tests).
STEPS = ("written", "recorded", "renamed")


def _no_step(_name: str) -> None:
    return None


class JournalArchiving(JournalVerify):
    """The archiving of :class:`~.store.Journal` (a mixin: the journal owns the state)."""

    def _append(self, kind: EntryKind | str, payload: Any, wall_time: float, mono_time: float,
                anchor: bool = True, also: Any = None) -> Entry:
        raise NotImplementedError

    def live_since(self) -> float | None:
        """Return the wall time of the live file's first entry (``None``: the journal is empty).

        Read as stored, unverified: it only tells whether an archiving is due (which verifies
        every entry it moves).
        """
        if self.last_seq <= self._floor:
            return None
        row = self._row(self._floor + 1)
        return float(row[2]) if row is not None and isinstance(row[2], float) else None

    def cuts_before(self, day: datetime.date, at: datetime.time) -> list[int]:
        """Return the checkpoints to cut at to archive every gaming day before ``day`` (rule 3).

        :param at: the hour gaming days start.
        """
        self._complete()
        last: dict[datetime.date, int] = {}
        prev_wall: float | None = None
        for entry in self.entries(since=self._floor):
            if entry.kind is EntryKind.CHECKPOINT and prev_wall is not None and \
                    entry.seq > self._floor + 1:
                closes = gaming_day(prev_wall, at)
                if closes < day:
                    last[closes] = entry.seq
            prev_wall = entry.wall_time
        return sorted(last.values())

    def archive(self, cuts: Sequence[int], *, at: datetime.time, wall_time: float,
                mono_time: float, step: Callable[[str], None] = _no_step,
                day: datetime.date | None = None) -> list[ArchiveRecord]:
        """Archive the live entries before each checkpoint of ``cuts`` (rules 1 and 2).

        :param cuts: sequence numbers of ``checkpoint`` entries, increasing.
        :param at: the hour gaming days start (names the files).
        :param step: told each step's name (:data:`STEPS`) once it is durable.
        :param day: the gaming day a single cut closes (names its file; default: the gaming day
            of the last entry archived). The daemon names the day that ended, though the hand
            it cut after may have ended in the next one.
        :returns: the new archives' records.
        :raises JournalError: on a read-only journal, a cut that is not a later checkpoint, or a
            write failure; :class:`~table_controller.errors.JournalDamagedError` if an entry to
            archive does not verify.
        """
        self._check_open()
        if self._readonly:
            raise JournalError(f"journal {self._path} is open read-only")
        done = []
        if day is not None and len(cuts) != 1:
            raise JournalError("a gaming day names the archive of one cut")
        # no commit of another thread in between (:mod:`.store`, rule 8)
        with self.watch.writing(), self._lock:
            for cut in cuts:
                done.append(self._archive_one(cut, at, wall_time, mono_time, step, day))
            if done:
                self._shrink()
        return done

    def _shrink(self) -> None:
        """Give the pages of the archived rows back to the file system (best effort, rule 4).

        A reader beside the writer (a shipper) may hold the database: then the pages stay free
        for the next entries, and the next archiving tries again.
        """
        try:
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._conn.execute("VACUUM")
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as exc:
            log.info("journal %s: not shrunk after archiving (%s); its free pages are reused",
                     self._path, exc)

    def _archive_one(self, cut: int, at: datetime.time, wall_time: float, mono_time: float,
                     step: Callable[[str], None], closes: datetime.date | None
                     ) -> ArchiveRecord:
        floor = self._floor
        if not floor + 1 < cut <= self.last_seq or self.get(cut).kind is not EntryKind.CHECKPOINT:
            raise JournalError(f"journal {self._path}: cannot archive before entry {cut} (an "
                               f"archive ends before a checkpoint after entry {floor + 1})")
        self._complete()
        rows: list[Row] = []
        for row in self._rows(floor, cut - 1):
            self._chain.check(row)
            rows.append(row)
        last = self.get(cut - 1)
        day = (closes or gaming_day(last.wall_time, at)).isoformat()
        taken = [r.file for r in self._records] + \
            [p.name.removesuffix(PENDING) for p in archive_files(self._path)]
        name = archive_name(self._path, day, taken)
        final = self._path.parent / name
        pending = final.with_name(name + PENDING)
        sha, size = write_file(pending, self._schema, rows, day=day, journal=self._path.name)
        fsync_dir(self._path.parent)
        step(STEPS[0])
        hands = sorted(h for h, (start, _end) in self._chain.hands.items()
                       if floor < start < cut)
        rec = ArchiveRecord(name, day, floor + 1, cut - 1,
                            (hands[0], hands[-1]) if hands else None,
                            self._stored_hash(floor) or "", last.hash, sha, size)
        records = (*self._records, rec)
        span = f"hands {hands[0]}..{hands[-1]}" if hands else "no hand"
        payload = {"text": f"entries {rec.first}..{rec.last} ({span}, gaming day {day}) "
                           f"archived to {name}",
                   "archived": rec.to_json(), "archives": [r.to_json() for r in records]}

        def move(c: Any) -> None:
            c.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('archives', ?)",
                      (hint_json(records),))
            c.execute("DELETE FROM entries WHERE seq < ?", (cut,))

        self._append(EntryKind.ARCHIVE, payload, wall_time, mono_time, also=move)
        self._records = records
        step(STEPS[1])
        pending.replace(final)
        fsync_dir(self._path.parent)
        step(STEPS[2])
        return rec
