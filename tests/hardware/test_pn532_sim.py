"""The PN532 driver against the simulated PN532 over a real pty, every fault injected."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from hardware.base import BadFrame, CardDrawn, CardShoe, DeviceEvent, DeviceLost, DeviceRecovered
from hardware.pn532.driver import Pn532Shoe, open_from_url
from hardware.pn532.frames import LineNoise
from hardware.pn532.protocol import Pn532Firmware
from hardware.sim import pn532 as sim_pn532
from hardware.sim.pn532 import Pn532Fault, SimPn532
from table_controller.errors import ConfigError

Events = list[DeviceEvent]
UID = "04A1B2C3D4E5F6"


def pump_until(sim: SimPn532, dev: Pn532Shoe, cond: Callable[[Events], bool],
               timeout: float = 10.0) -> Events:
    events: Events = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sim.pump()
        events.extend(dev.read_events(0.003))
        if cond(events):
            return events
    raise AssertionError(f"timed out waiting; got {events}")


def drawn(events: Events) -> list[str]:
    return [e.uid for e in events if isinstance(e, CardDrawn)]


def polls_later(sim: SimPn532, n: int) -> Callable[[Events], bool]:
    target = sim.polls + n
    return lambda _ev: sim.polls >= target


@pytest.fixture
def reader() -> Iterator[tuple[SimPn532, Pn532Shoe]]:
    sim = SimPn532()
    dev = open_from_url(f"pn532://{sim.path}?poll=0.01&ack_timeout=0.2")
    dev.open()
    pump_until(sim, dev, lambda ev: any(isinstance(e, Pn532Firmware) for e in ev)
               and sim.polls >= 1)
    yield sim, dev
    dev.close()
    sim.close()


def test_start_up_and_interface(reader: tuple[SimPn532, Pn532Shoe]) -> None:
    sim, dev = reader
    assert isinstance(dev, CardShoe)
    assert sim.awake and sim.commands[:3] == [0x14, 0x02, 0x32]
    dev.request_status()
    dev.request_scan()
    st = dev.status()
    assert st.connected and st.link == "ok" and st.kind == "shoe" and st.bad_frames == 0


def test_card_resting_is_one_draw_and_re_presentation_is_another(
    reader: tuple[SimPn532, Pn532Shoe],
) -> None:
    sim, dev = reader
    sim.present(UID)
    events = pump_until(sim, dev, lambda ev: bool(drawn(ev)))
    events += pump_until(sim, dev, polls_later(sim, 10))
    assert drawn(events) == [UID], "a card on the antenna for many polls is one draw"
    sim.remove()
    events += pump_until(sim, dev, polls_later(sim, 2))
    sim.present(UID)
    events += pump_until(sim, dev, lambda ev: bool(drawn(ev)))
    sim.present("DEADBEEF")
    events += pump_until(sim, dev, lambda ev: bool(drawn(ev)))
    assert drawn(events) == [UID, UID, "DEADBEEF"]


def test_corrupt_response_is_asked_again(reader: tuple[SimPn532, Pn532Shoe]) -> None:
    sim, dev = reader
    sim.inject(Pn532Fault.CORRUPT_RESPONSE)
    sim.present(UID)
    events = pump_until(sim, dev, lambda ev: bool(drawn(ev)))
    events += pump_until(sim, dev, polls_later(sim, 3))
    assert drawn(events) == [UID]
    assert sim.nacks == 1
    assert any(isinstance(e, BadFrame) and "checksum" in e.reason for e in events)


def test_missed_poll_times_out_and_is_resent(reader: tuple[SimPn532, Pn532Shoe]) -> None:
    sim, dev = reader
    sim.inject(Pn532Fault.MISS)
    sim.present(UID)
    events = pump_until(sim, dev, lambda ev: bool(drawn(ev)))
    assert drawn(events) == [UID]
    assert dev.status().retransmissions >= 1


def test_card_read_twice_is_one_draw(reader: tuple[SimPn532, Pn532Shoe]) -> None:
    sim, dev = reader
    sim.inject(Pn532Fault.DOUBLE, Pn532Fault.DOUBLE)
    sim.present(UID)
    events = pump_until(sim, dev, polls_later(sim, 5))
    assert drawn(events) == [UID]
    assert dev.status().duplicates >= 1


def test_damaged_ack_and_garbage(reader: tuple[SimPn532, Pn532Shoe]) -> None:
    sim, dev = reader
    sim.inject(Pn532Fault.CORRUPT_ACK, Pn532Fault.GARBAGE)
    sim.send_garbage()
    sim.present(UID)
    events = pump_until(sim, dev, polls_later(sim, 5))
    assert drawn(events) == [UID]
    assert any(isinstance(e, LineNoise) for e in events)
    assert any(isinstance(e, BadFrame) and "length checksum" in e.reason for e in events)


def test_unplug_reboot_and_recover_once(reader: tuple[SimPn532, Pn532Shoe]) -> None:
    sim, dev = reader
    sim.present(UID)
    events = pump_until(sim, dev, lambda ev: bool(drawn(ev)))
    sim.unplug()
    events += pump_until(sim, dev, lambda ev: any(isinstance(e, DeviceLost) for e in ev))
    sim.replug(reboot=True)
    assert not sim.awake
    events += pump_until(sim, dev, lambda ev: any(isinstance(e, DeviceRecovered) for e in ev)
                         and sim.awake and sim.polls >= 1)
    events += pump_until(sim, dev, polls_later(sim, 3))
    assert len([e for e in events if isinstance(e, DeviceLost)]) == 1
    assert len([e for e in events if isinstance(e, DeviceRecovered)]) == 1
    assert drawn(events) == [UID], "the card that stayed on the antenna is not drawn again"
    assert dev.status().reconnects == 1


def test_sim_url_runs_its_own_simulator() -> None:
    dev = sim_pn532.open_from_url("sim://pn532?poll=0.01")
    sim = dev.peer
    assert isinstance(sim, SimPn532)
    dev.open()
    try:
        sim.present("DEADBEEF")
        deadline = time.monotonic() + 10.0
        events: Events = []
        while not drawn(events) and time.monotonic() < deadline:
            events += dev.read_events(0.05)
        assert drawn(events) == ["DEADBEEF"]
    finally:
        dev.close()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("pn532://", "names no port"),
        ("pn532:///dev/x?poll=0", "outside"),
        ("pn532:///dev/x?stamp=yes", "must be 0 or 1"),
        ("pn532:///dev/x?baud=300", "outside"),
        ("serial:///dev/x", "not a pn532"),
    ],
)
def test_bad_urls_are_refused(url: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        open_from_url(url)
