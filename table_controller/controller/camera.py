"""Board sources: what the camera stabiliser sees, as events the controller turns into inputs.

A *board source* has ``open()``, ``close()``, ``poll(now) -> list[DeviceEvent]`` and
``status()``; ``poll`` returns a :class:`BoardObserved` whenever the stable board (or the set of
slots the camera cannot see) changes. Two exist:

- :class:`FrameBoardSource` (here): frames from any :class:`~hardware.base.BoardCamera` (a real
  ``camera://`` or the in-process ``SimCamera``), read by the calibrated recognizer and settled
  by :class:`~hardware.camera.stabilizer.BoardStabilizer`;
- :class:`hardware.sim.camera_link.BoardFileCamera`: the simulated dealer's board file, for a
  daemon running in another process (registry kind ``"board"``).

``poll`` may take tens of milliseconds (recognition); the daemon calls it in a worker thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from hardware.base import BoardCamera, DeviceEvent, DeviceStatus


@dataclass(frozen=True, slots=True)
class BoardObserved(DeviceEvent):
    """The camera's stable reading of the board: card codes or ``None`` per slot."""

    slots: tuple[str | None, ...]
    occluded: tuple[int, ...] = ()


class Reader(Protocol):
    """What a recognizer offers (``hardware.camera.recognizer.BoardRecognizer``)."""

    def read(self, frame: Any) -> Any:
        """Read one frame into a ``BoardReading``."""
        ...


class Stabilizer(Protocol):
    """What a stabiliser offers (``hardware.camera.stabilizer.BoardStabilizer``)."""

    def update(self, reading: Any, now: float) -> Any:
        """Feed one reading; return a ``StableBoard``."""
        ...


class FrameBoardSource:
    """Camera frames -> recognizer -> stabiliser -> :class:`BoardObserved` on change.

    :param camera: an unopened camera.
    :param recognizer: reads a frame into a board reading.
    :param stabilizer: settles readings over frames.
    :param interval: seconds between frames read (the recognizer costs tens of ms a frame).
    """

    def __init__(self, camera: BoardCamera, recognizer: Reader, stabilizer: Stabilizer, *,
                 interval: float = 0.2) -> None:
        self.camera = camera
        self.url = camera.url
        self.recognizer = recognizer
        self.stabilizer = stabilizer
        self.interval = interval
        self._next = 0.0
        self._last: BoardObserved | None = None

    def open(self) -> None:
        """Open the camera."""
        self.camera.open()

    def close(self) -> None:
        """Release the camera."""
        self.camera.close()

    def poll(self, now: float) -> list[DeviceEvent]:
        """Read one frame if one is due; return a :class:`BoardObserved` if the board changed."""
        if now < self._next:
            return []
        self._next = now + self.interval
        frame = self.camera.read_frame(now)
        if frame is None:
            return []
        stable = self.stabilizer.update(self.recognizer.read(frame), now)
        board = BoardObserved(tuple(None if c is None else c.code for c in stable.cards),
                              tuple(stable.occluded))
        if board == self._last:
            return []
        self._last = board
        return [board]

    def status(self) -> DeviceStatus:
        """Return the camera's health."""
        return self.camera.status()
