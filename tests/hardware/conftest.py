"""Leak checks: every hardware test must give back its threads and file descriptors."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator

import pytest


def _fds() -> set[int]:
    return {int(n) for n in os.listdir("/proc/self/fd")}


@pytest.fixture(autouse=True)
def no_leaks() -> Iterator[None]:
    threads = set(threading.enumerate())
    fds = _fds()
    yield
    deadline = time.monotonic() + 10.0
    while True:
        extra_threads = [t for t in threading.enumerate() if t not in threads and t.is_alive()]
        extra_fds = {fd for fd in _fds() - fds if _is_tty_or_pipe(fd)}
        if not extra_threads and not extra_fds:
            return
        if time.monotonic() > deadline:
            pytest.fail(f"leaked threads {extra_threads} / fds {sorted(extra_fds)}")
        time.sleep(0.01)  # a stopping thread is real I/O: bounded wait


def _is_tty_or_pipe(fd: int) -> bool:
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return False
    return target.startswith(("/dev/pts", "/dev/ptmx", "pipe:", "anon_inode"))
