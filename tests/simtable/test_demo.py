from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from table_controller.cli import main


def test_demo_plays_hands_on_the_daemon_and_chips_agree(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "summary.json"
    status = main(["demo", "--hands", "2", "--fast", "--no-display", "--faults", "0.3",
                   "--seed", "4", "--summary-json", str(out), "--out", str(tmp_path / "rec")])
    text = capsys.readouterr().out
    summary = json.loads(out.read_text())
    assert status == 0, text
    assert summary["hands_played"] == 2 and summary["chips_agree"]
    assert summary["chips_before"] == 50_000
    assert (summary["chips_after"] + summary["rake"]
            == summary["chips_before"] + summary["buy_ins"])
    assert summary["daemon_exit"] == 0
    saved = Path(summary["saved_to"])
    assert saved.parent == tmp_path / "rec" and (saved / "journal.db").exists()
    assert len(list((saved / "phh").glob("*.phh"))) == summary["hand_history_files"] == 2
    assert json.loads((saved / "summary.json").read_text())["hands_played"] == 2
    assert "Hand 1: button at seat 1" in text and "(agree)" in text


def test_a_clean_demo_run_shows_no_retransmission(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No fault injected: no bad frame, and nothing resent that the daemon did not have."""
    out = tmp_path / "summary.json"
    status = main(["demo", "--hands", "3", "--fast", "--no-display", "--seed", "1",
                   "--summary-json", str(out), "--out", str(tmp_path / "rec")])
    text = capsys.readouterr().out
    assert status == 0, text
    summary = json.loads(out.read_text())
    # with a rake (5 %, capped): chips before + buy-ins = after + rake, and every hand has its
    # history
    assert summary["rake"] > 0 and summary["chips_agree"]
    assert (summary["chips_after"] + summary["rake"]
            == summary["chips_before"] + summary["buy_ins"])
    phh = sorted(Path(summary["hand_histories"]).glob("*.phh"))
    assert len(phh) == summary["hands_played"] == 3
    assert any("_rake" in p.read_text() for p in phh)
    health = summary["device_health"]
    # no bad frame, no retransmission and no duplicate on any link: a device resends only
    # after the protocol's 1 s without an ACK (RETRANSMIT_AFTER), longer than the daemon takes
    # to journal and acknowledge on a saturated machine
    assert set(health) == {"shoe", "chips", "camera"}
    for name, h in health.items():
        assert h["bad_frames"] == 0, (name, h)
        assert h["retransmissions"] == 0 and h["duplicates"] == 0, (name, h)


def test_the_paced_demo_runs_the_camera_on_rendered_frames(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without --fast the camera renders the felt and the recognizer reads it back."""
    out = tmp_path / "summary.json"
    status = main(["demo", "--hands", "1", "--no-display", "--seed", "3",
                   "--summary-json", str(out), "--no-save"])
    text = capsys.readouterr().out
    assert status == 0, text
    summary = json.loads(out.read_text())
    assert summary["camera"].startswith("rendered frames (level easy)")
    assert "camera: rendered frames (level easy) read back by the recognizer" in text
    assert summary["irregularities"] == [] and summary["camera_timeouts"] == 0
    assert summary["device_health"]["camera"]["frames"] >= 2


def test_demo_refuses_a_bad_rate(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["demo", "--faults", "2"])
    assert "a rate is 0..1" in capsys.readouterr().err


def test_sigterm_stops_the_demo_and_everything_it_started(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "table_controller", "demo", "--hands", "200", "--no-display",
         "--out", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        workdir = ""
        for line in proc.stdout:
            if line.startswith("starting the simulated table in "):
                workdir = line.split(" in ", 1)[1].split(" ...")[0]
            if line.startswith("Hand 1:"):
                break
        assert workdir
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "everything it started is stopped" in err
    assert not Path(workdir).exists()
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert f"{workdir}/table.toml" not in ps
    assert list(tmp_path.glob("*/journal.db"))  # the records were saved all the same


@pytest.mark.slow
def test_a_long_fast_demo_plays_every_hand_with_buy_ins_and_chips_agree(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """300 hands: busted players buy back in or leave for new ones; nothing stops the run."""
    out = tmp_path / "summary.json"
    status = main(["demo", "--hands", "300", "--fast", "--no-display", "--seed", "1",
                   "--summary-json", str(out), "--out", str(tmp_path / "rec")])
    text = capsys.readouterr().out
    assert status == 0, text
    summary = json.loads(out.read_text())
    assert summary["hands_played"] == 300 and summary["error"] == ""
    assert summary["rebuys"] > 0 and summary["newcomers"] > 0 and summary["buy_ins"] > 0
    assert (summary["chips_after"] + summary["rake"]
            == summary["chips_before"] + summary["buy_ins"])
    assert summary["chips_agree"] and "(agree)" in text
    assert "Seat at least two players" not in text
