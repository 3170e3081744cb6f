from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "table_controller.controller.events",
    "table_controller.controller.steps",
    "table_controller.controller.chips",
    "hardware.sim.camera_link",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0
