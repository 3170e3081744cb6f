"""``table-controller demo``: the whole system on simulated devices, in one command.

Starts the controller daemon on simulated devices (shoe and chip sensors over pseudo-terminals,
the camera reading a board file), seats simulated players, and lets a simulated dealer follow the
daemon's prompts for ``--hands`` hands while the dealer's screen is shown live. Ends with a
summary (hands, irregularities, chips before and after, where the hand histories went) and stops
everything it started. Exit status 0 when the hands were played and the chips agree; 1 (after a
one-line error, no summary) when the simulated table could not start.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _rate(text: str) -> float:
    v = float(text)
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"a rate is 0..1, got {text}")
    return v


def _positive(text: str) -> int:
    v = int(text)
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {text}")
    return v


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``demo`` subcommand."""
    p = subparsers.add_parser(
        "demo", help="play hands on a simulated table (daemon, devices, players, dealer)",
        description="Run the controller daemon on simulated devices with simulated players and "
        "dealer, show the table live, and print a summary.")
    p.add_argument("--hands", type=_positive, default=10, help="hands to play (default 10)")
    p.add_argument("--seed", type=int, default=1, help="seeds the players and the decks")
    p.add_argument("--fast", action="store_true", help="no pacing: as fast as it goes")
    p.add_argument("--faults", type=_rate, default=0.0, metavar="RATE",
                   help="chance per prompt of a device link fault (0..1, default 0)")
    p.add_argument("--summary-json", type=Path, default=None, metavar="PATH",
                   help="write the summary as JSON")
    p.add_argument("--no-display", action="store_true",
                   help="plain progress lines instead of the live view")
    p.add_argument("--table-id", default="T1", metavar="ID",
                   help="the simulated table's id (run several demos for the floor display)")
    p.add_argument("--keep", action="store_true",
                   help="keep the whole work directory (sockets, ptys' links, keys too)")
    p.add_argument("--out", type=Path, default=Path("var/demo"), metavar="DIR",
                   help="save the journal, hand histories and daemon log in DIR/<UTC time> "
                        "(default var/demo)")
    p.add_argument("--central", metavar="URL", default=None,
                   help="also ship the demo table's journal to this PostgreSQL "
                        "(postgresql://...; see docs/operations.md, the central record)")
    p.add_argument("--shoe", choices=("ref", "pn532"), default="ref",
                   help="the simulated shoe: the reference-protocol shoe (default) or a PN532 "
                        "reader (pn532://)")
    p.add_argument("--chips", choices=("ref", "rfid"), default="ref",
                   help="the simulated chip sensors: counting sensors (default) or an RFID "
                        "chip reader (rfidchips://) with a chip registry")
    p.add_argument("--devices", choices=("process", "inline"), default=None,
                   help="the simulated devices as 'sim run' in their own process, worked through "
                        "its control socket (the default, --faults included), or inside the demo")
    p.add_argument("--no-save", action="store_true",
                   help="do not save the records (the work directory is removed)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run the demo; 0 if every hand was played and the chips agree, else 1."""
    import asyncio
    import signal
    import time

    from rich.console import Console

    from table_controller.simtable.demo import DemoSummary, run_demo, summary_lines

    console = Console()
    live = False if args.no_display else None
    out = None
    if not args.no_save:
        out = args.out / time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())

    async def main() -> DemoSummary:
        # SIGTERM (and SIGHUP: the terminal closed) stop the demo like Ctrl-C: everything it
        # started is stopped (finally blocks)
        task = asyncio.current_task()
        assert task is not None
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(sig, task.cancel)
        return await run_demo(hands=args.hands, seed=args.seed, fast=args.fast,
                              faults=args.faults, keep=args.keep, console=console, live=live,
                              out=out, table_id=args.table_id, central=args.central,
                              shoe=args.shoe, chips=args.chips, devices=args.devices)

    try:
        summary = asyncio.run(main())
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("demo: interrupted; everything it started is stopped", file=sys.stderr)
        return 130
    if not summary.started:
        # nothing was played: one line saying why, not a summary of 0 hands
        why = summary.error.splitlines()[0] if summary.error else "unknown error"
        print(f"demo: {why}", file=sys.stderr)
        return 1
    print()
    print("Summary")
    for line in summary_lines(summary):
        print(line)
    text = json.dumps(summary.to_dict(), indent=2) + "\n"
    if args.summary_json is not None:
        args.summary_json.write_text(text)
    if summary.saved_to:
        (Path(summary.saved_to) / "summary.json").write_text(text)
    ok = (not summary.error and summary.chips_agree
          and summary.hands_played == summary.hands_requested)
    return 0 if ok else 1
