"""One hand of no-limit hold'em as a state machine driven by inputs.

Rules this module keeps:

1. Posts: antes, then the small blind left of the button (the button itself heads-up), the big
   blind left of it, the big-blind ante (after the big blind: the blind has priority), then missed
   blinds and new players' posts. A seat short of chips posts what it has and is all-in. Antes
   count as the seat's contribution; the big-blind ante and a dead small blind are dead money in
   the main pot.
2. Two hole cards each, one at a time, starting left of the button. One burn before the flop (three
   cards), the turn and the river; none before the showdown.
3. Preflop action starts left of the big blind; later rounds with the first seat still in left of
   the button. When all but one fold, that seat wins at once: no showdown, no more cards.
4. Bets stay in front of the seats until the round ends; then they are collected (uncalled bets
   returned). When at most one seat still in has chips, no more betting: the hands are tabled
   (``Show`` is accepted at once, even before the collect; ``Muck`` from the collect on) and the
   board is dealt out, unless all but one hand in every pot mucked (then the pots are pushed at
   once, like after folds).
5. Showdown in order (see :mod:`.showdown`); then each pot is pushed on its own, side pots first.
6. ``apply`` is transactional: an illegal input raises :class:`RuleError` and changes nothing.
   Every handler validates fully before it changes anything and runs on the state itself
   (``_VALIDATE_FIRST``); a handler not listed there would run on a copy that replaces the state
   only when every rule passed. ``check`` always works on a copy.
7. After every input, chips add up to the starting total (to the chip) and no card is known twice;
   otherwise :class:`ChipConservationError` / :class:`DuplicateCardError` is raised. Each new
   card (dealt, shown or put in by a correction) is checked against the mask of cards out; the
   full recount of cards runs at the end of the hand and after corrections; the recount of the
   pot against the contributions runs after every input that moves chips into or out of it.
   The chip recount (stacks + bets + pot + rake) runs from scratch after every input except an
   ``Act``, ``Deal``, ``Show`` or ``Muck`` that started no transition: an action moves chips only
   between its seat's stack and bet, so it checks in O(1) that the seat's stack + bet equal those
   of its :class:`LegalActions` (taken before it) and that the stack is not negative; deals,
   shows and mucks move no chips. Any round end, street, showdown or award is followed by the
   full recount.
8. The state machine is three tables keyed by :class:`Phase`: ``_EXPECTED`` (the step each phase
   waits for), ``_HANDLERS`` (the inputs each phase accepts; any other is refused with rule
   ``wrong-step``) and ``_AUTOMATIC`` (transitions that need no input).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from table_controller.engine.betting import BettingRound
from table_controller.engine.cards import Card
from table_controller.engine.describe import describe_step
from table_controller.engine.model import (
    Act,
    ActionKind,
    ActStep,
    AwardStep,
    BoardStep,
    BurnStep,
    Collect,
    CollectStep,
    Deal,
    DealHoleStep,
    HandConfig,
    HandOverStep,
    HandStatus,
    Input,
    Muck,
    Phase,
    Post,
    PostKind,
    PostStep,
    PotView,
    Push,
    Record,
    Show,
    ShowStep,
    Step,
    Street,
)
from table_controller.engine.pots import (
    build_pots,
    clockwise_from_button,
    rake_by_pot,
    rake_for,
    split,
    uncalled,
)
from table_controller.engine.showdown import showdown_order, side_pots_first, strengths, winners
from table_controller.errors import ChipConservationError, DuplicateCardError, RuleError

# Enum members as module constants: reading ``Phase.OVER`` costs about six times a global read
# on Python 3.11, and these are read on every input.
_POSTING, _DEALING, _BETTING, _COLLECTING, _BURNING = (
    Phase.POSTING, Phase.DEALING, Phase.BETTING, Phase.COLLECTING, Phase.BURNING)
_BOARD, _SHOWDOWN, _AWARDING, _OVER, _VOID = (
    Phase.BOARD, Phase.SHOWDOWN, Phase.AWARDING, Phase.OVER, Phase.VOID)
_PREFLOP, _FLOP, _TURN, _RIVER = Street.PREFLOP, Street.FLOP, Street.TURN, Street.RIVER
_FOLD = ActionKind.FOLD
_new = tuple.__new__
"""Builds a named tuple (``Record``) from a plain tuple: about half the cost of calling the class
(whose generated ``__new__`` fills in defaults and keywords in Python)."""

_LIVE_POSTS = frozenset({PostKind.SMALL_BLIND, PostKind.BIG_BLIND, PostKind.NEW_PLAYER,
                         PostKind.MISSED_BIG})
"""Posts that are part of the seat's bet; the others go straight into the pot."""
_DEAD_POSTS = frozenset({PostKind.DEAD_SMALL, PostKind.BB_ANTE})
"""Dead money: it belongs to the main pot, not to the seat's contribution (the big-blind ante
stands for every seat's ante, as in the PHH spec and pokerkit)."""


class DuplicateCard(RuleError, DuplicateCardError):
    """A card that is already on the table was dealt or shown again (nothing changed)."""


class HandConfigError(RuleError):
    """A :class:`HandConfig` that cannot start a hand."""


@dataclass(frozen=True, slots=True)
class CardCorrection:
    """A card already dealt, replaced (irregularity handling: misread, exposed card, burn redone).

    :param where: ``"hole"``, ``"burn"`` or ``"board"``.
    :param seat: the seat for a hole card, else None.
    :param index: hole card round (1 or 2), burn number (0 = before the flop), or board slot.
    :param old: the card recorded before.
    :param new: the card recorded now.
    :param seq: ``len(hand.log)`` when the correction was made.
    """

    where: str
    seat: int | None
    index: int
    old: Card | None
    new: Card | None
    seq: int


_DEAL_STEPS: dict[tuple[int, int], DealHoleStep] = {}


def _deal_step(seat: int, round: int) -> DealHoleStep:
    """Return the (immutable, shared) step for hole card ``round`` of ``seat``."""
    step = _DEAL_STEPS.get((seat, round))
    if step is None:
        step = _DEAL_STEPS[(seat, round)] = DealHoleStep(seat, round)
    return step


