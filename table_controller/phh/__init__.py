"""Poker Hand History (PHH) files: read, write, and replay through our rules engine.

PHH (phh.readthedocs.io) is a TOML file per hand. This module reads the no-limit Texas hold'em
(``variant = "NT"``) subset, maps it onto our engine and replays it, and writes any hand our engine
played back out as PHH that pokerkit (and other PHH readers) load.

Rules this module keeps:

1. Players ``p1..pN`` are in table order starting left of the button; ``pN`` holds the button.
   Heads-up, the ``antes`` and ``blinds_or_straddles`` arrays are reverse-assigned by the spec
   (the button, ``p2``, posts the small blind; ``p1`` the big blind).
2. Our seats are the file's ``seats`` when present (they must go clockwise, i.e. ascending modulo
   the table), else ``1..N``. The button is ``pN``'s seat.
3. Blinds are ``[S, B, 0, ...]``; with three or more players ``[B, 0, ...]`` (``p1`` posts the
   big blind) and ``[0, B, ...]`` (``p1`` posts nothing) are hands without a small blind (TDA
   dead small blind). Antes equal for everyone are a per-player ante; an ante in the big blind's
   position only is a big-blind ante. One straddle after both blinds (three or more players) is
   read and written at its index. Other ante shapes, more straddles, ``min_bet`` other than the
   big blind, unknown (``inf``) stacks and non-integral chip amounts are refused with
   :class:`PhhError`, naming the field.
4. Replay is driven by the engine: it says what comes next (post, deal, burn, act, collect, show,
   push) and the file supplies the cards and decisions. Burns are implicit in PHH (fed as unknown
   cards). ``sm`` may come before the rest of the board (all-in run-outs); it is used whenever the
   engine asks that seat to show. Cards shown at showdown but dealt face down (``????``) are fed at
   the deal, since they were those cards all along.
5. Rake has no PHH field: it is written as the user-defined field ``_rake = {percent_bp, cap,
   no_flop_no_drop}`` (underscore fields are allowed by the spec), which this reader applies.
   ``finishing_stacks`` are after rake; pokerkit ignores the field (its stacks differ by the rake).
6. Missed-blind and new-player posts (a live big blind out of position, a dead small blind
   besides the blinds) have no PHH form either (a live big blind out of position would read as
   a straddle): they are written as the user-defined field ``_posts = [{player = "p3", kind =
   "missed_big", amount = 100, live = true}, ...]`` in the order posted, which this reader
   applies; pokerkit ignores it (its stacks then differ by those posts).
7. Nothing here rounds chips: a stack that the file records with a fraction (the Pluribus logs
   split ties into half chips) is compared as is and reported as an odd-chip difference when our
   whole-chip split explains it, never hidden.

>>> hh = loads('''
... variant = "NT"
... antes = [0, 0, 0]
... blinds_or_straddles = [1, 2, 0]
... min_bet = 2
... starting_stacks = [100, 100, 100]
... actions = ["d dh p1 AsAd", "d dh p2 ????", "d dh p3 KcKd", "p3 f", "p1 cc", "p2 f"]
... finishing_stacks = [102, 98, 100]
... ''')
>>> hh.player_count, hh.actions[4].verb, hh.actions[1].cards
(3, 'cc', (None, None))
"""

from table_controller.phh.model import (
    POSTS_FIELD,
    RAKE_FIELD,
    HandHistory,
    Number,
    PhhAction,
    PhhError,
)
from table_controller.phh.reader import from_mapping, iter_paths, load, loads, parse_action
from table_controller.phh.replay import (
    ERROR,
    MATCHED,
    MISMATCHED,
    NO_EXPECTED,
    ODD_CHIP,
    ReplayError,
    ReplayResult,
    compare,
    engine_seats,
    hand_board,
    hand_config,
    play,
    replay,
)
from table_controller.phh.writer import dumps, format_action, history_from_hand, player_order

__all__ = [
    "ERROR", "MATCHED", "MISMATCHED", "NO_EXPECTED", "ODD_CHIP", "POSTS_FIELD", "RAKE_FIELD",
    "HandHistory", "Number", "PhhAction", "PhhError", "ReplayError", "ReplayResult", "compare",
    "dumps", "engine_seats", "format_action", "from_mapping", "hand_board", "hand_config",
    "history_from_hand", "iter_paths", "load", "loads", "parse_action", "play", "player_order",
    "replay",
]
