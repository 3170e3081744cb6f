"""Restart time, recall time and growth of played journals of 100, 1,000 and 10,000 hands.

``python -m benchmarks restart [--hands 100,1000,10000] [--dir DIR]`` plays hands through an
in-process daemon's journal path (:mod:`table_controller.simtable.journal_io`: the real core,
journal and checkpoints, time as a counter), copying the journal when it reaches each size,
then prints per size:

- a restart: the daemon's ``open_state`` (journal open and verify, configuration check) and
  ``recover`` (replay from the last checkpoint), on a fresh copy each time;
- the same restart replaying every entry (``recover(checkpoints=False)``), the old way;
- ``recall --hands 10``: a read-only open and the last ten hands formatted;
- a bare SQLite open of the same file, reading every row, and reading the count only;
- bytes per hand (database and ``-wal`` after a checkpoint of the WAL).

Target: a 10,000-hand restart within 1.5x of a 100-hand one; recall under 1 s; <= 10 KB a hand.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from table_controller.config import loads_config
from table_controller.daemon import Daemon
from table_controller.journal import Journal
from table_controller.journal.recall import deck_of, format_hands
from table_controller.simtable.journal_io import DAEMON_CONFIG, JournaledIO, play_hands


def daemon(base: Path) -> Daemon:
    """A daemon on the journal under ``base`` with its state opened (no devices or sockets)."""
    d = Daemon(loads_config(DAEMON_CONFIG.format(table_id="B1"), base_dir=base), print_ready=False)
    d.open_state()
    return d


def build(work: Path, sizes: list[int], out: Path) -> dict[int, Path]:
    """Play up to the largest size in ``work``; copy the state folder to ``out/<n>`` at each."""
    d = daemon(work)
    d.recover()
    io = JournaledIO(d)
    done, copies = 0, {}
    for n in sorted(sizes):
        play_hands(io, n - done, seed=n)
        done = n
        assert d.journal is not None
        d.journal.close()
        shutil.copytree(work / "state", out / str(n) / "state",
                        ignore=shutil.ignore_patterns("*.lock", "phh"))
        copies[n] = out / str(n)
        d = daemon(work)
        d.recover()
        io = JournaledIO(d)
    assert d.journal is not None
    d.journal.close()
    return copies


def _copy(src: Path, dst: Path) -> Path:
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    return dst


def restart(src: Path, scratch: Path, *, checkpoints: bool) -> tuple[float, int]:
    """Time one restart on a fresh copy of ``src``; return (seconds, inputs replayed)."""
    base = _copy(src, scratch)
    t0 = time.perf_counter()
    d = daemon(base)
    d.recover(checkpoints=checkpoints)
    took = time.perf_counter() - t0
    assert d.journal is not None
    d.journal.close()
    return took, d.replayed


def recall(path: Path) -> float:
    """Time ``recall --hands 10`` (open read-only, the last ten hands in words)."""
    t0 = time.perf_counter()
    with Journal.open(path, readonly=True) as j:
        hands = j.recent_hands(10)
        format_hands(hands, lambda r: deck_of(j.config_for(r.entries[0].seq)))
    return time.perf_counter() - t0


def bare(path: Path, *, rows: bool) -> float:
    """Time a bare SQLite open, reading every row (or the count only)."""
    t0 = time.perf_counter()
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    if rows:
        for _row in conn.execute("SELECT * FROM entries ORDER BY seq"):
            pass
    else:
        conn.execute("SELECT MAX(seq) FROM entries").fetchone()
    conn.close()
    return time.perf_counter() - t0


def size_per_hand(path: Path, hands: int) -> float:
    """Bytes a hand on disk (database and ``-wal`` after folding the WAL in)."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    total = sum(p.stat().st_size for p in path.parent.glob(path.name + "*")
                if not p.name.endswith((".lock", ".anchor")))
    return total / hands


def _med(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:8.1f} ms (min {min(samples) * 1000:.1f})"


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks restart")
    parser.add_argument("--hands", default="100,1000,10000", help="journal sizes in hands")
    parser.add_argument("--dir", type=Path, default=None, help="where the journals are kept")
    parser.add_argument("--repeat", type=int, default=5)
    args, _ = parser.parse_known_args()
    sizes = [int(n) for n in args.hands.split(",")]
    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        root = Path(d)
        t0 = time.perf_counter()
        copies = build(root / "work", sizes, root / "journals")
        print(f"built journals of {sizes} hands in {time.perf_counter() - t0:.0f} s",
              flush=True)
        for n, src in copies.items():
            path = src / "state" / "journal.db"
            with Journal.open(path, readonly=True, full=True) as j:
                entries = j.last_seq
            ours = [restart(src, root / "scratch", checkpoints=True) for _ in range(args.repeat)]
            full = [restart(src, root / "scratch", checkpoints=False)
                    for _ in range(max(1, args.repeat // 2 if n < 10_000 else 1))]
            print(f"{n:6d} hands ({entries} entries, {size_per_hand(path, n):7.0f} B/hand):",
                  flush=True)
            print(f"  restart (checkpoint)     {_med([t for t, _ in ours])}, replayed "
                  f"{ours[0][1]} inputs", flush=True)
            print(f"  restart (full replay)    {_med([t for t, _ in full])}, replayed "
                  f"{full[0][1]} inputs", flush=True)
            print(f"  recall --hands 10        {_med([recall(path) for _ in range(args.repeat)])}",
                  flush=True)
            print(f"  bare sqlite, every row   "
                  f"{_med([bare(path, rows=True) for _ in range(args.repeat)])}", flush=True)
            print(f"  bare sqlite, count only  "
                  f"{_med([bare(path, rows=False) for _ in range(args.repeat)])}", flush=True)


if __name__ == "__main__":
    main()
