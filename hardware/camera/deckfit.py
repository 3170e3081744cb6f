"""Deck check: tell whether the board's cards match the deck design registered at calibration.

A recogniser given the wrong deck's faces (the casino registered another design, or the deck on
the table was changed) reads some cards wrong *with confidence*: shown design B with design A
registered, 335-445 of ~8,700 located cards were read as a wrong card (the 3 of clubs of one
design taken for the 3 of spades of the other). No per-card threshold stops that, but the match
scores of many cards together tell the decks apart clearly. :class:`DeckFitMonitor` keeps the
best score (:attr:`SlotReading.score <hardware.camera.recognizer.SlotReading.score>`) of the
last ``window`` distinct cards and says ``mismatch`` when their median falls too low.

Why the defaults (measured over ~21,000 located cards of 11 designs rendered medium/hard; cards
beside a hand left out):

- right deck registered: per-design median score 0.977-0.991, 5% quantile 0.915-0.947; the
  median over any run of 10 consecutive cards was never below 0.923;
- wrong deck registered (8 design pairs): per-pair median 0.17-0.87, 5% quantile 0.04-0.47;
  the median of 10 consecutive cards reached 0.09-0.73 at the worst window of each pair, and up
  to ~0.9 at the best window of the closest pair (kennard registered, cardsJS shown: median
  0.867).

So ``alarm_below = 0.90`` sits under every right-deck window (0.923) and above the closest
wrong pair's median; ``clear_at = 0.94`` (hysteresis) asks for a window that looks like the
right deck's typical cards before the alarm is lifted; ``min_cards = 8`` of a ``window`` of 12
keeps one odd card (a glare, a bent corner) from deciding, and still alarms within two boards.

Rules this module keeps:

1. A physical card counts once per slot and appearance, not once per frame: readings are keyed by
   ``(slot, card)`` (the card read, or the candidate of an ``uncertain`` reading) until the slot
   reads ``empty``; the entry keeps the best score seen and enters the window once it was seen
   in ``min_frames`` frames. A card lying there for 50 frames is one entry.
2. ``occluded`` readings, ``uncertain`` ones without a candidate and scores of 0 (nothing
   matched) are ignored: they say nothing about the deck.
3. ``ok`` -> ``mismatch`` when at least ``min_cards`` cards are in the window and their median
   is below ``alarm_below``; ``mismatch`` -> ``ok`` only when the median is at least
   ``clear_at``. Each transition is recorded once, with the ``now`` passed in.
   Before ``min_cards`` cards were seen there is no verdict, but :attr:`DeckFitMonitor.suspect`
   already says when the few cards seen so far match badly (median below ``alarm_below``): a
   board source should not vouch for a card then either (no alert is raised on so few cards).
4. Pure and stateful: no I/O, no clock; a bad parameter or observation raises and changes
   nothing.

>>> m = DeckFitMonitor(window=4, min_cards=3, min_frames=1)
>>> from table_controller.engine.cards import Card
>>> for slot, code in enumerate(["Ah", "Kd", "7c"]):
...     change = m.observe(slot, Card.parse(code), 0.5, now=float(slot))
>>> m.state.value, m.median, m.cards_seen
('mismatch', 0.5, 3)
>>> change is not None and (change.state.value, change.cards, change.at)
('mismatch', 3, 2.0)
"""

from __future__ import annotations

import math
import numbers
import statistics
from collections import deque
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from table_controller.engine.cards import Card
from table_controller.errors import ConfigError, TableError

if TYPE_CHECKING:
    from hardware.camera.recognizer import BoardReading

#: Default number of distinct cards the median is taken over.
WINDOW = 12
#: Default number of cards needed before any verdict.
MIN_CARDS = 8
#: Default median below which the deck does not match.
ALARM_BELOW = 0.90
#: Default median at or above which a mismatch is lifted.
CLEAR_AT = 0.94
#: Default number of frames a card must be seen in before it counts.
MIN_FRAMES = 2
#: Transitions kept in :attr:`DeckFitMonitor.transitions`.
HISTORY = 64


class DeckFitError(TableError):
    """An observation the deck check cannot take (bad slot or score)."""


