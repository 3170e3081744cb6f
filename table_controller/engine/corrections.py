"""Engine-level queries and corrections that the remedies of dealing irregularities need.

Pure functions over a :class:`~table_controller.engine.hand.Hand`: no I/O, no clock. They read
the hand's log (``hand.log``) and correct cards only through the hand's own transactional
``replace_*`` operations, so every correction is checked (a card out twice is refused) and kept
in ``hand.corrections`` for :meth:`Hand.replay`.

Rules this module keeps:

1. Substantial action (Poker TDA 2019, rule 36): two actions in turn, at least one of which puts
   chips in the pot, or any three actions in turn. Robert's Rules of Poker ("Misdeals" 1): the
   action has started once two players have acted in turn. Posting blinds and antes is not
   action.
2. The deal order is the order the engine asked for the hole cards: position 0 is the first
   card of the deal.
3. A correction names the card it replaces; a card not where it is said to be is a
   :class:`~table_controller.errors.RuleError` and nothing changes.

>>> from table_controller.engine import Act, ActionKind, Deal, Hand, HandConfig, Post
>>> from table_controller.engine import parse_cards
>>> hand = Hand(HandConfig(seats=(1, 2, 3), stacks={1: 500, 2: 500, 3: 500}, button=1,
...                        small_blind=5, big_blind=10))
>>> _ = hand.apply(Post(2)), hand.apply(Post(3))
>>> for card in parse_cards("As Kd 2c Ah Kh 7d"):
...     _ = hand.apply(Deal(card))
>>> deal_position(hand, 2, 1), deal_position(hand, 1, 2)
(0, 5)
>>> _ = hand.apply(Act(1, ActionKind.FOLD)); substantial_action(hand)
False
>>> _ = hand.apply(Act(2, ActionKind.CALL)); substantial_action(hand)
True
>>> replace_exposed(hand, 3, 1, parse_cards("3c")[0]).old.code
'Kd'
"""

from __future__ import annotations

from table_controller.engine.cards import Card
from table_controller.engine.hand import CardCorrection, Hand
from table_controller.engine.model import (
    ActionKind,
    ActStep,
    BoardStep,
    BurnStep,
    Deal,
    DealHoleStep,
    Street,
)
from table_controller.errors import RuleError

#: The street whose betting round is open before each street's cards are dealt.
NEXT_STREET = {Street.PREFLOP: Street.FLOP, Street.FLOP: Street.TURN, Street.TURN: Street.RIVER}


def actions(hand: Hand, street: Street | None = None) -> list[ActionKind]:
    """Return the actions taken (as the rules read them), on ``street`` or on every street."""
    return [r.kind for r in hand.log
            if isinstance(r.step, ActStep) and r.kind is not None
            and (street is None or r.street is street)]


def substantial_action(hand: Hand, rule: str = "tda") -> bool:
    """Tell whether substantial action took place (rule 1): then a misdeal is too late.

    :param rule: ``"tda"`` (Poker TDA) or ``"rrop"`` (Robert's Rules: any two actions).
    """
    acts = actions(hand)
    if len(acts) >= 3 or (rule == "rrop" and len(acts) >= 2):
        return True
    chips = (ActionKind.CALL, ActionKind.BET, ActionKind.RAISE, ActionKind.ALL_IN)
    return len(acts) == 2 and any(a in chips for a in acts)


def deal_position(hand: Hand, seat: int, round: int) -> int:
    """Return the position (0 = first card) of hole card ``round`` of ``seat`` in the deal.

    :raises RuleError: that card was not dealt (``no-such-card``).
    """
    pos = 0
    for r in hand.log:
        if isinstance(r.step, DealHoleStep):
            if r.step.seat == seat and r.step.round == round:
                return pos
            pos += 1
    raise RuleError("no-such-card", f"seat {seat} was not dealt hole card {round}")


def deal_complete(hand: Hand) -> bool:
    """Tell whether every hole card was dealt."""
    return sum(isinstance(r.step, DealHoleStep) for r in hand.log) == 2 * len(hand.seats)


def burn_cards(hand: Hand) -> list[Card | None]:
    """Return the burn cards, in order, as corrected."""
    burns: list[Card | None] = [r.input.card for r in hand.log
                                if isinstance(r.step, BurnStep) and isinstance(r.input, Deal)]
    for c in hand.corrections:
        if c.where == "burn" and c.index < len(burns):
            burns[c.index] = c.new
    return burns


def board_cards(hand: Hand) -> list[Card | None]:
    """Return the board cards dealt, slot by slot."""
    return list(hand.status().board)


def last_card(hand: Hand) -> tuple[str, int | None, int] | None:
    """Return where the last card dealt went: ``(where, seat, index)`` as in a correction.

    ``where`` is ``"hole"`` (index = round), ``"burn"`` (index = burn number) or ``"board"``
    (index = slot); ``None`` when no card was dealt.
    """
    burns = 0
    last: tuple[str, int | None, int] | None = None
    for r in hand.log:
        if isinstance(r.step, DealHoleStep):
            last = ("hole", r.step.seat, r.step.round)
        elif isinstance(r.step, BurnStep):
            last = ("burn", None, burns)
            burns += 1
        elif isinstance(r.step, BoardStep):
            last = ("board", None, r.step.slot)
    return last


def replace_exposed(hand: Hand, seat: int, round: int, card: Card | None) -> CardCorrection:
    """Replace hole card ``round`` of ``seat`` (exposed or boxed) by ``card``.

    The old card is free again (it becomes the burn, or is set aside).

    :raises RuleError: as :meth:`Hand.replace_hole_card`.
    """
    return hand.replace_hole_card(seat, round, card)


def replace_card(hand: Hand, where: str, seat: int | None, index: int,
                 card: Card) -> CardCorrection:
    """Replace the card at ``(where, seat, index)`` (see :func:`last_card`) by ``card``.

    :raises RuleError: no such card, or ``card`` is already out.
    """
    if where == "hole" and seat is not None:
        return hand.replace_hole_card(seat, index, card)
    if where == "burn":
        return hand.replace_burn(index, card)
    if where == "board":
        return hand.replace_board_card(index, card)
    raise RuleError("no-such-card", f"no card at {where} {seat} {index}")


def take_back_board(hand: Hand, count: int) -> list[Card]:
    """Take the last ``count`` board cards back (a flop with too many cards is dealt again).

    The hand is rebuilt in place from its inputs without those cards (:meth:`Hand.replay`), so
    the engine expects the first of them again; the cards are free to be dealt again.

    :raises RuleError: the last ``count`` inputs are not board cards (``not-board-cards``);
        nothing changes.
    """
    if count <= 0:
        return []
    tail = hand.log[-count:]
    if len(tail) != count or not all(isinstance(r.step, BoardStep) for r in tail):
        raise RuleError("not-board-cards", f"the last {count} inputs are not all board cards")
    keep = len(hand.log) - count
    rebuilt = Hand.replay(hand.config, [r.input for r in hand.log[:keep]],
                          [c for c in hand.corrections if c.seq <= keep])
    taken = [r.input.card for r in tail if isinstance(r.input, Deal) and r.input.card]
    hand._st = rebuilt._st
    hand.log[:] = rebuilt.log
    hand.corrections[:] = rebuilt.corrections
    return taken
