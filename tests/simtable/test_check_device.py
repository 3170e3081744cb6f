"""``check-device`` passes the simulators (on ``sim run``'s ptys) and catches broken ones."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hardware.sim.broken import BadCrcShoe, NoResendShoe
from hardware.sim.shoe import SimShoe
from table_controller.cli import main
from tests.simtable.simprocs import sim_run


def test_the_simulators_of_sim_run_conform(tmp_path: Path) -> None:
    d = tmp_path / "t"
    with sim_run(d):
        for kind in ("shoe", "chips"):
            done = subprocess.run(
                [sys.executable, "-m", "table_controller", "check-device",
                 f"serial://{d / kind}", "--kind", kind], capture_output=True, text=True,
                timeout=300)
            assert done.returncode == 0, done.stdout + done.stderr
            assert done.stdout.count("PASS") == 9 and "FAIL" not in done.stdout
            assert done.stdout.rstrip().endswith("conforms")


@pytest.mark.parametrize(("broken", "failing"), [
    (NoResendShoe, {"NAK: the frame is resent, marked retransmitted, unchanged",
                    "an unacknowledged frame is resent without being asked"}),
    (BadCrcShoe, {"heartbeats", "every frame was well formed (COBS, CRC, length, version)"}),
])
def test_a_broken_shoe_is_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 broken: type[SimShoe], failing: set[str]) -> None:
    shoe = broken(link_path=str(tmp_path / "shoe"), heartbeat_interval=0.25)
    shoe.start()
    try:
        status = main(["check-device", f"serial://{shoe.path}", "--kind", "shoe"])
    finally:
        shoe.close()
    out = capsys.readouterr().out
    assert status == 1
    for name in failing:
        assert f"FAIL  {name}: " in out, out


def test_the_wrong_kind_and_a_missing_port(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    shoe = SimShoe(link_path=str(tmp_path / "shoe"), heartbeat_interval=0.25)
    shoe.start()
    try:
        assert main(["check-device", shoe.path, "--kind", "chips"]) == 1
    finally:
        shoe.close()
    assert "FAIL  handshake" in capsys.readouterr().out
    assert main(["check-device", str(tmp_path / "nothing"), "--kind", "shoe"]) == 2
