"""Which input answers a step: the one place that maps an expected step to its input.

Every consumer that drives a hand (the controller core, the PHH replay, the simulated dealer,
tests and benchmarks) answers the engine's expected step the same way:

- a forced post, a collection, a push and a showdown ask for nothing the engine does not know:
  :func:`default_input` returns the input (``Post``, ``Collect``, ``Push``, ``Show``);
- a card (hole, burn, board) needs the card: :func:`card_input` wraps it in ``Deal``;
- a player's action needs a decision from outside (a dealer command, a hand history, a simulated
  player): :func:`default_input` returns ``None`` for it, as for the end of the hand.

>>> from table_controller.engine.model import CollectStep, PostKind, PostStep
>>> default_input(PostStep(3, PostKind.BIG_BLIND, 100))
Post(seat=3, kind=<PostKind.BIG_BLIND: 'big_blind'>)
>>> default_input(CollectStep((), {}))
Collect()
"""

from __future__ import annotations

from table_controller.engine.cards import Card
from table_controller.engine.model import (
    AwardStep,
    BoardStep,
    BurnStep,
    Collect,
    CollectStep,
    Deal,
    DealHoleStep,
    Input,
    Post,
    PostStep,
    Push,
    Show,
    ShowStep,
    Step,
)

#: Steps answered by a card from the shoe.
CARD_STEPS = (DealHoleStep, BurnStep, BoardStep)


def default_input(step: Step) -> Input | None:
    """Return the input that answers ``step`` by itself, or ``None`` when it needs more.

    ``None`` for a card step (see :func:`card_input`), an action (a decision from outside) and
    the end of the hand.
    """
    if isinstance(step, PostStep):
        return Post(step.seat, step.kind)
    if isinstance(step, CollectStep):
        return Collect()
    if isinstance(step, AwardStep):
        return Push(step.pot_index)
    if isinstance(step, ShowStep):
        return Show(step.seat)
    return None


def wants_card(step: Step) -> bool:
    """Tell whether ``step`` is answered by a card (hole card, burn, board card)."""
    return isinstance(step, CARD_STEPS)


def card_input(card: Card | None) -> Deal:
    """Return the input that deals ``card`` (``None``: a face-down card whose face is unknown)."""
    return Deal(card)
