"""A simulated board camera across processes: the dealer writes the board to a JSON file.

Whoever plays dealer (a test, the demo) writes the board atomically (temporary file, then
``os.replace``)::

    {"slots": ["Ah", null, null, null, null], "occluded": []}

and the controller daemon, in another process, opens ``sim://camera?board=PATH`` as a *board
source* (registry kind ``"board"``): :meth:`BoardFileCamera.poll` notices a new file and reports
a :class:`BoardObserved` (the stable board, as a camera stabiliser would) when the board changed.

Options: ``board`` (required: the JSON path). The daemon reads it as is (``level=exact``, the
only level of a board file; used by ``--fast`` runs and most tests).

Rendered frames (what a camera would see, misreads included) are made *outside the daemon*,
as on a real table where the daemon only receives frames: whoever plays dealer runs a
:class:`BoardRenderer` that, when the board file changes, lays the board out on a
:class:`hardware.sim.camera.SimCamera` (1920x1080, about 0.4 s a frame), and replaces a PNG
file atomically. The daemon opens ``sim://camera?frames=PNG`` (registry kind ``"board"``, with
the configured ``calibration.camera_profile``, which :meth:`BoardRenderer.calibrate` writes from
the empty board): a :class:`FrameFileCamera` decodes the file when it was replaced, and the real
recognizer and stabiliser (:class:`~hardware.camera.source.FrameBoardSource`) read
it. PNG, not JPEG: lossless, so the daemon recognises exactly the pixels rendered (the same
results as a render in the daemon's process), and one file replaced with ``os.replace`` is the
simplest handover a reader can never see half of (a video stream would need a writer and a
reader kept in step across restarts of either). The renderer's thread also stamps, beside the
frames, when it last looked at the board (:func:`seen_path`), as a real camera stamps its
frames with their capture time: the daemon counts the camera's time from those looks, so a
renderer slowed down by a busy machine (seconds a frame) is a camera that has not looked yet,
not one that does not see the card (:class:`hardware.base.LookTimed`).

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

import contextlib
import json
import os
import threading
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from hardware.base import (
    BadFrame,
    CameraProfile,
    DeviceDefaults,
    DeviceEvent,
    DeviceStatus,
    DeviceUrl,
    register_scheme,
)
from hardware.camera.source import BoardObserved, FrameBoardSource
from table_controller.engine.cards import Card, CardError
from table_controller.errors import ConfigError, TableError

if TYPE_CHECKING:
    from hardware.sim.camera import SimCamera

LEVELS = ("exact", "easy", "medium", "hard")
EMPTY: tuple[str | None, ...] = (None,) * 5


__all__ = ["BoardFileCamera", "BoardObserved", "BoardRenderer", "FrameFileCamera",
           "FrameFileSource", "open_board_file", "parse_board", "seen_path", "write_board"]


def write_board(path: str | os.PathLike[str], slots: Sequence[str | None],
                occluded: Sequence[int] = ()) -> None:
    """Write a board file atomically (what the simulated dealer does)."""
    p = os.fspath(path)
    tmp = f"{p}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump({"slots": list(slots), "occluded": list(occluded)}, fh)
    os.replace(tmp, p)


def seen_path(frames: str | os.PathLike[str]) -> str:
    """Return the file beside a frames file where its renderer stamps its latest look.

    :class:`BoardRenderer`'s thread replaces it after every look (the ``time.monotonic()`` at
    which it read the board file, a frame rendered from it already written): a renderer slowed
    down by a busy machine shows as a camera that did not look, not as a card it did not see.
    """
    return f"{os.fspath(frames)}.seen"


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


class _WatchedFile:
    """A file another process replaces, watched by polling: open/close and the counts."""

    #: What the file's directory is, for the error when it does not exist.
    _what = "directory"

    def __init__(self, url: str, path: str) -> None:
        self.url = url
        self.path = path
        self._opened = False
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
            raise ConfigError(f"{self._what} {d!r} does not exist")
        self._opened = True

    def close(self) -> None:
        """Stop watching."""
        self._opened = False


class BoardFileCamera(_WatchedFile):
    """A board source reading the dealer's board file (see the module docstring).

    :param url: the configured URL.
    :param path: the board JSON file.
    """

    _what = "camera board file directory"
    #: a ``stat`` per poll: run on the daemon's loop (:class:`hardware.base.QuickPoll`)
    quick_poll = True

    def __init__(self, url: str, path: str) -> None:
        super().__init__(url, path)
        self._stamp: tuple[int, int] | None = None
        self._last: BoardObserved | None = None

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
        if board == self._last:
            return []
        self._last = board
        return [board]

    def status(self) -> DeviceStatus:
        """Return the source's health."""
        note = None
        return DeviceStatus(
            url=self.url, kind="camera", connected=self._opened,
            link="ok" if self._opened else "closed", last_frame_at=self._last_at,
            frames=self._frames, bad_frames=self._bad, retransmissions=0, duplicates=0,
            reconnects=0, last_error=self._error or note,
        )


