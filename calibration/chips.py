"""Chip-sensor calibration: which zone is which seat, the pot and the tray; denomination values.

File format (TOML, e.g. ``chip_zones.toml``)::

    # Chip sensors written by table-controller calibrate chips
    format = 1

    [denominations]    # sensor denomination code = chip value (table units)
    "1" = 1
    "2" = 5
    "3" = 25

    [zones]            # sensor zone id = "seat N" | "pot" | "tray"
    "1" = "seat 1"
    "2" = "seat 2"
    "10" = "pot"

Rules this module keeps:

1. Unknown keys are refused with the key named; every value is range-checked as it is loaded.
2. Each seat has at most one zone; there is exactly one pot zone and at most one tray zone (the
   tray may instead report through ``TRAY_INVENTORY``).
3. Valuing chips with an unknown denomination code raises: chips are money.

>>> cfg = default_chip_config(seats=2)
>>> cfg.seat_zone(2), cfg.pot_zone, cfg.role(3)
(2, 3, 'pot')
>>> cfg.value({1: 3, 3: 2})
53
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from table_controller.errors import CalibrationError

FORMAT = 1
MAX_SEATS = 10
#: Default chip set: denomination code -> value.
DEFAULT_DENOMINATIONS: Mapping[int, int] = MappingProxyType(
    {1: 1, 2: 5, 3: 25, 4: 100, 5: 500, 6: 1000, 7: 5000}
)
_ROLE = re.compile(r"^(?:seat ([1-9]|10)|pot|tray)$")
_KEYS = {"format", "denominations", "zones"}


@dataclass(frozen=True)
class ChipConfig:
    """Validated chip-sensor calibration. Build with :func:`build_chip_config`."""

    denominations: Mapping[int, int]
    zones: Mapping[int, str]

    @property
    def pot_zone(self) -> int:
        """Zone id of the pot."""
        return next(z for z, r in self.zones.items() if r == "pot")

    @property
    def tray_zone(self) -> int | None:
        """Zone id of the tray, or ``None`` if the tray reports as ``TRAY_INVENTORY``."""
        return next((z for z, r in self.zones.items() if r == "tray"), None)

    @property
    def seat_zones(self) -> Mapping[int, int]:
        """Seat number to zone id."""
        return {int(r[5:]): z for z, r in self.zones.items() if r.startswith("seat ")}

    def seat_zone(self, seat: int) -> int:
        """Return the zone id of ``seat``.

        :raises CalibrationError: if the seat has no zone.
        """
        zone = self.seat_zones.get(seat)
        if zone is None:
            raise CalibrationError(f"seat {seat} has no chip zone")
        return zone

    def role(self, zone: int) -> str | None:
        """Return ``"seat N"``, ``"pot"`` or ``"tray"`` for a zone id, ``None`` if unmapped."""
        return self.zones.get(zone)

    def value(self, counts: Mapping[int, int]) -> int:
        """Return the total value of ``{denomination code: count}``.

        :raises CalibrationError: for a denomination code that is not configured.
        """
        total = 0
        for code, count in counts.items():
            v = self.denominations.get(code)
            if v is None:
                raise CalibrationError(
                    f"unknown chip denomination code {code} ({count} chips): not in "
                    f"[denominations]"
                )
            total += v * count
        return total

    def to_toml(self) -> str:
        """Render as the TOML text described in the module docstring."""
        lines = [
            "# Chip sensors written by table-controller calibrate chips",
            f"format = {FORMAT}",
            "",
            "[denominations]    # sensor denomination code = chip value",
        ]
        lines += [f'"{c}" = {v}' for c, v in sorted(self.denominations.items())]
        lines += ["", '[zones]            # sensor zone id = "seat N" | "pot" | "tray"']
        lines += [f'"{z}" = "{r}"' for z, r in sorted(self.zones.items())]
        return "\n".join(lines) + "\n"


def _int_key(key: str, where: str, lo: int, hi: int) -> int:
    try:
        n = int(key)
    except ValueError:
        raise CalibrationError(f"{where}: key {key!r} is not an integer") from None
    if not lo <= n <= hi or str(n) != key.strip():
        raise CalibrationError(f"{where}: key {key!r} must be an integer {lo}..{hi}")
    return n


def build_chip_config(denominations: Mapping[int, int], zones: Mapping[int, str]) -> ChipConfig:
    """Validate and build a :class:`ChipConfig`.

    :raises CalibrationError: naming the first bad entry.
    """
    if not denominations:
        raise CalibrationError("denominations: at least one is needed")
    for code, value in denominations.items():
        if not 0 <= code <= 255:
            raise CalibrationError(f"denominations.{code}: code must be 0..255")
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise CalibrationError(f"denominations.{code}: value must be an integer > 0, got "
                                   f"{value!r}")
    taken: dict[str, int] = {}
    for zone, role in zones.items():
        if not 0 <= zone <= 254:
            raise CalibrationError(f"zones.{zone}: zone id must be 0..254")
        if not isinstance(role, str) or not _ROLE.match(role):
            raise CalibrationError(
                f"zones.{zone}: role must be \"seat N\" (N 1..{MAX_SEATS}), \"pot\" or \"tray\", "
                f"got {role!r}"
            )
        if role in taken:
            raise CalibrationError(f"zones.{zone}: {role} is already zone {taken[role]}")
        taken[role] = zone
    if "pot" not in taken:
        raise CalibrationError('zones: no zone is "pot"')
    return ChipConfig(MappingProxyType(dict(denominations)), MappingProxyType(dict(zones)))


def parse_chip_config(text: str, where: str = "chip zones") -> ChipConfig:
    """Parse and validate chip-sensor calibration TOML.

    :raises CalibrationError: naming the key or value that is wrong.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CalibrationError(f"{where}: not valid TOML: {exc}") from None
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise CalibrationError(f"{where}: unknown key {unknown[0]!r} (known: {sorted(_KEYS)})")
    if data.get("format") != FORMAT:
        raise CalibrationError(f"{where}: format must be {FORMAT}, got {data.get('format')!r}")
    den_t, zones_t = data.get("denominations"), data.get("zones")
    if not isinstance(den_t, dict):
        raise CalibrationError(f"{where}: [denominations] table missing")
    if not isinstance(zones_t, dict):
        raise CalibrationError(f"{where}: [zones] table missing")
    den = {_int_key(k, f"{where}: denominations", 0, 255): v for k, v in den_t.items()}
    zones = {_int_key(k, f"{where}: zones", 0, 254): v for k, v in zones_t.items()}
    try:
        return build_chip_config(den, zones)
    except CalibrationError as exc:
        raise CalibrationError(f"{where}: {exc}") from None


def load_chip_config(path: str | os.PathLike[str]) -> ChipConfig:
    """Read and validate a chip-sensor calibration file.

    :raises CalibrationError: if it cannot be read or is invalid.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise CalibrationError(f"cannot read chip zones {str(p)!r}: {exc.strerror}") from None
    return parse_chip_config(text, str(p))


def default_chip_config(seats: int = 9) -> ChipConfig:
    """Zones ``1..seats`` are the seats, ``seats + 1`` the pot; the tray reports separately.

    Matches ``sim://chips`` (zones 1..12) for up to 10 seats.

    :raises CalibrationError: for a seat count outside 2..10.
    """
    if not 2 <= seats <= MAX_SEATS:
        raise CalibrationError(f"seats must be 2..{MAX_SEATS}, got {seats}")
    zones = {s: f"seat {s}" for s in range(1, seats + 1)}
    zones[seats + 1] = "pot"
    return build_chip_config(DEFAULT_DENOMINATIONS, zones)
