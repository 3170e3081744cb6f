"""The device side of a pseudo-terminal, with a stable path that survives unplugging.

A simulated device owns the master end of an ``os.openpty()`` pair and writes the exact wire
bytes; the driver opens the slave through pyserial like any serial port. ``/dev/pts/N`` changes
every time a pair is created, so the simulator publishes a symbolic link (like
``/dev/serial/by-id/...``) and repoints it on re-plug. Unplugging closes both ends and removes the
link, so the driver goes down the real error path: ``read()`` raises ``SerialException``,
``in_waiting`` ``OSError`` (EIO), and reopening the link ``SerialException`` (errno 2) until the
device is plugged in again.

Rules: the master is non-blocking; writes that do not fit are queued and flushed by
:meth:`PtyPort.flush`, never dropped while plugged in; writes while unplugged are dropped (there
is no wire). The slave is put in raw mode at once so nothing is echoed before the driver opens it.

:class:`PtyGuard` is the one defence against stale links: it keeps the pty numbers that links
left by other runs point to, so a new simulator never gets one.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
import time
import tty


def raw_pty() -> tuple[int, int]:
    """Return a new pty pair ``(master, slave)``, the slave in raw mode (nothing echoed).

    The one place a pseudo-terminal is made: the simulators, the stale-link guard and the
    benchmarks' bare baselines all take theirs here.
    """
    master, slave = os.openpty()
    tty.setraw(slave)
    return master, slave


class PtyPort:
    """One simulated serial port.

    :param link_path: the stable path to publish; a fresh temporary path when ``None``.
    """

    def __init__(self, link_path: str | None = None) -> None:
        self._tmpdir: str | None = None
        if link_path is None:
            self._tmpdir = tempfile.mkdtemp(prefix="simport-")
            link_path = os.path.join(self._tmpdir, "tty")
        self.link_path = link_path
        self._master: int | None = None
        self._slave: int | None = None
        self._out = b""
        self.plugs = 0
        #: ``time.monotonic()`` just before the last :meth:`write` wrote (benchmarks time a
        #: frame from it); ``None`` before the first
        self.written_at: float | None = None
        self.plug()

    @property
    def plugged(self) -> bool:
        """True while the port exists."""
        return self._master is not None

    @property
    def slave_name(self) -> str | None:
        """The current ``/dev/pts/N`` (changes at every re-plug), or ``None`` when unplugged."""
        return None if self._slave is None else os.ttyname(self._slave)

    def fileno(self) -> int | None:
        """Return the master file descriptor, or ``None`` when unplugged."""
        return self._master

    def plug(self) -> None:
        """Create a new pty pair and point the stable link at its slave."""
        if self._master is not None:
            return
        master, slave = raw_pty()
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        tmp = f"{self.link_path}.{os.getpid()}.new"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.link_path)
        self.plugs += 1

    def unplug(self) -> None:
        """Remove the link and close both ends: the driver sees the real unplug errors."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.link_path)
        for fd in (self._master, self._slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = None
        self._out = b""

    def write(self, data: bytes) -> None:
        """Queue ``data`` for the host and write as much as fits now."""
        if self._master is None:
            return
        self._out += data
        self.written_at = time.monotonic()
        self.flush()

    def flush(self) -> None:
        """Write queued bytes that fit in the pty buffer."""
        while self._out and self._master is not None:
            try:
                n = os.write(self._master, self._out)
            except BlockingIOError:
                return
            except OSError as exc:
                if exc.errno in (errno.EIO, errno.EAGAIN):
                    return
                raise
            self._out = self._out[n:]

    @property
    def backlog(self) -> int:
        """Bytes queued but not yet written."""
        return len(self._out)

    def read(self) -> bytes:
        """Read what the host wrote (non-blocking; empty when nothing or unplugged)."""
        if self._master is None:
            return b""
        chunks = []
        while True:
            try:
                chunk = os.read(self._master, 65536)
            except (BlockingIOError, InterruptedError):
                break
            except OSError as exc:
                if exc.errno == errno.EIO:
                    break
                raise
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        """Unplug for good and remove the temporary directory."""
        self.unplug()
        if self._tmpdir is not None:
            with contextlib.suppress(OSError):
                os.rmdir(self._tmpdir)
            self._tmpdir = None


class PtyGuard:
    """Keeps pty numbers that stray links in ``/tmp`` point to away from new simulators.

    A daemon orphaned by someone else's run retries its simulator's dangling link (say
    ``/tmp/table-sim-x/shoe.tty -> /dev/pts/1``) and grabs whatever pty next gets that number.
    :meth:`prepare` opens ptys until every free number such a link names is taken, keeps those
    (the stray process may have them) and gives the others back, so the next ptys a simulator
    makes get numbers nobody else is waiting for. :meth:`close` releases what it kept.

    :param own_dir: a directory whose links are ours (left out of the search).
    """

    def __init__(self, own_dir: str | os.PathLike[str] | None = None) -> None:
        self.own_dir = None if own_dir is None else os.path.realpath(own_dir)
        self.held: list[tuple[int, int]] = []

    def poisoned(self) -> set[str]:
        """Return the ``/dev/pts/N`` targets of links in the folders under ``/tmp`` (not ours)."""
        out: set[str] = set()
        with contextlib.suppress(OSError):
            for top in os.scandir("/tmp"):
                if not top.is_dir(follow_symlinks=False):
                    continue
                if self.own_dir is not None and os.path.realpath(top.path) == self.own_dir:
                    continue
                with contextlib.suppress(OSError):
                    for f in os.scandir(top.path):
                        if f.is_symlink():
                            with contextlib.suppress(OSError):
                                target = os.readlink(f.path)
                                if target.startswith("/dev/pts/"):
                                    out.add(target)
        return out

    def prepare(self) -> None:
        """Take every free pty number a stray link points to (see the class docstring)."""
        bad = self.poisoned()
        numbers = [int(b.rsplit("/", 1)[1]) for b in bad if b.rsplit("/", 1)[1].isdigit()]
        if not numbers:
            return
        top = max(numbers)
        spare: list[tuple[int, int]] = []
        try:
            for _ in range(top + 2):
                m, sl = raw_pty()
                name = os.ttyname(sl)
                if name in bad:
                    self.held.append((m, sl))
                else:
                    spare.append((m, sl))
                if int(name.rsplit("/", 1)[1]) >= top:
                    break
        finally:
            for m, sl in spare:
                os.close(m)
                os.close(sl)

    def close(self) -> None:
        """Release the ptys kept."""
        for m, sl in self.held:
            with contextlib.suppress(OSError):
                os.close(m)
            with contextlib.suppress(OSError):
                os.close(sl)
        self.held.clear()
