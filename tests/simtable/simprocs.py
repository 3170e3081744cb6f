"""Processes for the tests of ``sim run``: the devices, the daemon, a console, waiting on events."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import zmq.asyncio

from table_controller.feeds import ClientKeys, CommandClient

#: Generous: the machine is shared; these are limits for a failure, never budgets.
TIMEOUT = 60.0
T = TypeVar("T")


def wait_for(what: str, check: Callable[[], T | None], timeout: float = TIMEOUT) -> T:
    """Poll ``check`` until it returns something; fail with ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def _stop(proc: subprocess.Popen[bytes]) -> int:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
    return proc.returncode


@contextlib.contextmanager
def sim_run(directory: Path, *args: str) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``table-controller sim run --dir directory`` until its ``ready`` line; stop it after.

    The process is SIGTERMed at the end; the test can check its status (``returncode``).
    """
    proc = subprocess.Popen(
        [sys.executable, "-m", "table_controller", "sim", "run", "--dir", str(directory), *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ,
                                                            "PYTHONUNBUFFERED": "1"})
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + TIMEOUT
        line = b""
        while not line.endswith(b"\n"):
            if time.monotonic() > deadline or proc.poll() is not None:
                err = proc.stderr.read() if proc.stderr and proc.poll() is not None else b""
                raise AssertionError(f"sim run was not ready: {err.decode(errors='replace')}")
            ready, _, _ = select.select([proc.stdout], [], [], 0.5)
            if ready:
                line += os.read(proc.stdout.fileno(), 1)
        assert line == b"ready\n", line
        yield proc
    finally:
        _stop(proc)


@contextlib.contextmanager
def daemon(config: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``table-controller run --config config`` until its ready file appears."""
    ready = config.parent / "ready.json"
    ready.unlink(missing_ok=True)
    log = (config.parent / "daemon.log").open("ab")
    proc = subprocess.Popen(
        [sys.executable, "-m", "table_controller", "run", "--config", str(config),
         "--ready-file", str(ready), "--die-with-parent"],
        stdout=log, stderr=log, cwd=str(config.parent))
    try:
        def up() -> bool:
            if proc.poll() is not None:
                raise AssertionError("the daemon exited:\n" + (config.parent / "daemon.log")
                                     .read_text(errors="replace")[-3000:])
            return ready.exists()
        wait_for("the daemon's ready file", up)
        yield proc
    finally:
        _stop(proc)
        log.close()


def console(ctx: zmq.asyncio.Context, directory: Path, name: str = "test") -> CommandClient:
    """Return a console to the daemon of ``directory``'s ``table.toml`` (its CURVE keys)."""
    from table_controller.config import load_config

    cfg = load_config(directory / "table.toml")
    keys = ClientKeys.from_files(directory / "keys" / "console.key_secret",
                                 directory / "keys" / "server.key")
    return CommandClient(ctx, cfg.endpoints.commands, table_id=cfg.table.id,
                         console_id=f"{name}-{os.getpid()}", keys=keys, timeout=5.0)


def urls(directory: Path) -> dict[str, Any]:
    """Return what ``sim run`` wrote in ``sim.json``."""
    out: dict[str, Any] = json.loads((directory / "sim.json").read_text())
    return out
