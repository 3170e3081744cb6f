"""A journal of many archived gaming days against a single-file journal of the same hands.

``python -m benchmarks archive [--hands 10000] [--days 30] [--repeat 3] [--dir DIR]`` plays
``--hands`` hands through an in-process daemon's journal path (as ``bench_restart``: the real
core, journal and checkpoints), the daemon's wall clock stepped one gaming day (06:00) every
``hands / days`` hands, then copies the journal twice: one copy is left in one file, the
other is archived (``Journal.archive`` at the last checkpoint of every gaming day but the last,
as ``journal archive --before``). Printed side by side, on the same hands in the same run:

- a restart (the daemon's ``open_state`` + ``recover`` from the last checkpoint, fresh copy);
- ``recall --hands 10`` (a read-only open and the last ten hands in words);
- ``recall --hand N`` of a hand of the first gaming day (in the oldest archive);
- ``journal verify`` (``Journal.open(readonly=True, full=True)``: every entry of every file);
- bytes a hand on disk (every file, the WAL folded in), the time archiving the month at once
  took, and the daemon's daily archiving of the last day (a checkpoint, then one archive).

Targets: restart and ``recall --hands 10`` as with one file (under 1 s whatever the age),
at most 10 KB a hand.
"""

from __future__ import annotations

import argparse
import datetime
import shutil
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.bench_restart import daemon, restart
from table_controller.journal import Journal
from table_controller.journal.archive import archive_files
from table_controller.journal.recall import deck_of, format_hands
from table_controller.simtable.journal_io import JournaledIO, play_hands

AT = datetime.time(6, 0)
DAY0 = datetime.date(2026, 10, 1)


class SteppedWall:
    """The daemon's wall clock: set to a gaming day, a twentieth of a second more each read."""

    def __init__(self) -> None:
        self.t = 0.0

    def day(self, n: int) -> None:
        """Go to 07:00 on gaming day ``n`` after :data:`DAY0`."""
        self.t = datetime.datetime.combine(DAY0 + datetime.timedelta(days=n),
                                           datetime.time(7, 0)).timestamp()

    def __call__(self) -> float:
        self.t += 0.05
        return self.t


def build(work: Path, hands: int, days: int) -> Path:
    """Play ``hands`` hands over ``days`` gaming days in ``work``; return the state folder."""
    d = daemon(work)
    wall = SteppedWall()
    assert d.journaler is not None
    d.journaler.wall = wall
    wall.day(0)
    d.recover()
    io = JournaledIO(d)
    done = 0
    for n in range(days):
        wall.day(n)
        todo = hands * (n + 1) // days - done
        play_hands(io, todo, seed=n + 1)
        done += todo
    assert d.journal is not None
    d.journal.close()
    return work / "state"


def recall(path: Path, hand: int | None = None) -> float:
    """Time ``recall --hands 10`` (or ``--hand N``)."""
    t0 = time.perf_counter()
    with Journal.open(path, readonly=True) as j:
        hands = j.recent_hands(10) if hand is None else [j.hand_entries(hand)]
        format_hands(hands, lambda r: deck_of(j.config_for(r.entries[0].seq)))
    return time.perf_counter() - t0


def verify(path: Path) -> tuple[float, int]:
    """Time ``journal verify``; return (seconds, entries)."""
    t0 = time.perf_counter()
    with Journal.open(path, readonly=True, full=True) as j:
        n = j.last_seq
    return time.perf_counter() - t0, n


def size_per_hand(path: Path, hands: int) -> float:
    """Bytes a hand on disk: the journal (WAL folded in) and its archives."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    files = [*path.parent.glob(path.name + "*"), *archive_files(path)]
    return sum(p.stat().st_size for p in files
               if not p.name.endswith((".lock", ".anchor"))) / hands


def _med(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:9.1f} ms (min {min(samples) * 1000:.1f})"


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks archive")
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=None, help="where the journals are kept")
    args, _ = parser.parse_known_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        root = Path(d)
        t0 = time.perf_counter()
        state = build(root / "work", args.hands, args.days)
        print(f"played {args.hands} hands over {args.days} gaming days in "
              f"{time.perf_counter() - t0:.0f} s", flush=True)
        single = root / "single"
        shutil.copytree(state, single / "state", ignore=shutil.ignore_patterns("*.lock", "phh"))
        many = root / "archived"
        shutil.copytree(state, many / "state", ignore=shutil.ignore_patterns("*.lock", "phh"))
        path = many / "state" / "journal.db"
        t0 = time.perf_counter()
        with Journal.open(path) as j:  # once: the whole month (a journal from before)
            last = DAY0 + datetime.timedelta(days=args.days - 1)
            done = j.archive(j.cuts_before(last, AT), at=AT, wall_time=time.time(),
                             mono_time=time.monotonic())
            first_day = done[0].hands
        took = time.perf_counter() - t0
        live = path.stat().st_size
        print(f"archived into {len(done)} files at once in {took:.1f} s (first: {done[0].file}, "
              f"hands {first_day}; live file {live / 1e6:.1f} MB)", flush=True)
        daily = root / "daily"  # the daemon's daily archiving: the last day, between hands
        days = []
        for _ in range(args.repeat):
            if daily.exists():
                shutil.rmtree(daily)
            shutil.copytree(many, daily)
            with Journal.open(daily / "state" / "journal.db") as j:
                found = j.last_checkpoint()
                assert found is not None
                t0 = time.perf_counter()
                cut = j.append_checkpoint(found[1], wall_time=time.time(),
                                          mono_time=time.monotonic())
                one = j.archive([cut.seq], at=AT, wall_time=time.time(),
                                mono_time=time.monotonic())
                days.append(time.perf_counter() - t0)
        print(f"the daemon's daily archiving (checkpoint + archive of one day, "
              f"{one[0].last - one[0].first + 1} entries): {_med(days)}", flush=True)
        old = first_day[0] + 3 if first_day else 1
        for name, src in (("one file", single), (f"{len(done)} archives", many)):
            p = src / "state" / "journal.db"
            ours = [restart(src, root / "scratch", checkpoints=True)
                    for _ in range(args.repeat)]
            checks = [verify(p) for _ in range(max(1, args.repeat // 2))]
            print(f"{name}: {checks[0][1]} entries, {size_per_hand(p, args.hands):7.0f} B/hand",
                  flush=True)
            print(f"  restart (checkpoint)   {_med([t for t, _ in ours])}, replayed "
                  f"{ours[0][1]} inputs", flush=True)
            print(f"  recall --hands 10      {_med([recall(p) for _ in range(args.repeat)])}",
                  flush=True)
            print(f"  recall --hand {old:<8} {_med([recall(p, old) for _ in range(args.repeat)])}",
                  flush=True)
            print(f"  journal verify         {_med([t for t, _ in checks])}", flush=True)


if __name__ == "__main__":
    main()
