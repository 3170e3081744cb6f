"""A board source run in a process of its own: recognition off the caller's interpreter.

Recognising a 1920x1080 frame costs milliseconds of CPU, most of it in Python and NumPy code
that holds the GIL. Run in a thread of the daemon's process at 10 frames a second, it delays
the daemon's event loop, and so its serial path, by up to a few milliseconds at a time
(docs/benchmarks.md, "Board camera"). :class:`ProcessBoardSource` runs the board source (the
camera, the recogniser, the stabiliser: whatever :func:`hardware.base.open_board_source` builds
for the URL) in a child process; its :meth:`~ProcessBoardSource.poll` sends ``now`` down a pipe
and waits (GIL released) for that frame's events.

Rules this module keeps:

1. Same behaviour as the source in-process: each :meth:`~ProcessBoardSource.poll` that is due
   (every ``interval`` of the ``now`` passed in) is one ``poll(now)`` of the child's source,
   which returns its events; ``status()`` and ``looked_at()`` are the child source's as of the
   last answer.
2. A child that does not start raises at :meth:`~ProcessBoardSource.open`, with the child's own
   error (a bad URL is a :class:`~table_controller.errors.ConfigError` as in-process). A child
   that dies or does not answer within ``timeout`` is stopped, reported ``"lost"`` once (logged
   once) and started again ``retry`` seconds of ``now`` later; polls meanwhile return nothing.
3. The child process does the recognition on one OpenCV thread and one BLAS thread
   (:func:`~hardware.camera.onecore.one_core`): one core, as the recogniser's budget is
   measured.
4. The child runs ``niceness`` (default :data:`CHILD_NICENESS`) below the caller's priority:
   where the daemon and the recogniser both want a core, the daemon's event loop (its serial
   devices) gets it first; the recogniser takes what the daemon leaves, which on an idle core is
   all of it.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
from collections.abc import Mapping
from dataclasses import replace
from multiprocessing.connection import Connection
from typing import Any

from hardware.base import DeviceEvent, DeviceStatus, LookTimed, open_board_source
from hardware.camera.source import next_due
from table_controller.errors import CalibrationError, ConfigError, DeviceError, TableError

log = logging.getLogger(__name__)

#: Seconds a child may take to start (imports, the face bank) and to answer one poll.
START_TIMEOUT = 60.0
POLL_TIMEOUT = 10.0
#: How much lower the child's scheduling priority is than its parent's (``nice`` steps).
CHILD_NICENESS = 5
_ERRORS: dict[str, type[TableError]] = {
    "ConfigError": ConfigError, "CalibrationError": CalibrationError, "DeviceError": DeviceError,
}


def serve(conn: Connection, url: str, options: Mapping[str, Any], niceness: int = 0) -> None:
    """Child process: open the board source for ``url`` and answer polls until told to stop.

    ``niceness`` is added to the process's ``nice`` value first (rule 4).

    Messages in: ``("poll", seq, now)`` or ``("close",)``. Out: ``("ready", status, interval)``
    or ``("error", kind, text)`` once, then ``("events", seq, events, status, looked_at)`` or
    ``("failed", seq, text)`` per poll.
    """
    from hardware.camera.onecore import one_core

    if niceness > 0:
        os.nice(niceness)
    one_core()
    # Ctrl-C at a terminal reaches the whole process group: the parent decides when to stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        source = open_board_source(url, **options)
        source.open()
    except TableError as exc:
        conn.send(("error", type(exc).__name__, str(exc)))
        return
    try:
        conn.send(("ready", source.status(), float(getattr(source, "interval", 0.0))))
        while True:
            msg = conn.recv()
            if msg[0] != "poll":
                break
            _, seq, now = msg
            try:
                events = source.poll(now)
            except Exception as exc:  # reported to the parent, which raises it
                conn.send(("failed", seq, f"{type(exc).__name__}: {exc}"))
                continue
            looked = source.looked_at() if isinstance(source, LookTimed) else None
            conn.send(("events", seq, events, source.status(), looked))
    except (EOFError, OSError):
        pass  # the parent is gone
    finally:
        source.close()


class ProcessBoardSource:
    """A :class:`hardware.base.BoardSource` whose work runs in a child process.

    :param url: the board source's URL, opened in the child with ``options`` (which must
        pickle: a camera profile does).
    :param interval: seconds between polls that reach the child (the child source's own
        ``interval`` once it has started), on a fixed grid
        (:func:`~hardware.camera.source.next_due`, as the child's source keeps its own).
    :param retry: seconds of ``now`` before a lost child is started again.
    :param niceness: how much lower the child's priority is than this process's (rule 4; 0:
        the same).
    :raises ConfigError: for a negative ``niceness``.
    """

    def __init__(self, url: str, options: Mapping[str, Any] | None = None, *,
                 interval: float = 0.1, retry: float = 2.0,
                 timeout: float = POLL_TIMEOUT, start_timeout: float = START_TIMEOUT,
                 niceness: int = CHILD_NICENESS) -> None:
        if niceness < 0:
            raise ConfigError(f"board source {url!r}: niceness={niceness} must not be negative "
                              "(the child cannot run ahead of the daemon)")
        self.niceness = niceness
        self.url = url
        self.options = dict(options or {})
        self.interval = interval
        self.retry = retry
        self.timeout = timeout
        self.start_timeout = start_timeout
        self._proc: Any = None
        self._conn: Connection | None = None
        self._seq = 0
        self._next = 0.0
        self._restart_at: float | None = None
        self._restarts = 0
        self._looked: float | None = None
        self._status = DeviceStatus(url=url, kind="camera", connected=False, link="closed",
                                    last_frame_at=None, frames=0, bad_frames=0,
                                    retransmissions=0, duplicates=0, reconnects=0)

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs."""
        return None if self._proc is None else int(self._proc.pid)

    def open(self) -> None:
        """Start the child and open the source there.

        :raises ConfigError, CalibrationError, DeviceError: the child's error opening the
            source, or :class:`DeviceError` if it did not start within ``start_timeout``.
        """
        if self._proc is not None:
            return
        self._start()

    def _start(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        conn, child = ctx.Pipe()
        proc = ctx.Process(target=serve, args=(child, self.url, self.options, self.niceness),
                           name="board-recogniser", daemon=True)
        proc.start()
        child.close()
        try:
            msg = conn.recv() if conn.poll(self.start_timeout) else None
        except (EOFError, OSError):
            msg = None
        if msg is None or msg[0] != "ready":
            conn.close()
            proc.join(1.0)
            if proc.is_alive():
                proc.kill()
                proc.join()
            if msg is None:
                raise DeviceError(f"board source {self.url!r}: the recogniser process did not "
                                  f"start (exit code {proc.exitcode})")
            raise _ERRORS.get(msg[1], DeviceError)(msg[2])
        self._proc, self._conn = proc, conn
        self._status = replace(msg[1], reconnects=self._restarts)
        self.interval = msg[2] or self.interval

    def close(self) -> None:
        """Stop the child (it closes its source first)."""
        proc, conn = self._proc, self._conn
        self._proc = self._conn = None
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.send(("close",))
            conn.close()
        if proc is not None:
            proc.join(5.0)
            if proc.is_alive():
                proc.kill()
                proc.join()
        self._status = replace(self._status, connected=False, link="closed")

    def next_poll_at(self) -> float:
        """Return when the next frame is due (:class:`~hardware.base.Paced`)."""
        return self._next

    def poll(self, now: float) -> list[DeviceEvent]:
        """Poll the child's source if a frame is due; return its events.

        :raises DeviceError: if the child's ``poll`` raised (its error's text).
        """
        if now < self._next:
            return []
        self._next = next_due(self._next, now, self.interval)
        if self._conn is None:
            if self._restart_at is None or now < self._restart_at:
                return []
            return self._restart(now)
        self._seq += 1
        try:
            self._conn.send(("poll", self._seq, now))
            while True:
                if not self._conn.poll(self.timeout):
                    self._lose(now, f"no answer in {self.timeout:g} s")
                    return []
                msg = self._conn.recv()
                if msg[1] == self._seq:
                    break
        except (EOFError, OSError) as exc:
            self._lose(now, f"the recogniser process ended ({exc or type(exc).__name__})")
            return []
        if msg[0] == "failed":
            raise DeviceError(f"board source {self.url!r}: {msg[2]}")
        _, _, events, status, self._looked = msg
        self._status = replace(status, reconnects=status.reconnects + self._restarts)
        return list(events)

    def _restart(self, now: float) -> list[DeviceEvent]:
        self._restart_at = None
        try:
            self._start()
        except TableError as exc:
            self._restart_at = now + self.retry
            self._status = replace(self._status, last_error=str(exc))
            return []
        self._restarts += 1
        self._status = replace(self._status, reconnects=self._status.reconnects + 1)
        log.info("board source %s: recogniser process started again", self.url)
        return []

    def _lose(self, now: float, why: str) -> None:
        proc = self._proc
        if self._conn is not None:
            self._conn.close()
        self._proc = self._conn = None
        if proc is not None:
            proc.kill()
            proc.join()
        self._restart_at = now + self.retry
        self._status = replace(self._status, connected=False, link="lost", last_error=why)
        log.warning("board source %s lost: %s", self.url, why)

    def looked_at(self) -> float | None:
        """When the child's camera last looked at the board, if it knows (else None)."""
        return self._looked

    def status(self) -> DeviceStatus:
        """Return the child source's health as of its last answer (``"lost"`` while down)."""
        return self._status
