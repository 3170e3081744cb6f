"""Chip-sensor array over serial with the reference protocol (``serial://PATH?device=chips``).

URL options: ``baud`` (default 115200), ``protocol`` (only ``ref``), ``heartbeat`` (seconds,
default 0.5). Unknown options are refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hardware.base import DeviceUrl, register_scheme
from hardware.chips.protocol import ChipsProtocol
from hardware.link.serial_driver import (
    SerialDevice,
    check_query,
    driver_options,
    float_option,
    int_option,
    require_path,
)
from hardware.shoe.driver import check_protocol


class SerialChipSensor(SerialDevice[ChipsProtocol]):
    """A reference-protocol chip-sensor array (implements :class:`~hardware.base.ChipSensor`)."""

    def request_report(self) -> None:
        """Ask for every zone's report and the tray inventory."""
        self.send(self.protocol.request_report())


def serial_chips(url: DeviceUrl, options: Mapping[str, Any]) -> SerialChipSensor:
    """Registry factory for ``serial://...?device=chips``.

    :raises ConfigError: for a missing path or a bad option.
    """
    check_query(url, ("baud", "protocol", "heartbeat"))
    check_protocol(url)
    heartbeat = float_option(url, "heartbeat", 0.5, 0.01, 60.0)
    return SerialChipSensor(
        url.url,
        require_path(url),
        ChipsProtocol(heartbeat_interval=heartbeat),
        kind="chips",
        baudrate=int_option(url, "baud", 115200, 50, 4_000_000),
        **driver_options(options),
    )


register_scheme("serial", serial_chips, kind="chips")
