"""``table-controller sim``: the simulated devices as their own process, and their controls.

``sim run --dir DIR`` starts the simulated card shoe and chip sensors on ptys (``DIR/shoe``,
``DIR/chips``: open them with ``serial://DIR/shoe``; with ``--shoe pn532`` / ``--chips rfid``
a PN532 reader and an RFID chip reader, ``pn532://DIR/shoe`` and ``rfidchips://DIR/chips``),
the board file the daemon's camera reads (``sim://camera?board=DIR/board.json``) and the
control socket ``DIR/ctl.sock``; writes
``DIR/sim.json`` and a complete ``DIR/table.toml``; prints ``ready``; stops on SIGTERM or
Ctrl-C. ``sim ctl --dir DIR VERB ...`` sends one control verb (``docs/protocol.md``).
``sim dealer --dir DIR`` is the practice dealer (``docs/tutorial.md``).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from pathlib import Path

from hardware.link.protocol import RETRANSMIT_AFTER

#: ``sim run --shoe`` / ``--chips`` (the rig's ``RigOptions.shoe`` / ``.chips``).
SHOES = ("ref", "pn532")
CHIP_SENSORS = ("ref", "rfid")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``sim run``, ``sim ctl`` and ``sim dealer``."""
    p = subparsers.add_parser("sim", help="simulated shoe, chip sensors and camera as devices")
    sub = p.add_subparsers(dest="sim_command", metavar="WHAT")
    run = sub.add_parser("run", help="start the simulated devices (prints 'ready')")
    run.add_argument("--dir", required=True, type=Path, help="where the ports and files go")
    run.add_argument("--seed", type=int, default=1, help="seeds the deck's tags and shuffles")
    run.add_argument("--seats", type=int, default=6, choices=range(2, 11), metavar="2..10",
                     help="seats at the table (6)")
    run.add_argument("--shoe", choices=SHOES, default="ref",
                     help="the reference-protocol shoe (ref) or a PN532 reader (pn532)")
    run.add_argument("--chips", choices=CHIP_SENSORS, default="ref",
                     help="counting chip sensors (ref) or an RFID chip reader (rfid)")
    run.add_argument("--device-heartbeat", type=float, default=0.25, metavar="SECONDS",
                     help="how often the devices send a heartbeat (0.25)")
    run.add_argument("--retransmit", type=_ack_wait, default=RETRANSMIT_AFTER, metavar="SECONDS",
                     help="how long the shoe and chip sensors wait for an ACK before they "
                          f"resend ({RETRANSMIT_AFTER:g}, the protocol's)")
    run.add_argument("--die-with-parent", action="store_true",
                     help="stop (SIGTERM) when the process that started it dies (Linux; for "
                          "the rig, so no devices outlive the demo)")
    run.set_defaults(handler=run_devices)
    ctl = sub.add_parser("ctl", help="send one control verb to a running 'sim run'")
    ctl.add_argument("--dir", required=True, type=Path, help="the directory of 'sim run'")
    ctl.add_argument("verb", help="draw, load, tag, shuffle, chips, board, door, status, "
                                  "unplug, plug, reboot, fault, stall, window, state")
    ctl.add_argument("args", nargs=argparse.REMAINDER, help="the verb's arguments")
    ctl.set_defaults(handler=control)
    dealer = sub.add_parser("dealer", help="practise dealing a hand on the daemon, by keys")
    dealer.add_argument("--dir", required=True, type=Path, help="the directory of 'sim run'")
    dealer.add_argument("--config", type=Path, default=None,
                        help="the daemon's configuration (default: DIR/table.toml)")
    dealer.set_defaults(handler=practice)

    def usage(_args: argparse.Namespace) -> int:
        p.print_help()
        return 2

    p.set_defaults(handler=usage)


def _ack_wait(text: str) -> float:
    """Parse ``--retransmit``: seconds, 0.001 to 600."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0.001 <= value <= 600.0:
        raise argparse.ArgumentTypeError(f"{text} s is outside 0.001..600 s")
    return value


def run_devices(args: argparse.Namespace) -> int:
    """Run the simulated devices until SIGTERM or Ctrl-C; 0, or 2 for a refused directory."""
    from table_controller.simtable.devices.bench import BenchError, SimBench
    from table_controller.simtable.devices.control import ControlServer

    stop = threading.Event()

    def on_signal(_sig: int, _frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    if args.die_with_parent:
        from table_controller.cli.run import die_with_parent

        die_with_parent()
    bench = SimBench(args.dir, seed=args.seed, seats=args.seats, shoe=args.shoe,
                     chips=args.chips, device_heartbeat=args.device_heartbeat,
                     retransmit=args.retransmit)
    try:
        bench.start()
    except BenchError as exc:
        print(f"sim run: {exc}", file=sys.stderr)
        return 2
    server: ControlServer | None = None
    try:
        server = ControlServer(bench, bench.ctl_path)
        server.start()
        print("ready", flush=True)
        while not stop.wait(0.5):
            pass
    finally:
        if server is not None:
            server.close()
        bench.stop()
    return 0


def control(args: argparse.Namespace) -> int:
    """Send one verb; print the reply. 0 done, 1 refused, 2 no ``sim run`` in that directory."""
    from table_controller.simtable.devices.control import ctl_once

    sock = args.dir / "ctl.sock"
    try:
        reply = ctl_once(sock, args.verb, args.args)
    except OSError as exc:
        print(f"sim ctl: no 'sim run' answers at {sock}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    if not reply.get("ok"):
        print(f"sim ctl: {reply.get('error')}", file=sys.stderr)
        return 1
    reply.pop("ok")
    print(json.dumps(reply, indent=2 if args.verb == "state" else None, sort_keys=True))
    return 0


def practice(args: argparse.Namespace) -> int:
    """Run the practice dealer (keys from stdin)."""
    from table_controller.cli.sim_dealer import run_practice

    return run_practice(args.dir, args.config or args.dir / "table.toml")
