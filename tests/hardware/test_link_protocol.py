from __future__ import annotations

import random
from binascii import crc_hqx

from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.base import (
    BadFrame,
    DeviceEvent,
    DeviceHello,
    DeviceLost,
    DeviceRecovered,
    DuplicateFrame,
    LinkStale,
    Retransmission,
    SequenceGap,
)
from hardware.link.protocol import (
    FLAG_RETRANSMIT,
    MAX_ENCODED,
    U16,
    DeviceLink,
    Frame,
    FrameDecoder,
    HostLink,
    LinkState,
    MsgType,
    decode_body,
    encode_frame,
)


def test_crc_is_ccitt_false() -> None:
    assert crc_hqx(b"123456789", 0xFFFF) == 0x29B1


def frames_of(items: list[Frame | BadFrame]) -> list[Frame]:
    return [f for f in items if isinstance(f, Frame)]


SAMPLE = [
    Frame(MsgType.CARD_DRAWN, 1, bytes.fromhex("000004D2050102030405")),
    Frame(MsgType.SHOE_STATUS, 2, b"\x00\x00"),
    Frame(MsgType.DECK_SCAN, 3, bytes(300)),
    Frame(MsgType.HEARTBEAT, 0, b""),
]


def wire(frames: list[Frame]) -> bytes:
    return b"".join(encode_frame(f.type, f.seq, f.payload, f.flags) for f in frames)


def test_feed_whole() -> None:
    assert FrameDecoder().feed(wire(SAMPLE)) == SAMPLE


def test_feed_one_byte_at_a_time() -> None:
    d = FrameDecoder()
    out: list[Frame | BadFrame] = []
    for b in wire(SAMPLE):
        out.extend(d.feed(bytes([b])))
    assert out == SAMPLE
    assert d.buffered == 0


def test_garbage_between_frames_is_reported_and_frames_survive() -> None:
    data = b"".join(
        [b"\xff\xfe\x13", wire(SAMPLE[:1]), b"noise\x00more", wire(SAMPLE[1:3]), b"\x01\x02"]
    ) + wire(SAMPLE[3:])
    out = FrameDecoder().feed(data)
    assert frames_of(out) == SAMPLE
    bad = [b for b in out if isinstance(b, BadFrame)]
    assert len(bad) == 4
    assert all(b.reason for b in bad)


def test_bad_frame_reasons() -> None:
    good = encode_frame(MsgType.SHOE_STATUS, 1, b"\x01\x00")[1:-1]
    body = bytearray(good)
    body[-2] ^= 0x40
    bad = decode_body(bytes(body))
    assert isinstance(bad, BadFrame) and "CRC mismatch" in bad.reason
    short = decode_body(b"\x03\x01\x02")
    assert isinstance(short, BadFrame) and "too short" in short.reason
    cobs_bad = decode_body(b"\x09\x01")
    assert isinstance(cobs_bad, BadFrame) and "COBS" in cobs_bad.reason


def test_version_and_length_checked() -> None:
    from binascii import crc_hqx as crc

    from cobs import cobs

    from hardware.link.protocol import CRC, HEADER

    body = HEADER.pack(2, 0x11, 0, 1, 2) + b"\x00\x00"
    chunk = cobs.encode(body + CRC.pack(crc(body, 0xFFFF)))
    item = decode_body(chunk)
    assert isinstance(item, BadFrame) and "version 2" in item.reason
    body = HEADER.pack(1, 0x11, 0, 1, 5) + b"\x00\x00"
    chunk = cobs.encode(body + CRC.pack(crc(body, 0xFFFF)))
    item = decode_body(chunk)
    assert isinstance(item, BadFrame) and "length field says 5" in item.reason


def test_buffer_is_bounded_and_resyncs() -> None:
    d = FrameDecoder()
    out = d.feed(b"\x01" * (MAX_ENCODED + 10))
    assert len(out) == 1 and isinstance(out[0], BadFrame) and "no delimiter" in out[0].reason
    assert d.buffered == 0
    assert d.feed(b"\x01" * 5000) == []
    assert d.buffered == 0
    out = d.feed(wire(SAMPLE[:2]))
    assert frames_of(out) == SAMPLE[:2]


@given(
    st.lists(
        st.tuples(
            st.sampled_from([0x10, 0x11, 0x12, 0x20, 0x21]),
            st.integers(0, 0xFFFF),
            st.binary(max_size=300),
            st.sampled_from([0, FLAG_RETRANSMIT]),
        ),
        max_size=8,
    ),
    st.randoms(use_true_random=False),
)
def test_roundtrip_any_split(specs: list[tuple[int, int, bytes, int]], rnd: random.Random) -> None:
    frames = [Frame(t, s, p, f) for t, s, p, f in specs]
    data = wire(frames)
    d = FrameDecoder()
    out: list[Frame | BadFrame] = []
    pos = 0
    while pos < len(data):
        n = rnd.randint(1, 40)
        out.extend(d.feed(data[pos : pos + n]))
        pos += n
    assert out == frames


