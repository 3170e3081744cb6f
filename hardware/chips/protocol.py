"""Chip-sensor messages of the reference protocol, sans-IO.

Payloads (big-endian; ``counts`` is ``n u8`` then ``n * (denomination u8 | count u16)``):

- ``ZONE_REPORT`` (0x20): ``zone u8 | counts``
- ``TRAY_INVENTORY`` (0x21): ``counts``
- ``SENSOR_STATUS`` (0x22): ``ok u8 | error u8 | zones_online u8``
- ``SENSOR_ERROR`` (0x23): ``code u8 | zone u8 (0xFF = none) | message UTF-8``
- host command ``CHIPS_REQUEST_REPORT`` (0x28): empty; answered with a ZONE_REPORT per zone and
  a TRAY_INVENTORY.

Rules: decoding never raises; a denomination listed twice, or a malformed payload, becomes a
:class:`~hardware.base.BadFrame` naming the message.

>>> from hardware.link.protocol import DeviceLink
>>> device, host = DeviceLink(kind=KIND_CHIPS), ChipsProtocol()
>>> payload = zone_report_payload(3, {5: 2, 1: 10})
>>> host.feed(device.hello() + device.send(MsgType.ZONE_REPORT, payload, now=0.0), now=1.0)
[DeviceHello(kind=2, firmware=1, boot_id=1), ZoneReport(zone=3, counts=((1, 10), (5, 2)))]
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from typing import Any

from hardware.base import (
    BadFrame,
    DeviceEvent,
    SensorError,
    SensorStatus,
    TrayInventory,
    ZoneReport,
)
from hardware.link.protocol import Frame, HostLink, MsgType, encode_frame

__all__ = [
    "KIND_CHIPS",
    "ChipsProtocol",
    "decode_chips",
    "encode_frame",
    "sensor_error_payload",
    "sensor_status_payload",
    "tray_inventory_payload",
    "zone_report_payload",
]

KIND_CHIPS = 2
NO_ZONE = 0xFF
_ENTRY = struct.Struct(">BH")


def _counts_payload(counts: Mapping[int, int]) -> bytes:
    items = sorted((d, c) for d, c in counts.items() if c)
    if len(items) > 255:
        raise ValueError(f"at most 255 denominations, got {len(items)}")
    for d, c in items:
        if not (0 <= d <= 255 and 0 <= c <= 0xFFFF):
            raise ValueError(f"denomination {d} count {c} out of range (u8, u16)")
    return bytes([len(items)]) + b"".join(_ENTRY.pack(d, c) for d, c in items)


def zone_report_payload(zone: int, counts: Mapping[int, int]) -> bytes:
    """Encode a ZONE_REPORT payload (device side); zero counts are left out.

    :raises ValueError: if the zone, a denomination or a count is out of range.
    """
    if not 0 <= zone < NO_ZONE:
        raise ValueError(f"zone {zone} out of range 0..254")
    return bytes([zone]) + _counts_payload(counts)


def tray_inventory_payload(counts: Mapping[int, int]) -> bytes:
    """Encode a TRAY_INVENTORY payload (device side).

    :raises ValueError: if a denomination or count is out of range.
    """
    return _counts_payload(counts)


def sensor_status_payload(ok: bool, error: int, zones_online: int) -> bytes:
    """Encode a SENSOR_STATUS payload (device side)."""
    return bytes([1 if ok else 0, error & 0xFF, zones_online & 0xFF])


def sensor_error_payload(code: int, zone: int | None, message: str) -> bytes:
    """Encode a SENSOR_ERROR payload (device side)."""
    z = NO_ZONE if zone is None else zone
    return bytes([code & 0xFF, z & 0xFF]) + message.encode("utf-8")[:200]


def _read_counts(p: bytes, pos: int) -> tuple[tuple[int, int], ...] | str:
    if pos >= len(p):
        return "count of denominations missing"
    n = p[pos]
    want = pos + 1 + n * _ENTRY.size
    if want != len(p):
        return f"{n} denominations need {want - pos} bytes, payload has {len(p) - pos}"
    items = [_ENTRY.unpack_from(p, pos + 1 + i * _ENTRY.size) for i in range(n)]
    denoms = [d for d, _ in items]
    if len(set(denoms)) != len(denoms):
        return "a denomination is listed twice"
    return tuple(sorted((d, c) for d, c in items if c))


def decode_chips(frame: Frame, now: float) -> list[DeviceEvent]:
    """Turn one accepted chip-sensor frame into events; never raises."""
    t, p = frame.type, frame.payload
    if t == MsgType.ZONE_REPORT:
        if not p:
            return [BadFrame("ZONE_REPORT payload is empty", p)]
        counts = _read_counts(p, 1)
        if isinstance(counts, str):
            return [BadFrame(f"ZONE_REPORT zone {p[0]}: {counts}", p[:32])]
        return [ZoneReport(p[0], counts)]
    if t == MsgType.TRAY_INVENTORY:
        counts = _read_counts(p, 0)
        if isinstance(counts, str):
            return [BadFrame(f"TRAY_INVENTORY: {counts}", p[:32])]
        return [TrayInventory(counts)]
    if t == MsgType.SENSOR_STATUS:
        if len(p) != 3:
            return [BadFrame(f"SENSOR_STATUS payload of {len(p)} bytes, expected 3", p)]
        return [SensorStatus(bool(p[0]), p[1], p[2])]
    if t == MsgType.SENSOR_ERROR:
        if len(p) < 2:
            return [BadFrame(f"SENSOR_ERROR payload of {len(p)} bytes is too short", p)]
        text = p[2:].decode("utf-8", errors="replace")
        return [SensorError(p[0], None if p[1] == NO_ZONE else p[1], text)]
    return [BadFrame(f"unknown message type 0x{t:02X} for a chip sensor", p[:32])]


class ChipsProtocol(HostLink):
    """Host side of a reference-protocol chip-sensor array."""

    def __init__(self, **link_options: Any) -> None:
        super().__init__(decode_chips, **link_options)

    def request_report(self) -> bytes:
        """Encode a CHIPS_REQUEST_REPORT command."""
        return self.command(MsgType.CHIPS_REQUEST_REPORT)
