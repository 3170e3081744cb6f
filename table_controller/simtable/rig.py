"""The one simulation rig: simulators on ptys, the daemon process, and what its clients need.

:class:`SimRig` makes a working directory with the calibration a real table has (a registered
deck profile for the simulated deck, chip zones from the default chip layout, CURVE keys) and a
table configuration whose shoe and chip sensors are ``serial://`` paths to pseudo-terminals the
simulators own, the same code path a real shoe takes (or, with ``RigOptions(shoe="pn532")``
and ``chips="rfid"``, ``pn532://`` and ``rfidchips://`` paths to a simulated PN532 and RFID chip
reader, with a chip registry of the tags the dealer lays: :mod:`.commodity`), and whose camera
reads the board file the dealer writes (level ``exact``), or, for the other levels, the frames a
:class:`~hardware.sim.camera_link.BoardRenderer` renders from that file in *this* process (a
thread), the daemon running only the recognizer on them, as on a real table. With
``RigOptions(devices="process")`` (the default) the shoe and chip sensors are ``table-controller
sim run`` in ``DIR/devices``, a child process (:mod:`.devices.remote`), and the dealer works them
through its control socket: the devices an integrator uses, for the demo, the soak, the
scenarios and the end-to-end tests alike (one-shot faults, counters: :mod:`.devices.hands`);
``devices="inline"`` keeps them in this process (``sim run`` itself). It then starts
``table-controller run --config ...`` as a child process and waits for its ready file. The
demo, the soak, the scenarios and the end-to-end tests all use it; the daemon can be killed
(SIGKILL) and started again on the same journal and simulators.

Lifecycle (rule 8 of the style guide): :meth:`SimRig.start` brings up, in order, the work
directory, the simulators, the configuration and the daemon; :meth:`SimRig.stop` tears them down
in reverse (SIGTERM to the daemon, then SIGKILL after a grace period), and removes the work
directory unless ``keep`` was asked for. Both are idempotent, and ``with SimRig(...)`` pairs them.

Stale ptys: a :class:`~hardware.sim.pty.PtyGuard` keeps the pty numbers that links left by other
runs point to before the simulators are made; a daemon start refused because another process
locked the port anyway gets new simulators (new ptys) and is tried again, up to three times.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from calibration.chips import ChipConfig, default_chip_config
from calibration.deck import DeckProfile, DeckStore
from hardware.link.protocol import RETRANSMIT_AFTER
from hardware.sim.camera_link import BoardRenderer, write_board
from hardware.sim.chips import SimChipSensor
from hardware.sim.pn532 import SimPn532
from hardware.sim.pty import PtyGuard
from hardware.sim.rfidchips import SimRfidChips
from hardware.sim.shoe import SimShoe, sim_deck_profile
from table_controller.engine import Card
from table_controller.errors import TableError
from table_controller.feeds import ClientKeys
from table_controller.simtable.commodity import Pn532Feeder, RfidFelt, bank_registry, chip_bank
from table_controller.simtable.keys import rig_keys

if TYPE_CHECKING:
    from table_controller.simtable.devices.remote import DeviceProcess, RemoteChips, RemoteShoe

#: The chip sensors' zones (the default layout's seats, pot and spare zones).
SENSOR_ZONES = range(1, 13)
#: How often a start refused because another process locked a new pty is tried again.
START_ATTEMPTS = 3
#: ``RigOptions.shoe`` / ``RigOptions.chips`` values: the reference-protocol simulators or the
#: commodity ones (a PN532, an RFID chip reader).
SHOES = ("ref", "pn532")
CHIP_SENSORS = ("ref", "rfid")
#: ``RigOptions.devices``: the simulators in this process, or ``sim run`` as a child process
#: (the devices an integrator runs, worked through their control socket).
DEVICE_MODES = ("inline", "process")
#: The PN532 poll period the simulated table's shoe URL asks for (seconds).
PN532_POLL = 0.02
CHIP_REGISTRY = "chip_registry.json"
_ENDPOINTS = ("public", "dealer", "surveillance", "snapshot", "surveillance_snapshot",
              "commands")


class RigError(TableError):
    """The simulated table could not be started (the message says which part and why)."""


def free_tcp_ports(n: int) -> list[int]:
    """Return ``n`` free TCP ports on 127.0.0.1 (bound and released at once)."""
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [int(s.getsockname()[1]) for s in socks]
    for s in socks:
        s.close()
    return ports


def pot_zone(seats: int) -> int:
    """Return the pot zone of the default chip layout for ``seats`` seats."""
    return default_chip_config(seats).pot_zone


@dataclass(frozen=True, slots=True)
class RigOptions:
    """What table to simulate.

    :param seats: seats at the table (2..10).
    :param table_id: the table id.
    :param seed: seeds the simulated deck's tags.
    :param heartbeat: feed heartbeat interval (seconds).
    :param device_heartbeat: simulated devices' heartbeat interval (seconds).
    :param retransmit: seconds the simulated shoe and chip sensors wait for an ACK before they
        resend (the protocol's ``RETRANSMIT_AFTER``). A test that asserts a clean link (nothing
        resent, nothing twice) gives a long one: a resend then means a frame was refused or an
        ACK lost, not that a busy machine acknowledged late.
    :param link_heartbeat: the devices' heartbeat period the daemon is told (the ``heartbeat``
        URL option; ``None``: the driver's default).
    :param security: ``"curve"`` (keys made here) or ``"none"``.
    :param camera_level: difficulty of the simulated camera's pictures (``exact``: the daemon
        reads the board file as written; ``easy``/``medium``/``hard``: frames rendered here).
    :param tcp: endpoints on ``tcp://127.0.0.1`` ports (else ``ipc://`` sockets in the work dir).
    :param settle: the daemon's chip settle window (``--settle``; ``None``: its default).
    :param tray: chips in the sensors' tray, by denomination code (``None``: the simulator's).
    :param extra_args: more arguments for ``table-controller run``.
    :param central_url: ship the journal to this PostgreSQL (``[central] url``).
    :param shoe: ``"ref"`` (the reference-protocol shoe) or ``"pn532"`` (a PN532 reader).
    :param chips: ``"ref"`` (counting chip sensors) or ``"rfid"`` (an RFID chip reader and a
        chip registry of the tags the dealer lays).
    :param devices: ``"process"`` (the default: ``table-controller sim run`` in
        ``DIR/devices`` as a child process, worked through its control socket, one-shot faults
        included: :mod:`.devices.hands`; :attr:`SimRig.shoe` and the other simulator attributes
        stay ``None``) or ``"inline"`` (the simulators are objects of this process: ``sim run``
        itself, and the few tests that need what no device offers on its control socket).
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
    retransmit: float = RETRANSMIT_AFTER
    link_heartbeat: float | None = None
    security: str = "curve"
    camera_level: str = "easy"
    tcp: bool = False
    settle: float | None = None
    tray: Mapping[int, int] | None = None
    ready_timeout: float = 30.0
    extra_args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    central_url: str | None = None
    shoe: str = "ref"
    chips: str = "ref"
    devices: str = "process"

    def __post_init__(self) -> None:
        """Refuse an unknown shoe or chip sensor kind.

        :raises RigError: for one.
        """
        if self.shoe not in SHOES:
            raise RigError(f"shoe {self.shoe!r} is not one of {', '.join(SHOES)}")
        if self.chips not in CHIP_SENSORS:
            raise RigError(f"chips {self.chips!r} is not one of {', '.join(CHIP_SENSORS)}")
        if self.devices not in DEVICE_MODES:
            raise RigError(f"devices {self.devices!r} is not one of {', '.join(DEVICE_MODES)}")
        if self.tray is not None and self.devices == "process":
            raise RigError("sim run takes no tray: give tray with devices='inline'")


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
        #: the reference-protocol simulators (``None`` with the commodity ones)
        self.shoe: SimShoe | None = None
        self.chips: SimChipSensor | None = None
        #: the commodity simulators and what the dealer works them through (:mod:`.commodity`)
        self.pn532: SimPn532 | None = None
        self.rfid: SimRfidChips | None = None
        self.feeder: Pn532Feeder | None = None
        self.rfid_felt: RfidFelt | None = None
        #: ``devices="process"``: the ``sim run`` child and the dealer's hands on it
        self.device_process: DeviceProcess | None = None
        self.remote_shoe: RemoteShoe | None = None
        self.remote_chips: RemoteChips | None = None
        self.chip_config: ChipConfig = default_chip_config(self.options.seats)
        #: the registered chip tags per denomination code (``chips="rfid"``)
        self.chip_bank: dict[int, list[str]] = (
            chip_bank(self.chip_config.denominations) if self.options.chips == "rfid" else {})
        self.profile: DeckProfile = DeckProfile.build(
            f"sim-{self.options.seed}", sim_deck_profile(self.options.seed),
            source="simulated deck")
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = self.dir / "daemon.log"
        self.config_path = self.dir / "table.toml"
        self.board_path = self.dir / "board.json"
        self.frames_path = self.dir / "board.bmp"  # cheap to write and read (no compression)
        self.ready_path = self.dir / "ready.json"
        self.camera_profile_path = self.dir / "camera_profile.json"
        self.renderer: BoardRenderer | None = None
        self.endpoints: dict[str, str] = {}
        #: what the daemon wrote in its ready file at the last start (endpoints bound, ...)
        self.ready: dict[str, Any] = {}
        self.keys: dict[str, Path] = {}
        self.guard = PtyGuard(self.dir)
        self._retired: list[SimShoe | SimChipSensor | SimPn532 | SimRfidChips] = []
        self._device_dirs = 0
        self._last_status: int | None = None
        #: daemon starts, SIGKILLs and exits nobody asked for (seen by :meth:`alive`)
        self.starts = 0
        self.kills = 0
        self.unexpected_exits: list[int] = []

    # -- paths -------------------------------------------------------------------------------

    @property
    def journal_path(self) -> Path:
        """The daemon's journal."""
        return self.dir / "journal.db"

    @property
    def phh_dir(self) -> Path:
        """Where the daemon writes hand histories."""
        return self.dir / "phh"

    @property
    def pot_zone(self) -> int:
        """The chip sensors' pot zone."""
        return self.chip_config.pot_zone

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
            self.dir.mkdir(parents=True, exist_ok=True)
            self.guard.prepare()
            self._start_devices()
            self.write_files()
            if self.renderer is not None:
                self.renderer.start()
            if daemon:
                for attempt in range(START_ATTEMPTS):
                    try:
                        self.start_daemon()
                        break
                    except RigError as exc:
                        # A pty number recycled from a port some other (orphaned) process
                        # still holds locked: keep these ports open (so their numbers stay
                        # taken), make new ones, and try again.
                        if "lock" not in str(exc) or attempt == START_ATTEMPTS - 1:
                            raise
                        self._retired += [s for s in (self.shoe, self.chips, self.pn532,
                                                      self.rfid) if s]
                        self._start_devices()
                        self.write_files()
        except BaseException:
            self.stop()
            raise

    def _start_devices(self) -> None:
        o = self.options
        n = len(self._retired)
        if o.devices == "process":
            self._start_device_process()
            return
        shoe_path = str(self.dir / f"shoe{n or ''}.tty")
        chips_path = str(self.dir / f"chips{n or ''}.tty")
        if o.shoe == "pn532":
            self.pn532 = SimPn532(link_path=shoe_path)
            self.feeder = Pn532Feeder(self.pn532)
            self.pn532.start()
        else:
            self.shoe = SimShoe(link_path=shoe_path, seed=o.seed,
                                heartbeat_interval=o.device_heartbeat,
                                retransmit_after=o.retransmit)
            self.shoe.start()
        if o.chips == "rfid":
            self.rfid = SimRfidChips(SENSOR_ZONES, link_path=chips_path,
                                     heartbeat_interval=o.device_heartbeat,
                                     retransmit_after=o.retransmit)
            self.rfid_felt = RfidFelt(self.rfid, self.chip_bank)
            self.rfid.start()
        else:
            self.chips = SimChipSensor(SENSOR_ZONES, link_path=chips_path,
                                       tray=None if o.tray is None else dict(o.tray),
                                       heartbeat_interval=o.device_heartbeat,
                                       retransmit_after=o.retransmit)
            self.chips.start()

    def _start_device_process(self) -> None:
        from table_controller.simtable.devices.remote import open_devices

        if self.device_process is not None:  # a retry: new ptys in a new directory
            self.device_process.stop()
            self._device_dirs += 1
        try:
            self.device_process, self.remote_shoe, self.remote_chips = open_devices(
                self.dir / f"devices{self._device_dirs or ''}", self.options, self.profile,
                self.chip_config, self.dir / "devices.log")
        except TableError as exc:
            raise RigError(str(exc)) from None

    @property
    def shoe_path(self) -> str:
        """The shoe simulator's port path."""
        if self.device_process is not None:
            return str(self.device_process.dir / "shoe")
        sim = self.pn532 or self.shoe
        assert sim is not None, "the simulators are not started"
        return sim.path

    @property
    def chips_path(self) -> str:
        """The chip simulator's port path."""
        if self.device_process is not None:
            return str(self.device_process.dir / "chips")
        sim = self.rfid or self.chips
        assert sim is not None, "the simulators are not started"
        return sim.path

    def shoe_url(self) -> str:
        """Return the URL the daemon opens the shoe with (``serial://`` or ``pn532://``)."""
        if self.options.shoe == "pn532":
            return f"pn532://{self.shoe_path}?poll={PN532_POLL:g}"
        return f"serial://{self.shoe_path}{self._link_query()}"

    def chips_url(self) -> str:
        """Return the URL the daemon opens the chip sensors with (``serial://``, ``rfidchips://``)."""
        scheme = "rfidchips" if self.options.chips == "rfid" else "serial"
        return f"{scheme}://{self.chips_path}{self._link_query()}"

    def _link_query(self) -> str:
        hb = self.options.link_heartbeat
        return "" if hb is None else f"?heartbeat={hb:g}"

    def write_files(self) -> None:
        """Write the calibration, keys, board file and table configuration into the work dir.

        The simulators must exist (:meth:`start` makes them): ``sim run`` sets its own.
        """
        store = DeckStore(self.dir / "decks")
        store.save(self.profile, replace=True)
        store.activate(self.profile.name)
        (self.dir / "chip_zones.toml").write_text(self.chip_config.to_toml())
        if self.chip_bank:
            bank_registry(self.chip_bank).save(self.dir / CHIP_REGISTRY)
        write_board(self.board_path, [None] * 5)
        self.phh_dir.mkdir(exist_ok=True)
        if not self.endpoints:
            if self.options.tcp:
                ports = free_tcp_ports(len(_ENDPOINTS))
                self.endpoints = {n: f"tcp://127.0.0.1:{p}"
                                  for n, p in zip(_ENDPOINTS, ports, strict=True)}
            else:
                self.endpoints = {n: f"ipc://{self.dir}/{n}.sock" for n in _ENDPOINTS}
        if self.options.security == "curve":
            self._make_keys()
        if self.options.camera_level != "exact" and self.renderer is None:
            self.renderer = BoardRenderer(self.board_path, self.frames_path,
                                          level=self.options.camera_level)
            self.renderer.calibrate(self.camera_profile_path)
        self.config_path.write_text(self.config_text())

    def config_text(self) -> str:
        """Return the table configuration (the one template of every simulated table)."""
        o = self.options
        camera = f"sim://camera?board={self.board_path}"
        profile = ""
        if o.camera_level != "exact":
            camera = f"sim://camera?frames={self.frames_path}"
            profile = f'camera_profile = "{self.camera_profile_path.name}"\n'
        keys = '[keys]\nsecurity = "none"\n'
        if o.security == "curve":
            keys = ('[keys]\nsecurity = "curve"\nserver_secret_key = "keys/server.key_secret"\n'
                    'displays_dir = "keys/displays"\nconsoles_dir = "keys/consoles"\n')
        endpoints = "\n".join(f'{n} = "{ep}"' for n, ep in self.endpoints.items())
        shoe, chips = self.shoe_url(), self.chips_url()
        if o.chips == "rfid":
            profile += f'chip_registry = "{CHIP_REGISTRY}"\n'
        return f"""# Written by table_controller.simtable.rig
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
shoe = "{shoe}"
chips = "{chips}"
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
""" + (f'\n[central]\nurl = "{o.central_url}"\n' if o.central_url else "")

    def _make_keys(self) -> None:
        if not self.keys:  # else made already (a second attempt)
            self.keys = rig_keys(self.dir / "keys")

    def console_keys(self) -> ClientKeys | None:
        """Return the console's client keys (``None``: no CURVE)."""
        if not self.keys:
            return None
        return ClientKeys.from_files(self.keys["console_secret"], self.keys["server_public"])

    def display_keys(self) -> ClientKeys | None:
        """Return a display's client keys, for the surveillance side (``None``: no CURVE)."""
        if not self.keys:
            return None
        return ClientKeys.from_files(self.keys["display_secret"], self.keys["server_public"])

    # -- the daemon process ------------------------------------------------------------------

    def daemon_command(self) -> list[str]:
        """Return the command line that runs the daemon."""
        settle = () if self.options.settle is None else ("--settle", str(self.options.settle))
        return [sys.executable, "-m", "table_controller", "run", "--config",
                str(self.config_path), "--ready-file", str(self.ready_path), *settle,
                "--die-with-parent", *self.options.extra_args]

    def spawn_daemon(self) -> Path:
        """Start ``table-controller run`` without waiting; return the ready file's path."""
        self.ready_path.unlink(missing_ok=True)
        env = {**os.environ, **self.options.env, "PYTHONUNBUFFERED": "1"}
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                self.daemon_command(), stdout=log, stderr=log, cwd=str(self.dir), env=env,
                start_new_session=True)
        self.starts += 1
        return self.ready_path

    def start_daemon(self, timeout: float | None = None) -> dict[str, Any]:
        """Start ``table-controller run`` and wait for its ready file; return what it says.

        :raises RigError: if it exits or is not ready within ``timeout`` seconds (default
            the options' ``ready_timeout``).
        """
        limit = self.options.ready_timeout if timeout is None else timeout
        ready = self.spawn_daemon()
        proc = self.process
        assert proc is not None
        deadline = time.monotonic() + limit
        while not ready.exists():
            code = proc.poll()
            if code is not None:
                self.process = None
                raise RigError(f"the daemon exited with status {code} before it was ready:\n"
                               f"{self.daemon_log_tail()}")
            if time.monotonic() > deadline:
                raise RigError(f"the daemon was not ready after {limit:g} s:\n"
                               f"{self.daemon_log_tail()}")
            time.sleep(0.02)
        self.ready = json.loads(ready.read_text())
        return self.ready

    def alive(self) -> bool:
        """Tell whether the daemon runs; record an exit nobody asked for."""
        if self.process is None:
            return False
        code = self.process.poll()
        if code is None:
            return True
        self.unexpected_exits.append(code)
        self.process = None
        return False

    def kill(self) -> None:
        """SIGKILL the daemon and reap it."""
        proc, self.process = self.process, None
        if proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        self.kills += 1

    def terminate(self, grace: float = 10.0) -> int | None:
        """Stop the daemon only (SIGTERM, then SIGKILL after ``grace``); return its status.

        :returns: ``None`` if it was not running.
        """
        proc, self.process = self.process, None
        if proc is None:
            return None
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(grace)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)
        self._last_status = proc.returncode
        return proc.returncode

    def daemon_log_tail(self, lines: int = 25) -> str:
        """Return the last lines the daemon wrote (stdout and stderr)."""
        with contextlib.suppress(OSError):
            text = self.log_path.read_text(errors="replace").splitlines()
            return "\n".join(text[-lines:])
        return ""

    def save_records(self, dest: str | os.PathLike[str]) -> Path:
        """Copy the journal, the hand histories, the daemon's log and configuration to ``dest``.

        Call it after :meth:`terminate` (the journal is then closed). ``dest`` is created.
        """
        out = Path(dest)
        out.mkdir(parents=True, exist_ok=True)
        for name in ("journal.db", "journal.db-wal", "journal.db-shm", "journal.db.anchor",
                     "daemon.log",
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
        status = self.terminate(grace)
        renderer, self.renderer = self.renderer, None
        if renderer is not None:
            renderer.close()
        for sim in (self.chips, self.shoe, self.rfid, self.pn532, *self._retired):
            if sim is not None:
                sim.close()
        proc, self.device_process = self.device_process, None
        if proc is not None:
            proc.stop(grace)
        self.remote_shoe = self.remote_chips = None
        self.chips = self.shoe = None
        self.rfid = self.pn532 = None
        self.feeder = self.rfid_felt = None
        self._retired = []
        self.guard.close()
        if not self.keep and self._own_dir and self.dir.exists():
            shutil.rmtree(self.dir, ignore_errors=True)
        return status if status is not None else self._last_status
