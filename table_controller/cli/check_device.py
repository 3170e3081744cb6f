"""``table-controller check-device URL --kind shoe|chips``: check a device against the protocol.

Runs :mod:`hardware.link.conformance` against the device on ``URL`` (``serial:///dev/ttyUSB0``
or a bare path) and prints one line per check, ``PASS`` or ``FAIL`` with what was seen. Exit
status: 0 when every check passes, 1 otherwise, 2 when the port cannot be opened.
"""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``check-device``."""
    p = subparsers.add_parser("check-device",
                              help="check a shoe or chip-sensor device against the protocol")
    p.add_argument("url", help="the device: serial:///dev/ttyUSB0 (or a path)")
    p.add_argument("--kind", required=True, choices=["shoe", "chips"], help="the device kind")
    p.add_argument("--baud", type=int, default=115200, help="baud rate (115200)")
    p.add_argument("--timeout", type=float, default=3.0,
                   help="seconds the device has to answer each step (3)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run the checks; print them; return 0 (all pass), 1 (a failure) or 2 (no port)."""
    import serial

    from hardware.link.conformance import Port, Probe, run_checks

    path = args.url.removeprefix("serial://").split("?", 1)[0]

    def opener() -> Port:
        port: Port = serial.Serial(path, args.baud, timeout=0.05)
        return port

    try:
        probe = Probe(opener, timeout=args.timeout)
    except (serial.SerialException, OSError) as exc:
        print(f"check-device: cannot open {path}: {exc}", file=sys.stderr)
        return 2
    failed = 0
    try:
        for check in run_checks(probe, args.kind):
            failed += not check.ok
            print(f"{'PASS' if check.ok else 'FAIL'}  {check.name}: {check.detail}", flush=True)
    except (serial.SerialException, OSError) as exc:
        print(f"FAIL  the port failed: {exc}", flush=True)
        failed += 1
    finally:
        close = getattr(probe.port, "close", None)
        if close is not None:
            close()
    print("conforms" if not failed else f"{failed} check(s) failed")
    return 1 if failed else 0
