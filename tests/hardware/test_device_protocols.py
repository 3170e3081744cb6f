from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hardware.base import (
    BadFrame,
    CardDrawn,
    CardIdentified,
    DeckScan,
    DeviceEvent,
    DuplicateCard,
    RepeatedRead,
    SensorError,
    SensorStatus,
    ShoeStatus,
    TrayInventory,
    UnknownTag,
    ZoneReport,
)
from hardware.chips.protocol import (
    ChipsProtocol,
    sensor_error_payload,
    sensor_status_payload,
    tray_inventory_payload,
    zone_report_payload,
)
from hardware.lines.protocol import LineReaderProtocol, encode_id12, encode_reader_line
from hardware.link.protocol import DeviceLink, FrameDecoder, MsgType
from hardware.shoe.protocol import (
    ShoeProtocol,
    card_drawn_payload,
    deck_scan_payload,
    shoe_status_payload,
)
from hardware.shoe.resolver import TagResolver
from table_controller.engine.cards import Card

UIDS = ["04A1B2C3D4", "0102030405060708", "DEADBEEF", "00000000000000000001"]


def shoe_wire() -> tuple[bytes, list[DeviceEvent]]:
    dev = DeviceLink(kind=1)
    parts = [dev.hello()]
    parts.append(dev.send(MsgType.CARD_DRAWN, card_drawn_payload(UIDS[0], 1000), 0.0))
    parts.append(dev.send(MsgType.SHOE_STATUS, shoe_status_payload(True, False, True, 3), 0.0))
    parts.append(dev.send(MsgType.DECK_SCAN, deck_scan_payload(UIDS), 0.0))
    parts.append(dev.unsequenced(MsgType.HEARTBEAT, bytes(4)))
    parts.append(dev.send(MsgType.CARD_DRAWN, card_drawn_payload(UIDS[1], 2**32 - 1), 0.0))
    expected: list[DeviceEvent] = [
        CardDrawn(UIDS[0], 1000, 1.0),
        ShoeStatus(door_open=True, empty=False, jam=True, error=3),
        DeckScan(tuple(UIDS)),
        CardDrawn(UIDS[1], 2**32 - 1, 1.0),
    ]
    return b"".join(parts), expected


def data_events(events: list[DeviceEvent]) -> list[DeviceEvent]:
    return [e for e in events if type(e).__name__ not in {"DeviceHello"}]


def test_shoe_whole_bytewise_and_with_garbage() -> None:
    wire, expected = shoe_wire()
    assert data_events(ShoeProtocol().feed(wire, 1.0)) == expected
    p = ShoeProtocol()
    out: list[DeviceEvent] = []
    for b in wire:
        out.extend(p.feed(bytes([b]), 1.0))
    assert data_events(out) == expected
    gaps = wire.count(b"\x00\x00")
    noisy = b"\xfe\xfd" + wire.replace(b"\x00\x00", b"\x00\x13\x37garbage\x00")
    out = ShoeProtocol().feed(noisy, 1.0)
    assert [e for e in out if not isinstance(e, BadFrame)][1:] == expected
    assert sum(isinstance(e, BadFrame) for e in out) == gaps + 1


def test_shoe_status_ok_property() -> None:
    assert ShoeStatus(False, True, False, 0).ok
    assert not ShoeStatus(True, False, False, 0).ok


def test_shoe_bad_payloads_are_named() -> None:
    cases = {
        MsgType.CARD_DRAWN: (b"\x00\x01", "CARD_DRAWN"),
        MsgType.SHOE_STATUS: (b"\x00", "SHOE_STATUS"),
        MsgType.DECK_SCAN: (b"\x02\x04\x01\x02\x03\x04", "DECK_SCAN tag 2 of 2"),
        0x7E: (b"", "unknown message type 0x7E"),
    }
    for msg_type, (payload, words) in cases.items():
        dev = DeviceLink()
        p = ShoeProtocol()
        events = p.feed(dev.hello() + dev.send(msg_type, payload, 0.0), 0.0)
        bad = [e for e in events if isinstance(e, BadFrame)]
        assert len(bad) == 1 and words in bad[0].reason, bad
        acks = FrameDecoder().feed(p.take_outgoing())
        assert [getattr(a, "type", None) for a in acks] == [MsgType.ACK]
    dev = DeviceLink()
    extra = card_drawn_payload(UIDS[0], 5) + b"\x00"
    events = ShoeProtocol().feed(dev.hello() + dev.send(MsgType.CARD_DRAWN, extra, 0.0), 0.0)
    assert any(isinstance(e, BadFrame) and "stray" in e.reason for e in events)


