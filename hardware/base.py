"""Device interfaces, typed device events and the URL registry that picks a driver.

Rules this module keeps:

1. One interface per device kind (:class:`CardShoe`, :class:`ChipSensor`, :class:`BoardCamera`);
   real and simulated drivers are siblings behind it, chosen by URL through :func:`open_device`,
   never by ``if simulated:`` branches.
2. Every event a device can produce is a frozen dataclass deriving from :class:`DeviceEvent`,
   faults included (:class:`BadFrame`, :class:`DeviceLost`, ...): a driver reports, it never raises
   on bad input.
3. The registry maps a scheme (``serial``, ``lines``, ``camera``) or a simulator address
   (``sim://shoe``) plus a device kind to a factory. Modules register their own factories with
   :func:`register_scheme`; the registry imports the module that owns a scheme lazily, the first
   time a URL with that scheme is opened (see :data:`LAZY_MODULES`, named by module path as
   python-can's ``BACKENDS``): a simulator is a backend like any other, and nothing above this
   module imports one or branches on its URL.
4. What a device can tell before it is opened goes through the same registry:
   :func:`device_defaults` returns the :class:`DeviceDefaults` a backend registered for a URL
   (a simulated shoe knows its tags, so it offers a deck profile; a board file needs no camera
   profile). A real device offers none, and the configuration must supply the calibration.

>>> parse_device_url("serial:///dev/ttyUSB0?baud=115200").path
'/dev/ttyUSB0'
>>> parse_device_url("sim://shoe?seed=3").key
'sim://shoe'
>>> parse_device_url("serial:///dev/ttyUSB0?baud=115200").query["baud"]
'115200'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable
from urllib.parse import parse_qsl, unquote, urlsplit

from hardware.events import (  # re-exported: the interfaces' events
    BadFrame,
    CardDrawn,
    CardIdentified,
    DeckScan,
    DeviceEvent,
    DeviceHello,
    DeviceLost,
    DeviceRecovered,
    DuplicateCard,
    DuplicateFrame,
    FramesLost,
    LinkStale,
    RepeatedRead,
    Retransmission,
    SensorError,
    SensorStatus,
    SequenceGap,
    ShoeStatus,
    TrayInventory,
    UnknownTag,
    ZoneReport,
)
from table_controller.engine.cards import Card
from table_controller.errors import ConfigError

__all__ = [
    "BadFrame",
    "CardDrawn",
    "CardIdentified",
    "DeckScan",
    "DeviceEvent",
    "DeviceHello",
    "DeviceLost",
    "DeviceRecovered",
    "DuplicateCard",
    "DuplicateFrame",
    "FramesLost",
    "LinkStale",
    "RepeatedRead",
    "Retransmission",
    "SensorError",
    "SensorStatus",
    "SequenceGap",
    "ShoeStatus",
    "TrayInventory",
    "UnknownTag",
    "ZoneReport",
]

@dataclass(frozen=True, slots=True)
class DeviceStatus:
    """A snapshot of one device's health.

    :param link: ``"closed"``, ``"waiting"`` (open, nothing heard yet), ``"ok"``, ``"stale"``
        (heartbeats missed) or ``"lost"``.
    """

    url: str
    kind: str
    connected: bool
    link: str
    last_frame_at: float | None
    frames: int
    bad_frames: int
    retransmissions: int
    duplicates: int
    reconnects: int
    last_error: str | None = None
    lost_frames: int = 0


# --------------------------------------------------------------------------------------------
# Device interfaces
# --------------------------------------------------------------------------------------------


@runtime_checkable
class PolledDevice(Protocol):
    """What every serial-style device offers, blocking and event-loop friendly.

    Blocking use: call :meth:`read_events` in a loop (or from a thread). Event-loop use (see
    :mod:`hardware.link.aio`): watch :meth:`fileno` for readability and call :meth:`on_readable`,
    and call :meth:`tick` at :meth:`next_deadline` for heartbeat checks and reconnects.
    """

    url: str
    #: Counts port (re)openings: a new value means a new descriptor to watch.
    generation: int
    #: Keep the acknowledgements a read wants written until :meth:`release_acks`.
    defer_acks: bool

    @property
    def speaks_link(self) -> bool:
        """Tell whether the device speaks the reference link (HELLO on connect, ACK/NAK).

        Only such a device is asked for its HELLO, waited for before a daemon says ready, and
        has its acknowledgements deferred; a polled reader (a PN532) has none of these.
        """
        ...

    def open(self) -> None:
        """Open the port; raises :class:`table_controller.errors.DeviceError` if it cannot."""
        ...

    def close(self) -> None:
        """Close the port and anything the device owns."""
        ...

    def read_events(self, timeout: float) -> list[DeviceEvent]:
        """Wait up to ``timeout`` seconds; return the events available (maybe none)."""
        ...

    def fileno(self) -> int | None:
        """Return the port's file descriptor, or ``None`` while disconnected."""
        ...

    def on_readable(self) -> list[DeviceEvent]:
        """Read what is available without blocking and return its events."""
        ...

    def tick(self) -> list[DeviceEvent]:
        """Run timers: heartbeat supervision and reconnect attempts."""
        ...

    def next_deadline(self) -> float | None:
        """Return when :meth:`tick` next has work, on the device's clock (``None``: never)."""
        ...

    def send(self, data: bytes) -> list[DeviceEvent]:
        """Write bytes; a failure is reported as an event, never raised."""
        ...

    def release_acks(self) -> list[DeviceEvent]:
        """Write the acknowledgements kept since the last release (``defer_acks=True``)."""
        ...

    def status(self) -> DeviceStatus:
        """Return a snapshot of the device's health."""
        ...


