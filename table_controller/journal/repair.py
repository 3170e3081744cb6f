"""Accepting a damaged journal: a deliberate operator act, journaled, that lets a table reopen.

Rules this module keeps:

1. Nothing is accepted on a journal that verifies: there is nothing to accept.
2. Before anything changes, the damaged files (database, ``-wal``, ``-shm``, anchor) are copied
   whole into an evidence directory beside the journal (``<journal>.damaged-<n>/``).
3. The journal is rebuilt from its longest verified prefix (entries 1..k-1 when entry k is the
   first bad one, or every entry when only the tail was lost); the rebuilt file replaces the
   damaged one atomically and gets a new anchor.
4. The first entry after the prefix is an ``operator`` entry naming who accepted what, why, the
   damage found, the entries lost (from the first missing one to the last the anchor or the
   damaged file knew of) and where the evidence is.
5. :func:`migrate` rewrites a journal of an older on-disk schema (:mod:`.layout`) in the
   current one the same way: only a journal that verifies whole; the old files kept
   (``<journal>.schema<n>-<k>/``); every entry kept with its hash (the chain does not depend on
   the schema); an ``operator`` entry names who migrated it, from which schema, and why.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table_controller.errors import JournalDamagedError, JournalError
from table_controller.journal import layout
from table_controller.journal.anchor import Anchor, Head, anchor_path, read_anchor
from table_controller.journal.chain import GENESIS_HASH, Chain, EntryKind, Row
from table_controller.journal.store import Journal, lock_writer


@dataclass(frozen=True, slots=True)
class Accepted:
    """What :func:`accept_damage` did.

    :param damage: the error the journal was refused with.
    :param kept: entries kept (the verified prefix).
    :param lost_from: first entry lost.
    :param lost_to: last entry known to have existed (anchor or damaged file).
    :param evidence: the directory holding the damaged files.
    :param entry: sequence number of the ``operator`` entry.
    """

    damage: str
    kept: int
    lost_from: int
    lost_to: int
    evidence: Path
    entry: int


def _evidence(path: Path, what: str = "damaged") -> Path:
    n = 1
    while (out := path.with_name(f"{path.name}.{what}-{n}")).exists():
        n += 1
    out.mkdir()
    for suffix in ("", "-wal", "-shm", ".anchor"):
        src = Path(f"{path}{suffix}")
        if src.exists():
            shutil.copy2(src, out / src.name)
    return out


def _prefix(path: Path) -> tuple[list[Row], int]:
    """Return the verified prefix's rows and the highest seq the damaged file holds."""
    rows: list[Row] = []
    chain = Chain(str(path))
    highest = 0
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return rows, 0
    floor, last_hash = _archived(conn)
    try:
        try:
            highest = int(conn.execute("SELECT MAX(seq) FROM entries").fetchone()[0] or 0)
        except (sqlite3.Error, UnicodeDecodeError, TypeError, ValueError):
            highest = 0
        try:
            schema = int(conn.execute("SELECT value FROM meta WHERE key = 'schema'")
                         .fetchone()[0])
            select = f"SELECT {layout.COLUMNS[schema]} FROM entries WHERE seq = ?"
        except (sqlite3.Error, UnicodeDecodeError, TypeError, ValueError, KeyError):
            return rows, highest
        seq = floor + 1
        while True:
            try:
                raw = conn.execute(select, (seq,)).fetchall()
            except (sqlite3.Error, UnicodeDecodeError):
                break
            row = next(layout.rows(schema, raw, _const(
                chain.head if seq > floor + 1 else last_hash)), None)
            if row is None:
                break
            try:
                if seq == floor + 1 and floor:
                    chain = _resumed(path, row)
                chain.accept(row)
            except JournalDamagedError:
                break
            rows.append(row)
            seq += 1
    finally:
        conn.close()
    return rows, highest


def _const(value: str) -> Callable[[int], str]:
    return lambda _seq: value


def _archived(conn: sqlite3.Connection) -> tuple[int, str]:
    """Return the last archived entry and its hash (``0`` and the genesis hash: none)."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'archives'").fetchone()
        records = json.loads(row[0]) if row is not None else []
        return int(records[-1]["last"]), str(records[-1]["last_hash"])
    except (sqlite3.Error, ValueError, TypeError, KeyError, IndexError, UnicodeDecodeError):
        return 0, GENESIS_HASH


def _resumed(path: Path, row: Row) -> Chain:
    """Return the chain of an archived journal's live file, from its first entry."""
    try:
        summary = json.loads(row[5])["chain"]
    except (ValueError, TypeError, KeyError):
        raise JournalDamagedError(f"journal {path}: its first entry is not a checkpoint") \
            from None
    return Chain.resumed(str(path), summary, str(row[6]))


