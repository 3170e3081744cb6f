"""A simulated board camera across processes: the dealer writes the board to a JSON file.

Whoever plays dealer (a test, the demo) writes the board atomically (temporary file, then
``os.replace``)::

    {"slots": ["Ah", null, null, null, null], "occluded": []}

and the controller daemon, in another process, opens ``sim://camera?board=PATH`` as a *board
source* (registry kind ``"board"``): :meth:`BoardFileCamera.poll` notices a new file and reports
a :class:`BoardObserved` (the stable board, as a camera stabiliser would) when the board changed.

Options: ``board`` (required: the JSON path), ``faces`` (the deck's face folder) and ``level``
(``exact``, ``easy``, ``medium``, ``hard``). Only ``exact`` is implemented here: the board file is
reported as read. Rendering a frame with :mod:`hardware.sim.scene` and reading it back with the
recognizer belongs with the camera driver (``hardware/camera``); until it is wired, other levels
report the file as read too, and :meth:`BoardFileCamera.status` says so in ``last_error``.

Rules: a file that is missing means an empty board; a file that is not valid board JSON is a
:class:`~hardware.base.BadFrame` (never raised), and the previous board stands.

>>> import json, os, tempfile
>>> d = tempfile.mkdtemp()
>>> path = os.path.join(d, "board.json")
>>> cam = BoardFileCamera(f"sim://camera?board={path}", path)
>>> cam.open()
>>> write_board(path, ["Ah", "Kd", None, None, None])
>>> cam.poll(1.0)
[BoardObserved(slots=('Ah', 'Kd', None, None, None), occluded=())]
>>> cam.poll(1.1)
[]
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hardware.base import BadFrame, DeviceEvent, DeviceStatus, DeviceUrl, register_scheme
from table_controller.engine.cards import Card, CardError
from table_controller.errors import ConfigError

LEVELS = ("exact", "easy", "medium", "hard")
EMPTY: tuple[str | None, ...] = (None,) * 5


@dataclass(frozen=True, slots=True)
class BoardObserved(DeviceEvent):
    """The camera's stable reading of the board: card codes or ``None`` per slot."""

    slots: tuple[str | None, ...]
    occluded: tuple[int, ...] = ()


def write_board(path: str | os.PathLike[str], slots: Sequence[str | None],
                occluded: Sequence[int] = ()) -> None:
    """Write a board file atomically (what the simulated dealer does)."""
    p = os.fspath(path)
    tmp = f"{p}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump({"slots": list(slots), "occluded": list(occluded)}, fh)
    os.replace(tmp, p)


def parse_board(text: str) -> BoardObserved:
    """Parse board JSON.

    :raises ValueError: naming what is wrong.
    """
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("board file: expected a JSON object")
    slots = data.get("slots")
    if not isinstance(slots, list) or len(slots) != 5:
        raise ValueError("board file: 'slots' must be a list of 5 cards or nulls")
    out: list[str | None] = []
    for s in slots:
        if s is None:
            out.append(None)
            continue
        if not isinstance(s, str):
            raise ValueError(f"board file: slot {s!r} is not a card")
        try:
            out.append(Card.parse(s).code)
        except CardError as exc:
            raise ValueError(f"board file: {exc}") from None
    occ = data.get("occluded", [])
    if not isinstance(occ, list) or not all(isinstance(i, int) and 0 <= i < 5 for i in occ):
        raise ValueError("board file: 'occluded' must be a list of slot numbers 0..4")
    return BoardObserved(tuple(out), tuple(sorted(set(occ))))


class BoardFileCamera:
    """A board source reading the dealer's board file (see the module docstring).

    :param url: the configured URL.
    :param path: the board JSON file.
    :param level: rendering level asked for (only ``exact`` is implemented).
    """

    def __init__(self, url: str, path: str, *, level: str = "exact",
                 faces: str | None = None) -> None:
        self.url = url
        self.path = path
        self.level = level
        self.faces = faces
        self._opened = False
        self._stamp: tuple[int, int] | None = None
        self._last: BoardObserved | None = None
        self._frames = 0
        self._bad = 0
        self._last_at: float | None = None
        self._error: str | None = None

    def open(self) -> None:
        """Start watching the file (its directory must exist).

        :raises ConfigError: if the directory does not exist.
        """
        d = os.path.dirname(os.path.abspath(self.path))
        if not os.path.isdir(d):
            raise ConfigError(f"camera board file directory {d!r} does not exist")
        self._opened = True

    def close(self) -> None:
        """Stop watching."""
        self._opened = False

    def poll(self, now: float) -> list[DeviceEvent]:
        """Return a :class:`BoardObserved` if the board changed since the last poll."""
        if not self._opened:
            return []
        try:
            st = os.stat(self.path)
            stamp = (st.st_mtime_ns, st.st_ino)
        except FileNotFoundError:
            stamp = None
        if stamp == self._stamp:
            return []
        self._stamp = stamp
        if stamp is None:
            board = BoardObserved(EMPTY)
        else:
            try:
                with open(self.path, encoding="utf-8") as fh:
                    board = parse_board(fh.read())
            except (OSError, ValueError) as exc:
                self._bad += 1
                self._error = str(exc)
                return [BadFrame(str(exc))]
        self._frames += 1
        self._last_at = now
        if board == self._last:
            return []
        self._last = board
        return [board]

    def status(self) -> DeviceStatus:
        """Return the source's health."""
        note = None if self.level == "exact" else (
            f"level={self.level}: frames are not rendered yet, the board file is read as is")
        return DeviceStatus(
            url=self.url, kind="camera", connected=self._opened,
            link="ok" if self._opened else "closed", last_frame_at=self._last_at,
            frames=self._frames, bad_frames=self._bad, retransmissions=0, duplicates=0,
            reconnects=0, last_error=self._error or note,
        )


def open_board_file(url: DeviceUrl, options: Mapping[str, Any]) -> BoardFileCamera:
    """Registry factory for ``sim://camera?board=PATH`` as a board source (kind ``"board"``).

    :raises ConfigError: for a missing ``board`` or an unknown option or level.
    """
    unknown = sorted(set(url.query) - {"board", "faces", "level"})
    if unknown:
        raise ConfigError(f"{url.url!r}: unknown option {unknown[0]!r} (board, faces, level)")
    path = url.query.get("board")
    if not path:
        raise ConfigError(f"{url.url!r}: board=PATH is required for a board-file camera")
    level = url.query.get("level", "exact")
    if level not in LEVELS:
        raise ConfigError(f"{url.url!r}: level must be one of {', '.join(LEVELS)}, got {level!r}")
    return BoardFileCamera(url.url, path, level=level, faces=url.query.get("faces"))


register_scheme("sim://camera", open_board_file, kind="board")
