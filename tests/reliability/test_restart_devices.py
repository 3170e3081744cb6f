"""A daemon restarted (after a crash) while a device is unplugged, or after it was replugged.

Real ptys, the daemon process, CURVE on 127.0.0.1. Both found here and filed in
the reliability probes (docs/reliability.md); fixed by the daemon since.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from table_controller.simtable.devices.hands import hands_of
from table_controller.simtable.rig import RigOptions, SimRig
from table_controller.simtable.soak import SyncConsole, start_rig


@pytest.fixture
def rig() -> Iterator[SimRig]:
    r = start_rig(RigOptions(seats=6, security="curve", camera_level="exact"), tcp=True)
    try:
        yield r
    finally:
        r.stop()


def seat_three(c: SyncConsole) -> None:
    for seat in (1, 2, 3):
        c.ok({"command": "seat", "seat": seat, "player": f"p{seat}", "stack": 10_000})


def test_the_daemon_restarts_while_the_shoe_is_unplugged(rig: SimRig) -> None:
    c = SyncConsole(rig, "restart-unplugged")
    try:
        seat_three(c)
        hands = hands_of(rig)
        hands.unplug("shoe")
        time.sleep(0.5)
        rig.kill()
        rig.start_daemon(timeout=15)  # would raise RigError if a missing port stopped the start
        assert c.status()["devices"]["shoe"] == "lost"
        hands.replug("shoe")
        deadline = time.monotonic() + 30
        while c.status()["devices"]["shoe"] != "ok":
            assert time.monotonic() < deadline
            time.sleep(0.1)
    finally:
        c.close()


def test_a_device_back_before_a_restart_is_ok_after_it(rig: SimRig) -> None:
    c = SyncConsole(rig, "restart-replugged")
    try:
        seat_three(c)
        hands = hands_of(rig)
        hands.unplug("shoe")
        deadline = time.monotonic() + 30
        while c.status()["devices"]["shoe"] != "lost":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        rig.kill()  # the daemon dies before it saw the shoe come back
        hands.replug("shoe")
        rig.start_daemon()
        time.sleep(1.5)  # heartbeats flow (real I/O)
        health = c.status()["device_health"]["shoe"]
        assert health["link"] == "ok"
        assert c.status()["devices"]["shoe"] == "ok"
        assert c.snapshot()["devices"]["shoe"] == "ok"
    finally:
        c.close()