def _rotate_after(order: list[int], seat: int) -> tuple[int, ...]:
    """Rotate clockwise ``order`` so that it starts right after ``seat`` (seat may be absent)."""
    after = [s for s in order if s > seat]
    return tuple(after + [s for s in order if s <= seat])


def _left_of(seats: list[int], seat: int) -> int:
    """Return the first of ``seats`` (sorted) clockwise after ``seat`` (seat may be absent)."""
    for s in seats:
        if s > seat:
            return s
    return seats[0]


@dataclass(slots=True)
class _State:
    """Mutable state of a hand; copied for every input (see rule 6)."""

    phase: Phase
    street: Street
    stacks: dict[int, int]
    round: BettingRound
    contrib: dict[int, int]
    dead: int
    posts: list[PostStep]
    deal_i: int
    hole: dict[int, tuple[Card | None, ...]]
    board: list[Card | None]
    burns: list[Card | None]
    folded: set[int]
    to_act: int | None
    river_aggressor: int | None
    tabled: bool
    show_order: list[int]
    shown: dict[int, tuple[Card, ...]]
    mucked: set[int]
    awards: list[AwardStep]
    pushed: set[int]
    payouts: dict[int, int]
    rake: int
    middle: int
    flop_dealt: bool
    pots: tuple[PotView, ...] = ()
    """Pots as of the last round's end (folded seats out, mucked seats still in)."""
    pots_folds: int = -1
    """How many seats had folded when :attr:`pots` was cut (-1: never cut)."""
    live: frozenset[int] = frozenset()
    """Seats neither folded nor mucked (kept with every fold and muck)."""
    seen: int = 0
    """Bit mask of the known cards (bit ``card.index``), kept with every card added."""
    step: Step | None = None
    """The expected step, cached (a copy starts without it)."""

    def copy(self) -> _State:
        return _State(
            self.phase, self.street, dict(self.stacks), self.round.copy(), dict(self.contrib),
            self.dead, list(self.posts), self.deal_i,
            dict(self.hole), list(self.board), list(self.burns),
            set(self.folded), self.to_act, self.river_aggressor, self.tabled,
            list(self.show_order), dict(self.shown), set(self.mucked), list(self.awards),
            set(self.pushed), dict(self.payouts), self.rake, self.middle, self.flop_dealt,
            self.pots, self.pots_folds, self.live, self.seen,
        )


