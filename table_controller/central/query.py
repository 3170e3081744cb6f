"""Questions across the floor, answered from the central store.

- :func:`find_hands` — hands by table, time, seat, card and irregularity (the ``hands`` index);
- :func:`hand_record` — one hand's entries, for the same recall text as the table's own;
- :func:`hand_summary` — one hand's board and hole cards;
- :func:`verify` — a journal's central copy checked against its own chain and, optionally,
  against the table's journal;
- :func:`irregularity_report` — irregularities by table and kind since a time (a shift).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from table_controller.central.common import CentralError, Conn, jsonb_copy
from table_controller.journal.store import (
    GENESIS_HASH,
    Entry,
    EntryKind,
    HandRecord,
    Journal,
    entry_hash,
)


@dataclass(frozen=True, slots=True)
class HandSummary:
    """One hand found by :func:`find_hands`."""

    table: str
    journal_id: str
    hand: int
    started: datetime
    ended: datetime | None
    voided: bool
    seats: list[int]
    board: list[str]
    hole: dict[str, list[str]]
    irregularities: list[str]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data (``central hands --json``: one object a line)."""
        return {
            "table": self.table, "journal_id": self.journal_id, "hand": self.hand,
            "started": self.started.isoformat(),
            "ended": None if self.ended is None else self.ended.isoformat(),
            "voided": self.voided, "seats": self.seats, "board": self.board, "hole": self.hole,
            "irregularities": self.irregularities,
        }


_SUMMARY_COLUMNS = ("table_id, journal_id, hand, started, ended, voided, seats, board, hole, "
                    "irregularities")


def find_hands(
    conn: Conn,
    *,
    table: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    seat: int | None = None,
    card: str | None = None,
    river: str | None = None,
    irregularity: str | None = None,
    limit: int | None = None,
    latest: bool = False,
) -> list[HandSummary]:
    """Return the hands matching every filter given, oldest first.

    :param seat: hands the seat was dealt in; with ``card``: the seat held that card.
    :param card: the card on the board or in any hand (``"Ah"``).
    :param river: the fifth board card.
    :param irregularity: an irregularity kind raised during the hand.
    :param limit: at most this many hands: the oldest ones, or with ``latest`` the newest
        ones (still returned oldest first).
    """
    where: list[str] = []
    params: list[str | int | datetime] = []
    if table is not None:
        where.append("table_id = %s")
        params.append(table)
    if since is not None:
        where.append("started >= %s")
        params.append(since)
    if until is not None:
        where.append("started < %s")
        params.append(until)
    if seat is not None and card is not None:
        where.append("hole @> %s::jsonb")
        params.append(json.dumps({str(seat): [card]}))
    elif card is not None:
        where.append("cards @> ARRAY[%s]::text[]")
        params.append(card)
    elif seat is not None:
        where.append("seats @> ARRAY[%s]::integer[]")
        params.append(seat)
    if river is not None:
        where.append("board[5] = %s")
        params.append(river)
    if irregularity is not None:
        where.append("irregularities @> ARRAY[%s]::text[]")
        params.append(irregularity)
    sql = f"SELECT {_SUMMARY_COLUMNS} FROM hands"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += (" ORDER BY started DESC, table_id DESC, hand DESC" if latest
            else " ORDER BY started, table_id, hand")
    if limit is not None:
        sql += " LIMIT %s"
        params.append(limit)
    with conn.transaction():
        rows = conn.execute(sql.encode(), params).fetchall()
    found = [_summary(r) for r in rows]
    return found[::-1] if latest else found


def _summary(r: tuple[Any, ...]) -> HandSummary:
    return HandSummary(str(r[0]), str(r[1]), int(r[2]), r[3], r[4], bool(r[5]), list(r[6]),
                       list(r[7]), dict(r[8]), list(r[9]))


def hand_summary(conn: Conn, table: str, hand: int,
                 journal_id: str | None = None) -> HandSummary | None:
    """Return one hand's ``hands`` row (its board and hole cards), ``None`` if not derived.

    :raises CentralError: no such table or journal.
    """
    jid = pick_journal(conn, table, journal_id)
    with conn.transaction():
        row = conn.execute(f"SELECT {_SUMMARY_COLUMNS} FROM hands WHERE table_id = %s AND "
                           "journal_id = %s AND hand = %s".encode(), (table, jid, hand)).fetchone()
    return None if row is None else _summary(row)


