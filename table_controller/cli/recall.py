"""``table-controller recall``: game recall of the last hands from the journal."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``recall`` subcommand."""
    p = subparsers.add_parser(
        "recall",
        help="show the last hands step by step from the journal (game recall)",
        description="Show the last N hands from the journal, every entry in order, in plain "
        "words plus the data; every card read is named through the deck profile the journal "
        "recorded (or --config's, for a journal from before decks were recorded). The journal "
        "is opened read-only and verified first.",
    )
    p.add_argument("--journal", type=Path, help="journal file (default: from --config)")
    p.add_argument("--config", type=Path, help="table configuration naming the journal")
    p.add_argument("--hands", type=int, default=10, metavar="N", help="how many hands (10)")
    p.add_argument("--hand", type=int, metavar="N",
                   help="show hand number N instead (read from its archive file if archived)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the recall; returns 0, or 1 with a message on stderr.

    A reader that closes the pipe (``recall | head``) ends the recall quietly (status 0).
    """
    try:
        return _run(args)
    except BrokenPipeError:
        # the reader is gone: nothing more to say, and no traceback at exit's flush
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


def _run(args: argparse.Namespace) -> int:
    from table_controller.errors import TableError
    from table_controller.journal import HandRecord, Journal
    from table_controller.journal.recall import Deck, deck_of, format_hands, hands_to_json

    try:
        path: Path | None = args.journal
        configured: Deck | None = None
        if args.config is not None:
            from table_controller.config import load_config
            from table_controller.daemon.setup import load_deck

            config = load_config(args.config)
            path = path or config.journal.path
            configured = {uid.upper(): str(c) for uid, c in load_deck(config).items()}
        if path is None:
            print("recall: give --journal PATH or --config FILE", file=sys.stderr)
            return 1
        if args.hands < 1:
            print(f"recall: --hands must be >= 1, got {args.hands}", file=sys.stderr)
            return 1
        with Journal.open(path, readonly=True) as journal:
            if args.hand is not None:
                hands = [journal.hand_entries(args.hand)]
            else:
                hands = journal.recent_hands(args.hands) if journal.last_hand else []

            def decks(record: HandRecord) -> Deck | None:
                return deck_of(journal.config_for(record.entries[0].seq)) or configured

            if args.json:
                print(json.dumps({"journal": str(path), "last_seq": journal.last_seq,
                                  "hands": hands_to_json(hands, decks)}, indent=2))
            else:
                since = ("" if journal.verified_from == 1 else
                         f" from the checkpoint at entry {journal.verified_from} (journal "
                         "verify checks every entry)")
                print(f"journal {path}: {journal.last_seq} entries, {journal.last_hand} hands, "
                      f"chain verified{since}")
                print(format_hands(hands, decks))
    except TableError as exc:
        print(f"recall: {exc}", file=sys.stderr)
        return 1
    return 0
