"""How entries are laid out in the SQLite file: schema 1 (the first) and schema 2 (compact).

The hash chain (:mod:`.chain`) does not depend on the layout: an entry's hash covers its
content (sequence number, kind, times, hand, canonical JSON payload) and the previous hash,
whichever schema stores it. Every read path works on :data:`~.chain.Row` tuples
``(seq, kind, wall_time, mono_time, hand, payload, prev_hash, hash)``; this module turns stored
rows into them and back.

Rules this module keeps:

1. Schema 1 stores every field of a row as it is: ``kind`` as text, ``prev_hash`` and ``hash``
   as 64-character hex text.
2. Schema 2 stores ``kind`` as a small integer (:data:`KIND_CODES`, fixed for the schema: a new
   kind is appended, never reordered), ``hash`` as 32 bytes, and no ``prev_hash``: a row's
   previous hash is the hash stored in the row before it (or the verified chain's, when the
   row before was not read). A stored value of the wrong type or length, or an unknown kind
   code, becomes a value the chain refuses as damaged (never a valid one).
3. The payload is the canonical JSON the hash covers: as text in schema 1, compressed against
   a fixed dictionary in schema 2 (:mod:`.compact`). A schema 2 payload that does not
   decompress, or is not bytes, becomes a value the chain refuses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from table_controller.journal.chain import GENESIS_HASH, EntryKind, Row
from table_controller.journal.compact import deflate, inflate

#: Schemas this code reads (and writes, in a journal created with it).
SCHEMAS = (1, 2)
#: Schema of a journal created now.
CURRENT = 2

#: Schema 2's kind codes: the kind of code ``i`` is ``KIND_CODES[i]`` (fixed: only appended to).
KIND_CODES: tuple[str, ...] = (
    "device_event", "dealer_command", "decision", "hold", "resolution", "hand_start",
    "hand_end", "config", "start", "stop", "operator", "checkpoint", "archive",
)
_CODE_OF = {kind: i for i, kind in enumerate(KIND_CODES)}
assert set(KIND_CODES) == {k.value for k in EntryKind}, "every kind needs a schema 2 code"

#: The ``entries`` table of each schema.
ENTRIES = {
    1: """CREATE TABLE IF NOT EXISTS entries (
    seq        INTEGER PRIMARY KEY,
    kind       TEXT    NOT NULL,
    wall_time  REAL    NOT NULL,
    mono_time  REAL    NOT NULL,
    hand       INTEGER,
    payload    TEXT    NOT NULL,
    prev_hash  TEXT    NOT NULL,
    hash       TEXT    NOT NULL
)""",
    2: """CREATE TABLE IF NOT EXISTS entries (
    seq        INTEGER PRIMARY KEY,
    kind       INTEGER NOT NULL,
    wall_time  REAL    NOT NULL,
    mono_time  REAL    NOT NULL,
    hand       INTEGER,
    payload    BLOB    NOT NULL,
    hash       BLOB    NOT NULL
)""",
}

#: The stored columns of each schema, in order.
COLUMNS = {
    1: "seq, kind, wall_time, mono_time, hand, payload, prev_hash, hash",
    2: "seq, kind, wall_time, mono_time, hand, payload, hash",
}


def insert_sql(schema: int) -> str:
    """Return the ``INSERT`` statement of one stored row of ``schema``."""
    cols = COLUMNS[schema]
    marks = ", ".join("?" for _ in cols.split(","))
    return f"INSERT INTO entries ({cols}) VALUES ({marks})"


def stored(schema: int, row: Row) -> tuple[Any, ...]:
    """Return what ``schema`` stores of ``row`` (for :func:`insert_sql`)."""
    if schema == 1:
        return tuple(row)
    seq, kind, wall, mono, hand, payload, _prev, digest = row
    return (seq, _CODE_OF[kind], wall, mono, hand, deflate(payload), bytes.fromhex(digest))


def _kind(code: Any) -> Any:
    if isinstance(code, int) and not isinstance(code, bool) and 0 <= code < len(KIND_CODES):
        return KIND_CODES[code]
    return None  # refused by the chain: "a stored field has the wrong type"


def _hex(digest: Any) -> Any:
    if isinstance(digest, bytes) and len(digest) == 32:
        return digest.hex()
    return None  # refused by the chain: "a stored field has the wrong type"


def rows(schema: int, raw: Iterable[tuple[Any, ...]],
         prev_of: Callable[[int], str | None]) -> Iterator[Row]:
    """Turn stored rows of ``schema`` (in ``seq`` order) into :data:`~.chain.Row` tuples.

    :param prev_of: the hash of entry ``seq`` (verified, or as stored) for the first row read,
        whose previous row was not read; ``None`` when there is none (then the row does not
        chain).
    """
    if schema == 1:
        for r in raw:
            yield r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]
        return
    prev: str | None = None
    last: Any = None
    for seq, code, wall, mono, hand, payload, digest in raw:
        if last is None or not isinstance(seq, int) or seq != last + 1:
            prev = GENESIS_HASH if seq == 1 else (
                prev_of(seq - 1) if isinstance(seq, int) and not isinstance(seq, bool)
                else None)
        digest_hex = _hex(digest)
        yield seq, _kind(code), wall, mono, hand, inflate(payload), prev, digest_hex
        prev = digest_hex
        last = seq
