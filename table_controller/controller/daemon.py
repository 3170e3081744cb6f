"""The controller daemon: devices, journal, recovery, feeds and the command endpoint.

Lifecycle (``table-controller run --config table.toml``), started in this order and stopped in
reverse on SIGTERM or Ctrl-C:

1. calibration (deck profile, chip zones) and the core;
2. the journal, then **recovery**: every journaled input (device events, accepted dealer
   commands) is replayed through the same core with the ``now`` it was recorded with, which
   rebuilds the exact state; missing hand brackets and PHH files are completed;
3. the devices named in the configuration, by URL through the registry (shoe, chip sensors, the
   camera as a board source);
4. the CURVE authenticator, the feed hub (the recovered snapshot is published first) and the
   command endpoint; then one ``ready ...`` line on stdout (and ``--ready-file``).

Rules this module keeps:

1. Journal first: an input is handled by the core, then journaled (one committed entry with the
   decisions it led to, plus hand brackets, holds and resolutions), and only then published. A
   journal write that fails stops the daemon (exit status 3): what was not journaled is never
   published, and a restart replays the journal to the last committed state.
2. One input at a time: the core is only touched from the event loop, in callbacks that do not
   await; publishing runs in one task, in order, after the journal.
3. Ticks (timers) are journaled only when they changed something, so replay is exact.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from calibration.chips import ChipConfig, default_chip_config, load_chip_config
from calibration.deck import DeckStore
from hardware.base import (
    BadFrame,
    CardDrawn,
    DeviceEvent,
    DeviceHello,
    DeviceLost,
    DeviceRecovered,
    DeviceStatus,
    DuplicateFrame,
    FramesLost,
    LinkStale,
    PolledDevice,
    Retransmission,
    SequenceGap,
    ShoeStatus,
    TrayInventory,
    ZoneReport,
    open_chip_sensor,
    open_device,
    open_shoe,
    parse_device_url,
)
from hardware.link.protocol import MsgType, encode_frame
from hardware.link.serial_driver import SerialDevice
from table_controller.config import ControllerConfig
from table_controller.controller.core import TableCore
from table_controller.controller.events import (
    Announcement,
    Applied,
    BoardSeen,
    CardRead,
    ControllerInput,
    DealerCommand,
    DeviceDown,
    DeviceUp,
    HandEnded,
    HandStarted,
    HoldEntered,
    HoldLifted,
    IrregularityRaised,
    Output,
    Prompt,
    ReadsLost,
    Reply,
    Resolved,
    Restarted,
    ShoeState,
    Tick,
    TraySeen,
    ZoneSeen,
    input_from_dict,
)
from table_controller.engine import Card, RakeRule, TableConfig
from table_controller.errors import ConfigError, DeviceError, JournalError, TableError

log = logging.getLogger(__name__)

#: Seconds a chip difference may last before it is an irregularity.
SETTLE = 1.5
#: Link faults journaled (``decision`` entries, not replayed); at most this many a second per
#: device, the rest counted in the next entry's ``suppressed_before``.
LINK_FAULTS = (BadFrame, SequenceGap, Retransmission, DuplicateFrame, LinkStale)
LINK_FAULTS_PER_SECOND = 5
#: Seconds the camera may take to show a board card the shoe dealt.
CAMERA_WINDOW = 3.0
#: Seconds between timer runs (chip settle window, camera polling, device health).
TICK = 0.05
#: How many journaled reads the resend filter remembers (a shoe buffers at most 1,024).
READ_MEMORY = 8192
#: Seconds the daemon waits for the serial devices' HELLO before it says ready anyway.
SYNC_TIMEOUT = 3.0
#: Exit statuses.
EXIT_OK, EXIT_CONFIG, EXIT_JOURNAL = 0, 2, 3


class DaemonError(TableError):
    """The daemon cannot start or must stop."""


def table_config(config: ControllerConfig) -> TableConfig:
    """Build the engine's table configuration from the validated TOML configuration."""
    rake = None
    if config.rake.percent > 0:
        rake = RakeRule(round(config.rake.percent * 100), config.rake.cap or 10**12,
                        config.rake.no_flop_no_drop)
    s = config.stakes
    return TableConfig(seats=config.table.seats, small_blind=s.small_blind, big_blind=s.big_blind,
                       ante=s.ante, bb_ante=s.bb_ante, rake=rake)


