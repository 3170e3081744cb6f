"""``table-controller run --config table.toml``: the controller daemon for one table.

Exit status: 0 after SIGTERM / Ctrl-C (also a Ctrl-C during the start), 2 for a configuration
or calibration error (the message names the key), 1 when a part cannot start, 3 when the journal
cannot be written, 4 when the journal is damaged (cut, rolled back, altered or unreadable: the
daemon does not start; see ``docs/operations.md``, "A damaged journal").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from table_controller.logsetup import LOG_BURST, LOG_RATE


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``run`` subcommand."""
    p = subparsers.add_parser("run", help="run the table controller daemon",
                              description="Run the controller daemon of one table.")
    p.add_argument("--config", required=True, type=Path, help="the table's TOML configuration")
    p.add_argument("--ready-file", type=Path, default=None,
                   help="write the bound endpoints here (JSON) once everything runs")
    p.add_argument("--settle", type=float, default=None,
                   help="seconds a chip difference may last before it is an irregularity")
    p.add_argument("--accept-config-change", action="store_true",
                   help="the configuration differs from the one the journal recorded (stakes, "
                        "rake, house rules, --settle, deck or camera profile): journal the new "
                        "one and go on (between hands only); without it such a start is "
                        "refused (exit 2)")
    p.add_argument("--die-with-parent", action="store_true",
                   help="stop (SIGTERM) when the process that started the daemon dies "
                        "(Linux; for tests and the demo, so no daemon outlives its simulators)")
    p.add_argument("--log-level", default="INFO",
                   choices=["DEBUG", "INFO", "WARNING", "ERROR"],
                   help="log level (stderr; default INFO: the operator's lines - devices lost "
                        "and back, holds, irregularities, recovery)")
    p.add_argument("--log-format", default="text", choices=["text", "journal", "json"],
                   help="text (a terminal), journal (syslog priority prefixes for journald) or "
                        "json (one JSON object a line)")
    p.add_argument("--log-rate", type=_positive_int, default=LOG_RATE, metavar="BYTES",
                   help="write at most BYTES of log a second on average (default "
                        f"{LOG_RATE}); lines over it are left out and counted, and the next "
                        "line says how many (errors have a reserve of their own)")
    p.add_argument("--log-burst", type=_positive_int, default=LOG_BURST, metavar="BYTES",
                   help=f"... and at most BYTES at once (default {LOG_BURST})")
    p.set_defaults(handler=run)


def _positive_int(text: str) -> int:
    """Read a whole number of bytes, at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= value <= 2**40:
        raise argparse.ArgumentTypeError(f"must be between 1 and 2**40, got {text}")
    return value


def die_with_parent() -> None:
    """Ask Linux to send SIGTERM when the parent process dies (``prctl(PR_SET_PDEATHSIG)``).

    An orphaned daemon would keep reopening its simulators' stale pty links, and a recycled
    ``/dev/pts/N`` may by then belong to another table. Elsewhere than Linux this does nothing.
    """
    import ctypes
    import os
    import signal

    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_pdeathsig = 1
    libc.prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0)
    if os.getppid() == 1:  # the parent died before prctl took effect
        os.kill(os.getpid(), signal.SIGTERM)


def run(args: argparse.Namespace) -> int:
    """Load and validate the configuration, then run the daemon until stopped."""
    try:
        return _run(args)
    except KeyboardInterrupt:  # Ctrl-C before the daemon's own signal handling is in place
        print("table-controller run: stopped (Ctrl-C) before the table started", file=sys.stderr)
        return 0


def _run(args: argparse.Namespace) -> int:
    from table_controller.config import load_config
    from table_controller.daemon import SETTLE, run_daemon
    from table_controller.errors import ConfigError
    from table_controller.logsetup import configure

    configure(args.log_level, args.log_format, rate=args.log_rate, burst=args.log_burst)
    if args.die_with_parent:
        die_with_parent()
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"table-controller run: {exc}", file=sys.stderr)
        return 2
    settle = SETTLE if args.settle is None else args.settle
    if settle <= 0:
        print(f"table-controller run: --settle must be > 0, got {settle}", file=sys.stderr)
        return 2
    return run_daemon(config, ready_file=args.ready_file, settle=settle,
                      accept_config_change=args.accept_config_change)
