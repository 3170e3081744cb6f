"""Archive files: old entries of a journal moved into sealed, read-only files, one a gaming day.

The chain goes on across files: an archive holds entries ``first..last`` exactly as the journal
stored them (every hash unchanged), and records in its ``meta`` table (its *seal*) the hash of
entry ``first - 1`` and of entry ``last``. The journal keeps, in an ``archive`` entry of its own
chain, the record of every archive (:class:`ArchiveRecord`: file name, sequence range, hands,
both hashes, size and SHA-256 of the file), so an archive removed, replaced, truncated, altered
or swapped with another is found.

Rules this module keeps:

1. An archive is written whole under a temporary name (``<file>.pending``), synced and made
   read-only before the journal records it; it takes its final name only once recorded. A
   ``.pending`` file no ``archive`` entry records is the leftover of a crash (removed at the
   writer's next open); a file of an archive's name that no record names is refused.
2. An archive starts at entry 1 or at a ``checkpoint`` entry, and ends just before one: an
   archive can be verified alone, from its first entry, like a journal opened from a
   checkpoint (:meth:`ArchiveFile.chain`).
3. Cheap checks for every open (:func:`check_present`: the file is there, of its recorded size,
   and its SQLite header carries the seal's last sequence number and hash); the whole file's
   SHA-256 and every entry before an archive's entries are used (:meth:`ArchiveFile.chain`).
4. Gaming days are local calendar days starting at the configured hour (:func:`gaming_day`);
   the clock is passed in.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import os
import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from table_controller.errors import JournalDamagedError, JournalError
from table_controller.journal import layout
from table_controller.journal.chain import GENESIS_HASH, Chain, EntryKind, Row

#: Suffix of an archive written but not yet recorded (rule 1).
PENDING = ".pending"
_BATCH = 1000


@dataclass(frozen=True, slots=True)
class ArchiveRecord:
    """What the journal records of one archive file.

    :param file: the file's name, in the journal's folder.
    :param day: the gaming day it closes (``YYYY-MM-DD``).
    :param first: its first entry.
    :param last: its last entry.
    :param hands: the first and last hand started in it (``None``: no hand).
    :param prev_hash: the hash of entry ``first - 1`` (the genesis hash for entry 1).
    :param last_hash: the hash of entry ``last``.
    :param sha256: the SHA-256 of the whole file.
    :param size: its size in bytes.
    """

    file: str
    day: str
    first: int
    last: int
    hands: tuple[int, int] | None
    prev_hash: str
    last_hash: str
    sha256: str
    size: int

    def to_json(self) -> dict[str, Any]:
        """Return the record as plain JSON data (the ``archive`` entry's payload)."""
        out = asdict(self)
        out["hands"] = list(self.hands) if self.hands is not None else None
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str) -> ArchiveRecord:
        """Read a record back.

        :raises JournalDamagedError: naming ``where`` if it is malformed.
        """
        try:
            hands = data["hands"]
            rec = cls(str(data["file"]), str(data["day"]), int(data["first"]),
                      int(data["last"]),
                      None if hands is None else (int(hands[0]), int(hands[1])),
                      str(data["prev_hash"]), str(data["last_hash"]), str(data["sha256"]),
                      int(data["size"]))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise JournalDamagedError(f"journal {where}: a malformed archive record "
                                      f"({exc!r})") from None
        if "/" in rec.file or rec.file.startswith(".") or rec.first < 1 or rec.last < rec.first:
            raise JournalDamagedError(f"journal {where}: a malformed archive record "
                                      f"({rec.file!r})")
        return rec

    def holds(self, seq: int) -> bool:
        """Tell whether entry ``seq`` is in this archive."""
        return self.first <= seq <= self.last

    def holds_hand(self, hand: int) -> bool:
        """Tell whether hand ``hand`` was started (and so ended: rule 2) in this archive."""
        return self.hands is not None and self.hands[0] <= hand <= self.hands[1]