def load_deck(config: ControllerConfig) -> dict[str, Card]:
    """Return the active deck profile (tag -> card); the simulated deck for ``sim://shoe``.

    :raises CalibrationError: if the deck profile is missing or invalid.
    """
    cal = config.calibration
    if cal.decks_dir is not None:
        return dict(DeckStore(cal.decks_dir).active(cal.active_deck).cards)
    from hardware.sim.shoe import sim_deck_profile

    url = parse_device_url(config.devices.shoe)
    try:
        seed = int(url.query.get("seed", "1"))
    except ValueError:
        raise ConfigError(f"devices.shoe: seed must be an integer in {url.url!r}") from None
    return sim_deck_profile(seed)


def load_chips(config: ControllerConfig) -> ChipConfig:
    """Return the chip-sensor calibration (the default layout for ``sim://chips``).

    :raises CalibrationError: if the file is missing or invalid.
    """
    if config.calibration.chip_zones is not None:
        return load_chip_config(config.calibration.chip_zones)
    return default_chip_config(config.table.seats)


def camera_configured(config: ControllerConfig) -> bool:
    """Tell whether the configuration gives the daemon a board source (see ``_open_camera``)."""
    url = parse_device_url(config.devices.camera)
    if url.key == "sim://camera" and "board" in url.query:
        return True
    return config.calibration.camera_profile is not None


def build_core(config: ControllerConfig, settle: float = SETTLE) -> TableCore:
    """Build the core from the configuration (no I/O besides reading calibration files)."""
    from table_controller.controller.dealing import DealingRules

    return TableCore(table_config(config), load_deck(config), load_chips(config), settle=settle,
                     camera_window=CAMERA_WINDOW if camera_configured(config) else None,
                     rules=DealingRules(config.house_rules))


def device_input(name: str, event: DeviceEvent) -> ControllerInput | None:
    """Turn a device event into a core input (``None`` for link chatter the core ignores)."""
    if isinstance(event, CardDrawn):
        return CardRead(event.uid, event.shoe_ms)
    if isinstance(event, ZoneReport):
        return ZoneSeen(event.zone, event.counts)
    if isinstance(event, TrayInventory):
        return TraySeen(event.counts)
    if isinstance(event, DeviceLost):
        return DeviceDown(name, event.reason)
    if isinstance(event, DeviceRecovered):
        return DeviceUp(name, event.reason)
    if isinstance(event, FramesLost):
        return ReadsLost(name, event.count)
    if isinstance(event, ShoeStatus):
        return ShoeState(event.door_open, event.empty)
    slots = getattr(event, "slots", None)
    if slots is not None:
        return BoardSeen(tuple(slots), tuple(getattr(event, "occluded", ())))
    return None


def _entry_text(inp: ControllerInput, out: list[Output]) -> str:
    applied = [o.text for o in out if isinstance(o, Applied)]
    if applied:
        return "; ".join(applied)
    irr = [f"irregularity {o.id}: {o.text}" for o in out if isinstance(o, IrregularityRaised)]
    if irr:
        return "; ".join(irr)
    if isinstance(inp, ZoneSeen):
        return f"chip zone {inp.zone} reports {dict(inp.counts)}"
    if isinstance(inp, TraySeen):
        return f"tray reports {dict(inp.counts)}"
    if isinstance(inp, BoardSeen):
        board = " ".join(c or "--" for c in inp.slots)
        hidden = f" (slots {', '.join(str(i + 1) for i in inp.occluded)} hidden)" \
            if inp.occluded else ""
        return f"camera sees the board {board}{hidden}"
    if isinstance(inp, CardRead):
        return f"card tag {inp.uid} read"
    if isinstance(inp, DeviceDown):
        return f"{inp.device} lost: {inp.reason}"
    if isinstance(inp, DeviceUp):
        return f"{inp.device} back: {inp.reason}"
    return f"{inp.to_dict()['kind']} input"


