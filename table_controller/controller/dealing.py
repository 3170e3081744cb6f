"""Dealing irregularities (issue 6): detection rules and remedies, plugged into the core."""

from __future__ import annotations

from table_controller.controller.irregularities import IrregularityRules


class DealingRules(IrregularityRules):
    """The dealing irregularities' rules (misdeals, exposed and premature cards, burns)."""
