"""Typed device events: what a driver reports, faults included.

Every event a device can produce is a frozen dataclass deriving from :class:`DeviceEvent`:
card draws, chip reports, the link's health (bad frames, gaps, retransmissions, stale and lost
links) and the tag resolver's verdicts. A driver reports; it never raises on bad input.
:mod:`hardware.base` re-exports every name here (the interfaces and the registry use them).
"""

from __future__ import annotations

from dataclasses import dataclass

from table_controller.engine.cards import Card


@dataclass(frozen=True, slots=True)
class DeviceEvent:
    """Base class of every event a device driver produces."""


# Card shoe ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CardDrawn(DeviceEvent):
    """The shoe read a card's tag as it was drawn.

    :param uid: the tag UID, upper-case hex (``"04A1B2C3D4"``).
    :param shoe_ms: the shoe's own clock in milliseconds (``None`` for readers without one).
    :param at: host monotonic time the frame was parsed.
    """

    uid: str
    shoe_ms: int | None
    at: float


@dataclass(frozen=True, slots=True)
class ShoeStatus(DeviceEvent):
    """The shoe's status flags; ``error`` is the firmware's error code (0 = none)."""

    door_open: bool
    empty: bool
    jam: bool
    error: int = 0

    @property
    def ok(self) -> bool:
        """True when the door is closed and there is no jam or error."""
        return not (self.door_open or self.jam or self.error)


@dataclass(frozen=True, slots=True)
class DeckScan(DeviceEvent):
    """The shoe scanned a loaded deck: every tag UID in the order the shoe saw them."""

    uids: tuple[str, ...]


# Chip sensors ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ZoneReport(DeviceEvent):
    """Chips currently on one zone of the felt.

    :param zone: the sensor's zone id (calibration maps it to a seat, the pot or the tray).
    :param counts: ``(denomination code, count)`` pairs, sorted by code, zero counts omitted.
    """

    zone: int
    counts: tuple[tuple[int, int], ...]

    def as_dict(self) -> dict[int, int]:
        """Return the counts as ``{denomination code: count}``."""
        return dict(self.counts)


@dataclass(frozen=True, slots=True)
class TrayInventory(DeviceEvent):
    """Chips in the dealer's tray, as ``(denomination code, count)`` pairs sorted by code."""

    counts: tuple[tuple[int, int], ...]

    def as_dict(self) -> dict[int, int]:
        """Return the counts as ``{denomination code: count}``."""
        return dict(self.counts)


@dataclass(frozen=True, slots=True)
class SensorStatus(DeviceEvent):
    """The chip-sensor array's health: ``zones_online`` of its zones answer; ``error`` 0 = none."""

    ok: bool
    error: int
    zones_online: int


@dataclass(frozen=True, slots=True)
class SensorError(DeviceEvent):
    """The chip-sensor array reports an error, optionally for one zone."""

    code: int
    zone: int | None
    message: str


# Link and device health -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DeviceHello(DeviceEvent):
    """A device announced itself: kind code, firmware version and boot id.

    It comes after every (re)connection. A ``boot_id`` different from the previous one means the
    device restarted: frames it had not yet delivered are gone, so reads may be missing.
    """

    kind: int
    firmware: int
    boot_id: int


@dataclass(frozen=True, slots=True)
class BadFrame(DeviceEvent):
    """Bytes that could not be used; ``reason`` says why in plain words, ``raw`` holds a prefix."""

    reason: str
    raw: bytes = b""


@dataclass(frozen=True, slots=True)
class SequenceGap(DeviceEvent):
    """A frame arrived ahead of one that is missing; the host asked for a retransmission."""

    expected: int
    received: int


@dataclass(frozen=True, slots=True)
class FramesLost(DeviceEvent):
    """The device discarded frames the host never received (its send buffer overflowed).

    Frames ``expected`` up to ``resumed_at - 1`` are gone: reads may be missing, hold the table.
    """

    expected: int
    resumed_at: int

    @property
    def count(self) -> int:
        """Number of frames lost."""
        return (self.resumed_at - self.expected) % 0x10000


@dataclass(frozen=True, slots=True)
class Retransmission(DeviceEvent):
    """A frame marked as retransmitted arrived; ``dropped`` if it had already been accepted."""

    seq: int
    dropped: bool


@dataclass(frozen=True, slots=True)
class DuplicateFrame(DeviceEvent):
    """An unmarked frame repeated a sequence number already accepted; it was dropped."""

    seq: int


@dataclass(frozen=True, slots=True)
class LinkStale(DeviceEvent):
    """No frame (not even a heartbeat) for ``silent_for`` seconds: the device may be stalled."""

    silent_for: float


@dataclass(frozen=True, slots=True)
class DeviceLost(DeviceEvent):
    """The device is gone (unplugged, port error, or silent past the limit)."""

    reason: str


@dataclass(frozen=True, slots=True)
class DeviceRecovered(DeviceEvent):
    """The device is back after :class:`DeviceLost` or :class:`LinkStale`."""

    reason: str


# Tag resolution (card profile applied to CardDrawn) ---------------------------------------------


@dataclass(frozen=True, slots=True)
class CardIdentified(DeviceEvent):
    """A drawn tag resolved to a card through the active deck profile."""

    card: Card
    uid: str
    shoe_ms: int | None
    at: float


@dataclass(frozen=True, slots=True)
class UnknownTag(DeviceEvent):
    """A drawn tag is not in the active deck profile."""

    uid: str
    at: float


@dataclass(frozen=True, slots=True)
class RepeatedRead(DeviceEvent):
    """The reader reported the same tag again for the same draw; the repeat was dropped."""

    uid: str


@dataclass(frozen=True, slots=True)
class DuplicateCard(DeviceEvent):
    """A card already drawn since the last shuffle was drawn again (a second copy or clone)."""

    card: Card
    uid: str
    first_uid: str


# --------------------------------------------------------------------------------------------
# Status snapshot
# --------------------------------------------------------------------------------------------
