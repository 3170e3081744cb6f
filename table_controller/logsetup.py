"""Log output an operator can follow: plain text, journald priorities, or JSON lines.

``configure(level, fmt)`` sets up the root logger on stderr:

- ``text``: ``2026-12-01 10:00:00,123 WARNING table_controller.daemon: shoe lost: ...``;
- ``journal``: ``<4>table_controller.daemon: shoe lost: ...`` - the ``<N>`` prefix is the syslog
  priority, which journald reads from a service's stderr (``SyslogLevelPrefix=``, on by
  default), so ``journalctl -p warning -u table-controller`` filters by level and the time
  stamp is journald's own;
- ``json``: one JSON object a line (``ts``, ``level``, ``logger``, ``msg``, and ``exc`` with
  the traceback when there is one), for log shippers.

Whatever the format, the log is written through :class:`CappedHandler`: at most ``rate`` bytes
a second on average (``burst`` at once), so no flood of records, whoever causes it, fills the
disk faster than that. Records over the budget are left out and counted; the next line written
says how many lines and bytes were left out. Records at ``ERROR`` and above have a reserve of
their own (:data:`RESERVE_RATE`, :data:`RESERVE_BURST`), so a flood of lesser lines never hides
the line that says why the daemon stopped. ``run --log-rate`` and ``--log-burst`` set the cap.

>>> import logging
>>> rec = logging.LogRecord("table_controller.daemon", logging.WARNING, "", 0, "shoe lost",
...                         None, None)
>>> JournalFormatter().format(rec)
'<4>table_controller.daemon: shoe lost'
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable
from typing import Literal, TextIO

from table_controller.ratelimit import TokenBucket

Format = Literal["text", "journal", "json"]
FORMATS: tuple[Format, ...] = ("text", "journal", "json")

#: syslog priorities (sd-daemon(3)) of the logging levels.
PRIORITY = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3,
            logging.CRITICAL: 2}


class JournalFormatter(logging.Formatter):
    """``<priority>logger: message`` - one line (a traceback's lines are joined)."""

    def format(self, record: logging.LogRecord) -> str:
        """Format one record for journald."""
        prio = PRIORITY.get(record.levelno, 6 if record.levelno < logging.WARNING else 3)
        text = f"{record.name}: {record.getMessage()}"
        if record.exc_info:
            text += " | " + self.formatException(record.exc_info).replace("\n", " | ")
        return f"<{prio}>" + text.replace("\n", " ")


class JsonFormatter(logging.Formatter):
    """One JSON object a line."""

    def format(self, record: logging.LogRecord) -> str:
        """Format one record as JSON."""
        body: dict[str, object] = {"ts": round(record.created, 3), "level": record.levelname,
                                   "logger": record.name, "msg": record.getMessage()}
        if record.exc_info:
            body["exc"] = self.formatException(record.exc_info)
        return json.dumps(body, ensure_ascii=False)


def formatter(fmt: Format) -> logging.Formatter:
    """Return the formatter of ``fmt``."""
    if fmt == "journal":
        return JournalFormatter()
    if fmt == "json":
        return JsonFormatter()
    return logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")


#: Default cap of the log: bytes a second on average, and at once.
LOG_RATE = 16_384
LOG_BURST = 1_048_576
#: The reserve of records at ERROR and above, beside the cap (bytes a second, at once).
RESERVE_RATE = 1_024
RESERVE_BURST = 65_536


class CappedHandler(logging.StreamHandler):  # type: ignore[type-arg]
    r"""A stream handler that writes at most ``rate`` bytes a second (``burst`` at once).

    A record whose line does not fit the budget is left out and counted; the next line that
    fits is preceded by one saying how many lines (and bytes) were left out. Records at
    ``ERROR`` and above that do not fit draw on a reserve of their own. ``clock`` gives
    monotonic seconds (tests pass a stepped one).

    >>> import io
    >>> out = io.StringIO()
    >>> h = CappedHandler(out, rate=10, burst=10, clock=lambda: 0.0)
    >>> log = logging.getLogger("doctest.capped"); log.propagate = False; log.addHandler(h)
    >>> log.warning("123456789"); log.warning("x"); out.getvalue()
    '123456789\n'
    >>> h.left_out
    (1, 2)
    """

    def __init__(self, stream: TextIO, *, rate: float = LOG_RATE, burst: int = LOG_BURST,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError(f"log rate must be > 0 and burst >= 1 byte, got {rate}, {burst}")
        super().__init__(stream)
        self._bucket = TokenBucket(rate, burst)
        self._reserve = TokenBucket(RESERVE_RATE, RESERVE_BURST)
        self._clock = clock
        self._lines = 0
        self._bytes = 0

    @property
    def left_out(self) -> tuple[int, int]:
        """Lines and bytes left out since the last line written."""
        return self._lines, self._bytes

    def emit(self, record: logging.LogRecord) -> None:
        """Write ``record`` if the budget allows, else count it."""
        try:
            line = self.format(record) + self.terminator
        except Exception:  # logging's contract: a record that cannot be formatted is reported
            self.handleError(record)
            return
        notice = ""
        if self._lines:
            notice = (f"log rate limit: {self._lines} lines ({self._bytes} bytes) left out"
                      f"{self.terminator}")
        cost = len(line.encode("utf-8", "replace")) + len(notice)
        now = self._clock()
        if not (self._bucket.allow(now, cost)
                or (record.levelno >= logging.ERROR and self._reserve.allow(now, cost))):
            self._lines += 1
            self._bytes += cost - len(notice)
            return
        self._lines = self._bytes = 0
        try:
            self.stream.write(notice + line)
            self.flush()
        except Exception:  # as logging.StreamHandler.emit does
            self.handleError(record)


def configure(level: str | int, fmt: Format = "text", *, rate: float = LOG_RATE,
              burst: int = LOG_BURST) -> None:
    """Send the root logger's records at ``level`` and above to stderr in ``fmt``.

    At most ``rate`` bytes a second (``burst`` at once) are written (:class:`CappedHandler`).
    """
    handler = CappedHandler(sys.stderr, rate=rate, burst=burst)
    handler.setFormatter(formatter(fmt))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
