"""The daemon's devices: opened by URL through the registry, their events turned into inputs.

Rules this module keeps:

1. Devices are opened only through the registry (:func:`hardware.base.open_shoe`,
   :func:`~hardware.base.open_chip_sensor`, :func:`~hardware.base.open_board_source`); no URL is
   inspected here and no simulator imported.
2. :data:`EVENT_INPUTS` maps each device event type the core hears about to its input; link
   chatter maps to nothing, link faults (:data:`LINK_FAULTS`) are journaled by the owner.
3. Journal first towards the devices: a serial device that speaks the reference link
   (:attr:`~hardware.base.PolledDevice.speaks_link`) defers its ACKs, which are released
   (:meth:`DeviceSet.release_acks`) once the events of the read that caused them were handled
   and journaled, never before. Only such a device is asked for its HELLO and waited for
   before ready; a polled reader (a PN532 shoe) writes its commands at once and is never
   waited for.
4. No timer here: each device's own deadlines drive its ticks (:mod:`hardware.link.aio`); the
   board source is polled at its own pace, in a worker thread (on the loop for a quick one,
   :class:`~hardware.base.QuickPoll`).
5. A delay the daemon caused is not blamed on a device: :meth:`DeviceSet.drain` reads what the
   serial devices already sent before a timer judges them, and :class:`CameraClock` counts the
   camera's time in polls of normal length, so a camera window lasts longer when recognition
   is slowed down by a busy machine (the lag is measured, not taken for a missing card); a
   source that knows when its frames' producer looked at the board
   (:class:`hardware.base.LookTimed`) has the producer's own delay counted as lag too.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from hardware.base import (
    BadFrame,
    BoardSource,
    CameraProfile,
    CardDrawn,
    ChipSensor,
    DeviceEvent,
    DeviceHello,
    DeviceLost,
    DeviceRecovered,
    DeviceStatus,
    DuplicateFrame,
    FramesLost,
    LinkStale,
    LookTimed,
    Paced,
    PolledDevice,
    QuickPoll,
    Retransmission,
    SequenceGap,
    ShoeStatus,
    TrayInventory,
    ZoneReport,
    open_board_source,
    open_chip_sensor,
    open_shoe,
)
from hardware.camera.source import BoardObserved, FrameBoardSource
from hardware.camera.worker import ProcessBoardSource
from hardware.link.aio import AsyncDevice
from hardware.link.protocol import MsgType, encode_frame
from hardware.link.serial_driver import SerialDevice
from hardware.rfidchips.protocol import ZoneInventory
from table_controller.controller.events import (
    BoardSeen,
    CardRead,
    ControllerInput,
    DeviceDown,
    DeviceUp,
    ReadsLost,
    ShoeState,
    TraySeen,
    ZoneSeen,
    ZoneTags,
)

log = logging.getLogger(__name__)

#: Link faults: journaled as ``decision`` entries (not replayed), never core inputs.
LINK_FAULTS = (BadFrame, SequenceGap, Retransmission, DuplicateFrame, LinkStale)
#: Seconds between two polls of the board source at most: a paced source
#: (:class:`~hardware.base.Paced`) is polled when its next frame is due; a source reads a
#: frame only when one is due.
CAMERA_POLL = 0.05
#: Camera time one poll of the board source counts at most, in multiples of its normal
#: length (the poll period, or the source's frame interval if longer): the rest is lag.
CAMERA_LAG_FACTOR = 2.0
#: Polls the camera clock remembers (a window of a few seconds needs a few dozen).
CAMERA_SAMPLES = 512
#: Device names, in start order.
SERIAL_DEVICES = ("shoe", "chips")

_E = TypeVar("_E")
#: Device event type -> the core input it is (the device's name is given).
EVENT_INPUTS: dict[type, Callable[[str, Any], ControllerInput]] = {}


def poll_wait(due: float, now: float) -> float:
    """Return how long the camera loop sleeps before it polls a frame due at ``due``.

    Until the frame is due, at least 0 (a frame already due is polled at once, after the
    loop's other ready work) and at most :data:`CAMERA_POLL` (a clock stepped by a test, or
    a source that restarts its pace, is looked at again soon).

    >>> poll_wait(10.03, 10.0), poll_wait(9.9, 10.0), poll_wait(20.0, 10.0)
    (0.03, 0.0, 0.05)
    """
    return min(CAMERA_POLL, max(0.0, round(due - now, 6)))


def event_input(cls: type[_E]) -> Callable[[Callable[[str, _E], ControllerInput]],
                                           Callable[[str, _E], ControllerInput]]:
    """Register the decorated function as the input of device event type ``cls``."""
    def register(fn: Callable[[str, _E], ControllerInput]
                 ) -> Callable[[str, _E], ControllerInput]:
        EVENT_INPUTS[cls] = fn
        return fn
    return register


@event_input(CardDrawn)
def _card(name: str, e: CardDrawn) -> ControllerInput:
    return CardRead(e.uid, e.shoe_ms)


@event_input(ZoneReport)
def _zone(name: str, e: ZoneReport) -> ControllerInput:
    return ZoneSeen(e.zone, e.counts)


@event_input(ZoneInventory)
def _zone_tags(name: str, e: ZoneInventory) -> ControllerInput:
    return ZoneTags(e.zone, e.uids)


@event_input(TrayInventory)
def _tray(name: str, e: TrayInventory) -> ControllerInput:
    return TraySeen(e.counts)


@event_input(DeviceLost)
def _lost(name: str, e: DeviceLost) -> ControllerInput:
    return DeviceDown(name, e.reason)


@event_input(DeviceRecovered)
def _recovered(name: str, e: DeviceRecovered) -> ControllerInput:
    return DeviceUp(name, e.reason)


@event_input(FramesLost)
def _frames_lost(name: str, e: FramesLost) -> ControllerInput:
    return ReadsLost(name, e.count)


@event_input(ShoeStatus)
def _shoe_status(name: str, e: ShoeStatus) -> ControllerInput:
    return ShoeState(e.door_open, e.empty)


@event_input(BoardObserved)
def _board(name: str, e: BoardObserved) -> ControllerInput:
    return BoardSeen(tuple(e.slots), tuple(e.occluded))


def device_input(name: str, event: DeviceEvent) -> ControllerInput | None:
    """Turn a device event into a core input (``None`` for link chatter the core ignores)."""
    make = EVENT_INPUTS.get(type(event))
    return None if make is None else make(name, event)


class CameraClock:
    """The camera's time: wall time its polls took, each counted at most ``cap`` seconds.

    A poll that took longer than ``cap`` (recognition slowed by a busy machine, a worker thread
    not scheduled) advances the camera's time by ``cap`` only: a window measured in camera time
    gives the camera the frames it would have read on a quiet machine.

    >>> clock = CameraClock(cap=0.1)
    >>> for t in (0.0, 0.05, 0.10, 1.10, 1.15):  # one poll took a second
    ...     clock.looked(t)
    >>> round(clock.elapsed_since(0.0), 3)
    0.25
    """

    def __init__(self, cap: float) -> None:
        self.cap = cap
        self._wall: deque[float] = deque(maxlen=CAMERA_SAMPLES)
        self._camera: deque[float] = deque(maxlen=CAMERA_SAMPLES)
        self.lag = 0.0

    def looked(self, started: float, age: float = 0.0) -> None:
        """Record a poll of the camera that started at ``started`` (daemon time).

        :param age: how long before the poll the frames' producer last looked at the board
            (:class:`hardware.base.LookTimed`): the poll counts as a look at ``started - age``
            (never before the previous one), so the producer's own delay is lag too.
        """
        started -= max(age, 0.0)
        if self._wall:
            started = max(started, self._wall[-1])
            step = started - self._wall[-1]
            counted = min(max(step, 0.0), self.cap)
            self.lag += step - counted
            self._camera.append(self._camera[-1] + counted)
        else:
            self._camera.append(0.0)
        self._wall.append(started)

    def elapsed_since(self, when: float) -> float:
        """Camera time from the first poll at or after ``when`` to the last poll (0 if none)."""
        if not self._wall:
            return 0.0
        i = bisect.bisect_left(self._wall, when)
        if i >= len(self._wall):
            return 0.0
        return self._camera[-1] - self._camera[i]


class DeviceSet:
    """The shoe, the chip sensors and the board source of one daemon.

    :param on_event: called in the loop with ``(device name, event)`` for every device event.
    :param after_io: called after each read or timer run of a serial device, whatever it gave
        (the daemon releases ACKs and notices link changes there).
    """

    def __init__(self, on_event: Callable[[str, DeviceEvent], None],
                 after_io: Callable[[], None]) -> None:
        self.on_event = on_event
        self.after_io = after_io
        self.devices: dict[str, PolledDevice] = {}
        self.camera: BoardSource | None = None
        self._async: dict[str, AsyncDevice] = {}
        self._synced: set[str] = set()
        self._sync = asyncio.Event()
        #: the board source's time (:meth:`open_camera` sets it)
        self.camera_clock: CameraClock | None = None

    def statuses(self) -> dict[str, DeviceStatus]:
        """Return each device's health snapshot (``camera`` too when there is a board source)."""
        out = {n: d.status() for n, d in self.devices.items()}
        if self.camera is not None:
            out["camera"] = self.camera.status()
        return out

    def open_serial(self, stack: contextlib.AsyncExitStack, urls: Mapping[str, str],
                    lost_after: float) -> None:
        """Open the shoe and the chip sensors, deliver their events, ask each for its HELLO.

        A port path that is missing does not stop the start: the device starts lost (its first
        tick reports it; the driver keeps trying to reopen it with back-off). A device silent
        for ``lost_after`` seconds (``timing.device_timeout``) is lost.

        :raises ConfigError: for a bad URL.
        :raises DeviceError: for a port that is busy or forbidden.
        """
        for name in SERIAL_DEVICES:
            url = urls[name]
            options = {"lost_after": lost_after}
            dev: PolledDevice = (open_shoe(url, **options) if name == "shoe"
                                 else open_chip_sensor(url, **options))
            dev.defer_acks = dev.speaks_link
            if isinstance(dev, SerialDevice):
                dev.open(missing_ok=True)
            else:
                dev.open()
            stack.callback(dev.close)
            self.devices[name] = dev
            adev = AsyncDevice(dev, queue_size=1, after_io=self.after_io)
            adev.subscribe(self._listener(name))
            adev.start()
            stack.push_async_callback(adev.stop)
            self._async[name] = adev
            if dev.speaks_link:
                # Ask for the device's HELLO now (an empty NAK, docs of hardware.link.protocol):
                # its power-on HELLO went out before the port was open. Until the link is synced
                # every data frame is refused and comes again as a retransmission.
                self.send(name, encode_frame(MsgType.NAK, 0))

    def _listener(self, name: str) -> Callable[[DeviceEvent], None]:
        def listen(event: DeviceEvent) -> None:
            if isinstance(event, DeviceHello | DeviceRecovered):
                self.synced(name)
            self.on_event(name, event)
        return listen

    def synced(self, name: str) -> None:
        """Record that ``name``'s link is synced (its HELLO, or its recovery, was heard)."""
        self._synced.add(name)
        if not self._unsynced():
            self._sync.set()

    def request_report(self) -> None:
        """Ask the chip sensors for a full report."""
        dev = self.devices.get("chips")
        if isinstance(dev, ChipSensor):
            dev.request_report()

    def send(self, name: str, data: bytes) -> None:
        """Write to a device; what the write causes (a loss) is delivered as its events."""
        dev = self.devices[name]
        events = dev.send(data)
        self._async[name].poke()
        for ev in events:
            self.on_event(name, ev)

    def drain(self) -> None:
        """Read what the serial devices already sent, and deliver it, before a timer judges.

        Bytes waiting in a port's buffer arrived while the daemon was busy: they are inputs
        that happened before the timer's deadline, not a device that was late.
        """
        for adev in self._async.values():
            adev.read_now()

    def camera_behind(self, due: float | None, window: float, limit: float,
                      now: float) -> bool:
        """Tell whether a camera window due at ``due`` has not lasted ``window`` camera time.

        The daemon then feeds no tick (a tick judges every window at once) until the camera's
        next poll, for at most ``limit`` seconds past the deadline: a camera slowed down by a
        busy machine gets the frames it would have read on a quiet one (:class:`CameraClock`),
        and one that stopped polling is still judged.
        """
        clock = self.camera_clock
        if clock is None or due is None or now < due or now - due >= limit:
            return False
        return clock.elapsed_since(due - window) < window

    def release_acks(self) -> None:
        """Write the ACKs the devices kept: the reads they acknowledge are journaled."""
        for name, dev in self.devices.items():
            events = dev.release_acks()
            if events:
                self._async[name].poke()
            for ev in events:
                self.on_event(name, ev)

    def _unsynced(self) -> set[str]:
        # a device whose port is missing (lost at start), or that has no HELLO to give (not
        # the reference link), has nothing to wait for
        return {n for n in set(self.devices) - self._synced
                if self.devices[n].speaks_link and self.devices[n].status().connected}

    async def wait_synced(self, timeout: float) -> None:
        """Wait (at most ``timeout`` s) for the serial links' HELLO before saying ready.

        A dealer (or a simulator) that acts before the link is synced sends frames the daemon
        must refuse, which the device then resends: retransmissions on a clean link.
        """
        if self._unsynced():
            self._sync.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    while self._unsynced():
                        await self._sync.wait()
                        self._sync.clear()
        missing = sorted(self._unsynced())
        if missing:
            log.warning("no HELLO from %s after %.1f s: ready without it", ", ".join(missing),
                        timeout)

    def open_camera(self, stack: contextlib.AsyncExitStack, url: str,
                    profile: CameraProfile | None, configured: bool) -> None:
        """Open the board source for ``url`` (with the camera profile, if any).

        :raises ConfigError, CalibrationError: for a source that cannot be built.
        """
        if not configured:
            log.warning("camera %s: no board source (no board=PATH and no calibration."
                        "camera_profile); the board is not checked", url)
            return
        options: dict[str, Any] = {} if profile is None else {"profile": profile}
        source = open_board_source(url, **options)
        source.open()
        stack.callback(source.close)
        self.camera = source
        paced = source if isinstance(source, (FrameBoardSource, ProcessBoardSource)) else None
        interval = paced.interval if paced is not None else 0.0
        self.camera_clock = CameraClock(CAMERA_LAG_FACTOR * max(CAMERA_POLL, interval))

    async def camera_loop(self, now: Callable[[], float],
                          handle: Callable[[list[DeviceEvent]], None]) -> None:
        """Poll the board source at its pace; hand its events to ``handle``.

        A source that recognises frames is polled off the loop (recognition may take tens of
        ms); a quick one (:class:`~hardware.base.QuickPoll`: a board file's ``stat``) on the
        loop, without a thread hand-off twenty times a second.
        """
        cam, clock = self.camera, self.camera_clock
        assert cam is not None and clock is not None
        quick = isinstance(cam, QuickPoll) and cam.quick_poll
        paced = cam if isinstance(cam, Paced) else None
        while True:
            # until the next frame is due (a paced source), never longer than CAMERA_POLL
            wait = CAMERA_POLL if paced is None else poll_wait(paced.next_poll_at(), now())
            await asyncio.sleep(wait)
            # the source is used from here only
            started, mono = now(), time.monotonic()
            events = cam.poll(started) if quick else await asyncio.to_thread(cam.poll, started)
            looked = cam.looked_at() if isinstance(cam, LookTimed) else None
            clock.looked(started, 0.0 if looked is None else mono - looked)
            handle(events)
