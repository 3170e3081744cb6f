"""Long runs with the real parts: serial faults and unplugs, and SIGKILL of the daemon.

Real ptys (simulators through pyserial), the daemon process (``table-controller run``), ZeroMQ
with CURVE on 127.0.0.1, SQLite. The short variants run by default; ``-m slow`` runs the long ones
(bounded by a time budget). ``RELIABILITY_SOAK_HANDS`` / ``RELIABILITY_SOAK_BUDGET`` change the
long runs' size.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from table_controller.simtable.soak import SoakOptions, SoakReport, run_soak
from tests.reliability.counts import COUNTS

SLOW_HANDS = int(os.environ.get("RELIABILITY_SOAK_HANDS", "40"))
SLOW_BUDGET = float(os.environ.get("RELIABILITY_SOAK_BUDGET", "150"))


def soak(**kw: Any) -> SoakReport:
    opts = SoakOptions(**kw)
    report = asyncio.run(asyncio.wait_for(run_soak(opts), timeout=opts.time_budget + 120))
    print("\n".join(report.lines()))
    COUNTS["hands"] += report.hands_played
    COUNTS["cards drawn"] += report.cards_drawn
    COUNTS["cards lost or misassigned"] += len(report.misassigned) + len(report.lost_cards)
    COUNTS["rebuys"] += report.rebuys
    COUNTS["link faults injected"] += sum(report.link_faults.values())
    COUNTS["link faults that must show"] += report.link_faults_must_show
    COUNTS["link faults shown"] += report.link_faults_shown
    COUNTS["unplugs"] += report.unplugs
    COUNTS["unplugs shown"] += report.unplugs_shown
    COUNTS["kills"] += report.kills
    COUNTS["kills survived"] += report.restarts_ok
    COUNTS["state mismatches after restart"] += len(report.state_mismatches)
    COUNTS["resent commands answered from the record"] += report.replays_answered_from_record
    COUNTS["chip differences"] += len(report.chip_differences)
    COUNTS["crashes"] += report.crashes
    return report


def assert_clean(r: SoakReport, hands: int) -> None:
    assert not r.errors, r.errors
    assert r.hands_played == hands
    assert r.cards_drawn == r.cards_assigned > 0
    assert r.misassigned == [] and r.lost_cards == []
    assert r.chip_differences == [] and r.chip_checks >= 1
    assert r.chips_after + r.rake == r.chips_before
    assert r.crashes == 0 and r.daemon_exit == 0
    assert r.duplicate_command_records == 0 and r.refused_on_replay == 0
    assert r.incomplete_hands == [] and r.hands_in_journal == hands
    assert r.ok


def assert_faults_shown(r: SoakReport) -> None:
    assert sum(r.link_faults.values()) > 0
    assert r.link_faults_shown == r.link_faults_must_show
    assert r.unplugs_shown == r.unplugs
    # a cable pulled during a hand is an irregularity that holds the table until the floor
    # resolves it; between hands it is an announcement only
    assert r.irregularities.get("device_lost", 0) <= r.unplugs


def assert_kills_survived(r: SoakReport) -> None:
    assert r.kills > 0 and r.restarts_ok == r.kills
    assert r.state_mismatches == []
    assert r.replays_checked == r.replays_answered_from_record


def test_serial_faults_short() -> None:
    r = soak(hands=2, seed=11, link_fault_rate=0.4, unplug_rate=0.05, time_budget=300)
    assert_clean(r, 2)
    assert_faults_shown(r)


def test_kill_9_short() -> None:
    r = soak(hands=2, seed=5, kill_rate=0.06, quiet_kill_share=0.5, time_budget=300)
    assert_clean(r, 2)
    assert_kills_survived(r)


@pytest.mark.slow
def test_serial_faults_long() -> None:
    r = soak(hands=SLOW_HANDS, seed=21, link_fault_rate=0.3, unplug_rate=0.03,
             time_budget=SLOW_BUDGET)
    assert_clean(r, r.hands_played)
    assert r.hands_played >= min(SLOW_HANDS, 10)
    assert_faults_shown(r)


@pytest.mark.slow
def test_kill_9_long() -> None:
    r = soak(hands=SLOW_HANDS, seed=23, kill_rate=0.05, quiet_kill_share=0.5,
             time_budget=SLOW_BUDGET)
    assert_clean(r, r.hands_played)
    assert r.hands_played >= min(SLOW_HANDS, 5)
    assert_kills_survived(r)


def test_soak_cli_refuses_bad_options(capsys: pytest.CaptureFixture[str]) -> None:
    from table_controller.cli import main

    assert main(["soak", "--taps", "--kills", "0.1"]) == 2
    assert "--taps needs a run without --kills" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["soak", "--faults", "1.5"])
    assert "a rate is 0..1" in capsys.readouterr().err


@pytest.mark.slow
def test_faults_unplugs_and_kills_together_long() -> None:
    r = soak(hands=SLOW_HANDS, seed=31, link_fault_rate=0.3, unplug_rate=0.03, kill_rate=0.04,
             quiet_kill_share=0.5, time_budget=SLOW_BUDGET)
    assert_clean(r, r.hands_played)
    assert r.hands_played >= min(SLOW_HANDS, 5)
    assert_faults_shown(r)
    assert_kills_survived(r)


@pytest.mark.slow
def test_soak_cli_runs_and_writes_its_report(tmp_path: Path) -> None:
    import json

    from table_controller.cli import main

    out = tmp_path / "soak.json"
    assert main(["soak", "--hands", "2", "--seed", "7", "--faults", "0.3", "--kills", "0.03",
                 "--budget", "60", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["ok"] and report["hands_played"] == 2


def test_the_soak_command_shows_progress_while_it_runs() -> None:
    import subprocess
    import sys
    from pathlib import Path

    exe = str(Path(sys.executable).with_name("table-controller"))
    out = subprocess.run([exe, "soak", "--hands", "2"], capture_output=True, text=True,
                         timeout=300, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    progress = [ln for ln in out.stderr.splitlines() if ln.startswith("soak: ")]
    assert any("2 of 2 hands started" in ln for ln in progress), out.stderr
    assert out.stdout.strip().endswith("clean")
