"""Run a :class:`~hardware.base.PolledDevice` inside an asyncio event loop.

Two modes, same events:

- ``"reader"`` (default): ``loop.add_reader`` on the port's file descriptor calls
  :meth:`~hardware.base.PolledDevice.on_readable` in the loop thread; ``tick`` (heartbeat
  supervision, reconnects) runs at the device's
  :meth:`~hardware.base.PolledDevice.next_deadline`, one ``loop.call_later`` armed for it, not
  on a fixed period: an idle link wakes the loop once per heartbeat deadline, not 20 times a
  second. No thread, no cross-thread hand-off; this is what the benchmark measures as the
  lower-latency path (see ``docs/benchmarks.md``).
- ``"thread"``: a reader thread loops on the blocking
  :meth:`~hardware.base.PolledDevice.read_events` and posts events into the loop with
  ``loop.call_soon_threadsafe``. Use it for a device whose descriptor cannot be watched.

Events go to subscribers (callbacks run in the loop thread, each returns an unsubscribe
callable) and to a queue read with :meth:`AsyncDevice.get`: a bounded ``deque`` whose event
goes straight into the future of a task waiting in :meth:`~AsyncDevice.get` (no
``asyncio.Queue``: its put and get cost a cold read about 12 us at p50, measured in
``docs/benchmarks.md``). The fd is re-registered whenever the
driver reopens the port (tracked by the driver's ``generation``), so a replug is seamless.
"""

from __future__ import annotations

import asyncio
import collections
import select
import threading
import time
from collections.abc import Callable
from typing import Literal

from hardware.base import DeviceEvent, PolledDevice

Listener = Callable[[DeviceEvent], None]


class AsyncDevice:
    """Deliver a device's events in an asyncio loop.

    :param device: an opened device.
    :param mode: ``"reader"`` or ``"thread"`` (see the module docstring).
    :param tick_interval: the longest a blocking read waits (``"thread"`` mode); in
        ``"reader"`` mode the timer follows the device's deadlines.
    :param queue_size: bound of the :meth:`get` queue; 0 = unbounded.
    :param clock: the device's clock (its deadlines are on it).
    :param after_io: called in the loop after each read or timer run, after the listeners,
        whatever it produced (``"reader"`` mode).
    """

    def __init__(
        self,
        device: PolledDevice,
        *,
        mode: Literal["reader", "thread"] = "reader",
        tick_interval: float = 0.05,
        queue_size: int = 0,
        clock: Callable[[], float] = time.monotonic,
        after_io: Callable[[], None] | None = None,
    ) -> None:
        self.device = device
        self.mode = mode
        self.tick_interval = tick_interval
        self.queue_size = queue_size
        self._pending: collections.deque[DeviceEvent] = collections.deque()
        self._getters: collections.deque[asyncio.Future[DeviceEvent]] = collections.deque()
        self._listeners: list[Listener] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._fd: int | None = None
        self._generation = -1
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = float("inf")
        self._clock = clock
        self._after_io = after_io
        self._thread: threading.Thread | None = None
        self._running = False
        self.dropped = 0

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(event)`` in the loop for each event; returns the unsubscribe callable."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    @property
    def pending(self) -> int:
        """How many events wait for :meth:`get`."""
        return len(self._pending)

    async def get(self) -> DeviceEvent:
        """Wait for the next event (events come in order; several waiting tasks take turns)."""
        if self._pending:
            return self._pending.popleft()
        waiter: asyncio.Future[DeviceEvent] = asyncio.get_running_loop().create_future()
        self._getters.append(waiter)
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self._pending.appendleft(waiter.result())  # handed over, never taken: keep it
            elif waiter in self._getters:
                self._getters.remove(waiter)
            raise

    def start(self) -> None:
        """Start delivering events; call from inside the running loop."""
        if self._running:
            return
        self._loop = asyncio.get_running_loop()
        self._running = True
        if self.mode == "reader":
            self._watch()
            self.poke()
        else:
            self._thread = threading.Thread(target=self._run_thread, daemon=True)
            self._thread.start()

    async def stop(self) -> None:
        """Stop delivering events (the device stays open)."""
        self._running = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
            self._timer_at = float("inf")
        if self._loop is not None and self._fd is not None:
            self._loop.remove_reader(self._fd)
            self._fd = None
        if self._thread is not None:
            thread, self._thread = self._thread, None
            await asyncio.to_thread(thread.join, 2.0)

    def poke(self) -> None:
        """Re-arm the timer if the device's next deadline moved earlier (``"reader"`` mode).

        Called after each read; call it after writing to the device too (a failed write makes
        the reopen attempts due).
        """
        loop = self._loop
        if loop is None or not self._running or self.mode != "reader":
            return
        deadline = self.device.next_deadline()
        if deadline is None:
            return
        at = loop.time() + max(0.0, deadline - self._clock())
        if at >= self._timer_at:
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer_at = at
        self._timer = loop.call_at(at, self._on_timer)

    def read_now(self) -> None:
        """Read what is waiting on the port now and deliver it (``"reader"`` mode; no wait).

        For an owner about to judge the device by time: what the device already sent is heard
        first. Nothing happens when the port is closed or nothing is waiting.
        """
        if self._loop is None or not self._running or self.mode != "reader":
            return
        fd = self.device.fileno()
        if fd is None:
            return
        try:
            ready, _, _ = select.select([fd], [], [], 0)
        except (OSError, ValueError):
            return
        if ready:
            self._on_readable()

    async def __aenter__(self) -> AsyncDevice:
        self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # -- internals -------------------------------------------------------------------------------

    def _deliver(self, events: list[DeviceEvent]) -> None:
        pending, getters = self._pending, self._getters
        for event in events:
            for listener in list(self._listeners):
                listener(event)
            while getters:
                waiter = getters.popleft()
                if not waiter.done():  # (a cancelled get left its future behind)
                    waiter.set_result(event)
                    break
            else:
                if self.queue_size and len(pending) >= self.queue_size:
                    self.dropped += 1  # a daemon that only listens keeps one, always full
                else:
                    pending.append(event)

    def _watch(self) -> None:
        loop = self._loop
        if loop is None or not self._running:
            return
        fd = self.device.fileno()
        generation = self.device.generation
        if fd == self._fd and generation == self._generation:
            return
        if self._fd is not None:
            loop.remove_reader(self._fd)
        self._fd, self._generation = fd, generation
        if fd is not None:
            loop.add_reader(fd, self._on_readable)

    def _on_readable(self) -> None:
        events = self.device.on_readable()
        self._watch()
        if events:
            try:
                self._deliver(events)  # the listeners first: they wait; the timer can
            finally:
                self.poke()
        if self._after_io is not None:
            self._after_io()

    def _on_timer(self) -> None:
        self._timer, self._timer_at = None, float("inf")
        if not self._running or self._loop is None:
            return
        # a frame heard since the timer was armed moved the deadline later: tick finds nothing
        # due and the timer is armed again for the new deadline
        events = self.device.tick()
        self._watch()
        self.poke()
        if events:
            self._deliver(events)
        if self._after_io is not None:
            self._after_io()

    def _run_thread(self) -> None:
        loop = self._loop
        while self._running and loop is not None:
            events = self.device.read_events(self.tick_interval)
            if events and self._running:
                try:
                    loop.call_soon_threadsafe(self._deliver, events)
                except RuntimeError:
                    return
