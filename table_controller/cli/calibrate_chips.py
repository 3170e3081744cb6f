"""``table-controller calibrate chips``: write or check the chip-sensor calibration.

::

    table-controller calibrate chips learn PATH --sensor URL --seats N [--stack V] [--force]
    table-controller calibrate chips check PATH [--sensor URL --stack V]
    table-controller calibrate chips write PATH [--seats N] [--force]
    table-controller calibrate chips register REGISTRY --sensor URL --zone Z --denomination CODE
                                              [--chip-set NAME] [--count N]

``learn`` talks to the sensors: it asks for one stack on each seat's spot in turn, then on the
pot, learns which sensor zone each is (one stack at a time; see :mod:`calibration.chip_learning`)
and saves the calibration. ``check`` loads a file with full validation (unknown keys refused,
the key named) and prints a summary; with ``--sensor`` it also reads the sensors, with the
known stack ``--stack`` on every zone, and says which zones show it. ``write`` saves the default
layout (zones ``1..N`` are the seats, ``N + 1`` the pot) for you to edit. ``register`` (RFID
gaming chips) reads the tags of a stack laid on one zone of an RFID chip reader
(``rfidchips://``) and adds them to the chip registry as chips of one denomination code: a stack
at a time, a denomination at a time; a tag already registered as another denomination or chip
set is refused, and ``--count`` checks the stack has as many chips as counted by hand.

Exit status: 0 done, 1 a refusal or timeout (the message says why), 2 a bad option.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from table_controller.errors import TableError

if TYPE_CHECKING:
    from calibration.chips import ChipConfig


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``calibrate chips`` to the ``calibrate`` sub-parsers."""
    p = subparsers.add_parser("chips", help="chip-sensor zones (seats, pot, tray), denominations")
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    w = sub.add_parser("write", help="write the default calibration to edit")
    w.add_argument("path", type=Path)
    w.add_argument("--seats", type=int, default=9, help="seats at the table (2..10, default 9)")
    w.add_argument("--force", action="store_true", help="overwrite an existing file")
    c = sub.add_parser("check", help="validate a calibration file (and the sensors with it)")
    c.add_argument("path", type=Path)
    c.add_argument("--sensor", help="chip sensor URL: also check each zone shows --stack")
    c.add_argument("--stack", type=int, default=None, help="the known stack's value")
    c.add_argument("--timeout", type=float, default=120.0, help="seconds to wait (120)")
    c.add_argument("--settle", type=float, default=1.0, help="seconds a stack must read still")
    ln = sub.add_parser("learn", help="learn the zones from the sensors, one stack at a time")
    ln.add_argument("path", type=Path)
    ln.add_argument("--sensor", required=True, help="chip sensor URL, e.g. serial:///dev/ttyUSB1")
    ln.add_argument("--seats", type=int, required=True, help="seats at the table (2..10)")
    ln.add_argument("--stack", type=int, default=None,
                    help="value of the test stack (default: any stack)")
    ln.add_argument("--tray-zone", action="store_true",
                    help="the tray is a zone of its own (learnt after the pot)")
    ln.add_argument("--timeout", type=float, default=600.0, help="seconds to wait (600)")
    ln.add_argument("--settle", type=float, default=1.0, help="seconds a stack must read still")
    ln.add_argument("--force", action="store_true", help="overwrite an existing file")
    rg = sub.add_parser("register", help="add a stack's RFID chip tags to the chip registry")
    rg.add_argument("registry", type=Path, help="the chip registry file (created if missing)")
    rg.add_argument("--sensor", required=True, help="RFID chip reader URL (rfidchips://...)")
    rg.add_argument("--zone", type=int, required=True, help="the zone the stack lies on")
    rg.add_argument("--denomination", type=int, required=True,
                    help="the chips' denomination code (as in chip_zones.toml)")
    rg.add_argument("--chip-set", default="house", help="the chip set's name (house)")
    rg.add_argument("--count", type=int, default=None, help="the chips counted by hand")
    rg.add_argument("--timeout", type=float, default=120.0, help="seconds to wait (120)")
    rg.add_argument("--settle", type=float, default=1.0, help="seconds the tags must read still")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Handle ``calibrate chips``; returns the exit status."""
    from calibration.chips import default_chip_config, load_chip_config

    try:
        if args.action == "learn":
            return _learn(args)
        if args.action == "register":
            return _register(args)
        if args.action == "write":
            if args.path.exists() and not args.force:
                print(f"error: {args.path} exists (use --force to overwrite)", file=sys.stderr)
                return 1
            cfg: ChipConfig = default_chip_config(args.seats)
            args.path.parent.mkdir(parents=True, exist_ok=True)
            args.path.write_text(cfg.to_toml(), encoding="utf-8")
            print(f"wrote {args.path}")
        else:
            cfg = load_chip_config(args.path)
        tray = cfg.tray_zone
        print(
            f"ok: {len(cfg.seat_zones)} seat zones, pot zone {cfg.pot_zone}, tray "
            f"{'zone ' + str(tray) if tray is not None else 'via inventory'}, "
            f"{len(cfg.denominations)} denominations "
            f"({', '.join(str(v) for _, v in sorted(cfg.denominations.items()))})"
        )
        if args.action == "check" and args.sensor is not None:
            return _check_sensors(args, cfg)
        return 0
    except TableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def _reports(url: str, timeout: float, on_report: Callable[[int, dict[int, int], float], bool],
             on_tick: Callable[[float], bool]) -> bool:
    """Read the sensor's zone reports until a callback says done (``True``) or time runs out."""
    from hardware.base import ZoneReport, open_chip_sensor

    sensor = open_chip_sensor(url)
    sensor.open()
    try:
        start = time.monotonic()
        next_request = start
        while True:
            now = time.monotonic()
            if now - start >= timeout:
                return False
            if now >= next_request:
                sensor.request_report()
                next_request = now + 2.0
            for event in sensor.read_events(0.2):
                if isinstance(event, ZoneReport) and on_report(event.zone, event.as_dict(),
                                                               time.monotonic()):
                    return True
            if on_tick(time.monotonic()):
                return True
    finally:
        sensor.close()


