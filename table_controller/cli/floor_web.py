r"""``table-controller floor-web``: the floor staff's web view of many tables.

Examples::

    table-controller floor-web add-user floor-users.json ann --role floor   # password on stdin
    table-controller floor-web --users floor-users.json --listen 0.0.0.0:8443 \\
        --cert floor.crt --key floor.pem \\
        --table T1=tcp://10.0.0.11:5561,tcp://10.0.0.11:5564 \\
        --table T2=tcp://10.0.0.12:5561,tcp://10.0.0.12:5564
    table-controller floor-web --users floor-users.json --connect tcp://127.0.0.1:6000 \\
        --table T1=tcp://10.0.0.11:5564 --table T2=tcp://10.0.0.12:5564 \\
        --surveillance T1=tcp://10.0.0.11:5563,tcp://10.0.0.11:5565 \\
        --surveillance-key keys/displays/floor-web.key_secret --server-key T1=keys/t1/server.key \\
        --journal T1=/var/lib/table-controller/T1/journal.db \\
        --central postgresql://floorweb@db.floor/tables
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ssl

    from table_controller.floorweb.auth import Sessions, Users
    from table_controller.floorweb.sources import FeedFollowers


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``floor-web`` subcommand (and ``floor-web add-user``)."""
    p = subparsers.add_parser(
        "floor-web",
        help="web view for the floor: many tables, holds first, in a browser",
        description="Follow many tables' feeds and serve the floor's web page (WebSocket "
        "updates). Stops on SIGTERM or Ctrl-C. 'floor-web add-user' manages the users file.",
    )
    p.add_argument("--users", type=Path, metavar="FILE",
                   help="the users file (from 'floor-web add-user'); required to serve")
    p.add_argument("--listen", default="127.0.0.1:8080", metavar="HOST:PORT",
                   help="where to serve (default 127.0.0.1:8080; port 0 picks one)")
    p.add_argument("--table", action="append", default=[], metavar="ID=FEED,SNAPSHOT",
                   help="a table's public feed and snapshot endpoints; ID=SNAPSHOT with "
                        "--connect (repeatable)")
    p.add_argument("--connect", metavar="ENDPOINT",
                   help="the floor proxy's backend, for --table ID=SNAPSHOT")
    p.add_argument("--config", action="append", default=[], metavar="PATH",
                   help="a table's configuration (its endpoints and journal; repeatable)")
    p.add_argument("--surveillance", action="append", default=[], metavar="ID=FEED,SNAPSHOT",
                   help="also follow this table's surveillance feed (CURVE; repeatable)")
    p.add_argument("--surveillance-key", action="append", default=[], metavar="[ID=]FILE",
                   help="the display key (NAME.key_secret) for the surveillance feeds; ID= for "
                        "one table")
    p.add_argument("--server-key", action="append", default=[], metavar="[ID=]FILE",
                   help="the table's public server key (server.key); ID= for one table")
    p.add_argument("--journal", action="append", default=[], metavar="ID=PATH",
                   help="a table's journal, for hand recall (repeatable)")
    p.add_argument("--central", metavar="postgresql://...",
                   help="the central store: the surveillance role can search and open hands "
                        "across the floor (/hands)")
    p.add_argument("--cert", type=Path, metavar="FILE", help="HTTPS certificate (PEM)")
    p.add_argument("--key", type=Path, metavar="FILE", help="HTTPS private key (PEM)")
    p.add_argument("--heartbeat-timeout", type=float, default=3.0, metavar="S",
                   help="seconds without a message before a feed counts as lost (3)")
    p.add_argument("--session-hours", type=float, default=12.0, metavar="H",
                   help="a login lasts this long (12; idle sessions end after 1 h)")
    p.add_argument("--ready-file", type=Path, metavar="PATH",
                   help="write {\"url\": ...} here once serving")
    p.add_argument("--duration", type=float, default=None, metavar="S",
                   help="stop after S seconds (default: until SIGTERM / Ctrl-C)")
    p.set_defaults(handler=run)
    sub = p.add_subparsers(dest="floor_web_command", metavar="add-user")
    add = sub.add_parser("add-user", help="add or replace a user; the password is read from "
                         "standard input")
    add.add_argument("file", type=Path, help="the users file (created with mode 0600)")
    add.add_argument("name", help="the user's name")
    add.add_argument("--role", choices=("floor", "surveillance"), required=True)
    add.set_defaults(handler=run_add_user)


