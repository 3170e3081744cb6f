"""The event queue of :class:`hardware.link.aio.AsyncDevice`: order, bound, cancelled waiters."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine

from hardware.base import CardDrawn, DeviceEvent, DeviceStatus
from hardware.link.aio import AsyncDevice


class ScriptedDevice:
    """A device without a port whose :meth:`tick` gives the events scripted with :meth:`emit`."""

    url = "test://scripted"
    generation = 0
    defer_acks = False
    speaks_link = False

    def __init__(self) -> None:
        self.script: list[DeviceEvent] = []

    def emit(self, *events: DeviceEvent) -> None:
        self.script.extend(events)

    def open(self) -> None:
        pass

    def close(self) -> None:
        pass

    def read_events(self, timeout: float) -> list[DeviceEvent]:
        return self.tick()

    def fileno(self) -> int | None:
        return None

    def on_readable(self) -> list[DeviceEvent]:
        return []

    def tick(self) -> list[DeviceEvent]:
        out, self.script = self.script, []
        return out

    def next_deadline(self) -> float | None:
        return 0.0 if self.script else None

    def send(self, data: bytes) -> list[DeviceEvent]:
        return []

    def release_acks(self) -> list[DeviceEvent]:
        return []

    def status(self) -> DeviceStatus:
        return DeviceStatus(self.url, "shoe", True, "ok", None, 0, 0, 0, 0, 0)


def _card(n: int) -> CardDrawn:
    return CardDrawn(f"04{n:012X}", n, float(n))


def _run(body: Coroutine[None, None, None]) -> None:
    async def main() -> None:
        async with asyncio.timeout(10):  # a lost event would hang the get: fail instead
            await body
    asyncio.run(main())


def test_events_come_in_order_to_one_or_several_waiting_tasks() -> None:
    async def body() -> None:
        dev = ScriptedDevice()
        async with AsyncDevice(dev) as adev:
            first = [asyncio.create_task(adev.get()) for _ in range(2)]
            await asyncio.sleep(0)
            dev.emit(_card(1), _card(2), _card(3), _card(4))
            adev.poke()
            assert [await t for t in first] == [_card(1), _card(2)]
            assert adev.pending == 2
            assert [await adev.get(), await adev.get()] == [_card(3), _card(4)]
            assert adev.pending == 0
    _run(body())


def test_a_cancelled_get_loses_no_event() -> None:
    async def body() -> None:
        dev = ScriptedDevice()
        async with AsyncDevice(dev) as adev:
            waiting = asyncio.create_task(adev.get())
            await asyncio.sleep(0)
            waiting.cancel()  # cancelled while waiting: its place in line is given up
            await asyncio.gather(waiting, return_exceptions=True)
            dev.emit(_card(1))
            adev.poke()
            assert await adev.get() == _card(1)
            handed = asyncio.create_task(adev.get())
            await asyncio.sleep(0)
            dev.emit(_card(2))
            adev.poke()
            while dev.script:  # the device's timer runs on a later turn of the loop
                await asyncio.sleep(0)
            # the event was handed to the waiting task, which has not run yet: cancelled now,
            # the event is kept for the next get
            assert handed.cancel()
            await asyncio.gather(handed, return_exceptions=True)
            assert await adev.get() == _card(2)
    _run(body())


def test_a_full_queue_drops_and_counts_while_listeners_see_everything() -> None:
    async def body() -> None:
        dev = ScriptedDevice()
        seen: list[DeviceEvent] = []
        async with AsyncDevice(dev, queue_size=1) as adev:
            adev.subscribe(seen.append)
            dev.emit(_card(1), _card(2), _card(3))
            adev.poke()
            while len(seen) < 3:
                await asyncio.sleep(0)
            assert adev.dropped == 2 and adev.pending == 1
            assert await adev.get() == _card(1)
    _run(body())