def _learn(args: argparse.Namespace) -> int:
    from calibration.chip_learning import ZoneLearner
    from calibration.chips import MAX_SEATS

    if not 2 <= args.seats <= MAX_SEATS:
        print(f"error: --seats must be 2..{MAX_SEATS}, got {args.seats}", file=sys.stderr)
        return 2
    if args.stack is not None and args.stack <= 0:
        print(f"error: --stack must be > 0, got {args.stack}", file=sys.stderr)
        return 2
    if args.path.exists() and not args.force:
        print(f"error: {args.path} exists (use --force to overwrite)", file=sys.stderr)
        return 1
    roles = [f"seat {n}" for n in range(1, args.seats + 1)] + ["pot"]
    if args.tray_zone:
        roles.append("tray")
    learner = ZoneLearner(roles, stack=args.stack, settle=args.settle)
    print(learner.prompt(), flush=True)

    def show(lines: list[str]) -> bool:
        for line in lines:
            print(f"{len(learner.learnt)}/{len(roles)}  {line}", flush=True)
        return learner.done

    ok = _reports(args.sensor, args.timeout,
                  lambda zone, counts, now: show(learner.feed(zone, counts, now)),
                  lambda now: show(learner.tick(now)))
    if not ok:
        print(f"error: timed out after {args.timeout:g} s with {len(learner.learnt)} of "
              f"{len(roles)} places learnt ({learner.prompt()}); nothing saved", file=sys.stderr)
        return 1
    cfg = learner.result()
    args.path.parent.mkdir(parents=True, exist_ok=True)
    args.path.write_text(cfg.to_toml(), encoding="utf-8")
    print(f"learnt {len(roles)} zones, saved to {args.path}")
    return 0


