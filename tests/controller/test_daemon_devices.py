"""The daemon's device set on a PN532 shoe: no HELLO asked, none waited for, nothing deferred."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path

import pytest

from hardware.base import DeviceEvent, DeviceHello
from hardware.sim.pn532 import SimPn532
from hardware.sim.rfidchips import SimRfidChips
from table_controller.daemon.devices import DeviceSet


def test_a_pn532_shoe_is_not_waited_for_and_writes_at_once(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    pn532 = SimPn532(link_path=str(tmp_path / "shoe.tty"))
    rfid = SimRfidChips(range(1, 4), link_path=str(tmp_path / "chips.tty"))
    pn532.start()
    rfid.start()
    seen: list[tuple[str, DeviceEvent]] = []

    async def run() -> None:
        async with contextlib.AsyncExitStack() as stack:
            devices = DeviceSet(lambda n, e: seen.append((n, e)), lambda: None)
            devices.open_serial(stack, {"shoe": f"pn532://{pn532.path}?poll=0.02",
                                        "chips": f"rfidchips://{rfid.path}"}, 2.0)
            assert devices.devices["shoe"].defer_acks is False
            assert devices.devices["chips"].defer_acks is True
            # the chip reader's HELLO, asked for with an empty NAK, is what ready waits for;
            # the generous timeout is never reached (the PN532 has no HELLO to wait for)
            await devices.wait_synced(30.0)
            assert any(n == "chips" and isinstance(e, DeviceHello) for n, e in seen)
            pn532.present("04A1B2C3")
            async with asyncio.timeout(30.0):
                while not any(getattr(e, "uid", None) == "04A1B2C3" for _, e in seen):
                    await asyncio.sleep(0.01)

    try:
        with caplog.at_level(logging.WARNING):
            asyncio.run(run())
    finally:
        pn532.close()
        rfid.close()
    assert "no HELLO" not in caplog.text


def test_the_camera_clock_counts_a_slow_poll_as_a_normal_one() -> None:
    from table_controller.daemon.devices import CameraClock

    clock = CameraClock(cap=0.1)
    for t in (10.0, 10.05, 10.1, 12.1, 12.15, 14.15):  # two polls took 2 s each
        clock.looked(t)
    assert clock.elapsed_since(10.0) == pytest.approx(0.35)
    assert clock.elapsed_since(12.0) == pytest.approx(0.15)  # from the poll at 12.1
    assert clock.elapsed_since(20.0) == 0.0
    assert clock.lag == pytest.approx(3.8)


def test_a_due_camera_window_waits_for_camera_time_within_a_limit() -> None:
    from table_controller.daemon.devices import CameraClock

    devices = DeviceSet(lambda n, e: None, lambda: None)
    assert not devices.camera_behind(13.0, 3.0, 10.0, 14.0)  # no camera: nothing to wait for
    devices.camera_clock = clock = CameraClock(cap=0.1)
    for i in range(41):  # a poll every 0.1 s from 10.0 to 14.0: 4 s of camera time
        clock.looked(10.0 + i * 0.1)
    assert not devices.camera_behind(13.0, 3.0, 10.0, 14.0)  # the camera had its 3 s
    assert not devices.camera_behind(None, 3.0, 10.0, 14.0)  # no window open
    assert not devices.camera_behind(15.0, 3.0, 10.0, 14.0)  # not due yet
    slow = CameraClock(cap=0.1)
    for i in range(5):  # one poll a second: 0.4 s of camera time in 4 s
        slow.looked(10.0 + i)
    devices.camera_clock = slow
    assert devices.camera_behind(13.0, 3.0, 10.0, 14.0)  # the camera is behind: wait
    assert not devices.camera_behind(13.0, 3.0, 10.0, 23.0)  # but not past the limit


def test_a_camera_whose_renderer_is_slow_has_not_looked_yet() -> None:
    """The renderer's own delay is lag: the window waits for its looks, within the limit."""
    from table_controller.daemon.devices import CameraClock

    devices = DeviceSet(lambda n, e: None, lambda: None)
    devices.camera_clock = clock = CameraClock(cap=0.1)
    # the daemon polls every 0.05 s from 10.0 to 14.0 (a stepped clock), but the renderer's
    # last look was at 10.0: it took over 3 s on the frame after it (a saturated machine)
    for i in range(81):
        t = 10.0 + i * 0.05
        clock.looked(t, age=t - 10.0)
    assert devices.camera_behind(13.0, 3.0, 10.0, 14.0)  # the card dealt at 10.0: wait
    assert not devices.camera_behind(13.0, 3.0, 10.0, 23.0)  # a camera that stopped: judged
    assert clock.lag == pytest.approx(0.0)  # nothing counted at all while it did not look


def test_a_camera_that_looks_in_time_but_sees_nothing_is_judged_on_time() -> None:
    """A real slow camera (looks on time, the card not in its frames) still gives board_missing."""
    from table_controller.daemon.devices import CameraClock

    devices = DeviceSet(lambda n, e: None, lambda: None)
    devices.camera_clock = clock = CameraClock(cap=0.1)
    for i in range(81):  # looks 20 ms before each poll: a camera keeping up
        clock.looked(10.0 + i * 0.05, age=0.02)
    assert not devices.camera_behind(13.0, 3.0, 10.0, 13.0)  # due now: the tick judges it
    assert not devices.camera_behind(13.0, 3.0, 10.0, 14.0)
    late = CameraClock(cap=0.1)  # a renderer 0.5 s behind all along, but looking steadily
    for i in range(81):
        late.looked(10.0 + i * 0.05, age=0.5)
    devices.camera_clock = late
    assert not devices.camera_behind(13.5, 3.0, 10.0, 13.6)  # its 3 s of looks are done


def test_a_paced_camera_is_polled_when_its_frame_is_due_not_a_fixed_sleep_after(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A 60 ms poll at 10 frames a second: 10 frames a second, not one per 50 ms + 60 ms."""
    from hardware.camera.source import next_due
    from table_controller.daemon import devices as devmod

    clock = [100.0]
    real_sleep = asyncio.sleep
    slept: list[float] = []

    async def fake_sleep(delay: float) -> None:
        slept.append(delay)
        clock[0] += delay
        await real_sleep(0)

    class Done(Exception):
        pass

    class Source:
        interval = 0.1

        def __init__(self) -> None:
            self._next = 0.0
            self.frames: list[float] = []

        def next_poll_at(self) -> float:
            return self._next

        def poll(self, now: float) -> list[DeviceEvent]:
            if now >= self._next:
                self._next = next_due(self._next, now, self.interval)
                self.frames.append(now)
                clock[0] += 0.06  # recognising the frame
            if len(self.frames) == 51:
                raise Done
            return []

    source = Source()
    devices = DeviceSet(lambda n, e: None, lambda: None)
    devices.camera = source  # type: ignore[assignment]
    devices.camera_clock = devmod.CameraClock(cap=0.1)
    monkeypatch.setattr(asyncio, "sleep", fake_sleep)
    with pytest.raises(Done):
        asyncio.run(devices.camera_loop(lambda: clock[0], lambda events: None))
    gaps = [b - a for a, b in zip(source.frames, source.frames[1:], strict=False)]
    assert len(gaps) == 50
    assert all(abs(g - 0.1) < 1e-6 for g in gaps), gaps
    assert max(slept) <= devmod.CAMERA_POLL