def test_shoe_commands_encode() -> None:
    p = ShoeProtocol()
    frames = FrameDecoder().feed(p.request_scan() + p.request_status())
    assert [getattr(f, "type", None) for f in frames] == [
        MsgType.SHOE_REQUEST_SCAN,
        MsgType.SHOE_REQUEST_STATUS,
    ]


@given(
    st.lists(
        st.tuples(st.binary(min_size=4, max_size=10), st.integers(0, 2**32 - 1)),
        max_size=10,
    )
)
def test_card_drawn_roundtrip(reads: list[tuple[bytes, int]]) -> None:
    dev = DeviceLink()
    wire = dev.hello() + b"".join(
        dev.send(MsgType.CARD_DRAWN, card_drawn_payload(u.hex(), ms), 0.0) for u, ms in reads
    )
    events = ShoeProtocol().feed(wire, 2.0)
    assert [e for e in events if isinstance(e, CardDrawn)] == [
        CardDrawn(u.hex().upper(), ms, 2.0) for u, ms in reads
    ]


@given(st.lists(st.binary(min_size=4, max_size=10), max_size=60))
def test_deck_scan_roundtrip(uids: list[bytes]) -> None:
    dev = DeviceLink()
    texts = [u.hex().upper() for u in uids]
    wire = dev.hello() + dev.send(MsgType.DECK_SCAN, deck_scan_payload(texts), 0.0)
    assert [e for e in ShoeProtocol().feed(wire, 0.0) if isinstance(e, DeckScan)] == [
        DeckScan(tuple(texts))
    ]


def chips_wire() -> tuple[bytes, list[DeviceEvent]]:
    dev = DeviceLink(kind=2)
    parts = [
        dev.hello(),
        dev.send(MsgType.ZONE_REPORT, zone_report_payload(1, {25: 4, 5: 0, 1: 12}), 0.0),
        dev.send(MsgType.TRAY_INVENTORY, tray_inventory_payload({1: 500, 5: 200}), 0.0),
        dev.send(MsgType.SENSOR_STATUS, sensor_status_payload(True, 0, 12), 0.0),
        dev.send(MsgType.SENSOR_ERROR, sensor_error_payload(4, 3, "antenna 3 open"), 0.0),
        dev.send(MsgType.SENSOR_ERROR, sensor_error_payload(9, None, "overheat"), 0.0),
        dev.send(MsgType.ZONE_REPORT, zone_report_payload(2, {}), 0.0),
    ]
    expected: list[DeviceEvent] = [
        ZoneReport(1, ((1, 12), (25, 4))),
        TrayInventory(((1, 500), (5, 200))),
        SensorStatus(True, 0, 12),
        SensorError(4, 3, "antenna 3 open"),
        SensorError(9, None, "overheat"),
        ZoneReport(2, ()),
    ]
    return b"".join(parts), expected


def test_chips_whole_bytewise_and_with_garbage() -> None:
    wire, expected = chips_wire()
    assert data_events(ChipsProtocol().feed(wire, 0.0)) == expected
    p = ChipsProtocol()
    out: list[DeviceEvent] = []
    for b in wire:
        out.extend(p.feed(bytes([b]), 0.0))
    assert data_events(out) == expected
    noisy = wire.replace(b"\x00\x00", b"\x00\xff\xfe\x00")
    out = ChipsProtocol().feed(noisy, 0.0)
    assert [e for e in out if not isinstance(e, BadFrame)][1:] == expected
    assert ZoneReport(1, ((1, 12), (25, 4))).as_dict() == {1: 12, 25: 4}


