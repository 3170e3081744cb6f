"""``table-controller recall``: game recall of the last hands from the journal."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``recall`` subcommand."""
    p = subparsers.add_parser(
        "recall",
        help="show the last hands step by step from the journal (game recall)",
        description="Show the last N hands from the journal, every entry in order, in plain "
        "words plus the data. The journal is opened read-only and verified first.",
    )
    p.add_argument("--journal", type=Path, help="journal file (default: from --config)")
    p.add_argument("--config", type=Path, help="table configuration naming the journal")
    p.add_argument("--hands", type=int, default=10, metavar="N", help="how many hands (10)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the recall; returns 0, or 1 with a message on stderr."""
    from table_controller.errors import TableError
    from table_controller.journal import Journal
    from table_controller.journal.recall import format_hands, hands_to_json

    try:
        path: Path | None = args.journal
        if path is None:
            if args.config is None:
                print("recall: give --journal PATH or --config FILE", file=sys.stderr)
                return 1
            from table_controller.config import load_config

            path = load_config(args.config).journal.path
        if args.hands < 1:
            print(f"recall: --hands must be >= 1, got {args.hands}", file=sys.stderr)
            return 1
        with Journal.open(path, readonly=True) as journal:
            hands = journal.recent_hands(args.hands) if journal.last_hand else []
            if args.json:
                print(json.dumps({"journal": str(path), "last_seq": journal.last_seq,
                                  "hands": hands_to_json(hands)}, indent=2))
            else:
                print(f"journal {path}: {journal.last_seq} entries, {journal.last_hand} hands, "
                      f"chain verified")
                print(format_hands(hands))
    except TableError as exc:
        print(f"recall: {exc}", file=sys.stderr)
        return 1
    return 0
