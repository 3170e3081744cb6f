"""RFID chip inventory: INVENTORY messages, reassembly, and the driver against the simulator."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.base import BadFrame, ChipSensor, DeviceEvent, DeviceHello
from hardware.link.protocol import DeviceLink
from hardware.rfidchips.driver import RfidChipReader, open_from_url
from hardware.rfidchips.protocol import (
    INVENTORY,
    KIND_RFID_CHIPS,
    RfidChipsProtocol,
    ZoneInventory,
    inventory_payloads,
)
from hardware.sim import rfidchips as sim_rfidchips
from hardware.sim.device import Fault
from hardware.sim.rfidchips import SimRfidChips
from table_controller.errors import ConfigError

Events = list[DeviceEvent]


def uids(n: int, start: int = 0) -> list[str]:
    return [f"E004{start + i:012X}" for i in range(n)]


def wire(device: DeviceLink, payloads: list[bytes]) -> bytes:
    return b"".join(device.send(INVENTORY, p, now=0.0) for p in payloads)


def link() -> tuple[DeviceLink, RfidChipsProtocol]:
    device, host = DeviceLink(kind=KIND_RFID_CHIPS), RfidChipsProtocol()
    assert host.feed(device.hello(), 0.0) == [DeviceHello(KIND_RFID_CHIPS, 1, 1)]
    return device, host


def test_a_big_pot_spans_parts_and_is_reported_once_whole() -> None:
    device, host = link()
    tags = uids(300)
    payloads = inventory_payloads(10, 1, tags)
    assert len(payloads) > 1
    stream = wire(device, payloads)
    events: Events = []
    for b in stream:
        events += host.feed(bytes([b]), 1.0)
    assert events == [ZoneInventory(10, tuple(sorted(tags)))]


def test_repeats_are_listed_once_and_empty_zones_report() -> None:
    device, host = link()
    events = host.feed(wire(device, inventory_payloads(3, 1, ["E0040102", "e0040102"])
                            + inventory_payloads(4, 2, [])), 1.0)
    assert events == [ZoneInventory(3, ("E0040102",)), ZoneInventory(4, ())]


def test_a_torn_scan_is_dropped_by_the_next() -> None:
    device, host = link()
    torn = inventory_payloads(5, 1, uids(300))[:-1]
    good = inventory_payloads(5, 2, uids(2))
    events = host.feed(wire(device, torn + good), 1.0)
    assert isinstance(events[0], BadFrame) and "incomplete" in events[0].reason
    assert events[-1] == ZoneInventory(5, tuple(uids(2)))


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b"\x01\x00", "header"),
        (bytes([1, 0, 1, 0, 0, 1]), "part 0 of 0"),
        (bytes([1, 0, 1, 0, 1, 2, 4, 1, 2, 3, 4]), "ends after 1"),
        (bytes([1, 0, 1, 0, 1, 1, 2, 1, 2]), "bad length 2"),
        (bytes([1, 0, 1, 0, 1, 0, 9]), "after the last tag"),
        (bytes([1, 0, 1, 1, 2, 0]), "starts at part 1"),
    ],
)
def test_malformed_inventory_is_a_bad_frame(payload: bytes, reason: str) -> None:
    device, host = link()
    events = host.feed(device.send(INVENTORY, payload, now=0.0), 1.0)
    assert len(events) == 1 and isinstance(events[0], BadFrame)
    assert reason in events[0].reason


def test_encoder_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="zone"):
        inventory_payloads(255, 1, [])
    with pytest.raises(ValueError, match="bytes"):
        inventory_payloads(1, 1, ["0102"])


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_decoder_never_raises_on_any_payload(payload: bytes) -> None:
    device, host = link()
    host.feed(device.send(INVENTORY, payload, now=0.0), 1.0)
    host.feed(payload, 1.0)


# -- over a pty ------------------------------------------------------------------------------


def pump_until(sim: SimRfidChips, dev: RfidChipReader, cond: Callable[[Events], bool],
               timeout: float = 10.0) -> Events:
    events: Events = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sim.pump()
        events.extend(dev.read_events(0.003))
        if cond(events):
            return events
    raise AssertionError(f"timed out waiting; got {events}")


def inventories(events: Events) -> list[ZoneInventory]:
    return [e for e in events if isinstance(e, ZoneInventory)]


@pytest.fixture
def reader() -> Iterator[tuple[SimRfidChips, RfidChipReader]]:
    sim = SimRfidChips(range(1, 5), retransmit_after=0.05, heartbeat_interval=0.1)
    dev = open_from_url(f"rfidchips://{sim.path}?heartbeat=0.1")
    dev.open()
    pump_until(sim, dev, lambda ev: any(isinstance(e, DeviceHello) for e in ev))
    yield sim, dev
    dev.close()
    sim.close()


def test_place_move_and_request(reader: tuple[SimRfidChips, RfidChipReader]) -> None:
    sim, dev = reader
    assert isinstance(dev, ChipSensor)
    sim.place(1, uids(3))
    events = pump_until(sim, dev, lambda ev: len(inventories(ev)) == 1)
    assert inventories(events) == [ZoneInventory(1, tuple(uids(3)))]
    sim.move(1, 2, uids(1))
    events = pump_until(sim, dev, lambda ev: len(inventories(ev)) == 2)
    assert inventories(events) == [ZoneInventory(1, tuple(uids(3)[1:])),
                                   ZoneInventory(2, tuple(uids(1)))]
    dev.request_report()
    events = pump_until(sim, dev, lambda ev: len(inventories(ev)) == 4)
    assert [i.zone for i in inventories(events)] == [1, 2, 3, 4]


def test_link_faults_lose_no_inventory(reader: tuple[SimRfidChips, RfidChipReader]) -> None:
    sim, dev = reader
    sim.inject(Fault.CORRUPT_CRC, Fault.DROP_FRAME, Fault.DUPLICATE)
    sim.place(1, uids(1))
    sim.place(2, uids(1, 10))
    sim.place(3, uids(250, 100))
    events = pump_until(sim, dev, lambda ev: len(inventories(ev)) == 3 and sim.pending == 0)
    assert [i.zone for i in inventories(events)] == [1, 2, 3]
    assert inventories(events)[2].uids == tuple(uids(250, 100))
    assert dev.status().bad_frames >= 1


def test_misread_and_torn_scan(reader: tuple[SimRfidChips, RfidChipReader]) -> None:
    sim, dev = reader
    sim.place(1, uids(2))
    sim.misread(2, uids(1))
    events = pump_until(sim, dev, lambda ev: len(inventories(ev)) == 2)
    assert inventories(events)[1] == ZoneInventory(2, tuple(uids(1)))
    sim.place(3, uids(300, 50))
    sim.report_torn(3)
    sim.report(3)
    events = pump_until(sim, dev, lambda ev: len(inventories(ev)) == 2)
    assert any(isinstance(e, BadFrame) and "incomplete" in e.reason for e in events)


def test_sim_url_and_bad_urls() -> None:
    dev = sim_rfidchips.open_from_url("sim://rfidchips?zones=2&heartbeat=0.1")
    sim = dev.peer
    assert isinstance(sim, SimRfidChips) and sim.zones == (1, 2)
    dev.open()
    try:
        sim.place(2, ["E0040101"])
        deadline = time.monotonic() + 10.0
        events: Events = []
        while not inventories(events) and time.monotonic() < deadline:
            events += dev.read_events(0.05)
        assert inventories(events) == [ZoneInventory(2, ("E0040101",))]
    finally:
        dev.close()
    with pytest.raises(ConfigError, match="unknown option"):
        open_from_url("rfidchips:///dev/x?zones=3")
    with pytest.raises(ConfigError, match="not a rfidchips"):
        open_from_url("serial:///dev/x")
