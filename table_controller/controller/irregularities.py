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

4. Irregularity ids are unique and increase (a counter). The live state keeps the open ones and
   only the :data:`RESOLVED_WINDOW` most recently resolved (plus counts): every resolution is in
   the journal, so the cost of an input, a command or a state message does not grow with the
   table's life.

Extension point (the dealing rules, :mod:`.dealing`: misdeals, premature cards, burns): subclass
:class:`IrregularityRules` and pass it to :class:`~table_controller.controller.core.TableCore`.
The hooks get the core through :class:`TableHost`, the typed interface a remedy may use (raise
and resolve irregularities, announce, apply an engine input, check the board). :meth:`check_card`
sees every identified card before it is matched to the expected step; returning a
:class:`Finding` stops the card there (it is not applied). New kinds go into :data:`KINDS` with
:func:`register_kind`. Commands the rules add are decided by :meth:`IrregularityRules.decide`:
a pure :class:`Decision` (the reply) and its effect, applied once if the command is accepted.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from hardware.base import CardIdentified, DuplicateCard, UnknownTag
from table_controller.controller.chips import ChipCheck
from table_controller.controller.events import (
    BoardSeen,
    CardRead,
    DealerCommand,
    Output,
    Reply,
    ShoeState,
    Tick,
    ZoneSeen,
)
from table_controller.engine import AwardStep, Card, Hand, Input, Record, Step
from table_controller.errors import TableError

#: How many resolved irregularities the live state keeps (the journal keeps them all).
RESOLVED_WINDOW = 50

#: A card read once its tag is resolved (a repeated read never gets this far).
TagEvent = CardIdentified | UnknownTag | DuplicateCard
#: Inputs the rules may take over before the core (cards and commands have their own hooks).
RuleInput = BoardSeen | ZoneSeen | Tick | ShoeState


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
    "unknown_chip", "a chip on the felt is not in the chip registry",
    "Take that chip out of play and show it to the floor (a foreign or counterfeit chip, or a "
    "chip that was never registered); then resolve and resume.", hold=True)
register_kind(
    "chip_on_two_zones", "one chip's tag is read on two zones at once",
    "Check the two zones: a cloned tag, or a chip lying between two spots; put it right, then "
    "resolve and resume.", hold=True)
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


@dataclass(slots=True)
class Irregularity:
    """One irregularity as the core keeps it (``resolution`` set once resolved)."""

    id: int
    kind: str
    text: str
    remedy: str
    hold: bool
    hand: int | None
    data: Mapping[str, Any] = field(default_factory=dict)
    secret: Mapping[str, Any] = field(default_factory=dict)
    resolution: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form safe for every feed (``secret`` left out)."""
        return {"id": self.id, "kind": self.kind, "text": self.text, "remedy": self.remedy,
                "hold": self.hold, "hand": self.hand, "resolved": self.resolution is not None,
                "resolution": self.resolution, **dict(self.data)}


class IrregularityLog:
    """The live irregularities: every open one and the last :data:`RESOLVED_WINDOW` resolved.

    >>> log = IrregularityLog(window=1)
    >>> a = log.add(Finding("board_early", "early"), KINDS["board_early"], None)
    >>> b = log.add(Finding("board_early", "early"), KINDS["board_early"], None)
    >>> log.resolve(a.id, "fixed"), log.resolve(b.id, "fixed"), log.resolve(b.id, "again")
    (True, True, False)
    >>> [i.id for i in log], log.counts()
    ([2], {'raised': 2, 'open': 0, 'resolved': 2})
    """

    def __init__(self, window: int = RESOLVED_WINDOW) -> None:
        self.window = window
        self.raised = 0
        self._live: dict[int, Irregularity] = {}
        self._open: dict[int, Irregularity] = {}
        self._resolved: deque[int] = deque()

    def __iter__(self) -> Iterator[Irregularity]:
        return iter(list(self._live.values()))

    def __len__(self) -> int:
        return len(self._live)

    def __getitem__(self, index: int) -> Irregularity:
        return list(self._live.values())[index]

    @property
    def next_id(self) -> int:
        """The id the next irregularity gets."""
        return self.raised + 1

    def add(self, finding: Finding, kind: Kind, hand: int | None) -> Irregularity:
        """Keep a new irregularity, numbered by the counter; return it."""
        self.raised += 1
        irr = Irregularity(self.raised, finding.kind, finding.text, kind.remedy, kind.hold, hand,
                           dict(finding.data), dict(finding.secret))
        self._live[irr.id] = irr
        self._open[irr.id] = irr
        return irr

    def open(self) -> list[Irregularity]:
        """Return the open irregularities, oldest first."""
        return list(self._open.values())

    def first_open(self, *, hold: bool = False) -> Irregularity | None:
        """Return the oldest open irregularity (``hold``: the oldest that holds)."""
        return next((i for i in self._open.values() if i.hold or not hold), None)

    def get(self, irr_id: int) -> Irregularity | None:
        """Return the live irregularity ``irr_id`` (``None``: unknown or resolved long ago)."""
        return self._live.get(irr_id)

    def resolve(self, irr_id: int, note: str) -> bool:
        """Record ``note`` as the resolution of open irregularity ``irr_id``; tell if it was."""
        irr = self._open.pop(irr_id, None)
        if irr is None:
            return False
        irr.resolution = note
        self._resolved.append(irr_id)
        while len(self._resolved) > self.window:
            self._live.pop(self._resolved.popleft(), None)
        return True

    def counts(self) -> dict[str, int]:
        """Count the irregularities raised over the table's life, open and resolved."""
        return {"raised": self.raised, "open": len(self._open),
                "resolved": self.raised - len(self._open)}


