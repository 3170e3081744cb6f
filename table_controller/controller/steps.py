"""The engine's next step as structured prompt data (the words are in the engine's describe).

>>> from table_controller.engine import BurnStep, Street
>>> step_to_dict(BurnStep(Street.FLOP))
{'kind': 'burn', 'street': 'flop'}
>>> from table_controller.engine import AwardStep
>>> award_text(AwardStep(1, 401, {5: 201, 7: 200}, (5,), 0))
'Side pot 1 401 split seats 5 and 7, odd chip to seat 5'
>>> award_text(AwardStep(0, 1250, {3: 1250}, (), 0))
'Main pot 1,250 to seat 3'
"""

from __future__ import annotations

from typing import Any

from table_controller.engine import (
    ActStep,
    AwardStep,
    BoardStep,
    BurnStep,
    CollectStep,
    DealHoleStep,
    HandOverStep,
    PostStep,
    ShowStep,
    Step,
)
from table_controller.engine.describe import award_text, payouts_text, pot_name

__all__ = ["award_text", "payouts_text", "pot_name", "step_to_dict"]


def step_to_dict(step: Step) -> dict[str, Any]:
    """Return the JSON form of an engine step (the ``step`` of a prompt)."""
    if isinstance(step, PostStep):
        return {"kind": "post", "seat": step.seat, "post_kind": step.kind.value,
                "amount": step.amount}
    if isinstance(step, DealHoleStep):
        return {"kind": "deal_hole", "seat": step.seat, "round": step.round}
    if isinstance(step, BurnStep):
        return {"kind": "burn", "street": step.street.value}
    if isinstance(step, BoardStep):
        return {"kind": "board", "street": step.street.value, "slot": step.slot}
    if isinstance(step, ActStep):
        return {"kind": "act", "seat": step.seat, "legal": step.legal.to_dict()}
    if isinstance(step, CollectStep):
        return {"kind": "collect", "pots": [p.to_dict() for p in step.into_pots],
                "returned": {str(s): a for s, a in step.returned.items()}}
    if isinstance(step, ShowStep):
        return {"kind": "show", "seat": step.seat}
    if isinstance(step, AwardStep):
        return {"kind": "award", "pot_index": step.pot_index, "amount": step.amount,
                "payouts": {str(s): a for s, a in step.payouts.items()},
                "odd_chip_seats": list(step.odd_chip_seats), "rake": step.rake}
    if isinstance(step, HandOverStep):
        return {"kind": "hand_over",
                "final_stacks": {str(s): a for s, a in step.final_stacks.items()}}
    raise TypeError(f"not a step: {step!r}")
