"""``table-controller calibrate chips``: write or check the chip-sensor calibration.

::

    table-controller calibrate chips write PATH [--seats N] [--force]
    table-controller calibrate chips check PATH

``write`` saves the default layout (zones ``1..N`` are the seats, ``N + 1`` the pot, the tray
reports its inventory separately; the default denominations) for you to edit; ``check`` loads a
file with full validation (unknown keys refused, the key named) and prints a summary.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from table_controller.errors import TableError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``calibrate chips`` to the ``calibrate`` sub-parsers."""
    p = subparsers.add_parser("chips", help="chip-sensor zones (seats, pot, tray), denominations")
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    w = sub.add_parser("write", help="write the default calibration to edit")
    w.add_argument("path", type=Path)
    w.add_argument("--seats", type=int, default=9, help="seats at the table (2..10, default 9)")
    w.add_argument("--force", action="store_true", help="overwrite an existing file")
    c = sub.add_parser("check", help="validate a calibration file")
    c.add_argument("path", type=Path)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Handle ``calibrate chips``; returns the exit status."""
    from calibration.chips import ChipConfig, default_chip_config, load_chip_config

    try:
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
        return 0
    except TableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