@runtime_checkable
class CardShoe(PolledDevice, Protocol):
    """An RFID card shoe: produces :class:`CardDrawn`, :class:`ShoeStatus`, :class:`DeckScan`."""

    def request_status(self) -> None:
        """Ask the shoe to send its :class:`ShoeStatus`."""
        ...

    def request_scan(self) -> None:
        """Ask the shoe to scan the loaded deck (answered with :class:`DeckScan`)."""
        ...


@runtime_checkable
class ChipSensor(PolledDevice, Protocol):
    """A chip-sensor array: produces :class:`ZoneReport`, :class:`TrayInventory`, status, errors."""

    def request_report(self) -> None:
        """Ask for a :class:`ZoneReport` of every zone and the :class:`TrayInventory`."""
        ...


@runtime_checkable
class BoardSource(Protocol):
    """A board source: what the camera's stabilised reading shows (``kind="board"``).

    ``poll(now)`` returns a board event (an object with ``slots`` and ``occluded``) whenever the
    stable board changes, and may take tens of milliseconds (recognition): call it off the loop.
    """

    url: str

    def open(self) -> None:
        """Open the source."""
        ...

    def close(self) -> None:
        """Release the source."""
        ...

    def poll(self, now: float) -> list[DeviceEvent]:
        """Read what is due at ``now``; return what changed."""
        ...

    def status(self) -> DeviceStatus:
        """Return a snapshot of the source's health."""
        ...


@runtime_checkable
class QuickPoll(Protocol):
    """A board source whose :meth:`BoardSource.poll` is quick enough for the event loop.

    A board file read by a ``stat`` (and, when it changed, a small JSON read) takes
    microseconds: handing it to a worker thread every poll costs the loop more (a thread
    wake-up, a future, a wake-up of the loop) than the poll itself. A source that recognises
    camera frames is not quick and does not say so.
    """

    quick_poll: bool


@runtime_checkable
class Paced(Protocol):
    """A board source that reads a frame only when one is due, and says when the next is.

    The daemon's camera loop sleeps until then (at most its own poll interval) rather than a
    fixed interval after each poll: a poll that took a while (a frame recognised) does not
    push the next frame later, so a source paced at 10 frames a second is read 10 times a
    second, not once per interval plus the poll's own time.
    """

    def next_poll_at(self) -> float:
        """Return the time (on the clock passed to ``poll``) the next frame is due."""


@runtime_checkable
class LookTimed(Protocol):
    """A camera or board source that knows when its frames' producer last looked at the board.

    A camera pipeline may be slow on its own (a renderer, an encoder, a camera's buffer): a
    frame read now may show the board as it was a while ago. A source that knows it says so,
    and the daemon counts the camera's time from when the board was looked at, not from when
    the frame was read (a delay of the camera's producer is not taken for a missing card, and
    a camera that looks in time but does not see the card still gives ``board_missing``).
    """

    def looked_at(self) -> float | None:
        """Return the ``time.monotonic()`` of the latest frame producer's last look, or ``None``.

        ``None``: not known (the reader's own poll time counts).
        """
        ...


