import json
import logging

import pytest

from table_controller.logsetup import JournalFormatter, JsonFormatter, configure, formatter


def _record(level: int, msg: str, exc: bool = False) -> logging.LogRecord:
    info = None
    if exc:
        try:
            raise ValueError("boom")
        except ValueError:
            import sys
            info = sys.exc_info()
    return logging.LogRecord("table_controller.x", level, "", 0, msg, None, info)


@pytest.mark.parametrize(("level", "prio"), [(logging.DEBUG, 7), (logging.INFO, 6),
                                             (logging.WARNING, 4), (logging.ERROR, 3),
                                             (logging.CRITICAL, 2)])
def test_journal_priorities(level: int, prio: int) -> None:
    assert JournalFormatter().format(_record(level, "m")) == f"<{prio}>table_controller.x: m"


def test_journal_lines_stay_one_line_with_a_traceback() -> None:
    text = JournalFormatter().format(_record(logging.ERROR, "two\nlines", exc=True))
    assert "\n" not in text and "ValueError: boom" in text


def test_json_lines() -> None:
    body = json.loads(JsonFormatter().format(_record(logging.WARNING, "shoe lost", exc=True)))
    assert body["level"] == "WARNING" and body["msg"] == "shoe lost"
    assert "ValueError: boom" in body["exc"]


def test_configure_replaces_the_handlers() -> None:
    root = logging.getLogger()
    saved, level = list(root.handlers), root.level
    try:
        configure("INFO", "json")
        configure("INFO", "journal")
        assert len(root.handlers) == 1
        assert isinstance(root.handlers[0].formatter, JournalFormatter)
        assert isinstance(formatter("text"), logging.Formatter)
    finally:
        for h in list(root.handlers):
            root.removeHandler(h)
        for h in saved:
            root.addHandler(h)
        root.setLevel(level)


def test_doctests() -> None:
    import doctest

    import table_controller.logsetup as module

    assert doctest.testmod(module).failed == 0
