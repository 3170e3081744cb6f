from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "table_controller.journal.store",
    "table_controller.journal.recall",
    "table_controller.journal.compact",
    "table_controller.config",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
