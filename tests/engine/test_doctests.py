import doctest
import importlib

import pytest

MODULES = [
    "table_controller.engine.answers",
    "table_controller.engine.cards",
    "table_controller.engine.model",
    "table_controller.engine.betting",
    "table_controller.engine.pots",
    "table_controller.engine.showdown",
    "table_controller.engine.describe",
    "table_controller.engine.hand",
    "table_controller.engine.table",
    "table_controller.engine.straddle",
    "table_controller.engine.corrections",
    "table_controller.engine.frozen",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