class Hand:
    """One hand: ``expected()`` tells the next step, ``apply()`` takes an input.

    >>> from table_controller.engine.model import HandConfig
    >>> hand = Hand(HandConfig(seats=(1, 2, 3), stacks={1: 1000, 2: 1000, 3: 1000}, button=1,
    ...                        small_blind=5, big_blind=10))
    >>> describe_step(hand.expected())
    'Seat 2 posts the small blind: 5'
    >>> _ = hand.apply(Post(2)); _ = hand.apply(Post(3))
    >>> hand.expected()
    DealHoleStep(seat=2, round=1)

    :raises HandConfigError: if the configuration cannot start a hand.
    """

    def __init__(self, config: HandConfig) -> None:
        self.config = config
        self.log: list[Record] = []
        self.corrections: list[CardCorrection] = []
        """Cards replaced after they were dealt (see :meth:`replace_hole_card`)."""
        seats = sorted(set(config.seats))
        if len(seats) != len(config.seats):
            raise HandConfigError("config", f"a seat is listed twice: {config.seats}")
        if len(seats) < 2:
            raise HandConfigError("config", "a hand needs at least two seats dealt in")
        for s in seats:
            if config.stacks.get(s, 0) <= 0:
                raise HandConfigError("config", f"seat {s} has no chips to play")
        if config.big_blind <= 0 or not 0 <= config.small_blind <= config.big_blind:
            raise HandConfigError(
                "config", f"blinds {config.small_blind}/{config.big_blind} are not valid")
        if config.ante < 0 or config.bb_ante < 0:
            raise HandConfigError("config", "antes cannot be negative")
        self.seats: tuple[int, ...] = tuple(seats)
        self.button = config.button
        self.sb_seat, self.bb_seat = self._blind_seats()
        self.starting_stacks: dict[int, int] = {s: config.stacks[s] for s in seats}
        self.total = sum(self.starting_stacks.values())
        clockwise = _rotate_after(seats, self.button)  # clockwise from the button
        self._postflop_order = clockwise
        steps = _DEAL_STEPS
        self._deal_steps = [steps.get((s, 1)) or _deal_step(s, 1) for s in clockwise]
        self._deal_steps += [steps.get((s, 2)) or _deal_step(s, 2) for s in clockwise]
        stacks = dict(self.starting_stacks)
        posts = self._posts(stacks)
        preflop = BettingRound(_rotate_after(seats, self.bb_seat), dict.fromkeys(seats, 0),
                               config.big_blind, config.big_blind)
        # positional (see _State's fields): faster than keywords on this path
        self._st = _State(
            _POSTING, _PREFLOP, dict(self.starting_stacks), preflop, dict.fromkeys(seats, 0), 0,
            posts, 0, dict.fromkeys(seats, ()), [], [], set(), None, None, False, [], {}, set(),
            [], set(), {}, 0, 0, False, (), -1, frozenset(seats))
        if not posts:
            _advance(self, self._st)

    # -- set-up ------------------------------------------------------------------------------

    def _blind_seats(self) -> tuple[int | None, int]:
        cfg = self.config
        seats = list(self.seats)
        for name, seat in (("sb_seat", cfg.sb_seat), ("bb_seat", cfg.bb_seat)):
            if seat is not None and seat not in seats:
                raise HandConfigError("config", f"{name} {seat} is not dealt in")
        if cfg.no_small_blind:
            sb = None
        elif cfg.sb_seat is not None:
            sb = cfg.sb_seat
        elif len(seats) == 2 and cfg.button in seats:
            sb = cfg.button
        else:
            sb = _left_of(seats, cfg.button)
        if cfg.bb_seat is not None:
            bb = cfg.bb_seat
        else:
            bb = _left_of(seats, sb if sb is not None else cfg.button)
        if sb == bb:
            raise HandConfigError("config", f"seat {bb} cannot post both blinds")
        return sb, bb

    def _posts(self, stacks: dict[int, int]) -> list[PostStep]:
        cfg = self.config
        wanted: list[tuple[int, PostKind, int]] = []
        if cfg.ante:
            ante = (PostKind.ANTE, cfg.ante)
            wanted += [(s, *ante) for s in self._postflop_order]  # clockwise from the button
        if self.sb_seat is not None and cfg.small_blind:
            wanted.append((self.sb_seat, PostKind.SMALL_BLIND, cfg.small_blind))
        if cfg.bb_ante and cfg.bb_ante_first:  # TDA 2019 rule 2: the ante has priority
            wanted.append((self.bb_seat, PostKind.BB_ANTE, cfg.bb_ante))
        wanted.append((self.bb_seat, PostKind.BIG_BLIND, cfg.big_blind))
        if cfg.bb_ante and not cfg.bb_ante_first:  # TDA 2024 rule 2: the blind has priority
            wanted.append((self.bb_seat, PostKind.BB_ANTE, cfg.bb_ante))
        for extra in cfg.extra_posts:
            if extra.seat not in self.seats:
                raise HandConfigError("config", f"extra post for seat {extra.seat}, not dealt in")
            if extra.kind not in (PostKind.DEAD_SMALL, PostKind.NEW_PLAYER, PostKind.MISSED_BIG):
                raise HandConfigError("config", f"{extra.kind.value} is not an extra post")
            if extra.amount <= 0:
                raise HandConfigError("config", f"extra post of {extra.amount} chips")
            wanted.append((extra.seat, extra.kind, extra.amount))
        out = []
        for seat, kind, amount in wanted:
            stack = stacks[seat]
            if amount > stack:
                amount = stack
            if amount:
                stacks[seat] = stack - amount
                out.append(PostStep(seat, kind, amount))
        return out

    # -- queries -----------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """Return the phase of the hand's state machine."""
        return self._st.phase

    @property
    def street(self) -> Street:
        """Return the current street."""
        return self._st.street

    @property
    def is_over(self) -> bool:
        """Tell whether the hand is finished (or voided)."""
        return self._st.phase in (_OVER, _VOID)

    @property
    def final_stacks(self) -> dict[int, int]:
        """Return the chips of each dealt seat now (the final stacks once the hand is over)."""
        return dict(self._st.stacks)

    @property
    def rake(self) -> int:
        """Return the rake taken so far."""
        return self._st.rake

    @property
    def board(self) -> tuple[Card | None, ...]:
        """Return the board cards dealt so far (cheaper than :meth:`status`)."""
        return tuple(self._st.board)

    def expected(self) -> Step:
        """Return the next physical step the table waits for."""
        st = self._st
        if st.step is None:
            st.step = _expected(self, st)
        return st.step

    def check(self, inp: Input) -> RuleError | None:
        """Return the error ``apply(inp)`` would raise, or None; changes nothing."""
        try:
            self._run(inp)
        except RuleError as err:
            return err
        return None

    def trial(self, inp: Input) -> Record:
        """Return the record ``apply(inp)`` would return, without changing anything.

        :raises RuleError: the input is illegal.
        """
        return self._run(inp)[1]

    def apply(self, inp: Input) -> Record:
        """Apply one input and return its record (also appended to :attr:`log`).

        :raises RuleError: the input is illegal; nothing changed.
        :raises ChipConservationError: chips no longer add up (a bug: the table must hold).
        :raises DuplicateCardError: a card was dealt or shown twice (as a :class:`DuplicateCard`,
            which is also a :class:`RuleError`; nothing changed).
        """
        st = self._st
        kind = type(inp)
        handler = _FAST_HANDLERS[st.phase].get(kind)
        if handler is None:
            new, record = self._run(inp, commit=True)  # the general path
            self._st = new
            self.log.append(record)
            return record
        # The fast path (the steps of _run and _settle, inlined): the handler validates before
        # it changes anything, so it runs on the state itself.
        step = st.step
        if step is None:
            step = _EXPECTED[st.phase](self, st)
        st.step = None
        phase = st.phase
        record = handler(self, st, inp, step)
        # the automatic transitions; the two commonest "nothing to do" cases tested inline
        now = st.phase
        if not ((now is _BETTING and st.to_act is not None)
                or (now is _DEALING and st.deal_i < len(self._deal_steps))):
            auto = _AUTOMATIC.get(now)
            while auto is not None and auto(self, st):
                auto = _AUTOMATIC.get(st.phase)
        if st.phase is phase and kind in _SELF_CHECKED_INPUTS:
            pass  # only the handler ran: it moved no chips (Deal, Show, Muck) or checked them (Act)
        elif kind in _LIGHT_INPUTS and st.phase is not _OVER:
            stacks = st.stacks.values()
            if (sum(stacks) + sum(st.round.bets.values()) + st.middle + st.rake != self.total
                    or min(stacks) < 0):  # the chip check, kept cheap
                _check_integrity(self, st, cards=False, pots=False)  # raises with the details
        else:
            _check_integrity(self, st, cards=st.phase is _OVER)
        self.log.append(record)
        return record

    def _run(self, inp: Input, commit: bool = False) -> tuple[_State, Record]:
        st = self._st
        kind = type(inp)
        handler = _HANDLERS[st.phase].get(kind)
        if handler is None:
            if kind in _SHOW_INPUTS and _show_allowed(self, st, kind):
                handler = _on_show if kind is Show else _on_muck
            else:
                raise RuleError("wrong-step", f"{_input_words(inp)} does not fit now; expected: "
                                f"{describe_step(self.expected())}")
        step = st.step
        if step is None:
            step = st.step = _expected(self, st)
        if commit and handler in _VALIDATE_FIRST:
            new = st  # the handler raises before it changes anything
            new.step = None
        else:
            new = st.copy()
        record = handler(self, new, inp, step)
        _settle(self, new, kind)
        return new, record

    def pots(self) -> tuple[PotView, ...]:
        """Return the pots in the middle now (bets in front of the seats not included).

        While pots are pushed, the pushed ones are left out; the others keep their order.
        """
        st = self._st
        if st.phase in (_OVER, _VOID):
            return ()
        if st.phase is _AWARDING:
            return tuple(PotView(a.amount, tuple(a.payouts)) for a in st.awards
                         if a.pot_index not in st.pushed)
        return build_pots(st.contrib, _live(self, st), _all_in(self, st), st.dead)

    def hidden_hole_cards(self) -> list[Card]:
        """Return the hole cards dealt and not shown (as :meth:`status` would give them).

        Asked before every feed message (the hole-card guard): cheaper than a whole status.
        """
        st = self._st
        shown = st.shown
        return [c for seat, cards in st.hole.items() if seat not in shown
                for c in cards if c is not None]

    def status(self) -> HandStatus:
        """Return a frozen snapshot of the hand."""
        st = self._st
        live = _live(self, st)
        return HandStatus(
            phase=st.phase,
            street=st.street,
            button=self.button,
            seats=self.seats,
            board=tuple(st.board),
            burns=len(st.burns),
            starting_stacks=MappingProxyType(dict(self.starting_stacks)),
            stacks=MappingProxyType(dict(st.stacks)),
            bets=MappingProxyType({s: b for s, b in st.round.bets.items() if b}),
            pots=self.pots(),
            hole_cards=MappingProxyType(dict(st.hole)),
            folded=frozenset(st.folded),
            all_in=frozenset(s for s in live if st.stacks[s] == 0),
            shown=MappingProxyType(dict(st.shown)),
            mucked=frozenset(st.mucked),
            to_act=st.to_act if st.phase is _BETTING else None,
            last_aggressor=st.round.last_aggressor,
            current_bet=st.round.current_bet,
            payouts=MappingProxyType(dict(st.payouts)),
            rake=st.rake,
            expected=describe_step(self.expected()),
            tabled=st.tabled or _show_allowed(self, st, Show),
        )

    @classmethod
    def replay(cls, config: HandConfig, inputs: Iterable[Input],
               corrections: Iterable[CardCorrection] = ()) -> Hand:
        """Rebuild a hand from its inputs (``[r.input for r in hand.log]``) and corrections.

        Each correction is made again when the log reaches its ``seq`` (as it was first made).

        :raises RuleError: an input or a correction does not apply.
        """
        hand = cls(config)
        pending = sorted(corrections, key=lambda c: c.seq)
        i = 0
        for inp in inputs:
            while i < len(pending) and pending[i].seq <= len(hand.log):
                hand._redo(pending[i])
                i += 1
            hand.apply(inp)
        for correction in pending[i:]:
            hand._redo(correction)
        return hand

    def _redo(self, c: CardCorrection) -> None:
        if c.where == "hole" and c.seat is not None:
            self.replace_hole_card(c.seat, c.index, c.new)
        elif c.where == "burn":
            self.replace_burn(c.index, c.new)
        elif c.where == "board" and c.new is not None:
            self.replace_board_card(c.index, c.new)
        else:
            raise RuleError("bad-correction", f"cannot redo {c}")

    # -- irregularities ----------------------------------------------------------------------

    def replace_hole_card(self, seat: int, round: int, card: Card | None) -> CardCorrection:
        """Replace hole card ``round`` (1 or 2) of ``seat``, already dealt.

        :raises RuleError: no such card dealt yet, the seat showed already, the hand is over, or
            the new card is already out (``DuplicateCard``).
        """
        st = self._st
        if seat not in st.hole or not 1 <= round <= len(st.hole[seat]):
            raise RuleError("no-such-card", f"seat {seat} has no hole card {round} yet")
        if seat in st.shown:
            raise RuleError("already-shown", f"seat {seat} already showed its hand")
        new = self._correctable()
        old = st.hole[seat][round - 1]
        _swap_card(new, old, card)
        hole = list(new.hole[seat])
        hole[round - 1] = card
        new.hole[seat] = tuple(hole)
        return self._commit_correction(new, CardCorrection("hole", seat, round, old, card,
                                                           len(self.log)))

    def replace_burn(self, number: int, card: Card | None) -> CardCorrection:
        """Replace burn ``number`` (0 before the flop, 1 before the turn, 2 before the river).

        :raises RuleError: that burn is not done yet, the hand is over, or the card is out.
        """
        st = self._st
        if not 0 <= number < len(st.burns):
            raise RuleError("no-such-card", f"burn {number} has not been done")
        new = self._correctable()
        old = st.burns[number]
        _swap_card(new, old, card)
        new.burns[number] = card
        return self._commit_correction(new, CardCorrection("burn", None, number, old, card,
                                                           len(self.log)))

    def replace_board_card(self, slot: int, card: Card) -> CardCorrection:
        """Replace board card ``slot`` (0..4), already dealt (for example a misread).

        :raises RuleError: that slot is not dealt yet, the hand is over, or the card is out.
        """
        st = self._st
        if not 0 <= slot < len(st.board):
            raise RuleError("no-such-card", f"board card {slot} has not been dealt")
        new = self._correctable()
        old = st.board[slot]
        _swap_card(new, old, card)
        new.board[slot] = card
        return self._commit_correction(new, CardCorrection("board", None, slot, old, card,
                                                           len(self.log)))

    def _correctable(self) -> _State:
        if self._st.phase in (_OVER, _VOID, _AWARDING):
            raise RuleError("hand-over", "the hand is decided: its cards cannot change")
        new = self._st.copy()
        return new

    def _commit_correction(self, new: _State, correction: CardCorrection) -> CardCorrection:
        _check_integrity(self, new)
        self._st = new
        self.corrections.append(correction)
        return correction


    def refunds(self) -> dict[int, int]:
        """Return what :meth:`void` would give back to each seat, without changing anything.

        :raises RuleError: the hand is already over (its pots were pushed).
        """
        st = self._st
        if st.phase in (_OVER, _VOID):
            raise RuleError("void-finished", "the hand is already over and cannot be voided")
        return {s: self.starting_stacks[s] - st.stacks[s] for s in self.seats
                if self.starting_stacks[s] != st.stacks[s]}

    def void(self) -> dict[int, int]:
        """Void the hand (misdeal): every seat gets its starting stack back, rake included.

        :return: chips given back to each seat (seats with nothing to give back left out; a
            negative amount is taken back from a seat already paid from a pushed pot).
        :raises RuleError: the hand is already over (its pots were pushed).
        """
        st = self._st
        refunds = self.refunds()
        new = st.copy()
        new.stacks = dict(self.starting_stacks)
        new.round = BettingRound(new.round.order, {s: 0 for s in self.seats}, 0, 0)
        new.contrib = {s: 0 for s in self.seats}
        new.dead = 0
        new.middle = 0
        new.rake = 0
        new.posts = []
        new.awards, new.pushed, new.payouts = [], set(), {}
        new.phase = _VOID
        _check_integrity(self, new)
        self._st = new
        return refunds


