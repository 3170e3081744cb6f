import io
import json
import logging
from collections.abc import Iterator

import pytest

from table_controller.logsetup import (
    CappedHandler,
    JournalFormatter,
    JsonFormatter,
    configure,
    formatter,
)


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


@pytest.fixture
def root() -> Iterator[logging.Logger]:
    """The root logger, its handlers and level put back after the test."""
    root = logging.getLogger()
    saved, level = list(root.handlers), root.level
    try:
        yield root
    finally:
        for h in list(root.handlers):
            root.removeHandler(h)
        for h in saved:
            root.addHandler(h)
        root.setLevel(level)


def test_configure_replaces_the_handlers(root: logging.Logger) -> None:
    configure("INFO", "json")
    configure("INFO", "journal")
    assert len(root.handlers) == 1
    assert isinstance(root.handlers[0].formatter, JournalFormatter)
    assert isinstance(formatter("text"), logging.Formatter)


def test_doctests() -> None:
    import doctest

    import table_controller.logsetup as module

    assert doctest.testmod(module).failed == 0


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _capped(rate: float, burst: int) -> tuple[logging.Logger, CappedHandler, io.StringIO,
                                              _Clock]:
    out = io.StringIO()
    clock = _Clock()
    handler = CappedHandler(out, rate=rate, burst=burst, clock=clock)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    log = logging.getLogger(f"test.capped.{id(handler)}")
    log.propagate = False
    log.setLevel(logging.DEBUG)
    log.addHandler(handler)
    return log, handler, out, clock


def test_a_flood_of_lines_writes_no_more_than_the_budget_and_counts_the_rest() -> None:
    log, handler, out, clock = _capped(rate=1_000, burst=5_000)
    line = "WARNING " + "x" * 91 + "\n"  # 100 bytes
    for _ in range(10_000):  # 1 MB asked for at one instant
        log.warning("x" * 91)
    assert out.getvalue() == line * 50  # the burst, whole lines only
    assert handler.left_out == (9_950, 9_950 * 100)
    clock.now = 1.0  # one second: 1,000 bytes more (the notice is paid from them)
    log.warning("x" * 91)
    tail = out.getvalue()[len(line) * 50:]
    assert tail == "log rate limit: 9950 lines (995000 bytes) left out\n" + line
    assert handler.left_out == (0, 0)
    for step in range(1, 601):  # ten minutes of a flood, 100 lines a second asked for
        clock.now = 1.0 + step
        for _ in range(100):
            log.warning("x" * 91)
    assert len(out.getvalue()) <= 5_000 + 1_000 * 601  # burst + rate x time, notices included


def test_an_error_is_written_through_a_flood_of_lesser_lines() -> None:
    log, _handler, out, _clock = _capped(rate=100, burst=200)
    for _ in range(100):
        log.info("client sent nonsense")
    log.error("journal: the disk is full")
    assert out.getvalue().splitlines()[-1] == "ERROR journal: the disk is full"
    assert "left out" in out.getvalue()


def test_the_cap_refuses_a_budget_of_nothing() -> None:
    with pytest.raises(ValueError, match="log rate must be > 0"):
        CappedHandler(io.StringIO(), rate=0, burst=10)


def test_configure_caps_the_log(root: logging.Logger) -> None:
    configure("INFO", "text", rate=2_000, burst=4_000)
    assert isinstance(root.handlers[0], CappedHandler)


@pytest.mark.parametrize("value", ["0", "-5", "lots", str(2**41)])
def test_run_refuses_a_bad_log_rate_in_one_line(value: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from table_controller.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["run", "--config", "table.toml", "--log-rate", value])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--log-rate" in err and "Traceback" not in err