@dataclass(frozen=True, slots=True)
class Decision:
    """A command decided without changing anything: the reply, and what applying it does.

    :param reply: the :class:`Reply` the command gets (a refusal has no ``effect``).
    :param effect: ``effect(now, out)`` applies the accepted command, once.
    """

    reply: Reply
    effect: Callable[[float, list[Output]], None] | None = None


def refused(reason: str) -> Decision:
    """Return a refusal (changes nothing)."""
    return Decision(Reply(False, reason))


class TableHost(Protocol):
    """What the rules' remedies may read and do on the core (it implements this)."""

    @property
    def hand(self) -> Hand | None:
        """The hand in progress."""

    @property
    def hand_number(self) -> int:
        """The number of the hand in progress (or of the last one)."""

    @property
    def held(self) -> bool:
        """Tell whether the table is held."""

    @property
    def chips(self) -> ChipCheck | None:
        """The chip check (``None`` without chip sensors)."""

    @property
    def awards(self) -> Sequence[AwardStep]:
        """The pots pushed so far this hand."""

    @property
    def next_irregularity_id(self) -> int:
        """The id the next raised irregularity gets."""

    def raise_irregularity(self, finding: Finding, out: list[Output]) -> int:
        """Raise an irregularity: number, record, report it (and hold if its kind holds)."""

    def resolve_irregularity(self, irr_id: int, note: str, out: list[Output]) -> None:
        """Record how an open irregularity was settled (nothing if it is not open)."""

    def announce(self, kind: str, text: str, out: list[Output], **data: Any) -> None:
        """Say something aloud (an :class:`Announcement`)."""

    def apply(self, inp: Input, now: float, out: list[Output]) -> Record:
        """Apply one engine input and what follows from it (raises ``RuleError`` if illegal)."""

    def refuse_if_held(self) -> Decision | None:
        """Return a refusal naming the holds if the table is held."""

    def check_board(self, seen: BoardSeen, out: list[Output]) -> None:
        """Run the core's board checks on a camera reading."""

    def forget_board_flags(self) -> None:
        """Forget the board irregularities reported this hand (a board dealt again)."""

    def forget_card(self, card: Card) -> None:
        """Put a card back into the stub: the shoe may deal it again this hand."""

    def set_burn(self, index: int, card: Card) -> None:
        """Correct the surveillance record of burn ``index`` (a replacement burn)."""


class IrregularityRules:
    """Hooks consulted by the core; the default finds nothing beyond the built-in checks."""

    #: The dealer commands :meth:`decide` adds to the core's.
    commands: frozenset[str] = frozenset()

    def intercept(self, host: TableHost, inp: RuleInput, now: float,
                  out: list[Output]) -> bool:
        """See a device input first; return True if the rules handled it (the core does not)."""
        return False

    def on_card(self, host: TableHost, read: CardRead, event: TagEvent, now: float,
                out: list[Output]) -> bool:
        """See a card read (its tag resolved once, by the core) first; True if handled."""
        return False

    def decide(self, host: TableHost, cmd: DealerCommand, now: float) -> Decision | None:
        """Decide a command the rules take over, changing nothing; ``None``: the core decides."""
        return None

    def after_input(self, host: TableHost, now: float, out: list[Output]) -> None:
        """Run after each input is handled, before the prompt is updated."""

    def prompt(self, host: TableHost) -> tuple[str, dict[str, Any]] | None:
        """Return a prompt ``(text, step)`` that replaces the engine's, or ``None``."""
        return None

    def check_card(self, ctx: CardContext) -> Finding | None:
        """Inspect an identified card before it is matched to ``ctx.step``.

        Return a :class:`Finding` to stop the card (it is then not applied to the hand).
        """
        return None
