"""A simulated board camera across processes: the dealer writes the board to a JSON file.

Whoever plays dealer (a test, the demo) writes the board atomically (temporary file, then
``os.replace``)::

    {"slots": ["Ah", null, null, null, null], "occluded": []}

and the controller daemon, in another process, opens ``sim://camera?board=PATH`` as a *board
source* (registry kind ``"board"``): :meth:`BoardFileCamera.poll` notices a new file and reports
a :class:`BoardObserved` (the stable board, as a camera stabiliser would) when the board changed.

Options: ``board`` (required: the JSON path), ``faces`` (the deck's face folder, default the
repository's kennard deck), ``level`` and ``seed``. With ``level=exact`` (default) the board file
is reported as read. With ``easy``, ``medium`` or ``hard`` every change of the file is laid out
on a :class:`hardware.sim.camera.SimCamera` (same seed, same camera all along), one frame is
rendered with :mod:`hardware.sim.scene` and read back by the recognizer calibrated on the empty
board (ArUco markers), through the stabiliser
(:class:`~table_controller.controller.camera.FrameBoardSource`): what the controller gets is then
what a camera would see, misreads included. Rendering costs about 0.4 s a frame (1920x1080), and
the calibration about 1.5 s on the first poll.

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
from typing import Any

from hardware.base import BadFrame, DeviceEvent, DeviceStatus, DeviceUrl, register_scheme
from table_controller.controller.camera import BoardObserved, FrameBoardSource
from table_controller.engine.cards import Card, CardError
from table_controller.errors import ConfigError, TableError

LEVELS = ("exact", "easy", "medium", "hard")
EMPTY: tuple[str | None, ...] = (None,) * 5


__all__ = ["BoardFileCamera", "BoardObserved", "open_board_file", "parse_board", "write_board"]


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
                 faces: str | None = None, seed: int = 0) -> None:
        self.url = url
        self.path = path
        self.level = level
        self.faces = faces
        self.seed = seed
        self._sim: Any = None
        self._source: FrameBoardSource | None = None
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
        if stamp == self._stamp and (self._frames or self._bad):
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
        if self.level != "exact":
            try:
                return self._render(board, now)
            except TableError as exc:
                self._bad += 1
                self._error = str(exc)
                return [BadFrame(str(exc))]
        if board == self._last:
            return []
        self._last = board
        return [board]

    def _render(self, board: BoardObserved, now: float) -> list[DeviceEvent]:
        """Lay ``board`` out on the simulated camera, render one frame and read it back."""
        if self._source is None:
            from calibration.camera import calibrate_camera
            from calibration.faces import load_face_folder
            from hardware.camera.stabilizer import BoardStabilizer
            from hardware.sim.camera import DEFAULT_FACES, SimCamera
            from hardware.sim.scene import Level

            faces = load_face_folder(self.faces or str(DEFAULT_FACES))
            sim = SimCamera(faces, url=self.url, level=Level(self.level), seed=self.seed)
            sim.open()
            empty = sim.read_frame(now)
            assert empty is not None
            profile = calibrate_camera(empty, faces)
            self._sim = sim
            self._source = FrameBoardSource(sim, profile.recognizer(), BoardStabilizer(frames=1),
                                            interval=0.0)
        sim = self._sim
        sim.clear()
        sim.uncover()
        for slot, code in enumerate(board.slots):
            if code is not None:
                sim.place(slot, Card.parse(code))
        if board.occluded:
            sim.occlude(board.occluded[0])
        return self._source.poll(now)

    def status(self) -> DeviceStatus:
        """Return the source's health."""
        note = None
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
    unknown = sorted(set(url.query) - {"board", "faces", "level", "seed"})
    if unknown:
        raise ConfigError(f"{url.url!r}: unknown option {unknown[0]!r} (board, faces, level, "
                          "seed)")
    path = url.query.get("board")
    if not path:
        raise ConfigError(f"{url.url!r}: board=PATH is required for a board-file camera")
    level = url.query.get("level", "exact")
    if level not in LEVELS:
        raise ConfigError(f"{url.url!r}: level must be one of {', '.join(LEVELS)}, got {level!r}")
    try:
        seed = int(url.query.get("seed", "0"))
    except ValueError:
        raise ConfigError(f"{url.url!r}: seed must be an integer") from None
    return BoardFileCamera(url.url, path, level=level, faces=url.query.get("faces"), seed=seed)


register_scheme("sim://camera", open_board_file, kind="board")
