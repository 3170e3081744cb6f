"""Random faults over a real pty: every valid read still arrives exactly once, in order."""

from __future__ import annotations

import random
import time

import pytest

from hardware.base import BadFrame, CardDrawn, DeviceEvent, open_shoe
from hardware.sim.device import Fault
from hardware.sim.shoe import SimShoe, tag_uids

FAULTS = list(Fault)


def soak(seed: int, draws: int) -> None:
    rng = random.Random(seed)
    uids = [u for k in range(draws // 52 + 1) for u in tag_uids(seed + k)]
    sim = SimShoe(
        uids[:draws], scan_on_load=False, retransmit_after=0.02, heartbeat_interval=0.05
    )
    dev = open_shoe(f"serial://{sim.path}?heartbeat=0.05")
    events: list[DeviceEvent] = []
    try:
        dev.open()
        plugged = True
        out_since = 0
        for i in range(draws):
            r = rng.random()
            if not plugged and i - out_since > 20:
                r = 0.4
            if r < 0.3:
                sim.inject(rng.choice(FAULTS))
            elif r < 0.35:
                sim.send_garbage(rng.randbytes(rng.randint(1, 30)))
            elif r < 0.38 and plugged:
                sim.unplug()
                plugged = False
                out_since = i
            elif r < 0.45 and not plugged:
                sim.replug()
                plugged = True
            sim.draw()
            sim.pump()
            events += dev.read_events(0.001)
        if not plugged:
            sim.replug()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            sim.pump()
            events += dev.read_events(0.002)
            got = [e.uid for e in events if isinstance(e, CardDrawn)]
            if len(got) >= draws and sim.pending == 0:
                break
        got = [e.uid for e in events if isinstance(e, CardDrawn)]
        assert got == uids[:draws]
        bad = [e for e in events if isinstance(e, BadFrame)]
        assert all(b.reason for b in bad)
        assert dev.status().bad_frames == len(bad)
        assert dev.status().lost_frames == 0
    finally:
        dev.close()
        sim.close()


@pytest.mark.parametrize(("seed", "draws"), [(1, 80), (2, 300)])
def test_fault_soak_short(seed: int, draws: int) -> None:
    soak(seed=seed, draws=draws)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(5))
def test_fault_soak_long(seed: int) -> None:
    soak(seed=100 + seed, draws=1000)
