"""One hand of no-limit hold'em as a state machine driven by inputs (skeleton)."""

from __future__ import annotations

from table_controller.engine.model import HandConfig, HandStatus, Input, Record, Step
from table_controller.errors import RuleError


class Hand:
    """One hand: ``expected()`` tells the next step, ``apply()`` takes an input."""

    def __init__(self, config: HandConfig) -> None:
        self.config = config
        self.log: list[Record] = []

    def expected(self) -> Step:
        """Return the next physical step the table waits for."""
        raise NotImplementedError

    def check(self, inp: Input) -> RuleError | None:
        """Return the error ``apply(inp)`` would raise, or None; changes nothing."""
        raise NotImplementedError

    def apply(self, inp: Input) -> Record:
        """Apply one input and return its record.

        :raises RuleError: the input is illegal; nothing changed.
        """
        raise NotImplementedError

    def status(self) -> HandStatus:
        """Frozen snapshot of the hand."""
        raise NotImplementedError

    def void(self) -> dict[int, int]:
        """Void the hand: every seat gets its starting stack back; returns the refunds."""
        raise NotImplementedError