def _check_sensors(args: argparse.Namespace, cfg: ChipConfig) -> int:
    from calibration.chip_learning import ZoneChecker

    if args.stack is None or args.stack <= 0:
        print("error: --sensor needs --stack V (> 0): the known stack put on every zone",
              file=sys.stderr)
        return 2
    checker = ZoneChecker(cfg, args.stack, settle=args.settle)
    print(f"put a stack of {args.stack:,} on every zone ({len(cfg.zones)} zones)", flush=True)
    shown: dict[int, str] = {}

    def progress(now: float) -> bool:
        verdicts = checker.verdicts(now)
        for zone, text in verdicts.items():
            if shown.get(zone) != text and text != "ok" and "no report" not in text:
                print(f"  {text}", flush=True)
            shown[zone] = text
        return all(v == "ok" for v in verdicts.values())

    def report(zone: int, counts: dict[int, int], now: float) -> bool:
        checker.feed(zone, counts, now)
        return progress(now)

    if _reports(args.sensor, args.timeout, report, progress):
        print(f"ok: every zone shows {args.stack:,}")
        return 0
    bad = [t for t in checker.verdicts(time.monotonic()).values() if t != "ok"]
    print(f"error: after {args.timeout:g} s, {len(bad)} zone(s) wrong: " + "; ".join(bad),
          file=sys.stderr)
    return 1


def _register(args: argparse.Namespace) -> int:
    from calibration.chip_registry import ChipRecord, ChipRegistry, load_registry
    from hardware.base import open_chip_sensor
    from hardware.rfidchips.protocol import ZoneInventory

    if not 0 <= args.denomination <= 255:
        print(f"error: --denomination must be a code 0..255, got {args.denomination}",
              file=sys.stderr)
        return 2
    registry = load_registry(args.registry) if args.registry.exists() else ChipRegistry()
    sensor = open_chip_sensor(args.sensor)
    sensor.open()
    tags: tuple[str, ...] = ()
    since = time.monotonic()
    try:
        print(f"lay the stack of denomination {args.denomination} on zone {args.zone}",
              flush=True)
        start = next_request = time.monotonic()
        while True:
            now = time.monotonic()
            if now - start >= args.timeout:
                print(f"error: timed out after {args.timeout:g} s without a settled stack on "
                      f"zone {args.zone}; nothing saved", file=sys.stderr)
                return 1
            if now >= next_request:
                sensor.request_report()
                next_request = now + 2.0
            for ev in sensor.read_events(0.2):
                if isinstance(ev, ZoneInventory) and ev.zone == args.zone and ev.uids != tags:
                    tags, since = ev.uids, time.monotonic()
                    print(f"  zone {args.zone}: {len(tags)} tags", flush=True)
            if tags and time.monotonic() - since >= args.settle:
                break
    finally:
        sensor.close()
    if args.count is not None and args.count != len(tags):
        print(f"error: zone {args.zone} reads {len(tags)} tags, counted {args.count}: a chip "
              "without a readable tag, or one from another stack; nothing saved",
              file=sys.stderr)
        return 1
    records = {r.uid: r for r in registry.records()}
    added = 0
    for uid in tags:
        old = records.get(uid)
        if old is not None and (old.denomination, old.chip_set) != (args.denomination,
                                                                     args.chip_set):
            print(f"error: tag {uid} is already registered as denomination "
                  f"{old.denomination} of chip set {old.chip_set!r}; nothing saved",
                  file=sys.stderr)
            return 1
        if old is None:
            records[uid] = ChipRecord(uid, args.denomination, args.chip_set)
            added += 1
    ChipRegistry(records.values()).save(args.registry)
    print(f"registered {added} new chips of denomination {args.denomination} "
          f"({len(tags) - added} already known); {len(records)} chips in {args.registry}")
    return 0