# -- helpers on the state ------------------------------------------------------------------------


def _live(hand: Hand, st: _State) -> frozenset[int]:
    return st.live


def _all_in(hand: Hand, st: _State) -> frozenset[int]:
    return frozenset(s for s in hand.seats if st.stacks[s] == 0)


def _show_allowed(hand: Hand, st: _State, kind: type) -> bool:
    """Tell whether hands may be tabled now, before the showdown (everyone all-in)."""
    if st.phase is _COLLECTING:  # the last bets are still in front: Show only (pots not cut)
        return kind is Show and hand.config.table_all_ins and len(st.live) >= 2 and len(
            [s for s in st.live if st.stacks[s] > 0]) < 2
    return st.tabled and (st.phase is _BURNING or st.phase is _BOARD)


def _input_words(inp: Input) -> str:
    name = type(inp).__name__
    seat = getattr(inp, "seat", None)
    return f"{name} for seat {seat}" if seat is not None else name


_BURN_STEPS: dict[Street, BurnStep] = {s: BurnStep(s) for s in (_FLOP, _TURN, _RIVER)}
_BOARD_STEPS: list[BoardStep] = [BoardStep(street, slot) for street in (_FLOP, _TURN, _RIVER)
                                 for slot in street.board_slots]


def _expected(hand: Hand, st: _State) -> Step:
    return _EXPECTED[st.phase](hand, st)


