"""``table-controller calibrate deck``: register RFID decks and choose the active one.

::

    table-controller calibrate deck --decks DIR register NAME --shoe URL [--order sorted|suits]
                                    [--from draws|scan] [--timeout S] [--activate] [--replace]
    table-controller calibrate deck --decks DIR list
    table-controller calibrate deck --decks DIR activate NAME
    table-controller calibrate deck --decks DIR show [NAME]

``register`` opens the shoe, and either waits for the dealer to draw the 52 cards of a new deck
in the given order (``--from draws``) or asks the shoe to scan a deck laid in that order
(``--from scan``). It refuses, writing nothing, unless it read exactly 52 distinct tags, none
repeated and none belonging to another registered deck. Orders are described in
:mod:`calibration.deck`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from table_controller.errors import TableError

if TYPE_CHECKING:
    from calibration.deck import DeckStore
    from hardware.base import CardShoe
    from table_controller.engine.cards import Card


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``calibrate deck`` to the ``calibrate`` sub-parsers."""
    p = subparsers.add_parser("deck", help="register RFID decks (tag to card), pick the active one")
    p.add_argument("--decks", type=Path, required=True, help="decks directory")
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    r = sub.add_parser("register", help="read a deck through the shoe and save its profile")
    r.add_argument("name", help="deck name (letters, digits, '_' or '-')")
    r.add_argument("--shoe", required=True, help="shoe URL, e.g. serial:///dev/ttyUSB0")
    r.add_argument("--order", choices=("sorted", "suits"), default="sorted",
                   help="order of the deck: sorted (2c 2d 2h 2s 3c ... As) or suits "
                        "(Ac 2c ... Kc Ad ... Ks)")
    r.add_argument("--from", dest="source", choices=("draws", "scan"), default="draws",
                   help="draw the cards one by one, or use the shoe's deck scan")
    r.add_argument("--timeout", type=float, default=300.0, help="seconds to wait (default 300)")
    r.add_argument("--activate", action="store_true", help="make it the active deck")
    r.add_argument("--replace", action="store_true", help="overwrite a deck of the same name")
    sub.add_parser("list", help="list registered decks")
    a = sub.add_parser("activate", help="make a registered deck the active one")
    a.add_argument("name")
    s = sub.add_parser("show", help="print a deck profile (default: the active one)")
    s.add_argument("name", nargs="?")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Handle ``calibrate deck``; returns the exit status."""
    from calibration.deck import DeckStore

    store = DeckStore(args.decks)
    try:
        if args.action != "register" and not Path(args.decks).is_dir():
            what = "is not a folder" if Path(args.decks).exists() else "does not exist"
            print(f"error: decks directory {str(args.decks)!r} {what} (give --decks the "
                  "folder decks are registered in)", file=sys.stderr)
            return 1
        if args.action == "list":
            active = store.active_name()
            names = store.names()
            if not names:
                print(f"no decks registered in {str(args.decks)!r} (register one with "
                      "'calibrate deck --decks DIR register NAME --shoe URL')")
            for name in names:
                print(f"{'*' if name == active else ' '} {name}")
            return 0
        if args.action == "activate":
            store.activate(args.name)
            print(f"active deck: {args.name}")
            return 0
        if args.action == "show":
            print(store.active(args.name).to_toml(), end="")
            return 0
        return _register(args, store)
    except TableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def _register(args: argparse.Namespace, store: DeckStore) -> int:
    from calibration.deck import ORDERS, check_name, register_reads
    from hardware.base import open_shoe

    check_name(args.name)
    if store.path(args.name).exists() and not args.replace:
        print(f"error: deck {args.name!r} is already registered (use --replace)", file=sys.stderr)
        return 1
    order = ORDERS[args.order]
    shoe = open_shoe(args.shoe)
    shoe.open()
    try:
        uids = _collect(shoe, store, args, order)
    finally:
        shoe.close()
    profile = register_reads(args.name, uids, args.order,
                             source=f"{args.source} in {args.order} order")
    path = store.save(profile, replace=args.replace)
    print(f"registered deck {profile.name!r}: 52 cards, saved to {path}")
    if args.activate:
        store.activate(profile.name)
        print(f"active deck: {profile.name}")
    return 0


def _bar(done: int, total: int = 52, width: int = 26) -> str:
    """Return a progress bar: ``[#############.............]``."""
    filled = done * width // total
    return "[" + "#" * filled + "." * (width - filled) + "]"


def _collect(
    shoe: CardShoe, store: DeckStore, args: argparse.Namespace, cards: tuple[Card, ...]
) -> list[str]:
    from hardware.base import (
        BadFrame,
        CardDrawn,
        DeckScan,
        DeviceLost,
        DeviceRecovered,
        LinkStale,
    )
    from table_controller.errors import CalibrationError

    uids: list[str] = []
    seen: dict[str, int] = {}
    deadline = time.monotonic() + args.timeout
    next_request = 0.0
    if args.source == "draws":
        print(f"draw the 52 cards of deck {args.name!r} in {args.order} order, starting with "
              f"{cards[0].describe()}")
    while len(uids) < 52:
        now = time.monotonic()
        if now >= deadline:
            if args.source == "scan":
                raise CalibrationError(
                    f"timed out after {args.timeout:g} s without a deck scan (line readers "
                    "cannot scan: use --from draws)"
                )
            raise CalibrationError(
                f"timed out after {args.timeout:g} s with {len(uids)} of 52 cards read"
            )
        if args.source == "scan" and now >= next_request:
            shoe.request_scan()
            next_request = now + 1.0
        for event in shoe.read_events(min(deadline - now, 0.25)):
            if isinstance(event, DeckScan) and args.source == "scan":
                print(f"deck scan: {len(event.uids)} tags")
                return list(event.uids)
            if isinstance(event, CardDrawn) and args.source == "draws":
                if event.uid in seen:
                    raise CalibrationError(
                        f"tag {event.uid} was read twice (cards {seen[event.uid] + 1} and "
                        f"{len(uids) + 1}): a repeated read or a second copy; nothing saved"
                    )
                owner = store.owner(event.uid)
                if owner is not None and owner[0] != args.name:
                    raise CalibrationError(
                        f"tag {event.uid} belongs to deck {owner[0]!r} ({owner[1]}): a card "
                        "from another deck; nothing saved"
                    )
                seen[event.uid] = len(uids)
                uids.append(event.uid)
                after = (f"next: {cards[len(uids)].describe()}" if len(uids) < 52
                         else "all 52 read")
                print(f"{len(uids):2d}/52  {_bar(len(uids))}  {event.uid} = "
                      f"{cards[len(uids) - 1]}  -  {after}", flush=True)
            elif isinstance(event, BadFrame | DeviceLost | DeviceRecovered | LinkStale):
                print(f"shoe: {event}", file=sys.stderr)
    return uids
