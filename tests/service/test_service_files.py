"""The shipped service files: the unit installs into a scratch root and systemd accepts it."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from table_controller.service import SHIPPED, Notifier, install, shipped_text

ANALYZE = shutil.which("systemd-analyze")


def test_install_writes_every_shipped_file_below_the_root(tmp_path: Path) -> None:
    exe = str(Path(sys.executable).with_name("table-controller"))
    written = install(tmp_path, exe)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in written) == sorted(
        [*SHIPPED.values(), "etc/table-controller/table.toml.example"])
    unit = (tmp_path / SHIPPED["table-controller.service"]).read_text()
    assert f"ExecStart={exe} run --config /etc/table-controller/table.toml" in unit
    assert "@EXEC@" not in unit
    assert (tmp_path / "etc/table-controller").is_dir()


def test_install_refuses_a_relative_command(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="absolute path"):
        install(tmp_path, "table-controller")
    assert not any(tmp_path.iterdir())


def test_the_unit_is_a_notify_service_with_watchdog_and_state_directory() -> None:
    unit = shipped_text("table-controller.service")
    for line in ("Type=notify", "WatchdogSec=10", "StateDirectory=table-controller",
                 "ConfigurationDirectory=table-controller", "User=table-controller",
                 "Restart=on-failure", "RestartPreventExitStatus=2 3 4"):
        assert line in unit.splitlines(), line


def test_the_unit_gives_the_daemon_first_call_on_cpu_and_disk() -> None:
    # under load, a late heartbeat was the daemon waiting for a CPU (benchmarks: hostile load)
    unit = shipped_text("table-controller.service").splitlines()
    for line in ("Nice=-5", "CPUWeight=1000", "IOWeight=1000"):
        assert line in unit, line


def test_the_unit_caps_the_log_with_options_the_daemon_takes() -> None:
    # a flood of log lines must not fill the disk: the daemon's own cap, journald's beside it
    from table_controller.cli import build_parser
    from table_controller.logsetup import LOG_BURST, LOG_RATE

    unit = shipped_text("table-controller.service").splitlines()
    assert "LogRateLimitIntervalSec=30s" in unit and "LogRateLimitBurst=20000" in unit
    (exec_line,) = [line for line in unit if line.startswith("ExecStart=")]
    args = build_parser().parse_args(exec_line.split()[1:])
    assert (args.log_rate, args.log_burst, args.log_format) == (LOG_RATE, LOG_BURST, "journal")


@pytest.mark.skipif(ANALYZE is None and not os.environ.get("CI"),
                    reason="systemd-analyze is not installed (.ci/run installs it)")
def test_systemd_analyze_verify_accepts_the_installed_unit(tmp_path: Path) -> None:
    assert ANALYZE is not None, "systemd-analyze missing: .ci/run installs systemd"
    exe = shutil.which("table-controller") or str(Path(sys.executable).with_name(
        "table-controller"))
    install(tmp_path, exe)
    unit = tmp_path / SHIPPED["table-controller.service"]
    out = subprocess.run([ANALYZE, "verify", "--man=no", str(unit)], capture_output=True,
                         text=True, timeout=120, check=False)
    # verify exits 0 on warnings too: any complaint about our own file is a failure
    complaints = [ln for ln in (out.stdout + out.stderr).splitlines() if unit.name in ln]
    assert out.returncode == 0, out.stderr
    assert complaints == []


def _listener(tmp_path: Path) -> tuple[socket.socket, str]:
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(10)
    return sock, path


def test_notifier_sends_ready_status_watchdog_and_stopping(tmp_path: Path) -> None:
    sock, path = _listener(tmp_path)
    try:
        n = Notifier.from_env({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "10000000",
                               "WATCHDOG_PID": str(os.getpid())})
        assert n.watchdog_interval() == 5.0
        assert n.ready("table t1 ready:\n2 devices")
        assert sock.recv(4096) == b"READY=1\nSTATUS=table t1 ready: 2 devices"
        assert n.watchdog()
        assert sock.recv(4096) == b"WATCHDOG=1"
        assert n.stopping()
        assert sock.recv(4096) == b"STOPPING=1\nSTATUS=stopping"
        n.close()
    finally:
        sock.close()


def test_notifier_without_systemd_does_nothing() -> None:
    n = Notifier.from_env({})
    assert not n.enabled
    assert n.watchdog_interval() is None
    assert not n.ready("x")


def test_watchdog_for_another_process_is_ignored(tmp_path: Path) -> None:
    n = Notifier.from_env({"NOTIFY_SOCKET": str(tmp_path / "s"), "WATCHDOG_USEC": "4000000",
                           "WATCHDOG_PID": "1"})
    assert n.watchdog_interval() is None


@pytest.mark.parametrize("raw", ["", "abc", "-5", "9" * 40, "0"])
def test_a_bad_watchdog_value_is_no_watchdog(raw: str) -> None:
    n = Notifier.from_env({"NOTIFY_SOCKET": "/nonexistent", "WATCHDOG_USEC": raw})
    assert n.watchdog_interval() is None


def test_a_dead_socket_is_logged_once_and_then_quiet(tmp_path: Path,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    n = Notifier.from_env({"NOTIFY_SOCKET": str(tmp_path / "nobody-listens")})
    assert not n.ready("x")
    assert not n.watchdog()
    assert not n.enabled
    assert len([r for r in caplog.records if "notification socket" in r.getMessage()]) == 1


def test_service_install_command(tmp_path: Path) -> None:
    exe = str(Path(sys.executable).with_name("table-controller"))
    out = subprocess.run([exe, "service", "install", "--root", str(tmp_path), "--exec", exe],
                         capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / SHIPPED["table-controller.service"]).is_file()
    assert "systemctl enable --now table-controller" in out.stdout


def test_service_install_names_the_path_it_cannot_write(tmp_path: Path) -> None:
    blocker = tmp_path / "etc"
    blocker.write_text("a file where a folder must be")
    exe = str(Path(sys.executable).with_name("table-controller"))
    out = subprocess.run([exe, "service", "install", "--root", str(tmp_path), "--exec", exe],
                         capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 1
    assert out.stderr.count("\n") == 1 and "cannot write" in out.stderr


def test_the_shipped_example_configuration_is_valid(tmp_path: Path) -> None:
    import tomllib

    from table_controller.config import parse_config

    # the same file on a scratch root: the keys it names exist there
    text = shipped_text("table.example.toml").replace(
        '"/etc/', f'"{tmp_path}/etc/').replace('"/var/', f'"{tmp_path}/var/')
    keys = tmp_path / "etc/table-controller/keys"
    (keys / "displays").mkdir(parents=True)
    (keys / "consoles").mkdir()
    (keys / "server.key_secret").write_text("x")
    cfg = parse_config(tomllib.loads(text), base_dir=tmp_path)
    assert cfg.keys.security == "curve" and cfg.devices.shoe.startswith("serial://")
    assert str(cfg.journal.path).endswith("var/lib/table-controller/journal.db")


def test_install_never_overwrites_the_real_configuration(tmp_path: Path) -> None:
    real = tmp_path / "etc/table-controller/table.toml"
    real.parent.mkdir(parents=True)
    real.write_text("# the casino's own\n")
    install(tmp_path, str(Path(sys.executable).with_name("table-controller")))
    assert real.read_text() == "# the casino's own\n"
    assert (tmp_path / "etc/table-controller/table.toml.example").is_file()