@given(
    st.lists(st.binary(min_size=1, max_size=40), min_size=1, max_size=6),
    st.binary(max_size=50),
)
def test_garbage_never_costs_a_frame(garbage: list[bytes], payload: bytes) -> None:
    frames = [Frame(0x10, i, payload) for i in range(len(garbage))]
    data = b"".join(g + wire([f]) for g, f in zip(garbage, frames, strict=True))
    out = FrameDecoder().feed(data)
    assert frames_of(out) == frames


@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    d = FrameDecoder()
    d.feed(data)
    d.feed(data[::-1])
    assert d.buffered <= MAX_ENCODED


@given(st.binary(max_size=40), st.data())
def test_single_bit_flip_never_yields_a_wrong_frame(payload: bytes, data: st.DataObject) -> None:
    frame = encode_frame(0x10, 7, payload)
    i = data.draw(st.integers(1, len(frame) - 2))
    bit = data.draw(st.integers(0, 7))
    broken = bytearray(frame)
    broken[i] ^= 1 << bit
    out = FrameDecoder().feed(bytes(broken))
    assert not frames_of(out)
    assert out and all(isinstance(b, BadFrame) for b in out)


# --- host link -----------------------------------------------------------------------------


def echo_decode(frame: Frame, now: float) -> list[DeviceEvent]:
    return [BadFrame(f"payload:{frame.payload.hex()}")] if frame.payload == b"bad" else []


class Recorder:
    def __init__(self) -> None:
        self.payloads: list[bytes] = []

    def __call__(self, frame: Frame, now: float) -> list[DeviceEvent]:
        self.payloads.append(frame.payload)
        return []


def host_frames(data: bytes) -> list[Frame]:
    return frames_of(FrameDecoder().feed(data))


def synced(decode: Recorder | None = None, first: int = 1) -> HostLink:
    host = HostLink(decode if decode is not None else echo_decode)
    dev = DeviceLink(boot_id=7)
    dev.next_seq = first
    host.feed(dev.hello(), 0.0)
    return host


def test_host_acks_cumulatively_once_per_feed() -> None:
    rec = Recorder()
    host = synced(rec, first=5)
    host.feed(encode_frame(0x10, 5, b"a") + encode_frame(0x10, 6, b"b"), now=0.0)
    acks = host_frames(host.take_outgoing())
    assert [(f.type, U16.unpack(f.payload)[0]) for f in acks] == [(MsgType.ACK, 6)]
    assert rec.payloads == [b"a", b"b"]
    assert host.take_outgoing() == b""


def test_host_drops_duplicates_and_reacks() -> None:
    rec = Recorder()
    host = synced(rec)
    host.feed(encode_frame(0x10, 1, b"a"), 0.0)
    host.take_outgoing()
    events = host.feed(encode_frame(0x10, 1, b"a"), 0.1)
    assert events == [DuplicateFrame(1)]
    events = host.feed(encode_frame(0x10, 1, b"a", FLAG_RETRANSMIT), 0.2)
    assert events == [Retransmission(1, dropped=True)]
    assert rec.payloads == [b"a"]
    assert host.duplicates == 2 and host.retransmissions == 1
    acks = host_frames(host.take_outgoing())
    assert [U16.unpack(f.payload)[0] for f in acks] == [1, 1]


def test_host_naks_gap_and_corruption() -> None:
    rec = Recorder()
    host = synced(rec)
    host.feed(encode_frame(0x10, 1, b"a"), 0.0)
    host.take_outgoing()
    events = host.feed(encode_frame(0x10, 3, b"c"), 0.1)
    assert events == [SequenceGap(2, 3)]
    naks = host_frames(host.take_outgoing())
    assert [(f.type, U16.unpack(f.payload)[0]) for f in naks] == [(MsgType.NAK, 2)]
    # a second gap report within nak_interval does not NAK again
    host.feed(encode_frame(0x10, 4, b"d"), 0.11)
    assert host.take_outgoing() == b""
    corrupt = bytearray(encode_frame(0x10, 2, b"b"))
    corrupt[-3] ^= 0x01
    events = host.feed(bytes(corrupt), 0.5)
    assert len(events) == 1 and isinstance(events[0], BadFrame)
    assert [f.type for f in host_frames(host.take_outgoing())] == [MsgType.NAK]
    host.feed(encode_frame(0x10, 2, b"b", FLAG_RETRANSMIT), 0.6)
    assert rec.payloads == [b"a", b"b"]
    assert host.bad_frames == 1


def test_bad_payload_is_acked_not_naked() -> None:
    host = synced()
    events = host.feed(encode_frame(0x10, 1, b"bad"), 0.0)
    assert isinstance(events[0], BadFrame)
    assert [f.type for f in host_frames(host.take_outgoing())] == [MsgType.ACK]


