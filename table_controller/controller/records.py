"""What the controller reports of each applied engine input: words and structured data.

The words come from :func:`table_controller.engine.describe.applied_text` (one place); the data
is what the ``event`` messages carry, with the burn card kept apart as a secret.
"""

from __future__ import annotations

from typing import Any

from table_controller.controller.events import Applied
from table_controller.engine import (
    ActStep,
    AwardStep,
    BoardStep,
    BurnStep,
    CollectStep,
    Deal,
    DealHoleStep,
    Hand,
    Muck,
    PostStep,
    Record,
    Show,
)
from table_controller.engine.describe import applied_text


def applied_output(hand: Hand, rec: Record) -> Applied:
    """Return the :class:`Applied` output of a record (its words from the engine's describe)."""
    step, inp = rec.step, rec.input
    shown = hand.status().shown.get(rec.seat, ()) if isinstance(inp, Show) and \
        rec.seat is not None else ()
    text = applied_text(rec, shown)
    card = inp.card.code if isinstance(inp, Deal) and inp.card is not None else None
    data: dict[str, Any]
    if isinstance(step, PostStep):
        data = {"event": "post", "seat": step.seat, "post_kind": step.kind.value,
                "amount": rec.amount}
    elif isinstance(step, DealHoleStep):
        data = {"event": "hole_card", "seat": step.seat, "round": step.round,
                "hole_card": card}
    elif isinstance(step, BurnStep):
        return Applied(text, {"event": "burn", "street": step.street.value}, {"burn": card})
    elif isinstance(step, BoardStep):
        data = {"event": "board", "slot": step.slot, "card": card}
    elif isinstance(step, ActStep) and rec.kind is not None:
        data = {"event": "action", "seat": step.seat, "action": rec.kind.value,
                "amount": rec.amount, "to": rec.to, "all_in": rec.all_in}
    elif isinstance(step, CollectStep):
        data = {"event": "collect", "pots": [p.to_dict() for p in step.into_pots]}
    elif isinstance(inp, Show) and rec.seat is not None:
        data = {"event": "show", "seat": rec.seat, "cards": [c.code for c in shown]}
    elif isinstance(inp, Muck):
        data = {"event": "muck", "seat": inp.seat}
    elif isinstance(step, AwardStep):
        data = {"event": "push", "pot_index": step.pot_index, "amount": step.amount,
                "payouts": {str(s): a for s, a in step.payouts.items()},
                "odd_chip_seats": list(step.odd_chip_seats), "rake": step.rake}
    else:
        data = {"event": type(inp).__name__.lower()}
    return Applied(text, data)
