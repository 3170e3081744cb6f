r"""A simulated line-printing RFID reader over a pty (``sim://lines?format=reader``).

It writes ``READER|<uid>\r\n`` lines or ID-12 frames, with optional garbage, and can be
unplugged and replugged like the other simulators. There is no link layer to pump: bytes go out
when :meth:`SimLineReader.read_tag` is called.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from hardware.base import DeviceDefaults, DeviceUrl, register_scheme
from hardware.lines.driver import LineReaderShoe
from hardware.lines.protocol import LineReaderProtocol, encode_id12, encode_reader_line
from hardware.link.serial_driver import check_query, driver_options
from hardware.sim.pty import PtyPort


class SimLineReader:
    """A hobby-grade reader printing one tag a line.

    :param fmt: ``"reader"`` or ``"id12"``.
    :param prefix: the ``reader`` format's prefix.
    :param link_path: the stable port path (a temporary one when ``None``).
    """

    def __init__(
        self, fmt: str = "reader", *, prefix: str = "READER|", link_path: str | None = None
    ) -> None:
        LineReaderProtocol(fmt, prefix=prefix)  # validates the format
        self.fmt = fmt
        self.prefix = prefix
        self.port = PtyPort(link_path)
        self._lock = threading.Lock()
        self.read: list[str] = []

    @property
    def path(self) -> str:
        """The stable port path."""
        return self.port.link_path

    def read_tag(self, uid: str, repeats: int = 1) -> None:
        """Print ``uid`` (``repeats`` times, as a card resting on the antenna does)."""
        line = encode_id12(uid) if self.fmt == "id12" else encode_reader_line(uid, self.prefix)
        with self._lock:
            self.read.append(uid.upper())
            self.port.write(line * repeats)

    def send_garbage(self, data: bytes = b"\xfe\xff noise\r\n") -> None:
        """Write bytes that are not a tag line."""
        with self._lock:
            self.port.write(data)

    def unplug(self) -> None:
        """Pull the cable."""
        with self._lock:
            self.port.unplug()

    def replug(self) -> None:
        """Plug it back in (new pty, same path)."""
        with self._lock:
            self.port.plug()

    def close(self) -> None:
        """Remove the port."""
        with self._lock:
            self.port.close()


def open_sim_lines(url: DeviceUrl, options: Mapping[str, Any]) -> LineReaderShoe:
    """Registry factory for ``sim://lines``: a :class:`SimLineReader` behind the real driver.

    :raises ConfigError: for a bad option.
    """
    query = check_query(url, ("format", "prefix", "link"))
    opts = dict(options)
    given = opts.pop("sim", None)
    fmt, prefix = query.get("format", "reader"), query.get("prefix", "READER|")
    if isinstance(given, SimLineReader):
        sim, owned = given, []
    else:
        sim = SimLineReader(fmt, prefix=prefix, link_path=query.get("link"))
        owned = [sim]
    return LineReaderShoe(
        url.url,
        sim.path,
        LineReaderProtocol(sim.fmt, prefix=sim.prefix),
        kind="shoe",
        owned=owned,
        peer=sim,
        **driver_options(opts),
    )


def lines_defaults(url: DeviceUrl) -> DeviceDefaults:
    """Offer the simulated deck profile (seed 1) before ``sim://lines`` is opened."""
    from hardware.sim.shoe import sim_deck_profile

    return DeviceDefaults(deck_profile=sim_deck_profile(1))


register_scheme("sim://lines", open_sim_lines, kind="shoe", defaults=lines_defaults)
