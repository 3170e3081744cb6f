"""The chip registry: file validation, round trip, counts and findings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calibration.chip_registry import (
    ChipOnTwoZones,
    ChipRecord,
    ChipRegistry,
    UnknownChip,
    load_registry,
    parse_registry,
)
from hardware.base import ZoneReport
from hardware.rfidchips.protocol import ZoneInventory
from table_controller.errors import CalibrationError

REG = ChipRegistry([
    ChipRecord("E0040101", 1, "main"),
    ChipRecord("E0040102", 1, "main"),
    ChipRecord("E0040103", 3, "main"),
    ChipRecord("E0040104", 4, "plaques"),
])


def test_amounts_per_zone_and_denomination() -> None:
    result = REG.amounts([ZoneInventory(1, ("E0040101", "E0040102", "E0040103")),
                          ZoneInventory(2, ()), ZoneInventory(10, ("e0040104",))])
    assert result.ok
    assert result.counts == {1: ((1, 2), (3, 1)), 2: (), 10: ((4, 1),)}
    assert result.zone_reports() == [ZoneReport(1, ((1, 2), (3, 1))), ZoneReport(2, ()),
                                     ZoneReport(10, ((4, 1),))]


def test_unknown_tag_and_tag_on_two_zones_are_findings_naming_zone_and_uid() -> None:
    result = REG.amounts({1: ["E0040101", "E00401FF"], 2: ["E0040101"], 3: ["E0040101"]})
    assert not result.ok
    assert result.findings == (ChipOnTwoZones("E0040101", (1, 2, 3)),
                               UnknownChip(1, "E00401FF"))
    assert result.findings[0].message == "tag E0040101 is seen on zones 1, 2 and 3 at once"
    assert "zone 1" in result.findings[1].message and "E00401FF" in result.findings[1].message
    assert result.counts == {1: (), 2: (), 3: ()}, "a tag behind a finding counts nowhere"


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "chip_registry.json"
    REG.save(path)
    again = load_registry(path)
    assert again.records() == REG.records()
    assert "E0040104" in again and again.lookup("e0040104") == ChipRecord("E0040104", 4, "plaques")
    assert len(again) == 4


def good() -> dict[str, object]:
    return {"format": 1, "chips": [{"uid": "E0040101", "denomination": 1, "set": "main"}]}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(extra=1), "unknown key 'extra'"),
        (lambda d: d.update(format=2), "format must be 1"),
        (lambda d: d.update(chips={}), "'chips' must be a list"),
        (lambda d: d["chips"][0].update(colour="red"), r"chips\[0\]: unknown key 'colour'"),
        (lambda d: d["chips"][0].pop("set"), r"chips\[0\]: missing key 'set'"),
        (lambda d: d["chips"][0].update(uid="XYZ"), r"chips\[0\].uid: 'XYZ'"),
        (lambda d: d["chips"][0].update(denomination=256), r"chips\[0\].denomination: 256"),
        (lambda d: d["chips"][0].update(denomination=True), r"chips\[0\].denomination: True"),
        (lambda d: d["chips"][0].update(set=" "), r"chips\[0\].set"),
        (lambda d: d["chips"].append(dict(d["chips"][0])), r"chips\[1\].uid: tag E0040101 is "
                                                           r"already chips\[0\]"),
    ],
)
def test_every_mistake_is_named_in_one_line(change: object, message: str) -> None:
    data = good()
    change(data)  # type: ignore[operator]
    with pytest.raises(CalibrationError, match=message) as info:
        parse_registry(data)
    assert "\n" not in str(info.value)


def test_file_errors(tmp_path: Path) -> None:
    with pytest.raises(CalibrationError, match="cannot read"):
        load_registry(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    with pytest.raises(CalibrationError, match="not JSON"):
        load_registry(bad)
    bad.write_text(json.dumps([1]))
    with pytest.raises(CalibrationError, match="top level"):
        load_registry(bad)
    with pytest.raises(CalibrationError, match="registered twice"):
        ChipRegistry([ChipRecord("E0040101", 1, "a"), ChipRecord("E0040101", 2, "b")])