def _expect_act(hand: Hand, st: _State) -> Step:
    seat = st.to_act
    assert seat is not None
    return ActStep(seat, st.round.legal(seat, st.stacks, st.live))


def _expect_collect(hand: Hand, st: _State) -> Step:
    # the contributions after the collect (uncalled bet returned) and the seats all-in
    bets = st.round.bets
    back = uncalled(bets)
    contrib = dict(st.contrib)
    for seat, bet in bets.items():
        if bet:
            contrib[seat] += bet
    returned = {}
    if back:
        contrib[back[0]] -= back[1]
        returned[back[0]] = back[1]
    stacks = st.stacks
    all_in = frozenset([s for s in hand.seats if stacks[s] == 0])
    return CollectStep(build_pots(contrib, st.live, all_in, st.dead), MappingProxyType(returned))


def _expect_show(hand: Hand, st: _State) -> Step:
    seat = _next_shower(hand, st)
    assert seat is not None
    return ShowStep(seat)


def _expect_push(hand: Hand, st: _State) -> Step:
    pushed = st.pushed
    for award in reversed(st.awards):
        if award.pot_index not in pushed:
            return award
    raise AssertionError("no pot waiting")


def _expect_over(hand: Hand, st: _State) -> Step:
    return HandOverStep(MappingProxyType(dict(st.stacks)))


_EXPECTED: dict[Phase, Callable[[Hand, _State], Step]] = {
    Phase.POSTING: lambda hand, st: st.posts[0],
    Phase.DEALING: lambda hand, st: hand._deal_steps[st.deal_i],
    Phase.BETTING: _expect_act,
    Phase.COLLECTING: _expect_collect,
    Phase.BURNING: lambda hand, st: _BURN_STEPS[st.street],
    Phase.BOARD: lambda hand, st: _BOARD_STEPS[len(st.board)],
    Phase.SHOWDOWN: _expect_show,
    Phase.AWARDING: _expect_push,
    Phase.OVER: _expect_over,
    Phase.VOID: _expect_over,
}
"""The step each phase waits for."""


def _seen_cards(st: _State) -> list[Card]:
    cards: list[Card | None] = [*st.board, *st.burns]
    for seat, hole in st.hole.items():
        if seat in st.shown and (len(hole) < 2 or hole[0] is None or hole[1] is None):
            cards.extend(st.shown[seat])
        else:
            cards.extend(hole)
    return [c for c in cards if c is not None]


def _check_new_card(st: _State, card: Card | None) -> None:
    """Refuse a card already out; otherwise mark it seen."""
    if card is None:
        return
    bit = 1 << (card.rank * 4 + card.suit)
    if st.seen & bit:
        raise DuplicateCard("duplicate-card", f"the {card.describe()} ({card}) is already out")
    st.seen |= bit


def _swap_card(st: _State, old: Card | None, card: Card | None) -> None:
    """Take ``old`` out of the cards seen and put ``card`` in (refused if already out)."""
    if old is not None:
        st.seen &= ~(1 << (old.rank * 4 + old.suit))
    _check_new_card(st, card)


