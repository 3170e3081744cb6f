"""The journal's integrity costs: the anchor per commit, and opening (verifying) a journal.

``python -m benchmarks journal`` prints:

- one ``Journal.append`` (~250-byte device event) with the anchor and without it, in
  alternating blocks of 100 in the same directory (so a slow phase of the disk hits both);
- opening a journal of 100 and 1,000 hands (about 60 entries a hand, as a played hand writes):
  ``Journal.open`` (quick check, whole chain, anchor) side by side with a bare SQLite open that
  reads every row.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import time
from pathlib import Path

from benchmarks.bench_infra import PAYLOAD, Stats, summarise
from table_controller.journal import GENESIS_HASH, EntryKind, Journal, canonical_json, layout
from table_controller.journal.anchor import Anchor, Head
from table_controller.journal.store import entry_hash

#: Entries written per hand in the open benchmark (a played hand writes 40-80).
PER_HAND = 60


def anchor_cost(n: int = 2000, directory: Path | None = None) -> tuple[Stats, Stats]:
    """Time ``n`` appends with the anchor and ``n`` without, in alternating blocks."""
    with tempfile.TemporaryDirectory(dir=directory) as d:
        samples: dict[bool, list[float]] = {True: [], False: []}
        journals = {a: Journal.open(Path(d) / f"{a}.db", anchored=a) for a in (True, False)}
        try:
            for block in range(2 * n // 100):
                anchored = block % 2 == 0
                j = journals[anchored]
                for i in range(100):
                    t0 = time.perf_counter()
                    j.append(EntryKind.DEVICE_EVENT, PAYLOAD, wall_time=time.time(),
                             mono_time=float(i))
                    samples[anchored].append(time.perf_counter() - t0)
        finally:
            for j in journals.values():
                j.close()
    return (summarise("append, anchored (WAL FULL + anchor)", samples[True]),
            summarise("append, no anchor (WAL FULL)", samples[False]))


def build(path: Path, hands: int) -> None:
    """Write a journal of ``hands`` hands in one transaction (the same file as appends would
    leave, without an fsync per entry), then its anchor."""
    with Journal.open(path) as j:
        schema = j.schema
    prev, seq = GENESIS_HASH, 0
    rows = []
    for h in range(1, hands + 1):
        for i in range(PER_HAND):
            seq += 1
            kind = (EntryKind.HAND_START if i == 0 else EntryKind.HAND_END
                    if i == PER_HAND - 1 else EntryKind.DEVICE_EVENT)
            payload = canonical_json(PAYLOAD)
            digest = entry_hash(prev, seq, kind.value, 1.0, float(h), h, payload)
            rows.append((seq, kind.value, 1.0, float(h), h, payload, prev, digest))
            prev = digest
    conn = sqlite3.connect(path)
    conn.executemany(layout.insert_sql(schema), [layout.stored(schema, r) for r in rows])
    conn.execute("UPDATE meta SET value = ? WHERE key = 'head_seq'", (str(seq),))
    conn.execute("UPDATE meta SET value = ? WHERE key = 'head_hash'", (prev,))
    conn.commit()
    conn.close()
    Anchor(path, Head(seq, prev)).close()


def open_cost(hands: int, repeat: int = 5, directory: Path | None = None) -> tuple[Stats, Stats]:
    """Time ``Journal.open`` and a bare SQLite open reading every row, ``repeat`` times each."""
    with tempfile.TemporaryDirectory(dir=directory) as d:
        path = Path(d) / "j.db"
        build(path, hands)
        ours: list[float] = []
        bare: list[float] = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            Journal.open(path).close()
            ours.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            conn = sqlite3.connect(path)
            for _row in conn.execute("SELECT * FROM entries ORDER BY seq"):
                pass
            conn.close()
            bare.append(time.perf_counter() - t0)
    return (summarise(f"Journal.open, {hands} hands ({hands * PER_HAND} entries)", ours),
            summarise(f"bare sqlite open + read, {hands} hands", bare))


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks journal")
    parser.add_argument("--n", type=int, default=2000, help="appends of each kind")
    parser.add_argument("--dir", type=Path, default=None, help="where to write (the disk)")
    args, _ = parser.parse_known_args()
    for s in anchor_cost(args.n, args.dir):
        print(s.line(), flush=True)
    for hands in (100, 1000):
        for s in open_cost(hands, directory=args.dir):
            print(s.line().replace(" us", " us "), flush=True)


if __name__ == "__main__":
    main()
