"""``table-controller journal verify|archive|accept-damage|migrate``: check or keep a journal.

``verify`` exits 0 when the journal verifies, 4 when it is damaged (the message names the file
and what is wrong), 1 for any other error. ``accept-damage`` is the operator's deliberate act
that lets a table whose journal is damaged reopen (:mod:`table_controller.journal.repair`): the
damaged files are kept as evidence and an ``operator`` entry records what was lost.
``migrate`` rewrites a journal of an older on-disk schema in the current one (every entry and
hash kept, the old files kept, an ``operator`` entry journaled). ``archive`` moves the entries
of the gaming days before ``--before`` into sealed archive files beside the journal
(:mod:`table_controller.journal.archiving`); ``verify`` checks them too.
"""

from __future__ import annotations

import argparse
import datetime
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
    r = sub.add_parser("archive", help="move old gaming days into sealed archive files",
                       description="Move the entries of every gaming day before DATE into "
                       "one sealed, read-only archive file per day beside the journal "
                       "(journal-YYYY-MM-DD.db), each cut at that day's last checkpoint; an "
                       "archive entry in the journal records them. Stop the daemon first (it "
                       "archives by itself with [journal] archive_at).")
    r.add_argument("--before", required=True, type=_date, metavar="YYYY-MM-DD",
                   help="archive the gaming days before this one")
    r.add_argument("--at", type=_hour, metavar="HH:MM",
                   help="the hour gaming days start (default: the configuration's "
                   "archive_at, else 06:00)")
    for q in (v, a, m, r):
        q.add_argument("--journal", type=Path, help="journal file (default: from --config)")
        q.add_argument("--config", type=Path, help="table configuration naming the journal")
    a.add_argument("--reason", required=True, help="why the damage is accepted (journaled)")
    a.add_argument("--operator", required=True, help="who accepts it (journaled)")
    m.add_argument("--reason", default="schema upgrade", help="why (journaled)")
    m.add_argument("--operator", required=True, help="who migrates it (journaled)")
    p.set_defaults(handler=run)


def _date(text: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected YYYY-MM-DD, got {text!r}") from None


def _hour(text: str) -> datetime.time:
    from table_controller.journal.archive import parse_hour

    try:
        return parse_hour(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    """Run the action; see the module docstring for the exit statuses."""
    from table_controller.errors import JournalDamagedError, TableError
    from table_controller.journal import Journal
    from table_controller.journal.repair import accept_damage, migrate

    try:
        path: Path | None = args.journal
        at = datetime.time(6, 0)
        if args.config is not None:
            from table_controller.config import load_config

            section = load_config(args.config).journal
            path = path or section.path
            at = section.archive_at or at
        if path is None:
            print(f"journal {args.action}: give --journal PATH or --config FILE",
                  file=sys.stderr)
            return 1
        if args.action == "verify":
            with Journal.open(path, readonly=True, full=True) as journal:
                files = (f" in {len(journal.archives) + 1} files ({len(journal.archives)} "
                         "archives)" if journal.archives else "")
                print(f"journal {path}: {journal.last_seq} entries, {journal.last_hand} hands"
                      f"{files}, verified")
            return 0
        if args.action == "archive":
            return _archive(path, args.before, args.at or at)
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


def _archive(path: Path, before: datetime.date, at: datetime.time) -> int:
    from table_controller.journal import Journal

    with Journal.open(path) as journal:
        cuts = journal.cuts_before(before, at)
        done = journal.archive(cuts, at=at, wall_time=time.time(), mono_time=time.monotonic())
    for rec in done:
        hands = f"hands {rec.hands[0]}..{rec.hands[1]}" if rec.hands else "no hand"
        print(f"journal {path}: entries {rec.first}..{rec.last} ({hands}, gaming day "
              f"{rec.day}) archived to {path.parent / rec.file}")
    if not done:
        print(f"journal {path}: nothing to archive before gaming day {before} (an archive "
              "ends at a checkpoint of the day)")
    return 0
