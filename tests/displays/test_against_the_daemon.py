from __future__ import annotations

import subprocess
import sys

import pytest

from table_controller.simtable.rig import RigOptions, SimRig


@pytest.mark.parametrize("role", ["public", "dealer"])
def test_display_cli_follows_a_running_daemon(role: str) -> None:
    with SimRig(RigOptions(table_id="T7", name="Terrace 7")) as rig:
        ep = rig.endpoints
        out = subprocess.run(
            [sys.executable, "-m", "table_controller", "display", "--role", role,
             "--connect", ep[role], "--snapshot", ep["snapshot"], "--table", "T7",
             "--duration", "2.0"],
            capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    # the table's configured name heads the screen
    assert f"Terrace 7  ·  no hand yet  ·  between hands  ·  {role} display" in out.stdout
    if role == "dealer":
        assert "SEAT AT LEAST TWO PLAYERS WITH CHIPS" in out.stdout
