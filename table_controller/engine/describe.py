"""Plain dealer words for a step, for prompts on the dealer screen.

>>> from table_controller.engine.model import BurnStep, Street, PostStep, PostKind
>>> describe_step(BurnStep(Street.FLOP))
'Burn and deal the flop'
>>> describe_step(PostStep(3, PostKind.BIG_BLIND, 200))
'Seat 3 posts the big blind: 200'
"""

from __future__ import annotations

from collections.abc import Sequence

from table_controller.engine.cards import Card
from table_controller.engine.model import (
    Act,
    ActionKind,
    ActStep,
    AwardStep,
    BoardStep,
    BurnStep,
    CollectStep,
    Deal,
    DealHoleStep,
    HandOverStep,
    LegalActions,
    Muck,
    PostKind,
    PostStep,
    Record,
    Show,
    ShowStep,
    Step,
    Street,
)

_POST_WORDS = {
    PostKind.ANTE: "the ante",
    PostKind.BB_ANTE: "the big-blind ante",
    PostKind.SMALL_BLIND: "the small blind",
    PostKind.BIG_BLIND: "the big blind",
    PostKind.DEAD_SMALL: "a dead small blind",
    PostKind.NEW_PLAYER: "a new player's big blind",
    PostKind.MISSED_BIG: "a missed big blind",
    PostKind.STRADDLE: "the straddle",
}
_ORDINAL = {1: "first", 2: "second"}
_SLOT_WORDS = {0: "first flop card", 1: "second flop card", 2: "third flop card",
               3: "the turn", 4: "the river"}


def describe_legal(legal: LegalActions) -> str:
    """List the options of the seat to act.

    >>> from table_controller.engine.model import LegalActions
    >>> describe_legal(LegalActions(4, True, False, True, 200, True, 400, 5000, 200, 0, 5000,
    ...                             False))
    'fold, call 200, or raise to 400–5,000'
    """
    parts = ["fold"]
    if legal.can_check:
        parts.append("check")
    if legal.can_call:
        all_in = " (all-in)" if legal.call_amount == legal.stack else ""
        parts.append(f"call {legal.call_amount:,}{all_in}")
    if legal.can_raise:
        word = "bet" if legal.is_bet else "raise to"
        if legal.min_raise_to == legal.max_raise_to:
            parts.append(f"{word} {legal.max_raise_to:,} (all-in)")
        else:
            parts.append(f"{word} {legal.min_raise_to:,}–{legal.max_raise_to:,}")
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + ", or " + parts[-1]


def describe_step(step: Step) -> str:
    """Say ``step`` the way a dealer would, e.g. ``"Seat 4 to act: fold, call 200, or ..."``."""
    if isinstance(step, PostStep):
        return f"Seat {step.seat} posts {_POST_WORDS[step.kind]}: {step.amount:,}"
    if isinstance(step, DealHoleStep):
        return f"Deal the {_ORDINAL.get(step.round, str(step.round))} hole card to seat {step.seat}"
    if isinstance(step, BurnStep):
        return f"Burn and deal the {step.street.value}"
    if isinstance(step, BoardStep):
        return f"Deal {_SLOT_WORDS[step.slot]}"
    if isinstance(step, ActStep):
        return f"Seat {step.seat} to act: {describe_legal(step.legal)}"
    if isinstance(step, CollectStep):
        total = sum(p.amount for p in step.into_pots)
        text = f"Collect the bets: pot{'s' if len(step.into_pots) > 1 else ''} {total:,}"
        if len(step.into_pots) > 1:
            text += " (" + ", ".join(
                ("main" if i == 0 else f"side {i}") + f" {p.amount:,}"
                for i, p in enumerate(step.into_pots)) + ")"
        for seat, amount in step.returned.items():
            text += f"; return {amount:,} to seat {seat}"
        return text
    if isinstance(step, ShowStep):
        return f"Seat {step.seat} shows"
    if isinstance(step, AwardStep):
        name = "Main pot" if step.pot_index == 0 else f"Side pot {step.pot_index}"
        winners = " and ".join(f"{v:,} to seat {s}" for s, v in step.payouts.items())
        rake = f" (rake {step.rake:,})" if step.rake else ""
        if len(step.payouts) == 1:
            return f"{name} {step.amount - step.rake:,} to seat {next(iter(step.payouts))}{rake}"
        return f"{name} {step.amount - step.rake:,} split: {winners}{rake}"
    if isinstance(step, HandOverStep):
        return "Hand over"
    raise TypeError(f"not a step: {step!r}")


_ACTION_WORDS = {ActionKind.FOLD: "folds", ActionKind.CHECK: "checks", ActionKind.CALL: "calls",
                 ActionKind.BET: "bets", ActionKind.RAISE: "raises to"}