def records_of(raw: Iterable[Mapping[str, Any]] | None, where: str) -> tuple[ArchiveRecord, ...]:
    """Return the records of an ``archive`` entry's list (or of the ``meta`` hint), checked.

    :raises JournalDamagedError: if one is malformed or they do not follow one another.
    """
    out = tuple(ArchiveRecord.from_json(r, where) for r in raw or ())
    prev_last, prev_hash = 0, GENESIS_HASH
    for rec in out:
        if rec.first != prev_last + 1 or rec.prev_hash != prev_hash:
            raise JournalDamagedError(f"journal {where}: archive {rec.file} does not follow the "
                                      "archive before it in the journal's list")
        prev_last, prev_hash = rec.last, rec.last_hash
    return out


def hint_json(records: Sequence[ArchiveRecord]) -> str:
    """Return the ``meta`` hint of a list of records (a copy of the last ``archive`` entry's)."""
    return json.dumps([r.to_json() for r in records], sort_keys=True)


def _name_re(journal: Path) -> re.Pattern[str]:
    stem, suffix = journal.stem, journal.suffix
    return re.compile(rf"{re.escape(stem)}-\d{{4}}-\d\d-\d\d(-\d+)?{re.escape(suffix)}")


def archive_name(journal: Path, day: str, taken: Iterable[str]) -> str:
    """Return the file name of a new archive of ``journal`` closing gaming day ``day``.

    >>> archive_name(Path("/x/journal.db"), "2026-12-01", ["journal-2026-12-01.db"])
    'journal-2026-12-01-2.db'
    """
    used = set(taken)
    name = f"{journal.stem}-{day}{journal.suffix}"
    n = 1
    while name in used:
        n += 1
        name = f"{journal.stem}-{day}-{n}{journal.suffix}"
    return name


def archive_files(journal: Path) -> list[Path]:
    """Return the files beside ``journal`` named like its archives (final or pending)."""
    pattern = _name_re(journal)
    try:
        names = sorted(os.listdir(journal.parent))
    except FileNotFoundError:
        return []
    out = []
    for name in names:
        base = name.removesuffix(PENDING)
        if pattern.fullmatch(base):
            out.append(journal.parent / name)
    return out


def file_of(journal: Path, rec: ArchiveRecord) -> Path:
    """Return where archive ``rec`` is: its final name, else its pending one (rule 1)."""
    path = journal.parent / rec.file
    if not path.exists():
        pending = path.with_name(path.name + PENDING)
        if pending.exists():
            return pending
    return path


def _seal_header(last: int, last_hash: str) -> tuple[int, int]:
    """Return the SQLite header's ``user_version`` and ``application_id`` of an archive."""
    return last, int(last_hash[:7], 16)


def check_present(journal: Path, rec: ArchiveRecord) -> Path:
    """Check an archive cheaply (rule 3) and return its path.

    :raises JournalDamagedError: naming the file if it is missing, of another size, or its
        header names another archive.
    """
    path = file_of(journal, rec)
    what = f"archive {path} (entries {rec.first}..{rec.last}, gaming day {rec.day})"
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            header = f.read(100)
    except FileNotFoundError:
        raise JournalDamagedError(f"{what} is missing: restore it from the backup") from None
    except OSError as exc:
        raise JournalDamagedError(f"{what} cannot be read: {exc}") from exc
    if size != rec.size:
        raise JournalDamagedError(f"{what} is truncated or replaced: {size} bytes, the journal "
                                  f"recorded {rec.size}")
    version = int.from_bytes(header[60:64], "big") if len(header) == 100 else -1
    app = int.from_bytes(header[68:72], "big") if len(header) == 100 else -1
    if (version, app) != _seal_header(rec.last, rec.last_hash):
        raise JournalDamagedError(f"{what} is not the archive the journal recorded (swapped "
                                  "with another, or replaced)")
    return path