def _check_integrity(hand: Hand, st: _State, cards: bool = True, pots: bool = True) -> None:
    """Check chip conservation and card uniqueness from scratch.

    Chips: stacks + bets + pot + rake equal the starting chips (always); with ``pots``, the pot
    also equals the contributions collected plus dead money, less what was pushed. Cards: with
    ``cards``, every known card is known once and matches the running mask of cards out.
    """
    stacks = st.stacks.values()
    bets = sum(st.round.bets.values())
    total = sum(stacks) + bets + st.middle + st.rake
    pushed = sum(sum(a.payouts.values()) + a.rake for a in st.awards
                 if a.pot_index in st.pushed) if pots and st.pushed else 0
    if total != hand.total or min(stacks) < 0 or (
            pots and st.phase is not _VOID
            and st.middle != sum(st.contrib.values()) + st.dead - pushed):
        raise ChipConservationError(
            f"chips do not add up: stacks {sum(stacks)} + bets {bets} + "
            f"pot {st.middle} + rake {st.rake} = {total}, started with {hand.total}")
    if cards:
        seen = _seen_cards(st)
        mask = 0
        for c in seen:
            mask |= 1 << (c.rank * 4 + c.suit)
        if mask.bit_count() != len(seen) or mask != st.seen:
            dupes = sorted({c.code for c in seen if seen.count(c) > 1})
            raise DuplicateCardError(f"cards known twice: {', '.join(dupes)}")


# -- handlers: one per (phase, input) pair -------------------------------------------------------


def _on_post(hand: Hand, st: _State, inp: Input, step: Step) -> Record:
    assert isinstance(inp, Post)
    for i, post in enumerate(st.posts):  # noqa: B007 - i is used after the loop
        if post.seat == inp.seat and (inp.kind is None or inp.kind is post.kind):
            break
    else:
        what = "" if inp.kind is None else f" {inp.kind.value}"
        raise RuleError("no-such-post", f"seat {inp.seat} owes no{what} post now; expected: "
                        f"{describe_step(step)}")
    del st.posts[i]
    st.stacks[post.seat] -= post.amount
    if post.kind in _LIVE_POSTS:
        st.round.bets[post.seat] += post.amount
    elif post.kind in _DEAD_POSTS:
        st.dead += post.amount
        st.middle += post.amount
    else:
        st.contrib[post.seat] += post.amount
        st.middle += post.amount
    return _new(Record, (len(hand.log), post, inp, st.street, post.seat, None, post.amount, 0,
                         st.stacks[post.seat] == 0))


def _deal_card(st: _State, inp: Input, what: str, allow_unknown: bool) -> Card | None:
    assert isinstance(inp, Deal)
    if inp.card is None and not allow_unknown:
        raise RuleError("unknown-card", f"{what} is dealt face up: its card must be known")
    _check_new_card(st, inp.card)
    return inp.card


def _on_deal_hole(hand: Hand, st: _State, inp: Input, step: Step) -> Record:
    assert isinstance(step, DealHoleStep) and isinstance(inp, Deal)
    card = inp.card
    if card is not None:  # _check_new_card, inlined
        bit = 1 << (card.rank * 4 + card.suit)
        if st.seen & bit:
            raise DuplicateCard("duplicate-card",
                                f"the {card.describe()} ({card}) is already out")
        st.seen |= bit
    st.hole[step.seat] = (*st.hole[step.seat], card)
    st.deal_i += 1
    return _new(Record, (len(hand.log), step, inp, st.street, step.seat, None, 0, 0, False))


def _on_burn(hand: Hand, st: _State, inp: Input, step: Step) -> Record:
    card = _deal_card(st, inp, "a burn", allow_unknown=True)
    st.burns.append(card)
    st.phase = _BOARD
    return _new(Record, (len(hand.log), step, inp, st.street, None, None, 0, 0, False))


def _on_board(hand: Hand, st: _State, inp: Input, step: Step) -> Record:
    card = _deal_card(st, inp, "a board card", allow_unknown=False)
    st.board.append(card)
    if st.street is _FLOP:
        st.flop_dealt = True
    if len(st.board) >= 3:  # the flop's third card, the turn, the river
        _start_round(hand, st)
    return _new(Record, (len(hand.log), step, inp, st.street, None, None, 0, 0, False))


def _on_act(hand: Hand, st: _State, inp: Input, step: Step) -> Record:
    assert isinstance(inp, Act) and isinstance(step, ActStep)
    seat = inp.seat
    if seat != step.seat:
        if seat not in hand.seats:
            raise RuleError("unknown-seat", f"seat {seat} is not in this hand")
        raise RuleError("out-of-turn", f"seat {seat} acted out of turn: it is seat "
                        f"{step.seat}'s turn")
    rnd = st.round
    kind, to = rnd.resolve(step.legal, inp.kind, inp.to)
    stacks = st.stacks
    added = 0
    if kind is _FOLD:
        st.folded.add(seat)
        st.live = st.live - {seat}
    else:
        added = rnd.act(seat, kind, to)
        stacks[seat] -= added
    street = st.street
    if street is _RIVER:
        st.river_aggressor = rnd.last_aggressor
    legal = step.legal
    if stacks[seat] < 0 or stacks[seat] + rnd.bets[seat] != legal.stack + legal.bet:
        raise ChipConservationError(
            f"chips do not add up: seat {seat} had {legal.stack} + bet {legal.bet}, now "
            f"{stacks[seat]} + bet {rnd.bets[seat]}")
    st.to_act = rnd.next_to_act(seat, stacks, st.live)
    return _new(Record, (len(hand.log), step, inp, street, seat, kind, added, rnd.bets[seat],
                         stacks[seat] == 0))


def _on_collect(hand: Hand, st: _State, inp: Input, step: Step) -> Record:
    assert isinstance(step, CollectStep)
    moved = _collect(hand, st, step.returned)
    _after_round(hand, st, step.into_pots)
    return _new(Record, (len(hand.log), step, inp, st.street, None, None, moved, 0, False))


