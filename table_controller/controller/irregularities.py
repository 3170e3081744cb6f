"""Irregularities the controller detects: their kinds, remedies, and the extension point.

Rules this module keeps:

1. Every irregularity has a kind listed in :data:`KINDS`, with its plain-words title, the remedy
   the dealer is told, and whether it makes the hand unsafe (``hold``). An unsafe irregularity
   holds the table through the core's one ``enter_hold`` path until it is resolved by a command
   (``resolve`` then ``resume``, or ``void`` / ``misdeal``); every resolution is recorded.
2. Never a guess: a card that cannot be matched to the step the engine expects is an
   irregularity, and it is *not* applied to the hand.
3. Texts for the public and dealer feeds never name a card that could be a hole card; such
   details go to ``secret`` (surveillance only).

Extension point (issue 6: misdeals, premature cards, burns): subclass :class:`IrregularityRules`
and pass it to :class:`~table_controller.controller.core.TableCore`. :meth:`check_card` sees every
identified card before it is matched to the expected step; returning a :class:`Finding` stops the
card there (it is not applied). New kinds go into :data:`KINDS` with :func:`register_kind`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from table_controller.engine import Card, Hand, Step
from table_controller.errors import TableError


class IrregularityError(TableError):
    """An unknown irregularity kind was used."""


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of irregularity."""

    name: str
    title: str
    remedy: str
    hold: bool


KINDS: dict[str, Kind] = {}


def register_kind(name: str, title: str, remedy: str, *, hold: bool) -> Kind:
    """Add (or replace) an irregularity kind."""
    kind = Kind(name, title, remedy, hold)
    KINDS[name] = kind
    return kind


register_kind(
    "unknown_card", "a card's tag is not in the active deck",
    "Take that card out of play and show it to the floor. Resolve, then resume and deal the "
    "step again from the shoe; or void the hand.", hold=True)
register_kind(
    "duplicate_card", "a card already seen this hand was drawn again",
    "Stop dealing. The floor checks the deck for a second copy; void the hand (misdeal), or "
    "resolve and resume once the deck is checked.", hold=True)
register_kind(
    "card_not_due", "a card was drawn when no card is due",
    "Leave the card face down where it is and call the floor; resolve and resume (the card is "
    "not in the hand), or void the hand.", hold=True)
register_kind(
    "card_between_hands", "a card was drawn with no hand in progress",
    "Return the card; start a hand before dealing.", hold=False)
register_kind(
    "card_while_held", "a card was drawn while the table is held",
    "Stop dealing until the hold is resolved; the card is not in the hand.", hold=False)
register_kind(
    "chip_difference", "the chips on a zone do not match the hand",
    "Recount the chips on that zone and correct them; then resolve and resume.", hold=True)
register_kind(
    "device_lost", "a device was lost during the hand",
    "Check the device's cable and power; once it is back, resolve and resume, or void the "
    "hand.", hold=True)
register_kind(
    "reads_lost", "a device discarded reads the controller never received",
    "Stop dealing. Compare the cards and chips on the table with the hand shown; the floor "
    "voids the hand, or resolves and resumes once everything is accounted for.", hold=True)
register_kind(
    "board_mismatch", "the camera sees a different card than the shoe read for a board slot",
    "Check the board card against the shoe's read; resolve once the board is right.",
    hold=False)
register_kind(
    "board_wrong_slot", "a board card lies in the wrong slot",
    "Move the board card to its slot; resolve once the board is right.", hold=False)
register_kind(
    "board_missing", "the camera does not show a board card the shoe dealt",
    "Lay the board card face up in its slot; resolve once the board is right.", hold=False)
register_kind(
    "board_early", "a card is on the board before the shoe drew it",
    "Take the card back; deal board cards through the shoe, in order.", hold=False)
register_kind(
    "exposed_card", "a hole card is face up on the board",
    "Announce the exposed card; the floor rules on it. Resolve once done.", hold=False)


@dataclass(frozen=True, slots=True)
class Finding:
    """A detected irregularity, before the core numbers it.

    :param kind: a key of :data:`KINDS`.
    :param text: what happened, in plain words safe for the public feed.
    :param data: structured details safe for the public feed.
    :param secret: details for surveillance only (cards).
    """

    kind: str
    text: str
    data: Mapping[str, Any] = field(default_factory=dict)
    secret: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise IrregularityError(f"unknown irregularity kind {self.kind!r}")


@dataclass(frozen=True, slots=True)
class CardContext:
    """What :meth:`IrregularityRules.check_card` sees: the card, its tag and the expected step."""

    card: Card
    uid: str
    hand: Hand
    step: Step


class IrregularityRules:
    """Hooks consulted by the core; the default finds nothing beyond the built-in checks.

    ``core`` below is the :class:`~table_controller.controller.core.TableCore` (typed ``Any``
    to keep this module free of the core).
    """

    def intercept(self, core: Any, inp: Any, now: float, out: list[Any]) -> bool:
        """See each input first; return True if the rules handled it (the core then does not)."""
        return False

    def after_input(self, core: Any, now: float, out: list[Any]) -> None:
        """Run after each input is handled, before the prompt is updated."""

    def prompt(self, core: Any) -> tuple[str, dict[str, Any]] | None:
        """Return a prompt ``(text, step)`` that replaces the engine's, or ``None``."""
        return None

    def check_card(self, ctx: CardContext) -> Finding | None:
        """Inspect an identified card before it is matched to ``ctx.step``.

        Return a :class:`Finding` to stop the card (it is then not applied to the hand).
        """
        return None
