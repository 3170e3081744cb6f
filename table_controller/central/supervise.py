"""Start the journal shipper beside the daemon and keep it running.

The shipper is its own process (``table-controller central ship``): a slow or dead central store,
or a crash in the shipper, never touches the daemon. :class:`ShipperSupervisor` starts it,
restarts it with back-off when it ends (except when it refused the journal: exit 4, a tampered
or forked journal, which needs a person), and stops it with SIGTERM when the daemon stops. On
Linux the shipper also dies with the daemon (``PR_SET_PDEATHSIG``) after a kill -9.

The daemon, when ``[central] url`` is set::

    from table_controller.central.supervise import ShipperSupervisor, ship_argv

    shipper = ShipperSupervisor(ship_argv(config.journal.path, config.table.id,
                                          config.central.url, config_path=config.source))
    await shipper.start()
    stack.push_async_callback(shipper.stop)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

log = logging.getLogger(__name__)

#: The shipper's exit status when it refused the journal (not restarted).
REFUSED = 4


def ship_argv(
    journal: Path,
    table_id: str,
    url: str,
    *,
    config_path: Path | None = None,
    status_file: Path | None = None,
    batch: int = 500,
    python: str = sys.executable,
) -> list[str]:
    """Return the command line of a shipper for one table.

    ``config_path`` (the table's configuration) lets the shipper read the deck profile, to store
    the hole cards in the central ``hands`` rows; the URL is given on the command line, so that
    a configuration without ``[central]`` can still ship. The URL may hold a password: prefer
    a ``~/.pgpass`` file or ``PGPASSWORD`` in the service's environment.
    """
    argv = [python, "-m", "table_controller", "central", "ship", "--journal", str(journal),
            "--table", table_id, "--url", url, "--batch", str(batch)]
    if config_path is not None:
        argv += ["--config", str(config_path)]
    if status_file is not None:
        argv += ["--status-file", str(status_file)]
    return argv


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class ShipperSupervisor:
    """Runs one shipper process, restarting it when it ends.

    :param argv: the command (see :func:`ship_argv`).
    :param restart_min: first wait before a restart, doubling up to ``restart_max`` (reset after
        a run that lasted over a minute).
    :param log_path: append the shipper's output here (``None``: inherit the daemon's stderr).
    """

    def __init__(self, argv: Sequence[str], *, restart_min: float = 1.0,
                 restart_max: float = 60.0, log_path: Path | None = None) -> None:
        self.argv = list(argv)
        self.restart_min = restart_min
        self.restart_max = restart_max
        self.log_path = log_path
        self._task: asyncio.Task[None] | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self.starts = 0
        self.refused = False

    @property
    def pid(self) -> int | None:
        """The running shipper's process id."""
        return None if self._proc is None or self._proc.returncode is not None \
            else self._proc.pid

    async def start(self) -> None:
        """Start the shipper (returns at once)."""
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name="central-shipper")

    async def stop(self, timeout: float = 10.0) -> None:
        """Stop the shipper: SIGTERM, then SIGKILL after ``timeout`` seconds."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        proc = self._proc
        if proc is not None and proc.returncode is None:
            proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), timeout)
            except TimeoutError:
                proc.kill()
                await proc.wait()

    async def _loop(self) -> None:
        delay = self.restart_min
        loop = asyncio.get_running_loop()
        while True:
            out = open(self.log_path, "ab") if self.log_path is not None else None  # noqa: SIM115
            try:
                self._proc = await asyncio.create_subprocess_exec(
                    *self.argv, stdin=asyncio.subprocess.DEVNULL, stdout=out, stderr=out,
                    preexec_fn=_die_with_parent if sys.platform == "linux" else None)
            finally:
                if out is not None:
                    out.close()
            self.starts += 1
            began = loop.time()
            code = await self._proc.wait()
            if code == REFUSED:
                self.refused = True
                log.error("the central shipper refused the journal (tampered or forked); "
                          "not restarted: see its log and run table-controller central verify")
                return
            if loop.time() - began > 60:
                delay = self.restart_min
            log.warning("the central shipper ended (exit %s); restarting in %.0f s", code, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.restart_max)
