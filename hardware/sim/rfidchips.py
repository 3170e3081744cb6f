"""A simulated RFID chip inventory reader over a pty (``sim://rfidchips``).

It speaks the reference link (so every link fault of :class:`~hardware.sim.device.SimDevice`
applies: bad CRC, split, dropped or duplicated frames, lost ACKs, stalls, unplugging) and the
INVENTORY messages of :mod:`hardware.rfidchips.protocol`. Script it like chips on the felt:
:meth:`SimRfidChips.place` (tags onto a zone), :meth:`SimRfidChips.take` (off it),
:meth:`SimRfidChips.move`; each change reports the zones it touched, and ``INVENTORY_REQUEST``
reports every zone. Chip-level faults: :meth:`SimRfidChips.misread` (a tag seen on a second zone
too, as a tag lying between two antennas is) and :meth:`SimRfidChips.report_torn` (a scan whose
last part never comes).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hardware.base import DeviceUrl, parse_device_url, register_scheme
from hardware.link.protocol import RETRANSMIT_AFTER, Frame
from hardware.link.serial_driver import check_query, driver_options, float_option, int_option
from hardware.rfidchips.driver import RfidChipReader
from hardware.rfidchips.protocol import (
    INVENTORY,
    INVENTORY_REQUEST,
    KIND_RFID_CHIPS,
    RfidChipsProtocol,
    inventory_payloads,
)
from hardware.sim.device import SimDevice, SimulatorError
from table_controller.errors import ConfigError


class SimRfidChips(SimDevice):
    """A simulated chip reader with one antenna per zone.

    :param zones: the zone ids (0..254).
    :param options: passed to :class:`~hardware.sim.device.SimDevice`.
    """

    kind_code = KIND_RFID_CHIPS

    def __init__(self, zones: Iterable[int] = range(1, 13), **options: Any) -> None:
        super().__init__(**options)
        self._tags: dict[int, set[str]] = {}
        for z in zones:
            if not 0 <= z <= 254:
                raise SimulatorError(f"zone id {z} outside 0..254")
            self._tags[z] = set()
        self._extra: dict[int, set[str]] = {z: set() for z in self._tags}
        self._scan = 0

    @property
    def zones(self) -> tuple[int, ...]:
        """The zone ids."""
        return tuple(self._tags)

    def tags(self, zone: int) -> set[str]:
        """Return the tags on ``zone`` (a copy).

        :raises SimulatorError: for an unknown zone.
        """
        with self._lock:
            return set(self._zone(zone))

    def place(self, zone: int, uids: Iterable[str], now: float | None = None) -> None:
        """Put tags on ``zone`` and report it.

        :raises SimulatorError: for an unknown zone or a tag already on another zone.
        """
        with self._lock:
            new = {u.upper() for u in uids}
            for z, held in self._tags.items():
                if z != zone and held & new:
                    raise SimulatorError(f"tag {sorted(held & new)[0]} is already on zone {z}")
            self._zone(zone).update(new)
            self.report(zone, now)

    def take(self, zone: int, uids: Iterable[str], now: float | None = None) -> None:
        """Take tags off ``zone`` and report it.

        :raises SimulatorError: for an unknown zone or a tag not on it.
        """
        with self._lock:
            gone = {u.upper() for u in uids}
            held = self._zone(zone)
            if not gone <= held:
                raise SimulatorError(f"tag {sorted(gone - held)[0]} is not on zone {zone}")
            held -= gone
            self.report(zone, now)

    def move(self, src: int, dst: int, uids: Iterable[str], now: float | None = None) -> None:
        """Move tags from ``src`` to ``dst``; report both.

        :raises SimulatorError: as :meth:`take` and :meth:`place`.
        """
        with self._lock:
            moving = list(uids)
            self.take(src, moving, now)
            self.place(dst, moving, now)

    def misread(self, zone: int, uids: Iterable[str], now: float | None = None) -> None:
        """Make ``zone``'s antenna also read ``uids`` (lying on the edge of another zone).

        :raises SimulatorError: for an unknown zone.
        """
        with self._lock:
            self._zone(zone)
            self._extra[zone].update(u.upper() for u in uids)
            self.report(zone, now)

    def report(self, zone: int, now: float | None = None, *, torn: bool = False) -> None:
        """Send ``zone``'s inventory (``torn``: without its last part).

        :raises SimulatorError: for an unknown zone.
        """
        with self._lock:
            uids = sorted(self._zone(zone) | self._extra[zone])
            self._scan = (self._scan + 1) & 0xFFFF
            parts = inventory_payloads(zone, self._scan, uids)
            if torn:
                parts = parts[:-1]
            for payload in parts:
                self.emit(INVENTORY, payload, now)

    def report_torn(self, zone: int, now: float | None = None) -> None:
        """Send a scan of ``zone`` whose last part is missing (then a good one follows later).

        :raises SimulatorError: for an unknown zone.
        """
        self.report(zone, now, torn=True)

    def on_command(self, frame: Frame, now: float) -> None:
        """Answer INVENTORY_REQUEST with every zone."""
        if frame.type == INVENTORY_REQUEST:
            for zone in self._tags:
                self.report(zone, now)

    def _zone(self, zone: int) -> set[str]:
        if zone not in self._tags:
            raise SimulatorError(f"no zone {zone} (zones: {', '.join(map(str, self._tags))})")
        return self._tags[zone]


def open_sim_rfidchips(url: DeviceUrl, options: Mapping[str, Any]) -> RfidChipReader:
    """Registry factory for ``sim://rfidchips?zones=12``: a started simulator behind the driver.

    Options: ``zones`` (zone ids 1..N), ``heartbeat``, ``retransmit`` (seconds), ``link``; pass
    ``sim=<SimRfidChips>`` to use one you own. ``driver.peer`` is the simulator.

    :raises ConfigError: for a bad option.
    """
    check_query(url, ("zones", "heartbeat", "retransmit", "link"))
    opts = dict(options)
    given = opts.pop("sim", None)
    if given is not None and not isinstance(given, SimRfidChips):
        raise ConfigError(f"sim= for {url.url!r} must be a SimRfidChips")
    owned: list[SimRfidChips] = []
    if given is None:
        given = SimRfidChips(
            range(1, int_option(url, "zones", 12, 1, 254) + 1),
            link_path=url.query.get("link"),
            heartbeat_interval=float_option(url, "heartbeat", 0.5, 0.01, 60.0),
            retransmit_after=float_option(url, "retransmit", RETRANSMIT_AFTER, 0.001, 60.0),
        )
        owned.append(given)
    given.start()
    return RfidChipReader(
        url.url,
        given.path,
        RfidChipsProtocol(heartbeat_interval=given.heartbeat_interval),
        kind="chips",
        owned=owned,
        peer=given,
        **driver_options(opts),
    )


def open_from_url(url: str, **options: Any) -> RfidChipReader:
    """Build the (unopened) driver for ``sim://rfidchips?...`` with its simulator running.

    :raises ConfigError: for a bad URL or option.
    """
    return open_sim_rfidchips(parse_device_url(url), options)


register_scheme("sim://rfidchips", open_sim_rfidchips, kind="chips")
