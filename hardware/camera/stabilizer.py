"""Stabiliser: a slot's card counts as seen once the same reading holds over a few frames.

Rules this module keeps:

1. A slot's stable value changes only after ``frames`` consecutive definitive readings
   (``"card"`` with the same card, or ``"empty"``) that also span at least ``min_seconds`` of
   the ``now`` passed in.
2. ``"occluded"`` and ``"uncertain"`` readings never change a stable value (a hand passing over
   the board does not remove its cards); they neither count towards nor break a streak.
3. Time is a parameter: :meth:`BoardStabilizer.update` takes ``now``; nothing reads a clock.

>>> from hardware.camera.recognizer import BoardReading, SlotReading
>>> from table_controller.engine.cards import Card
>>> ah = BoardReading((SlotReading("card", Card.parse("Ah"), 0.9),) + (SlotReading("empty"),) * 4)
>>> s = BoardStabilizer(frames=2)
>>> s.update(ah, 0.0).changes
()
>>> s.update(ah, 0.1).changes
((0, None, Card('Ah')),)
"""

from __future__ import annotations

from dataclasses import dataclass

from hardware.camera.recognizer import BoardReading
from table_controller.engine.cards import Card
from table_controller.errors import ConfigError


@dataclass(frozen=True, slots=True)
class StableBoard:
    """The stable board after one update.

    :param cards: stable card per slot (None = empty or nothing stable yet).
    :param occluded: slots occluded or uncertain in the latest frame.
    :param changes: ``(slot, old, new)`` for each slot whose stable value changed in this update.
    """

    cards: tuple[Card | None, ...]
    occluded: tuple[int, ...]
    changes: tuple[tuple[int, Card | None, Card | None], ...]


class BoardStabilizer:
    """Turns per-frame :class:`BoardReading` into stable slot values."""

    def __init__(self, frames: int = 3, min_seconds: float = 0.0, slots: int = 5) -> None:
        if frames < 1 or min_seconds < 0 or slots < 1:
            raise ConfigError(
                f"stabiliser needs frames >= 1, min_seconds >= 0, slots >= 1 "
                f"(got {frames}, {min_seconds}, {slots})"
            )
        self.frames = frames
        self.min_seconds = min_seconds
        self._stable: list[Card | None] = [None] * slots
        self._candidate: list[tuple[Card | None, int, float] | None] = [None] * slots

    def update(self, reading: BoardReading, now: float) -> StableBoard:
        """Feed one frame's reading taken at ``now``.

        :raises ConfigError: if the reading has a different number of slots.
        """
        if len(reading.slots) != len(self._stable):
            raise ConfigError(
                f"reading has {len(reading.slots)} slots, stabiliser expects {len(self._stable)}"
            )
        changes: list[tuple[int, Card | None, Card | None]] = []
        unclear: list[int] = []
        for i, slot in enumerate(reading.slots):
            if slot.status in ("occluded", "uncertain"):
                unclear.append(i)
                continue
            value = slot.card if slot.status == "card" else None
            cand = self._candidate[i]
            if cand is None or cand[0] != value:
                cand = (value, 1, now)
            else:
                cand = (value, cand[1] + 1, cand[2])
            self._candidate[i] = cand
            if (cand[1] >= self.frames and now - cand[2] >= self.min_seconds
                    and self._stable[i] != value):
                changes.append((i, self._stable[i], value))
                self._stable[i] = value
        return StableBoard(tuple(self._stable), tuple(unclear), tuple(changes))

    @property
    def cards(self) -> tuple[Card | None, ...]:
        """The current stable card per slot."""
        return tuple(self._stable)
