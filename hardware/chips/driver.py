"""Chip-sensor array over serial with the reference protocol (``serial://PATH?device=chips``).

URL options: ``baud`` (default 115200), ``protocol`` (only ``ref``), ``heartbeat`` (seconds,
default 0.5). Unknown options are refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hardware.base import DeviceUrl, register_scheme
from hardware.chips.protocol import ChipsProtocol
from hardware.link.serial_driver import SerialDevice, driver_options, reference_url


class SerialChipSensor(SerialDevice[ChipsProtocol]):
    """A reference-protocol chip-sensor array (implements :class:`~hardware.base.ChipSensor`)."""

    def request_report(self) -> None:
        """Ask for every zone's report and the tray inventory."""
        self.send(self.protocol.request_report())


def serial_chips(url: DeviceUrl, options: Mapping[str, Any]) -> SerialChipSensor:
    """Registry factory for ``serial://...?device=chips``.

    :raises ConfigError: for a missing path or a bad option.
    """
    ref = reference_url(url)
    return SerialChipSensor(
        url.url,
        ref.path,
        ChipsProtocol(heartbeat_interval=ref.heartbeat),
        kind="chips",
        baudrate=ref.baudrate,
        **driver_options(options),
    )


register_scheme("serial", serial_chips, kind="chips")
