"""The shipper: a table's journal, entry by entry, into the central PostgreSQL store.

Rules this module keeps:

1. The table never waits for the central store. The shipper only reads the journal (SQLite WAL
   allows a reader beside the writing daemon, opened ``mode=ro``); while the network or the
   database is down the journal is the buffer.
2. At least once, never twice: each batch (at most ``batch`` entries) is one PostgreSQL
   transaction that inserts the entries (``ON CONFLICT DO NOTHING`` on
   ``(table_id, journal_id, seq)``), rewrites the derived hand rows, and moves the journal's
   ``shipped_seq`` on. The next batch starts after the ``shipped_seq`` read back from the
   database (``SELECT ... FOR UPDATE``), so a kill -9, a lost connection or a rolled-back batch
   resumes exactly where the database stopped.
3. In order, chain carried: every entry is checked against the local chain before it is sent
   (its ``prev_hash`` is the hash of the entry before, its hash matches its content), and the
   central row carries both hashes. A row already in the database that differs from the local
   entry, or a central head the local journal does not hold, is a tampered or forked journal:
   :class:`~table_controller.central.common.ForkedJournalError`, never retried.
4. Failures of the database or the network are retried with back-off (``retry_min`` doubling to
   ``retry_max``); progress is written to a status file (see :class:`ShipStatus`).

The journal's identity is the hash of its entry 1: a new journal file (a replaced computer) is a
new journal of the same table; its hands are numbered from 1 again.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

import psycopg

from table_controller.central.common import (
    CentralError,
    Conn,
    ForkedJournalError,
    jsonb_copy,
    no_nul,
    safe_url,
)
from table_controller.central.derive import HandDeriver, HandRow, IrregularityRow, Resolver
from table_controller.central.schema import migrate
from table_controller.errors import JournalError
from table_controller.journal.store import (
    GENESIS_HASH,
    Entry,
    EntryKind,
    Journal,
    canonical_json,
    entry_hash,
)

log = logging.getLogger(__name__)

State = Literal["starting", "shipping", "caught_up", "retrying", "refused", "stopped"]

_INSERT = """
INSERT INTO entries (table_id, journal_id, seq, kind, hand, wall_time, mono_time, payload,
                     payload_text, prev_hash, hash)
SELECT %(t)s, %(j)s, u.seq, u.kind, u.hand, u.wall, u.mono, u.pjson::jsonb, u.ptext, u.prev, u.hash
FROM unnest(%(seq)s::bigint[], %(kind)s::text[], %(hand)s::integer[], %(wall)s::float8[],
            %(mono)s::float8[], %(ptext)s::text[], %(pjson)s::text[], %(prev)s::text[],
            %(hash)s::text[])
     AS u(seq, kind, hand, wall, mono, ptext, pjson, prev, hash)
ON CONFLICT (table_id, journal_id, seq) DO NOTHING
RETURNING seq
"""

_HANDS = """
INSERT INTO hands (table_id, journal_id, hand, started, ended, voided, seats, board, hole, cards,
                   irregularities, first_seq, last_seq)
VALUES (%s, %s, %s, to_timestamp(%s), to_timestamp(%s), %s, %s, %s, %s::jsonb, %s, %s, %s, %s)
ON CONFLICT (table_id, journal_id, hand) DO UPDATE SET
    ended = EXCLUDED.ended, voided = EXCLUDED.voided, seats = EXCLUDED.seats,
    board = EXCLUDED.board, hole = EXCLUDED.hole, cards = EXCLUDED.cards,
    irregularities = EXCLUDED.irregularities, last_seq = EXCLUDED.last_seq
"""

_IRREGULARITIES = """
INSERT INTO irregularities (table_id, journal_id, seq, hand, at, kind, text)
VALUES (%s, %s, %s, %s, to_timestamp(%s), %s, %s)
ON CONFLICT DO NOTHING
"""


@dataclass(frozen=True, slots=True)
class ShipStatus:
    """The shipper's progress, as written to its status file (one JSON object).

    :param table: the table id.
    :param journal: the local journal file.
    :param journal_id: the journal's identity (hash of its entry 1; ``""`` while it is empty).
    :param url: the database URL without its password.
    :param state: ``starting``, ``shipping``, ``caught_up``, ``retrying`` (database or network
        down: see ``last_error``), ``refused`` (tampered or forked journal: shipping stopped) or
        ``stopped``.
    :param local_seq: the newest entry in the local journal.
    :param shipped_seq: the newest entry the central store holds (read back from it).
    :param behind: ``local_seq - shipped_seq``.
    :param last_shipped_at: wall time (epoch seconds) of the last batch committed, or ``None``.
    :param last_error: the last failure in words (``""`` when none since the last success).
    :param updated_at: wall time this status was written.
    """

    table: str
    journal: str
    journal_id: str
    url: str
    state: State
    local_seq: int
    shipped_seq: int
    behind: int
    last_shipped_at: float | None
    last_error: str
    updated_at: float

    def to_json(self) -> str:
        """Return the status file's text."""
        return json.dumps(asdict(self), sort_keys=True) + "\n"


