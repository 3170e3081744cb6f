"""A network camera for tests: a frames file served as an MJPEG stream over HTTP.

:class:`MjpegStream` serves the image file a :class:`~hardware.sim.camera_link.BoardRenderer`
keeps replacing (or any image file) as ``multipart/x-mixed-replace`` JPEG frames, as IP cameras
and ``mjpg-streamer`` do, at ``fps`` frames a second: a ``camera://?url=http://...`` board
source reads it through ``cv2.VideoCapture`` (FFmpeg's MJPEG demuxer), decoding every frame
as it would a real camera's.

Rules: the file is read and encoded again only when it changed (its modification time or
inode); a file that cannot be read keeps the last frame; a client that goes away ends its own
connection only. Runs in threads of the caller's process; :meth:`MjpegStream.close` stops them.
"""

from __future__ import annotations

import contextlib
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import cv2

#: The multipart boundary between frames.
BOUNDARY = b"frame"


class MjpegStream:
    """Serve ``frames`` (an image file) as an MJPEG stream on ``http://127.0.0.1:PORT/``.

    :param frames: the image file to serve (read again whenever it is replaced).
    :param fps: frames sent a second to each client.
    :param quality: JPEG quality of the frames sent.
    """

    def __init__(self, frames: str | os.PathLike[str], *, fps: float = 10.0,
                 quality: int = 90) -> None:
        self.frames = os.fspath(frames)
        self.fps = fps
        self.quality = quality
        #: Frames sent, to all clients.
        self.sent = 0
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._jpeg: bytes | None = None
        self._stop = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The stream's URL (once started)."""
        assert self._server is not None, "start() the stream first"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/board.mjpg"

    def start(self) -> str:
        """Start serving on a free port of 127.0.0.1; return the stream's URL."""
        if self._server is None:
            stream = self

            class Handler(BaseHTTPRequestHandler):
                def do_GET(self) -> None:
                    stream._serve(self)

                def log_message(self, format: str, *args: Any) -> None:
                    pass

            self._stop.clear()
            self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
            self._server.daemon_threads = True
            self._thread = threading.Thread(target=self._server.serve_forever,
                                            name="mjpeg-stream", daemon=True)
            self._thread.start()
        return self.url

    def close(self) -> None:
        """Stop serving (open connections end at their next frame)."""
        self._stop.set()
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(5.0)
            self._thread = None

    def __enter__(self) -> MjpegStream:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _frame(self) -> bytes | None:
        """Return the current frame as JPEG bytes (encoded again only if the file changed)."""
        with self._lock:
            try:
                st = os.stat(self.frames)
            except OSError:
                return self._jpeg
            stamp = (st.st_mtime_ns, st.st_ino)
            if stamp != self._stamp:
                image = cv2.imread(self.frames, cv2.IMREAD_COLOR)
                if image is not None:
                    ok, data = cv2.imencode(".jpg", image,
                                            [cv2.IMWRITE_JPEG_QUALITY, self.quality])
                    if ok:
                        self._jpeg, self._stamp = data.tobytes(), stamp
            return self._jpeg

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type",
                            f"multipart/x-mixed-replace; boundary={BOUNDARY.decode()}")
        handler.send_header("Cache-Control", "no-cache")
        handler.end_headers()
        with contextlib.suppress(OSError):  # the client went away
            while not self._stop.is_set():
                jpeg = self._frame()
                if jpeg is not None:
                    handler.wfile.write(b"--" + BOUNDARY + b"\r\nContent-Type: image/jpeg\r\n"
                                        + f"Content-Length: {len(jpeg)}\r\n\r\n".encode()
                                        + jpeg + b"\r\n")
                    handler.wfile.flush()
                    with self._lock:
                        self.sent += 1
                self._stop.wait(1.0 / self.fps)
