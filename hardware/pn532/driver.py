"""A PN532 reader on a serial port (HSU) as a card shoe: ``pn532:///dev/ttyUSB0?baud=115200``.

URL options (unknown ones are refused, every value range-checked):

==================  =======================================================================
``baud``            the HSU speed, default 115200 (the PN532's power-on default)
``poll``            seconds between polls, default 0.05
``ack_timeout``     seconds to wait for the ACK frame, default 0.1
``timeout``         seconds to wait for a response after the ACK, default 1.0
``absent``          polls without a target before a card counts as removed, default 1
``retries``         MxRtyPassiveActivation (activation attempts per poll), default 1
``stamp``           ``1``: ``CardDrawn.shoe_ms`` is the host's clock in ms; default ``0`` (None)
==================  =======================================================================

The PN532 speaks only when asked, so this driver writes from :meth:`Pn532Shoe.tick` too: the
poller's next command (or resend) goes out on the tick that makes it due. A PN532 has no status
and cannot scan a deck: :meth:`Pn532Shoe.request_status` and :meth:`Pn532Shoe.request_scan` do
nothing. Port loss and reopening (back-off, one ``DeviceLost`` / ``DeviceRecovered``) are the
shared :class:`~hardware.link.serial_driver.SerialDevice`'s.

Registration is left to the registry's owner: :func:`open_from_url` builds the driver from a
URL string and :func:`pn532_shoe` is a registry factory (``(DeviceUrl, options) -> device``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hardware.base import DeviceEvent, DeviceUrl, parse_device_url, register_scheme
from hardware.link.serial_driver import (
    SerialDevice,
    check_query,
    driver_options,
    float_option,
    int_option,
    require_path,
)
from hardware.pn532.protocol import Pn532Poller
from table_controller.errors import ConfigError

SCHEME = "pn532"
OPTIONS = ("baud", "poll", "ack_timeout", "timeout", "absent", "retries", "stamp")


class Pn532Shoe(SerialDevice[Pn532Poller]):
    """A PN532 reader behind the :class:`~hardware.base.CardShoe` interface."""

    def tick(self) -> list[DeviceEvent]:
        """Run timers (the shared ones and the poller's) and write what the poller has to send."""
        events = super().tick()
        out = self.protocol.take_outgoing()
        if out:
            events.extend(self.send(out))
        return events

    def request_status(self) -> None:
        """Do nothing: a PN532 reports no shoe status."""

    def request_scan(self) -> None:
        """Do nothing: a PN532 cannot scan a deck."""


def poller_from_url(url: DeviceUrl, extra: tuple[str, ...] = ()) -> Pn532Poller:
    """Build the poller the URL's options describe (``extra``: other keys the caller reads).

    :raises ConfigError: for an unknown option or a value out of range.
    """
    check_query(url, (*OPTIONS, *extra))
    stamp = url.query.get("stamp", "0")
    if stamp not in ("0", "1"):
        raise ConfigError(f"stamp={stamp!r} in {url.url!r} must be 0 or 1")
    return Pn532Poller(
        poll_interval=float_option(url, "poll", 0.05, 0.001, 10.0),
        ack_timeout=float_option(url, "ack_timeout", 0.1, 0.001, 10.0),
        response_timeout=float_option(url, "timeout", 1.0, 0.01, 60.0),
        absent_polls=int_option(url, "absent", 1, 1, 100),
        passive_retries=int_option(url, "retries", 1, 0, 254),
        stamp_ms=stamp == "1",
    )


def pn532_shoe(url: DeviceUrl, options: Mapping[str, Any]) -> Pn532Shoe:
    """Registry factory for ``pn532://PATH``.

    :raises ConfigError: for a missing path, an unknown option or a value out of range.
    """
    if url.scheme != SCHEME:
        raise ConfigError(f"device URL {url.url!r} is not a {SCHEME}:// URL")
    return Pn532Shoe(
        url.url,
        require_path(url),
        poller_from_url(url),
        kind="shoe",
        baudrate=int_option(url, "baud", 115200, 9600, 1_288_000),
        **driver_options(options),
    )


def open_from_url(url: str, **options: Any) -> Pn532Shoe:
    """Build the (unopened) driver for ``pn532:///dev/ttyUSB0?baud=115200``; call ``open()``.

    >>> shoe = open_from_url("pn532:///dev/ttyUSB0?baud=115200&absent=2")
    >>> shoe.path, shoe.baudrate, shoe.protocol.absent_polls
    ('/dev/ttyUSB0', 115200, 2)
    >>> open_from_url("pn532:///dev/ttyUSB0?speed=9600")
    Traceback (most recent call last):
    ...
    table_controller.errors.ConfigError: unknown option 'speed' in device URL ...

    :param options: driver options (``clock``, ``backoff``, ``owned``, ``peer``, ``exclusive``).
    :raises ConfigError: for a bad URL or option.
    """
    return pn532_shoe(parse_device_url(url), options)


register_scheme(SCHEME, pn532_shoe, kind="shoe")
