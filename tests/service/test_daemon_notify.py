"""The daemon under systemd: READY=1 once it runs, watchdog pings, STOPPING=1; the operator log."""

from __future__ import annotations

import shutil
import socket
import typing
from pathlib import Path

from table_controller.controller.events import Output
from table_controller.daemon.oplog import OPLOG_RULES
from table_controller.simtable.rig import RigOptions, SimRig


def test_every_output_type_has_an_operator_log_rule() -> None:
    assert set(OPLOG_RULES) == set(typing.get_args(Output))


def _messages(sock: socket.socket, until: bytes, limit: int = 200) -> list[bytes]:
    got: list[bytes] = []
    for _ in range(limit):
        msg = sock.recv(4096)
        got.append(msg)
        if until in msg:
            return got
    raise AssertionError(f"no {until!r} in {got}")


def test_ready_watchdog_and_stopping_under_a_test_notify_socket(tmp_path: Path) -> None:
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(60)  # generous: a busy machine starts the daemon slowly
    try:
        env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000"}  # a ping every 0.1 s
        with SimRig(RigOptions(table_id="T9", camera_level="exact", env=env)) as rig:
            first = _messages(sock, b"READY=1")
            assert b"STATUS=table T9 ready" in first[-1]
            # pings keep coming from the running event loop
            pings = _messages(sock, b"WATCHDOG=1")
            assert pings[-1] == b"WATCHDOG=1"
            assert _messages(sock, b"WATCHDOG=1")[-1] == b"WATCHDOG=1"
            assert rig.terminate() == 0
            assert any(b"STOPPING=1" in m for m in _messages(sock, b"STOPPING=1"))
            log = (rig.dir / "daemon.log").read_text()
            # the operator's lines: configuration and recovery, at INFO by default
            assert "table T9 (" in log and "recovered 0 inputs" in log
    finally:
        sock.close()


def test_a_run_with_faults_logs_each_hold_and_device_loss_once(tmp_path: Path) -> None:
    import asyncio
    import re

    from table_controller.simtable.scenario import load_scenario, run_file

    scn = load_scenario(Path("scenarios/shoe_unplugged.toml"))
    result = asyncio.run(run_file(scn, keep=True))
    try:
        log = (Path(result.workdir) / "daemon.log").read_text()
    finally:
        shutil.rmtree(result.workdir, ignore_errors=True)
    assert result.passed, result.failures
    lost = [ln for ln in log.splitlines() if "WARNING" in ln and "The shoe was lost:" in ln]
    back = [ln for ln in log.splitlines() if "The shoe is back" in ln]
    held = [ln for ln in log.splitlines() if "table held:" in ln]
    lifted = [ln for ln in log.splitlines() if "hold lifted:" in ln]
    raised = re.findall(r"irregularity \d+ \(device_lost\) \(holds the table\)", log)
    assert (len(lost), len(back), len(held), len(lifted), len(raised)) == (1, 1, 1, 1, 1), log
    assert "resolved:" in log
