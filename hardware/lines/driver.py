"""Line-printing RFID readers as a card shoe (``lines://PATH?baud=9600&format=reader``).

URL options: ``baud`` (default 9600), ``format`` (``reader`` or ``id12``), ``prefix`` (for
``reader``, default ``READER|``; URL-encode ``|`` as ``%7C`` if your tooling needs it).
These readers have no status and no deck scan: :meth:`LineReaderShoe.request_status` and
:meth:`LineReaderShoe.request_scan` send nothing, and no ``ShoeStatus``/``DeckScan`` ever comes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hardware.base import DeviceUrl, register_scheme
from hardware.lines.protocol import LineReaderProtocol
from hardware.link.serial_driver import (
    SerialDevice,
    check_query,
    driver_options,
    int_option,
    require_path,
)


class LineReaderShoe(SerialDevice[LineReaderProtocol]):
    """An off-the-shelf reader behind the :class:`~hardware.base.CardShoe` interface."""

    def request_status(self) -> None:
        """Do nothing: these readers report no status."""

    def request_scan(self) -> None:
        """Do nothing: these readers cannot scan a deck."""


def lines_shoe(url: DeviceUrl, options: Mapping[str, Any]) -> LineReaderShoe:
    """Registry factory for ``lines://...``.

    :raises ConfigError: for a missing path, an unknown format or a bad option.
    """
    query = check_query(url, ("baud", "format", "prefix"))
    protocol = LineReaderProtocol(
        query.get("format", "reader"), prefix=query.get("prefix", "READER|")
    )
    return LineReaderShoe(
        url.url,
        require_path(url),
        protocol,
        kind="shoe",
        baudrate=int_option(url, "baud", 9600, 50, 4_000_000),
        **driver_options(options),
    )


register_scheme("lines", lines_shoe, kind="shoe")
