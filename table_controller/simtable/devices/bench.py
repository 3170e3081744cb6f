"""The simulated devices as devices: a shoe, chip sensors and a camera a daemon reaches by URL.

:class:`SimBench` owns, in one directory ``DIR``:

- ``DIR/shoe`` and ``DIR/chips``: stable links to the ptys of a :class:`BenchShoe` and a
  :class:`BenchChips` (the reference protocol's bytes; a daemon opens ``serial://DIR/shoe``);
- ``DIR/board.json``: the board the daemon's ``sim://camera?board=DIR/board.json`` reads (the
  honest equivalent of a camera across processes: the recognizer's input is the board itself,
  as :mod:`hardware.sim.camera_link` explains);
- ``DIR/table.toml`` with the calibration and keys it needs (the one template of
  :class:`~table_controller.simtable.rig.SimRig`), and ``DIR/sim.json`` with the three URLs.

Rules this module keeps:

1. An entry of ``DIR`` it would write but did not create (its manifest ``DIR/.sim-bench``
   lists what it made) stops the start with :class:`BenchError`; nothing is overwritten.
2. :meth:`SimBench.execute` checks a verb and all its arguments before it changes anything:
   a refused verb changes nothing.
3. Randomness is seeded: the shuffles of the shoe and the fault draws come from ``seed``.
"""

from __future__ import annotations

import contextlib
import json
import random
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from hardware.link.protocol import RETRANSMIT_AFTER, MsgType
from hardware.shoe.protocol import shoe_status_payload
from hardware.sim.device import Fault, SimDevice, SimulatorError
from hardware.sim.pn532 import SimPn532
from table_controller.engine.cards import FULL_DECK, Card
from table_controller.errors import TableError
from table_controller.simtable.commodity import Pn532Feeder, RfidFelt
from table_controller.simtable.devices.faulty import (
    BenchChips,
    BenchRfid,
    BenchShoe,
    link_state,
)
from table_controller.simtable.felt import BoardFile, FeltError, chips_for
from table_controller.simtable.rig import CHIP_REGISTRY, SENSOR_ZONES, RigOptions, SimRig

#: Names a fault is given on the control interface (the :class:`Fault` values, and short ones).
FAULT_NAMES: dict[str, Fault] = {
    **{f.value: f for f in Fault},
    "corrupt": Fault.CORRUPT_CRC, "drop": Fault.DROP_FRAME, "lost-ack": Fault.LOSE_ACK,
}
#: The RATE of ``fault`` that means "the next data frame only".
ONCE = ("once", "next")
#: What the bench writes in its directory (checked against the manifest before a start).
ENTRIES = ("shoe", "chips", "board.json", "sim.json", "table.toml", "decks", "chip_zones.toml",
           "keys", "phh", "ctl.sock", CHIP_REGISTRY)
MANIFEST = ".sim-bench"
#: The longest a cable may stay out, or a device stall, on request (seconds).
MAX_UNPLUG = 3600.0
#: The largest resend buffer a device may be given (frames; the simulators' default).
MAX_WINDOW = 1024


class BenchError(TableError):
    """A verb or its arguments were refused, or the bench cannot start (one line: why)."""