def test_chips_bad_payloads_are_named() -> None:
    cases = [
        (MsgType.ZONE_REPORT, b"", "ZONE_REPORT payload is empty"),
        (MsgType.ZONE_REPORT, b"\x01\x02\x01\x00\x01", "ZONE_REPORT zone 1"),
        (MsgType.ZONE_REPORT, b"\x01\x02\x01\x00\x01\x01\x00\x02", "listed twice"),
        (MsgType.TRAY_INVENTORY, b"", "TRAY_INVENTORY"),
        (MsgType.SENSOR_STATUS, b"\x01", "SENSOR_STATUS"),
        (MsgType.SENSOR_ERROR, b"\x01", "SENSOR_ERROR"),
        (MsgType.CARD_DRAWN, b"", "unknown message type 0x10 for a chip sensor"),
    ]
    for msg_type, payload, words in cases:
        dev = DeviceLink()
        events = ChipsProtocol().feed(dev.hello() + dev.send(msg_type, payload, 0.0), 0.0)
        bad = [e for e in events if isinstance(e, BadFrame)]
        assert len(bad) == 1 and words in bad[0].reason, (words, bad)


@given(
    st.integers(0, 254),
    st.dictionaries(st.integers(0, 255), st.integers(0, 0xFFFF), max_size=20),
)
def test_zone_report_roundtrip(zone: int, counts: dict[int, int]) -> None:
    dev = DeviceLink()
    wire = dev.hello() + dev.send(MsgType.ZONE_REPORT, zone_report_payload(zone, counts), 0.0)
    reports = [e for e in ChipsProtocol().feed(wire, 0.0) if isinstance(e, ZoneReport)]
    assert reports == [ZoneReport(zone, tuple(sorted((d, c) for d, c in counts.items() if c)))]


# --- line readers ----------------------------------------------------------------------------


def feed_bytewise(p: LineReaderProtocol, data: bytes) -> list[DeviceEvent]:
    out: list[DeviceEvent] = []
    for b in data:
        out.extend(p.feed(bytes([b]), 1.0))
    return out


def test_reader_lines_whole_bytewise_garbage() -> None:
    data = b"".join(encode_reader_line(u) for u in UIDS[:3])
    expected = [CardDrawn(u, None, 1.0) for u in UIDS[:3]]
    assert LineReaderProtocol("reader").feed(data, 1.0) == expected
    assert feed_bytewise(LineReaderProtocol("reader"), data) == expected
    noisy = b"\xff\xfenoise\r\n" + encode_reader_line(UIDS[0]) + b"\r\n\r\nREADER|XYZ\r\n"
    noisy += encode_reader_line(UIDS[1]) + b"READER|0102\n"
    out = LineReaderProtocol("reader").feed(noisy, 1.0)
    assert [e for e in out if isinstance(e, CardDrawn)] == expected[:2]
    reasons = [e.reason for e in out if isinstance(e, BadFrame)]
    assert len(reasons) == 3
    assert "does not start with 'READER|'" in reasons[0]
    assert "not a tag UID" in reasons[1] and "not a tag UID" in reasons[2]


def test_reader_custom_prefix_and_overflow() -> None:
    p = LineReaderProtocol("reader", prefix="", max_line=30)
    assert p.feed(b"04a1b2c3d4\n", 0.0) == [CardDrawn("04A1B2C3D4", None, 0.0)]
    out = p.feed(b"A" * 40, 0.0)
    assert len(out) == 1 and isinstance(out[0], BadFrame) and "no line end" in out[0].reason
    assert p.feed(b"AAAA\n01020304\n", 0.0) == [CardDrawn("01020304", None, 0.0)]
    assert p.bad_frames == 1 and p.frames == 2


