"""Running the controller as a system service: systemd notification and the shipped unit files.

- :class:`Notifier` speaks systemd's ``sd_notify`` datagram protocol (``READY=1``,
  ``STATUS=...``, ``WATCHDOG=1``, ``STOPPING=1``) on the socket named by ``NOTIFY_SOCKET``;
  without that variable (not started by systemd) every call does nothing.
- :func:`install` writes the unit file, the sysusers entry, the udev example and the example
  configuration (``table.toml.example``; an existing ``table.toml`` is never touched) below a
  root directory (``/`` on a dealer-table computer, a scratch folder in
  tests); the files ship as package data of this package.

Rules this module keeps:

1. A notification never stops the table: a socket error is logged once and the notifier goes
   quiet (systemd then restarts the service if the watchdog was asked for, as it should).
2. The watchdog interval is half of ``WATCHDOG_USEC`` (systemd's advice), and only for this
   process (``WATCHDOG_PID``, when set, must be ours).
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

log = logging.getLogger(__name__)

#: Files shipped with the package and where :func:`install` puts them (below the root).
SHIPPED = {
    "table-controller.service": "etc/systemd/system/table-controller.service",
    "table-controller.sysusers": "usr/lib/sysusers.d/table-controller.conf",
    "99-table-controller.rules": "etc/udev/rules.d/99-table-controller.rules",
}
#: The production configuration template, written beside the real one (never over it).
EXAMPLE_CONFIG = "table.example.toml"


@dataclass
class Notifier:
    """Send ``sd_notify`` messages to systemd (or nowhere, when not started by it)."""

    address: str | None
    watchdog_usec: int | None = None
    _sock: socket.socket | None = field(default=None, repr=False)
    _failed: bool = field(default=False, repr=False)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Notifier:
        """Build from ``NOTIFY_SOCKET`` / ``WATCHDOG_USEC`` / ``WATCHDOG_PID``."""
        env = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET") or None
        usec: int | None = None
        raw = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        if raw.isdigit() and 0 < len(raw) <= 15 and (not pid or pid == str(os.getpid())):
            usec = int(raw) or None
        return cls(address, usec)

    @property
    def enabled(self) -> bool:
        """Tell whether systemd listens."""
        return self.address is not None and not self._failed

    def watchdog_interval(self) -> float | None:
        """Seconds between ``WATCHDOG=1`` pings (half the watchdog timeout), or ``None``."""
        if self.watchdog_usec is None or not self.enabled:
            return None
        return self.watchdog_usec / 2_000_000

    def notify(self, *lines: str) -> bool:
        """Send one message of ``KEY=value`` lines; return whether it was sent."""
        if not self.enabled:
            return False
        assert self.address is not None
        target = self.address
        if target.startswith("@"):  # an abstract socket
            target = "\0" + target[1:]
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._sock.sendto("\n".join(lines).encode("utf-8"), target)
        except OSError as exc:
            log.warning("systemd notification socket %s: %s (no more notifications)",
                        self.address, exc)
            self._failed = True
            self.close()
            return False
        return True

    def ready(self, status: str) -> bool:
        """Tell systemd the service is up."""
        return self.notify("READY=1", f"STATUS={_one_line(status)}")

    def status(self, status: str) -> bool:
        """Update the one-line status ``systemctl status`` shows."""
        return self.notify(f"STATUS={_one_line(status)}")

    def watchdog(self) -> bool:
        """Ping the watchdog."""
        return self.notify("WATCHDOG=1")

    def stopping(self, status: str = "stopping") -> bool:
        """Tell systemd the service is stopping."""
        return self.notify("STOPPING=1", f"STATUS={_one_line(status)}")

    def close(self) -> None:
        """Close the socket."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def _one_line(text: str) -> str:
    return " ".join(text.split())[:200]


def shipped_text(name: str) -> str:
    """Return a shipped file's text (a key of :data:`SHIPPED`)."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def install(root: Path, executable: str) -> list[Path]:
    """Write the shipped service files below ``root``; return the paths written.

    ``executable`` is the ``table-controller`` command the unit starts (an absolute path).
    Existing files are replaced (an upgrade); the configuration directory is created, but an
    existing ``table.toml`` is never overwritten.

    :raises ValueError: ``executable`` is not an absolute path.
    """
    if not os.path.isabs(executable):
        raise ValueError(f"the command must be an absolute path, got {executable!r}")
    written = []
    for name, rel in SHIPPED.items():
        text = shipped_text(name).replace("@EXEC@", executable)
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    etc = root / "etc/table-controller"
    etc.mkdir(parents=True, exist_ok=True)
    example = etc / "table.toml.example"
    example.write_text(shipped_text(EXAMPLE_CONFIG), encoding="utf-8")
    written.append(example)
    return written