def open_board_file(url: DeviceUrl,
                    options: Mapping[str, Any]) -> BoardFileCamera | FrameBoardSource:
    """Registry factory for ``sim://camera?board=PATH`` or ``?frames=PATH`` (kind ``"board"``).

    Without either, and with a ``profile``, the board source reads an in-process
    :class:`hardware.sim.camera.SimCamera` (the URL's other options) as a real camera's.

    :param options: ``profile``: the camera profile (a loaded
        :class:`~hardware.base.CameraProfile` or a path; the daemon passes its
        ``calibration.camera_profile``; a ``profile=PATH`` query option also works for
        ``frames=``).
    :raises ConfigError: for a missing ``board``/``frames``, an unknown option or a level that
        would render in the reader's process.
    :raises CalibrationError: for a profile that cannot be loaded.
    """
    if "frames" in url.query:
        return _open_frames(url, options)
    if "board" not in url.query and options.get("profile") is not None:
        from hardware.camera.registry import open_camera_board

        return open_camera_board(url, {"profile": _profile(options["profile"])})
    unknown = sorted(set(url.query) - {"board", "faces", "level", "seed"})
    if unknown:
        raise ConfigError(f"{url.url!r}: unknown option {unknown[0]!r} (board, faces, level, "
                          "seed; or frames, profile)")
    path = url.query.get("board")
    if not path:
        raise ConfigError(f"{url.url!r}: board=PATH (a board file) or frames=PATH (rendered "
                          "frames) is required for a simulated board camera")
    level = url.query.get("level", "exact")
    if level not in LEVELS:
        raise ConfigError(f"{url.url!r}: level must be one of {', '.join(LEVELS)}, got {level!r}")
    if level != "exact":
        raise ConfigError(f"{url.url!r}: level={level} is not rendered in the reader's process "
                          "any more: run a BoardRenderer beside the dealer and open "
                          "sim://camera?frames=PATH (hardware.sim.camera_link)")
    return BoardFileCamera(url.url, path)


def _open_frames(url: DeviceUrl, options: Mapping[str, Any]) -> FrameFileSource:
    unknown = sorted(set(url.query) - {"frames", "profile"})
    if unknown:
        raise ConfigError(f"{url.url!r}: unknown option {unknown[0]!r} (frames, profile)")
    bad = sorted(set(options) - {"profile"})
    if bad:
        raise ConfigError(f"{url.url!r}: unknown driver option {bad[0]!r} (profile)")
    path = url.query["frames"]
    if not path:
        raise ConfigError(f"{url.url!r}: frames=PATH names no file")
    profile = options.get("profile") or url.query.get("profile")
    if not profile:
        raise ConfigError(f"{url.url!r}: rendered frames need a camera profile "
                          "(calibration.camera_profile, or profile=PATH)")
    from hardware.camera.stabilizer import BoardStabilizer

    recognizer = _profile(profile).recognizer()
    # one read a frame: a frame file changes only when the board does, and a rendered frame
    # read twice reads the same
    return FrameFileSource(FrameFileCamera(url.url, path), recognizer,
                           BoardStabilizer(frames=1), interval=0.0)


def _profile(given: CameraProfile | str | os.PathLike[str]) -> CameraProfile:
    """Return the camera profile given, loading it if it is a path."""
    if isinstance(given, str | os.PathLike):
        from calibration.camera import load_profile

        return load_profile(os.fspath(given))
    return given