class DeckFitState(StrEnum):
    """Whether the board's cards match the registered deck design."""

    OK = "ok"
    MISMATCH = "mismatch"


#: The state table: (state, what the window says) -> next state. ``"low"``: median below
#: ``alarm_below``; ``"high"``: median at or above ``clear_at``.
_TRANSITIONS: dict[tuple[DeckFitState, str], DeckFitState] = {
    (DeckFitState.OK, "low"): DeckFitState.MISMATCH,
    (DeckFitState.MISMATCH, "high"): DeckFitState.OK,
}


@dataclass(frozen=True, slots=True)
class DeckFitTransition:
    """The state changed.

    :param state: the new state.
    :param median: the window's median score when it changed.
    :param cards: how many cards the window held.
    :param at: the ``now`` of the observation that changed it.
    """

    state: DeckFitState
    median: float
    cards: int
    at: float


@dataclass(frozen=True, slots=True)
class DeckFitStatus:
    """A snapshot: state, window median (None when empty), cards in the window, cards seen."""

    state: DeckFitState
    median: float | None
    cards: int
    cards_seen: int


@dataclass(slots=True)
class _Entry:
    """One card in one slot, for as long as the slot does not read empty."""

    best: float
    frames: int = 0


class DeckFitMonitor:
    """Median match score of the last distinct cards, with an alarm and hysteresis.

    :param window: distinct cards kept (the last ones).
    :param min_cards: cards needed in the window before any verdict (at most ``window``).
    :param alarm_below: a median below this is a mismatch.
    :param clear_at: a mismatch is lifted when the median is at least this
        (``alarm_below <= clear_at <= 1``).
    :param min_frames: frames a card must be seen in before it enters the window.
    :raises ConfigError: for a parameter out of range, named in the message.
    """

    def __init__(self, window: int = WINDOW, min_cards: int = MIN_CARDS,
                 alarm_below: float = ALARM_BELOW, clear_at: float = CLEAR_AT,
                 min_frames: int = MIN_FRAMES) -> None:
        problems = []
        if isinstance(window, bool) or not isinstance(window, int) or window < 1:
            problems.append(f"window must be an integer >= 1 (got {window!r})")
        if (isinstance(min_cards, bool) or not isinstance(min_cards, int) or min_cards < 1
                or (isinstance(window, int) and min_cards > window)):
            problems.append(f"min_cards must be an integer from 1 to window (got {min_cards!r}, "
                            f"window {window!r})")
        if isinstance(min_frames, bool) or not isinstance(min_frames, int) or min_frames < 1:
            problems.append(f"min_frames must be an integer >= 1 (got {min_frames!r})")
        if not _finite(alarm_below) or not 0.0 < alarm_below <= 1.0:
            problems.append(f"alarm_below must be in (0, 1] (got {alarm_below!r})")
        elif not _finite(clear_at) or not alarm_below <= clear_at <= 1.0:
            problems.append(f"clear_at must be from alarm_below ({alarm_below}) to 1 "
                            f"(got {clear_at!r})")
        if problems:
            raise ConfigError("deck check: " + "; ".join(problems))
        self.window = window
        self.min_cards = min_cards
        self.alarm_below = float(alarm_below)
        self.clear_at = float(clear_at)
        self.min_frames = min_frames
        self._state = DeckFitState.OK
        self._window: deque[_Entry] = deque(maxlen=window)
        self._slots: dict[int, dict[Card, _Entry]] = {}
        self._seen = 0
        self._transitions: deque[DeckFitTransition] = deque(maxlen=HISTORY)

    # -- observations ------------------------------------------------------------------------

    def observe(self, slot: int, card: Card, score: float, now: float) -> DeckFitTransition | None:
        """Take one frame's identification of the card in ``slot``; return a transition if any.

        :param card: the card read, or the best candidate of an uncertain reading.
        :param score: its match score (correlation, -1..1); 0 is ignored (nothing matched).
        :raises DeckFitError: for a negative slot or a score that is not a number in -1..1.
        """
        self._check(slot, score)
        self._note(slot, card, float(score))
        return self._evaluate(now)

    def clear(self, slot: int) -> None:
        """End the appearance of the card in ``slot`` (it reads empty; the same card again is new).

        :raises DeckFitError: for a negative slot.
        """
        self._check(slot, 1.0)
        self._slots.pop(slot, None)

    def update(self, reading: BoardReading, now: float) -> DeckFitTransition | None:
        """Take every slot of one frame's reading; return a transition if the state changed.

        ``card`` and ``uncertain`` slots with a card and a nonzero score are observed,
        ``empty`` ones end their card's appearance, the rest are ignored.

        :raises DeckFitError: if a slot's score is not a number in -1..1 (nothing is taken).
        """
        taken: list[tuple[int, Card, float]] = []
        cleared: list[int] = []
        for slot, s in enumerate(reading.slots):
            if s.status == "empty":
                cleared.append(slot)
                continue
            if s.status not in ("card", "uncertain"):
                continue
            card = s.card if s.status == "card" else s.candidate
            if card is None or s.score == 0:
                continue
            self._check(slot, s.score)
            taken.append((slot, card, float(s.score)))
        for slot in cleared:
            self._slots.pop(slot, None)
        for slot, card, score in taken:
            self._note(slot, card, score)
        return self._evaluate(now)

    # -- what it says ------------------------------------------------------------------------

    @property
    def state(self) -> DeckFitState:
        """``ok`` or ``mismatch``."""
        return self._state

    @property
    def suspect(self) -> bool:
        """Whether a read should not be trusted: a mismatch, or too few cards, matching badly.

        True in ``mismatch``, and in ``ok`` while fewer than ``min_cards`` cards are in the
        window and their median is below ``alarm_below`` (a wrong deck's first board).
        """
        if self._state is DeckFitState.MISMATCH:
            return True
        median = self.median
        return median is not None and len(self._window) < self.min_cards and (
            median < self.alarm_below)

    @property
    def median(self) -> float | None:
        """Median best score of the cards in the window (None when it is empty)."""
        if not self._window:
            return None
        return float(statistics.median(e.best for e in self._window))

    @property
    def cards(self) -> int:
        """Cards in the window now."""
        return len(self._window)

    @property
    def cards_seen(self) -> int:
        """Distinct cards counted since the start."""
        return self._seen

    @property
    def scores(self) -> tuple[float, ...]:
        """The window's scores, oldest first."""
        return tuple(e.best for e in self._window)

    @property
    def transitions(self) -> tuple[DeckFitTransition, ...]:
        """The latest transitions (at most :data:`HISTORY`), oldest first."""
        return tuple(self._transitions)

    def status(self) -> DeckFitStatus:
        """Return a snapshot."""
        return DeckFitStatus(self._state, self.median, len(self._window), self._seen)

    # -- inside ------------------------------------------------------------------------------

    @staticmethod
    def _check(slot: int, score: float) -> None:
        if isinstance(slot, bool) or not isinstance(slot, int) or slot < 0:
            raise DeckFitError(f"deck check: slot must be an integer >= 0 (got {slot!r})")
        if not _finite(score) or not -1.0 <= score <= 1.0:
            raise DeckFitError(f"deck check: score must be a number from -1 to 1 "
                               f"(got {score!r} in slot {slot})")

    def _note(self, slot: int, card: Card, score: float) -> None:
        if score == 0:
            return
        seen = self._slots.setdefault(slot, {})
        entry = seen.get(card)
        if entry is None:
            entry = seen[card] = _Entry(score)
        entry.best = max(entry.best, score)
        entry.frames += 1
        if entry.frames == self.min_frames:
            self._window.append(entry)
            self._seen += 1

    def _evaluate(self, now: float) -> DeckFitTransition | None:
        median = self.median
        if median is None or len(self._window) < self.min_cards:
            return None
        verdict = ("low" if median < self.alarm_below
                   else "high" if median >= self.clear_at else "between")
        new = _TRANSITIONS.get((self._state, verdict))
        if new is None:
            return None
        self._state = new
        change = DeckFitTransition(new, median, len(self._window), now)
        self._transitions.append(change)
        return change


def _finite(x: object) -> bool:
    """Whether ``x`` is a finite real number (NumPy scalars included, booleans not)."""
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(float(x))
