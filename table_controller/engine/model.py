"""Plain data of the rules engine: streets, steps the table waits for, inputs, records, snapshots.

Rules this module keeps:

1. Everything here is frozen (immutable) and holds only ints, strings, enums, cards and tuples or
   mappings of them: a value can be logged, compared and sent to another process as it is.
2. Each ``to_dict()`` returns JSON-friendly data (cards as ``"Ah"`` text, enums as their value).
3. No rule logic lives here; the rules are in :mod:`.betting`, :mod:`.pots`, :mod:`.showdown`,
   :mod:`.hand` and :mod:`.table`.

>>> Act(3, ActionKind.RAISE, 400)
Act(seat=3, kind=<ActionKind.RAISE: 'raise'>, to=400)
>>> Street.FLOP.board_slots
(0, 1, 2)
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from table_controller.engine.cards import Card
from table_controller.engine.frozen import quick_init

# --------------------------------------------------------------------------------------------
# Enums


class Street(enum.Enum):
    """The betting rounds of a hand, in order, plus the showdown."""

    __hash__ = object.__hash__  # C-level hashing (members are singletons): faster lookups

    PREFLOP = "preflop"
    FLOP = "flop"
    TURN = "turn"
    RIVER = "river"
    SHOWDOWN = "showdown"

    @property
    def board_slots(self) -> tuple[int, ...]:
        """Board slots (0..4) dealt when this street begins."""
        return _BOARD_SLOTS[self]

    @property
    def next(self) -> Street:
        """The street after this one (SHOWDOWN after RIVER; SHOWDOWN has no next)."""
        nxt = _NEXT_STREET.get(self)
        if nxt is None:
            raise ValueError("no street after the showdown")
        return nxt


_BOARD_SLOTS: dict[Street, tuple[int, ...]] = {
    Street.PREFLOP: (),
    Street.FLOP: (0, 1, 2),
    Street.TURN: (3,),
    Street.RIVER: (4,),
    Street.SHOWDOWN: (),
}
_NEXT_STREET: dict[Street, Street] = {
    Street.PREFLOP: Street.FLOP,
    Street.FLOP: Street.TURN,
    Street.TURN: Street.RIVER,
    Street.RIVER: Street.SHOWDOWN,
}


class PostKind(enum.Enum):
    """What a forced post is for.

    ``DEAD_SMALL`` goes straight into the pot (it is not part of the player's bet);
    ``NEW_PLAYER`` and ``MISSED_BIG`` are live big blinds posted out of position; ``STRADDLE``
    is a live blind raise (a house rule, see :class:`HandConfig`).
    """

    __hash__ = object.__hash__  # C-level hashing (members are singletons): faster lookups

    ANTE = "ante"
    BB_ANTE = "bb_ante"
    SMALL_BLIND = "small_blind"
    BIG_BLIND = "big_blind"
    DEAD_SMALL = "dead_small"
    NEW_PLAYER = "new_player"
    MISSED_BIG = "missed_big"
    STRADDLE = "straddle"


LIVE_POSTS = frozenset({PostKind.SMALL_BLIND, PostKind.BIG_BLIND, PostKind.NEW_PLAYER,
                        PostKind.MISSED_BIG, PostKind.STRADDLE})
"""Posts that stay in front of the seat as part of its bet; the others go into the pot."""


class ActionKind(enum.Enum):
    """A player's betting action. ``BET`` and ``RAISE`` both mean "make the total bet ``to``"."""

    __hash__ = object.__hash__  # C-level hashing (members are singletons): faster lookups

    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BET = "bet"
    RAISE = "raise"
    ALL_IN = "all_in"


class Phase(enum.Enum):
    """What kind of step the hand is waiting for (the state of the hand's state machine)."""

    __hash__ = object.__hash__  # C-level hashing (members are singletons): faster lookups

    POSTING = "posting"
    DEALING = "dealing"
    BETTING = "betting"
    COLLECTING = "collecting"
    BURNING = "burning"
    BOARD = "board"
    SHOWDOWN = "showdown"
    AWARDING = "awarding"
    OVER = "over"
    VOID = "void"


# --------------------------------------------------------------------------------------------
# Configuration


@dataclass(frozen=True, slots=True)
class RakeRule:
    """House rake: ``percent_bp`` basis points (500 = 5 %) of the pot, at most ``cap`` a hand.

    Rounded down to whole chips. With ``no_flop_no_drop`` no rake is taken when the hand ends
    before the flop is dealt.
    """

    percent_bp: int
    cap: int
    no_flop_no_drop: bool = True

    def __post_init__(self) -> None:
        if not 0 <= self.percent_bp <= 10_000:
            raise ValueError(f"rake percent_bp must be 0..10000, got {self.percent_bp}")
        if self.cap < 0:
            raise ValueError(f"rake cap must be >= 0, got {self.cap}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {"percent_bp": self.percent_bp, "cap": self.cap,
                "no_flop_no_drop": self.no_flop_no_drop}


@dataclass(frozen=True, slots=True)
class ExtraPost:
    """A post besides the regular blinds: missed blinds or a new player's big blind."""

    seat: int
    kind: PostKind
    amount: int


@quick_init
@dataclass(frozen=True, slots=True)
class HandConfig:
    """Everything needed to start one hand.

    Seats are numbered clockwise: after seat ``n`` comes the next higher dealt seat, wrapping.

    :param seats: seat numbers dealt in (any order; at least 2).
    :param stacks: chips in front of each dealt seat at the start (all > 0).
    :param button: the button's seat; it may be a seat not dealt in (dead button).
    :param sb_seat: explicit small-blind seat; ``None`` = derived (left of the button; the button
        itself heads-up), unless ``no_small_blind``.
    :param bb_seat: explicit big-blind seat; ``None`` = derived.
    :param no_small_blind: no small blind this hand (TDA dead small blind).
    :param extra_posts: missed blinds and new players' posts.
    :param table_all_ins: table the hands as soon as a player is all-in and no more betting
        can take place (TDA 2024 rule 16, the default); ``False``: the hands are shown at the
        showdown, in the showdown order (Robert's Rules of Poker v11, Showdown 7).
    :param bb_ante_first: a big blind short of chips posts the big-blind ante before the blind
        (TDA 2019 rule 2); by default the blind first (TDA 2024 rule 2).
    :param straddle_seat: the seat that posts a live straddle of ``straddle`` chips after the
        blinds (a house rule; see :mod:`.hand`, rule 1a), or ``None``.
    :param straddle: the straddle's size (more than the big blind; the table's house rule makes
        it twice the big blind).
    :param odd_chips_to_rake: a house option for split pots: the odd chips a raked pot's split
        leaves go to the rake, as long as the hand's rake stays within the cap (everyone who
        ties gets the same); by default they go one each to the winners clockwise from the
        button (Robert's Rules of Poker, Ties 5), after the rake came off the pot.
    """

    seats: tuple[int, ...]
    stacks: Mapping[int, int]
    button: int
    small_blind: int
    big_blind: int
    ante: int = 0
    bb_ante: int = 0
    sb_seat: int | None = None
    bb_seat: int | None = None
    no_small_blind: bool = False
    extra_posts: tuple[ExtraPost, ...] = ()
    rake: RakeRule | None = None
    table_all_ins: bool = True
    bb_ante_first: bool = False
    straddle_seat: int | None = None
    straddle: int = 0
    odd_chips_to_rake: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form (the house options only when not the default)."""
        options: dict[str, Any] = {}
        if not self.table_all_ins:
            options["table_all_ins"] = False
        if self.bb_ante_first:
            options["bb_ante_first"] = True
        if self.straddle_seat is not None:
            options["straddle_seat"] = self.straddle_seat
            options["straddle"] = self.straddle
        if self.odd_chips_to_rake:
            options["odd_chips_to_rake"] = True
        return {
            **options,
            "seats": list(self.seats),
            "stacks": {str(s): v for s, v in self.stacks.items()},
            "button": self.button,
            "small_blind": self.small_blind,
            "big_blind": self.big_blind,
            "ante": self.ante,
            "bb_ante": self.bb_ante,
            "sb_seat": self.sb_seat,
            "bb_seat": self.bb_seat,
            "no_small_blind": self.no_small_blind,
            "extra_posts": [{"seat": p.seat, "kind": p.kind.value, "amount": p.amount}
                            for p in self.extra_posts],
            "rake": None if self.rake is None else self.rake.to_dict(),
        }


# --------------------------------------------------------------------------------------------
# Steps: what the table waits for next


class LegalActions(NamedTuple):
    """The options of the seat to act, in chips (immutable; a named tuple for speed).

    ``call_amount`` is the chips the seat adds to call (0 when it can check; less than the price
    when the call puts it all-in). ``min_raise_to`` / ``max_raise_to`` are total bets for the round
    (``max_raise_to`` = the seat's bet + stack: all-in). ``to_call_total`` is the bet level to
    match; ``bet`` is what the seat already has in front of it. A raise below ``min_raise_to``
    is legal only as an all-in (``to == max_raise_to``). ``is_bet`` is true when nobody has bet
    this round yet (a raise is then called a bet).
    """

    seat: int
    can_fold: bool
    can_check: bool
    can_call: bool
    call_amount: int
    can_raise: bool
    min_raise_to: int
    max_raise_to: int
    to_call_total: int
    bet: int
    stack: int
    is_bet: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {
            "seat": self.seat, "can_fold": self.can_fold, "can_check": self.can_check,
            "can_call": self.can_call, "call_amount": self.call_amount,
            "can_raise": self.can_raise, "min_raise_to": self.min_raise_to,
            "max_raise_to": self.max_raise_to, "to_call_total": self.to_call_total,
            "bet": self.bet, "stack": self.stack, "is_bet": self.is_bet,
        }


@dataclass(frozen=True, slots=True)
class PostStep:
    """Put a forced bet (blind, ante, missed blind) in front of ``seat``."""

    seat: int
    kind: PostKind
    amount: int


@dataclass(frozen=True, slots=True)
class DealHoleStep:
    """Deal hole card number ``round`` (1 or 2) to ``seat``."""

    seat: int
    round: int


@dataclass(frozen=True, slots=True)
class BurnStep:
    """Burn one card before ``street`` (FLOP, TURN or RIVER)."""

    street: Street


@dataclass(frozen=True, slots=True)
class BoardStep:
    """Deal board card ``slot`` (0..4) face up."""

    street: Street
    slot: int


@quick_init
@dataclass(frozen=True, slots=True)
class ActStep:
    """``seat`` must act; ``legal`` lists its options."""

    seat: int
    legal: LegalActions


@quick_init
@dataclass(frozen=True, slots=True)
class PotView:
    """One pot: its chips and the seats that can win it (index 0 = main pot)."""

    amount: int
    eligible: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {"amount": self.amount, "eligible": list(self.eligible)}


@quick_init
@dataclass(frozen=True, slots=True)
class CollectStep:
    """The betting round is over: move the bets into the pots and return uncalled bets.

    :param into_pots: the pots after the collection.
    :param returned: uncalled bets going back to their seats.
    """

    into_pots: tuple[PotView, ...]
    returned: Mapping[int, int]


@quick_init
@dataclass(frozen=True, slots=True)
class ShowStep:
    """``seat`` must show (or muck) its hand; seats are asked in showdown order."""

    seat: int


@quick_init
@dataclass(frozen=True, slots=True)
class AwardStep:
    """Push pot ``pot_index``: ``rake`` to the house, ``payouts`` to the winners.

    ``odd_chip_seats`` got one odd chip each (clockwise from the button).
    """

    pot_index: int
    amount: int
    payouts: Mapping[int, int]
    odd_chip_seats: tuple[int, ...]
    rake: int


@quick_init
@dataclass(frozen=True, slots=True)
class HandOverStep:
    """The hand is over; ``final_stacks`` are the chips of each dealt seat."""

    final_stacks: Mapping[int, int]


Step = (PostStep | DealHoleStep | BurnStep | BoardStep | ActStep | CollectStep | ShowStep
        | AwardStep | HandOverStep)


# --------------------------------------------------------------------------------------------
# Inputs


@quick_init
@dataclass(frozen=True, slots=True)
class Post:
    """``seat`` posted its forced bet (``kind`` optional: the first pending post of the seat)."""

    seat: int
    kind: PostKind | None = None


@dataclass(frozen=True, slots=True)
class Deal:
    """The card for the current hole / burn / board step.

    ``None`` only for a face-down card whose face is unknown (hole card or burn, as in hand
    histories).
    """

    card: Card | None


@quick_init
@dataclass(frozen=True, slots=True)
class Act:
    """``seat`` acts. For BET / RAISE, ``to`` is the seat's total bet for the round."""

    seat: int
    kind: ActionKind
    to: int = 0


@dataclass(frozen=True, slots=True)
class Collect:
    """The dealer moved the bets into the pot(s)."""


@quick_init
@dataclass(frozen=True, slots=True)
class Show:
    """``seat`` tables its hand; ``cards`` empty = the hole cards dealt to it (if known)."""

    seat: int
    cards: tuple[Card, ...] = ()


@quick_init
@dataclass(frozen=True, slots=True)
class Muck:
    """``seat`` throws its hand away at the showdown (it forfeits every pot)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Push:
    """The dealer pushed pot ``pot_index`` to its winners."""

    pot_index: int


Input = Post | Deal | Act | Collect | Show | Muck | Push


# --------------------------------------------------------------------------------------------
# Records and snapshots


class Record(NamedTuple):
    """One applied input, as appended to ``hand.log`` (immutable; a named tuple for speed).

    :param seq: 0-based position in the log.
    :param step: the step the input satisfied.
    :param input: the input as given.
    :param street: the street when it was applied.
    :param seat: the seat concerned (None for dealer-only inputs).
    :param kind: for actions, the action as the rules read it (a BET facing a bet is a RAISE,
        an ALL_IN is a CALL, BET or RAISE).
    :param amount: chips the seat put in (posts, actions), or chips moved (collect, push).
    :param to: for actions, the seat's total bet for the round afterwards.
    """

    seq: int
    step: Step
    input: Input
    street: Street
    seat: int | None = None
    kind: ActionKind | None = None
    amount: int = 0
    to: int = 0
    all_in: bool = False


@dataclass(frozen=True, slots=True)
class HandStatus:
    """Frozen snapshot of a hand (see :meth:`table_controller.engine.Hand.status`)."""

    phase: Phase
    street: Street
    button: int
    seats: tuple[int, ...]
    board: tuple[Card | None, ...]
    burns: int
    starting_stacks: Mapping[int, int]
    stacks: Mapping[int, int]
    bets: Mapping[int, int]
    pots: tuple[PotView, ...]
    hole_cards: Mapping[int, tuple[Card | None, ...]]
    folded: frozenset[int]
    all_in: frozenset[int]
    shown: Mapping[int, tuple[Card, ...]]
    mucked: frozenset[int]
    to_act: int | None
    last_aggressor: int | None
    current_bet: int
    payouts: Mapping[int, int]
    rake: int
    expected: str
    extra: Mapping[str, Any] = field(default_factory=dict)
    tabled: bool = False
    """True once the hands are tabled (everyone all-in): ``Show`` is accepted before the
    showdown."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form (cards as text, unknown cards as ``None``)."""

        def cards(cs: tuple[Card | None, ...]) -> list[str | None]:
            return [None if c is None else c.code for c in cs]

        return {
            "phase": self.phase.value,
            "street": self.street.value,
            "button": self.button,
            "seats": list(self.seats),
            "board": cards(self.board),
            "burns": self.burns,
            "starting_stacks": {str(s): v for s, v in self.starting_stacks.items()},
            "stacks": {str(s): v for s, v in self.stacks.items()},
            "bets": {str(s): v for s, v in self.bets.items()},
            "pots": [p.to_dict() for p in self.pots],
            "hole_cards": {str(s): cards(c) for s, c in self.hole_cards.items()},
            "folded": sorted(self.folded),
            "all_in": sorted(self.all_in),
            "shown": {str(s): cards(c) for s, c in self.shown.items()},
            "mucked": sorted(self.mucked),
            "to_act": self.to_act,
            "last_aggressor": self.last_aggressor,
            "current_bet": self.current_bet,
            "payouts": {str(s): v for s, v in self.payouts.items()},
            "rake": self.rake,
            "expected": self.expected,
            "tabled": self.tabled,
            **dict(self.extra),
        }
