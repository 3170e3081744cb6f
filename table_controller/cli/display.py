r"""``table-controller display``: the public, dealer and floor screens in a terminal.

Examples::

    table-controller display --role public --config examples/table.toml
    table-controller display --role dealer --connect tcp://127.0.0.1:5562 \\
        --snapshot tcp://127.0.0.1:5564
    table-controller display --role surveillance --config /etc/table-controller/table.toml \\
        --key keys/displays/monitor-1.key_secret --server-key keys/server.key
    table-controller display --role floor --connect tcp://127.0.0.1:6000 \\
        --table T1=tcp://10.0.0.11:5564 --table T2=tcp://10.0.0.12:5564

The public, dealer and surveillance screens follow one table (``--config`` or ``--connect`` +
``--snapshot``); the floor follows the public feeds of many tables through
``table-controller floor-proxy`` (``--connect`` = the proxy's backend) and takes each table's
snapshot from its own endpoint.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from table_controller.feeds import ClientKeys


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``display`` subcommand."""
    p = subparsers.add_parser(
        "display",
        help="terminal displays: public, dealer, floor",
        description="Follow a table's feed (or many tables' through the floor proxy) and show "
        "it. Takes a snapshot on start and after a gap; says 'connection lost' when heartbeats "
        "stop and recovers by itself. Ctrl-C to quit.",
    )
    p.add_argument("--role", choices=("public", "dealer", "surveillance", "floor"),
                   required=True, help="surveillance: every hole card (needs --key)")
    p.add_argument("--config", metavar="PATH",
                   help="the table's configuration (endpoints and table id)")
    p.add_argument("--connect", metavar="ENDPOINT",
                   help="the feed endpoint (the floor proxy's backend for --role floor)")
    p.add_argument("--snapshot", metavar="ENDPOINT", help="the table's snapshot endpoint")
    p.add_argument("--table", action="append", default=[], metavar="ID[=SNAPSHOT]",
                   help="table id; for the floor ID=SNAPSHOT_ENDPOINT, repeatable")
    p.add_argument("--heartbeat-timeout", type=float, default=None, metavar="S",
                   help="seconds without a message before 'connection lost' (default: the "
                        "table's timing.heartbeat_timeout with --config, else 3)")
    p.add_argument("--key", type=Path, metavar="FILE",
                   help="this display's secret key file (NAME.key_secret, from "
                        "'table-controller keys'); required for --role surveillance")
    p.add_argument("--server-key", type=Path, metavar="FILE",
                   help="the table's public key file (server.key)")
    p.add_argument("--duration", type=float, default=None, metavar="S",
                   help="quit after S seconds (default: run until Ctrl-C)")
    p.set_defaults(handler=run)


def sources_from_args(args: argparse.Namespace) -> list[tuple[str, str, str]]:
    """Work out ``(table, feed, snapshot)`` for each table to follow.

    :raises ValueError: naming the missing or bad option.
    """
    if args.config:
        from table_controller.config import load_config

        cfg = load_config(args.config)
        feed = {"dealer": cfg.endpoints.dealer,
                "surveillance": cfg.endpoints.surveillance}.get(args.role, cfg.endpoints.public)
        snapshot = cfg.endpoints.surveillance_snapshot if args.role == "surveillance" \
            else cfg.endpoints.snapshot
        return [(cfg.table.id, args.connect or _local(feed), args.snapshot
                 or _local(snapshot))]
    if not args.connect:
        raise ValueError("give --config, or --connect (and --snapshot / --table)")
    if args.role == "floor":
        out = []
        for item in args.table:
            table, eq, snap = item.partition("=")
            if not eq or not table or not snap:
                raise ValueError(f"--table {item!r}: the floor needs ID=SNAPSHOT_ENDPOINT")
            out.append((table, args.connect, snap))
        if not out:
            raise ValueError("the floor needs at least one --table ID=SNAPSHOT_ENDPOINT")
        return out
    if not args.snapshot:
        raise ValueError("--snapshot ENDPOINT is needed with --connect")
    if len(args.table) > 1 or (args.table and "=" in args.table[0]):
        raise ValueError("--table takes one plain table id for the public and dealer roles")
    return [(args.table[0] if args.table else "", args.connect, args.snapshot)]


def client_keys(args: argparse.Namespace) -> ClientKeys | None:
    """Load the display's CURVE keys (``--key`` and ``--server-key``), if given.

    :raises ValueError: one of the two without the other, or surveillance without keys.
    :raises KeyFileError: a key file that is missing or not a key.
    """
    from table_controller.feeds import ClientKeys

    if args.key is None and args.server_key is None:
        if args.role == "surveillance":
            raise ValueError("--role surveillance needs --key NAME.key_secret (a display key "
                             "the table allows) and --server-key server.key")
        return None
    if args.key is None or args.server_key is None:
        raise ValueError("CURVE needs both --key and --server-key")
    return ClientKeys.from_files(args.key, args.server_key)


def heartbeat_timeout(args: argparse.Namespace) -> float | None:
    """Return the seconds of silence after which the display says the connection is lost.

    The option wins; else the table's configured ``timing.heartbeat_timeout`` (a table with a
    5 s heartbeat must not flash "connection lost" at 3 s); else ``None``: the timeout the
    table announces in its snapshot (3 s until then).

    :raises ValueError: a timeout that is not a positive number.
    """
    if args.heartbeat_timeout is not None:
        value = float(args.heartbeat_timeout)
        if not 0 < value <= 600:
            raise ValueError(f"--heartbeat-timeout: must be > 0 and <= 600, got {value}")
        return value
    if args.config:
        from table_controller.config import load_config

        return load_config(args.config).timing.heartbeat_timeout
    return None


def _local(endpoint: str) -> str:
    """Turn a bind address (``tcp://*:5561``, ``tcp://0.0.0.0:5561``) into one to connect to."""
    for wildcard in ("tcp://*:", "tcp://0.0.0.0:"):
        if endpoint.startswith(wildcard):
            return "tcp://127.0.0.1:" + endpoint[len(wildcard):]
    return endpoint


def run(args: argparse.Namespace) -> int:
    """Run the display; 0 on Ctrl-C or after ``--duration``, 2 on bad options."""
    import asyncio

    from table_controller.displays.live import TableSource, run_display
    from table_controller.errors import TableError

    try:
        sources = [TableSource(*s) for s in sources_from_args(args)]
        timeout = heartbeat_timeout(args)
        keys = client_keys(args)
    except (ValueError, TableError) as exc:
        print(f"display: {exc}", file=sys.stderr)
        return 2
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run_display(args.role, sources, duration=args.duration,
                                heartbeat_timeout=timeout, keys=keys))
    return 0