def run_add_user(args: argparse.Namespace) -> int:
    """Add a user; the password is the first line of standard input. 0, or 2 on bad input."""
    from table_controller.floorweb.auth import UserFileError, add_user

    if sys.stdin.isatty():
        import getpass

        password = getpass.getpass(f"password for {args.name}: ")
    else:
        password = sys.stdin.readline().rstrip("\r\n")
    try:
        add_user(args.file, args.name, args.role, password)
    except UserFileError as exc:
        print(f"floor-web add-user: {exc}", file=sys.stderr)
        return 2
    print(f"{args.name} ({args.role}) saved in {args.file}")
    return 0


def _listen(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"--listen {value!r}: expected HOST:PORT")
    return host.strip("[]"), int(port)


def run(args: argparse.Namespace) -> int:
    """Serve until SIGTERM / Ctrl-C or ``--duration``; 0, 2 on bad options, 1 if it can't start."""
    import asyncio
    import ssl

    from table_controller.errors import TableError
    from table_controller.floorweb.auth import Sessions, Users
    from table_controller.floorweb.sources import FeedFollowers, table_specs

    try:
        if args.users is None:
            raise ValueError("--users FILE is required (create it with 'table-controller "
                             "floor-web add-user FILE NAME --role floor')")
        host, port = _listen(args.listen)
        if (args.cert is None) != (args.key is None):
            raise ValueError("HTTPS needs both --cert and --key")
        if not 0 < args.heartbeat_timeout <= 600:
            raise ValueError("--heartbeat-timeout: must be > 0 and <= 600")
        specs = table_specs(tables=args.table, connect=args.connect,
                            surveillance=args.surveillance,
                            surveillance_keys=args.surveillance_key,
                            server_keys=args.server_key, journals=args.journal,
                            configs=args.config)
        users = Users.load(args.users)
        if args.central is not None:
            from table_controller.central.common import check_url

            check_url(args.central)
        tls = None
        if args.cert is not None:
            tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            tls.load_cert_chain(args.cert, args.key)
    except (ValueError, TableError, OSError, ssl.SSLError) as exc:
        print(f"floor-web: {exc}", file=sys.stderr)
        return 2
    followers = FeedFollowers(specs, heartbeat_timeout=args.heartbeat_timeout)
    sessions = Sessions(ttl=args.session_hours * 3600)
    try:
        asyncio.run(_serve(followers, users, sessions, host, port, tls, args))
    except OSError as exc:
        print(f"floor-web: cannot serve on {args.listen}: {exc}", file=sys.stderr)
        return 1
    except TableError as exc:
        print(f"floor-web: {exc}", file=sys.stderr)
        return 1
    return 0


async def _serve(followers: FeedFollowers, users: Users, sessions: Sessions, host: str,
                 port: int, tls: ssl.SSLContext | None, args: argparse.Namespace) -> None:
    import asyncio
    import contextlib
    import signal

    from aiohttp import web

    from table_controller.floorweb.app import FloorWeb

    server = FloorWeb(followers, users, https=tls is not None, sessions=sessions,
                      central=args.central)
    runner = web.AppRunner(server.app(), handle_signals=False, access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port, ssl_context=tls)
        await site.start()
        bound = runner.addresses[0]
        scheme = "https" if tls is not None else "http"
        shown = f"[{bound[0]}]" if ":" in str(bound[0]) else bound[0]
        url = f"{scheme}://{shown}:{bound[1]}/"
        print(f"floor web: {url} ({len(followers.specs)} tables)", flush=True)
        if args.ready_file is not None:
            tmp = args.ready_file.with_name(args.ready_file.name + ".tmp")
            tmp.write_text(json.dumps({"url": url}))
            tmp.replace(args.ready_file)
        done = asyncio.Event()
        loop = asyncio.get_running_loop()
        for s in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(s, done.set)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), args.duration)
    finally:
        await runner.cleanup()
