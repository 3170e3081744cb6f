"""The daemon's lifecycle: start in order, serve one input at a time, stop in reverse.

Start order (``table-controller run --config table.toml``), stopped in reverse on SIGTERM or
Ctrl-C:

1. calibration (deck profile, chip zones) and the core (:mod:`.setup`);
2. the journal, then **recovery** (:mod:`.recovery`);
3. the devices, by URL through the registry (:mod:`.devices`);
4. the CURVE authenticator, the feed hub (the recovered snapshot is published first), the
   publisher (:mod:`.publishing`) and the command endpoint; then one ``ready ...`` line on
   stdout (and ``--ready-file``).

Rules this module keeps:

1. Start in order, stop in reverse: every part's teardown is registered on one
   ``AsyncExitStack`` as it starts; SIGTERM and Ctrl-C are a graceful stop, journaled.
2. Nothing is served before recovery: the journal is replayed through the core (and the
   brackets and PHH files completed) before any device, feed or command endpoint opens.
3. The input path (device events, the core's timer, dealer commands; journal first, one input
   at a time) is :mod:`.inputs`, a part of :class:`Daemon`.

Exit statuses: :data:`EXIT_OK` 0, :data:`EXIT_CONFIG` 2 (configuration or calibration),
1 (a part cannot start), :data:`EXIT_JOURNAL` 3 (the journal cannot be written),
:data:`EXIT_DAMAGED` 4 (the journal is damaged: cut, rolled back, altered or unreadable; the
daemon does not start, see ``docs/operations.md``, "A damaged journal").
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime
import gc
import json
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

from table_controller import looptime
from table_controller.config import ControllerConfig
from table_controller.controller.core import TableCore
from table_controller.controller.events import (
    HandEnded,
    Restarted,
)
from table_controller.daemon.devices import DeviceSet
from table_controller.daemon.inputs import InputPath
from table_controller.daemon.journaling import ARCHIVE_CHECK, Journaler, ReadMemory, write_phh
from table_controller.daemon.publishing import Publisher
from table_controller.daemon.recorded import decision_config
from table_controller.daemon.recovery import (
    Clock,
    ConfigCheck,
    check_config,
    checkpoint_state,
    complete_brackets,
    journal_start,
    journal_stop,
    record_config,
    replay,
)
from table_controller.daemon.setup import (
    CAMERA_WINDOW,
    SETTLE,
    build_core,
    camera_configured,
    load_chips,
    load_deck,
)
from table_controller.errors import (
    CalibrationError,
    ConfigError,
    DeviceError,
    JournalDamagedError,
    JournalError,
    TableError,
)
from table_controller.feeds import CommandServer, FeedHub
from table_controller.feeds.keeper import HeartbeatKeeper
from table_controller.journal import Journal
from table_controller.service import Notifier

log = logging.getLogger(__name__)

#: Seconds the daemon waits for the serial devices' HELLO before it says ready anyway.
SYNC_TIMEOUT = 3.0
#: Exit statuses.
EXIT_OK, EXIT_CONFIG, EXIT_JOURNAL, EXIT_DAMAGED = 0, 2, 3, 4


class Daemon(InputPath):
    """One table's controller process.

    :param config: the validated configuration.
    :param ready_file: where to write the bound endpoints (JSON) once everything runs.
    :param settle: the chip settle window in seconds.
    :param print_ready: print the ``ready ...`` line on stdout.
    :param accept_config_change: journal a configuration other than the one the journal
        recorded (between hands only) instead of refusing to start.
    """

    def __init__(self, config: ControllerConfig, *, ready_file: Path | None = None,
                 settle: float = SETTLE, print_ready: bool = True,
                 accept_config_change: bool = False) -> None:
        self.config = config
        self.accept_config_change = accept_config_change
        self._config_check: ConfigCheck | None = None
        self.ready_file = ready_file
        self.settle = settle
        self.print_ready = print_ready
        self.core: TableCore | None = None
        self.journal: Journal | None = None
        self.journaler: Journaler | None = None
        self.publisher: Publisher | None = None
        self.hub: FeedHub | None = None
        self.keeper: HeartbeatKeeper | None = None
        self.commands: CommandServer | None = None
        self.devices = DeviceSet(self.on_device_event, self._after_io)
        self.clock = Clock()
        self.reads = ReadMemory()
        self.exit_code = EXIT_OK
        self.replayed = 0
        #: Queue outputs for the feeds: off while recovering (a replay publishes nothing; the
        #: recovered snapshot is sent once the feeds run), on from then on.
        self.publishing = False
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.TimerHandle | None = None
        self._wake_for: float | None = None
        self._camera_waiting = False
        self._links: dict[str, str] = {}
        self._release_due = False
        self._anchor_due = False

    def now(self) -> float:
        """Return the daemon's monotonic time, never behind the last journaled time."""
        return self.clock()

    # -- lifecycle ---------------------------------------------------------------------------

    async def run(self) -> int:
        """Start everything, serve until SIGTERM / Ctrl-C (or a fatal error), stop in reverse.

        Under systemd (``NOTIFY_SOCKET``) the daemon says ``READY=1`` once everything runs,
        pings the watchdog from the event loop (a hung loop stops the pings) and says
        ``STOPPING=1`` when it stops.
        """
        loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self._stop.set)
        notifier = Notifier.from_env()
        watchdog: asyncio.TimerHandle | None = None
        try:
            async with contextlib.AsyncExitStack() as stack:
                stack.callback(notifier.close)
                await self.start(stack)
                notifier.ready(f"table {self.config.table.id} ready (replayed "
                               f"{self.replayed} inputs)")
                interval = notifier.watchdog_interval()
                if interval is not None:
                    def ping() -> None:
                        nonlocal watchdog
                        notifier.watchdog()
                        watchdog = loop.call_later(interval, ping)
                    ping()
                await self._stop.wait()
                log.info("stopping (exit %d)", self.exit_code)
                if self.exit_code != EXIT_JOURNAL and self.journal is not None:
                    try:
                        journal_stop(self.journal, self.exit_code, self.now())
                    except JournalError as exc:
                        log.error("cannot journal the stop: %s", exc)
                notifier.stopping()
                if watchdog is not None:
                    watchdog.cancel()
        finally:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(sig)
        return self.exit_code

    def stop(self, code: int = EXIT_OK) -> None:
        """Ask the daemon to stop (graceful)."""
        if code and not self.exit_code:
            self.exit_code = code
        if self._stop is not None:
            self._stop.set()

    def open_state(self) -> None:
        """Build the core and open the journal (no device, socket or loop needed).

        :raises ConfigError, CalibrationError: for an unusable configuration or calibration.
        :raises JournalError: if the journal cannot be opened or does not verify.
        :raises ConfigError: if the journal was recorded under another configuration (see
            :func:`.recovery.check_config`).
        """
        cfg = self.config
        core = self.core = build_core(cfg, self.settle)
        for what, folder in (("journal.path", cfg.journal.path.parent),
                             ("journal.phh_dir", cfg.journal.phh_dir)):
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StartupError(f"{what}: cannot create the folder {str(folder)!r}: "
                                   f"{_os_reason(exc)} (create it writable by the user the "
                                   f"daemon runs as, or change {what})") from None
            if not os.access(folder, os.W_OK | os.X_OK):
                raise StartupError(f"{what}: the folder {str(folder)!r} is not writable by "
                                   f"this user (fix its owner or mode, or change {what})")
        current = decision_config(
            cfg, settle=self.settle,
            camera_window=CAMERA_WINDOW if camera_configured(cfg) else None,
            deck=load_deck(cfg), chips=load_chips(cfg))
        log.info("table %s (%s): %d seats, blinds %s/%s; shoe %s, chips %s, camera %s; "
                 "journal %s", cfg.table.id, cfg.table.name, cfg.table.seats,
                 cfg.stakes.small_blind, cfg.stakes.big_blind, cfg.devices.shoe,
                 cfg.devices.chips, cfg.devices.camera, cfg.journal.path)
        self.journal = Journal.open(cfg.journal.path)
        try:
            self._config_check = check_config(self.journal, current,
                                              accept_change=self.accept_config_change)
        except ConfigError:
            self.journal.close()
            raise
        self.journaler = Journaler(self.journal, after={HandEnded: self._hand_ended},
                                   checkpoint=lambda: checkpoint_state(core, self.reads),
                                   archive_at=cfg.journal.archive_at)
        self.publisher = Publisher(core, self.devices.statuses,
                                   {"table": cfg.table.id, "name": cfg.table.name,
                                    "phh_dir": str(cfg.journal.phh_dir),
                                    "timing": {"heartbeat_interval": cfg.timing.heartbeat_interval,
                                               "heartbeat_timeout": cfg.timing.heartbeat_timeout}})

    async def start(self, stack: contextlib.AsyncExitStack) -> None:
        """Start every part in order, registering its teardown on ``stack``.

        :raises ConfigError, CalibrationError, DeviceError, JournalError: a part cannot start.
        """
        import zmq.asyncio

        from table_controller.feeds import CurveServer, FeedEndpoints

        cfg = self.config
        self._loop = asyncio.get_running_loop()
        self.open_state()
        assert self.journal is not None and self.publisher is not None
        stack.callback(self.journal.close)
        stack.callback(self._disarm)
        self.recover()
        if cfg.central is not None:
            # the journal's shipper to the floor's PostgreSQL, its own process: the table never
            # waits for the central store (the local journal is the buffer)
            from table_controller.central.supervise import ShipperSupervisor, ship_argv

            shipper = ShipperSupervisor(ship_argv(
                cfg.journal.path, cfg.table.id, cfg.central.url, config_path=cfg.source,
                status_file=self.central_status_path(), batch=cfg.central.batch))
            await shipper.start()
            stack.push_async_callback(shipper.stop)
            log.info("shipping the journal to %s", cfg.central.url.split("@")[-1])

        self.devices.open_serial(stack, {"shoe": cfg.devices.shoe, "chips": cfg.devices.chips},
                                 cfg.timing.device_timeout)
        profile = None
        if cfg.calibration.camera_profile is not None:
            from calibration.camera import load_profile  # OpenCV: only with a camera profile

            profile = load_profile(cfg.calibration.camera_profile)
        self.devices.open_camera(stack, cfg.devices.camera, profile, camera_configured(cfg))
        # No chip report is asked for here: before the link is synced (HELLO) the device's
        # answer would be refused (NAK) and come again as retransmissions. The device's HELLO
        # (or its recovery) asks for one (on_device_event).

        ctx = zmq.asyncio.Context()
        stack.callback(ctx.destroy, 0)
        curve = None
        if cfg.keys.security == "curve":
            assert cfg.keys.server_secret_key and cfg.keys.displays_dir and cfg.keys.consoles_dir
            curve = CurveServer.from_files(ctx, server_secret_key=cfg.keys.server_secret_key,
                                           displays_dir=cfg.keys.displays_dir,
                                           consoles_dir=cfg.keys.consoles_dir)
            curve.start()
            stack.callback(curve.stop)
        hub = self.hub = FeedHub(ctx, table_id=cfg.table.id,
                                 endpoints=FeedEndpoints.from_config(cfg.endpoints), curve=curve,
                                 heartbeat_interval=cfg.timing.heartbeat_interval)
        await hub.start()
        stack.push_async_callback(hub.stop)
        assert self.journal is not None
        # heartbeats while the loop is blocked in a journal write (a slow disk flush)
        keeper = self.keeper = HeartbeatKeeper(hub, self.journal.watch)
        keeper.start()
        stack.callback(keeper.stop)
        publisher = asyncio.create_task(self.publisher.run(hub))
        stack.push_async_callback(_cancel, publisher)
        if cfg.journal.archive_at is not None:
            stack.push_async_callback(_cancel, asyncio.create_task(self._archive_days()))
        self.publishing = True
        self.publisher.put([])  # the recovered snapshot
        if (status_path := self.central_status_path()) is not None:  # shipping on the feeds
            from table_controller.daemon.shipping import follow_shipping

            stack.push_async_callback(_cancel, asyncio.create_task(
                follow_shipping(status_path, hub, self.publisher.extra)))
        self.commands = CommandServer(ctx, cfg.endpoints.commands, table_id=cfg.table.id,
                                      journal=self.journal, handler=self._decide,
                                      on_committed=self._committed, curve=curve,
                                      mono_clock=self.now)
        await self.commands.start()
        stack.push_async_callback(self.commands.stop)
        self._arm()
        if self.devices.camera is not None:
            camera = asyncio.create_task(self.devices.camera_loop(self.now, self.camera_events))
            stack.push_async_callback(_cancel, camera)
        await self.devices.wait_synced(SYNC_TIMEOUT)
        # what start-up built (modules, calibration, the recovered core) lives as long as the
        # daemon: out of the collector's generations, so a collection on an input's path
        # walks only what the table made since
        gc.freeze()
        stack.callback(gc.unfreeze)
        if (turns := looptime.loop_stats()) is not None:
            turns.clear()  # the loop's turns are reported from here on (``status``)
        self._announce_ready()

    def _announce_ready(self) -> None:
        assert self.hub is not None and self.commands is not None
        bound = dict(self.hub.bound)
        bound["commands"] = self.commands.bound
        info = {"table": self.config.table.id, "pid": os.getpid(), "endpoints": bound,
                "replayed": self.replayed}
        if self.ready_file is not None:
            tmp = self.ready_file.with_name(self.ready_file.name + ".tmp")
            tmp.write_text(json.dumps(info), encoding="utf-8")
            os.replace(tmp, self.ready_file)
        if self.print_ready:
            words = " ".join(f"{k}={v}" for k, v in bound.items())
            print(f"ready table={self.config.table.id} replayed={self.replayed} {words}",
                  flush=True)

    # -- recovery ----------------------------------------------------------------------------

    def recover(self, *, checkpoints: bool = True) -> int:
        """Replay the journal through the core; complete brackets and PHH files.

        :param checkpoints: start from the last checkpoint (``False``: replay every entry).
        :returns: the number of inputs replayed.
        """
        core, journal, check = self.core, self.journal, self._config_check
        assert core is not None and journal is not None and check is not None
        done = replay(core, journal, self.reads,
                      lambda ended: self._write_phh(ended, overwrite=False),
                      configured=check.fingerprint, checkpoints=checkpoints)
        self.clock.not_before(done.last)
        complete_brackets(core, journal, self.now())
        record_config(core, journal, check, self.now())
        journal_start(journal, core, self.now())
        self.replayed = done.inputs
        log.info("recovered %d inputs from %s", done.inputs, journal.path)
        if done.inputs:
            self.feed(Restarted(), self.now())
        return done.inputs

    async def _archive_days(self) -> None:
        """Archive the gaming days that ended while no hand was (:meth:`.Journaler.between_hands`).

        A journal that cannot be written stops the daemon (exit 3), as during play; one found
        damaged while archiving stops it too (exit 4, as at a start).
        """
        while True:
            await asyncio.sleep(ARCHIVE_CHECK)
            assert self.journaler is not None
            try:
                self.journaler.between_hands(self.now())
            except JournalDamagedError as exc:
                log.critical("journal damaged, stopping: %s", exc)
                self.stop(EXIT_DAMAGED)
                return
            except JournalError as exc:
                self._fatal(exc)
                return

    def _hand_ended(self, ended: HandEnded) -> None:
        if not ended.voided:
            # live: the hand ends now (a file completed at recovery has no time)
            self._write_phh(ended, overwrite=True,
                            when=datetime.datetime.now(datetime.UTC))

    def _write_phh(self, ended: HandEnded, *, overwrite: bool,
                   when: datetime.datetime | None = None) -> None:
        assert self.core is not None
        names = {s: v.player for s, v in self.core.table.status().seats.items()}
        assert self.journal is not None
        # a file written on the loop: the heartbeat keeper beats while a busy disk holds it
        with self.journal.watch.writing():
            write_phh(ended, self.config.journal.phh_dir, names, self.config.table.id,
                      overwrite=overwrite, when=when)

    def _fatal(self, exc: BaseException) -> None:
        log.critical("journal write failed, stopping (nothing more is published): %s", exc)
        self.stop(EXIT_JOURNAL)

    # -- the central store's shipper ---------------------------------------------------------

    def central_status_path(self) -> Path | None:
        """Where the journal's shipper writes its progress (``None``: no ``[central]``)."""
        central = self.config.central
        if central is None:
            return None
        return central.status_file or self.config.journal.path.with_name(
            self.config.journal.path.name + ".central.json")

    def loop_report(self) -> dict[str, Any]:
        """Return the event loop's turns, the heartbeats' lateness and the command turns.

        ``kept_heartbeats``: those the heartbeat keeper sent while the loop was in a journal
        write (:mod:`table_controller.feeds.keeper`; the lateness is the loop's own).
        """
        stats = looptime.loop_stats()
        return {"turns": None if stats is None else stats.to_data(),
                "heartbeats": None if self.hub is None else self.hub.heartbeat_report(),
                "kept_heartbeats": None if self.keeper is None else self.keeper.sent,
                "commands": None if self.commands is None else self.commands.turn_report()}

    def central_status(self) -> dict[str, Any] | None:
        """Return the shipper's progress for ``status`` (``None``: no ``[central]``)."""
        path = self.central_status_path()
        if path is None:
            return None
        from table_controller.central.shipper import read_status

        try:
            return dataclasses.asdict(read_status(path))
        except TableError as exc:
            return {"state": "unknown", "last_error": str(exc)}