def accept_damage(path: str | os.PathLike[str], *, reason: str, operator: str,
                  wall_time: float, mono_time: float) -> Accepted:
    """Accept the damage of the journal at ``path`` (see the module rules).

    :param reason: why (plain words, required).
    :param operator: who (plain words, required).
    :raises JournalError: if the journal verifies (nothing to accept), is in use, or cannot be
        rebuilt; if ``reason`` or ``operator`` is empty.
    """
    if not reason.strip() or not operator.strip():
        raise JournalError("accepting a damaged journal needs a reason and an operator")
    p = Path(path)
    try:
        Journal.open(p, full=True).close()
    except JournalDamagedError as exc:
        damage = str(exc)
    else:
        raise JournalError(f"journal {p} verifies: there is no damage to accept")
    if damage.startswith("archive "):
        raise JournalError(f"the damage is in an archive file, not in journal {p}: put that "
                           f"file back from the backup (archives never change): {damage}")
    lock = lock_writer(p)
    try:
        head = _anchor_or_none(p)
        evidence = _evidence(p)
        rows, highest = _prefix(p)
        kept = rows[-1][0] if rows else _archived_of(p)
        lost_to = max(highest, head.seq if head is not None else 0, kept)
        _rebuild(p, rows)
    finally:
        os.close(lock)
    payload: dict[str, Any] = {
        "text": f"damaged journal accepted by {operator}: {reason} (entries {kept + 1}.."
                f"{lost_to} lost; evidence in {evidence.name})",
        "operator": operator, "reason": reason, "damage": damage,
        "lost": {"from": kept + 1, "to": lost_to}, "evidence": str(evidence),
    }
    with Journal.open(p) as journal:
        entry = journal.append(EntryKind.OPERATOR, payload, wall_time=wall_time,
                               mono_time=max(mono_time, _last_mono(rows)))
    return Accepted(damage, kept, kept + 1, lost_to, evidence, entry.seq)


@dataclass(frozen=True, slots=True)
class Migrated:
    """What :func:`migrate` did.

    :param old: the schema the journal had.
    :param new: the schema it has now.
    :param entries: entries carried over (every one, with its hash).
    :param evidence: the directory holding the old files.
    :param entry: sequence number of the ``operator`` entry.
    """

    old: int
    new: int
    entries: int
    evidence: Path
    entry: int


def migrate(path: str | os.PathLike[str], *, reason: str, operator: str,
            wall_time: float, mono_time: float) -> Migrated:
    """Rewrite the journal at ``path`` in the current on-disk schema (rule 5).

    :param reason: why (plain words, required).
    :param operator: who (plain words, required).
    :raises JournalDamagedError: if the journal does not verify (accept its damage first).
    :raises JournalError: if it already has the current schema, is in use, or cannot be
        rewritten; if ``reason`` or ``operator`` is empty.
    """
    if not reason.strip() or not operator.strip():
        raise JournalError("migrating a journal needs a reason and an operator")
    p = Path(path)
    with Journal.open(p, full=True) as journal:  # verified whole, anchored
        old, count = journal.schema, journal.last_seq
    if old == layout.CURRENT:
        raise JournalError(f"journal {p} already has schema {old}: there is nothing to migrate")
    lock = lock_writer(p)
    try:
        evidence = _evidence(p, f"schema{old}")
        rows, _ = _prefix(p)
        if (rows[-1][0] if rows else 0) != count:  # pragma: no cover - verified, no writer
            raise JournalError(f"journal {p} changed while being migrated")
        _rebuild(p, rows)
    finally:
        os.close(lock)
    text = (f"journal migrated from schema {old} to {layout.CURRENT} by {operator}: {reason} "
            f"({count} entries kept; the old files in {evidence.name})")
    with Journal.open(p, full=True) as journal:
        entry = journal.append(EntryKind.OPERATOR, {
            "text": text, "operator": operator, "reason": reason,
            "migrated": {"from": old, "to": journal.schema, "entries": count},
            "evidence": str(evidence)}, wall_time=wall_time,
            mono_time=max(mono_time, _last_mono(rows)))
        new = journal.schema
    return Migrated(old, new, count, evidence, entry.seq)


def _anchor_or_none(path: Path) -> Head | None:
    try:
        return read_anchor(path)
    except JournalDamagedError:
        return None


def _last_mono(rows: list[Row]) -> float:
    return float(rows[-1][3]) if rows else 0.0


def _archived_of(path: Path) -> int:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return _archived(conn)[0]
    finally:
        conn.close()


def _rebuild(path: Path, rows: list[Row]) -> None:
    """Write ``rows`` into a new journal file and put it in place of ``path`` (with an anchor).

    The rows of an archived journal start after its last archive (its list of archives is
    kept).
    """
    old = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        archives = old.execute("SELECT value FROM meta WHERE key = 'archives'").fetchone()
        floor = _archived(old)[0]
    except (sqlite3.Error, UnicodeDecodeError):
        archives, floor = None, 0
    finally:
        old.close()
    if floor and not rows:
        raise JournalError(f"journal {path}: its first entry (the checkpoint after its last "
                           "archive) is damaged: put the journal back from the backup")
    if floor and not any(r[1] == EntryKind.ARCHIVE.value for r in rows):
        raise JournalError(f"journal {path}: the damage took its archive entry (the record of "
                           "its archive files): put the journal back from the backup")
    head_seq = rows[-1][0] if rows else 0
    tmp = path.with_name(path.name + ".rebuild")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{tmp}{suffix}").unlink(missing_ok=True)
    staging = Journal.open(tmp)  # the (current) schema, WAL, anchor of a fresh journal
    schema = staging.schema
    staging.close()
    conn = sqlite3.connect(tmp, isolation_level=None)
    try:
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(layout.insert_sql(schema), [layout.stored(schema, r) for r in rows])
        last = rows[-1] if rows else None
        conn.execute("UPDATE meta SET value = ? WHERE key = 'head_seq'", (str(head_seq),))
        if archives is not None:
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('archives', ?)",
                         (str(archives[0]),))
        if last is not None:
            conn.execute("UPDATE meta SET value = ? WHERE key = 'head_hash'", (last[7],))
        conn.execute("COMMIT")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    Anchor(tmp, Head(head_seq, rows[-1][7] if rows else "0" * 64)).close()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    os.replace(tmp, path)
    os.replace(anchor_path(tmp), anchor_path(path))
    for suffix in ("-wal", "-shm", ".lock"):
        Path(f"{tmp}{suffix}").unlink(missing_ok=True)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
