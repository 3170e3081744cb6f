"""Board watcher: camera -> recogniser -> stabiliser, polled with the time passed in.

The controller's board source: ``BoardWatcher(camera, recognizer).poll(now)`` grabs one frame,
reads it and returns the :class:`~hardware.camera.stabilizer.StableBoard` (``changes`` lists the
slots whose stable card changed), or None when the camera had no frame.
"""

from __future__ import annotations

from dataclasses import dataclass

from hardware.base import BoardCamera
from hardware.camera.recognizer import BoardReading, BoardRecognizer
from hardware.camera.stabilizer import BoardStabilizer, StableBoard


@dataclass(frozen=True, slots=True)
class WatcherStatus:
    """Counts since the watcher started."""

    frames: int
    missed: int
    last_reading: BoardReading | None


class BoardWatcher:
    """Polls a :class:`~hardware.base.BoardCamera` and keeps the stable board."""

    def __init__(
        self,
        camera: BoardCamera,
        recognizer: BoardRecognizer,
        stabilizer: BoardStabilizer | None = None,
    ) -> None:
        self.camera = camera
        self.recognizer = recognizer
        self.stabilizer = stabilizer or BoardStabilizer(slots=recognizer.geometry.slots)
        self._frames = 0
        self._missed = 0
        self._last: BoardReading | None = None

    def poll(self, now: float) -> StableBoard | None:
        """Read one frame taken at ``now``; None if the camera had none."""
        frame = self.camera.read_frame(now)
        if frame is None:
            self._missed += 1
            return None
        self._frames += 1
        self._last = self.recognizer.read(frame)
        return self.stabilizer.update(self._last, now)

    def status(self) -> WatcherStatus:
        """Return frame counts and the latest per-frame reading."""
        return WatcherStatus(self._frames, self._missed, self._last)
