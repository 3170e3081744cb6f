"""The simulated devices over real ptys through the real pyserial driver, every fault injected."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator

import pytest

from hardware.base import (
    BadFrame,
    CardDrawn,
    CardIdentified,
    CardShoe,
    ChipSensor,
    DeckScan,
    DeviceEvent,
    DeviceHello,
    DeviceLost,
    DeviceRecovered,
    DuplicateCard,
    DuplicateFrame,
    FramesLost,
    LinkStale,
    PolledDevice,
    RepeatedRead,
    Retransmission,
    SensorError,
    ShoeStatus,
    TrayInventory,
    UnknownTag,
    ZoneReport,
    open_chip_sensor,
    open_device,
    open_shoe,
)
from hardware.chips.driver import SerialChipSensor
from hardware.chips.protocol import ChipsProtocol
from hardware.lines.driver import LineReaderShoe
from hardware.lines.protocol import LineReaderProtocol, encode_id12, encode_reader_line
from hardware.link.aio import AsyncDevice
from hardware.shoe.driver import SerialShoe
from hardware.shoe.protocol import ShoeProtocol
from hardware.shoe.resolver import TagResolver
from hardware.sim.chips import TRAY, SimChipSensor
from hardware.sim.device import Fault, SimDevice, SimulatorError
from hardware.sim.lines import SimLineReader
from hardware.sim.pty import PtyPort
from hardware.sim.shoe import SimShoe, sim_deck_profile, tag_uids
from table_controller.engine.cards import Card
from table_controller.errors import ConfigError, DeviceError

Events = list[DeviceEvent]


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def pump_until(
    sim: SimDevice, dev: PolledDevice, cond: Callable[[Events], bool],
    timeout: float = 3.0,
) -> Events:
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


def of(kind: type[DeviceEvent], events: Events) -> list[DeviceEvent]:
    return [e for e in events if isinstance(e, kind)]


@pytest.fixture
def shoe() -> Iterator[tuple[SimShoe, SerialShoe]]:
    sim = SimShoe(tag_uids(7), retransmit_after=0.05, heartbeat_interval=0.1)
    dev = open_shoe(f"serial://{sim.path}?heartbeat=0.1")
    assert isinstance(dev, SerialShoe)
    dev.open()
    pump_until(sim, dev, lambda ev: bool(of(DeckScan, ev)) and sim.pending == 0)
    yield sim, dev
    dev.close()
    sim.close()


def draw_cards(sim: SimShoe, dev: PolledDevice, n: int, faults: list[Fault | None]) -> Events:
    want = list(sim.remaining[:n])
    for i in range(n):
        f = faults[i] if i < len(faults) else None
        if f is not None:
            sim.inject(f)
        sim.draw()
    events = pump_until(sim, dev, lambda ev: len(drawn(ev)) >= n and sim.pending == 0)
    assert drawn(events) == want, "every valid read arrives once, in order"
    return events


def test_clean_draws_whole_deck(shoe: tuple[SimShoe, SerialShoe]) -> None:
    sim, dev = shoe
    events = draw_cards(sim, dev, 52, [])
    assert not of(BadFrame, events)
    assert ShoeStatus(False, True, False, 0) in events
    st = dev.status()
    assert st.connected and st.link == "ok" and st.bad_frames == 0 and st.reconnects == 0


@pytest.mark.parametrize(
    ("fault", "expect"),
    [
        (Fault.CORRUPT_CRC, "CRC mismatch"),
        (Fault.DROP_BYTES, ""),
        (Fault.SPLIT, None),
        (Fault.DUPLICATE, None),
        (Fault.DROP_FRAME, None),
    ],
)
def test_link_faults_lose_nothing(
    shoe: tuple[SimShoe, SerialShoe], fault: Fault, expect: str | None
) -> None:
    sim, dev = shoe
    events = draw_cards(sim, dev, 4, [None, fault, None, None])
    bad = of(BadFrame, events)
    st = dev.status()
    if expect is not None:
        assert bad and all(isinstance(b, BadFrame) and b.reason for b in bad)
        assert expect in bad[0].reason  # type: ignore[attr-defined]
        assert st.bad_frames == len(bad)
        assert of(Retransmission, events)
    else:
        assert not bad
    if fault is Fault.DUPLICATE:
        assert of(DuplicateFrame, events) and st.duplicates == 1
    if fault is Fault.DROP_FRAME:
        assert of(Retransmission, events)
    assert st.retransmissions == sim.retransmitted


def test_lost_ack_resend_is_dropped(shoe: tuple[SimShoe, SerialShoe]) -> None:
    sim, dev = shoe
    before = sim.retransmitted
    sim.inject(Fault.LOSE_ACK)
    events = draw_cards(sim, dev, 1, [])
    assert sim.retransmitted > before
    assert any(isinstance(e, Retransmission) and e.dropped for e in events)
    assert dev.status().duplicates == 1


def test_drop_last_frame_recovered_by_timeout(shoe: tuple[SimShoe, SerialShoe]) -> None:
    sim, dev = shoe
    draw_cards(sim, dev, 1, [Fault.DROP_FRAME])
    assert sim.retransmitted >= 1


def test_garbage_between_frames(shoe: tuple[SimShoe, SerialShoe]) -> None:
    sim, dev = shoe
    sim.send_garbage(b"\xff\xfe\x00junk\x00\x01\x02")
    sim.draw()
    sim.send_garbage()
    sim.draw()
    events = pump_until(sim, dev, lambda ev: len(drawn(ev)) == 2 and sim.pending == 0)
    assert len(of(BadFrame, events)) >= 2
    assert drawn(events) == sim.drawn


def test_card_level_faults_through_resolver(shoe: tuple[SimShoe, SerialShoe]) -> None:
    sim, dev = shoe
    resolver = TagResolver(sim_deck_profile(7))
    now = sim.now()
    first = sim.draw(now)
    sim.repeat_read(now + 0.01)
    sim.draw(now + 1)
    unknown = sim.draw_unregistered(now + 2)
    sim.draw_second_copy(now=now + 3)
    events = pump_until(sim, dev, lambda ev: len(drawn(ev)) == 5 and sim.pending == 0)
    resolved = [resolver.resolve(e) for e in events if isinstance(e, CardDrawn)]
    assert isinstance(resolved[0], CardIdentified)
    assert resolved[1] == RepeatedRead(first)
    assert isinstance(resolved[2], CardIdentified)
    assert isinstance(resolved[3], UnknownTag) and resolved[3].uid == unknown
    assert isinstance(resolved[4], DuplicateCard) and resolved[4].first_uid == first


def test_commands_and_status(shoe: tuple[SimShoe, SerialShoe]) -> None:
    sim, dev = shoe
    sim.set_status(door_open=True, jam=True, error=7)
    events = pump_until(sim, dev, lambda ev: bool(of(ShoeStatus, ev)))
    assert ShoeStatus(True, False, True, 7) in events
    dev.request_status()
    dev.request_scan()
    events = pump_until(sim, dev, lambda ev: bool(of(ShoeStatus, ev)) and bool(of(DeckScan, ev)))
    scan = of(DeckScan, events)[0]
    assert isinstance(scan, DeckScan) and list(scan.uids) == tag_uids(7)


def test_unplug_replug_loses_nothing(shoe: tuple[SimShoe, SerialShoe]) -> None:
    sim, dev = shoe
    draw_cards(sim, dev, 1, [])
    sim.unplug()
    events = pump_until(sim, dev, lambda ev: bool(of(DeviceLost, ev)))
    st = dev.status()
    assert not st.connected and st.link == "lost"
    sim.draw()
    sim.draw()
    assert dev.read_events(0.1) == []  # reopen attempts fail quietly (errno 2)
    assert dev.status().last_error and "No such file" in (dev.status().last_error or "")
    sim.replug()
    events = pump_until(sim, dev, lambda ev: len(drawn(ev)) == 2 and sim.pending == 0)
    assert of(DeviceRecovered, events)
    assert drawn(events) == sim.drawn[1:]
    st = dev.status()
    assert st.connected and st.reconnects == 1 and st.link == "ok"
    # a second loss is reported again, once
    sim.unplug()
    events = pump_until(sim, dev, lambda ev: bool(of(DeviceLost, ev)))
    events += dev.read_events(0.1)
    assert len(of(DeviceLost, events)) == 1
    sim.replug(reboot=True)
    sim.draw()
    events = pump_until(sim, dev, lambda ev: len(drawn(ev)) == 1)
    assert DeviceHello(1, 1, 2) in events
    assert dev.status().reconnects == 2


def test_a_late_host_is_not_a_stale_link() -> None:
    """Heartbeats that waited in the port while the host was busy are read before judging."""
    clock = FakeClock()
    sim = SimShoe(tag_uids(3), heartbeat_interval=0.1, retransmit_after=0.05, clock=clock)
    dev = open_shoe(f"serial://{sim.path}?heartbeat=0.1", clock=clock)
    try:
        dev.open()
        pump_until(sim, dev, lambda ev: bool(of(DeckScan, ev)))
        for _ in range(5):  # the device keeps beating; the host reads nothing meanwhile
            clock.t += 0.1
            sim.pump()
        deadline = dev.next_deadline()
        assert deadline is not None and clock.t >= deadline  # the host's timer is late
        events = dev.tick()  # the host's late timer: it reads first, then judges
        assert not of(LinkStale, events) and not of(DeviceLost, events)
        assert dev.status().link == "ok"
    finally:
        dev.close()
        sim.close()


def test_stall_goes_stale_then_lost_then_recovers() -> None:
    clock = FakeClock()
    sim = SimShoe(tag_uids(3), heartbeat_interval=0.1, retransmit_after=0.05, clock=clock)
    dev = open_shoe(f"serial://{sim.path}?heartbeat=0.1", clock=clock)
    try:
        dev.open()
        pump_until(sim, dev, lambda ev: bool(of(DeckScan, ev)))
        sim.stall(10.0)
        clock.t += 0.35
        events = pump_until(sim, dev, lambda ev: bool(of(LinkStale, ev)))
        assert dev.status().link == "stale"
        clock.t += 0.5
        events = pump_until(sim, dev, lambda ev: bool(of(DeviceLost, ev)))
        assert dev.status().link == "lost" and dev.status().connected
        sim.draw()  # while stalled: nothing goes out
        assert drawn(dev.read_events(0.05)) == []
        clock.t += 10.0
        events = pump_until(sim, dev, lambda ev: bool(drawn(ev)))
        assert of(DeviceRecovered, events)
        assert dev.status().link == "ok"
        assert len(of(DeviceLost, events)) == 0
    finally:
        dev.close()
        sim.close()


def test_chip_sensor_over_pty() -> None:
    sim = SimChipSensor(range(1, 5), tray={1: 100, 5: 40}, retransmit_after=0.05)
    dev = open_chip_sensor(f"serial://{sim.path}")
    assert isinstance(dev, SerialChipSensor)
    try:
        dev.open()
        sim.set_zone(1, {1: 10})
        sim.inject(Fault.CORRUPT_CRC)
        sim.move(TRAY, 2, {5: 4})
        events = pump_until(sim, dev, lambda ev: len(of(ZoneReport, ev)) >= 2 and sim.pending == 0)
        assert ZoneReport(1, ((1, 10),)) in events
        assert TrayInventory(((1, 100), (5, 36))) in events
        assert ZoneReport(2, ((5, 4),)) in events
        with pytest.raises(SimulatorError, match="zone 2 holds 4 chips of denomination 5"):
            sim.move(2, 3, {5: 5})
        assert sim.zone(2) == {5: 4}
        dev.request_report()
        events = pump_until(sim, dev, lambda ev: len(of(ZoneReport, ev)) == 4)
        assert of(TrayInventory, pump_until(sim, dev, lambda ev: True) + events)
        sim.sensor_error(3, 2, "antenna 2 open")
        events = pump_until(sim, dev, lambda ev: bool(of(SensorError, ev)))
        assert SensorError(3, 2, "antenna 2 open") in events
        assert dev.status().bad_frames == 1
    finally:
        dev.close()
        sim.close()


def test_line_readers_over_pty() -> None:
    port = PtyPort()
    try:
        dev = open_shoe(f"lines://{port.link_path}?format=reader&prefix=READER%7C")
        assert isinstance(dev, LineReaderShoe)
        dev.open()
        port.write(encode_reader_line("04A1B2C3D4") + b"garbage\r\n")
        port.write(encode_reader_line("0102030405")[:5])
        events = dev.read_events(0.5)
        events += dev.read_events(0.05)
        port.write(encode_reader_line("0102030405")[5:])
        events += dev.read_events(0.5)
        assert drawn(events) == ["04A1B2C3D4", "0102030405"]
        assert len(of(BadFrame, events)) == 1
        dev.request_status()
        dev.request_scan()
        dev.close()
        dev = open_shoe(f"lines://{port.link_path}?format=id12")
        dev.open()
        port.write(encode_id12("A1B2C3D4E5"))
        assert drawn(dev.read_events(0.5)) == ["A1B2C3D4E5"]
        port.unplug()
        assert of(DeviceLost, dev.read_events(0.5))
        port.plug()
        assert of(DeviceRecovered, dev.read_events(1.0))
        port.write(encode_id12("0102030405"))
        assert drawn(dev.read_events(0.5)) == ["0102030405"]
        dev.close()
    finally:
        port.close()


def test_registry_sim_urls_run_their_own_simulator() -> None:
    dev = open_device("sim://shoe?seed=5&heartbeat=0.05")
    assert isinstance(dev, SerialShoe) and isinstance(dev.peer, SimShoe)
    sim = dev.peer
    try:
        dev.open()
        events: Events = []
        deadline = time.monotonic() + 30
        while not of(DeckScan, events) and time.monotonic() < deadline:
            events += dev.read_events(0.05)
        sim.draw()
        while not drawn(events) and time.monotonic() < deadline:
            events += dev.read_events(0.05)
        assert drawn(events) == [tag_uids(5)[0]]
    finally:
        dev.close()
    assert not sim.port.plugged
    chips = open_device("sim://chips?zones=3")
    assert isinstance(chips, SerialChipSensor) and isinstance(chips.peer, SimChipSensor)
    assert chips.peer.zones == (1, 2, 3)
    chips.close()


def test_registry_refusals() -> None:
    with pytest.raises(ConfigError, match="say which with device=<kind>"):
        open_device("serial:///dev/ttyUSB9")
    with pytest.raises(ConfigError, match="unknown option 'bauds'"):
        open_device("serial:///dev/ttyUSB9?bauds=9600", kind="shoe")
    with pytest.raises(ConfigError, match="baud=abc"):
        open_device("serial:///dev/ttyUSB9?device=chips&baud=abc")
    with pytest.raises(ConfigError, match="no 'camera' driver"):
        open_device("serial:///dev/ttyUSB9", kind="camera")
    with pytest.raises(ConfigError, match="only 'ref'"):
        open_shoe("serial:///dev/ttyUSB9?protocol=ascii")
    with pytest.raises(ConfigError, match="unknown line-reader format"):
        open_shoe("lines:///dev/ttyUSB9?format=csv")
    with pytest.raises(ConfigError, match="names no port"):
        open_shoe("serial://")
    dev = open_shoe("serial:///nonexistent/ttyUSB9")
    with pytest.raises(DeviceError, match="cannot open shoe port '/nonexistent/ttyUSB9'"):
        dev.open()
    assert dev.status().link == "closed"


def test_exclusive_open_refuses_second_user() -> None:
    sim = SimShoe(())
    try:
        first = open_shoe(f"serial://{sim.path}")
        first.open()
        second = open_shoe(f"serial://{sim.path}")
        with pytest.raises(DeviceError, match="cannot open"):
            second.open()
        first.close()
    finally:
        sim.close()


@pytest.mark.parametrize("mode", ["reader", "thread"])
def test_asyncio_adapter(mode: str) -> None:
    async def main() -> Events:
        sim = SimShoe(tag_uids(9), retransmit_after=0.05, heartbeat_interval=0.05)
        sim.start()
        dev = open_shoe(f"serial://{sim.path}?heartbeat=0.05")
        dev.open()
        seen: Events = []
        adev = AsyncDevice(dev, mode="reader" if mode == "reader" else "thread", tick_interval=0.01)
        unsubscribe = adev.subscribe(seen.append)
        got: Events = []

        async def until(cond: Callable[[Events], bool]) -> None:
            async with asyncio.timeout(5):
                while not cond(got):
                    got.append(await adev.get())

        try:
            async with adev:
                await until(lambda ev: bool(of(DeckScan, ev)))
                sim.draw()
                await until(lambda ev: len(drawn(ev)) == 1)
                sim.unplug()
                await until(lambda ev: bool(of(DeviceLost, ev)))
                sim.draw()
                sim.replug()
                await until(lambda ev: len(drawn(ev)) == 2)
                unsubscribe()
                sim.draw()
                await until(lambda ev: len(drawn(ev)) == 3)
        finally:
            dev.close()
            sim.close()
        assert len(drawn(seen)) == 2
        assert drawn(got) == sim.drawn
        return got

    events = asyncio.run(main())
    assert of(DeviceRecovered, events)


def test_drivers_implement_the_interfaces() -> None:
    sim = SimShoe(())
    try:
        shoe: CardShoe = SerialShoe("serial://x", sim.path, ShoeProtocol(), kind="shoe")
        lines: CardShoe = LineReaderShoe("lines://x", sim.path, LineReaderProtocol(), kind="shoe")
        chips: ChipSensor = SerialChipSensor("serial://x", sim.path, ChipsProtocol(), kind="chips")
        assert isinstance(shoe, CardShoe) and isinstance(lines, CardShoe)
        assert isinstance(chips, ChipSensor)
        assert shoe.status().link == "closed" and shoe.read_events(0.01) == []
    finally:
        sim.close()


def test_device_buffer_overflow_is_reported_not_hidden() -> None:
    sim = SimShoe(tag_uids(8), scan_on_load=False, retransmit_after=0.05, window=4)
    dev = open_shoe(f"serial://{sim.path}")
    try:
        dev.open()
        draw_cards(sim, dev, 1, [])
        sim.unplug()
        pump_until(sim, dev, lambda ev: bool(of(DeviceLost, ev)))
        for _ in range(6):
            sim.draw()
        sim.replug()
        events = pump_until(sim, dev, lambda ev: len(drawn(ev)) == 4 and sim.pending == 0)
        lost = of(FramesLost, events)
        assert lost == [FramesLost(2, 4)] and lost[0].count == 2  # type: ignore[attr-defined]
        assert drawn(events) == sim.drawn[3:]
        assert dev.status().lost_frames == 2 and sim.link.overflowed == 2
    finally:
        dev.close()
        sim.close()


def test_sim_line_reader_url() -> None:
    dev = open_shoe("sim://lines?format=id12")
    assert isinstance(dev, LineReaderShoe) and isinstance(dev.peer, SimLineReader)
    sim = dev.peer
    try:
        dev.open()
        sim.read_tag("0102030405", repeats=2)
        sim.send_garbage()
        sim.read_tag("A1B2C3D4E5")
        events: Events = []
        deadline = time.monotonic() + 30
        while len(drawn(events)) < 3 and time.monotonic() < deadline:
            events += dev.read_events(0.05)
        assert drawn(events) == ["0102030405", "0102030405", "A1B2C3D4E5"]
        assert len(of(BadFrame, events)) == 1
        resolver = TagResolver({"0102030405": Card.parse("Ah"), "A1B2C3D4E5": Card.parse("Kd")})
        resolved = resolver.process(events)
        assert RepeatedRead("0102030405") in resolved
    finally:
        dev.close()
    assert not sim.port.plugged


def test_move_value_pays_with_largest_chips() -> None:
    sim = SimChipSensor(range(1, 4), tray={1: 20, 2: 10, 3: 4})
    try:
        assert sim.value(TRAY) == 20 + 50 + 100
        assert sim.move_value(TRAY, 1, 37) == {3: 1, 2: 2, 1: 2}
        assert sim.value(1) == 37 and sim.value(TRAY) == 170 - 37
        with pytest.raises(SimulatorError, match="zone 1 cannot pay 4 exactly"):
            sim.move_value(1, 2, 4)
        assert sim.value(1) == 37
    finally:
        sim.close()


def test_port_missing_at_open_is_lost_then_recovers() -> None:
    # a cable out when the daemon starts (after a power cut): open(missing_ok=True) does not
    # raise; the first tick says lost, reopen attempts fail quietly until the path appears
    sim = SimShoe(tag_uids(3), retransmit_after=0.05, heartbeat_interval=0.1)
    try:
        sim.unplug()
        dev = open_shoe(f"serial://{sim.path}?heartbeat=0.1")
        assert isinstance(dev, SerialShoe)
        with pytest.raises(DeviceError, match="No such file"):
            dev.open()  # the default stays strict (calibrate deck fails fast)
        dev.open(missing_ok=True)
        st = dev.status()
        assert not st.connected and st.link == "lost" and "No such file" in (st.last_error or "")
        events = dev.read_events(0.2)
        assert len(of(DeviceLost, events)) == 1 and not of(DeviceRecovered, events)
        assert dev.fileno() is None
        sim.draw()
        sim.replug()
        events = pump_until(sim, dev, lambda ev: len(drawn(ev)) == 1 and sim.pending == 0)
        assert len(of(DeviceRecovered, events)) == 1 and not of(DeviceLost, events)
        assert drawn(events) == sim.drawn
        st = dev.status()
        assert st.connected and st.link == "ok" and st.reconnects == 1
        dev.close()
    finally:
        sim.close()


def test_missing_ok_does_not_hide_a_busy_port() -> None:
    sim = SimShoe(())
    try:
        first = open_shoe(f"serial://{sim.path}")
        first.open()
        second = open_shoe(f"serial://{sim.path}")
        assert isinstance(second, SerialShoe)
        with pytest.raises(DeviceError, match="cannot open"):
            second.open(missing_ok=True)
        assert second.status().link == "closed"
        first.close()
    finally:
        sim.close()
