"""A real writer process is killed with SIGKILL mid-writes; every acknowledged append survives.

Also with the anchor deferred (``append(..., anchor=False)``, as the daemon's input path does):
a kill between a commit and its anchor leaves the journal one entry ahead, which is accepted.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from table_controller.journal import Journal

WRITER = r"""
import sys, time
from table_controller.journal import Journal, EntryKind
j = Journal.open(sys.argv[1])
anchor = sys.argv[2] != "defer"
i = j.last_seq
while True:
    i += 1
    if i % 7 == 0:
        e = j.append_command("c1", i, {"command": "call", "seat": 3}, {"accepted": True, "n": i},
                             wall_time=time.time(), mono_time=time.monotonic())
    elif i % 50 == 1 and j.current_hand is None:
        e = j.append(EntryKind.HAND_START, {"i": i}, wall_time=time.time(),
                     mono_time=time.monotonic(), anchor=anchor)
    elif i % 50 == 0 and j.current_hand is not None:
        e = j.append(EntryKind.HAND_END, {"i": i}, wall_time=time.time(),
                     mono_time=time.monotonic(), anchor=anchor)
    else:
        e = j.append(EntryKind.DEVICE_EVENT, {"i": i, "pad": "x" * (i % 300)},
                     wall_time=time.time(), mono_time=time.monotonic(), anchor=anchor)
    sys.stdout.write(f"{e.seq} {e.hash}\n")
    sys.stdout.flush()
"""


def _run_and_kill(path: Path, acks_wanted: int, anchor: str) -> dict[int, str]:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), anchor], stdout=subprocess.PIPE, env=env
    )
    acked: dict[int, str] = {}
    assert proc.stdout is not None
    deadline = time.monotonic() + 20
    try:
        while len(acked) < acks_wanted and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            seq_text, digest = line.decode().split()
            acked[int(seq_text)] = digest
    finally:
        proc.send_signal(signal.SIGKILL)
        # acknowledgements already in the pipe count too
        rest = proc.stdout.read()
        proc.wait(timeout=10)
    for text in rest.decode().splitlines():
        parts = text.split()
        if len(parts) == 2:
            acked[int(parts[0])] = parts[1]
    assert proc.returncode == -signal.SIGKILL
    return acked


@pytest.mark.parametrize("anchor", ["now", "defer"])
def test_sigkill_mid_writes(tmp_path: Path, anchor: str) -> None:
    path = tmp_path / "journal.db"
    total: dict[int, str] = {}
    for round_ in range(3):
        acked = _run_and_kill(path, acks_wanted=150, anchor=anchor)
        assert len(acked) >= 150 or round_ > 0
        total.update(acked)
        with Journal.open(path) as j:  # verifies the chain and the head
            assert j.last_seq >= max(total)
            stored = {e.seq: e.hash for e in j.entries()}
            for seq, digest in total.items():
                assert stored[seq] == digest
            assert sorted(stored) == list(range(1, j.last_seq + 1))
            for seq in total:
                if seq % 7 == 0:
                    reply = j.reply_for("c1", seq)
                    assert reply is not None and reply["n"] == seq