def open_sim_camera(url: DeviceUrl, options: Mapping[str, Any]) -> SimCamera:
    """Registry factory for ``sim://camera`` (kind ``"camera"``): an in-process ``SimCamera``.

    The renderer (and OpenCV) is imported only here, when such a camera is built.

    :raises ConfigError: for unknown options or bad values.
    """
    from hardware.camera.registry import merged_options
    from hardware.sim.camera import sim_camera_from_options

    return sim_camera_from_options(url.url, merged_options(url, options))


def board_defaults(url: DeviceUrl) -> DeviceDefaults:
    """Tell what ``sim://camera`` offers unopened: a board file needs no camera profile."""
    return DeviceDefaults(self_calibrated="board" in url.query)


class FrameFileCamera(_WatchedFile):
    """A camera whose frames are an image file another process replaces atomically.

    :meth:`read_frame` decodes the file (``cv2.imread``) only when it was replaced since the
    last read (its mtime, inode or size changed), else returns ``None``: nothing new.

    :param url: the configured URL.
    :param path: the image file (PNG).
    """

    _what = "camera frames directory"

    def __init__(self, url: str, path: str) -> None:
        super().__init__(url, path)
        self._stamp: tuple[int, int, int] | None = None

    def looked_at(self) -> float | None:
        """When the frames' renderer last looked at the board (:func:`seen_path`), or ``None``.

        ``None`` when no renderer stamps its looks (the file is missing or not a number): the
        reader's own poll time counts (:class:`hardware.base.LookTimed`).
        """
        try:
            with open(seen_path(self.path), encoding="ascii") as fh:
                return float(fh.read(64))
        except (OSError, ValueError):
            return None

    def read_frame(self, now: float) -> Any | None:
        """Return the frame if the file was replaced since the last read, else ``None``."""
        if not self._opened:
            return None
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None  # no frame yet
        stamp = (st.st_mtime_ns, st.st_ino, st.st_size)
        if stamp == self._stamp:
            return None
        self._stamp = stamp
        import cv2

        frame = cv2.imread(self.path, cv2.IMREAD_COLOR)
        if frame is None:
            self._bad += 1
            self._error = f"camera frame {self.path!r} cannot be decoded"
            return None
        self._frames += 1
        self._last_at = now
        return frame

    def status(self) -> DeviceStatus:
        """Return the camera's health."""
        return DeviceStatus(
            url=self.url, kind="camera", connected=self._opened,
            link="ok" if self._opened else "closed", last_frame_at=self._last_at,
            frames=self._frames, bad_frames=self._bad, retransmissions=0, duplicates=0,
            reconnects=0, last_error=self._error,
        )


class FrameFileSource(FrameBoardSource):
    """:class:`FrameBoardSource` over a :class:`FrameFileCamera`.

    A recognizer error is a :class:`~hardware.base.BadFrame`, not raised.
    """

    def poll(self, now: float) -> list[DeviceEvent]:
        """Read the frame if a new one is there; return a board that changed."""
        try:
            return super().poll(now)
        except TableError as exc:
            return [BadFrame(str(exc))]


