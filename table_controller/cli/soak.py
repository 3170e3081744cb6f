"""``table-controller soak``: long runs of the simulated table under faults, with a report.

Plays seeded hands against the real daemon process on simulated devices (ptys), injecting link
faults, unplugs and SIGKILLs of the daemon at the given rates, then checks that no card was lost
or misassigned, that every fault showed, that chips are conserved and that every restart resumed
the same state (see :mod:`table_controller.simtable.soak` and ``docs/reliability.md``). Exit
status 0 when the run is clean.
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


def _seconds(text: str) -> float:
    v = float(text)
    if not v > 0:
        raise argparse.ArgumentTypeError(f"must be > 0 seconds, got {text}")
    return v


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``soak`` subcommand."""
    p = subparsers.add_parser(
        "soak", help="long runs under serial faults, unplugs and kill -9, with a report",
        description="Play seeded hands on the simulated table against the daemon process while "
        "injecting faults; report hands, faults injected and shown, kills survived, lost or "
        "misassigned cards, chip differences and crashes.")
    p.add_argument("--hands", type=_positive, default=20, help="hands to play (default 20)")
    p.add_argument("--seed", type=int, default=1, help="seeds players, decks and faults")
    p.add_argument("--faults", type=_rate, default=0.0, metavar="RATE",
                   help="chance per prompt of a link fault on the device it uses")
    p.add_argument("--unplugs", type=_rate, default=0.0, metavar="RATE",
                   help="chance per prompt of unplugging the shoe or the chip sensors")
    p.add_argument("--kills", type=_rate, default=0.0, metavar="RATE",
                   help="chance per prompt of a SIGKILL of the daemon (then a restart)")
    p.add_argument("--quiet-share", type=_rate, default=0.5, metavar="SHARE",
                   help="share of kills at an idle table, with a snapshot comparison")
    p.add_argument("--taps", action="store_true",
                   help="check public-side subscribers of every kind for hole cards "
                   "(not with --kills)")
    p.add_argument("--budget", type=_seconds, default=300.0, metavar="SECONDS",
                   help="start no hand after this many seconds (default 300)")
    p.add_argument("--crash-window", type=int, default=0, metavar="N",
                   help="instead: N kills 0-4 ms after a card read (the known loss window)")
    p.add_argument("--json", type=Path, default=None, metavar="PATH",
                   help="write the report as JSON")
    p.add_argument("--keep", action="store_true", help="keep the work directory")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run the soak; print the report; 0 if clean, else 1."""
    import asyncio

    from table_controller.simtable.soak import SoakOptions, run_crash_window, run_soak

    if args.taps and args.kills:
        print("soak: --taps needs a run without --kills", file=sys.stderr)
        return 2
    try:
        if args.crash_window:
            window = run_crash_window(args.crash_window, seed=args.seed,
                                      time_budget=args.budget)
            data = window.to_dict()
            print(f"kills right after a card read: {window.attempts}, card kept "
                  f"{window.kept}, lost {len(window.lost)} ({window.seconds:.1f} s)")
            for lost in window.lost:
                print(f"  lost: attempt {lost['attempt']}, {lost['delay_ms']} ms after the "
                      f"draw, acknowledged {lost['acked']}, step {lost['step']}")
            ok = not window.lost
        else:
            opts = SoakOptions(hands=args.hands, seed=args.seed, link_fault_rate=args.faults,
                               unplug_rate=args.unplugs, kill_rate=args.kills,
                               quiet_kill_share=args.quiet_share, time_budget=args.budget,
                               taps=args.taps, keep=args.keep, progress=True)
            report = asyncio.run(run_soak(opts))
            data = report.to_dict()
            for line in report.lines():
                print(line)
            ok = report.ok
    except KeyboardInterrupt:
        print("soak: interrupted", file=sys.stderr)
        return 130
    if args.json is not None:
        args.json.write_text(json.dumps(data, indent=2, default=str) + "\n")
    print("clean" if ok else "NOT CLEAN")
    return 0 if ok else 1
