"""An RFID chip inventory reader on a serial port: ``rfidchips:///dev/ttyUSB1?baud=115200``.

URL options: ``baud`` (default 115200), ``heartbeat`` (the reader's heartbeat period in
seconds, default 0.5). Unknown options are refused. The reader speaks the reference link, so
reliability, heartbeats and reconnects are those of every reference-protocol device; the
messages are in :mod:`hardware.rfidchips.protocol`.

Registration is left to the registry's owner: :func:`open_from_url` builds the driver from a
URL string and :func:`rfid_chip_reader` is a registry factory (``(DeviceUrl, options) ->
device``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hardware.base import DeviceUrl, parse_device_url, register_scheme
from hardware.link.serial_driver import (
    SerialDevice,
    check_query,
    driver_options,
    float_option,
    int_option,
    require_path,
)
from hardware.rfidchips.protocol import RfidChipsProtocol
from table_controller.errors import ConfigError

SCHEME = "rfidchips"


class RfidChipReader(SerialDevice[RfidChipsProtocol]):
    """A chip inventory reader behind the :class:`~hardware.base.ChipSensor` interface.

    It produces :class:`~hardware.rfidchips.protocol.ZoneInventory` (tag UIDs per zone), which
    a :class:`calibration.chip_registry.ChipRegistry` turns into counts per denomination.
    """

    def request_report(self) -> None:
        """Ask for every zone's inventory."""
        self.send(self.protocol.request_inventory())


def rfid_chip_reader(url: DeviceUrl, options: Mapping[str, Any]) -> RfidChipReader:
    """Registry factory for ``rfidchips://PATH``.

    :raises ConfigError: for a missing path or a bad option.
    """
    if url.scheme != SCHEME:
        raise ConfigError(f"device URL {url.url!r} is not a {SCHEME}:// URL")
    check_query(url, ("baud", "heartbeat"))
    return RfidChipReader(
        url.url,
        require_path(url),
        RfidChipsProtocol(heartbeat_interval=float_option(url, "heartbeat", 0.5, 0.01, 60.0)),
        kind="chips",
        baudrate=int_option(url, "baud", 115200, 50, 4_000_000),
        **driver_options(options),
    )


def open_from_url(url: str, **options: Any) -> RfidChipReader:
    """Build the (unopened) driver for ``rfidchips:///dev/ttyUSB1``; call ``open()`` next.

    >>> reader = open_from_url("rfidchips:///dev/ttyUSB1?heartbeat=0.2")
    >>> reader.path, reader.baudrate, reader.protocol.heartbeat_interval
    ('/dev/ttyUSB1', 115200, 0.2)

    :param options: driver options (``clock``, ``backoff``, ``owned``, ``peer``, ``exclusive``).
    :raises ConfigError: for a bad URL or option.
    """
    return rfid_chip_reader(parse_device_url(url), options)


register_scheme(SCHEME, rfid_chip_reader, kind="chips")
