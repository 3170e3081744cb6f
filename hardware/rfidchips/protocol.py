"""RFID gaming-chip inventory messages on the reference link, sans-IO.

A chip reader has one antenna per zone and reports, per zone, the UIDs of the chip tags it
reads. It speaks the reference link of :mod:`hardware.link.protocol` (COBS, CRC-16, sequence
numbers, ACK/NAK, HELLO, heartbeats) with device kind :data:`KIND_RFID_CHIPS` and two new
message types (payloads big-endian; a UID is ``len u8`` then 4 to 10 bytes):

- ``INVENTORY`` (0x24): ``zone u8 | scan u16 | part u8 | parts u8 | n u8 | uid * n``. One zone's
  tags in one scan may span ``parts`` frames (a pot of 200 chips does not fit in 1024 bytes);
  the host reports the zone once every part ``0 .. parts-1`` of that scan has arrived.
- host command ``INVENTORY_REQUEST`` (0x2C): empty; answered with an INVENTORY of every zone.

``SENSOR_STATUS`` (0x22) and ``SENSOR_ERROR`` (0x23) are those of the chip sensors.

Rules this module keeps:

1. Decoding never raises; a malformed payload is a :class:`~hardware.base.BadFrame` naming the
   message (the frame itself was intact, so the link still acknowledges it).
2. A zone's inventory is reported whole or not at all: a part out of order, or a new scan of
   the zone before the old one was complete, drops the unfinished scan with a ``BadFrame``.
   Parts held are bounded (:data:`MAX_PARTS` per zone).
3. :class:`ZoneInventory` lists each UID once, sorted: the reader's order and repeats carry no
   meaning.

>>> from hardware.link.protocol import DeviceLink
>>> device, host = DeviceLink(kind=KIND_RFID_CHIPS), RfidChipsProtocol()
>>> parts = inventory_payloads(2, 7, ["E0040102", "E0040101"])
>>> wire = device.hello() + b"".join(device.send(INVENTORY, p, now=0.0) for p in parts)
>>> host.feed(wire, now=1.0)
[DeviceHello(kind=3, firmware=1, boot_id=1), ZoneInventory(zone=2, uids=('E0040101', 'E0040102'))]
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hardware.base import BadFrame, DeviceEvent
from hardware.chips.protocol import decode_chips
from hardware.link.protocol import MAX_PAYLOAD, Frame, HostLink, MsgType

__all__ = [
    "INVENTORY",
    "INVENTORY_REQUEST",
    "KIND_RFID_CHIPS",
    "RfidChipsProtocol",
    "ZoneInventory",
    "inventory_payloads",
]

KIND_RFID_CHIPS = 3
INVENTORY = 0x24
INVENTORY_REQUEST = 0x2C
MAX_PARTS = 64
MIN_UID, MAX_UID = 4, 10
_HEAD = struct.Struct(">BHBBB")


@dataclass(frozen=True, slots=True)
class ZoneInventory(DeviceEvent):
    """The chip tags one zone's antenna reads now.

    :param zone: the reader's zone id (calibration maps it to a seat, the pot or the tray).
    :param uids: each tag UID once, upper-case hex, sorted.
    """

    zone: int
    uids: tuple[str, ...]


def inventory_payloads(zone: int, scan: int, uids: Sequence[str]) -> list[bytes]:
    """Encode one zone's scan as INVENTORY payloads, split to fit the link (device side).

    :raises ValueError: for a zone outside 0..254 or a UID that is not 4..10 bytes of hex.
    """
    if not 0 <= zone <= 254:
        raise ValueError(f"zone {zone} out of range 0..254")
    entries = []
    for uid in uids:
        raw = bytes.fromhex(uid)
        if not MIN_UID <= len(raw) <= MAX_UID:
            raise ValueError(f"tag UID {uid!r} has {len(raw)} bytes, expected 4..10")
        entries.append(bytes([len(raw)]) + raw)
    room = MAX_PAYLOAD - _HEAD.size
    chunks: list[list[bytes]] = [[]]
    size = 0
    for e in entries:
        if size + len(e) > room or len(chunks[-1]) == 255:
            chunks.append([])
            size = 0
        chunks[-1].append(e)
        size += len(e)
    if len(chunks) > MAX_PARTS:
        raise ValueError(f"{len(uids)} tags need {len(chunks)} parts, at most {MAX_PARTS}")
    return [
        _HEAD.pack(zone, scan & 0xFFFF, i, len(chunks), len(c)) + b"".join(c)
        for i, c in enumerate(chunks)
    ]


def _parse(p: bytes) -> tuple[int, int, int, int, list[str]] | str:
    if len(p) < _HEAD.size:
        return f"payload of {len(p)} bytes, header needs {_HEAD.size}"
    zone, scan, part, parts, n = _HEAD.unpack_from(p)
    if not 0 < parts <= MAX_PARTS or part >= parts:
        return f"zone {zone}: part {part} of {parts}"
    pos, uids = _HEAD.size, []
    for i in range(n):
        if pos >= len(p):
            return f"zone {zone}: {n} tags announced, payload ends after {i}"
        size = p[pos]
        if not MIN_UID <= size <= MAX_UID or pos + 1 + size > len(p):
            return f"zone {zone}: tag {i} has a bad length {size}"
        uids.append(p[pos + 1 : pos + 1 + size].hex().upper())
        pos += 1 + size
    if pos != len(p):
        return f"zone {zone}: {len(p) - pos} bytes after the last tag"
    return zone, scan, part, parts, uids


@dataclass(slots=True)
class _Partial:
    scan: int
    parts: int
    uids: list[str]
    next_part: int = 0


class RfidChipsProtocol(HostLink):
    """Host side of an RFID chip reader: reference link plus inventory reassembly."""

    def __init__(self, **link_options: Any) -> None:
        super().__init__(self._decode, **link_options)
        self._partial: dict[int, _Partial] = {}

    def request_inventory(self) -> bytes:
        """Encode an INVENTORY_REQUEST command."""
        return self.command(INVENTORY_REQUEST)

    def _decode(self, frame: Frame, now: float) -> list[DeviceEvent]:
        if frame.type in (MsgType.SENSOR_STATUS, MsgType.SENSOR_ERROR):
            return decode_chips(frame, now)
        if frame.type != INVENTORY:
            return [BadFrame(f"unknown message type 0x{frame.type:02X} for a chip reader",
                             frame.payload[:32])]
        parsed = _parse(frame.payload)
        if isinstance(parsed, str):
            return [BadFrame(f"INVENTORY {parsed}", frame.payload[:32])]
        zone, scan, part, parts, uids = parsed
        out: list[DeviceEvent] = []
        held = self._partial.get(zone)
        if held is not None and (held.scan != scan or part != held.next_part):
            out.append(BadFrame(f"INVENTORY zone {zone}: scan {held.scan} incomplete "
                                f"({held.next_part} of {held.parts} parts), dropped"))
            held = None
            del self._partial[zone]
        if held is None:
            if part != 0:
                return [*out, BadFrame(f"INVENTORY zone {zone}: scan {scan} starts at part "
                                       f"{part}, dropped")]
            held = _Partial(scan, parts, [])
        held.uids.extend(uids)
        held.next_part = part + 1
        if held.next_part < held.parts:
            self._partial[zone] = held
            return out
        self._partial.pop(zone, None)
        out.append(ZoneInventory(zone, tuple(sorted(set(held.uids)))))
        return out
