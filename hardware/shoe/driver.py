"""Card shoe over serial with the reference protocol (``serial://PATH?device=shoe``).

URL options: ``baud`` (default 115200), ``protocol`` (only ``ref``), ``heartbeat`` (the shoe's
heartbeat period in seconds, default 0.5). Unknown options are refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hardware.base import DeviceUrl, register_scheme
from hardware.link.serial_driver import (
    SerialDevice,
    check_query,
    driver_options,
    float_option,
    int_option,
    require_path,
)
from hardware.shoe.protocol import ShoeProtocol
from table_controller.errors import ConfigError


class SerialShoe(SerialDevice[ShoeProtocol]):
    """A reference-protocol card shoe on a serial port (a :class:`~hardware.base.CardShoe`)."""

    def request_status(self) -> None:
        """Ask the shoe for its status (answered with a ``ShoeStatus`` event)."""
        self.send(self.protocol.request_status())

    def request_scan(self) -> None:
        """Ask the shoe to scan the loaded deck (answered with a ``DeckScan`` event)."""
        self.send(self.protocol.request_scan())


def check_protocol(url: DeviceUrl) -> None:
    """Refuse a ``protocol=`` other than ``ref``.

    :raises ConfigError: naming the value.
    """
    proto = url.query.get("protocol", "ref")
    if proto != "ref":
        raise ConfigError(f"protocol={proto!r} in {url.url!r}: only 'ref' is supported here")


def serial_shoe(url: DeviceUrl, options: Mapping[str, Any]) -> SerialShoe:
    """Registry factory for ``serial://...?device=shoe``.

    :raises ConfigError: for a missing path or a bad option.
    """
    check_query(url, ("baud", "protocol", "heartbeat"))
    check_protocol(url)
    heartbeat = float_option(url, "heartbeat", 0.5, 0.01, 60.0)
    return SerialShoe(
        url.url,
        require_path(url),
        ShoeProtocol(heartbeat_interval=heartbeat),
        kind="shoe",
        baudrate=int_option(url, "baud", 115200, 50, 4_000_000),
        **driver_options(options),
    )


register_scheme("serial", serial_shoe, kind="shoe")
