"""Log output an operator can follow: plain text, journald priorities, or JSON lines.

``configure(level, fmt)`` sets up the root logger on stderr:

- ``text``: ``2026-12-01 10:00:00,123 WARNING table_controller.daemon: shoe lost: ...``;
- ``journal``: ``<4>table_controller.daemon: shoe lost: ...`` - the ``<N>`` prefix is the syslog
  priority, which journald reads from a service's stderr (``SyslogLevelPrefix=``, on by
  default), so ``journalctl -p warning -u table-controller`` filters by level and the time
  stamp is journald's own;
- ``json``: one JSON object a line (``ts``, ``level``, ``logger``, ``msg``, and ``exc`` with
  the traceback when there is one), for log shippers.

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
from typing import Literal

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


def configure(level: str | int, fmt: Format = "text") -> None:
    """Send the root logger's records at ``level`` and above to stderr in ``fmt``."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(fmt))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
