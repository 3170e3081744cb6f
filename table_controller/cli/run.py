"""``table-controller run --config table.toml``: the controller daemon for one table.

Exit status: 0 after SIGTERM / Ctrl-C, 2 for a configuration or calibration error (the message
names the key), 1 when a part cannot start, 3 when the journal cannot be written.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``run`` subcommand."""
    p = subparsers.add_parser("run", help="run the table controller daemon",
                              description="Run the controller daemon of one table.")
    p.add_argument("--config", required=True, type=Path, help="the table's TOML configuration")
    p.add_argument("--ready-file", type=Path, default=None,
                   help="write the bound endpoints here (JSON) once everything runs")
    p.add_argument("--settle", type=float, default=None,
                   help="seconds a chip difference may last before it is an irregularity")
    p.add_argument("--log-level", default="WARNING",
                   choices=["DEBUG", "INFO", "WARNING", "ERROR"], help="log level (stderr)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Load and validate the configuration, then run the daemon until stopped."""
    from table_controller.config import load_config
    from table_controller.controller.daemon import SETTLE, run_daemon
    from table_controller.errors import ConfigError

    logging.basicConfig(level=args.log_level, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"table-controller run: {exc}", file=sys.stderr)
        return 2
    settle = SETTLE if args.settle is None else args.settle
    if settle <= 0:
        print(f"table-controller run: --settle must be > 0, got {settle}", file=sys.stderr)
        return 2
    return run_daemon(config, ready_file=args.ready_file, settle=settle)