class StartupError(TableError):
    """A part of the daemon cannot start for a reason a person can fix (the message says how)."""


def _os_reason(exc: OSError) -> str:
    """Say an OS error in words, a full disk as a full disk."""
    import errno

    if exc.errno == errno.ENOSPC:
        return "the disk is full"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.EROFS:
        return "the file system is read-only"
    return exc.strerror or str(exc)


async def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


def run_daemon(config: ControllerConfig, *, ready_file: Path | None = None,
               settle: float = SETTLE, accept_config_change: bool = False) -> int:
    """Run the daemon until stopped; return the exit status.

    Startup failures (a device that cannot be opened, a journal that does not verify, a port in
    use) are printed to stderr, exit status 1 (2 for configuration and calibration errors).
    """
    daemon = Daemon(config, ready_file=ready_file, settle=settle,
                    accept_config_change=accept_config_change)
    try:
        # a loop whose turns are timed (``status`` reports them beside the heartbeats' lateness)
        with asyncio.Runner(loop_factory=looptime.new_event_loop) as runner:
            return runner.run(daemon.run())
    except (ConfigError, CalibrationError) as exc:
        print(f"table-controller run: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except JournalDamagedError as exc:
        print(f"table-controller run: journal damaged, not starting: {exc}", file=sys.stderr)
        return EXIT_DAMAGED
    except (DeviceError, JournalError, TableError) as exc:
        print(f"table-controller run: cannot start: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a file or folder the daemon needs (the message names it)
        where = f" {str(exc.filename)!r}" if exc.filename else ""
        print(f"table-controller run: cannot start:{where} {_os_reason(exc)}", file=sys.stderr)
        return 1



