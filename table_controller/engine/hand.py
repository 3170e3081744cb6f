"""One hand of no-limit hold'em as a state machine driven by inputs.

Rules this module keeps:

1. Posts: antes, then the small blind left of the button (the button itself heads-up), the big
   blind left of it, the big-blind ante (after the big blind: the blind has priority), the
   straddle (rule 1a), then missed blinds and new players' posts. A seat short of chips posts
   what it has and is all-in. Antes count as the seat's contribution; the big-blind ante and a
   dead small blind are dead money in the main pot.
1a. A straddle (a house rule, the live straddle of cash games; no rule-book section confirmed)
   is a live blind raise by a seat other than the blinds, covered by its stack: it
   acts as the big blind of the preflop round. The bet to call is the straddle, a full raise is
   the straddle (the minimum raise is to twice the straddle), action starts left of the straddler
   and the straddler acts last, with the option to raise when it is only called. After the flop
   the minimum bet is the big blind again.
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
   (``VALIDATE_FIRST``); a handler not listed there would run on a copy that replaces the state
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
8. The state machine is three tables keyed by :class:`Phase`, in :mod:`.transitions`:
   ``EXPECTED`` (the step each phase waits for), ``HANDLERS`` (the inputs each phase accepts;
   any other is refused with rule ``wrong-step``) and ``AUTOMATIC`` (transitions that need no
   input).
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType

from table_controller.engine.betting import BettingRound
from table_controller.engine.cards import Card
from table_controller.engine.describe import describe_step
from table_controller.engine.hand_fixes import CardCorrection, HandFixes
from table_controller.engine.hand_state import DuplicateCard, HandState, check_integrity
from table_controller.engine.model import (
    Deal,
    DealHoleStep,
    HandConfig,
    HandStatus,
    Input,
    Phase,
    PostKind,
    PostStep,
    PotView,
    Record,
    Show,
    Step,
    Street,
)
from table_controller.engine.pots import (
    build_pots,
)
from table_controller.engine.transitions import (
    AUTOMATIC,
    EXPECTED,
    FAST_HANDLERS,
    HANDLERS,
    LIGHT_INPUTS,
    SELF_CHECKED_INPUTS,
    SHOW_HANDLERS,
    SHOW_INPUTS,
    VALIDATE_FIRST,
    advance,
    all_in_seats,
    deal_hole,
    expected_step,
    input_words,
    live_seats,
    settle,
    show_allowed,
)
from table_controller.errors import RuleError

__all__ = ["CardCorrection", "DuplicateCard", "Hand", "HandConfigError"]

# Enum members as module constants: reading ``Phase.OVER`` costs about six times a global read
# on Python 3.11, and these are read on every input.
_POSTING, _DEALING, _BETTING, _COLLECTING, _BURNING = (
    Phase.POSTING, Phase.DEALING, Phase.BETTING, Phase.COLLECTING, Phase.BURNING)
_BOARD, _SHOWDOWN, _AWARDING, _OVER, _VOID = (
    Phase.BOARD, Phase.SHOWDOWN, Phase.AWARDING, Phase.OVER, Phase.VOID)
_PREFLOP, _FLOP, _TURN, _RIVER = Street.PREFLOP, Street.FLOP, Street.TURN, Street.RIVER


class HandConfigError(RuleError):
    """A :class:`HandConfig` that cannot start a hand."""


_DEAL_STEPS: dict[tuple[int, int], DealHoleStep] = {}
_SEATINGS: dict[tuple[tuple[int, ...], int, bool, int | None, int | None],
                tuple[int | None, int, tuple[int, ...], tuple[DealHoleStep, ...]]] = {}
"""Per seating (seats, button, blind options): the blinds' seats, the clockwise order from the
button and the hole-card steps (all immutable: a table deals the same seating many times)."""
_Start = tuple[HandConfig, dict[int, int], tuple[int, ...], int | None, int, int | None,
               tuple[int, ...], tuple[DealHoleStep, ...], dict[int, int], int,
               tuple[PostStep, ...], tuple[int, ...], int]
_STARTS: dict[int, _Start] = {}
"""Per configuration (by identity, kept alive by its entry; its stacks compared, in case they
were changed): the checked set-up every hand of it starts from (seats, blind and straddle seats,
orders, hole-card steps, starting stacks and total, posts, the first preflop order and bet
level). Immutable: each hand copies what it changes. A hand history replays many hands of the
same configuration."""
_POST_STEPS: dict[tuple[int, PostKind, int], PostStep] = {}
"""The (immutable) post steps made so far, shared: a table posts the same blinds hand after hand."""


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

class Hand(HandFixes):
    """One hand: ``expected()`` tells the next step, ``apply()`` takes an input.

    >>> from table_controller.engine.model import HandConfig, Post
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
        start = _STARTS.get(id(config))
        if start is None or start[0] is not config or start[1] != config.stacks:
            start = self._set_up(config)
        else:
            self.seats: tuple[int, ...] = start[2]
            self.button = config.button
            self.sb_seat, self.bb_seat = start[3], start[4]
            self.straddle_seat = start[5]
            """The seat that straddles this hand (rule 1a), or ``None``."""
            self.postflop_order: tuple[int, ...] = start[6]
            """The seats clockwise from the button: deal order and action order after the
            flop."""
        seats, starting, posts = self.seats, start[8], start[10]
        self.starting_stacks: dict[int, int] = dict(starting)
        self.total: int = start[9]
        self.deal_steps: list[DealHoleStep] = list(start[7])
        """The hole-card steps in deal order (round 1 around the table, then round 2)."""
        preflop = BettingRound(start[11], dict.fromkeys(seats, 0), start[12], start[12])
        # positional (see HandState's fields): faster than keywords on this path
        self._st = HandState(
            _POSTING, _PREFLOP, dict(starting), preflop, dict.fromkeys(seats, 0), 0,
            list(posts), 0, dict.fromkeys(seats, ()), [], [], set(), None, None, False, [], {},
            set(), [], set(), {}, 0, 0, False, (), -1, frozenset(seats))
        if not posts:
            advance(self, self._st)

    def _set_up(self, config: HandConfig) -> _Start:
        """Check ``config`` and work out what every hand of it starts from (kept per config).

        Sets the hand's seats, button, blind and straddle seats and clockwise order.

        :raises HandConfigError: if the configuration cannot start a hand.
        """
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
        self.seats = tuple(seats)
        self.button = config.button
        key = (self.seats, config.button, config.no_small_blind, config.sb_seat, config.bb_seat)
        seating = _SEATINGS.get(key)
        if seating is None:  # worked out once per seating (the checks raise here, as before)
            sb_seat, bb_seat = self._blind_seats()
            clockwise = _rotate_after(seats, self.button)
            steps = [_deal_step(s, 1) for s in clockwise] + [_deal_step(s, 2) for s in clockwise]
            seating = (sb_seat, bb_seat, clockwise, tuple(steps))
            if len(_SEATINGS) >= 10_000:
                _SEATINGS.clear()
            _SEATINGS[key] = seating
        self.sb_seat, self.bb_seat, clockwise, deal_steps = seating
        self.straddle_seat = self._straddle_seat()
        starting = {s: config.stacks[s] for s in seats}
        self.postflop_order = clockwise
        posts = self._posts(dict(starting))
        opener_after, level = self.bb_seat, config.big_blind
        if self.straddle_seat is not None:
            opener_after, level = self.straddle_seat, config.straddle
        start: _Start = (config, dict(config.stacks), self.seats, self.sb_seat, self.bb_seat,
                         self.straddle_seat, clockwise, deal_steps, starting,
                         sum(starting.values()), tuple(posts), _rotate_after(seats, opener_after),
                         level)
        if len(_STARTS) >= 1_000:
            _STARTS.clear()
        _STARTS[id(config)] = start
        return start

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

    def _straddle_seat(self) -> int | None:
        cfg = self.config
        seat = cfg.straddle_seat
        if seat is None:
            if cfg.straddle:
                raise HandConfigError("config", "a straddle needs its seat (straddle_seat)")
            return None
        if seat not in self.seats:
            raise HandConfigError("config", f"straddle_seat {seat} is not dealt in")
        if seat in (self.sb_seat, self.bb_seat):
            raise HandConfigError("config", f"seat {seat} posts a blind: it cannot straddle")
        if cfg.straddle <= cfg.big_blind:
            raise HandConfigError("config", f"a straddle of {cfg.straddle} is not more than the "
                                  f"big blind {cfg.big_blind}")
        if cfg.stacks[seat] - cfg.ante < cfg.straddle:
            raise HandConfigError("config", f"seat {seat} cannot cover a straddle of "
                                  f"{cfg.straddle} (stack {cfg.stacks[seat]})")
        return seat

    def _posts(self, stacks: dict[int, int]) -> list[PostStep]:
        cfg = self.config
        wanted: list[tuple[int, PostKind, int]] = []
        if cfg.ante:
            ante = (PostKind.ANTE, cfg.ante)
            wanted += [(s, *ante) for s in self.postflop_order]  # clockwise from the button
        if self.sb_seat is not None and cfg.small_blind:
            wanted.append((self.sb_seat, PostKind.SMALL_BLIND, cfg.small_blind))
        if cfg.bb_ante and cfg.bb_ante_first:  # TDA 2019 rule 2: the ante has priority
            wanted.append((self.bb_seat, PostKind.BB_ANTE, cfg.bb_ante))
        wanted.append((self.bb_seat, PostKind.BIG_BLIND, cfg.big_blind))
        if cfg.bb_ante and not cfg.bb_ante_first:  # TDA 2024 rule 2: the blind has priority
            wanted.append((self.bb_seat, PostKind.BB_ANTE, cfg.bb_ante))
        if self.straddle_seat is not None:  # rule 1a
            wanted.append((self.straddle_seat, PostKind.STRADDLE, cfg.straddle))
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
                key = (seat, kind, amount)
                step = _POST_STEPS.get(key)
                if step is None:
                    if len(_POST_STEPS) >= 10_000:
                        _POST_STEPS.clear()
                    step = _POST_STEPS[key] = PostStep(seat, kind, amount)
                out.append(step)
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
        step = st.step
        if step is None:
            step = st.step = EXPECTED[st.phase](self, st)  # expected_step, inlined
        return step

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
        handler = FAST_HANDLERS[st.phase].get(kind)
        if handler is None:
            new, record = self._run(inp, commit=True)  # the general path
            self._st = new
            self.log.append(record)
            return record
        # The fast path (the steps of _run and settle, inlined): the handler validates before
        # it changes anything, so it runs on the state itself.
        step = st.step
        if step is None:
            step = EXPECTED[st.phase](self, st)
        st.step = None
        phase = st.phase
        record = handler(self, st, inp, step)
        # the automatic transitions; the two commonest "nothing to do" cases tested inline
        now = st.phase
        if not ((now is _BETTING and st.to_act is not None)
                or (now is _DEALING and st.deal_i < len(self.deal_steps))):
            auto = AUTOMATIC.get(now)
            while auto is not None and auto(self, st):
                auto = AUTOMATIC.get(st.phase)
        if st.phase is phase and kind in SELF_CHECKED_INPUTS:
            pass  # only the handler ran: it moved no chips (Deal, Show, Muck) or checked them (Act)
        elif kind in LIGHT_INPUTS and st.phase is not _OVER:
            stacks = st.stacks.values()
            if (sum(stacks) + sum(st.round.bets.values()) + st.middle + st.rake != self.total
                    or min(stacks) < 0):  # the chip check, kept cheap
                check_integrity(st, self.total, cards=False, pots=False)  # raises with the details
        else:
            check_integrity(st, self.total, cards=st.phase is _OVER)
        self.log.append(record)
        return record

    def apply_all(self, inputs: Iterable[Input]) -> None:
        """Apply ``inputs`` in order, as many :meth:`apply` calls would (records in :attr:`log`).

        A run of hole cards (``Deal`` while the hand deals them) is taken in one pass: each
        card is checked against the cards out and recorded as :meth:`apply` would, and the
        transitions and the chip check run once, after the last hole card.

        :raises RuleError: an input is illegal; the inputs before it stay applied.
        :raises ChipConservationError: as :meth:`apply`.
        :raises DuplicateCardError: as :meth:`apply`.
        """
        steps, log = self.deal_steps, self.log
        n_steps = len(steps)
        for inp in inputs:
            st = self._st
            if st.phase is not _DEALING or type(inp) is not Deal:
                self.apply(inp)
                continue
            st.step = None
            log.append(deal_hole(self, st, inp, steps[st.deal_i]))
            if st.deal_i == n_steps:  # the last hole card: settle as apply does
                advance(self, st)
                stacks = st.stacks.values()
                if st.phase is _OVER:  # pragma: no cover - a hand cannot end without an input
                    check_integrity(st, self.total, cards=True)
                elif (sum(stacks) + sum(st.round.bets.values()) + st.middle + st.rake
                        != self.total or min(stacks) < 0):
                    check_integrity(st, self.total, cards=False, pots=False)

    def _run(self, inp: Input, commit: bool = False) -> tuple[HandState, Record]:
        st = self._st
        kind = type(inp)
        handler = HANDLERS[st.phase].get(kind)
        if handler is None:
            if kind in SHOW_INPUTS and show_allowed(self, st, kind):
                handler = SHOW_HANDLERS[kind]
            else:
                raise RuleError("wrong-step", f"{input_words(inp)} does not fit now; expected: "
                                f"{describe_step(self.expected())}")
        step = st.step
        if step is None:
            step = st.step = expected_step(self, st)
        if commit and handler in VALIDATE_FIRST:
            new = st  # the handler raises before it changes anything
            new.step = None
        else:
            new = st.copy()
        record = handler(self, new, inp, step)
        settle(self, new, kind)
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
        return build_pots(st.contrib, live_seats(self, st), all_in_seats(self, st), st.dead)

    def bet(self, seat: int) -> int:
        """Return what ``seat`` has bet in the current betting round (``status().bets``, 0).

        For a caller that needs the bets alone (the chip layout, on every input): cheaper than
        a whole status.
        """
        return self._st.round.bets.get(seat, 0)

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
        live = live_seats(self, st)
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
            tabled=st.tabled or show_allowed(self, st, Show),
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
