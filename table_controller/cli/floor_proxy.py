"""``table-controller floor-proxy``: forward many tables' public feeds to the floor's displays."""

from __future__ import annotations

import argparse
import signal
import sys
import threading


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``floor-proxy`` subcommand."""
    p = subparsers.add_parser(
        "floor-proxy",
        help="XSUB/XPUB proxy: floor displays see the public feeds of many tables",
        description="Connect to each table's public feed (--frontend, repeatable) and publish "
        "everything on one endpoint (--backend). Stops on SIGTERM or Ctrl-C.",
    )
    p.add_argument("--frontend", action="append", required=True, metavar="ENDPOINT",
                   help="a table's public feed, e.g. tcp://10.0.0.11:5561 (repeatable)")
    p.add_argument("--backend", required=True, metavar="ENDPOINT",
                   help="where floor displays subscribe, e.g. tcp://0.0.0.0:6000")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run until SIGTERM / Ctrl-C; returns 0, or 1 if the proxy cannot start."""
    from table_controller.feeds.messages import FeedError
    from table_controller.feeds.proxy import FloorProxy

    try:
        proxy = FloorProxy(args.frontend, args.backend)
        proxy.start()
    except FeedError as exc:
        print(f"floor-proxy: {exc}", file=sys.stderr)
        return 1
    done = threading.Event()

    def _stop(signum: int, frame: object) -> None:
        done.set()

    old = {s: signal.signal(s, _stop) for s in (signal.SIGTERM, signal.SIGINT)}
    print(f"floor proxy: {', '.join(args.frontend)} -> {proxy.bound}", flush=True)
    try:
        while not done.wait(0.5):
            pass
    finally:
        proxy.stop()
        for s, h in old.items():
            signal.signal(s, h)
    return 0
