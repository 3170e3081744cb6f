"""Card shoe over serial with the reference protocol (``serial://PATH?device=shoe``).

URL options: ``baud`` (default 115200), ``protocol`` (only ``ref``), ``heartbeat`` (the shoe's
heartbeat period in seconds, default 0.5). Unknown options are refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hardware.base import DeviceUrl, register_scheme
from hardware.link.serial_driver import SerialDevice, driver_options, reference_url
from hardware.shoe.protocol import ShoeProtocol


class SerialShoe(SerialDevice[ShoeProtocol]):
    """A reference-protocol card shoe on a serial port (a :class:`~hardware.base.CardShoe`)."""

    def request_status(self) -> None:
        """Ask the shoe for its status (answered with a ``ShoeStatus`` event)."""
        self.send(self.protocol.request_status())

    def request_scan(self) -> None:
        """Ask the shoe to scan the loaded deck (answered with a ``DeckScan`` event)."""
        self.send(self.protocol.request_scan())


def serial_shoe(url: DeviceUrl, options: Mapping[str, Any]) -> SerialShoe:
    """Registry factory for ``serial://...?device=shoe``.

    :raises ConfigError: for a missing path or a bad option.
    """
    ref = reference_url(url)
    return SerialShoe(
        url.url,
        ref.path,
        ShoeProtocol(heartbeat_interval=ref.heartbeat),
        kind="shoe",
        baudrate=ref.baudrate,
        **driver_options(options),
    )


register_scheme("serial", serial_shoe, kind="shoe")
