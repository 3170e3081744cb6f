"""The simulated hardware and the daemon process around it: everything the demo starts.

:class:`SimRig` makes a working directory with the calibration a real table has (a registered
deck profile for the simulated deck, chip zones, CURVE keys) and a table configuration whose
shoe and chip sensors are ``serial://`` paths to pseudo-terminals the simulators own — the same
code path a real shoe takes — and whose camera reads the board file the dealer writes (level
``exact``), or, for the other levels, the frames a :class:`~hardware.sim.camera_link.BoardRenderer`
renders from that file in *this* process (a thread), the daemon running only the recognizer on
them, as on a real table. It then
starts ``table-controller run --config ...`` as a child process and waits until it says it is
ready.

Lifecycle (rule 8 of the style guide): :meth:`SimRig.start` brings up, in order, the work
directory, the simulators, the configuration and the daemon; :meth:`SimRig.stop` tears them down
in reverse (SIGTERM to the daemon, then SIGKILL after a grace period), and removes the work
directory unless ``keep`` was asked for. Both are idempotent, and ``with SimRig(...)`` pairs them.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from calibration.chips import ChipConfig, default_chip_config
from calibration.deck import DeckProfile, DeckStore
from hardware.sim.camera_link import BoardRenderer
from hardware.sim.chips import SimChipSensor
from hardware.sim.shoe import SimShoe, sim_deck_profile
from table_controller.engine import Card
from table_controller.errors import TableError

#: The repository's card faces, used by the simulated camera.
REPO = Path(__file__).resolve().parents[2]
FACES = REPO / "examples" / "cards" / "kennard"


_KEYS_SECTION = ('[keys]\nsecurity = "curve"\nserver_secret_key = "keys/server.key_secret"\n'
                 'displays_dir = "keys/displays"\nconsoles_dir = "keys/consoles"\n')


class RigError(TableError):
    """The simulated table could not be started (the message says which part and why)."""


@dataclass(frozen=True, slots=True)
class RigOptions:
    """What table to simulate.

    :param seats: seats at the table (2..10).
    :param table_id: the table id.
    :param seed: seeds the simulated deck's tags.
    :param heartbeat: feed heartbeat interval (seconds).
    :param device_heartbeat: simulated devices' heartbeat interval (seconds).
    :param security: ``"curve"`` (keys made here) or ``"none"``.
    :param camera_level: difficulty of the simulated camera's pictures (``exact``: the daemon
        reads the board file as written; ``easy``/``medium``/``hard``: frames rendered here).
    :param extra_args: more arguments for ``table-controller run``.
    """

    seats: int = 6
    table_id: str = "T1"
    name: str = "Demo table"
    small_blind: int = 50
    big_blind: int = 100
    rake_percent: float = 5.0
    rake_cap: int = 500
    seed: int = 1
    heartbeat: float = 0.5
    heartbeat_timeout: float = 2.0
    device_heartbeat: float = 0.25
    security: str = "curve"
    camera_level: str = "easy"
    ready_timeout: float = 30.0
    extra_args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


class SimRig:
    """Simulators, calibration, configuration and the daemon process of one simulated table.

    :param options: the table to simulate.
    :param workdir: where to put everything (a new temporary directory when ``None``).
    :param keep: leave the work directory in place on :meth:`stop`.
    """

    def __init__(self, options: RigOptions | None = None, *,
                 workdir: str | os.PathLike[str] | None = None, keep: bool = False) -> None:
        self.options = options or RigOptions()
        self._own_dir = workdir is None
        self.dir = Path(workdir) if workdir is not None else Path(
            tempfile.mkdtemp(prefix="table-sim-"))
        self.keep = keep
        self.shoe: SimShoe | None = None
        self.chips: SimChipSensor | None = None
        self.chip_config: ChipConfig = default_chip_config(self.options.seats)
        self.profile: DeckProfile = DeckProfile.build(
            f"sim-{self.options.seed}", sim_deck_profile(self.options.seed),
            source="simulated deck")
        self.process: subprocess.Popen[str] | None = None
        self.log_path = self.dir / "daemon.log"
        self.config_path = self.dir / "table.toml"
        self.board_path = self.dir / "board.json"
        self.frames_path = self.dir / "board.png"
        self.camera_profile_path = self.dir / "camera_profile.json"
        self.renderer: BoardRenderer | None = None
        self.endpoints: dict[str, str] = {}
        self._out: deque[str] = deque(maxlen=200)
        self._reader: threading.Thread | None = None
        self._ready = threading.Event()
        self.keys: dict[str, Path] = {}
        self._quarantine: list[SimShoe | SimChipSensor] = []
        self._last_status: int | None = None

    # -- paths -------------------------------------------------------------------------------

    @property
    def journal_path(self) -> Path:
        """The daemon's journal."""
        return self.dir / "journal.db"

    @property
    def phh_dir(self) -> Path:
        """Where the daemon writes hand histories."""
        return self.dir / "phh"

    def uid(self, card: Card) -> str:
        """Return the simulated tag of ``card``."""
        return self.profile.uid(card)

    # -- lifecycle ---------------------------------------------------------------------------

    def __enter__(self) -> SimRig:
        self.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def start(self, *, daemon: bool = True) -> None:
        """Start the simulators, write the configuration and start the daemon.

        :raises RigError: if a part cannot start (everything started so far is stopped).
        """
        try:
            self._start_devices()
            self._write_files()
            if self.renderer is not None:
                self.renderer.start()
            if daemon:
                for attempt in range(3):
                    try:
                        self._start_daemon()
                        break
                    except RigError as exc:
                        # A pty number recycled from a port some other (orphaned) process
                        # still holds locked: keep these ports open (so their numbers stay
                        # taken), make new ones, and try again.
                        if "lock" not in str(exc) or attempt == 2:
                            raise
                        self._quarantine += [s for s in (self.shoe, self.chips) if s]
                        self._start_devices()
                        self._write_files()
        except BaseException:
            self.stop()
            raise

    def _start_devices(self) -> None:
        o = self.options
        self.dir.mkdir(parents=True, exist_ok=True)
        n = len(self._quarantine)
        self.shoe = SimShoe(link_path=str(self.dir / f"shoe{n or ''}.tty"), seed=o.seed,
                            heartbeat_interval=o.device_heartbeat)
        self.chips = SimChipSensor(range(1, 13), link_path=str(self.dir / f"chips{n or ''}.tty"),
                                   heartbeat_interval=o.device_heartbeat)
        self.shoe.start()
        self.chips.start()

    def _write_files(self) -> None:
        o = self.options
        store = DeckStore(self.dir / "decks")
        store.save(self.profile, replace=True)
        store.activate(self.profile.name)
        (self.dir / "chip_zones.toml").write_text(self.chip_config.to_toml())
        self.board_path.write_text('{"slots": [null, null, null, null, null], "occluded": []}')
        self.phh_dir.mkdir(exist_ok=True)
        names = ("public", "dealer", "surveillance", "snapshot", "surveillance_snapshot",
                 "commands")
        self.endpoints = {n: f"ipc://{self.dir}/{n}.sock" for n in names}
        keys = '[keys]\nsecurity = "none"\n'
        if o.security == "curve":
            keys = self._make_keys()
        assert self.shoe is not None and self.chips is not None
        camera = f"sim://camera?board={self.board_path}"
        profile = ""
        if o.camera_level != "exact":
            if self.renderer is None:
                self.renderer = BoardRenderer(self.board_path, self.frames_path, faces=FACES,
                                              level=o.camera_level)
                self.renderer.calibrate(self.camera_profile_path)
            camera = f"sim://camera?frames={self.frames_path}"
            profile = f'camera_profile = "{self.camera_profile_path.name}"\n'
        endpoints = "\n".join(f'{n} = "{ep}"' for n, ep in self.endpoints.items())
        self.config_path.write_text(f"""# Written by table_controller.simtable.rig
[table]
id = "{o.table_id}"
name = "{o.name}"
seats = {o.seats}

[stakes]
small_blind = {o.small_blind}
big_blind = {o.big_blind}

[rake]
percent = {o.rake_percent}
cap = {o.rake_cap}

[devices]
shoe = "serial://{self.shoe.path}"
chips = "serial://{self.chips.path}"
camera = "{camera}"

[calibration]
decks_dir = "decks"
active_deck = "{self.profile.name}"
chip_zones = "chip_zones.toml"
{profile}
[endpoints]
{endpoints}

{keys}
[journal]
path = "journal.db"
phh_dir = "phh"

[timing]
heartbeat_interval = {o.heartbeat}
heartbeat_timeout = {o.heartbeat_timeout}
command_timeout = 2.5
device_timeout = 2.0
""")

    def _make_keys(self) -> str:
        from table_controller.feeds import create_key_pair

        kdir = self.dir / "keys"
        if self.keys:  # made already (a second attempt)
            return _KEYS_SECTION
        for sub in ("displays", "consoles"):
            (kdir / sub).mkdir(parents=True, exist_ok=True)
        _, server_secret = create_key_pair(kdir, "server")
        _, display_secret = create_key_pair(kdir, "display")
        _, console_secret = create_key_pair(kdir, "console")
        shutil.copy(kdir / "display.key", kdir / "displays" / "display.key")
        shutil.copy(kdir / "console.key", kdir / "consoles" / "console.key")
        self.keys = {"server_secret": server_secret, "server_public": kdir / "server.key",
                     "display_secret": display_secret, "console_secret": console_secret}
        return _KEYS_SECTION

    def console_keys(self) -> object | None:
        """Return the console's :class:`~table_controller.feeds.ClientKeys` (``None``: no CURVE)."""
        if not self.keys:
            return None
        from table_controller.feeds import ClientKeys

        return ClientKeys.from_files(self.keys["console_secret"], self.keys["server_public"])

    def daemon_command(self) -> list[str]:
        """Return the command line that runs the daemon."""
        return [sys.executable, "-m", "table_controller", "run", "--config",
                str(self.config_path), "--die-with-parent", *self.options.extra_args]

    def _start_daemon(self) -> None:
        env = {**os.environ, **self.options.env, "PYTHONUNBUFFERED": "1"}
        log = self.log_path.open("w")
        try:
            self.process = subprocess.Popen(
                self.daemon_command(), stdout=subprocess.PIPE, stderr=log, text=True,
                cwd=str(self.dir), env=env, start_new_session=True)
        finally:
            log.close()
        self._reader = threading.Thread(target=self._read_stdout, name="daemon-stdout",
                                        daemon=True)
        self._reader.start()
        deadline = time.monotonic() + self.options.ready_timeout
        while not self._ready.wait(0.05):
            if self.process.poll() is not None:
                raise RigError(f"the daemon exited with status {self.process.returncode} before "
                               f"it was ready:\n{self.daemon_log_tail()}")
            if time.monotonic() > deadline:
                raise RigError(f"the daemon was not ready after {self.options.ready_timeout:g} "
                               f"s:\n{self.daemon_log_tail()}")

    def _read_stdout(self) -> None:
        proc = self.process
        if proc is None or proc.stdout is None:
            return
        for line in proc.stdout:
            self._out.append(line.rstrip("\n"))
            if line.startswith("ready"):
                self._ready.set()

    def daemon_log_tail(self, lines: int = 25) -> str:
        """Return the last lines the daemon wrote (stdout and its log)."""
        text: list[str] = list(self._out)
        with contextlib.suppress(OSError):
            text += self.log_path.read_text(errors="replace").splitlines()
        return "\n".join(text[-lines:])

    @property
    def daemon_output(self) -> list[str]:
        """Lines the daemon printed on stdout."""
        return list(self._out)

    def save_records(self, dest: str | os.PathLike[str]) -> Path:
        """Copy the journal, the hand histories, the daemon's log and configuration to ``dest``.

        Call it after :meth:`stop_daemon` (the journal is then closed). ``dest`` is created.
        """
        out = Path(dest)
        out.mkdir(parents=True, exist_ok=True)
        for name in ("journal.db", "journal.db-wal", "journal.db-shm", "daemon.log",
                     "table.toml"):
            src = self.dir / name
            if src.exists():
                shutil.copy2(src, out / name)
        if self.phh_dir.exists():
            shutil.copytree(self.phh_dir, out / "phh", dirs_exist_ok=True)
        return out

    def stop(self, grace: float = 10.0) -> int | None:
        """Stop the daemon (SIGTERM, then SIGKILL), the simulators; remove the work directory.

        :returns: the daemon's exit status (``None`` if it was not started).
        """
        status = self.stop_daemon(grace)
        renderer, self.renderer = self.renderer, None
        if renderer is not None:
            renderer.close()
        for sim in (self.chips, self.shoe, *self._quarantine):
            if sim is not None:
                sim.close()
        self.chips = self.shoe = None
        self._quarantine = []
        if not self.keep and self._own_dir and self.dir.exists():
            shutil.rmtree(self.dir, ignore_errors=True)
        return status if status is not None else self._last_status

    def stop_daemon(self, grace: float = 10.0) -> int | None:
        """Stop the daemon only (SIGTERM, then SIGKILL); return its exit status.

        :returns: ``None`` if it was not running.
        """
        status = None
        proc, self.process = self.process, None
        if proc is not None:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(grace)
                except subprocess.TimeoutExpired:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(5)
            status = proc.returncode
            if proc.stdout is not None:
                proc.stdout.close()
        if self._reader is not None:
            self._reader.join(2)
            self._reader = None
        if status is not None:
            self._last_status = status
        return status
