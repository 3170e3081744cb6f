from __future__ import annotations

import json
from pathlib import Path

import pytest

from table_controller.cli import main


def test_demo_plays_hands_on_the_daemon_and_chips_agree(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "summary.json"
    status = main(["demo", "--hands", "2", "--fast", "--no-display", "--faults", "0.3",
                   "--seed", "4", "--summary-json", str(out)])
    text = capsys.readouterr().out
    summary = json.loads(out.read_text())
    assert status == 0, text
    assert summary["hands_played"] == 2 and summary["chips_agree"]
    assert summary["chips_after"] + summary["rake"] == summary["chips_before"] == 50_000
    assert summary["daemon_exit"] == 0 and not Path(summary["journal"]).parent.exists()
    assert "Hand 1: button at seat 1" in text and "(agree)" in text


def test_demo_refuses_a_bad_rate(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["demo", "--faults", "2"])
    assert "a rate is 0..1" in capsys.readouterr().err