def journal_ids(conn: Conn, table: str) -> list[str]:
    """Return the journals of a table in the central store, oldest first."""
    with conn.transaction():
        rows = conn.execute("SELECT journal_id FROM journals WHERE table_id = %s "
                            "ORDER BY first_wall", (table,)).fetchall()
    return [str(r[0]) for r in rows]


def pick_journal(conn: Conn, table: str, prefix: str | None = None) -> str:
    """Return the table's journal named by ``prefix`` of its id (default: the newest).

    :raises CentralError: no such table or journal, or an ambiguous prefix.
    """
    ids = journal_ids(conn, table)
    if not ids:
        raise CentralError(f"no journal of table {table!r} in the central store")
    if prefix is None:
        return ids[-1]
    found = [i for i in ids if i.startswith(prefix)]
    if len(found) != 1:
        raise CentralError(f"table {table!r}: {len(found)} journals match {prefix!r}")
    return found[0]


_ENTRY_COLUMNS = "seq, kind, wall_time, mono_time, hand, payload_text, prev_hash, hash, payload"


def _entry(row: tuple[Any, ...]) -> Entry:
    return Entry(int(row[0]), EntryKind(row[1]), float(row[2]), float(row[3]),
                 None if row[4] is None else int(row[4]), json.loads(row[5]),
                 str(row[6]), str(row[7]))


def hand_record(conn: Conn, table: str, hand: int, journal_id: str | None = None) -> HandRecord:
    """Return one hand's entries as the table's journal holds them.

    :raises CentralError: no such table, journal or hand.
    """
    jid = pick_journal(conn, table, journal_id)
    with conn.transaction():
        rows = conn.execute(
            f"SELECT {_ENTRY_COLUMNS} FROM entries WHERE table_id = %s AND journal_id = %s "
            "AND hand = %s ORDER BY seq".encode(), (table, jid, hand)).fetchall()
    if not rows:
        raise CentralError(f"no hand {hand} of table {table!r} (journal {jid[:12]}) centrally")
    entries = tuple(_entry(r) for r in rows)
    return HandRecord(hand, entries, entries[-1].kind is EntryKind.HAND_END)


@dataclass(slots=True)
class VerifyResult:
    """What :func:`verify` found for one journal of a table."""

    table: str
    journal_id: str
    entries: int = 0
    problems: list[str] = field(default_factory=list)
    local_seq: int | None = None

    @property
    def ok(self) -> bool:
        """``True`` when nothing is wrong."""
        return not self.problems


def verify(conn: Conn, table: str, *, journal_path: Path | None = None,
           journal_id: str | None = None) -> VerifyResult:
    """Check the central copy of a table's journal: sequence, chain, hashes, jsonb copy, head.

    With ``journal_path``, every central entry must also be the table's entry of that number
    (and the journal must be the same journal). The first problem of each kind is reported with
    its sequence number; the check goes on to the end.

    :raises CentralError: no such table or journal.
    """
    jid = pick_journal(conn, table, journal_id)
    result = VerifyResult(table, jid)
    local: Journal | None = None
    if journal_path is not None:
        local = Journal.open(journal_path, readonly=True)
    try:
        if local is not None:
            result.local_seq = local.last_seq
            if local.last_seq == 0 or local.get(1).hash != jid:
                result.problems.append(f"local journal {journal_path} is another journal")
                local = None
        _verify_rows(conn, result, local)
    finally:
        if local is not None:
            local.close()
    return result


def same_json(jsonb_text: str, text: str) -> bool:
    """Tell whether the database's jsonb copy (as text) holds the same JSON as ``text``.

    Numbers compare as decimals: jsonb keeps them as ``numeric``, so a float written
    ``1.5e+300`` comes back ``1500…0`` (an int to :func:`json.loads`, not equal to the float).

    >>> same_json('{"a": 1500000000000000000000000000000, "b": 0.0}', '{"b":-0.0,"a":1.5e+30}')
    True
    >>> same_json('{"a": 0.3}', '{"a":0.30000000000000004}')
    False
    """
    try:
        mine = json.loads(jsonb_copy(text), parse_float=Decimal, parse_int=Decimal)
    except ValueError:
        return False
    theirs = json.loads(jsonb_text, parse_float=Decimal, parse_int=Decimal)
    return bool(mine == theirs)


#: :func:`verify` reads the jsonb copy as the database writes it out (:func:`same_json`).
_VERIFY_COLUMNS = ("seq, kind, wall_time, mono_time, hand, payload_text, prev_hash, hash, "
                   "payload::text")


