from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "hardware.base",
    "hardware.link.protocol",
    "hardware.shoe.protocol",
    "hardware.shoe.resolver",
    "hardware.chips.protocol",
    "hardware.lines.protocol",
    "hardware.sim.shoe",
    "calibration.deck",
    "calibration.chips",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0