class DeferredAcks:
    """Wraps a device's link protocol so that what it wants written (ACK/NAK) waits.

    Journal first, also towards the devices: a frame is acknowledged only once the daemon has
    journaled what it carried, so a shoe never drops from its resend buffer a read the journal
    does not hold (a kill between the two would lose the card). The driver calls
    :meth:`take_outgoing` right after parsing; the bytes are kept until :meth:`release`, which
    the daemon calls after the events of that read were handled and journaled. Everything else
    is the wrapped protocol's.
    """

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._held: list[bytes] = []

    def take_outgoing(self) -> bytes:
        """Keep the protocol's outgoing bytes; give the driver nothing to write now."""
        data = self._inner.take_outgoing()
        if data:
            self._held.append(data)
        return b""

    def release(self) -> bytes:
        """Return (and forget) the bytes kept since the last release."""
        data = b"".join(self._held)
        self._held.clear()
        return data

    def reset(self, now: float) -> None:
        """Start a new port session: ACKs kept for the old one must not reach the new one."""
        self._held.clear()
        self._inner.reset(now)

    def mark_lost(self) -> None:
        """Drop what was kept: the port is gone."""
        self._held.clear()
        self._inner.mark_lost()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class Daemon:
    """One table's controller process.

    :param config: the validated configuration.
    :param ready_file: where to write the bound endpoints (JSON) once everything runs.
    :param settle: the chip settle window in seconds.
    :param print_ready: print the ``ready ...`` line on stdout.
    """

    def __init__(self, config: ControllerConfig, *, ready_file: Path | None = None,
                 settle: float = SETTLE, print_ready: bool = True) -> None:
        self.config = config
        self.ready_file = ready_file
        self.settle = settle
        self.print_ready = print_ready
        self.core: TableCore | None = None
        self.journal: Any = None
        self.hub: Any = None
        self.commands: Any = None
        self.devices: dict[str, Any] = {}
        self.exit_code = EXIT_OK
        self._stop: asyncio.Event | None = None
        self._queue: asyncio.Queue[list[Output]] | None = None
        self._links: dict[str, str] = {}
        self._replayed = 0
        self._offset = 0.0
        self._acks: dict[str, DeferredAcks] = {}
        self._release_due = False
        # Reads journaled lately, by (uid, shoe time): a shoe resends what it never saw
        # acknowledged, whatever hand the table is in by then, so this is not cleared at hand
        # starts; it keeps the last READ_MEMORY reads (far more than a shoe's resend buffer).
        self._reads: dict[tuple[str, int], None] = {}
        self._faults: dict[str, tuple[float, int, int]] = {}
        self._synced: set[str] = set()

    def now(self) -> float:
        """Return the daemon's monotonic time, never behind the last journaled time.

        After a reboot the system's monotonic clock starts again from zero; the core's timers
        (settle window, camera window) must not go back with it.
        """
        return time.monotonic() + self._offset

    # -- lifecycle ---------------------------------------------------------------------------

    async def run(self) -> int:
        """Start everything, serve until SIGTERM / Ctrl-C (or a fatal error), stop in reverse."""
        loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self._stop.set)
        try:
            async with contextlib.AsyncExitStack() as stack:
                await self.start(stack)
                await self._stop.wait()
                log.info("stopping")
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

    async def start(self, stack: contextlib.AsyncExitStack) -> None:
        """Start every part in order, registering its teardown on ``stack``.

        :raises ConfigError, CalibrationError, DeviceError, JournalError: a part cannot start.
        """
        import zmq.asyncio

        from hardware.link.aio import AsyncDevice
        from table_controller.feeds import CommandServer, CurveServer, FeedEndpoints, FeedHub
        from table_controller.journal import Journal

        cfg = self.config
        self.core = build_core(cfg, self.settle)
        cfg.journal.path.parent.mkdir(parents=True, exist_ok=True)
        cfg.journal.phh_dir.mkdir(parents=True, exist_ok=True)
        self.journal = Journal.open(cfg.journal.path)
        stack.callback(self.journal.close)
        self.recover()

        self._queue = asyncio.Queue()
        for name, url in (("shoe", cfg.devices.shoe), ("chips", cfg.devices.chips)):
            dev: PolledDevice = open_shoe(url) if name == "shoe" else open_chip_sensor(url)
            protocol = getattr(dev, "protocol", None)
            if protocol is not None and hasattr(protocol, "take_outgoing"):
                acks = DeferredAcks(protocol)
                dev.protocol = acks  # type: ignore[attr-defined]
                self._acks[name] = acks
            if isinstance(dev, SerialDevice):
                # A cable out must not keep the table down after a power cut: the device
                # starts lost (DeviceDown holds a hand in progress) and the driver keeps
                # trying to reopen it with back-off (reliability entry 6).
                dev.open(missing_ok=True)
            else:
                dev.open()
            stack.callback(dev.close)
            self.devices[name] = dev
            adev = AsyncDevice(dev, queue_size=1, tick_interval=TICK)
            adev.subscribe(self._listener(name))
            adev.start()
            stack.push_async_callback(adev.stop)
            if name in self._acks:
                # Ask for the device's HELLO now (an empty NAK, docs of hardware.link.protocol):
                # its power-on HELLO went out before the port was open. Until the link is
                # synced every data frame is refused and comes again as a retransmission.
                for ev in self.devices[name].send(encode_frame(MsgType.NAK, 0)):
                    self._on_device_event(name, ev)
        self._open_camera(stack)
        # No chip report is asked for here: before the link is synced (HELLO) the device's
        # answer would be refused (NAK) and come again as retransmissions. The device's HELLO
        # (or its recovery) asks for one (_on_device_event).

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
        self.hub = FeedHub(ctx, table_id=cfg.table.id,
                           endpoints=FeedEndpoints.from_config(cfg.endpoints), curve=curve,
                           heartbeat_interval=cfg.timing.heartbeat_interval)
        await self.hub.start()
        stack.push_async_callback(self.hub.stop)
        publisher = asyncio.create_task(self._publisher())
        stack.push_async_callback(_cancel, publisher)
        self._queue.put_nowait([])  # the recovered snapshot
        self.commands = CommandServer(ctx, cfg.endpoints.commands, table_id=cfg.table.id,
                                      journal=self.journal, handler=self._decide,
                                      on_committed=self._committed, curve=curve,
                                      mono_clock=self.now)
        await self.commands.start()
        stack.push_async_callback(self.commands.stop)
        timers = asyncio.create_task(self._timers())
        stack.push_async_callback(_cancel, timers)
        if "camera" in self.devices:
            camera = asyncio.create_task(self._camera_loop(self.devices["camera"]))
            stack.push_async_callback(_cancel, camera)
        await self._wait_synced(SYNC_TIMEOUT)
        self._announce_ready()

    async def _wait_synced(self, timeout: float) -> None:
        """Wait (at most ``timeout`` s) for the serial links' HELLO before saying ready.

        A dealer (or a simulator) that acts before the link is synced sends frames the daemon
        must refuse, which the device then resends: retransmissions on a clean link.
        """
        deadline = time.monotonic() + timeout

        def unsynced() -> set[str]:
            # a device whose port is missing (lost at start) has nothing to wait for
            return {n for n in set(self._acks) - self._synced
                    if self.devices[n].status().connected}

        while unsynced() and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        missing = sorted(unsynced())
        if missing:
            log.warning("no HELLO from %s after %.1f s: ready without it", ", ".join(missing),
                        timeout)

    def _open_camera(self, stack: contextlib.AsyncExitStack) -> None:
        """Open the board source: a ``board`` driver for the URL, else camera + profile."""
        import hardware.sim.camera_link  # noqa: F401  (registers the board-file source)

        url = self.config.devices.camera
        parsed = parse_device_url(url)
        profile_path = self.config.calibration.camera_profile
        source: Any
        if parsed.key == "sim://camera" and "board" in parsed.query:
            source = open_device(url, kind="board")
        elif parsed.key == "sim://camera" and "frames" in parsed.query:
            # frames rendered by the dealer's process, read like a camera: decode, recognizer
            # (the configured profile), stabiliser
            options = {} if profile_path is None else {"profile": profile_path}
            source = open_device(url, kind="board", **options)
        elif profile_path is not None:
            from calibration.camera import load_profile
            from hardware.base import open_camera
            from hardware.camera.stabilizer import BoardStabilizer
            from table_controller.controller.camera import FrameBoardSource

            profile = load_profile(profile_path)
            source = FrameBoardSource(open_camera(url), profile.recognizer(),
                                      BoardStabilizer(frames=3), interval=0.1,
                                      design=profile.design)
        else:
            log.warning("camera %s: no board file (board=PATH) and no calibration."
                        "camera_profile; the board is not checked", url)
            return
        source.open()
        stack.callback(source.close)
        self.devices["camera"] = source

    def _announce_ready(self) -> None:
        bound = dict(self.hub.bound)
        bound["commands"] = self.commands.bound
        info = {"table": self.config.table.id, "pid": os.getpid(), "endpoints": bound,
                "replayed": self._replayed}
        if self.ready_file is not None:
            tmp = self.ready_file.with_name(self.ready_file.name + ".tmp")
            tmp.write_text(json.dumps(info), encoding="utf-8")
            os.replace(tmp, self.ready_file)
        if self.print_ready:
            words = " ".join(f"{k}={v}" for k, v in bound.items())
            print(f"ready table={self.config.table.id} replayed={self._replayed} {words}",
                  flush=True)

    # -- recovery ----------------------------------------------------------------------------

    def recover(self) -> int:
        """Replay the journal through the core; complete brackets and PHH files.

        :returns: the number of inputs replayed.
        """
        from table_controller.journal import EntryKind, thaw

        core, journal = self.core, self.journal
        assert core is not None and journal is not None
        n = 0
        last = 0.0
        for entry in journal.entries():
            last = max(last, entry.mono_time)
            if entry.kind is EntryKind.DEVICE_EVENT:
                inp = input_from_dict(entry.payload["input"])
            elif entry.kind is EntryKind.DEALER_COMMAND:
                if not entry.payload.get("reply", {}).get("accepted"):
                    continue
                body = dict(thaw(entry.payload["command"]))
                inp = DealerCommand(str(body.pop("command")), body)
            else:
                continue
            if isinstance(inp, CardRead) and inp.shoe_ms is not None:
                self._remember_read((inp.uid, inp.shoe_ms))
            out = core.handle(inp, entry.mono_time)
            n += 1
            for o in out:
                if isinstance(o, Reply) and not o.accepted:
                    log.error("replay: journal entry %d was accepted, now refused: %s",
                              entry.seq, o.reason)
                if isinstance(o, HandEnded) and not o.voided:
                    self._write_phh(o, overwrite=False)
        if time.monotonic() < last:
            self._offset = last - time.monotonic() + 0.001
            log.warning("the monotonic clock is behind the journal (reboot): offset %.3f s",
                        self._offset)
        now = self.now()
        if journal.current_hand is not None and core.hand is None:
            journal.append("hand_end", {"text": f"hand {journal.current_hand} ends (completed "
                                                "at recovery)"}, wall_time=time.time(),
                           mono_time=now)
        elif journal.current_hand is None and core.hand is not None:
            journal.append("hand_start", {"text": f"hand {core.hand_number} starts (completed "
                                                  "at recovery)"}, wall_time=time.time(),
                           mono_time=now)
        self._replayed = n
        log.info("recovered %d inputs from %s", n, journal.path)
        if n:
            self.feed(Restarted(), self.now())
        return n

    # -- inputs ------------------------------------------------------------------------------

    def _listener(self, name: str) -> Callable[[DeviceEvent], None]:
        def listen(event: DeviceEvent) -> None:
            self._on_device_event(name, event)

        return listen

    def _on_device_event(self, name: str, event: DeviceEvent) -> None:
        if isinstance(event, DeviceHello | DeviceRecovered):
            self._synced.add(name)
            core = self.core
            if (isinstance(event, DeviceHello) and core is not None
                    and core.devices.get(name) not in (None, "ok")):
                # back while the daemon was down (the journal's last word was it lost): the
                # core hears it is up, as an input (journaled, so replay agrees)
                self.feed(DeviceUp(name, "the device said hello"), self.now())
        if isinstance(event, DeviceHello | DeviceRecovered) and name == "chips":
            dev = self.devices.get("chips")
            if dev is not None:
                dev.request_report()
        inp = device_input(name, event)
        if inp is not None:
            self.feed(inp, self.now())
        elif isinstance(event, LINK_FAULTS):
            self._journal_link_fault(name, event)
        if self._acks and not self._release_due:
            # after every event of this read was handled (the driver delivers them in one go)
            self._release_due = True
            asyncio.get_running_loop().call_soon(self.release_acks)

    def _journal_link_fault(self, name: str, event: DeviceEvent) -> None:
        """Journal a link fault (errors must survive a power cycle), at most a few a second."""
        now = self.now()
        start, written, suppressed = self._faults.get(name, (now, 0, 0))
        if now - start >= 1.0:
            start, written = now, 0
        if written >= LINK_FAULTS_PER_SECOND:
            self._faults[name] = (start, written, suppressed + 1)
            return
        fields = {k: (v.hex() if isinstance(v, bytes) else v)
                  for k, v in dataclasses.asdict(event).items()}
        payload: dict[str, Any] = {
            "text": f"{name} link: {type(event).__name__} {fields}",
            "link_fault": {"device": name, "type": type(event).__name__, **fields},
        }
        if suppressed:
            payload["suppressed_before"] = suppressed
        try:
            self.journal.append("decision", payload, wall_time=time.time(), mono_time=now)
        except JournalError as exc:
            self._fatal(exc)
            return
        self._faults[name] = (start, written + 1, 0)

    def release_acks(self) -> None:
        """Write the ACKs kept since the reads they acknowledge were journaled."""
        self._release_due = False
        if self.exit_code:
            return  # a journal write failed: acknowledge nothing more
        for name, acks in self._acks.items():
            data = acks.release()
            dev = self.devices.get(name)
            if data and dev is not None:
                for ev in dev.send(data):
                    self._on_device_event(name, ev)

    def _remember_read(self, key: tuple[str, int]) -> None:
        """Remember a journaled read so that a resend of it is dropped.

        The oldest is forgotten beyond :data:`READ_MEMORY`.
        """
        self._reads[key] = None
        if len(self._reads) > READ_MEMORY:
            del self._reads[next(iter(self._reads))]

    def feed(self, inp: ControllerInput, now: float) -> list[Output]:
        """Handle one device input: core, journal, then queue for publishing."""
        core = self.core
        assert core is not None
        if isinstance(inp, CardRead) and inp.shoe_ms is not None:
            key = (inp.uid, inp.shoe_ms)
            if key in self._reads:
                # the same read again (a shoe resending a frame journaled before a restart)
                log.info("read %s at shoe time %s already journaled: dropped", *key)
                return []
            self._remember_read(key)
        out = core.handle(inp, now)
        if isinstance(inp, Tick) and not out:
            return out
        try:
            self.journal.append("device_event", {"input": inp.to_dict(),
                                                 "text": _entry_text(inp, out)},
                                wall_time=time.time(), mono_time=now)
            self._journal_outputs(out, now)
        except JournalError as exc:
            self._fatal(exc)
            return out
        self._publish(out)
        return out

    def _journal_outputs(self, out: list[Output], now: float) -> None:
        j, wall = self.journal, time.time()
        for o in out:
            if isinstance(o, HandStarted):
                j.append("hand_start", {"text": f"hand {o.number} starts", "number": o.number,
                                        "config": dict(o.config)}, wall_time=wall, mono_time=now)
            elif isinstance(o, HandEnded):
                word = "voided" if o.voided else "ends"
                j.append("hand_end", {"text": f"hand {o.number} {word}", "voided": o.voided,
                                      "final_stacks": {str(s): v for s, v in
                                                       o.final_stacks.items()}},
                         wall_time=wall, mono_time=now)
                if not o.voided:
                    self._write_phh(o, overwrite=True)
            elif isinstance(o, IrregularityRaised):
                j.append("decision", {"text": f"irregularity {o.id} ({o.kind}): {o.text}",
                                      "irregularity": o.to_dict(), "secret": dict(o.secret)},
                         wall_time=wall, mono_time=now)
            elif isinstance(o, HoldEntered):
                j.append("hold", {"text": f"table held: {o.reason}", "reason": o.reason,
                                  "irregularity": o.irregularity}, wall_time=wall, mono_time=now)
            elif isinstance(o, HoldLifted):
                j.append("resolution", {"text": f"hold lifted: {o.note}", "note": o.note},
                         wall_time=wall, mono_time=now)
            elif isinstance(o, Resolved):
                j.append("resolution", {"text": f"irregularity {o.irregularity} resolved: "
                                                f"{o.note}", "irregularity": o.irregularity,
                                        "note": o.note}, wall_time=wall, mono_time=now)

    def _write_phh(self, ended: HandEnded, *, overwrite: bool) -> None:
        from table_controller.phh import PhhError, dumps, history_from_hand

        path = self.config.journal.phh_dir / f"hand-{ended.number:06d}.phh"
        if path.exists() and not overwrite:
            return
        assert self.core is not None
        names = {s: v.player for s, v in self.core.table.status().seats.items()}
        try:
            text = dumps(history_from_hand(ended.hand, players=names,
                                           extra={"hand": ended.number,
                                                  "table": self.config.table.id}))
        except PhhError as exc:
            log.warning("hand %d: no PHH file: %s", ended.number, exc)
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)

    def _fatal(self, exc: BaseException) -> None:
        log.critical("journal write failed, stopping (nothing more is published): %s", exc)
        self.stop(EXIT_JOURNAL)

    # -- commands ----------------------------------------------------------------------------

    async def _decide(self, cmd: Any) -> Any:
        from table_controller.feeds import CommandReply

        core = self.core
        assert core is not None
        out = core.preview(DealerCommand(cmd.name, dict(cmd.args)), self.now())
        reply = next(o for o in out if isinstance(o, Reply))
        result = dict(reply.result)
        if cmd.name == "status":
            result["phh_dir"] = str(self.config.journal.phh_dir)
            result["device_health"] = {n: dataclasses.asdict(s) for n, s in
                                       self._statuses().items()}
        return CommandReply(reply.accepted, reply.reason, result)

    async def _committed(self, cmd: Any, reply: Any, entry: Any) -> None:
        if not reply.accepted:
            return
        core = self.core
        assert core is not None
        out = core.handle(DealerCommand(cmd.name, dict(cmd.args)), entry.mono_time)
        applied = next(o for o in out if isinstance(o, Reply))
        if not applied.accepted:  # pragma: no cover - preview and apply disagree: a bug
            log.error("command %s accepted on preview but refused on apply: %s", cmd,
                      applied.reason)
        try:
            self._journal_outputs(out, entry.mono_time)
        except JournalError as exc:
            self._fatal(exc)
            return
        self._publish(out)

    # -- timers ------------------------------------------------------------------------------

    async def _timers(self) -> None:
        while True:
            await asyncio.sleep(TICK)
            # NAKs and ACKs of reads that produced no event: everything kept now was produced
            # by reads whose events were already handled and journaled
            self.release_acks()
            now = self.now()
            core = self.core
            assert core is not None
            deadline = core.next_deadline()
            if deadline is not None and now >= deadline:
                self.feed(Tick(), now)
            links = {n: s.link for n, s in self._statuses().items()}
            if links != self._links:
                self._links = links
                self._publish([])

    async def _camera_loop(self, cam: Any) -> None:
        while True:
            await asyncio.sleep(TICK)
            # recognition may take tens of ms (rendering a simulated frame 0.4 s): off the loop;
            # the source is used from this task only
            self.camera_events(await asyncio.to_thread(cam.poll, self.now()))

    def camera_events(self, events: list[DeviceEvent]) -> None:
        """Handle what the board source reported: board changes, deck check alerts."""
        from table_controller.controller.camera import DeckMatched, DeckMismatch

        for ev in events:
            if isinstance(ev, DeckMismatch | DeckMatched):
                bad = isinstance(ev, DeckMismatch)
                self.device_alert("camera", "deck_mismatch" if bad else "deck_matched", ev.text,
                                  {"median": ev.median, "cards": ev.cards,
                                   "link": "deck_mismatch" if bad else "ok"})
                continue
            inp = device_input("camera", ev)
            if inp is not None:
                self.feed(inp, self.now())

    def device_alert(self, device: str, kind: str, text: str, data: dict[str, Any]) -> None:
        """Journal, then announce on every feed, a device alert that is not a core input.

        The deck check's verdict is the camera's, not the table's state: it is journaled as a
        ``decision`` entry (like link faults; not replayed) and published as a ``device``
        announcement (like a device lost), after the journal.
        """
        now = self.now()
        try:
            self.journal.append("decision", {"text": text, "device_alert": {
                "device": device, "kind": kind, **data}}, wall_time=time.time(), mono_time=now)
        except JournalError as exc:
            self._fatal(exc)
            return
        self._publish([Announcement("device", text, {"device": device, "alert": kind,
                                                     **data})])

    def _statuses(self) -> dict[str, DeviceStatus]:
        return {n: d.status() for n, d in self.devices.items()}

    # -- publishing --------------------------------------------------------------------------

    def _publish(self, out: list[Output]) -> None:
        if self._queue is not None:
            self._queue.put_nowait(out)

    async def _publisher(self) -> None:
        assert self._queue is not None
        while True:
            out = await self._queue.get()
            try:
                await self._send(out, state=self._queue.empty())
            except TableError as exc:
                log.error("publishing failed: %s", exc)

    async def _send(self, out: list[Output], *, state: bool) -> None:
        from table_controller.feeds import HoleCardLeak

        hub, core = self.hub, self.core
        assert core is not None
        hub.set_secret_cards(core.secret_cards())
        # the prompt first: it is what the dealer waits for (the latency the benchmark measures)
        for o in sorted(out, key=lambda o: not isinstance(o, Prompt)):
            try:
                await self._send_one(o)
            except HoleCardLeak as exc:  # the hub refused it on every feed: a bug, logged
                log.error("not published (hole card guard): %s", exc)
        if state:
            await self._send_state()

    async def _send_one(self, o: Output) -> None:
        from table_controller.feeds import Feed

        hub = self.hub
        if isinstance(o, Prompt):
            # the dealer waits for it: its feed first, then the others
            await hub.publish(Feed.DEALER, "prompt", o.to_dict())
            await hub.broadcast("prompt", o.to_dict(), feeds=(Feed.PUBLIC, Feed.SURVEILLANCE))
        elif isinstance(o, Announcement):
            await hub.broadcast("announcement", o.to_dict())
        elif isinstance(o, Applied):
            body = {"text": o.text, **dict(o.data)}
            await hub.broadcast_to({Feed.PUBLIC: (body, None), Feed.DEALER: (body, None),
                                    Feed.SURVEILLANCE: ({**body, **dict(o.secret)}, None)},
                                   "event")
        elif isinstance(o, IrregularityRaised):
            body = o.to_dict()
            await hub.broadcast_to({Feed.PUBLIC: (body, None), Feed.DEALER: (body, None),
                                    Feed.SURVEILLANCE: ({**body, "secret": dict(o.secret)},
                                                        None)}, "irregularity")
        elif isinstance(o, HoldEntered):
            await hub.broadcast("hold", {"reason": o.reason,
                                         "irregularity": o.irregularity})
        elif isinstance(o, HoldLifted):
            await hub.broadcast("resume", {"note": o.note})
        elif isinstance(o, Resolved):
            await hub.broadcast("resolution", {"irregularity": o.irregularity,
                                               "note": o.note})
        elif isinstance(o, HandStarted):
            await hub.broadcast("hand_start", {"hand": o.number})
        elif isinstance(o, HandEnded):
            await hub.broadcast("hand_end", {"hand": o.number, "voided": o.voided,
                                             "final_stacks": {str(s): v for s, v in
                                                              o.final_stacks.items()}})

    async def _send_state(self) -> None:
        from table_controller.feeds import Feed

        core = self.core
        assert core is not None
        extra: dict[str, Any] = {"table": self.config.table.id,
                                 "phh_dir": str(self.config.journal.phh_dir)}
        statuses = self._statuses()
        links = {n: core.devices.get(n, "ok") if n not in statuses else statuses[n].link
                 for n in ("shoe", "chips", "camera")}
        if "camera" not in statuses:
            links["camera"] = "unavailable"
        extra["devices"] = links
        extra["device_health"] = {n: dataclasses.asdict(s) for n, s in statuses.items()}
        public = {**core.view(), **extra}
        secret = {**core.view(secret=True), **extra}
        await self.hub.broadcast_to({Feed.PUBLIC: (public, public),
                                     Feed.DEALER: (public, public),
                                     Feed.SURVEILLANCE: (secret, secret)}, "table_state")


async def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


def run_daemon(config: ControllerConfig, *, ready_file: Path | None = None,
               settle: float = SETTLE) -> int:
    """Run the daemon until stopped; return the exit status.

    Startup failures (a device that cannot be opened, a journal that does not verify, a port in
    use) are printed to stderr, exit status 1 (2 for configuration and calibration errors).
    """
    from table_controller.errors import CalibrationError

    daemon = Daemon(config, ready_file=ready_file, settle=settle)
    try:
        return asyncio.run(daemon.run())
    except (ConfigError, CalibrationError) as exc:
        print(f"table-controller run: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except (DeviceError, JournalError, TableError) as exc:
        print(f"table-controller run: cannot start: {exc}", file=sys.stderr)
        return 1