def sha256_of(path: Path) -> str:
    """Return the hex SHA-256 of a file.

    :raises OSError: if it cannot be read.
    """
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def read_rows(conn: sqlite3.Connection, schema: int, lo: int, hi: int | None,
              known: Callable[[], int],
              prev_of: Callable[[int], str | None],
              bad: Callable[[int, str], JournalDamagedError],
              unreadable: Callable[[BaseException], JournalDamagedError]) -> Iterator[Row]:
    """Yield the stored rows ``lo < seq <= hi`` of one file in order, checking none is missing.

    :param known: the file holds at least the entries up to this one (fewer is truncation;
        asked after each batch: a writer may append meanwhile).
    :param prev_of: the hash of entry ``seq`` for a batch's first row (:func:`.layout.rows`).
    """
    sql = f"SELECT {layout.COLUMNS[schema]} FROM entries WHERE seq > ?"
    if hi is not None:
        sql += " AND seq <= ?"
    sql += f" ORDER BY seq LIMIT {_BATCH}"
    expected = lo + 1
    last: tuple[int, str | None] | None = None

    def prev(seq: int) -> str | None:
        if last is not None and last[0] == seq:
            return last[1]
        return prev_of(seq)

    while True:
        params = (expected - 1,) if hi is None else (expected - 1, hi)
        try:
            rows = list(layout.rows(schema, conn.execute(sql, params).fetchall(), prev))
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            raise unreadable(exc) from exc
        if rows:
            last = (rows[-1][0], rows[-1][7])
        for row in rows:
            if row[0] != expected:
                raise bad(expected, f"entry {expected} is missing (next is {row[0]!r})")
            yield row
            expected += 1
        upto = known() if hi is None else min(hi, known())
        if expected <= upto and not rows:
            raise bad(expected, f"entries {expected}..{upto} are gone (truncated)")
        if len(rows) < _BATCH and expected > upto:
            break


class ArchiveFile:
    """One archive, open read-only (the file is immutable once recorded).

    :param path: where it is (:func:`check_present`).
    :param rec: its record in the journal.
    :raises JournalDamagedError: if it cannot be opened as an archive.
    """

    def __init__(self, path: Path, rec: ArchiveRecord) -> None:
        self.path = path
        self.rec = rec
        self._chain: Chain | None = None
        try:
            self.conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1",
                                        uri=True, isolation_level=None)
            row = self.conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            self.schema = int(row[0])
            if self.schema not in layout.SCHEMAS:
                raise ValueError(f"schema {self.schema}")
        except (sqlite3.Error, TypeError, ValueError, UnicodeDecodeError) as exc:
            with contextlib.suppress(AttributeError, sqlite3.Error):
                self.conn.close()
            raise JournalDamagedError(f"archive {path} is not readable: {exc}") from None

    def close(self) -> None:
        """Close the file."""
        self.conn.close()

    def bad(self, seq: int, why: str) -> JournalDamagedError:
        """Return the error for entry ``seq`` of this archive."""
        return JournalDamagedError(f"archive {self.path} does not verify: first bad sequence "
                                   f"number {seq}: {why}")

    def _unreadable(self, exc: BaseException) -> JournalDamagedError:
        return JournalDamagedError(f"archive {self.path} cannot be read (damaged): {exc}")

    def check_whole(self) -> None:
        """Check the file's SHA-256 against its record.

        :raises JournalDamagedError: naming the file if it differs.
        """
        try:
            digest = sha256_of(self.path)
        except OSError as exc:
            raise self._unreadable(exc) from exc
        if digest != self.rec.sha256:
            raise JournalDamagedError(
                f"archive {self.path} (entries {self.rec.first}..{self.rec.last}) has been "
                "altered: its SHA-256 is not the one the journal recorded")

    def rows(self, lo: int, hi: int | None = None) -> Iterator[Row]:
        """Yield the stored rows ``lo < seq <= hi`` (within the archive), unchecked."""
        rec = self.rec
        lo, top = max(lo, rec.first - 1), rec.last if hi is None else min(hi, rec.last)
        if top <= lo:
            return iter(())

        def prev_of(seq: int) -> str | None:
            if seq == rec.first - 1:
                return rec.prev_hash
            got = self.conn.execute("SELECT hash FROM entries WHERE seq = ?", (seq,)).fetchone()
            d = None if got is None else got[0]
            return d.hex() if isinstance(d, bytes) and len(d) == 32 else (
                d if isinstance(d, str) else None)

        return read_rows(self.conn, self.schema, lo, top, lambda: top, prev_of, self.bad,
                         self._unreadable)

    def chain(self) -> Chain:
        """Return the archive's chain, verified whole on first use (rule 2).

        :raises JournalDamagedError: naming the file and the entry if it does not verify.
        """
        if self._chain is not None:
            return self._chain
        self.check_whole()
        rec = self.rec
        rows = self.rows(rec.first - 1)
        if rec.first == 1:
            chain = Chain(str(self.path))
        else:
            first = next(rows, None)
            if first is None or first[1] != EntryKind.CHECKPOINT.value or \
                    not isinstance(first[5], str):
                raise self.bad(rec.first, "an archive does not start at a checkpoint")
            try:
                summary = json.loads(first[5])["chain"]
            except (ValueError, TypeError, KeyError):
                raise self.bad(rec.first, "its checkpoint is malformed") from None
            if not isinstance(summary, dict) or summary.get("count") != rec.first - 1:
                raise self.bad(rec.first, "its checkpoint is malformed")
            chain = Chain.resumed(str(self.path), summary, rec.prev_hash)
            chain.add(first)
        for row in rows:
            chain.add(row)
        if chain.count != rec.last or chain.head != rec.last_hash:
            raise self.bad(chain.count, "its last entry is not the one the journal recorded")
        self._chain = chain
        return chain