def test_hello_sets_expected_sequence() -> None:
    rec = Recorder()
    host = HostLink(rec)
    dev = DeviceLink(kind=1, firmware=3, boot_id=99)
    dev.next_seq = 40
    events = host.feed(dev.hello(), 0.0)
    assert events == [DeviceHello(1, 3, 99)]
    assert host.feed(encode_frame(0x10, 41, b"x"), 0.1) == [SequenceGap(40, 41)]


def test_unsynced_host_asks_for_hello_and_never_redelivers() -> None:
    rec = Recorder()
    host = HostLink(rec)
    dev = DeviceLink(boot_id=5)
    data = dev.send(0x10, b"a", 0.0) + dev.send(0x10, b"b", 0.0)
    assert host.feed(data, 0.0) == []
    assert rec.payloads == []
    _, reply = dev.feed(host.take_outgoing(), 0.01)
    assert host_frames(reply[0])[0].type == MsgType.HELLO
    host.feed(b"".join(reply), 0.02)
    assert rec.payloads == [b"a", b"b"]
    # the ACK is lost; the port is reopened; the device is still the same boot
    host.take_outgoing()
    host.reset(1.0)
    host.feed(dev.unsequenced(MsgType.HEARTBEAT, bytes(4)), 1.1)
    _, reply = dev.feed(host.take_outgoing(), 1.2)
    host.feed(b"".join(reply), 1.3)
    assert rec.payloads == [b"a", b"b"]
    assert host.duplicates == 2
    # a device that rebooted starts over
    dev2 = DeviceLink(boot_id=6)
    host.feed(dev2.hello() + dev2.send(0x10, b"c", 2.0), 2.0)
    assert rec.payloads == [b"a", b"b", b"c"]


def test_heartbeats_tell_silence_from_death() -> None:
    host = HostLink(echo_decode, heartbeat_interval=0.5, stale_after_missed=2, lost_after_missed=6)
    host.reset(0.0)
    assert host.state is LinkState.WAITING
    host.feed(encode_frame(MsgType.HEARTBEAT, 0, b"\x00\x00\x00\x01"), 0.0)
    assert host.state.value == "ok"
    assert host.tick(1.0) == []
    assert host.tick(1.5) == [LinkStale(1.5)]
    assert host.tick(2.0) == []
    assert host.tick(3.5) == [DeviceLost("no frame or heartbeat for 3.50 s")]
    assert host.tick(9.0) == []
    events = host.feed(encode_frame(MsgType.HEARTBEAT, 0, b"\x00\x00\x00\x02"), 9.5)
    assert events == [DeviceRecovered("frames again after lost link")]
    assert host.tick(9.6) == []
    assert host.state.value == "ok"


def test_device_link_acks_naks_and_timeouts() -> None:
    dev = DeviceLink(retransmit_after=0.2)
    wires = [dev.send(0x10, bytes([i]), now=0.0) for i in range(3)]
    assert len(dev.pending) == 3
    _, resend = dev.feed(encode_frame(MsgType.ACK, 0, U16.pack(1)), 0.05)
    assert resend == [] and [p.seq for p in dev.pending] == [2, 3]
    _, resend = dev.feed(encode_frame(MsgType.NAK, 0, U16.pack(3)), 0.06)
    assert [f.seq for f in host_frames(b"".join(resend))] == [3]
    assert all(f.retransmitted for f in host_frames(b"".join(resend)))
    assert dev.poll(0.1) == []
    assert [f.seq for f in host_frames(b"".join(dev.poll(0.3)))] == [3]
    commands, _ = dev.feed(encode_frame(MsgType.SHOE_REQUEST_SCAN, 9), 0.4)
    assert [c.type for c in commands] == [MsgType.SHOE_REQUEST_SCAN]
    assert wires[0] != wires[1]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.binary(min_size=1, max_size=20), min_size=1, max_size=25),
    st.randoms(use_true_random=False),
    st.floats(0.0, 0.4),
)
def test_lossy_line_delivers_everything_once_in_order(
    messages: list[bytes], rnd: random.Random, loss: float
) -> None:
    """Device and host over a line that drops, corrupts and splits: every message arrives once."""
    rec = Recorder()
    host = HostLink(rec)
    dev = DeviceLink(retransmit_after=0.2)

    def line(data: bytes) -> bytes:
        out = bytearray()
        for frame in [b"\x00" + c + b"\x00" for c in data.split(b"\x00") if c]:
            r = rnd.random()
            if r < loss / 2:
                continue
            if r < loss:
                broken = bytearray(frame)
                broken[rnd.randrange(1, len(frame) - 1)] ^= 0x10
                frame = bytes(broken)
            out += frame
        return bytes(out)

    now = 0.0
    to_host = dev.hello() + b"".join(dev.send(0x10, m, now) for m in messages)
    for _ in range(400):
        host.feed(line(to_host), now)
        _, resend = dev.feed(line(host.take_outgoing()), now)
        now += 0.05
        to_host = b"".join(resend) + b"".join(dev.poll(now))
        if not dev.pending and rec.payloads == messages:
            break
    assert rec.payloads == messages
