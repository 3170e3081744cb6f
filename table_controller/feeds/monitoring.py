"""Addresses for ZeroMQ socket monitors.

pyzmq names a monitor ``inproc://monitor.s-FD`` by default; a file descriptor is reused as soon
as a socket closes, so a new client's monitor can meet the old one's endpoint still bound in the
same context ("Address already in use"). Each monitor here gets an address of its own.
"""

from __future__ import annotations

import itertools
import os

_COUNT = itertools.count(1)


def monitor_address() -> str:
    """Return an ``inproc://`` address no other monitor of this process has used.

    >>> monitor_address() != monitor_address()
    True
    """
    return f"inproc://table-controller-monitor.{os.getpid()}.{next(_COUNT)}"
