from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "table_controller.feeds.messages",
    "table_controller.feeds.security",
    "table_controller.feeds.proxy",
    "table_controller.feeds.wire",
    "table_controller.cli.console",
    "table_controller.cli.console_text",
    "table_controller.boundedjson",
    "table_controller.ratelimit",
    "table_controller.config",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