def _on_show(hand: Hand, st: _State, inp: Input, step: Step) -> Record:
    assert isinstance(inp, Show)
    seat = inp.seat
    _check_contender(hand, st, seat)
    hole = st.hole[seat]
    if not inp.cards:
        if len(hole) != 2 or hole[0] is None or hole[1] is None:
            raise RuleError("show-unknown", f"seat {seat}'s hole cards are not known: name them")
        cards: tuple[Card, ...] = (hole[0], hole[1])
    else:
        cards = inp.cards
        if len(cards) != 2 or cards[0] == cards[1]:
            raise RuleError("show-in-full", f"seat {seat} must show both of its hole cards")
        known = [c for c in hole if c is not None]
        if any(c not in cards for c in known):
            raise RuleError("show-mismatch", f"seat {seat} was dealt "
                            f"{' '.join(c.code for c in known)}, not "
                            f"{' '.join(c.code for c in cards)}")
        fresh = [c for c in cards if c not in known]
        for c in fresh:
            if st.seen & (1 << (c.rank * 4 + c.suit)):
                raise DuplicateCard("duplicate-card",
                                    f"the {c.describe()} ({c}) is already out")
        for c in fresh:
            _check_new_card(st, c)
    st.shown[seat] = cards
    if not (isinstance(step, ShowStep) and step.seat == seat):
        step = ShowStep(seat)
    return _new(Record, (len(hand.log), step, inp, st.street, seat, None, 0, 0, False))


def _on_muck(hand: Hand, st: _State, inp: Input, step: Step) -> Record:
    assert isinstance(inp, Muck)
    seat = inp.seat
    _check_contender(hand, st, seat)
    if _sole_contender(hand, st, seat):
        raise RuleError("sole-contender", f"seat {seat} is the last hand in for a pot: it wins "
                        "without showing and cannot muck")
    st.mucked.add(seat)
    st.live = st.live - {seat}
    if st.phase is not _SHOWDOWN and all(
            sum(1 for s in pot.eligible if s not in st.mucked) <= 1 for pot in st.pots):
        _make_awards(hand, st)  # hands tabled, all but one mucked: no more cards, as after folds
    return _new(Record, (len(hand.log), ShowStep(seat), inp, st.street, seat, None, 0, 0, False))


def _on_push(hand: Hand, st: _State, inp: Input, step: Step) -> Record:
    assert isinstance(inp, Push)
    index, awards = inp.pot_index, st.awards
    if type(index) is int and 0 <= index < len(awards):  # awards[i] is pot i
        award: AwardStep | None = awards[index]
    else:
        award = next((a for a in awards if a.pot_index == index), None)
    if award is None or index in st.pushed:
        pending = sorted(a.pot_index for a in st.awards if a.pot_index not in st.pushed)
        raise RuleError("no-such-pot", f"pot {inp.pot_index} is not waiting to be pushed "
                        f"(waiting: {pending})")
    st.pushed.add(inp.pot_index)
    for seat, amount in award.payouts.items():
        st.stacks[seat] += amount
        st.payouts[seat] = st.payouts.get(seat, 0) + amount
    st.rake += award.rake
    st.middle -= award.amount
    return _new(Record, (len(hand.log), award, inp, st.street, None, None, award.amount, 0,
                         False))


_Handler = Callable[[Hand, _State, Input, Step], Record]

_HANDLERS: dict[Phase, dict[type, _Handler]] = {
    _POSTING: {Post: _on_post},
    _DEALING: {Deal: _on_deal_hole},
    _BETTING: {Act: _on_act},
    _COLLECTING: {Collect: _on_collect},
    _BURNING: {Deal: _on_burn},
    _BOARD: {Deal: _on_board},
    _SHOWDOWN: {Show: _on_show, Muck: _on_muck},
    _AWARDING: {Push: _on_push},
    _OVER: {},
    _VOID: {},
}
"""The transition table: which input each phase accepts (``Show`` also while hands are tabled)."""

_SHOW_INPUTS = frozenset({Show, Muck})
_SELF_CHECKED_INPUTS = frozenset({Act, Deal, Show, Muck})
"""Inputs whose handler moves no chips (``Deal``, ``Show``, ``Muck``) or checks in O(1) the only
chips it moves (``Act``): when no transition follows, the chip recount is not needed (rule 7)."""
_LIGHT_INPUTS = frozenset({Act, Deal})
"""Inputs after which the pot recount is skipped (they move no chips into or out of the pot), and
the whole chip recount when no transition followed (see rule 7)."""

_VALIDATE_FIRST = frozenset({_on_post, _on_deal_hole, _on_burn, _on_board, _on_act, _on_collect,
                             _on_show, _on_muck, _on_push})
"""Handlers that check everything before they change anything: ``apply`` runs them on the state
itself instead of a copy (the property tests check that a refused input changed nothing)."""

_FAST_HANDLERS: dict[Phase, dict[type, _Handler]] = {
    phase: {k: h for k, h in handlers.items() if h in _VALIDATE_FIRST}
    for phase, handlers in _HANDLERS.items()}
"""``_HANDLERS`` less any handler that would need a copy: ``apply`` runs these in place."""


# -- automatic transitions -----------------------------------------------------------------------


def _start_round(hand: Hand, st: _State) -> None:
    """Start betting on the current street (after its board cards, or after the hole cards)."""
    if st.street is not _PREFLOP:
        st.round = BettingRound(hand._postflop_order, dict.fromkeys(hand.seats, 0), 0,
                                hand.config.big_blind)
    st.phase = _BETTING
    st.to_act = st.round.next_to_act(None, st.stacks, st.live)


def _collect(hand: Hand, st: _State, returned: Mapping[int, int]) -> int:
    """Move the bets into the pot, less ``returned`` (the uncalled bets, from the CollectStep)."""
    stacks, contrib = st.stacks, st.contrib
    moved = 0
    for seat, bet in st.round.bets.items():
        if bet:
            back = returned.get(seat, 0)
            if back:
                stacks[seat] += back
                bet -= back
            contrib[seat] += bet
            moved += bet
    st.middle += moved
    st.round.bets = dict.fromkeys(hand.seats, 0)
    return moved