class CameraProfile(Protocol):
    """What a board source needs of a camera profile (``calibration.camera.CameraProfile``)."""

    @property
    def design(self) -> str:
        """The registered deck design's name (for the deck check's alert)."""
        ...

    def recognizer(self) -> Any:
        """Build the calibrated board recognizer."""
        ...


@runtime_checkable
class BoardCamera(Protocol):
    """The board camera (implemented in :mod:`hardware.camera`, which may refine this shape)."""

    url: str

    def open(self) -> None:
        """Open the camera."""
        ...

    def close(self) -> None:
        """Release the camera."""
        ...

    def read_frame(self, now: float) -> Any | None:
        """Grab a frame (an image array), or ``None`` when none is available."""
        ...

    def status(self) -> DeviceStatus:
        """Return a snapshot of the camera's health."""
        ...


# --------------------------------------------------------------------------------------------
# URL registry
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DeviceUrl:
    """A parsed device URL.

    :param key: registry key: ``"<scheme>"`` (``serial``, ``lines``, ``camera``) or, for a
        backend registered for an address (the simulators), ``"<scheme>://<name>"``.
    :param path: the device path (``/dev/ttyUSB0``) or, for ``camera://0``, ``"0"``.
    """

    url: str
    scheme: str
    key: str
    path: str
    query: Mapping[str, str] = field(default_factory=dict)


DeviceFactory = Callable[[DeviceUrl, Mapping[str, Any]], Any]


@dataclass(frozen=True, slots=True)
class DeviceDefaults:
    """What a backend can tell about a URL before any device is opened.

    :param deck_profile: tag UID -> card, for a shoe that knows its tags (a simulator); used
        when the configuration names no deck store.
    :param self_calibrated: a board source that reads the board without a camera profile.
    """

    deck_profile: Mapping[str, Card] | None = None
    self_calibrated: bool = False


DefaultsFactory = Callable[[DeviceUrl], DeviceDefaults]

_FACTORIES: dict[tuple[str, str], DeviceFactory] = {}
_DEFAULTS: dict[tuple[str, str], DefaultsFactory] = {}

#: Modules imported on first use of a registry key; importing them registers their factories.
LAZY_MODULES: dict[str, tuple[str, ...]] = {
    "serial": ("hardware.shoe.driver", "hardware.chips.driver"),
    "lines": ("hardware.lines.driver",),
    "sim://shoe": ("hardware.sim.shoe",),
    "sim://chips": ("hardware.sim.chips",),
    "sim://lines": ("hardware.sim.lines",),
    "camera": ("hardware.camera",),
    "sim://camera": ("hardware.sim.camera_link",),
    "pn532": ("hardware.pn532.driver",),
    "rfidchips": ("hardware.rfidchips.driver",),
    "sim://pn532": ("hardware.sim.pn532",),
    "sim://rfidchips": ("hardware.sim.rfidchips",),
}


def parse_device_url(url: str) -> DeviceUrl:
    """Split a device URL into scheme, registry key, path and query.

    :raises ConfigError: if the URL has no scheme or repeats a query key.
    """
    parts = urlsplit(url)
    if not parts.scheme:
        raise ConfigError(f"device URL {url!r} has no scheme (expected e.g. serial:///dev/ttyUSB0)")
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    query: dict[str, str] = {}
    for k, v in pairs:
        if k in query:
            raise ConfigError(f"device URL {url!r} repeats the query key {k!r}")
        query[k] = v
    scheme = parts.scheme.lower()
    addressed = f"{scheme}://{parts.netloc.lower()}"
    if addressed in LAZY_MODULES or any(k == addressed for k, _ in _FACTORIES):
        # a backend registered for this address (``sim://shoe``): the rest is its path
        key, path = addressed, unquote(parts.path)
    else:
        key, path = scheme, unquote(parts.netloc + parts.path)
    return DeviceUrl(url=url, scheme=scheme, key=key, path=path, query=query)


