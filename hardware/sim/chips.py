"""A simulated chip-sensor array speaking the reference protocol over a pty (``sim://chips``).

Script it like the felt: :meth:`SimChipSensor.set_zone`, :meth:`SimChipSensor.move` (chips from
one zone or the tray to another; conservation is enforced), :meth:`SimChipSensor.move_value`
(an amount, paid with the source's largest chips first), :meth:`SimChipSensor.set_tray`.
Every change sends the affected ``ZONE_REPORT`` / ``TRAY_INVENTORY``; the host's report request
is answered with every zone and the tray. Errors and status: :meth:`SimChipSensor.sensor_error`,
:meth:`SimChipSensor.set_status`. Link faults come from :class:`~hardware.sim.device.SimDevice`.

``sim://chips?zones=12`` has zones ``1..zones`` (default 12) and an empty tray; options
``heartbeat``, ``retransmit``, ``link`` as for ``sim://shoe``; ``sim=<SimChipSensor>`` uses yours.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from calibration.chips import DEFAULT_DENOMINATIONS
from hardware.base import DeviceUrl, register_scheme
from hardware.chips.driver import SerialChipSensor
from hardware.chips.protocol import (
    KIND_CHIPS,
    ChipsProtocol,
    sensor_error_payload,
    sensor_status_payload,
    tray_inventory_payload,
    zone_report_payload,
)
from hardware.link.protocol import RETRANSMIT_AFTER, Frame, MsgType
from hardware.link.serial_driver import check_query, driver_options, float_option, int_option
from hardware.sim.device import SimDevice, SimulatorError

#: The dealer's tray, as a :meth:`SimChipSensor.move` endpoint.
TRAY = "tray"
Place = int | str


class SimChipSensor(SimDevice):
    """A simulated chip-sensor array.

    :param zones: the zone ids the array has.
    :param tray: the tray's starting inventory ``{denomination code: count}``.
    :param values: chip value of each denomination code (for :meth:`move_value`).
    :param options: passed to :class:`~hardware.sim.device.SimDevice`.
    """

    kind_code = KIND_CHIPS

    def __init__(
        self,
        zones: Iterable[int] = range(1, 13),
        *,
        tray: Mapping[int, int] | None = None,
        values: Mapping[int, int] = DEFAULT_DENOMINATIONS,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self.values = dict(values)
        self._zones: dict[int, dict[int, int]] = {z: {} for z in zones}
        for z in self._zones:
            if not 0 <= z < 255:
                raise SimulatorError(f"zone id {z} outside 0..254")
        self._tray: dict[int, int] = {}
        if tray:
            self._tray = self._clean(tray, "the tray")
        self.ok = True
        self.error = 0

    @property
    def zones(self) -> tuple[int, ...]:
        """The zone ids."""
        return tuple(self._zones)

    def zone(self, zone: int) -> dict[int, int]:
        """Return the current counts on ``zone``.

        :raises SimulatorError: for an unknown zone.
        """
        with self._lock:
            return dict(self._place(zone))

    @property
    def tray(self) -> dict[int, int]:
        """Current tray inventory."""
        with self._lock:
            return dict(self._tray)

    def set_zone(self, zone: int, counts: Mapping[int, int], now: float | None = None) -> None:
        """Set the chips on ``zone`` and report it.

        :raises SimulatorError: for an unknown zone or a negative count.
        """
        with self._lock:
            self._place(zone)
            self._zones[zone] = self._clean(counts, f"zone {zone}")
            self._report(zone, now)

    def set_tray(self, counts: Mapping[int, int], now: float | None = None) -> None:
        """Set the tray inventory and report it.

        :raises SimulatorError: for a negative count.
        """
        with self._lock:
            self._tray = self._clean(counts, "the tray")
            self._report(TRAY, now)

    def move(
        self,
        from_zone: Place,
        to_zone: Place,
        counts: Mapping[int, int],
        now: float | None = None,
    ) -> None:
        """Move chips ``{denomination: count}`` between zones (or :data:`TRAY`); report both.

        :raises SimulatorError: if the source does not hold the chips (nothing changes).
        """
        with self._lock:
            src, dst = self._place(from_zone), self._place(to_zone)
            moving = self._clean(counts, "the move")
            for d, c in moving.items():
                if src.get(d, 0) < c:
                    raise SimulatorError(
                        f"{self._name(from_zone)} holds {src.get(d, 0)} chips of denomination "
                        f"{d}, cannot move {c}"
                    )
            for d, c in moving.items():
                src[d] -= c
                if not src[d]:
                    del src[d]
                dst[d] = dst.get(d, 0) + c
            self._report(from_zone, now)
            self._report(to_zone, now)

    def value(self, place: Place) -> int:
        """Return the chip value on a zone or the tray.

        :raises SimulatorError: for an unknown place or a denomination without a value.
        """
        with self._lock:
            total = 0
            for d, c in self._place(place).items():
                if d not in self.values:
                    raise SimulatorError(f"denomination {d} has no value")
                total += self.values[d] * c
            return total

    def move_value(
        self, from_zone: Place, to_zone: Place, amount: int, now: float | None = None
    ) -> dict[int, int]:
        """Move chips worth ``amount``, largest denominations of the source first.

        :returns: the chips moved, ``{denomination: count}``.
        :raises SimulatorError: if the source cannot pay ``amount`` exactly (nothing changes).
        """
        with self._lock:
            src = self._place(from_zone)
            left = amount
            chips: dict[int, int] = {}
            for d in sorted(src, key=lambda code: self.values.get(code, 0), reverse=True):
                v = self.values.get(d, 0)
                if v <= 0 or left <= 0:
                    continue
                n = min(src[d], left // v)
                if n:
                    chips[d] = n
                    left -= n * v
            if left or amount <= 0:
                raise SimulatorError(
                    f"{self._name(from_zone)} cannot pay {amount} exactly with its chips "
                    f"{dict(sorted(src.items()))}"
                )
            self.move(from_zone, to_zone, chips, now)
            return chips

    def report_all(self, now: float | None = None) -> None:
        """Report every zone and the tray."""
        with self._lock:
            for zone in self._zones:
                self._report(zone, now)
            self._report(TRAY, now)

    def set_status(self, *, ok: bool = True, error: int = 0, now: float | None = None) -> None:
        """Change and report the array's status."""
        with self._lock:
            self.ok, self.error = ok, error
            payload = sensor_status_payload(ok, error, len(self._zones) if ok else 0)
            self.emit(MsgType.SENSOR_STATUS, payload, now)

    def sensor_error(
        self, code: int, zone: int | None, message: str, now: float | None = None
    ) -> None:
        """Report an error (optionally for one zone)."""
        with self._lock:
            self.emit(MsgType.SENSOR_ERROR, sensor_error_payload(code, zone, message), now)

    def on_command(self, frame: Frame, now: float) -> None:
        """Answer report requests."""
        if frame.type == MsgType.CHIPS_REQUEST_REPORT:
            self.report_all(now)

    def _place(self, place: Place) -> dict[int, int]:
        if place == TRAY:
            return self._tray
        if isinstance(place, int) and place in self._zones:
            return self._zones[place]
        raise SimulatorError(f"no zone {place!r} (zones: {sorted(self._zones)} and 'tray')")

    @staticmethod
    def _name(place: Place) -> str:
        return "the tray" if place == TRAY else f"zone {place}"

    @staticmethod
    def _clean(counts: Mapping[int, int], where: str) -> dict[int, int]:
        out: dict[int, int] = {}
        for d, c in counts.items():
            if not 0 <= d <= 255 or not 0 <= c <= 0xFFFF:
                raise SimulatorError(f"{where}: denomination {d} count {c} out of range")
            if c:
                out[d] = c
        return out

    def _report(self, place: Place, now: float | None) -> None:
        if place == TRAY:
            self.emit(MsgType.TRAY_INVENTORY, tray_inventory_payload(self._tray), now)
        else:
            assert isinstance(place, int)
            self.emit(MsgType.ZONE_REPORT, zone_report_payload(place, self._zones[place]), now)


def open_sim_chips(url: DeviceUrl, options: Mapping[str, Any]) -> SerialChipSensor:
    """Registry factory for ``sim://chips``: a started :class:`SimChipSensor` behind a driver.

    :raises ConfigError: for a bad option.
    """
    check_query(url, ("zones", "heartbeat", "retransmit", "link"))
    opts = dict(options)
    given = opts.pop("sim", None)
    if isinstance(given, SimChipSensor):
        sim, owned = given, []
    else:
        sim = SimChipSensor(
            range(1, int_option(url, "zones", 12, 1, 254) + 1),
            link_path=url.query.get("link"),
            heartbeat_interval=float_option(url, "heartbeat", 0.5, 0.01, 60.0),
            retransmit_after=float_option(url, "retransmit", RETRANSMIT_AFTER, 0.001, 60.0),
        )
        owned = [sim]
    sim.start()
    return SerialChipSensor(
        url.url,
        sim.path,
        ChipsProtocol(heartbeat_interval=sim.heartbeat_interval),
        kind="chips",
        owned=owned,
        peer=sim,
        **driver_options(opts),
    )


register_scheme("sim://chips", open_sim_chips, kind="chips")