def test_id12_whole_bytewise_garbage_checksum() -> None:
    uids = ["0102030405", "A1B2C3D4E5", "FFFFFFFFFF"]
    data = b"".join(encode_id12(u) for u in uids)
    expected = [CardDrawn(u, None, 1.0) for u in uids]
    assert LineReaderProtocol("id12").feed(data, 1.0) == expected
    assert feed_bytewise(LineReaderProtocol("id12"), data) == expected
    bad_sum = bytearray(encode_id12("0102030405"))
    bad_sum[12] = ord("0") if bad_sum[12] != ord("0") else ord("1")
    noisy = b"zz" + encode_id12(uids[0]) + bytes(bad_sum) + b"\x02\x02" + encode_id12(uids[1])
    out = LineReaderProtocol("id12").feed(noisy, 1.0)
    assert [e for e in out if isinstance(e, CardDrawn)] == expected[:2]
    reasons = [e.reason for e in out if isinstance(e, BadFrame)]
    assert any("outside an STX frame" in r for r in reasons)
    assert any("checksum mismatch" in r for r in reasons)


def test_id12_a_run_of_damaged_frames_is_one_bad_frame() -> None:
    # a noisy line of STX bytes: each byte opens a damaged frame; one report for the run, and
    # the frame after it is read
    out = LineReaderProtocol("id12").feed(b"\x02" * 5000 + encode_id12("0102030405"), 1.0)
    assert out[1:] == [CardDrawn("0102030405", None, 1.0)]
    assert isinstance(out[0], BadFrame) and "not hex" in out[0].reason
    assert "4999 more damaged frames" in out[0].reason
    # a damaged frame alone is reported as before (then the bytes after its STX)
    single = LineReaderProtocol("id12").feed(b"\x02zz" + encode_id12("0102030405"), 1.0)
    assert [type(e) for e in single] == [BadFrame, BadFrame, CardDrawn]
    first, outside = (e for e in single if isinstance(e, BadFrame))
    assert "not hex" in first.reason and "more damaged" not in first.reason
    assert "2 bytes outside an STX frame" in outside.reason


@given(st.binary(max_size=300))
def test_line_readers_never_raise(data: bytes) -> None:
    for fmt in ("reader", "id12"):
        p = LineReaderProtocol(fmt)
        p.feed(data, 0.0)
        p.feed(data, 0.0)
        assert p.tick(5.0) == [] and p.take_outgoing() == b""


@given(st.lists(st.binary(min_size=5, max_size=5), max_size=10), st.binary(max_size=20))
def test_id12_roundtrip_after_garbage(uids: list[bytes], junk: bytes) -> None:
    junk = junk.replace(b"\x02", b"")
    data = junk + b"".join(encode_id12(u.hex()) for u in uids)
    out = LineReaderProtocol("id12").feed(data, 0.0)
    assert [e for e in out if isinstance(e, CardDrawn)] == [
        CardDrawn(u.hex().upper(), None, 0.0) for u in uids
    ]


def test_unknown_line_format_is_refused() -> None:
    import pytest

    from table_controller.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown line-reader format 'csv'"):
        LineReaderProtocol("csv")


# --- tag resolver ----------------------------------------------------------------------------


def test_resolver_unknown_repeat_duplicate() -> None:
    ah, kd = Card.parse("Ah"), Card.parse("Kd")
    r = TagResolver({"0a0b0c0d": ah, "01020304": kd}, repeat_window=0.5)
    events = r.process(
        [
            CardDrawn("0A0B0C0D", 1000, 1.0),
            CardDrawn("0A0B0C0D", 1100, 1.1),
            CardDrawn("01020304", 3000, 3.0),
            CardDrawn("99999999", 4000, 4.0),
            CardDrawn("0A0B0C0D", 5000, 5.0),
            ShoeStatus(False, False, False),
        ]
    )
    assert events == [
        CardIdentified(ah, "0A0B0C0D", 1000, 1.0),
        RepeatedRead("0A0B0C0D"),
        CardIdentified(kd, "01020304", 3000, 3.0),
        UnknownTag("99999999", 4.0),
        DuplicateCard(ah, "0A0B0C0D", "0A0B0C0D"),
        ShoeStatus(False, False, False),
    ]
    assert r.drawn == (ah, kd)
    r.new_shuffle()
    assert r.resolve(CardDrawn("0A0B0C0D", 9000, 9.0)) == CardIdentified(ah, "0A0B0C0D", 9000, 9.0)
    # without a shoe clock the host time decides
    assert r.resolve(CardDrawn("0A0B0C0D", None, 9.2)) == RepeatedRead("0A0B0C0D")
