"""The pyserial driver shared by every serial device: port, reconnect, status.

Rules this module keeps:

1. The driver owns the port and nothing else: bytes go to a sans-IO
   :class:`~hardware.link.protocol.StreamProtocol`, which returns events and the ACK/NAK bytes
   to write back. The driver does not know what a card is.
2. A port error is never raised to the caller once the device is open. ``read()`` and
   ``write()`` raise ``SerialException`` on unplug, ``in_waiting`` a bare ``OSError``, and
   reopening a vanished path ``SerialException`` (errno 2): all become one
   :class:`~hardware.base.DeviceLost`, then reopen attempts with exponential back-off, then one
   :class:`~hardware.base.DeviceRecovered`. A read timeout is not an error.
3. The port is opened with ``exclusive=True`` (``flock``), a zero read timeout (reads never
   block; waiting is done with ``select``), by path: ``/dev/ttyUSB0`` or a stable
   ``/dev/serial/by-id/...`` link, which is what makes a replugged adapter come back.
4. Two ways to run it, sharing the same code: blocking :meth:`SerialDevice.read_events` (a loop
   or a thread), or event-loop style, where :mod:`hardware.link.aio` watches :meth:`fileno`,
   calls :meth:`on_readable`, and calls :meth:`tick` at :meth:`next_deadline` (heartbeat
   supervision, reconnects), never on a fixed period.
5. One read is one ``os.read`` on the non-blocking descriptor (pyserial's ``read`` adds an
   ``ioctl`` and a ``select`` per call: about half the driver's cost on a card, measured), and
   one write one ``os.write`` (pyserial's ``write`` is used only for what the kernel did not
   take at once: it waits, up to the write timeout).
6. Journal first towards the device (``defer_acks=True``): the ACK/NAK bytes the protocol wants
   written after a read are kept until :meth:`release_acks`, which the owner calls once the
   events of that read are safe (journaled). Bytes kept for a port session never reach the
   next one (a reopen or a loss drops them).
7. A delay the host caused is not blamed on the device: before :meth:`SerialDevice.tick` lets
   the protocol judge a silence (a stale or lost link), it reads whatever is already waiting
   on the port. A daemon whose loop was late (a busy machine, a long collection) finds the
   heartbeats that came meanwhile and reports nothing.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import serial

from hardware.base import DeviceEvent, DeviceLost, DeviceRecovered, DeviceStatus, DeviceUrl
from hardware.link.protocol import HostLink, LinkState, StreamProtocol
from table_controller.errors import ConfigError, DeviceError


class Closeable(Protocol):
    """Anything a device owns and closes with itself (a simulator, for instance)."""

    def close(self) -> None:
        """Release the resource."""
        ...


P = TypeVar("P", bound=StreamProtocol)

#: Most bytes one read takes (a frame is tens of bytes; a backlog after a stall a few KiB).
READ_SIZE = 65536
#: Most reads one :meth:`SerialDevice.tick` makes before judging the link's silence.
DRAIN_READS = 16


class SerialDevice(Generic[P]):
    """A serial device speaking ``protocol`` on ``path``.

    :param url: the configured URL (for status and messages).
    :param path: the port path (``/dev/ttyUSB0``, a ``/dev/serial/by-id`` link, a pty link).
    :param protocol: the sans-IO protocol for this device.
    :param kind: ``"shoe"`` or ``"chips"``.
    :param clock: the monotonic clock that stamps events and drives heartbeat supervision and
        back-off (injected in tests); waiting for the port always uses real time.
    :param backoff: first and longest wait between reopen attempts, in seconds.
    :param owned: resources closed after the port, in reverse order (e.g. a simulator).
    :param peer: the simulated device on the other end of the port, if any (``None`` for
        hardware); handed to whoever scripts a simulated table, never used by the driver.
    :param defer_acks: keep what the protocol wants written after a read until
        :meth:`release_acks` (see the module rules).
    :param lost_after: seconds of silence after which the device is reported lost (the
        protocol's own default, from its heartbeat period, if ``None``); a protocol without
        heartbeats ignores it.
    """

    def __init__(
        self,
        url: str,
        path: str,
        protocol: P,
        *,
        kind: str,
        baudrate: int = 115200,
        exclusive: bool = True,
        clock: Callable[[], float] = time.monotonic,
        backoff: tuple[float, float] = (0.05, 2.0),
        owned: Sequence[Closeable] = (),
        peer: object | None = None,
        defer_acks: bool = False,
        lost_after: float | None = None,
    ) -> None:
        self.url = url
        self.path = path
        self.protocol = protocol
        self.kind = kind
        self.baudrate = baudrate
        self.exclusive = exclusive
        self.peer = peer
        self._clock = clock
        self._backoff_min, self._backoff_max = backoff
        self._backoff = self._backoff_min
        self._owned = list(owned)
        self._port: serial.Serial | None = None
        self._fd: int | None = None
        self._lock = threading.RLock()
        self._opened = False
        self._lost_reported = False
        self._next_retry = 0.0
        self._attempts = 0
        self._pending: list[DeviceEvent] = []
        self.defer_acks = defer_acks
        if lost_after is not None and isinstance(protocol, HostLink):
            protocol.lost_after = lost_after
        self._held: list[bytes] = []
        self.generation = 0
        self.reconnects = 0
        self.last_error: str | None = None

    @property
    def speaks_link(self) -> bool:
        """Tell whether the protocol is the reference link (HELLO, ACK/NAK per frame)."""
        return isinstance(self.protocol, HostLink)

    # -- lifecycle -----------------------------------------------------------------------------

    def open(self, *, missing_ok: bool = False) -> None:
        """Open the port.

        :param missing_ok: a port *path* that does not exist (a cable out, an adapter not
            plugged in) is not an error: the device counts as open but lost; the next
            :meth:`tick` reports one :class:`~hardware.base.DeviceLost` and the reopen
            attempts with back-off begin, as for an unplug while running (what a daemon
            restarting after a power cut needs). Busy or forbidden ports still raise.
        :raises DeviceError: if the port cannot be opened (missing, busy, no permission).
        """
        with self._lock:
            if self._opened:
                return
            try:
                self._open_port()
            except (serial.SerialException, OSError) as exc:
                if not (missing_ok and _is_missing(exc)):
                    raise DeviceError(f"cannot open {self.kind} port {self.path!r}: {exc}") from exc
                self._opened = True
                self._pending.extend(self._lost(exc))
                self._next_retry = self._clock()  # first attempt at the first tick
                return
            self._opened = True

    def close(self) -> None:
        """Close the port, then everything the device owns (in reverse order)."""
        with self._lock:
            self._opened = False
            self._pending = []
            self._held.clear()
            self._close_port()
        for resource in reversed(self._owned):
            resource.close()
        self._owned.clear()

    def __enter__(self) -> SerialDevice[P]:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading ---------------------------------------------------------------------------------

    def fileno(self) -> int | None:
        """Return the port's file descriptor, or ``None`` while disconnected."""
        return self._fd

    def read_events(self, timeout: float) -> list[DeviceEvent]:
        """Wait up to ``timeout`` real seconds for events; return as soon as there are some."""
        deadline = time.monotonic() + timeout
        events = self.tick()
        while not events:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._opened:
                break
            fd = self._fd
            if fd is None:
                time.sleep(max(0.0, min(remaining, self._next_retry - self._clock(), 0.05)))
            else:
                try:
                    ready, _, _ = select.select([fd], [], [], min(remaining, 0.05))
                except (OSError, ValueError):
                    ready = [fd]
                if ready:
                    events.extend(self.on_readable())
            events.extend(self.tick())
        return events

    def on_readable(self) -> list[DeviceEvent]:
        """Read whatever is available without blocking and return its events."""
        with self._lock:
            return self._read_once()

    def _read_once(self) -> list[DeviceEvent]:
        fd = self._fd
        if fd is None:
            return []
        try:
            data = os.read(fd, READ_SIZE)
        except (BlockingIOError, InterruptedError):
            return []
        except OSError as exc:
            return self._lost(exc)
        if not data and not _still_readable(fd):
            # a port opened with pyserial's timeout=0 (VMIN=0) reads nothing, rather than
            # EAGAIN, when nothing is waiting: a second read of one readiness (the loop's
            # reader after a drain before a timer) is not a vanished device
            return []
        if not data:
            # a vanished device is always readable and reads nothing (as pyserial says)
            return self._lost(
                serial.SerialException(
                    "device reports readiness to read but returned no data "
                    "(device disconnected or multiple access on port?)"
                )
            )
        events = self.protocol.feed(data, self._clock())
        reply = self.protocol.take_outgoing()
        if reply:
            if self.defer_acks:
                self._held.append(reply)
            else:
                events.extend(self._write(reply))
        return events

    def release_acks(self) -> list[DeviceEvent]:
        """Write the ACK/NAK bytes kept since the last release (``defer_acks``).

        :returns: a :class:`~hardware.base.DeviceLost` if the write failed, else nothing.
        """
        with self._lock:
            if not self._held:
                return []
            data = b"".join(self._held)
            self._held.clear()
            return self._write(data)

    @property
    def acks_held(self) -> int:
        """How many writes are kept for :meth:`release_acks`."""
        return len(self._held)

    def next_deadline(self) -> float | None:
        """Return when :meth:`tick` next has work (on this device's clock; ``None``: never).

        Events already pending (a port missing at open) are due now; while the port is gone,
        the next reopen attempt; while it is open, the link's next heartbeat deadline.
        """
        with self._lock:
            if not self._opened:
                return None
            if self._pending:
                return self._clock()
            if self._port is None:
                return self._next_retry
            return self.protocol.next_deadline()

    def tick(self) -> list[DeviceEvent]:
        """Run timers: heartbeat supervision while connected, reopen attempts while not."""
        with self._lock:
            if not self._opened:
                return []
            events, self._pending = self._pending, []
            now = self._clock()
            if self._port is None:
                return events + (self._retry(now) if now >= self._next_retry else [])
            deadline = self.protocol.next_deadline()
            if deadline is not None and now >= deadline:
                # Silence is judged only after reading what already came: bytes waiting in
                # the kernel's buffer arrived while this process was busy (or not scheduled),
                # a delay the host caused, not the device (module rule 7).
                events += self._drain()
                if self._port is None:
                    return events
                now = self._clock()
            return events + self.protocol.tick(now)

    def _drain(self) -> list[DeviceEvent]:
        """Read until the port has nothing more waiting (a bounded number of reads)."""
        events: list[DeviceEvent] = []
        for _ in range(DRAIN_READS):
            fd = self._fd
            if fd is None:
                break
            try:
                ready, _, _ = select.select([fd], [], [], 0)
            except (OSError, ValueError):
                ready = [fd]
            if not ready:
                break
            events += self._read_once()
        return events

    # -- writing ---------------------------------------------------------------------------------

    def send(self, data: bytes) -> list[DeviceEvent]:
        """Write bytes (a command); a failure is reported as :class:`DeviceLost`, not raised."""
        with self._lock:
            if self._port is None:
                return []
            return self._write(data)

    # -- status ----------------------------------------------------------------------------------

    def status(self) -> DeviceStatus:
        """Return a snapshot of the device's health."""
        p = self.protocol
        if not self._opened:
            link = "closed"
        elif self._port is None:
            link = LinkState.LOST.value
        else:
            link = p.state.value
        return DeviceStatus(
            url=self.url,
            kind=self.kind,
            connected=self._port is not None,
            link=link,
            last_frame_at=p.last_frame_at,
            frames=p.frames,
            bad_frames=p.bad_frames,
            retransmissions=p.retransmissions,
            duplicates=p.duplicates,
            reconnects=self.reconnects,
            last_error=self.last_error,
            lost_frames=p.lost_frames,
        )

    # -- internals -------------------------------------------------------------------------------

    def _open_port(self) -> None:
        port = serial.Serial(
            self.path,
            baudrate=self.baudrate,
            timeout=0,
            write_timeout=1.0,
            exclusive=self.exclusive,
        )
        self._port = port
        self._fd = port.fileno()
        self.generation += 1
        self._held.clear()  # kept for the previous session: never sent on this one
        self.protocol.reset(self._clock())

    def _close_port(self) -> None:
        port, self._port, self._fd = self._port, None, None
        if port is not None:
            with contextlib.suppress(serial.SerialException, OSError):
                port.close()

    def _write(self, data: bytes) -> list[DeviceEvent]:
        port, fd = self._port, self._fd
        if port is None or fd is None:
            return []
        try:
            # one os.write on the non-blocking descriptor (an ACK is a dozen bytes: the
            # kernel takes it whole); pyserial's write adds a select and two clock reads
            written = os.write(fd, data)
        except BlockingIOError:
            written = 0
        except OSError as exc:
            return self._lost(exc)
        if written < len(data):
            try:  # the output buffer is full: pyserial waits, up to its write timeout
                port.write(data[written:])
            except (serial.SerialException, OSError) as exc:
                return self._lost(exc)
        return []

    def _lost(self, exc: BaseException) -> list[DeviceEvent]:
        self._close_port()
        self._held.clear()
        self.protocol.mark_lost()
        self.last_error = f"{type(exc).__name__}: {exc}"
        self._backoff = self._backoff_min
        self._next_retry = self._clock() + self._backoff
        self._attempts = 0
        if self._lost_reported:
            return []
        self._lost_reported = True
        return [DeviceLost(f"{self.kind} port {self.path}: {exc}")]

    def _retry(self, now: float) -> list[DeviceEvent]:
        self._attempts += 1
        try:
            self._open_port()
        except (serial.SerialException, OSError) as exc:
            self.last_error = f"{type(exc).__name__}: {exc}"
            self._backoff = min(self._backoff * 2, self._backoff_max)
            self._next_retry = now + self._backoff
            return []
        self.reconnects += 1
        self._lost_reported = False
        self._backoff = self._backoff_min
        attempts, self._attempts = self._attempts, 0
        reason = f"{self.kind} port {self.path} reopened after {attempts} attempt(s)"
        return [DeviceRecovered(reason)]


def _is_missing(exc: BaseException) -> bool:
    """Tell whether a port open failed because the path does not exist (errno 2)."""
    if isinstance(exc, FileNotFoundError) or getattr(exc, "errno", None) == errno.ENOENT:
        return True
    cause = exc.__cause__ or exc.__context__
    return cause is not None and cause is not exc and _is_missing(cause)


def check_query(url: DeviceUrl, allowed: Iterable[str]) -> Mapping[str, str]:
    """Return the URL's query, refusing keys not in ``allowed`` (``device`` is always allowed).

    :raises ConfigError: naming the first unknown key.
    """
    known = {"device", *allowed}
    for key in url.query:
        if key not in known:
            names = ", ".join(sorted(known))
            raise ConfigError(f"unknown option {key!r} in device URL {url.url!r} (known: {names})")
    return url.query


def int_option(url: DeviceUrl, key: str, default: int, lo: int, hi: int) -> int:
    """Read an integer query option, range-checked.

    :raises ConfigError: naming the key and the bad value.
    """
    text = url.query.get(key)
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        raise ConfigError(f"{key}={text!r} in {url.url!r} is not an integer") from None
    if not lo <= value <= hi:
        raise ConfigError(f"{key}={value} in {url.url!r} is outside {lo}..{hi}")
    return value


def float_option(url: DeviceUrl, key: str, default: float, lo: float, hi: float) -> float:
    """Read a float query option, range-checked.

    :raises ConfigError: naming the key and the bad value.
    """
    text = url.query.get(key)
    if text is None:
        return default
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{key}={text!r} in {url.url!r} is not a number") from None
    if not lo <= value <= hi:
        raise ConfigError(f"{key}={value} in {url.url!r} is outside {lo}..{hi}")
    return value


def require_path(url: DeviceUrl) -> str:
    """Return the URL's device path.

    :raises ConfigError: if it has none.
    """
    if not url.path:
        raise ConfigError(f"device URL {url.url!r} names no port (serial:///dev/ttyUSB0)")
    return url.path


@dataclass(frozen=True)
class ReferenceUrl:
    """What a ``serial://PATH?baud=..&protocol=ref&heartbeat=..`` device URL asks for."""

    path: str
    baudrate: int
    heartbeat: float


def reference_url(url: DeviceUrl) -> ReferenceUrl:
    """Read a reference-protocol serial device URL (``baud``, ``protocol``, ``heartbeat``).

    :raises ConfigError: for a missing path, an unknown option, a protocol other than ``ref``
        or a value out of range, naming it.
    """
    check_query(url, ("baud", "protocol", "heartbeat"))
    proto = url.query.get("protocol", "ref")
    if proto != "ref":
        raise ConfigError(f"protocol={proto!r} in {url.url!r}: only 'ref' is supported here")
    heartbeat = float_option(url, "heartbeat", 0.5, 0.01, 60.0)
    path = require_path(url)
    return ReferenceUrl(path, int_option(url, "baud", 115200, 50, 4_000_000), heartbeat)


def driver_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Pick the keyword options :class:`SerialDevice` accepts from ``open_device`` options.

    :raises ConfigError: naming an option that is not accepted.
    """
    accepted = {"clock", "backoff", "owned", "peer", "exclusive", "defer_acks", "lost_after"}
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise ConfigError(f"unknown driver option(s): {', '.join(unknown)}")
    return dict(options)


def _still_readable(fd: int) -> bool:
    """Tell whether ``fd`` is readable now (a vanished device always is)."""
    try:
        ready, _, _ = select.select([fd], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(ready)
