"""Addresses for ZeroMQ socket monitors, and how to stop one.

pyzmq names a monitor ``inproc://monitor.s-FD`` by default; a file descriptor is reused as soon
as a socket closes, so a new client's monitor can meet the old one's endpoint still bound in the
same context ("Address already in use"). Each monitor here gets an address of its own.

A monitored socket's events are sent by the context's I/O thread, and that send blocks while the
monitor's reading end is gone. Closing the reading end first therefore lets the next event (a
refused client's handshake failing again on its next reconnect) stop the I/O thread, and with it
every other socket of the context, until the context ends. :func:`close_monitored` stops the
monitoring before it closes anything.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from typing import Any

import zmq

_COUNT = itertools.count(1)


def monitor_address() -> str:
    """Return an ``inproc://`` address no other monitor of this process has used.

    >>> monitor_address() != monitor_address()
    True
    """
    return f"inproc://table-controller-monitor.{os.getpid()}.{next(_COUNT)}"


def stop_monitor(sock: zmq.Socket[Any] | None, monitor: zmq.Socket[Any] | None) -> None:
    """Stop monitoring ``sock`` and close the reading end ``monitor`` (``sock`` stays open).

    Monitoring is stopped first, so no event is sent to a reading end that is gone; and a
    monitor nobody reads any more is stopped rather than left to fill.
    """
    if monitor is None:
        return
    if sock is not None and not sock.closed:
        with contextlib.suppress(zmq.ZMQError):  # the context is ending: nothing to stop
            sock.disable_monitor()
    monitor.close(linger=0)


def close_monitored(sock: zmq.Socket[Any] | None, monitor: zmq.Socket[Any] | None) -> None:
    """Close ``sock`` and its ``monitor`` (either may be ``None``) without stalling the context."""
    stop_monitor(sock, monitor)
    if sock is not None:
        sock.close(linger=0)
