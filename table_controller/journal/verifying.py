"""Verifying a journal: the whole chain across its files, or from a checkpoint (the open).

Rules this module keeps (the journal's rule 3, :mod:`.store`):

1. :meth:`JournalVerify.verify` checks the live database (``PRAGMA quick_check``), every
   archive (:mod:`.archive`: its SHA-256, then each of its entries, continuing the chain of the
   one before it), every entry of the live file, the head kept in ``meta``, and the list of
   archives against the chain's last ``archive`` entry. The first damage is named with its file
   and sequence number.
2. An open verifies from a checkpoint at least :data:`WINDOW_HANDS` hands back (the ``meta``
   hint), else from the live file's first entry (a checkpoint, once the journal was archived),
   else everything; it checks every archive cheaply (:func:`.archive.check_present`) and that
   no file of an archive's name lies beside the journal unrecorded (a journal rolled back past
   an ``archive`` entry). An archive is verified whole when a read first needs it.
3. A writer's open completes an archiving a crash interrupted (:mod:`.archiving`): it gives
   a recorded ``.pending`` file its final name and removes an unrecorded one.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3

from table_controller.errors import JournalDamagedError
from table_controller.journal.anchor import Anchor, Head, check_anchor, fsync_dir
from table_controller.journal.archive import (
    PENDING,
    archive_files,
    check_present,
    records_of,
)
from table_controller.journal.chain import Chain, EntryKind, Row
from table_controller.journal.reads import JournalReads

log = logging.getLogger(__name__)

#: An open verifies from a checkpoint at least this many hands before the last one (rule 2):
#: ``recall --hands 10`` then reads verified entries only.
WINDOW_HANDS = 10


class JournalVerify(JournalReads):
    """The verification paths of :class:`~.store.Journal` (a mixin: the journal owns the state)."""

    _fresh: bool
    _anchor: Anchor | None

    def _meta(self, key: str) -> str | None:
        raise NotImplementedError

    def _load_archives(self) -> None:
        """Read the list of archives the ``meta`` table keeps (checked against the chain later).

        :raises JournalDamagedError: if it is malformed.
        """
        raw = self._meta("archives")
        try:
            data = json.loads(raw) if raw is not None else []
        except ValueError:
            raise JournalDamagedError(f"journal {self._path}: its list of archives is "
                                      "damaged") from None
        self._records = records_of(data, str(self._path))

    def _check_files(self) -> None:
        """Check every archive cheaply and look for unrecorded ones (rule 2); finish (rule 3)."""
        recorded = {r.file for r in self._records}
        for path in archive_files(self._path):
            base = path.name.removesuffix(PENDING)
            if base in recorded:
                continue
            if path.name.endswith(PENDING):
                if not self._readonly:  # an archiving a crash cut before it was recorded
                    log.warning("removing %s: an archive never recorded (interrupted)", path)
                    os.chmod(path, 0o644)
                    path.unlink()
                continue
            raise JournalDamagedError(
                f"archive {path} is not recorded by journal {self._path} (the journal was "
                "rolled back past its archive entry, or the file was put there)")
        for rec in self._records:
            path = check_present(self._path, rec)  # checked cheaply (opened when read)
            if path.name.endswith(PENDING) and not self._readonly:
                os.replace(path, self._path.parent / rec.file)
                fsync_dir(self._path.parent)
                log.warning("archive %s: renamed from %s (an archiving interrupted after it "
                            "was recorded)", rec.file, path.name)

    def _check_anchor(self, head: Head | None) -> None:
        """Check the verified chain against the anchor read before it (rules 1 and 3)."""
        if head is not None and 0 < head.seq <= self._floor:
            raise JournalDamagedError(
                f"journal {self._path}: its anchor records entry {head.seq}, which is archived "
                f"(the journal's live file starts at entry {self._floor + 1}): an old anchor "
                "put back")
        if head is not None and not self._chain.known(head.seq):
            self._complete()  # an anchor older than the verified window (an old one put back?)
        chain = self._chain
        expected = self._meta("anchored") == "1" and not self._fresh
        if check_anchor(self._path, head, chain.count, chain.digest, expected=expected,
                        readonly=self._readonly):
            self._conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('anchored', '1')")
            self._anchor = Anchor(self._path, Head(chain.count, chain.head))

    def verify(self) -> int:
        """Check the database, every archive, the whole chain, the hand brackets, the head.

        Also restores the in-memory chain (head, hands, commands) from disk.

        :returns: the number of entries verified.
        :raises JournalDamagedError: naming the file and the first bad sequence number.
        """
        self._check_open()
        # one read transaction: a daemon appending meanwhile (recall beside it) is not seen
        try:
            self._conn.execute("BEGIN")
            try:
                count = self._verify()
            finally:
                self._conn.execute("COMMIT")
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            raise self._unreadable(exc) from exc
        self._match_archives()
        return count

    def _verify_recent(self) -> None:
        """Verify from the checkpoint the ``meta`` hint names (rule 2), else everything."""
        try:
            self._conn.execute("BEGIN")
            try:
                base = self._base()
                if base is None:
                    self._verify()
                else:
                    self._verify(base)
            finally:
                self._conn.execute("COMMIT")
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            raise self._unreadable(exc) from exc

    def _base(self) -> tuple[Row, Chain] | None:
        """Return the checkpoint row to verify from, and the chain it resumes, or ``None``."""
        floor = self._floor
        try:
            hints = [(int(seq), int(hand)) for seq, hand in json.loads(
                self._meta("checkpoints") or "[]") if int(seq) > floor]
        except (ValueError, TypeError):
            hints = []  # a damaged hint: verify everything (which finds the damage)
        newest = max((hand for _, hand in hints), default=0)
        old = [seq for seq, hand in hints if hand <= newest - WINDOW_HANDS]
        if old:
            base = self._checkpoint_base(max(old))
            if base is not None:
                return base
        if not floor:
            return None
        base = self._checkpoint_base(floor + 1)
        if base is None:
            raise JournalDamagedError(
                f"journal {self._path} does not verify: first bad sequence number {floor + 1}: "
                "the live file does not start at the checkpoint its last archive ends before")
        return base

    def _checkpoint_base(self, seq: int) -> tuple[Row, Chain] | None:
        row = self._row(seq)
        if row is None or row[1] != EntryKind.CHECKPOINT.value or not isinstance(row[5], str):
            return None
        try:
            summary = json.loads(row[5])["chain"]
            if not isinstance(summary, dict) or summary.get("count") != row[0] - 1:
                return None
        except (ValueError, TypeError, KeyError):
            return None
        return row, Chain.resumed(str(self._path), summary, str(row[6]))

    def _complete(self) -> None:
        """Verify the whole live file (a read before the window of a journal opened recently).

        Without archives that is the whole chain; with archives, from the live file's first
        entry (archived entries are checked against their archive's chain: :mod:`.reads`).
        """
        if self._chain.base <= self._floor:
            return
        if not self._floor:
            self.verify()
            return
        try:
            self._conn.execute("BEGIN")
            try:
                self._verify(self._base_at_floor())
            finally:
                self._conn.execute("COMMIT")
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            raise self._unreadable(exc) from exc

    def _base_at_floor(self) -> tuple[Row, Chain]:
        base = self._checkpoint_base(self._floor + 1)
        if base is None:
            raise self._chain.bad(self._floor + 1, "the live file does not start at a checkpoint")
        return base

    def _verify(self, base: tuple[Row, Chain] | None = None) -> int:
        if base is None:
            problems = [str(r[0]) for r in self._conn.execute("PRAGMA quick_check(5)")]
            if problems != ["ok"]:
                raise JournalDamagedError(f"journal {self._path} is damaged (SQLite check: "
                                          f"{'; '.join(problems)[:300]})")
            chain = Chain(str(self._path))
            for rec in self._records:
                f = self._archive(rec)
                f.check_whole()
                chain.where = str(f.path)
                if chain.count != rec.first - 1 or chain.head != rec.prev_hash:
                    raise chain.bad(rec.first, "does not continue the chain of the archive "
                                               "before it (swapped or replaced)")
                for row in f.rows(chain.count):
                    chain.add(row)
                if chain.count != rec.last or chain.head != rec.last_hash:
                    raise chain.bad(chain.count, "its last entry is not the one the journal "
                                                 "recorded")
            chain.where = str(self._path)
        else:
            chain = base[1]
        saved, self._chain = self._chain, chain  # (the live rows' prev hashes come from it)
        try:
            for row in self._rows(chain.count, None):
                chain.add(row)
        finally:
            self._chain = saved
        count = chain.count
        head_seq = self._meta("head_seq")
        head_hash = self._meta("head_hash")
        if head_seq != str(count) or head_hash != chain.head:
            raise chain.bad(
                count + 1 if head_seq is not None and head_seq.isdigit() and int(head_seq) > count
                else max(count, 1),
                f"truncated or altered: the head records entry {head_seq}, "
                f"the log ends at entry {count}",
            )
        self._chain = chain
        return count