def _verify_rows(conn: Conn, result: VerifyResult, local: Journal | None) -> None:
    prev, expected = GENESIS_HASH, 1
    with conn.transaction(), conn.cursor(name="verify") as cur:
        head = conn.execute("SELECT shipped_seq, shipped_hash FROM journals WHERE table_id = %s "
                            "AND journal_id = %s", (result.table, result.journal_id)).fetchone()
        cur.itersize = 2000
        cur.execute(f"SELECT {_VERIFY_COLUMNS} FROM entries WHERE table_id = %s "
                    "AND journal_id = %s ORDER BY seq".encode(),
                    (result.table, result.journal_id))
        local_iter = iter(local.entries()) if local is not None else None
        for row in cur:
            seq, kind, wall, mono, hand, text, prev_hash, digest, payload = row
            if seq != expected:
                result.problems.append(f"entry {expected}: missing (next is {seq})")
                expected = seq
            if prev_hash != prev:
                result.problems.append(f"entry {seq}: does not chain to entry {seq - 1}")
            if entry_hash(prev_hash, seq, kind, wall, mono, hand, text) != digest:
                result.problems.append(f"entry {seq}: content does not match its hash (altered)")
            elif not same_json(payload, text):
                result.problems.append(f"entry {seq}: payload (jsonb) differs from the hashed "
                                       "text (altered)")
            if local_iter is not None:
                mine = next(local_iter, None)
                if mine is None:
                    result.problems.append(f"entry {seq}: not in the local journal")
                    local_iter = None
                elif mine.seq != seq or mine.hash != digest:
                    result.problems.append(f"entry {seq}: differs from the local journal")
            prev = digest
            expected = seq + 1
            result.entries += 1
    if head is not None and (int(head[0]) != expected - 1 or (head[0] and head[1] != prev)):
        result.problems.append(f"head: shipped up to {head[0]}, the rows end at {expected - 1}")


@dataclass(frozen=True, slots=True)
class Irregularity:
    """One irregularity, device alert or link fault of :func:`irregularity_report`."""

    table: str
    hand: int | None
    at: datetime
    kind: str
    text: str


def irregularities(conn: Conn, *, since: datetime, until: datetime | None = None,
                   table: str | None = None, kind: str | None = None) -> list[Irregularity]:
    """Every irregularity recorded since a time, oldest first."""
    where = ["at >= %s"]
    params: list[str | datetime] = [since]
    for col, value in (("at <", until), ("table_id =", table), ("kind =", kind)):
        if value is not None:
            where.append(f"{col} %s")
            params.append(value)
    with conn.transaction():
        rows = conn.execute(("SELECT table_id, hand, at, kind, text FROM irregularities WHERE "
                             + " AND ".join(where) + " ORDER BY at, table_id").encode(),
                            params).fetchall()
    return [Irregularity(str(r[0]), r[1], r[2], str(r[3]), str(r[4])) for r in rows]


def irregularity_report(conn: Conn, *, since: datetime, until: datetime | None = None) -> str:
    """Return a shift's irregularity report: counts by kind and table, then each one in order."""
    found = irregularities(conn, since=since, until=until)
    with conn.transaction():
        row = conn.execute("SELECT count(*), count(DISTINCT table_id) FROM hands WHERE "
                           "started >= %s AND (%s::timestamptz IS NULL OR started < %s)",
                           (since, until, until)).fetchone()
    hands, tables = (int(row[0]), int(row[1])) if row is not None else (0, 0)
    span = f"since {since.isoformat()}" + (f" until {until.isoformat()}" if until else "")
    lines = [f"Irregularity report {span}: {hands} hands at {tables} tables, "
             f"{len(found)} irregularities"]
    by_kind: dict[str, dict[str, int]] = {}
    for irr in found:
        by_kind.setdefault(irr.kind, {}).setdefault(irr.table, 0)
        by_kind[irr.kind][irr.table] += 1
    for kind in sorted(by_kind):
        per = by_kind[kind]
        tables_text = ", ".join(f"{t} {n}" for t, n in sorted(per.items()))
        lines.append(f"  {kind:<24} {sum(per.values()):>5}  ({tables_text})")
    if found:
        lines.append("")
    for irr in found:
        hand = f"hand {irr.hand}" if irr.hand is not None else "between hands"
        lines.append(f"  {irr.at.strftime('%Y-%m-%d %H:%M:%S')}  {irr.table:<10} {hand:<14} "
                     f"{irr.kind}: {irr.text}")
    return "\n".join(lines)
