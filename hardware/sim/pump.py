"""The one pump thread of the simulated devices: wait for the host's bytes, then :meth:`pump`.

A simulator is sans-thread by default (tests step its clock and call ``pump`` themselves);
:meth:`PumpThread.start` runs the pump in a daemon thread for demos and other processes.
"""

from __future__ import annotations

import select
import threading
import time

from hardware.sim.pty import PtyPort


class PumpThread:
    """Mixin: ``start`` / ``stop`` / ``close`` around the subclass's ``pump()``.

    The subclass sets ``self._lock`` (an ``RLock``) and ``self.port`` (its :class:`PtyPort`)
    and calls :meth:`_init_pump` in its constructor.
    """

    _lock: threading.RLock
    port: PtyPort

    def _init_pump(self) -> None:
        self._thread: threading.Thread | None = None
        self._running = False

    def pump(self) -> None:
        """Answer what the host sent (the subclass's)."""
        raise NotImplementedError

    def start(self, poll_interval: float = 0.002) -> None:
        """Run :meth:`pump` in a daemon thread until :meth:`stop` (idempotent)."""
        with self._lock:
            if self._running:
                return
            self._running = True
            self._thread = threading.Thread(
                target=self._run, args=(poll_interval,), name=type(self).__name__, daemon=True
            )
            self._thread.start()

    def stop(self) -> None:
        """Stop the pump thread."""
        with self._lock:
            self._running = False
            thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=2.0)

    def close(self) -> None:
        """Stop and remove the port."""
        self.stop()
        with self._lock:
            self.port.close()

    def _run(self, poll_interval: float) -> None:
        while self._running:
            fd = self.port.fileno()
            if fd is None:
                time.sleep(poll_interval)
            else:
                try:
                    select.select([fd], [], [], poll_interval)
                except (OSError, ValueError):
                    time.sleep(poll_interval)
            if self._running:
                self.pump()
