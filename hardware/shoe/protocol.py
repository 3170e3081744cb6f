"""Card-shoe messages of the reference protocol, sans-IO.

Payloads (big-endian; a UID is ``len u8`` followed by 4 to 10 bytes):

- ``CARD_DRAWN`` (0x10): ``shoe_ms u32 | uid``
- ``SHOE_STATUS`` (0x11): ``flags u8`` (bit 0 door open, bit 1 empty, bit 2 jam) ``| error u8``
- ``DECK_SCAN`` (0x12): ``count u8 | uid * count``
- host commands ``SHOE_REQUEST_STATUS`` (0x18) and ``SHOE_REQUEST_SCAN`` (0x19): empty.

Rules: decoding never raises; a payload that does not parse becomes a
:class:`~hardware.base.BadFrame` naming the message and what was wrong (the frame itself was
intact, so it is still acknowledged).

>>> from hardware.link.protocol import DeviceLink
>>> device, host = DeviceLink(kind=KIND_SHOE), ShoeProtocol()
>>> host.feed(device.hello(), now=4.0)
[DeviceHello(kind=1, firmware=1, boot_id=1)]
>>> payload = card_drawn_payload("04A1B2C3D4", 1234)
>>> host.feed(device.send(MsgType.CARD_DRAWN, payload, now=0.0), now=5.0)
[CardDrawn(uid='04A1B2C3D4', shoe_ms=1234, at=5.0)]
>>> host.take_outgoing().hex(" ")  # ACK 1
'00 03 01 01 01 01 01 02 02 04 01 ca c3 00'
"""

from __future__ import annotations

import struct
from typing import Any

from hardware.base import BadFrame, CardDrawn, DeckScan, DeviceEvent, ShoeStatus
from hardware.link.protocol import Frame, HostLink, MsgType, encode_frame

__all__ = [
    "KIND_SHOE",
    "ShoeProtocol",
    "card_drawn_payload",
    "deck_scan_payload",
    "decode_shoe",
    "encode_frame",
    "shoe_status_payload",
]

KIND_SHOE = 1
_U32 = struct.Struct(">I")
DOOR_OPEN, EMPTY, JAM = 0x01, 0x02, 0x04
MIN_UID, MAX_UID = 4, 10


def _uid_bytes(uid: str) -> bytes:
    raw = bytes.fromhex(uid)
    if not MIN_UID <= len(raw) <= MAX_UID:
        raise ValueError(f"tag UID {uid!r} has {len(raw)} bytes, expected {MIN_UID}..{MAX_UID}")
    return bytes([len(raw)]) + raw


def card_drawn_payload(uid: str, shoe_ms: int) -> bytes:
    """Encode a CARD_DRAWN payload (device side).

    :raises ValueError: for a UID that is not 4..10 bytes of hex.
    """
    return _U32.pack(shoe_ms & 0xFFFFFFFF) + _uid_bytes(uid)


def shoe_status_payload(door_open: bool, empty: bool, jam: bool, error: int = 0) -> bytes:
    """Encode a SHOE_STATUS payload (device side)."""
    flags = (DOOR_OPEN if door_open else 0) | (EMPTY if empty else 0) | (JAM if jam else 0)
    return bytes([flags, error & 0xFF])


def deck_scan_payload(uids: list[str] | tuple[str, ...]) -> bytes:
    """Encode a DECK_SCAN payload (device side).

    :raises ValueError: for more than 255 UIDs or a bad UID.
    """
    if len(uids) > 255:
        raise ValueError(f"a deck scan holds at most 255 tags, got {len(uids)}")
    return bytes([len(uids)]) + b"".join(_uid_bytes(u) for u in uids)


def _read_uid(payload: bytes, pos: int) -> tuple[str, int] | str:
    if pos >= len(payload):
        return "UID length missing"
    n = payload[pos]
    if not MIN_UID <= n <= MAX_UID:
        return f"UID length {n} outside {MIN_UID}..{MAX_UID}"
    end = pos + 1 + n
    if end > len(payload):
        return f"UID needs {n} bytes, {len(payload) - pos - 1} left"
    return payload[pos + 1 : end].hex().upper(), end


_CARD_DRAWN = int(MsgType.CARD_DRAWN)
_unpack_u32 = _U32.unpack_from


def decode_shoe(frame: Frame, now: float) -> list[DeviceEvent]:
    """Turn one accepted shoe frame into events; never raises."""
    t, p = frame.type, frame.payload
    if t == _CARD_DRAWN:
        size = len(p)
        if size > 5 and MIN_UID <= p[4] <= MAX_UID and size == 5 + p[4]:  # a good read
            return [CardDrawn(p[5:].hex().upper(), _unpack_u32(p)[0], now)]
        if size < 5:
            return [BadFrame(f"CARD_DRAWN payload of {len(p)} bytes is too short", p)]
        got = _read_uid(p, 4)
        if isinstance(got, str):
            return [BadFrame(f"CARD_DRAWN: {got}", p)]
        uid, end = got
        if end != len(p):
            return [BadFrame(f"CARD_DRAWN: {len(p) - end} stray bytes after the UID", p)]
        return [CardDrawn(uid, _U32.unpack_from(p)[0], now)]
    if t == MsgType.SHOE_STATUS:
        if len(p) != 2:
            return [BadFrame(f"SHOE_STATUS payload of {len(p)} bytes, expected 2", p)]
        flags = p[0]
        return [ShoeStatus(bool(flags & DOOR_OPEN), bool(flags & EMPTY), bool(flags & JAM), p[1])]
    if t == MsgType.DECK_SCAN:
        if not p:
            return [BadFrame("DECK_SCAN payload is empty", p)]
        uids: list[str] = []
        pos = 1
        for i in range(p[0]):
            got = _read_uid(p, pos)
            if isinstance(got, str):
                return [BadFrame(f"DECK_SCAN tag {i + 1} of {p[0]}: {got}", p[:32])]
            uids.append(got[0])
            pos = got[1]
        if pos != len(p):
            return [BadFrame(f"DECK_SCAN: {len(p) - pos} stray bytes after the tags", p[:32])]
        return [DeckScan(tuple(uids))]
    return [BadFrame(f"unknown message type 0x{t:02X} for a card shoe", p[:32])]


class ShoeProtocol(HostLink):
    """Host side of a reference-protocol card shoe (a :class:`HostLink` decoding shoe messages)."""

    def __init__(self, **link_options: Any) -> None:
        super().__init__(decode_shoe, **link_options)

    def request_status(self) -> bytes:
        """Encode a SHOE_REQUEST_STATUS command."""
        return self.command(MsgType.SHOE_REQUEST_STATUS)

    def request_scan(self) -> bytes:
        """Encode a SHOE_REQUEST_SCAN command."""
        return self.command(MsgType.SHOE_REQUEST_SCAN)