class BoardRenderer:
    """Render the dealer's board file into camera frames, in the dealer's process.

    :param board: the board JSON file the dealer writes (:func:`write_board`).
    :param frames: the image file replaced atomically with each new frame (its extension names
        the format: ``.bmp``, uncompressed, is the cheapest; ``.png``).
    :param faces: the deck's face folder (default the shipped kennard deck).
    :param level: ``easy``, ``medium`` or ``hard`` (:class:`hardware.sim.scene.Level`).
    :param seed: the simulated camera's seed (same camera all along).
    :raises ConfigError: for a level that does not render.
    """

    def __init__(self, board: str | os.PathLike[str], frames: str | os.PathLike[str], *,
                 faces: str | os.PathLike[str] | None = None, level: str = "easy",
                 seed: int = 0) -> None:
        if level not in LEVELS or level == "exact":
            raise ConfigError(f"renderer level must be easy, medium or hard, got {level!r}")
        from calibration.faces import load_face_folder
        from hardware.sim.camera import DEFAULT_FACES, SimCamera
        from hardware.sim.scene import Level

        self.board = os.fspath(board)
        self.frames = os.fspath(frames)
        self.faces = load_face_folder(os.fspath(faces or DEFAULT_FACES))
        self.sim = SimCamera(self.faces, url=f"sim://camera?level={level}&seed={seed}",
                             level=Level(level), seed=seed)
        self.sim.open()
        self.rendered = 0
        self.last_error: str | None = None
        self._stamp: tuple[int, int] | None = None
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def calibrate(self, profile: str | os.PathLike[str], now: float = 0.0) -> None:
        """Calibrate on the empty board (ArUco markers), save the profile, write that frame.

        :raises CalibrationError: if the rendered board cannot be calibrated.
        """
        from calibration.camera import calibrate_camera, save_profile

        with self._lock:
            frame = self._frame(BoardObserved(EMPTY), now)
            save_profile(calibrate_camera(frame, self.faces), os.fspath(profile))
            self._write(frame)

    def render(self, board: BoardObserved, now: float) -> None:
        """Lay ``board`` out, render one frame and replace the frames file with it."""
        with self._lock:
            self._write(self._frame(board, now))

    def poll(self, now: float) -> bool:
        """Render the board file if it changed since the last poll; tell whether it did.

        A board file that is not valid keeps the last frame (the error is kept in
        :attr:`last_error`); a missing one is an empty board.
        """
        try:
            st = os.stat(self.board)
            stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_ino)
        except FileNotFoundError:
            stamp = None
        if stamp == self._stamp:
            return False
        self._stamp = stamp
        if stamp is None:
            board = BoardObserved(EMPTY)
        else:
            try:
                with open(self.board, encoding="utf-8") as fh:
                    board = parse_board(fh.read())
            except (OSError, ValueError) as exc:
                self.last_error = str(exc)
                return False
        self.render(board, now)
        return True

    def start(self, interval: float = 0.02) -> None:
        """Render in a thread: poll the board file every ``interval`` seconds until stopped."""
        if self._thread is not None:
            return
        self._stop.clear()

        def run() -> None:
            while not self._stop.is_set():
                looked = time.monotonic()
                try:
                    self.poll(looked)
                except TableError as exc:
                    self.last_error = str(exc)
                self._stamp_look(looked)
                self._stop.wait(interval)

        self._thread = threading.Thread(target=run, name="board-renderer", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread (a frame being rendered is finished first) and its look stamps."""
        thread, self._thread = self._thread, None
        if thread is not None:
            self._stop.set()
            thread.join(10.0)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(seen_path(self.frames))

    def _stamp_look(self, looked: float) -> None:
        """Stamp the time of a look whose frame is written (:func:`seen_path`)."""
        path = seen_path(self.frames)
        tmp = f"{path}.{os.getpid()}.tmp"
        try:
            with open(tmp, "w", encoding="ascii") as fh:
                fh.write(f"{looked:.6f}")
            os.replace(tmp, path)
        except OSError as exc:
            self.last_error = str(exc)

    def close(self) -> None:
        """Stop and release the simulated camera."""
        self.stop()
        self.sim.close()

    def _frame(self, board: BoardObserved, now: float) -> Any:
        sim = self.sim
        sim.clear()
        sim.uncover()
        for slot, code in enumerate(board.slots):
            if code is not None:
                sim.place(slot, Card.parse(code))
        if board.occluded:
            sim.occlude(board.occluded[0])
        frame = sim.read_frame(now)
        assert frame is not None
        return frame

    def _write(self, frame: Any) -> None:
        import cv2

        # the format the frames file names: ``.bmp`` costs ~5 ms of CPU to write and ~8 ms to
        # read on a 1920x1080 frame, a PNG ~190 ms and ~50 ms (on a saturated machine the PNG
        # alone delayed frames past the camera window)
        ext = os.path.splitext(self.frames)[1] or ".png"
        tmp = f"{self.frames}.{os.getpid()}.tmp{ext}"
        params = [cv2.IMWRITE_PNG_COMPRESSION, 1] if ext.lower() == ".png" else []
        if not cv2.imwrite(tmp, frame, params):
            raise TableError(f"cannot write camera frame {tmp!r}")
        os.replace(tmp, self.frames)
        self.rendered += 1


register_scheme("sim://camera", open_board_file, kind="board", defaults=board_defaults)
register_scheme("sim://camera", open_sim_camera, kind="camera")