def register_scheme(key: str, factory: DeviceFactory, *, kind: str, replace: bool = False,
                    defaults: DefaultsFactory | None = None) -> None:
    """Register ``factory`` for URLs with registry ``key`` producing a device of ``kind``.

    ``key`` is a scheme (``"camera"``) or a simulator address (``"sim://camera"``). The factory
    gets the parsed :class:`DeviceUrl` and the keyword options given to :func:`open_device`, and
    returns an unopened device. ``defaults`` tells what the backend offers for a URL before a
    device is built (:func:`device_defaults`).

    :raises ConfigError: if the pair is already registered and ``replace`` is false.
    """
    pair = (key.lower(), kind)
    if pair in _FACTORIES and not replace and _FACTORIES[pair] is not factory:
        raise ConfigError(f"a {kind} driver is already registered for {key!r}")
    _FACTORIES[pair] = factory
    if defaults is not None:
        _DEFAULTS[pair] = defaults


def device_defaults(url: str, kind: str) -> DeviceDefaults:
    """Return what the backend of ``url`` offers for a device of ``kind`` before it is opened.

    A backend that registered no defaults (any real device) offers nothing.

    >>> device_defaults("serial:///dev/ttyUSB0", "shoe")
    DeviceDefaults(deck_profile=None, self_calibrated=False)

    :raises ConfigError: for a URL that does not parse, or a bad option the backend checks.
    """
    parsed = parse_device_url(url)
    _load_lazy(parsed.key)
    factory = _DEFAULTS.get((parsed.key, kind))
    return DeviceDefaults() if factory is None else factory(parsed)


def _load_lazy(key: str) -> None:
    for module in LAZY_MODULES.get(key, ()):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name is not None and module.startswith(exc.name):
                continue
            raise


def open_device(url: str, *, kind: str | None = None, **options: Any) -> Any:
    """Build the (unopened) device for ``url``; call its ``open()`` next.

    The kind comes from ``kind``, else the URL's ``device=`` query key, else the only kind
    registered for the scheme. ``serial://`` serves both shoes and chip sensors, so it needs one.

    >>> open_device("nosuch://x")
    Traceback (most recent call last):
    ...
    table_controller.errors.ConfigError: no driver for device URL 'nosuch://x' (scheme 'nosuch')

    :raises ConfigError: for an unknown scheme, a missing or unknown kind, or bad options.
    """
    parsed = parse_device_url(url)
    _load_lazy(parsed.key)
    kinds = sorted(k for (key, k) in _FACTORIES if key == parsed.key)
    if not kinds:
        raise ConfigError(f"no driver for device URL {url!r} (scheme {parsed.key!r})")
    wanted = kind or parsed.query.get("device")
    if wanted is None:
        if len(kinds) > 1:
            raise ConfigError(
                f"device URL {url!r} serves several kinds ({', '.join(kinds)}); "
                f"say which with device=<kind>"
            )
        wanted = kinds[0]
    factory = _FACTORIES.get((parsed.key, wanted))
    if factory is None:
        raise ConfigError(
            f"device URL {url!r} has no {wanted!r} driver (available: {', '.join(kinds)})"
        )
    return factory(parsed, options)


def open_shoe(url: str, **options: Any) -> CardShoe:
    """:func:`open_device` for a card shoe.

    :raises ConfigError: as :func:`open_device`.
    """
    device: CardShoe = open_device(url, kind="shoe", **options)
    return device


def open_chip_sensor(url: str, **options: Any) -> ChipSensor:
    """:func:`open_device` for a chip-sensor array.

    :raises ConfigError: as :func:`open_device`.
    """
    device: ChipSensor = open_device(url, kind="chips", **options)
    return device


def open_board_source(url: str, **options: Any) -> BoardSource:
    """:func:`open_device` for a board source (``profile=`` a :class:`CameraProfile`).

    :raises ConfigError: as :func:`open_device`, or if the URL's backend needs a profile.
    """
    device: BoardSource = open_device(url, kind="board", **options)
    return device


def open_camera(url: str, **options: Any) -> BoardCamera:
    """:func:`open_device` for a board camera.

    :raises ConfigError: as :func:`open_device`.
    """
    device: BoardCamera = open_device(url, kind="camera", **options)
    return device
