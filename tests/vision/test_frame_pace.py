"""The pace of a camera board source: frames read on a fixed grid (``next_due``)."""

from __future__ import annotations

import doctest

import numpy as np

import hardware.camera.source
from hardware.base import DeviceStatus
from hardware.camera.readings import BoardReading, SlotReading
from hardware.camera.source import FrameBoardSource, next_due
from hardware.camera.stabilizer import BoardStabilizer


class _Camera:
    """A camera that always has a frame, and counts the frames asked of it."""

    url = "camera://fake"

    def __init__(self) -> None:
        self.frames = 0

    def open(self) -> None:
        pass

    def close(self) -> None:
        pass

    def read_frame(self, now: float) -> np.ndarray:
        self.frames += 1
        return np.zeros((4, 4, 3), np.uint8)

    def status(self) -> DeviceStatus:
        return DeviceStatus(url=self.url, kind="camera", connected=True, link="ok",
                            last_frame_at=None, frames=self.frames, bad_frames=0,
                            retransmissions=0, duplicates=0, reconnects=0)


class _Empty:
    def read(self, frame: object) -> BoardReading:
        return BoardReading(tuple(SlotReading("empty", confidence=0.9) for _ in range(5)))


def test_a_source_polled_every_50_ms_and_a_bit_reads_ten_frames_a_second() -> None:
    camera = _Camera()
    source = FrameBoardSource(camera, _Empty(), BoardStabilizer(), interval=0.1)
    now = 100.0
    while now < 110.0:  # the daemon's camera loop: sleep 50 ms, then the poll's own time
        source.poll(now)
        now += 0.05 + 0.008
    # one frame every 0.1 s of the ten seconds (was: one every 0.116 s, 87 frames)
    assert camera.frames == 100


def test_a_poll_late_by_an_interval_starts_the_grid_again() -> None:
    assert next_due(1.0, 1.05, 0.1) == 1.0 + 0.1
    assert next_due(1.0, 1.1, 0.1) == 1.1 + 0.1  # no catching up with a burst
    assert next_due(0.0, 37.0, 0.1) == 37.0 + 0.1  # the first poll


def test_doctests() -> None:
    result = doctest.testmod(hardware.camera.source)
    assert result.failed == 0 and result.attempted
