"""A real daemon, killed with SIGKILL mid-hand; its journal then damaged: it must not start.

Exit status 4 ("journal damaged") with one line naming the file and what is wrong; never a
daemon that comes back in an older hand.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from table_controller.journal import EntryKind, Journal
from table_controller.simtable.devices.hands import feeder_of
from table_controller.simtable.rig import RigError, RigOptions, SimRig
from table_controller.simtable.soak import SyncConsole, post_blinds, start_rig


def _mid_hand(rig: SimRig) -> None:
    c = SyncConsole(rig, "damage")
    try:
        for seat in (1, 2, 3):
            c.ok({"command": "seat", "seat": seat, "player": f"p{seat}", "stack": 10_000})
        feeder_of(rig).load_deck([rig.uid(card) for card in rig.profile.cards.values()])
        c.ok({"command": "start"})
        assert post_blinds(c, rig)["kind"] == "deal_hole"
    finally:
        c.close()


def _refused(rig: SimRig, what: str) -> str:
    with pytest.raises(RigError, match="exited with status 4") as err:
        rig.start_daemon()
    text = str(err.value)
    assert what in text and str(rig.journal_path) in text, text
    return text


def test_deleted_wal_after_a_kill_stops_the_start() -> None:
    rig = start_rig(RigOptions(seats=6, security="curve", camera_level="exact"))
    try:
        _mid_hand(rig)
        rig.kill()
        wal = Path(f"{rig.journal_path}-wal")
        assert wal.exists() and wal.stat().st_size > 0
        wal.unlink()
        Path(f"{rig.journal_path}-shm").unlink(missing_ok=True)
        _refused(rig, "rolled back")
        # the operator accepts the loss (journaled); the table reopens on what was kept
        done = subprocess.run(
            [sys.executable, "-m", "table_controller", "journal", "accept-damage", "--journal",
             str(rig.journal_path), "--reason", "WAL deleted by mistake", "--operator", "test"],
            capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, done.stderr
        assert "damage accepted" in done.stdout
        rig.start_daemon()
        with Journal.open(rig.journal_path, readonly=True) as j:
            ops = [e for e in j.entries() if e.kind is EntryKind.OPERATOR]
            assert len(ops) == 1 and ops[0].payload["reason"] == "WAL deleted by mistake"
    finally:
        rig.stop()


def test_cut_wal_after_a_kill_stops_the_start() -> None:
    rig = start_rig(RigOptions(seats=6, security="curve", camera_level="exact"))
    try:
        _mid_hand(rig)
        rig.kill()
        wal = Path(f"{rig.journal_path}-wal")
        os.truncate(wal, wal.stat().st_size // 2)
        _refused(rig, "rolled back")
    finally:
        rig.stop()


def test_a_restart_with_another_settle_window_is_refused() -> None:
    rig = start_rig(RigOptions(seats=6, security="curve", camera_level="exact"), settle=1.0)
    try:
        _mid_hand(rig)
        rig.kill()
        rig.options = dataclasses.replace(rig.options, settle=2.5)
        with pytest.raises(RigError, match="exited with status 2") as err:
            rig.start_daemon()
        assert "settle: 1.0 -> 2.5" in str(err.value)
        # mid-hand, even the operator's flag cannot change it
        rig.options = dataclasses.replace(rig.options, extra_args=("--accept-config-change",))
        with pytest.raises(RigError, match="exited with status 2") as err:
            rig.start_daemon()
        assert "hand 1 is in progress" in str(err.value)
        rig.options = dataclasses.replace(rig.options, settle=1.0, extra_args=())
        rig.start_daemon()
    finally:
        rig.stop()
