"""Plain dealer words for a step (skeleton)."""

from __future__ import annotations

from table_controller.engine.model import Step


def describe_step(step: Step) -> str:
    """Say ``step`` the way a dealer would."""
    raise NotImplementedError