def read_status(path: str | os.PathLike[str]) -> ShipStatus:
    """Read a status file written by a shipper.

    :raises CentralError: if it is missing or not a shipper status.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return ShipStatus(**data)
    except (OSError, ValueError, TypeError) as exc:
        raise CentralError(f"no shipper status at {path}: {exc}") from exc


def _row_of(e: Entry) -> tuple[str, int | None, float, float, str, str, str]:
    return (e.kind.value, e.hand, e.wall_time, e.mono_time, canonical_json(e.payload),
            e.prev_hash, e.hash)


class Shipper:
    """Ships one table's journal to the central store.

    :param journal_path: the table's SQLite journal (opened read-only).
    :param table_id: the table's id (``[table] id``).
    :param url: ``postgresql://...`` of the central store.
    :param resolve: tag -> card for the hole cards of the ``hands`` rows (the table's deck
        profile); ``None``: hole cards are stored as ``"??"``.
    :param status_path: where to write :class:`ShipStatus` (``None``: nowhere).
    :param batch: at most this many entries a transaction.
    :param poll: seconds between looks at the journal when caught up.
    :param retry_min: first back-off after a failure, doubling up to ``retry_max``.
    :param connect: opens a connection (tests and benchmarks pass their own).
    """

    def __init__(
        self,
        journal_path: str | os.PathLike[str],
        table_id: str,
        url: str,
        *,
        resolve: Resolver | None = None,
        status_path: str | os.PathLike[str] | None = None,
        batch: int = 500,
        poll: float = 0.1,
        retry_min: float = 0.5,
        retry_max: float = 30.0,
        connect: Callable[[str], Conn] | None = None,
    ) -> None:
        if batch < 1:
            raise CentralError(f"batch must be >= 1, got {batch}")
        self.journal_path = Path(journal_path)
        self.table_id = table_id
        self.url = url
        self._resolve = resolve
        self._status_path = None if status_path is None else Path(status_path)
        self.batch = batch
        self.poll = poll
        self.retry_min = retry_min
        self.retry_max = retry_max
        self._connect = connect or _default_connect(table_id)
        self._conn: Conn | None = None
        self._journal: Journal | None = None
        self._journal_id = ""
        self._deriver = HandDeriver(resolve)
        self._derived_to = -1  # the seq the deriver has been fed up to (-1: rebuild it)
        self._shipped = 0
        self._last_shipped_at: float | None = None
        self._error = ""
        self._state: State = "starting"
        self._status_written = 0.0
        self.stop_event = threading.Event()

    # -- the loop ----------------------------------------------------------------------------

    def run(self) -> None:
        """Ship until :attr:`stop_event` is set (or the journal is refused).

        :raises ForkedJournalError: the local journal and the central copy disagree.
        """
        delay = self.retry_min
        try:
            while not self.stop_event.is_set():
                try:
                    sent = self.ship_pending()
                except ForkedJournalError as exc:
                    self._set_state("refused", str(exc), force=True)
                    log.error("shipping refused: %s", exc)
                    raise
                except (psycopg.Error, OSError, JournalError, CentralError) as exc:
                    self._drop_connection()
                    text = f"{type(exc).__name__}: {exc}".strip()
                    if self._state != "retrying":
                        log.warning("shipping stopped, retrying: %s", text)
                    self._set_state("retrying", text)
                    self._write_status(force=False)  # the journal grows meanwhile
                    self.stop_event.wait(delay)
                    delay = min(delay * 2, self.retry_max)
                    continue
                if self._state == "retrying":
                    log.info("shipping again (central store reachable)")
                delay = self.retry_min
                if sent == 0:
                    self._set_state("caught_up", "")
                    self.stop_event.wait(self.poll)
        finally:
            if self._state != "refused":
                self._set_state("stopped", self._error, force=True)
            self.close()

    def stop(self) -> None:
        """Ask :meth:`run` to return (from another thread or a signal handler)."""
        self.stop_event.set()

    def close(self) -> None:
        """Close the database connection and the journal."""
        self._drop_connection()
        if self._journal is not None:
            self._journal.close()
            self._journal = None

    def ship_pending(self) -> int:
        """Ship every entry not yet in the central store, a batch a transaction.

        :returns: how many entries were shipped (0 when there was nothing to ship).
        :raises ForkedJournalError: tampered or forked journal.
        :raises psycopg.Error: the database failed (retry later).
        :raises JournalError: the journal cannot be read (yet).
        """
        journal = self._open_journal()
        if journal is None:
            self._write_status(force=False)
            return 0
        conn = self._connection()
        total = 0
        while not self.stop_event.is_set():
            n = self._ship_batch(conn, journal)
            total += n
            if n < self.batch:
                break
        return total

    # -- one batch ---------------------------------------------------------------------------

    def _ship_batch(self, conn: Conn, journal: Journal) -> int:
        t, j = self.table_id, self._journal_id
        with conn.transaction():
            row = conn.execute(
                "SELECT shipped_seq, shipped_hash FROM journals "
                "WHERE table_id = %s AND journal_id = %s FOR UPDATE", (t, j)).fetchone()
            assert row is not None  # made in _open_journal's first connection
            shipped, shipped_hash = int(row[0]), str(row[1])
            self._check_head(journal, shipped, shipped_hash)
            entries = list(journal.entries(since=shipped, until=shipped + self.batch))
            if not entries:
                self._shipped = shipped
                self._write_status(force=False)
                return 0
            self._check_chain(entries, shipped_hash)
            self._derive(journal, shipped, entries)
            rows = [_row_of(e) for e in entries]
            cols = list(zip(*rows, strict=True))
            inserted = {int(r[0]) for r in conn.execute(_INSERT, {
                "t": t, "j": j, "seq": [e.seq for e in entries], "kind": list(cols[0]),
                "hand": list(cols[1]), "wall": list(cols[2]), "mono": list(cols[3]),
                "ptext": list(cols[4]), "pjson": [jsonb_copy(p) for p in cols[4]],
                "prev": list(cols[5]), "hash": list(cols[6]),
            }).fetchall()}
            if len(inserted) < len(entries):
                self._check_conflicts(conn, [e for e in entries if e.seq not in inserted])
            hands, irregular = self._deriver.take()
            self._write_derived(conn, hands, irregular)
            last = entries[-1]
            conn.execute(
                "UPDATE journals SET shipped_seq = %s, shipped_hash = %s, shipped_at = now() "
                "WHERE table_id = %s AND journal_id = %s", (last.seq, last.hash, t, j))
        self._shipped = last.seq
        self._last_shipped_at = time.time()
        self._set_state("shipping", "")
        return len(entries)

    def _check_head(self, journal: Journal, shipped: int, shipped_hash: str) -> None:
        if shipped == 0:
            return
        try:
            local = journal.get(shipped)
        except JournalError:
            raise ForkedJournalError(
                f"table {self.table_id}: the central store holds entry {shipped} of journal "
                f"{self._journal_id[:12]}, the local journal {self.journal_path} ends at "
                f"{journal.newest_seq()}: truncated or replaced") from None
        if local.hash != shipped_hash:
            raise ForkedJournalError(
                f"table {self.table_id}: entry {shipped} differs between the local journal "
                f"{self.journal_path} and the central store (forked or tampered)")

    def _check_chain(self, entries: Sequence[Entry], prev: str) -> None:
        for e in entries:
            digest = entry_hash(e.prev_hash, e.seq, e.kind.value, e.wall_time, e.mono_time,
                                e.hand, canonical_json(e.payload))
            if e.prev_hash != prev or digest != e.hash:
                raise ForkedJournalError(
                    f"table {self.table_id}: local journal {self.journal_path} does not verify "
                    f"at entry {e.seq} (altered after it was written)")
            prev = e.hash

    def _check_conflicts(self, conn: Conn, entries: Sequence[Entry]) -> None:
        seqs = [e.seq for e in entries]
        central = {
            int(r[0]): tuple(r[1:]) for r in conn.execute(
                "SELECT seq, kind, hand, wall_time, mono_time, payload_text, prev_hash, hash "
                "FROM entries WHERE table_id = %s AND journal_id = %s AND seq = ANY(%s)",
                (self.table_id, self._journal_id, seqs)).fetchall()
        }
        for e in entries:
            if central.get(e.seq) != _row_of(e):
                raise ForkedJournalError(
                    f"table {self.table_id}: entry {e.seq} of journal {self._journal_id[:12]} "
                    f"is already in the central store with other content (forked or tampered)")

    def _derive(self, journal: Journal, shipped: int, entries: Sequence[Entry]) -> None:
        if self._derived_to != shipped:
            # a fresh start, or the last batch was rolled back: rebuild the open hand
            self._deriver = HandDeriver(self._resolve)
            if shipped:
                last = journal.get(shipped)
                if last.hand is not None and last.kind is not EntryKind.HAND_END:
                    self._deriver.feed_all(journal.entries(hand=last.hand, until=shipped))
                    self._deriver.take()
        self._derived_to = -1  # until this batch commits
        self._deriver.feed_all(entries)
        self._derived_to = entries[-1].seq

    def _write_derived(
        self, conn: Conn, hands: Sequence[HandRow], irregular: Sequence[IrregularityRow]
    ) -> None:
        t, j = self.table_id, self._journal_id
        with conn.cursor() as cur:
            if hands:
                cur.executemany(_HANDS, [
                    (t, j, h.hand, h.started, h.ended, h.voided, h.seats, h.board,
                     json.dumps(h.hole, sort_keys=True), h.cards, h.irregularities,
                     h.first_seq, h.last_seq) for h in hands])
            if irregular:
                cur.executemany(_IRREGULARITIES, [
                    (t, j, r.seq, r.hand, r.at, no_nul(r.kind), no_nul(r.text)) for r in irregular])

    # -- resources ---------------------------------------------------------------------------

    def _open_journal(self) -> Journal | None:
        if self._journal is None:
            if not self.journal_path.exists():
                self._set_state("starting", f"no journal at {self.journal_path} yet")
                return None
            self._journal = Journal.open(self.journal_path, readonly=True)
        if not self._journal_id:
            if self._journal.newest_seq() == 0:
                return None
            first = self._journal.get(1)
            conn = self._connection()
            with conn.transaction():
                conn.execute(
                    "INSERT INTO journals (table_id, journal_id, first_wall, shipped_hash) "
                    "VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
                    (self.table_id, first.hash, first.wall_time, GENESIS_HASH))
            self._journal_id = first.hash
        return self._journal

    def _connection(self) -> Conn:
        if self._conn is None or self._conn.closed:
            conn = self._connect(self.url)
            try:
                migrate(conn)
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    def _drop_connection(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(psycopg.Error):
                self._conn.close()
            self._conn = None
        self._derived_to = -1

    # -- status ------------------------------------------------------------------------------

    def status(self) -> ShipStatus:
        """Return the current progress (also what the status file holds)."""
        local = 0
        if self._journal is not None:
            try:
                local = self._journal.newest_seq()
            except JournalError:  # pragma: no cover - closed under us
                local = 0
        return ShipStatus(
            table=self.table_id, journal=str(self.journal_path), journal_id=self._journal_id,
            url=safe_url(self.url), state=self._state, local_seq=local,
            shipped_seq=self._shipped, behind=max(0, local - self._shipped),
            last_shipped_at=self._last_shipped_at, last_error=self._error,
            updated_at=time.time())

    def _set_state(self, state: State, error: str, *, force: bool = False) -> None:
        changed = state != self._state or error != self._error
        self._state, self._error = state, error
        self._write_status(force=force or changed)

    def _write_status(self, *, force: bool) -> None:
        if self._status_path is None:
            return
        now = time.monotonic()
        if not force and now - self._status_written < 1.0:
            return
        self._status_written = now
        tmp = self._status_path.with_name(self._status_path.name + ".tmp")
        try:
            self._status_path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(self.status().to_json(), encoding="utf-8")
            os.replace(tmp, self._status_path)
        except OSError as exc:  # pragma: no cover - a full disk must not stop shipping
            log.warning("cannot write shipper status %s: %s", self._status_path, exc)


def _default_connect(table_id: str) -> Callable[[str], Conn]:
    def connect(url: str) -> Conn:
        return psycopg.connect(
            url, connect_timeout=5, application_name=f"tc-ship-{table_id}"[:63],
            keepalives=1, keepalives_idle=10, keepalives_interval=5, keepalives_count=3)
    return connect
