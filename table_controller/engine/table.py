"""The table across hands (skeleton)."""

from __future__ import annotations

from dataclasses import dataclass

from table_controller.engine.hand import Hand
from table_controller.engine.model import RakeRule


@dataclass(frozen=True, slots=True)
class TableConfig:
    """Stakes and seats of a cash-game table."""

    seats: int
    small_blind: int
    big_blind: int
    ante: int = 0
    bb_ante: int = 0
    rake: RakeRule | None = None


class Table:
    """Seats 1..N, the button, blinds owed, and the hands played."""

    def __init__(self, config: TableConfig) -> None:
        self.config = config

    def start_hand(self) -> Hand:
        """Start the next hand."""
        raise NotImplementedError

    def finish_hand(self, hand: Hand) -> None:
        """Apply a finished (or voided) hand's final stacks to the seats."""
        raise NotImplementedError
