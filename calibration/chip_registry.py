"""The chip registry: which RFID chip tag is which denomination of which chip set.

File format (JSON, e.g. ``chip_registry.json``; ``denomination`` is the denomination *code* of
``chip_zones.toml``'s ``[denominations]``, so counts from tags and from count sensors are the
same ``ZoneReport``)::

    {
      "format": 1,
      "chips": [
        {"uid": "E00401020304A1B2", "denomination": 3, "set": "main-2024"},
        {"uid": "E00401020304A1B3", "denomination": 4, "set": "main-2024"}
      ]
    }

Rules this module keeps:

1. Loading refuses unknown keys, a UID that is not 4 to 10 bytes of hex, a denomination code
   outside 1..255, an empty set name and a UID listed twice, each with a one-line message naming
   the entry (``chips[3].uid``). A typo stops the start; it is never skipped.
2. :meth:`ChipRegistry.amounts` never raises on what the readers saw: a tag not in the registry
   and a tag seen on two zones at once are returned as findings, naming the zone(s) and the UID,
   so that the controller holds the table with that message. Chips behind a finding are left
   out of the counts (an unknown tag has no value; a tag on two zones is counted on neither).
3. Nothing here does I/O except :func:`load_registry` and :meth:`ChipRegistry.save`.

>>> reg = ChipRegistry([ChipRecord("E0040101", 3, "main"), ChipRecord("E0040102", 4, "main")])
>>> result = reg.amounts({1: ["E0040101", "E0040102"], 2: ["E0040102", "E00401FF"]})
>>> result.counts
{1: ((3, 1),), 2: ()}
>>> for finding in result.findings:
...     print(finding.message)
tag E0040102 is seen on zones 1 and 2 at once
zone 2: tag E00401FF is not in the chip registry
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from hardware.base import ZoneReport
from hardware.rfidchips.protocol import ZoneInventory
from table_controller.errors import CalibrationError

FORMAT = 1
_UID = re.compile(r"^(?:[0-9A-F]{2}){4,10}$")
_TOP_KEYS = {"format", "chips"}
_CHIP_KEYS = {"uid", "denomination", "set"}


@dataclass(frozen=True, slots=True)
class ChipRecord:
    """One registered chip: its tag UID, denomination code and chip set."""

    uid: str
    denomination: int
    chip_set: str


@dataclass(frozen=True, slots=True)
class UnknownChip:
    """A tag on ``zone`` that the registry does not know (a foreign or counterfeit chip)."""

    zone: int
    uid: str

    @property
    def message(self) -> str:
        """One line for the dealer and the journal."""
        return f"zone {self.zone}: tag {self.uid} is not in the chip registry"


@dataclass(frozen=True, slots=True)
class ChipOnTwoZones:
    """A tag read on several zones at once (a cloned tag, or a chip between two antennas)."""

    uid: str
    zones: tuple[int, ...]

    @property
    def message(self) -> str:
        """One line for the dealer and the journal."""
        names = ", ".join(map(str, self.zones[:-1])) + f" and {self.zones[-1]}"
        return f"tag {self.uid} is seen on zones {names} at once"


Finding = UnknownChip | ChipOnTwoZones


@dataclass(frozen=True, slots=True)
class InventoryCount:
    """Counts per zone and what did not add up.

    :param counts: zone -> ``(denomination code, count)`` pairs sorted by code (the shape of
        :class:`~hardware.base.ZoneReport`).
    :param findings: tags that could not be counted, two-zone tags first, then unknown tags,
        each group sorted.
    """

    counts: Mapping[int, tuple[tuple[int, int], ...]]
    findings: tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        """True when every tag was counted."""
        return not self.findings

    def zone_reports(self) -> list[ZoneReport]:
        """Return the counts as one :class:`~hardware.base.ZoneReport` per zone."""
        return [ZoneReport(zone, counts) for zone, counts in sorted(self.counts.items())]


class ChipRegistry:
    """UID -> :class:`ChipRecord`; build with :func:`load_registry` or from records.

    :raises CalibrationError: for a bad record or a UID registered twice.
    """

    def __init__(self, records: Iterable[ChipRecord] = ()) -> None:
        self._by_uid: dict[str, ChipRecord] = {}
        for i, rec in enumerate(records):
            _check_record(rec, f"chip {i}")
            if rec.uid in self._by_uid:
                raise CalibrationError(f"chip {i}: tag {rec.uid} is registered twice")
            self._by_uid[rec.uid] = rec

    def __len__(self) -> int:
        return len(self._by_uid)

    def __contains__(self, uid: object) -> bool:
        return isinstance(uid, str) and uid.upper() in self._by_uid

    def lookup(self, uid: str) -> ChipRecord | None:
        """Return the record of ``uid`` (any case), or ``None``."""
        return self._by_uid.get(uid.upper())

    def records(self) -> list[ChipRecord]:
        """Return every record, sorted by UID."""
        return [self._by_uid[u] for u in sorted(self._by_uid)]

    def amounts(
        self, inventory: Mapping[int, Collection[str]] | Iterable[ZoneInventory]
    ) -> InventoryCount:
        """Count chips per zone and denomination from the latest tags of every zone.

        :param inventory: ``{zone: UIDs}``, or the latest :class:`ZoneInventory` of each zone.
        """
        zones = _as_mapping(inventory)
        seen: dict[str, list[int]] = {}
        for zone in sorted(zones):
            for uid in {u.upper() for u in zones[zone]}:
                seen.setdefault(uid, []).append(zone)
        findings: list[Finding] = [
            ChipOnTwoZones(uid, tuple(zs)) for uid, zs in sorted(seen.items()) if len(zs) > 1
        ]
        unknown: list[Finding] = []
        counts: dict[int, tuple[tuple[int, int], ...]] = {}
        for zone in sorted(zones):
            tally: dict[int, int] = {}
            for uid in sorted({u.upper() for u in zones[zone]}):
                if len(seen[uid]) > 1:
                    continue
                rec = self._by_uid.get(uid)
                if rec is None:
                    unknown.append(UnknownChip(zone, uid))
                    continue
                tally[rec.denomination] = tally.get(rec.denomination, 0) + 1
            counts[zone] = tuple(sorted(tally.items()))
        return InventoryCount(counts, tuple(findings + unknown))

    def to_json(self) -> str:
        """Serialise in the file format (sorted by UID, so saves are stable)."""
        chips = [{"uid": r.uid, "denomination": r.denomination, "set": r.chip_set}
                 for r in self.records()]
        return json.dumps({"format": FORMAT, "chips": chips}, indent=2) + "\n"

    def save(self, path: str | Path) -> None:
        """Write the registry atomically (temporary file, fsync, rename)."""
        target = Path(path)
        tmp = target.with_name(target.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(self.to_json())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)


def _as_mapping(
    inventory: Mapping[int, Collection[str]] | Iterable[ZoneInventory],
) -> Mapping[int, Collection[str]]:
    if isinstance(inventory, Mapping):
        return inventory
    return {inv.zone: inv.uids for inv in inventory}


def _check_record(rec: ChipRecord, where: str) -> None:
    if not isinstance(rec.uid, str) or not _UID.match(rec.uid):
        raise CalibrationError(f"{where}.uid: {rec.uid!r} is not 4 to 10 bytes of upper-case hex")
    if isinstance(rec.denomination, bool) or not isinstance(rec.denomination, int) or not (
            1 <= rec.denomination <= 255):
        raise CalibrationError(f"{where}.denomination: {rec.denomination!r} is not a code 1..255")
    if not isinstance(rec.chip_set, str) or not rec.chip_set.strip():
        raise CalibrationError(f"{where}.set: {rec.chip_set!r} is not a chip-set name")


def parse_registry(data: object, source: str = "chip registry") -> ChipRegistry:
    """Validate a decoded JSON document and build the registry.

    >>> parse_registry({"format": 1, "chips": [{"uid": "e0040101", "denomination": 0,
    ...                                         "set": "main"}]})
    Traceback (most recent call last):
    ...
    table_controller.errors.CalibrationError: chip registry: chips[0].denomination: 0 is not ...

    :raises CalibrationError: naming the first thing wrong.
    """
    if not isinstance(data, dict):
        raise CalibrationError(f"{source}: the top level must be an object")
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise CalibrationError(f"{source}: unknown key {unknown[0]!r} (known: chips, format)")
    if data.get("format") != FORMAT:
        raise CalibrationError(f"{source}: format must be {FORMAT}, got {data.get('format')!r}")
    chips = data.get("chips")
    if not isinstance(chips, list):
        raise CalibrationError(f"{source}: 'chips' must be a list")
    records = []
    for i, entry in enumerate(chips):
        where = f"chips[{i}]"
        if not isinstance(entry, dict):
            raise CalibrationError(f"{source}: {where} must be an object")
        bad = sorted(set(entry) - _CHIP_KEYS)
        if bad:
            raise CalibrationError(f"{source}: {where}: unknown key {bad[0]!r} "
                                   f"(known: denomination, set, uid)")
        missing = sorted(_CHIP_KEYS - set(entry))
        if missing:
            raise CalibrationError(f"{source}: {where}: missing key {missing[0]!r}")
        uid = entry["uid"]
        rec = ChipRecord(uid.upper() if isinstance(uid, str) else uid,
                         entry["denomination"], entry["set"])
        try:
            _check_record(rec, where)
        except CalibrationError as exc:
            raise CalibrationError(f"{source}: {exc}") from None
        records.append(rec)
    seen: dict[str, int] = {}
    for i, rec in enumerate(records):
        if rec.uid in seen:
            raise CalibrationError(f"{source}: chips[{i}].uid: tag {rec.uid} is already "
                                   f"chips[{seen[rec.uid]}]")
        seen[rec.uid] = i
    return ChipRegistry(records)


def load_registry(path: str | Path) -> ChipRegistry:
    """Read and validate a registry file.

    :raises CalibrationError: if the file is missing, not JSON, or invalid (message names it).
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise CalibrationError(f"{p}: cannot read the chip registry: {exc.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CalibrationError(f"{p}: not JSON: {exc.msg} at line {exc.lineno}") from None
    return parse_registry(data, str(p))