def _int(text: str, what: str, low: int, high: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise BenchError(f"{what} must be an integer, got {text!r}") from None
    if not low <= value <= high:
        raise BenchError(f"{what} must be {low}..{high}, got {value}")
    return value


def _float(text: str, what: str, low: float, high: float) -> float:
    try:
        value = float(text)
    except ValueError:
        raise BenchError(f"{what} must be a number, got {text!r}") from None
    if not low <= value <= high:
        raise BenchError(f"{what} must be {low:g}..{high:g}, got {value:g}")
    return value


def _card(text: str) -> Card:
    try:
        return Card.parse(text)
    except (TableError, ValueError):
        raise BenchError(f"{text!r} is not a card (say Ah, Td, 7c)") from None


def _arity(verb: str, args: Sequence[str], low: int, high: int, usage: str) -> None:
    if not low <= len(args) <= high:
        raise BenchError(f"{verb}: usage: {verb} {usage}")


class SimBench:
    """The simulated shoe, chip sensors and board of one directory.

    :param directory: where the ports, files and configuration go (created if missing).
    :param seed: seeds the deck's tags, the shuffles and the fault draws.
    :param seats: the table's seats (2..10).
    :param shoe: ``"ref"`` (the reference-protocol shoe) or ``"pn532"`` (a PN532 reader: a
        card drawn is put on its antenna; it has no door and takes no rate faults).
    :param chips: ``"ref"`` (counting chip sensors) or ``"rfid"`` (an RFID chip reader; the
        chips laid are tags of the chip registry ``DIR/chip_registry.json`` it writes).
    :raises RigError: for another shoe or chip sensor kind.
    """

    def __init__(self, directory: str | Path, *, seed: int = 1, seats: int = 6,
                 device_heartbeat: float = 0.25, shoe: str = "ref", chips: str = "ref",
                 retransmit: float = RETRANSMIT_AFTER) -> None:
        self.dir = Path(directory).resolve()
        self.seed = seed
        self.options = RigOptions(seats=seats, seed=seed, camera_level="exact",
                                  device_heartbeat=device_heartbeat, shoe=shoe, chips=chips,
                                  retransmit=retransmit,
                                  devices="inline")  # the bench *is* the devices' process
        self.rig = SimRig(self.options, workdir=self.dir, keep=True)
        self.profile = self.rig.profile
        self.chip_config = self.rig.chip_config
        self._rng = random.Random(seed ^ 0xD3C)
        self._tags = random.Random(seed ^ 0x7A6)  # unregistered tags
        self._lock = threading.RLock()
        self._timers: list[threading.Timer] = []
        self.shoe: BenchShoe | None = None
        self.chips: BenchChips | None = None
        #: the commodity readers, and what the dealer's hands work them through
        self.pn532: SimPn532 | None = None
        self.feeder: Pn532Feeder | None = None
        self.rfid: BenchRfid | None = None
        self.rfid_felt: RfidFelt | None = None
        self.board: BoardFile | None = None
        self.shuffles = 0

    # -- paths and URLs ------------------------------------------------------------------------

    @property
    def ctl_path(self) -> Path:
        """The control socket."""
        return self.dir / "ctl.sock"

    def urls(self) -> dict[str, str]:
        """Return the devices' URLs (what ``DIR/sim.json`` holds) and the control socket."""
        return {"shoe": self.rig.shoe_url(), "chips": self.rig.chips_url(),
                "camera": f"sim://camera?board={self.dir / 'board.json'}",
                "ctl": str(self.ctl_path)}

    # -- lifecycle -----------------------------------------------------------------------------

    def check_dir(self) -> None:
        """Refuse entries of the directory the bench would write but did not make.

        :raises BenchError: naming the first such entry.
        """
        owned: set[str] = set()
        manifest = self.dir / MANIFEST
        if manifest.exists():
            with contextlib.suppress(ValueError, OSError):
                owned = set(json.loads(manifest.read_text()))
        for name in ENTRIES:
            path = self.dir / name
            if (path.exists() or path.is_symlink()) and name not in owned:
                raise BenchError(f"{path} exists and was not made by sim run; "
                                 "refusing to overwrite it (use another --dir)")

    def start(self) -> None:
        """Make the directory, start the devices and write the files (in that order).

        :raises BenchError: if the directory holds an entry the bench did not make.
        """
        self.dir.mkdir(parents=True, exist_ok=True)
        self.check_dir()
        (self.dir / MANIFEST).write_text(json.dumps(list(ENTRIES)))
        try:
            self.rig.guard.prepare()
            self._make_devices()
            self.rig.write_files()
            self.board = BoardFile(self.rig.board_path)
            # no scan before any host listens: a frame sent to nobody is resent, unACKed, to
            # the daemon that opens the port later (a retransmission it never had the original
            # of); the dealer's first shuffle or load is scanned
            self.shuffle(scan=False)
            for dev in (self.shoe, self.pn532, self.chips, self.rfid):
                if dev is not None:
                    dev.start()
            (self.dir / "sim.json").write_text(json.dumps(
                {k: v for k, v in self.urls().items() if k != "ctl"}, indent=2) + "\n")
        except BaseException:
            self.stop()
            raise

    def _make_devices(self) -> None:
        hb, shoe, chips = self.options.device_heartbeat, self.dir / "shoe", self.dir / "chips"
        if self.options.shoe == "pn532":
            self.pn532 = self.rig.pn532 = SimPn532(link_path=str(shoe))
            self.feeder = Pn532Feeder(self.pn532)
        else:
            self.shoe = self.rig.shoe = BenchShoe(link_path=str(shoe), seed=self.seed,
                                                  heartbeat_interval=hb, fault_seed=self.seed,
                                                  retransmit_after=self.options.retransmit)
            self.shoe.describe = self._describe
        if self.options.chips == "rfid":
            self.rfid = self.rig.rfid = BenchRfid(SENSOR_ZONES, link_path=str(chips),
                                                  heartbeat_interval=hb, fault_seed=self.seed + 1,
                                                  retransmit_after=self.options.retransmit)
            self.rfid_felt = RfidFelt(self.rfid, self.rig.chip_bank)
        else:
            self.chips = self.rig.chips = BenchChips(SENSOR_ZONES, link_path=str(chips),
                                                     heartbeat_interval=hb,
                                                     fault_seed=self.seed + 1,
                                                     retransmit_after=self.options.retransmit)

    def stop(self) -> None:
        """Stop the devices (their links go); ``sim.json`` goes too. Idempotent."""
        with self._lock:
            timers, self._timers = self._timers, []
        for t in timers:
            t.cancel()
        with self._lock:
            self.board = None
        self.rig.stop()
        self.shoe = self.chips = self.pn532 = self.rfid = None
        self.feeder = self.rfid_felt = None
        with contextlib.suppress(FileNotFoundError):
            (self.dir / "sim.json").unlink()

    # -- the verbs -----------------------------------------------------------------------------

    def execute(self, verb: str, args: Sequence[str]) -> dict[str, Any]:
        """Do one control verb; return what it did.

        :raises BenchError: for an unknown verb or a bad argument (nothing changed).
        """
        if verb not in VERBS:
            raise BenchError(f"unknown verb {verb!r} (verbs: {', '.join(VERBS)})")
        with self._lock:
            if self.board is None:
                raise BenchError("the devices are not running")
            handler: Callable[[list[str]], dict[str, Any]] = getattr(self, f"_do_{verb}")
            return handler([str(a) for a in args])

    def shuffle(self, *, scan: bool = True) -> list[Card]:
        """Load the next seeded shuffle into the shoe (it scans the deck); return its order.

        :param scan: whether a reference shoe reports the scan (a PN532 scans nothing).
        """
        deck = list(FULL_DECK)
        self._rng.shuffle(deck)
        uids = [self.profile.uid(c) for c in deck]
        if self.shoe is not None and not scan:
            scans, self.shoe.scan_on_load = self.shoe.scan_on_load, False
            try:
                self.shoe.load_deck(uids)
            finally:
                self.shoe.scan_on_load = scans
        else:
            self._shoe().load_deck(uids)
        self.shuffles += 1
        return deck

    def _describe(self, uid: str) -> str:
        card = self.profile.card(uid)
        return uid if card is None else card.code

    def _shoe(self) -> BenchShoe | Pn532Feeder:
        shoe = self.shoe or self.feeder
        assert shoe is not None, "the devices are not running"
        return shoe

    def _device(self, name: str) -> SimDevice | SimPn532:
        dev = {"shoe": self.shoe or self.pn532, "chips": self.chips or self.rfid}.get(name)
        if dev is None:
            raise BenchError(f"device must be shoe or chips, got {name!r}")
        return dev

    def _do_draw(self, args: list[str]) -> dict[str, Any]:
        _arity("draw", args, 0, 1, "[CARD|unregistered]")
        shoe = self._shoe()
        if args and args[0].lower() == "unregistered":  # a tag of no card of the deck
            known = {u.upper() for u in self.profile.cards}
            while (uid := "04" + self._tags.randbytes(6).hex().upper()) in known:
                pass
            shoe.draw_uid(uid)
            return {"card": None, "uid": uid, "left": len(shoe.remaining)}
        if not shoe.remaining:
            raise BenchError("the shoe is empty: shuffle first")
        if args:
            card = _card(args[0])
            uid = self.profile.uid(card)
            if uid.upper() not in {u.upper() for u in shoe.remaining}:
                raise BenchError(f"{card.code} is not in the shoe (drawn already)")
            shoe.take(uid)
        else:
            uid = shoe.draw()
        done = {"card": self._describe(uid), "uid": uid, "left": len(shoe.remaining)}
        if isinstance(shoe, BenchShoe) and shoe.card_written_at is not None:
            done["written"] = shoe.card_written_at  # when its frame went to the port
        return done

    def _do_load(self, args: list[str]) -> dict[str, Any]:
        if not 1 <= len(args) <= 52:
            raise BenchError("load: usage: load CARD... (1..52 cards, top card first)")
        cards = [_card(a) for a in args]
        if len(set(cards)) != len(cards):
            raise BenchError("load: a card is named twice")
        self._shoe().load_deck([self.profile.uid(c) for c in cards])
        return {"left": len(cards)}

    def _do_tag(self, args: list[str]) -> dict[str, Any]:
        _arity("tag", args, 1, 1, "UID")
        uid = args[0].upper()
        if not 8 <= len(uid) <= 20 or len(uid) % 2 or any(
                c not in "0123456789ABCDEF" for c in uid):
            raise BenchError(f"UID must be 4..10 bytes of hex, got {args[0]!r}")
        shoe = self.shoe or self.feeder
        assert shoe is not None
        shoe.draw_uid(uid)
        return {"uid": uid, "card": self._describe(uid)}

    def _do_chiptags(self, args: list[str]) -> dict[str, Any]:
        """``chiptags ZONE UID...``: lay these RFID tags on a zone, registered chips or not."""
        if len(args) < 2:
            raise BenchError(f"usage: chiptags {VERBS['chiptags']}")
        zone = _int(args[0], "ZONE", min(SENSOR_ZONES), max(SENSOR_ZONES))
        uids = [a.upper() for a in args[1:]]
        for uid, given in zip(uids, args[1:], strict=True):
            if not 8 <= len(uid) <= 20 or len(uid) % 2 or any(
                    c not in "0123456789ABCDEF" for c in uid):
                raise BenchError(f"UID must be 4..10 bytes of hex, got {given!r}")
        if self.rfid is None:
            raise BenchError("chiptags: the chip sensors are not RFID readers (sim run "
                             "--chips rfid)")
        try:
            self.rfid.place(zone, uids)
        except SimulatorError as exc:
            raise BenchError(str(exc)) from None
        return {"zone": zone, "tags": sorted(self.rfid.tags(zone))}

    def _do_shuffle(self, args: list[str]) -> dict[str, Any]:
        _arity("shuffle", args, 0, 0, "")
        self.shuffle()
        return {"left": 52, "shuffles": self.shuffles}

    def _do_chips(self, args: list[str]) -> dict[str, Any]:
        _arity("chips", args, 2, 2 + len(self.chip_config.denominations),
               "ZONE AMOUNT [CODE=COUNT ...]")
        zone = _int(args[0], "ZONE", min(SENSOR_ZONES), max(SENSOR_ZONES))
        amount = _int(args[1], "AMOUNT", 0, 10**9)
        values = self.chip_config.denominations
        if len(args) > 2:  # the denominations given
            counts = {}
            for item in args[2:]:
                code, _, count = item.partition("=")
                c = _int(code, "CODE", min(values), max(values))
                if c not in values:
                    raise BenchError(f"no denomination has code {c} (codes: "
                                     f"{', '.join(map(str, sorted(values)))})")
                counts[c] = _int(count, f"COUNT of code {c}", 0, 10**6)
            if sum(values[c] * n for c, n in counts.items()) != amount:
                raise BenchError(f"the chips given are not worth {amount}")
            counts = {c: n for c, n in counts.items() if n}
        else:
            try:
                counts = chips_for(amount, values)
            except FeltError as exc:
                raise BenchError(str(exc)) from None
        surface = self.chips or self.rfid_felt
        assert surface is not None
        try:
            surface.set_zone(zone, counts)
        except FeltError as exc:  # the RFID bank has no tag left of a denomination
            raise BenchError(str(exc)) from None
        return {"zone": zone, "amount": amount, "chips": {str(k): v for k, v in counts.items()}}

    def _do_board(self, args: list[str]) -> dict[str, Any]:
        _arity("board", args, 2, 2, "SLOT(0..4) CARD|empty")
        assert self.board is not None
        slot = _int(args[0], "SLOT", 0, 4)
        code = None if args[1].lower() in ("empty", "-", "none") else _card(args[1]).code
        if code is not None and code in self.board.slots and self.board.slots[slot] != code:
            raise BenchError(f"{code} lies in board slot {self.board.slots.index(code)} already")
        self.board.lay(slot, code)
        return {"board": list(self.board.slots)}

    def _do_door(self, args: list[str]) -> dict[str, Any]:
        _arity("door", args, 1, 1, "open|closed")
        if args[0] not in ("open", "closed"):
            raise BenchError(f"door must be open or closed, got {args[0]!r}")
        if self.shoe is None:
            raise BenchError("a PN532 shoe has no door")
        self.shoe.set_status(door_open=args[0] == "open")
        return {"door": args[0]}

    def _do_unplug(self, args: list[str]) -> dict[str, Any]:
        _arity("unplug", args, 1, 2, "shoe|chips [SECONDS]")
        dev = self._device(args[0])
        seconds = _float(args[1], "SECONDS", 0.01, MAX_UNPLUG) if len(args) > 1 else None
        if not dev.port.plugged:
            raise BenchError(f"the {args[0]} is unplugged already")
        dev.unplug()
        if seconds is None:  # until ``plug``
            return {"device": args[0], "unplugged_for": None}
        timer = threading.Timer(seconds, self._replug, (dev,))
        timer.daemon = True
        self._timers.append(timer)
        timer.start()
        return {"device": args[0], "unplugged_for": seconds}

    def _do_plug(self, args: list[str]) -> dict[str, Any]:
        _arity("plug", args, 1, 2, "shoe|chips [reboot]")
        dev = self._device(args[0])
        if len(args) > 1 and args[1] != "reboot":
            raise BenchError(f"plug: the second argument can only be reboot, got {args[1]!r}")
        if dev.port.plugged:
            raise BenchError(f"the {args[0]} is plugged in already")
        self.rig.guard.prepare()  # keep pty numbers other runs' stale links point to
        dev.replug(reboot=len(args) > 1)
        return {"device": args[0], "boot_id": _boot_id(dev)}

    def _replug(self, dev: SimDevice | SimPn532, reboot: bool = False) -> None:
        with self._lock:
            if self.board is not None:  # still running
                dev.replug(reboot=reboot)

    def _do_stall(self, args: list[str]) -> dict[str, Any]:
        _arity("stall", args, 2, 3, "shoe|chips SECONDS [next]")
        dev = self._device(args[0])
        seconds = _float(args[1], "SECONDS", 0.01, MAX_UNPLUG)
        if len(args) > 2 and args[2] not in ONCE:
            raise BenchError(f"stall: the third argument can only be next, got {args[2]!r}")
        if not isinstance(dev, BenchShoe | BenchChips | BenchRfid):
            raise BenchError("a PN532 shoe cannot stall (it answers polls only)")
        if len(args) > 2:  # right after the next data frame is out (before its ACK comes)
            dev.faults.stall_after = seconds
        else:
            dev.stall(seconds)
        return {"device": args[0], "stalled_for": seconds, "after_next": len(args) > 2}

    def _do_window(self, args: list[str]) -> dict[str, Any]:
        _arity("window", args, 2, 2, "shoe|chips FRAMES")
        dev = self._device(args[0])
        frames = _int(args[1], "FRAMES", 1, MAX_WINDOW)
        if not isinstance(dev, SimDevice):
            raise BenchError("a PN532 shoe keeps no frames to resend")
        dev.window = dev.link.window = frames
        return {"device": args[0], "window": frames}

    def _do_reboot(self, args: list[str]) -> dict[str, Any]:
        _arity("reboot", args, 1, 1, "shoe|chips")
        dev = self._device(args[0])
        dev.unplug()
        dev.replug(reboot=True)
        return {"device": args[0], "boot_id": _boot_id(dev)}

    def _do_fault(self, args: list[str]) -> dict[str, Any]:
        _arity("fault", args, 3, 3, "shoe|chips KIND RATE|once")
        dev = self._device(args[0])
        fault = FAULT_NAMES.get(args[1].lower())
        if fault is None:
            raise BenchError(f"fault kind must be one of {', '.join(sorted(FAULT_NAMES))}, "
                             f"got {args[1]!r}")
        once = args[2].lower() in ONCE
        rate = 0.0 if once else _float(args[2], "RATE", 0.0, 1.0)
        if not isinstance(dev, BenchShoe | BenchChips | BenchRfid):
            raise BenchError("a PN532 shoe takes no rate faults nor one-shot link faults "
                             "(its faults are per poll)")
        if once:
            dev.faults.once.append(fault)
        elif rate:
            dev.faults.rates[fault] = rate
        else:
            dev.faults.rates.pop(fault, None)
        return {"device": args[0], "faults": {f.value: r for f, r in dev.faults.rates.items()},
                "once": [f.value for f in dev.faults.once]}

    def _do_status(self, args: list[str]) -> dict[str, Any]:
        _arity("status", args, 0, 4, "door=open|closed empty=yes|no jam=yes|no error=N")
        if self.shoe is None:
            raise BenchError("a PN532 shoe reports no status")
        given: dict[str, str] = {}
        for item in args:
            key, eq, value = item.partition("=")
            if not eq or key not in ("door", "empty", "jam", "error"):
                raise BenchError(f"status takes door=, empty=, jam=, error=; got {item!r}")
            if key in given:
                raise BenchError(f"status: {key}= given twice")
            given[key] = value.lower()
        door = given.get("door")
        if door is not None and door not in ("open", "closed"):
            raise BenchError(f"door must be open or closed, got {door!r}")
        flags = {k: given[k] for k in ("empty", "jam") if k in given}
        for key, value in flags.items():
            if value not in ("yes", "no"):
                raise BenchError(f"{key} must be yes or no, got {value!r}")
        error = _int(given["error"], "error", 0, 255) if "error" in given else None
        shoe = self.shoe
        if door is not None:
            shoe.door_open = door == "open"
        if "jam" in flags:
            shoe.jam = flags["jam"] == "yes"
        if error is not None:
            shoe.error = error
        empty = not shoe.remaining if "empty" not in flags else flags["empty"] == "yes"
        shoe.emit(MsgType.SHOE_STATUS,
                  shoe_status_payload(shoe.door_open, empty, shoe.jam, shoe.error))
        return {"door": "open" if shoe.door_open else "closed", "empty": empty,
                "jam": shoe.jam, "error": shoe.error}

    def _do_state(self, args: list[str]) -> dict[str, Any]:
        _arity("state", args, 0, 0, "")
        assert self.board is not None
        shoe: dict[str, Any]
        if self.shoe is not None:
            shoe = {**link_state(self.shoe, self.shoe.faults, self.shoe.sent),
                    "door": "open" if self.shoe.door_open else "closed"}
        else:
            assert self.pn532 is not None
            tag = self.pn532.tag
            shoe = {"plugged": self.pn532.port.plugged, "polls": self.pn532.polls,
                    "antenna": None if tag is None else self._describe(tag)}
        held = self._shoe()
        shoe.update(drawn=[self._describe(u) for u in held.drawn], left=len(held.remaining))
        chips: dict[str, Any]
        if self.chips is not None:
            sensors = self.chips
            chips = {**link_state(sensors, sensors.faults, sensors.sent),
                     "zones": {str(z): sensors.value(z) for z in sensors.zones
                               if sensors.zone(z)},
                     "tray": sensors.value("tray")}
        else:
            assert self.rfid is not None and self.rfid_felt is not None
            values = self.chip_config.denominations
            felt = self.rfid_felt
            chips = {**link_state(self.rfid, self.rfid.faults, self.rfid.sent),
                     "zones": {str(z): v for z in SENSOR_ZONES if (v := sum(
                         values[c] * n for c, n in felt.counts(z).items()))},
                     # what the reader holds: the felt's chips and any tag laid by chiptags
                     "tags": {str(z): sorted(self.rfid.tags(z)) for z in SENSOR_ZONES
                              if self.rfid.tags(z)}}
        return {"shoe": shoe, "chips": chips, "board": list(self.board.slots)}


def _boot_id(dev: SimDevice | SimPn532) -> int | None:
    return dev.link.boot_id if isinstance(dev, SimDevice) else None


#: The control verbs, with their arguments.
VERBS: Mapping[str, str] = {
    "draw": "[CARD|unregistered]", "load": "CARD...", "tag": "UID", "shuffle": "",
    "chips": "ZONE AMOUNT [CODE=COUNT ...]", "chiptags": "ZONE UID...", "board": "SLOT CARD|empty",
    "door": "open|closed", "status": "[door=open|closed] [empty=yes|no] [jam=yes|no] [error=N]",
    "unplug": "shoe|chips [SECONDS]", "plug": "shoe|chips [reboot]", "reboot": "shoe|chips",
    "stall": "shoe|chips SECONDS", "window": "shoe|chips FRAMES",
    "fault": "shoe|chips KIND RATE|once", "state": "",
}
