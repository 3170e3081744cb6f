"""``sim dealer``: keys piped in against a running daemon and ``sim run``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.simtable.simprocs import daemon, sim_run


def test_piped_keys_seat_players_start_a_hand_and_draw(tmp_path: Path) -> None:
    d = tmp_path / "t"
    with sim_run(d, "--seats", "2"), daemon(d / "table.toml"):
        keys = "seat 1 Alice 10000\nseat 2 Bob 10000\nn\nfly 3\nb\nq\n"
        done = subprocess.run([sys.executable, "-m", "table_controller", "sim", "dealer",
                               "--dir", str(d)], input=keys, capture_output=True, text=True,
                              timeout=300)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "OK: seat 1 Alice 10000" in out and "OK: seat 2 Bob 10000" in out
    assert "OK: start" in out
    assert "refused: " in out  # 'fly 3' is no command: said, and the session goes on
    assert "in front of seat" in out  # the blind's chips went down