def describe_record(record: Record) -> str:
    """Say what just happened, as the dealer announces it (raises and all-ins included).

    >>> from table_controller.engine.model import Act, ActStep, Street
    >>> legal = LegalActions(4, True, False, True, 200, True, 400, 5000, 200, 0, 5000, False)
    >>> describe_record(Record(9, ActStep(4, legal), Act(4, ActionKind.ALL_IN), Street.PREFLOP,
    ...                        4, ActionKind.RAISE, 5000, 5000, True))
    'Seat 4 raises to 5,000: all-in'
    """
    step, inp = record.step, record.input
    all_in = ": all-in" if record.all_in else ""
    if isinstance(step, PostStep):
        return f"Seat {step.seat} posts {_POST_WORDS[step.kind]}: {step.amount:,}{all_in}"
    if isinstance(inp, Act) and record.kind is not None:
        words = _ACTION_WORDS[record.kind]
        if record.kind is ActionKind.CALL:
            return f"Seat {inp.seat} calls {record.amount:,}{all_in}"
        if record.kind in (ActionKind.BET, ActionKind.RAISE):
            return f"Seat {inp.seat} {words} {record.to:,}{all_in}"
        return f"Seat {inp.seat} {words}"
    if isinstance(step, DealHoleStep):
        return f"Seat {step.seat} has its {_ORDINAL.get(step.round, str(step.round))} hole card"
    if isinstance(step, BurnStep):
        return f"Card burned before the {step.street.value}"
    if isinstance(step, BoardStep):
        card = getattr(inp, "card", None)
        return f"{_SLOT_WORDS[step.slot].capitalize()}: {card}"
    if isinstance(inp, Show):
        return f"Seat {inp.seat} shows" + (" " + " ".join(c.code for c in inp.cards)
                                           if inp.cards else "")
    if isinstance(inp, Muck):
        return f"Seat {inp.seat} mucks"
    if isinstance(step, CollectStep):
        return f"Bets collected: {record.amount:,} into the pot"
    return describe_step(step)


_APPLIED_WORDS = {**_ACTION_WORDS, ActionKind.ALL_IN: "goes all-in"}
_BEFORE_STREET = {Street.FLOP: "the flop", Street.TURN: "the turn", Street.RIVER: "the river"}


def pot_name(index: int) -> str:
    """Return ``"Main pot"`` or ``"Side pot N"``."""
    return "Main pot" if index == 0 else f"Side pot {index}"


def _seats_words(seats: list[int]) -> str:
    words = [str(s) for s in seats]
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " and " + words[-1]


def award_text(step: AwardStep) -> str:
    """Say one pot's payout, winner by winner, with the odd chips.

    >>> award_text(AwardStep(1, 401, {5: 201, 7: 200}, (5,), 0))
    'Side pot 1 401 split seats 5 and 7, odd chip to seat 5'
    >>> award_text(AwardStep(0, 1250, {3: 1250}, (), 0))
    'Main pot 1,250 to seat 3'
    """
    net = step.amount - step.rake
    winners = list(step.payouts)
    if len(winners) == 1:
        text = f"{pot_name(step.pot_index)} {net:,} to seat {winners[0]}"
    else:
        text = f"{pot_name(step.pot_index)} {net:,} split seats {_seats_words(winners)}"
        if step.odd_chip_seats:
            odd = list(step.odd_chip_seats)
            chip = "odd chip" if len(odd) == 1 else "odd chips"
            text += f", {chip} to seat{'s' if len(odd) > 1 else ''} {_seats_words(odd)}"
    if step.rake:
        text += f" (rake {step.rake:,})"
    return text


def payouts_text(awards: Sequence[AwardStep]) -> str:
    """All pots of a hand, main pot first, joined with ``"; "``.

    >>> payouts_text([AwardStep(1, 400, {5: 200, 7: 200}, (), 0), AwardStep(0, 1250, {3: 1250},
    ...               (), 0)])
    'Main pot 1,250 to seat 3; side pot 1 400 split seats 5 and 7'
    """
    parts = [award_text(a) for a in sorted(awards, key=lambda a: a.pot_index)]
    return "; ".join(p if i == 0 else p[0].lower() + p[1:] for i, p in enumerate(parts))


def applied_text(record: Record, shown: Sequence[Card] = ()) -> str:
    """Say an applied input as the controller reports it (the ``event`` messages' text).

    :param shown: the cards the seat shows, for a ``Show`` record.

    >>> from table_controller.engine.model import Act, ActStep, Street
    >>> legal = LegalActions(4, True, False, True, 200, True, 400, 5000, 200, 0, 5000, False)
    >>> applied_text(Record(9, ActStep(4, legal), Act(4, ActionKind.RAISE, 600), Street.PREFLOP,
    ...                     4, ActionKind.RAISE, 600, 600, False))
    'Seat 4 raises to 600'
    """
    step, inp = record.step, record.input
    if isinstance(step, PostStep):
        return describe_step(step).replace(" posts ", " posted ")
    if isinstance(step, DealHoleStep):
        return f"Hole card {step.round} dealt to seat {step.seat}"
    if isinstance(step, BurnStep):
        return f"Card burned before {_BEFORE_STREET[step.street]}"
    if isinstance(step, BoardStep):
        card = inp.card if isinstance(inp, Deal) else None
        return f"Board card {step.slot + 1}: {None if card is None else card.code}"
    if isinstance(step, ActStep) and record.kind is not None:
        amount = ""
        if record.kind in (ActionKind.BET, ActionKind.RAISE):
            amount = f" {record.to:,}"
        elif record.kind is ActionKind.CALL:
            amount = f" {record.amount:,}"
        tail = " (all-in)" if record.all_in else ""
        return f"Seat {step.seat} {_APPLIED_WORDS[record.kind]}{amount}{tail}"
    if isinstance(step, CollectStep):
        return describe_step(step).replace("Collect the bets", "Bets collected")
    if isinstance(inp, Show) and record.seat is not None:
        return f"Seat {record.seat} shows {' '.join(c.code for c in shown)}"
    if isinstance(inp, Muck):
        return f"Seat {inp.seat} mucks"
    if isinstance(step, AwardStep):
        return award_text(step)
    return f"{type(inp).__name__} applied"
