"""The simulated devices of a :class:`~table_controller.simtable.rig.SimRig` in their own process.

:class:`DeviceProcess` runs ``table-controller sim run`` (the devices an integrator uses) as a
child process and waits for its ``ready`` line; :class:`RemoteShoe` and :class:`RemoteChips`
are the dealer's hands on them, through the control socket (``docs/protocol.md``): the
:class:`~table_controller.simtable.daemon_io.CardFeeder` and
:class:`~table_controller.simtable.felt.ChipSurface` the dealer works, as the in-process
simulators are.

Rules this module keeps:

1. A request the devices refuse raises :class:`~.bench.BenchError` with their one-line reason
   (the dealer's felt turns it into its own error as for an in-process simulator).
2. :meth:`DeviceProcess.stop` is idempotent: SIGTERM, then SIGKILL after a grace period.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from calibration.chips import ChipConfig
from calibration.deck import DeckProfile
from table_controller.simtable.devices.bench import BenchError
from table_controller.simtable.devices.control import ControlClient

if TYPE_CHECKING:
    from table_controller.simtable.rig import RigOptions


class DeviceProcess:
    """``table-controller sim run --dir DIR ...`` as a child process.

    :param directory: its directory (the ports are ``DIR/shoe`` and ``DIR/chips``).
    :param args: more arguments (``--seed``, ``--seats``, ``--shoe``, ...).
    :param log: where its standard error goes.
    """

    def __init__(self, directory: Path, args: Sequence[str], log: Path) -> None:
        self.dir = directory
        self.args = list(args)
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None
        self.ctl: ControlClient | None = None

    def start(self, timeout: float) -> None:
        """Start it and wait for ``ready``; connect to its control socket.

        :raises BenchError: if it exits or is not ready within ``timeout`` seconds.
        """
        with self.log.open("ab") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "table_controller", "sim", "run", "--dir", str(self.dir),
                 *self.args], stdout=subprocess.PIPE, stderr=err, start_new_session=True,
                env={**os.environ, "PYTHONUNBUFFERED": "1"})
        out = self.process.stdout
        assert out is not None
        line, deadline = b"", time.monotonic() + timeout
        while not line.endswith(b"\n"):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise BenchError(f"sim run in {self.dir} was not ready: "
                                 f"{self.log.read_text(errors='replace')[-2000:]}")
            ready, _, _ = select.select([out], [], [], 0.2)
            if ready:
                chunk = os.read(out.fileno(), 64)
                if not chunk:
                    continue
                line += chunk
        if line.strip() != b"ready":
            raise BenchError(f"sim run said {line!r}, not ready")
        self.ctl = ControlClient(self.dir / "ctl.sock")

    def stop(self, grace: float = 10.0) -> None:
        """Stop it (SIGTERM, then SIGKILL after ``grace``)."""
        ctl, self.ctl = self.ctl, None
        if ctl is not None:
            ctl.close()
        proc, self.process = self.process, None
        if proc is None:
            return
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(grace)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)
        if proc.stdout is not None:
            proc.stdout.close()


class RemoteShoe:
    """The shoe of a :class:`DeviceProcess`, as the dealer draws from it."""

    def __init__(self, ctl: ControlClient, profile: DeckProfile) -> None:
        self.ctl = ctl
        self.profile = profile

    def load_deck(self, order: Sequence[str]) -> None:
        """Put a deck in the shoe (tags, top card first)."""
        cards = [self.profile.card(u) for u in order]
        if any(c is None for c in cards):
            raise BenchError("a tag to load is not in the simulated deck")
        self.ctl("load", *(c.code for c in cards if c is not None))

    def draw(self) -> str:
        """Draw the top card; return its tag."""
        return str(self.ctl("draw")["uid"])

    def draw_timed(self, reply_after: float = 0.0) -> tuple[str, float | None]:
        """Draw the top card; return its tag and when its frame went to the port.

        The time is the device process's ``time.monotonic()`` (one clock for every process of
        the machine) just before the frame was written, ``None`` for a shoe that does not say.
        ``reply_after`` holds the reply back that long (seconds), so that it does not wake this
        process while the frame crosses.
        """
        done = self.ctl("draw", reply_after=reply_after)
        written = done.get("written")
        return str(done["uid"]), float(written) if written is not None else None

    def draw_uid(self, uid: str) -> None:
        """Report any tag as drawn."""
        self.ctl("tag", uid)


class RemoteChips:
    """The chip sensors of a :class:`DeviceProcess`, as the dealer's felt sets them."""

    def __init__(self, ctl: ControlClient, config: ChipConfig) -> None:
        self.ctl = ctl
        self.values = dict(config.denominations)

    def set_zone(self, zone: int, counts: Mapping[int, int], now: float | None = None) -> None:
        """Set the chips on ``zone`` (the denominations given)."""
        amount = sum(self.values[c] * n for c, n in counts.items())
        self.ctl("chips", zone, amount, *(f"{c}={n}" for c, n in sorted(counts.items()) if n))


def open_devices(directory: Path, options: RigOptions, profile: DeckProfile, config: ChipConfig,
                 log: Path) -> tuple[DeviceProcess, RemoteShoe, RemoteChips]:
    """Start ``sim run`` in ``directory`` for the table of ``options``; return it and its hands.

    :raises BenchError: if it does not start (it is stopped again).
    """
    o = options
    proc = DeviceProcess(directory, [
        "--seed", str(o.seed), "--seats", str(o.seats), "--shoe", o.shoe, "--chips", o.chips,
        "--device-heartbeat", str(o.device_heartbeat), "--retransmit", str(o.retransmit),
        "--die-with-parent"], log)
    try:
        proc.start(o.ready_timeout)
    except BaseException:
        proc.stop()
        raise
    assert proc.ctl is not None
    return proc, RemoteShoe(proc.ctl, profile), RemoteChips(proc.ctl, config)
