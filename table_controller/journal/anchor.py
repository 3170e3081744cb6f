"""The journal's anchor: the head (last sequence number and hash) in a small file beside it.

The head kept inside the SQLite file rolls back with it: a deleted or damaged ``-wal`` file, a
cut tail with a rewritten head, or an old copy put back, all open as a shorter, consistent
journal. The anchor, ``<journal>.anchor``, is a second witness outside the database.

Rules this module keeps:

1. The anchor is written *after* each commit, and is durable when :meth:`Anchor.write`
   returns (``fdatasync``). So the journal is never behind its anchor, and at most one entry
   ahead of it (a power cut between the commit and the anchor's write). A write may be
   deferred (``defer=True``: the daemon publishes the entry first); it is done by
   :meth:`Anchor.sync`, which the journal calls before its next commit and at the close, so a
   deferred anchor is still never more than one entry behind.
2. Two slots of :data:`SLOT` bytes, written in turn (entry ``n`` into slot ``n % 2``), each with
   its own checksum: a torn write spoils only the slot being written, and the other still holds
   the head before it. The valid slot with the highest sequence number is the anchor.
3. The file is created once, whole: written to a temporary file, synced, renamed, and the
   directory synced.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from table_controller.errors import JournalDamagedError, JournalError

log = logging.getLogger(__name__)

#: Bytes per slot.
SLOT = 128
_MAGIC = "TCJA1"


@dataclass(frozen=True, slots=True)
class Head:
    """A journal's head: ``seq`` of its last entry (= the entry count) and that entry's hash."""

    seq: int
    hash: str


def anchor_path(journal: Path) -> Path:
    """Return the anchor file of ``journal`` (``<journal>.anchor``)."""
    return journal.with_name(journal.name + ".anchor")


def _slot(head: Head) -> bytes:
    body = f"{_MAGIC} {head.seq} {head.hash}"
    check = hashlib.sha256(body.encode()).hexdigest()[:16]
    return f"{body} {check}\n".encode().ljust(SLOT, b" ")


def _parse(raw: bytes) -> Head | None:
    try:
        magic, seq, digest, check = raw.decode("ascii").split()
    except (UnicodeDecodeError, ValueError):
        return None
    body = f"{magic} {seq} {digest}"
    if (magic != _MAGIC or not seq.isdigit() or len(digest) != 64
            or hashlib.sha256(body.encode()).hexdigest()[:16] != check):
        return None
    return Head(int(seq), digest)


def read_anchor(journal: Path) -> Head | None:
    """Return the anchored head of ``journal``, or ``None`` when there is no anchor file.

    :raises JournalDamagedError: if the file exists but neither slot is valid.
    """
    path = anchor_path(journal)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise JournalDamagedError(f"journal anchor {path} cannot be read: {exc}") from exc
    heads = [h for h in (_parse(raw[:SLOT]), _parse(raw[SLOT:2 * SLOT])) if h is not None]
    if not heads:
        raise JournalDamagedError(f"journal anchor {path} is damaged (no valid slot)")
    return max(heads, key=lambda h: h.seq)


def fsync_dir(directory: Path) -> None:
    """Make a file's creation or rename in ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Anchor:
    """The open anchor file of one journal (the writer's).

    :param journal: the journal file.
    :param head: the head to write at once (creating or resetting the file).
    :raises JournalError: if the file cannot be written.
    """

    def __init__(self, journal: Path, head: Head) -> None:
        self.path = anchor_path(journal)
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            with open(tmp, "wb") as f:
                f.write(_slot(head) + _slot(head))
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
            fsync_dir(self.path.parent)
            self._fd: int | None = os.open(self.path, os.O_RDWR)
        except OSError as exc:
            raise JournalError(f"cannot write journal anchor {self.path}: {exc}") from exc
        #: the head a deferred :meth:`write` keeps for :meth:`sync`
        self.pending: Head | None = None

    def write(self, head: Head, *, defer: bool = False) -> None:
        """Write ``head`` into its slot and make it durable (``defer``: at :meth:`sync`).

        :raises JournalError: if it cannot be written.
        """
        if defer:
            self.pending = head
            return
        if self._fd is None:
            raise JournalError(f"journal anchor {self.path} is closed")
        try:
            os.pwrite(self._fd, _slot(head), (head.seq % 2) * SLOT)
            os.fdatasync(self._fd)
        except OSError as exc:
            raise JournalError(f"cannot write journal anchor {self.path}: {exc}") from exc
        if self.pending is not None and self.pending.seq <= head.seq:
            self.pending = None

    def sync(self) -> None:
        """Write the head a deferred :meth:`write` kept (nothing when none is pending).

        :raises JournalError: if it cannot be written (it stays pending).
        """
        if self.pending is not None:
            self.write(self.pending)

    def close(self) -> None:
        """Write a pending head, then close the file (idempotent)."""
        if self._fd is not None:
            try:
                self.sync()
            except JournalError as exc:  # one entry ahead of its anchor: accepted at the open
                log.error("%s", exc)
            os.close(self._fd)
            self._fd = None


def check_anchor(journal: Path, head: Head | None, count: int, digest: Callable[[int], str], *,
                 expected: bool, readonly: bool) -> bool:
    """Judge a verified journal of ``count`` entries against its anchor ``head``.

    :param digest: the verified hash of an entry by sequence number.
    :param expected: the journal says it has an anchor (one missing is damage).
    :param readonly: a reader beside the daemon: the journal may be ahead of the anchor.
    :returns: ``True`` when a writer should (re)write the anchor now.
    :raises JournalDamagedError: if the journal is behind its anchor, does not match it, is
        more than one entry ahead of it (a writer), or its expected anchor is missing.
    """
    if head is None:
        if expected:
            raise JournalDamagedError(
                f"journal {journal}: its anchor {anchor_path(journal)} is missing (the journal "
                f"ends at entry {count}; whether entries after it were lost cannot be told)")
        if readonly:
            return False  # a journal from before anchors, not opened by a daemon since
        if count:
            log.warning("journal %s had no anchor: anchored at entry %d", journal, count)
        return True
    if head.seq > count:
        raise JournalDamagedError(
            f"journal {journal} is rolled back: it ends at entry {count}, its anchor records "
            f"entry {head.seq} (the -wal file lost or damaged, or the tail cut): entries "
            f"{count + 1}..{head.seq} are missing")
    if digest(head.seq) != head.hash:
        raise JournalDamagedError(
            f"journal {journal} does not match its anchor at entry {head.seq} (replaced or "
            f"rewritten)")
    if readonly:
        return False  # a daemon beside us may have appended since
    if count > head.seq + 1:
        raise JournalDamagedError(
            f"journal {journal} has entries {head.seq + 2}..{count} past its anchor (entry "
            f"{head.seq}): an old anchor put back, or entries added")
    return True
