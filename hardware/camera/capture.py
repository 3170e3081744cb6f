"""A real board camera through ``cv2.VideoCapture``: device index, device path, file or stream.

URLs (see :func:`hardware.base.open_camera`)::

    camera://0                         device index 0
    camera:///dev/video0               device path (also a video file path)
    camera://?url=rtsp://host/stream   a stream URL (any URL cv2.VideoCapture accepts)

Options (URL query or keyword): ``width``, ``height`` (requested capture size), ``fps``,
``fourcc`` (the pixel format asked of a device, default ``MJPG``; ``none`` asks for none),
``retry`` (seconds between reopen attempts once lost, default 2), ``lost_after`` (failed grabs in a
row before the camera counts as lost, default 5), ``buffer`` (frames the capture may queue, default
1 for a device; ``none`` leaves the backend's own).

Fresh frames: a device delivers frames at its own rate (often 30 a second) while the board source
reads about 10 a second; with V4L2's default queue of 4 buffers each frame read would then be the
oldest queued, up to 4 frames (about 0.13 s) old. A device is therefore asked for a queue of one
frame (``CAP_PROP_BUFFERSIZE``; a backend that refuses says so in the log).

Pixel format: a device (``camera://0``, ``camera:///dev/video0``) is asked for MJPEG (V4L2
``MJPG``) before its size: a 1920x1080 MJPEG frame decodes in about 5 ms of CPU, where raw YUYV
needs 4 MB a frame over USB 2 (5 fps at most at that size on most webcams) and a lossless
format as PNG takes 25-35 ms to decode. A device that cannot deliver MJPEG keeps its own format
(``fourcc=YUYV`` asks for raw frames). Files and stream URLs are read as they are encoded.

Rules: :meth:`CvCamera.read_frame` never raises for a failed grab; it counts it, reports the
camera lost once after ``lost_after`` failures in a row, and retries opening at most every
``retry`` seconds of the ``now`` it is given. :meth:`CvCamera.open` raises
:class:`~table_controller.errors.DeviceError` if the source cannot be opened at all.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from hardware.base import DeviceStatus
from table_controller.errors import ConfigError, DeviceError

Image = npt.NDArray[np.uint8]
log = logging.getLogger(__name__)

_OPTIONS = {"width", "height", "fps", "fourcc", "retry", "lost_after", "url", "device", "buffer"}
#: The pixel format asked of a camera device unless ``fourcc=`` says otherwise.
DEFAULT_FOURCC = "MJPG"


def camera_source(path: str, query: Mapping[str, str]) -> int | str:
    """Return the ``cv2.VideoCapture`` source for a ``camera:`` URL's path and query.

    >>> camera_source("0", {}), camera_source("/dev/video2", {})
    (0, '/dev/video2')
    >>> camera_source("", {"url": "rtsp://cam/1"})
    'rtsp://cam/1'

    :raises ConfigError: if there is no source, or both a path and ``url=``.
    """
    url = query.get("url")
    if url and path:
        raise ConfigError(f"camera URL gives both a device ({path!r}) and url={url!r}")
    if url:
        return url
    if not path:
        raise ConfigError("camera URL names no device: use camera://0, camera:///dev/video0 "
                          "or camera://?url=rtsp://...")
    return int(path) if path.isdigit() else path


def _positive(options: Mapping[str, Any], key: str, default: float | None) -> float | None:
    if key not in options:
        return default
    try:
        value = float(options[key])
    except (TypeError, ValueError):
        raise ConfigError(f"camera option {key}={options[key]!r} is not a number") from None
    if not value > 0:
        raise ConfigError(f"camera option {key}={value} must be positive")
    return value


def camera_fourcc(source: int | str, options: Mapping[str, Any]) -> str | None:
    """Return the four-character pixel format to ask of ``source``, or None to ask none.

    >>> camera_fourcc(0, {}), camera_fourcc("/dev/video2", {"fourcc": "yuyv"})
    ('MJPG', 'YUYV')
    >>> camera_fourcc("board.avi", {}), camera_fourcc(0, {"fourcc": "none"})
    (None, None)

    :raises ConfigError: for a code that is not four characters.
    """
    device = isinstance(source, int) or source.startswith("/dev/")
    value = options.get("fourcc")
    if value is None:
        return DEFAULT_FOURCC if device else None
    code = str(value).upper()
    if code == "NONE":
        return None
    if len(code) != 4 or not code.isascii() or not code.isprintable():
        raise ConfigError(f"camera option fourcc={value!r} is not a four-character code "
                          f"(MJPG, YUYV, ... or none)")
    return code


def camera_buffer(source: int | str, options: Mapping[str, Any]) -> int | None:
    """Return the capture queue length to ask of ``source``, or None to ask none.

    >>> camera_buffer(0, {}), camera_buffer("/dev/video2", {"buffer": "3"})
    (1, 3)
    >>> camera_buffer("board.avi", {}), camera_buffer(0, {"buffer": "none"})
    (None, None)

    :raises ConfigError: for a value that is not a whole number from 1 to 32 (or ``none``).
    """
    device = isinstance(source, int) or source.startswith("/dev/")
    value = options.get("buffer")
    if value is None:
        return 1 if device else None
    text = str(value).strip().lower()
    if text == "none":
        return None
    if not text.isdigit() or not 1 <= int(text) <= 32:
        raise ConfigError(f"camera option buffer={value!r} is not a whole number of frames "
                          "from 1 to 32 (or none)")
    return int(text)


class CvCamera:
    """A :class:`hardware.base.BoardCamera` backed by ``cv2.VideoCapture``."""

    def __init__(self, url: str, source: int | str, options: Mapping[str, Any] | None = None):
        opts = dict(options or {})
        unknown = sorted(set(opts) - _OPTIONS)
        if unknown:
            raise ConfigError(f"camera {url!r}: unknown options {unknown}")
        self.url = url
        self.source = source
        self.width = _positive(opts, "width", None)
        self.height = _positive(opts, "height", None)
        self.fps = _positive(opts, "fps", None)
        self.fourcc = camera_fourcc(source, opts)
        self.buffer = camera_buffer(source, opts)
        self.retry = _positive(opts, "retry", 2.0) or 2.0
        self.lost_after = int(_positive(opts, "lost_after", 5.0) or 5)
        self._cap: Any = None
        self._link = "closed"
        self._frames = 0
        self._failures = 0
        self._in_a_row = 0
        self._reconnects = 0
        self._last_frame_at: float | None = None
        self._last_error: str | None = None
        self._next_retry = 0.0

    def _open_capture(self) -> Any:
        import cv2

        cap = cv2.VideoCapture(self.source)
        if not cap.isOpened():
            cap.release()
            return None
        if self.fourcc is not None:
            # Before the size: V4L2 picks the sizes a format offers.
            cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter.fourcc(*self.fourcc))
        for prop, value in ((cv2.CAP_PROP_FRAME_WIDTH, self.width),
                            (cv2.CAP_PROP_FRAME_HEIGHT, self.height),
                            (cv2.CAP_PROP_FPS, self.fps)):
            if value is not None:
                cap.set(prop, value)
        if self.buffer is not None and (not cap.set(cv2.CAP_PROP_BUFFERSIZE, self.buffer)
                                        or int(cap.get(cv2.CAP_PROP_BUFFERSIZE)) != self.buffer):
            log.warning("camera %s: asked for a queue of %d frame(s), the backend keeps its own",
                        self.url, self.buffer)
        if self.fourcc is not None:
            got = int(cap.get(cv2.CAP_PROP_FOURCC))
            code = "".join(chr((got >> (8 * i)) & 0xFF) for i in range(4))
            if code != self.fourcc:
                log.warning("camera %s: asked for %s frames, delivers %r", self.url, self.fourcc,
                            code)
        return cap

    def open(self) -> None:
        """Open the capture.

        :raises DeviceError: if ``cv2.VideoCapture`` cannot open the source.
        """
        if self._cap is not None:
            return
        cap = self._open_capture()
        if cap is None:
            self._last_error = f"cannot open camera source {self.source!r}"
            raise DeviceError(f"camera {self.url!r}: {self._last_error}")
        self._cap = cap
        self._link = "waiting"

    def close(self) -> None:
        """Release the capture."""
        if self._cap is not None:
            self._cap.release()
        self._cap = None
        self._link = "closed"

    def read_frame(self, now: float) -> Image | None:
        """Grab one BGR frame, or None if the grab failed (counted; see the module rules)."""
        if self._link == "closed":
            return None
        if self._cap is None:
            if now < self._next_retry:
                return None
            self._cap = self._open_capture()
            if self._cap is None:
                self._next_retry = now + self.retry
                return None
            self._reconnects += 1
            log.info("camera %s reopened", self.url)
        ok, frame = self._cap.read()
        if not ok or frame is None:
            self._failures += 1
            self._in_a_row += 1
            if self._in_a_row >= self.lost_after and self._link != "lost":
                self._link = "lost"
                self._last_error = f"{self._in_a_row} failed grabs in a row"
                log.warning("camera %s lost: %s", self.url, self._last_error)
                self._cap.release()
                self._cap = None
                self._next_retry = now + self.retry
            return None
        if self._link == "lost":
            log.info("camera %s recovered", self.url)
        self._link = "ok"
        self._in_a_row = 0
        self._frames += 1
        self._last_frame_at = now
        return np.asarray(frame, dtype=np.uint8)

    def status(self) -> DeviceStatus:
        """Return a snapshot of the camera's health."""
        return DeviceStatus(
            url=self.url, kind="camera", connected=self._cap is not None, link=self._link,
            last_frame_at=self._last_frame_at, frames=self._frames, bad_frames=self._failures,
            retransmissions=0, duplicates=0, reconnects=self._reconnects,
            last_error=self._last_error,
        )