def write_file(path: Path, schema: int, rows: Sequence[Row], *, day: str,
               journal: str) -> tuple[str, int]:
    """Write an archive of ``rows`` at ``path`` (created whole, synced, read-only).

    :returns: the file's SHA-256 and size.
    :raises JournalError: if it cannot be written.
    """
    first, last = rows[0], rows[-1]
    for suffix in ("", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    version, app = _seal_header(last[0], last[7])
    try:
        conn = sqlite3.connect(str(path), isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=DELETE")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            conn.execute(layout.ENTRIES[schema])
            conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", [
                ("schema", str(schema)), ("archive_of", journal), ("day", day),
                ("first_seq", str(first[0])), ("last_seq", str(last[0])),
                ("prev_hash", str(first[6])), ("last_hash", str(last[7]))])
            conn.executemany(layout.insert_sql(schema), [layout.stored(schema, r) for r in rows])
            conn.execute(f"PRAGMA user_version = {version}")
            conn.execute(f"PRAGMA application_id = {app}")
            conn.execute("COMMIT")
        finally:
            conn.close()
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(path, 0o444)
        return sha256_of(path), path.stat().st_size
    except (OSError, sqlite3.Error) as exc:
        raise JournalError(f"cannot write archive {path}: {exc}") from exc


def parse_hour(text: str) -> datetime.time:
    """Read an ``archive_at`` value (``"HH:MM"``).

    >>> parse_hour("06:00")
    datetime.time(6, 0)

    :raises ValueError: if it is not a time of day.
    """
    m = re.fullmatch(r"(\d\d):(\d\d)", text)
    if m is None:
        raise ValueError(f"expected HH:MM (e.g. \"06:00\"), got {text!r}")
    return datetime.time(int(m[1]), int(m[2]))


def gaming_day(wall: float, at: datetime.time) -> datetime.date:
    """Return the gaming day of wall-clock time ``wall``: local days starting at ``at``.

    >>> at = datetime.time(6, 0)
    >>> t = datetime.datetime(2026, 12, 2, 5, 59).timestamp()
    >>> gaming_day(t, at), gaming_day(t + 60, at)
    (datetime.date(2026, 12, 1), datetime.date(2026, 12, 2))
    """
    local = datetime.datetime.fromtimestamp(wall)
    start = datetime.datetime.combine(local.date(), at)
    return local.date() if local >= start else local.date() - datetime.timedelta(days=1)


def day_start(day: datetime.date, at: datetime.time) -> float:
    """Return the wall-clock time gaming day ``day`` starts."""
    return datetime.datetime.combine(day, at).timestamp()
