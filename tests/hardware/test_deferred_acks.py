"""``SerialDevice(defer_acks=True)``: what the protocol wants written waits for ``release_acks``."""

from __future__ import annotations

import os
import select

from hardware.base import CardDrawn, DeviceEvent
from hardware.link.protocol import HELLO, MsgType, encode_frame
from hardware.shoe.driver import SerialShoe
from hardware.shoe.protocol import ShoeProtocol, card_drawn_payload
from hardware.sim.pty import PtyPort


class Clock:
    def __init__(self) -> None:
        self.now = 10.0

    def __call__(self) -> float:
        return self.now


def _rig(defer: bool) -> tuple[PtyPort, SerialShoe, Clock]:
    port, clock = PtyPort(), Clock()
    dev = SerialShoe(f"serial://{port.link_path}", port.link_path, ShoeProtocol(), kind="shoe",
                     clock=clock, defer_acks=defer)
    dev.open()
    return port, dev, clock


def _read(dev: SerialShoe) -> list[DeviceEvent]:
    fd = dev.fileno()
    assert fd is not None
    select.select([fd], [], [], 5.0)
    return dev.on_readable()


def _from_device(port: PtyPort, data: bytes) -> None:
    master = port.fileno()
    assert master is not None
    os.write(master, data)


def _written(port: PtyPort) -> bytes:
    master = port.fileno()
    assert master is not None
    ready, _, _ = select.select([master], [], [], 0.2)
    return port.read() if ready else b""


def _card(seq: int) -> bytes:
    return encode_frame(MsgType.CARD_DRAWN, seq, card_drawn_payload("04A1B2C3D4", 1000 + seq))


def test_acks_wait_for_release() -> None:
    port, dev, _ = _rig(defer=True)
    try:
        _from_device(port, encode_frame(MsgType.HELLO, 0, HELLO.pack(1, 1, 7, 1)))
        _read(dev)
        _from_device(port, _card(1))
        events = _read(dev)
        assert [type(e) for e in events] == [CardDrawn]
        assert dev.acks_held == 1
        assert _written(port) == b""  # nothing written before the release
        assert dev.release_acks() == []
        assert _written(port) == encode_frame(MsgType.ACK, 0, (1).to_bytes(2, "big"))
        assert dev.acks_held == 0 and dev.release_acks() == []
    finally:
        dev.close()
        port.close()


def test_without_deferral_the_ack_goes_at_once() -> None:
    port, dev, _ = _rig(defer=False)
    try:
        _from_device(port, encode_frame(MsgType.HELLO, 0, HELLO.pack(1, 1, 7, 1)) + _card(1))
        events = _read(dev)
        assert any(isinstance(e, CardDrawn) for e in events)
        assert dev.acks_held == 0
        assert _written(port).endswith(encode_frame(MsgType.ACK, 0, (1).to_bytes(2, "big")))
    finally:
        dev.close()
        port.close()


def test_acks_kept_for_a_lost_port_never_reach_the_next_session() -> None:
    port, dev, clock = _rig(defer=True)
    try:
        _from_device(port, encode_frame(MsgType.HELLO, 0, HELLO.pack(1, 1, 7, 1)) + _card(1))
        _read(dev)
        assert dev.acks_held == 1
        port.unplug()
        lost = _read(dev)
        assert lost and dev.acks_held == 0
        port.plug()
        clock.now += 10.0
        assert dev.tick()  # reopened
        assert dev.release_acks() == []
        assert _written(port) == b""
    finally:
        dev.close()
        port.close()


def test_next_deadline_follows_the_link() -> None:
    port, dev, clock = _rig(defer=True)
    try:
        proto = dev.protocol
        assert dev.next_deadline() == clock.now + proto.stale_after
        _from_device(port, encode_frame(MsgType.HELLO, 0, HELLO.pack(1, 1, 7, 1)))
        clock.now += 0.4
        _read(dev)
        assert dev.next_deadline() == clock.now + proto.stale_after
        clock.now += proto.stale_after
        assert dev.tick()  # stale
        assert dev.next_deadline() == clock.now - proto.stale_after + proto.lost_after
    finally:
        dev.close()
        port.close()


def test_a_second_read_of_one_readiness_is_not_a_lost_device() -> None:
    """The loop's reader after a drain read the data: nothing waits, the port is still there."""
    from hardware.base import DeviceLost

    port, dev, _ = _rig(defer=False)
    try:
        _from_device(port, encode_frame(MsgType.HELLO, 0, HELLO.pack(1, 1, 7, 1)))
        _read(dev)  # the drain
        assert not any(isinstance(e, DeviceLost) for e in dev.on_readable())  # the reader
        assert dev.status().connected
    finally:
        dev.close()
        port.close()