def _after_round(hand: Hand, st: _State, pots: tuple[PotView, ...] | None = None) -> None:
    """Move on once the bets are in: award at once, next street, or the showdown."""
    live = _live(hand, st)
    if pots is None:  # no collect (no bets this round): only folds may have changed the pots
        if st.pots_folds == len(st.folded):
            pots = st.pots
        else:
            in_hand = frozenset(s for s in hand.seats if s not in st.folded)
            pots = build_pots(st.contrib, in_hand, _all_in(hand, st), st.dead)
    st.pots = pots
    st.pots_folds = len(st.folded)
    if len(live) == 1:
        _make_awards(hand, st)
        return
    if not st.tabled and hand.config.table_all_ins \
            and len([s for s in live if st.stacks[s] > 0]) < 2:
        st.tabled = True
        st.show_order = clockwise_from_button(live, hand.button)
    if st.street is _RIVER:
        _start_showdown(hand, st)
        return
    st.street = st.street.next
    st.phase = _BURNING


def _start_showdown(hand: Hand, st: _State) -> None:
    live = _live(hand, st)
    if not st.tabled:
        st.show_order = showdown_order(live, hand.button, st.river_aggressor)
    if len(st.pots) > 1:  # Robert's Rules of Poker v11, Showdown 7: side pots show first
        st.show_order = side_pots_first(st.show_order, st.pots)
    st.phase = _SHOWDOWN
    if _next_shower(hand, st) is None:
        _make_awards(hand, st)


def _check_contender(hand: Hand, st: _State, seat: int) -> None:
    if seat not in hand.seats:
        raise RuleError("unknown-seat", f"seat {seat} is not in this hand")
    if seat in st.folded:
        raise RuleError("folded", f"seat {seat} folded: it has no hand to show")
    if seat in st.shown or seat in st.mucked:
        raise RuleError("already-shown", f"seat {seat} already showed or mucked")


def _contenders_by_pot(hand: Hand, st: _State, seat: int) -> list[list[int]]:
    """For each pot ``seat`` can win: the seats still contending for it (not mucked)."""
    return [[s for s in pot.eligible if s not in st.mucked]
            for pot in st.pots if seat in pot.eligible]


def _sole_contender(hand: Hand, st: _State, seat: int) -> bool:
    """Tell whether ``seat`` is the only hand left in some pot it can win."""
    return any(c == [seat] for c in _contenders_by_pot(hand, st, seat))


def _next_shower(hand: Hand, st: _State) -> int | None:
    """Return the next seat that must show: one still contested by another hand in some pot."""
    shown, mucked, pots = st.shown, st.mucked, st.pots
    for seat in st.show_order:
        if seat in shown or seat in mucked:
            continue
        for pot in pots:
            if seat in pot.eligible:
                for s in pot.eligible:
                    if s != seat and s not in mucked:
                        return seat  # another hand still contends for this pot
    return None


def _make_awards(hand: Hand, st: _State) -> None:
    pots = st.pots
    rake = rake_for(sum(p.amount for p in pots), hand.config.rake, st.flop_dealt)
    rakes = rake_by_pot((p.amount for p in pots), rake)
    board = [c for c in st.board if c is not None]
    values = strengths({seat: cards for seat, cards in st.shown.items()
                        if seat not in st.folded and seat not in st.mucked}, board)
    awards = []
    for i, (pot, pot_rake) in enumerate(zip(pots, rakes, strict=True)):
        contenders = [s for s in pot.eligible if s not in st.mucked]
        won = winners(contenders, values) if len(contenders) > 1 else contenders
        if not won:
            raise RuleError("no-winner", f"pot {i} has no hand left to win it")
        payouts, odd = split(pot.amount - pot_rake, won, hand.button)
        awards.append(AwardStep(i, pot.amount, MappingProxyType(payouts), odd, pot_rake))
    st.awards = awards
    st.phase = _AWARDING


def _auto_posting(hand: Hand, st: _State) -> bool:
    if st.posts:
        return False
    st.phase = _DEALING
    return True


def _auto_dealing(hand: Hand, st: _State) -> bool:
    if st.deal_i < len(hand._deal_steps):
        return False
    _start_round(hand, st)
    return True


def _auto_betting(hand: Hand, st: _State) -> bool:
    if st.to_act is not None:
        return False
    if any(st.round.bets.values()):
        st.phase = _COLLECTING
    else:
        _after_round(hand, st)
    return True


def _auto_showdown(hand: Hand, st: _State) -> bool:
    seat = _next_shower(hand, st)
    if seat is not None:
        st.step = ShowStep(seat)  # the expected step, found here already
        return False
    _make_awards(hand, st)
    return True


def _auto_awarding(hand: Hand, st: _State) -> bool:
    if len(st.pushed) < len(st.awards):
        return False
    st.phase = _OVER
    return True


_AUTOMATIC: dict[Phase, Callable[[Hand, _State], bool]] = {
    Phase.POSTING: _auto_posting,
    Phase.DEALING: _auto_dealing,
    Phase.BETTING: _auto_betting,
    Phase.SHOWDOWN: _auto_showdown,
    Phase.AWARDING: _auto_awarding,
}
"""Transitions that need no input: each returns True when it moved the hand on."""


def _settle(hand: Hand, st: _State, kind: type) -> None:
    """After an input: run the automatic transitions, then check the chips (and cards).

    :raises ChipConservationError: chips do not add up.
    :raises DuplicateCardError: a card is known twice (full recount at the end of the hand).
    """
    auto = _AUTOMATIC.get(st.phase)
    while auto is not None and auto(hand, st):
        auto = _AUTOMATIC.get(st.phase)
    if st.phase is _OVER or kind not in _LIGHT_INPUTS:
        _check_integrity(hand, st, cards=st.phase is _OVER)
    elif (sum(st.stacks.values()) + sum(st.round.bets.values()) + st.middle + st.rake
          != hand.total or min(st.stacks.values()) < 0):  # the chip check, kept cheap
        _check_integrity(hand, st, cards=False, pots=False)  # raises with the details


def _advance(hand: Hand, st: _State) -> None:
    """Run the transitions that need no input, until the hand waits for one."""
    while (auto := _AUTOMATIC.get(st.phase)) is not None and auto(hand, st):
        pass
