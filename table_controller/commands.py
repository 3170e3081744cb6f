"""The one list of dealer commands: each name, its arguments and its help text.

This is a leaf module (it imports nothing of the project but :mod:`table_controller.errors`):
the feeds check a command's arguments against :data:`COMMANDS`, the console lists them, and the
controller's dispatch table has exactly one handler per name (a test holds the two together).

>>> sorted(COMMANDS)[:3]
['all_in', 'bet', 'boxed']
>>> COMMANDS["raise"][0]
(('seat', 'seat', True), ('to', 'chips', True))
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["ACTION_COMMANDS", "COMMANDS", "ArgSpec"]

#: Argument types: ``seat`` (int 1..10), ``chips`` (int > 0), ``text`` (non-empty string),
#: ``id`` (int >= 0).
ArgSpec = tuple[str, str, bool]  # (name, kind, required)

#: Every dealer command: name -> (arguments, summary). The controller implements them all.
COMMANDS: Mapping[str, tuple[tuple[ArgSpec, ...], str]] = {
    "fold": ((("seat", "seat", True),), "seat folds"),
    "check": ((("seat", "seat", True),), "seat checks"),
    "call": ((("seat", "seat", True),), "seat calls"),
    "bet": ((("seat", "seat", True), ("amount", "chips", True)), "seat bets amount"),
    "raise": ((("seat", "seat", True), ("to", "chips", True)), "seat raises to a total of to"),
    "all_in": ((("seat", "seat", True),), "seat goes all-in"),
    "start": ((), "start the next hand"),
    "seat": (
        (("seat", "seat", True), ("player", "text", True), ("stack", "chips", True),
         ("post", "text", False)),
        "seat a player with a stack (post: wait = for the big blind, the default; now = post a "
        "big blind to play the next hand it may be dealt)",
    ),
    "unseat": ((("seat", "seat", True),), "the player leaves the seat"),
    "buy_in": ((("seat", "seat", True), ("amount", "chips", True)), "add chips to a stack"),
    "sit_out": ((("seat", "seat", True),), "the player sits out"),
    "sit_in": (
        (("seat", "seat", True), ("post", "text", False)),
        "the player sits back in (post: wait = for the big blind, the default; now = post what "
        "it owes: a missed big blind live and the small blind dead, or a new player's big blind)",
    ),
    "straddle": (
        (("seat", "seat", True), ("choice", "text", False)),
        "the seat straddles the next hand (choice: on, the default; off = take it back), where "
        "the house plays straddles (house_rules.straddle: utg or button)",
    ),
    "misdeal": ((("reason", "text", True),), "declare a misdeal"),
    "void": ((("reason", "text", True),), "void the hand in progress"),
    "hold": ((("reason", "text", True),), "hold the table"),
    "resume": ((("note", "text", False),), "resume after a hold"),
    "confirm": ((("prompt", "id", False),), "confirm the current (or given) prompt"),
    "resolve": (
        (("irregularity", "id", False), ("note", "text", True)),
        "record how an irregularity (optionally by id) was resolved",
    ),
    "status": ((), "ask for the table status (changes nothing)"),
    "show": (
        (("seat", "seat", True), ("cards", "text", False)),
        "at the showdown seat shows its hand in full (cards: both, if the shoe did not read them)",
    ),
    "muck": ((("seat", "seat", True),), "at the showdown seat throws its hand away unshown"),
    # dealing irregularities (the controller's dealing rules): what no sensor sees
    "exposed": (
        (("seat", "seat", True), ("round", "id", True)),
        "the dealer exposed hole card round (1 or 2) of seat",
    ),
    "boxed": ((), "the card just drawn was face up in the deck"),
    "misdealt": (
        (("what", "text", True), ("seat", "seat", False)),
        "a deal error: what = wrong_start | wrong_seat | skipped | dealt_in | wrong_count | button",
    ),
}

#: The commands that are a player's action (the engine's ``Act``).
ACTION_COMMANDS = frozenset({"fold", "check", "call", "bet", "raise", "all_in"})
