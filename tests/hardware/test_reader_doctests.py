"""The doctests of the PN532 and RFID chip modules run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "hardware.pn532.frames",
    "hardware.pn532.protocol",
    "hardware.pn532.driver",
    "hardware.rfidchips.protocol",
    "hardware.rfidchips.driver",
    "calibration.chip_registry",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
