"""``table-controller journal verify|accept-damage|migrate``: check, repair or upgrade a journal.

``verify`` exits 0 when the journal verifies, 4 when it is damaged (the message names the file
and what is wrong), 1 for any other error. ``accept-damage`` is the operator's deliberate act
that lets a table whose journal is damaged reopen (:mod:`table_controller.journal.repair`): the
damaged files are kept as evidence and an ``operator`` entry records what was lost.
``migrate`` rewrites a journal of an older on-disk schema in the current one (every entry and
hash kept, the old files kept, an ``operator`` entry journaled).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``journal`` subcommand group."""
    p = subparsers.add_parser("journal", help="verify a journal, or accept its damage",
                              description="Check the table's journal, or accept a damaged one.")
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    v = sub.add_parser("verify", help="verify the journal (read-only)")
    a = sub.add_parser("accept-damage",
                       help="keep the verified part of a damaged journal (journaled)",
                       description="Copy the damaged files to <journal>.damaged-N/, rebuild the "
                       "journal from its longest verified prefix and journal an operator entry "
                       "naming what was lost. Stop the daemon first.")
    m = sub.add_parser("migrate", help="rewrite an old journal in the current schema (journaled)",
                       description="Copy the journal's files to <journal>.schemaN-K/, rewrite "
                       "every entry (hashes unchanged) in the current on-disk schema and "
                       "journal an operator entry. Stop the daemon first.")
    for q in (v, a, m):
        q.add_argument("--journal", type=Path, help="journal file (default: from --config)")
        q.add_argument("--config", type=Path, help="table configuration naming the journal")
    a.add_argument("--reason", required=True, help="why the damage is accepted (journaled)")
    a.add_argument("--operator", required=True, help="who accepts it (journaled)")
    m.add_argument("--reason", default="schema upgrade", help="why (journaled)")
    m.add_argument("--operator", required=True, help="who migrates it (journaled)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run the action; see the module docstring for the exit statuses."""
    from table_controller.errors import JournalDamagedError, TableError
    from table_controller.journal import Journal
    from table_controller.journal.repair import accept_damage, migrate

    try:
        path: Path | None = args.journal
        if path is None:
            if args.config is None:
                print(f"journal {args.action}: give --journal PATH or --config FILE",
                      file=sys.stderr)
                return 1
            from table_controller.config import load_config

            path = load_config(args.config).journal.path
        if args.action == "verify":
            with Journal.open(path, readonly=True, full=True) as journal:
                print(f"journal {path}: {journal.last_seq} entries, {journal.last_hand} hands, "
                      "verified")
            return 0
        if args.action == "migrate":
            moved = migrate(path, reason=args.reason, operator=args.operator,
                            wall_time=time.time(), mono_time=time.monotonic())
            print(f"journal {path}: migrated from schema {moved.old} to {moved.new}: "
                  f"{moved.entries} entries kept; operator entry {moved.entry}; old files "
                  f"kept in {moved.evidence}")
            return 0
        done = accept_damage(path, reason=args.reason, operator=args.operator,
                             wall_time=time.time(), mono_time=time.monotonic())
        print(f"journal {path}: damage accepted: kept entries 1..{done.kept}, lost "
              f"{done.lost_from}..{done.lost_to}; operator entry {done.entry}; damaged files "
              f"kept in {done.evidence}")
        print(f"the damage was: {done.damage}")
        return 0
    except JournalDamagedError as exc:
        print(f"journal {args.action}: journal damaged: {exc}", file=sys.stderr)
        return 4
    except TableError as exc:
        print(f"journal {args.action}: {exc}", file=sys.stderr)
        return 1
