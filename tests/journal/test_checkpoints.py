"""Checkpoints: a restart from the last checkpoint builds the very state a full replay builds."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from table_controller.controller.checkpoint import core_state
from table_controller.controller.events import Output
from table_controller.daemon import Daemon
from table_controller.daemon.recovery import Clock
from table_controller.errors import JournalDamagedError, JournalError
from table_controller.journal import EntryKind, Journal
from table_controller.journal.compact import deflate, inflate
from table_controller.journal.layout import KIND_CODES
from table_controller.simtable.journal_io import JournaledIO, play_hands
from tests.controller.helpers import inprocess_daemon, journal_of
from tests.journal.damage import Outcome, copy_journal, flip, judge, reference

PAGE = 4096


def played(tmp: Path, hands: int, seed: int) -> Path:
    """Play ``hands`` hands on an in-process daemon's journal; return the journal's path."""
    d = inprocess_daemon(tmp)
    d.recover()
    play_hands(JournaledIO(d), hands, seed=seed)
    path = journal_of(d).path
    journal_of(d).close()
    return path


class StoppedClock(Clock):
    """A daemon clock that stands still (both restarts of a comparison at the same time)."""

    def __init__(self) -> None:
        super().__init__()
        self.t = 0.0

    def __call__(self) -> float:
        return self.t

    def not_before(self, last: float) -> None:
        self.t = max(self.t, last + 1.0)


def restarted(tmp: Path, *, checkpoints: bool) -> Daemon:
    d = inprocess_daemon(tmp)
    d.clock = StoppedClock()
    d.recover(checkpoints=checkpoints)
    return d


def state(d: Daemon) -> str:
    assert d.core is not None
    return json.dumps({"core": core_state(d.core), "reads": d.reads.recent(10**6)},
                      sort_keys=True)


def kinds(out: list[Output]) -> list[dict[str, object]]:
    return [{"type": type(o).__name__, **o.to_dict()} if hasattr(o, "to_dict")
            else {"type": type(o).__name__} for o in out]


def compare_restarts(tmp: Path, more_hands: int, seed: int) -> None:
    """Restart twice on copies of one journal (from the checkpoint, and replaying every
    entry): the same state, then the same outputs for the same further hands."""
    copies = {}
    for mode in ("checkpoint", "full"):
        where = tmp / mode
        (where / "state").mkdir(parents=True)
        for f in (tmp / "state").iterdir():
            if f.is_file() and not f.name.endswith(".lock"):
                (where / "state" / f.name).write_bytes(f.read_bytes())
        copies[mode] = restarted(where, checkpoints=mode == "checkpoint")
    fast, full = copies["checkpoint"], copies["full"]
    assert fast.replayed < full.replayed
    assert state(fast) == state(full)
    ios = {m: JournaledIO(d) for m, d in copies.items()}
    for m in ios:
        play_hands(ios[m], more_hands, seed=seed + 1)
    assert kinds(ios["checkpoint"].outputs) == kinds(ios["full"].outputs)
    assert state(fast) == state(full)
    for d in copies.values():
        journal_of(d).close()


def test_a_restart_from_the_checkpoint_equals_a_full_replay(tmp_path: Path) -> None:
    path = played(tmp_path, 25, seed=3)
    with Journal.open(path) as j:
        points = [e for e in j.entries() if e.kind is EntryKind.CHECKPOINT]
        assert [e.payload["hand"] for e in points] == [10, 20]
        assert all(e.hand is None for e in points)
    compare_restarts(tmp_path, more_hands=5, seed=3)


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_randomised_sessions_restart_the_same_from_a_checkpoint(tmp_path: Path,
                                                                 seed: int) -> None:
    rng = random.Random(seed)
    played(tmp_path, rng.randint(10, 24), seed=seed)
    compare_restarts(tmp_path, more_hands=rng.randint(1, 4), seed=seed)


def test_a_tampered_checkpoint_is_refused(tmp_path: Path) -> None:
    path = played(tmp_path, 10, seed=5)
    con = sqlite3.connect(path)
    seq, stored = con.execute("SELECT seq, payload FROM entries WHERE kind = ?",
                              (KIND_CODES.index("checkpoint"),)).fetchone()
    payload = inflate(stored)
    assert payload is not None
    con.execute("UPDATE entries SET payload = ? WHERE seq = ?",
                (deflate(payload.replace('"stack"', '"stack" ', 1) if '"stack"' in payload
                         else payload[:-1] + ' }'), seq))
    con.commit()
    con.close()
    with pytest.raises(JournalDamagedError, match=f"first bad sequence number {seq}"):
        Journal.open(path).close()


def test_an_open_verifies_from_a_checkpoint_and_a_full_verify_finds_old_damage(
        tmp_path: Path) -> None:
    path = played(tmp_path, 25, seed=4)
    con = sqlite3.connect(path)
    con.execute("UPDATE entries SET wall_time = wall_time + 1 WHERE seq = 3")
    con.commit()
    con.close()
    with Journal.open(path, readonly=True) as j:  # entry 3 is before the verified window
        assert [h.hand for h in j.recent_hands(10)] == list(range(16, 26))
        with pytest.raises(JournalDamagedError, match="first bad sequence number 3"):
            j.hand_entries(1)
    with pytest.raises(JournalDamagedError, match="first bad sequence number 3"):
        Journal.open(path, full=True).close()


def window(j: Journal) -> tuple[object, ...]:
    """What a restart reads: the last ten hands, the last checkpoint and its configuration."""
    found = j.last_checkpoint()
    assert found is not None
    config = j.config_for(found[0].seq)
    return (tuple(tuple(e.hash for e in r.entries) for r in j.recent_hands(10)),
            found[0].hash, config.hash if config else None, j.last_seq, j.head_hash)


@pytest.mark.parametrize("where", [1000, 3000])
def test_one_bit_in_every_page_of_a_checkpointed_journal(tmp_path: Path, where: int) -> None:
    """Each page in turn: the open refuses, or what a restart reads is intact; and the full
    check (``journal verify``) refuses it or finds everything as before: 0 accepted silently."""
    closed = played(tmp_path / "src", 25, seed=6)
    ref = reference(closed)
    with Journal.open(closed, readonly=True) as j:
        ref_window = window(j)
        assert j.verified_from > 1
    bad: list[str] = []
    outcomes: Counter[str] = Counter()
    for page in range(closed.stat().st_size // PAGE):
        copy = copy_journal(closed, tmp_path / f"p{page}")
        flip(copy, page * PAGE + where, page % 8)
        try:
            with Journal.open(copy, readonly=True) as j:
                if window(j) != ref_window:
                    bad.append(f"page {page}: the open accepted a changed window")
            outcomes["opened"] += 1
        except JournalError:
            outcomes["refused at open"] += 1
        except Exception as exc:
            bad.append(f"page {page}: crashed at open: {exc!r}")
        outcome, why = judge(copy, ref, readonly=True)
        outcomes[outcome.value] += 1
        if outcome in (Outcome.SILENT, Outcome.CRASHED):
            bad.append(f"page {page}: full check: {outcome.value}: {why}")
        shutil.rmtree(copy.parent)
    assert not bad, "\n".join(bad)
    assert outcomes["refused at open"] > 0


def test_an_old_anchor_put_back_on_a_checkpointed_journal_is_refused(tmp_path: Path) -> None:
    path = played(tmp_path / "a", 3, seed=7)
    anchor = Path(f"{path}.anchor")
    old = anchor.read_bytes()
    d = inprocess_daemon(tmp_path / "a")
    d.recover()
    play_hands(JournaledIO(d), 22, seed=8)
    journal_of(d).close()
    anchor.write_bytes(old)
    with pytest.raises(JournalDamagedError, match=r"past its anchor|does not match"):
        Journal.open(path).close()


def test_a_full_replay_across_archive_files_equals_a_restart_from_the_checkpoint(
        tmp_path: Path) -> None:
    import datetime

    path = played(tmp_path, 25, seed=4)
    with Journal.open(path) as j:
        cuts = [e.seq for e in j.entries() if e.kind is EntryKind.CHECKPOINT]
        done = j.archive(cuts, at=datetime.time(6, 0), wall_time=1.0, mono_time=1e9)
        assert [r.hands for r in done] == [(1, 10), (11, 20)]
    # (the copies in compare_restarts take the archive files too: they are in the folder)
    compare_restarts(tmp_path, more_hands=5, seed=4)


def test_the_daemon_archives_a_gaming_day_at_a_hand_end_and_restarts_from_after_it(
        tmp_path: Path) -> None:
    import datetime
    import time

    from table_controller.journal.archive import archive_files, day_start, gaming_day

    at = datetime.time(6, 0)

    class Wall:  # the daemon's wall clock, stepped (its start entries are journaled now)
        t = time.time()

        def __call__(self) -> float:
            self.t += 0.01
            return self.t

    d = inprocess_daemon(tmp_path)
    assert d.journaler is not None
    wall = Wall()
    today = gaming_day(wall.t, at)
    d.journaler.archive_at, d.journaler.wall = at, wall
    d.recover()
    io = JournaledIO(d)
    play_hands(io, 12, seed=5)
    assert archive_files(journal_of(d).path) == []
    assert d.journaler.between_hands(0.0) == []  # the day has not ended
    wall.t = day_start(today + datetime.timedelta(days=1), at) + 1800  # the next gaming day
    play_hands(io, 3, seed=6)  # archived at the first hand's end
    j = journal_of(d)
    [rec] = j.archives
    assert rec.hands == (1, 13) and rec.day == today.isoformat()  # the day that ended
    assert j.current_hand is None and j.get(rec.last + 1).kind is EntryKind.CHECKPOINT
    j.close()
    compare_restarts(tmp_path, more_hands=3, seed=5)
