import doctest
import importlib

import pytest

MODULES = [
    "table_controller.simtable.players",
    "table_controller.simtable.felt",
    "table_controller.displays.view",
    "table_controller.simtable.devices.faulty",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
