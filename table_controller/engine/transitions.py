"""The transition tables of a hand: expected steps, input handlers, automatic transitions.

Rules this module keeps (the rules of the game are in :mod:`.hand`'s header):

1. ``EXPECTED`` (the step each phase waits for), ``HANDLERS`` (the inputs each phase accepts)
   and ``AUTOMATIC`` (transitions that need no input) are keyed by :class:`Phase`; nothing else
   decides what a phase does.
2. A handler listed in ``VALIDATE_FIRST`` checks everything before it changes anything.
3. Functions here change only the :class:`HandState` they are given; they read the
   :class:`Hand` (its configuration, seats and orders) and never change it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from table_controller.engine.betting import BettingRound
from table_controller.engine.cards import Card
from table_controller.engine.describe import describe_step
from table_controller.engine.hand_state import (
    DuplicateCard,
    HandState,
    check_integrity,
    check_new_card,
)
from table_controller.engine.model import (
    LIVE_POSTS,
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
    HandOverStep,
    Input,
    Muck,
    Phase,
    Post,
    PostKind,
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
from table_controller.errors import ChipConservationError, RuleError

if TYPE_CHECKING:
    from table_controller.engine.hand import Hand

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

_LIVE_POSTS = LIVE_POSTS
"""Posts that are part of the seat's bet; the others go straight into the pot."""
_DEAD_POSTS = frozenset({PostKind.DEAD_SMALL, PostKind.BB_ANTE})
"""Dead money: it belongs to the main pot, not to the seat's contribution (the big-blind ante
stands for every seat's ante, as in the PHH spec and pokerkit)."""


# -- helpers on the state ------------------------------------------------------------------------


def live_seats(hand: Hand, st: HandState) -> frozenset[int]:
    """Return the seats neither folded nor mucked."""
    return st.live


def all_in_seats(hand: Hand, st: HandState) -> frozenset[int]:
    """Return the seats with no chips left behind."""
    return frozenset(s for s in hand.seats if st.stacks[s] == 0)


def show_allowed(hand: Hand, st: HandState, kind: type) -> bool:
    """Tell whether hands may be tabled now, before the showdown (everyone all-in)."""
    if st.phase is _COLLECTING:  # the last bets are still in front: Show only (pots not cut)
        return kind is Show and hand.config.table_all_ins and len(st.live) >= 2 and len(
            [s for s in st.live if st.stacks[s] > 0]) < 2
    return st.tabled and (st.phase is _BURNING or st.phase is _BOARD)


def input_words(inp: Input) -> str:
    """Return an input in words for an error message (``Act for seat 3``)."""
    name = type(inp).__name__
    seat = getattr(inp, "seat", None)
    return f"{name} for seat {seat}" if seat is not None else name


_BURN_STEPS: dict[Street, BurnStep] = {s: BurnStep(s) for s in (_FLOP, _TURN, _RIVER)}
_BOARD_STEPS: list[BoardStep] = [BoardStep(street, slot) for street in (_FLOP, _TURN, _RIVER)
                                 for slot in street.board_slots]


def expected_step(hand: Hand, st: HandState) -> Step:
    """Return the step the hand waits for in its phase (not cached)."""
    return EXPECTED[st.phase](hand, st)


def _expect_act(hand: Hand, st: HandState) -> Step:
    seat = st.to_act
    assert seat is not None
    return ActStep(seat, st.round.legal(seat, st.stacks, st.live))


def _expect_collect(hand: Hand, st: HandState) -> Step:
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


def _expect_show(hand: Hand, st: HandState) -> Step:
    seat = _next_shower(hand, st)
    assert seat is not None
    return ShowStep(seat)


def _expect_push(hand: Hand, st: HandState) -> Step:
    pushed = st.pushed
    for award in reversed(st.awards):
        if award.pot_index not in pushed:
            return award
    raise AssertionError("no pot waiting")


def _expect_over(hand: Hand, st: HandState) -> Step:
    return HandOverStep(MappingProxyType(dict(st.stacks)))


EXPECTED: dict[Phase, Callable[[Hand, HandState], Step]] = {
    Phase.POSTING: lambda hand, st: st.posts[0],
    Phase.DEALING: lambda hand, st: hand.deal_steps[st.deal_i],
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


# -- handlers: one per (phase, input) pair -------------------------------------------------------


def _on_post(hand: Hand, st: HandState, inp: Post, step: Step) -> Record:
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


def _deal_card(st: HandState, inp: Deal, what: str, allow_unknown: bool) -> Card | None:
    if inp.card is None and not allow_unknown:
        raise RuleError("unknown-card", f"{what} is dealt face up: its card must be known")
    check_new_card(st, inp.card)
    return inp.card


def _on_deal_hole(hand: Hand, st: HandState, inp: Deal, step: DealHoleStep) -> Record:
    card = inp.card
    if card is not None:  # check_new_card, inlined
        bit = 1 << (card.rank * 4 + card.suit)
        if st.seen & bit:
            raise DuplicateCard("duplicate-card",
                                f"the {card.describe()} ({card}) is already out")
        st.seen |= bit
    st.hole[step.seat] = (*st.hole[step.seat], card)
    st.deal_i += 1
    return _new(Record, (len(hand.log), step, inp, st.street, step.seat, None, 0, 0, False))


deal_hole = _on_deal_hole
"""The hole-card handler (for :meth:`Hand.apply_all`'s run of hole cards)."""


def _on_burn(hand: Hand, st: HandState, inp: Deal, step: Step) -> Record:
    card = _deal_card(st, inp, "a burn", True)
    st.burns.append(card)
    st.phase = _BOARD
    return _new(Record, (len(hand.log), step, inp, st.street, None, None, 0, 0, False))


def _on_board(hand: Hand, st: HandState, inp: Deal, step: Step) -> Record:
    card = _deal_card(st, inp, "a board card", False)
    st.board.append(card)
    if st.street is _FLOP:
        st.flop_dealt = True
    if len(st.board) >= 3:  # the flop's third card, the turn, the river
        _start_round(hand, st)
    return _new(Record, (len(hand.log), step, inp, st.street, None, None, 0, 0, False))


def _on_act(hand: Hand, st: HandState, inp: Act, step: ActStep) -> Record:
    seat = inp.seat
    if seat != step.seat:
        if seat not in hand.seats:
            raise RuleError("unknown-seat", f"seat {seat} is not in this hand")
        raise RuleError("out-of-turn", f"seat {seat} acted out of turn: it is seat "
                        f"{step.seat}'s turn")
    rnd = st.round
    stacks = st.stacks
    added = 0
    kind = inp.kind
    if kind is _FOLD:  # always legal (resolve would return it as it is)
        st.folded.add(seat)
        st.live = st.live - {seat}
    else:
        kind, added = rnd.take(step.legal, kind, inp.to)
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


def _on_collect(hand: Hand, st: HandState, inp: Collect, step: CollectStep) -> Record:
    moved = _collect(hand, st, step.returned)
    _after_round(hand, st, step.into_pots)
    return _new(Record, (len(hand.log), step, inp, st.street, None, None, moved, 0, False))


def on_show(hand: Hand, st: HandState, inp: Show, step: Step) -> Record:
    """Table a hand (at the showdown, or at once when everyone is all-in)."""
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
            check_new_card(st, c)
    st.shown[seat] = cards
    if not (isinstance(step, ShowStep) and step.seat == seat):
        step = ShowStep(seat)
    return _new(Record, (len(hand.log), step, inp, st.street, seat, None, 0, 0, False))


def on_muck(hand: Hand, st: HandState, inp: Muck, step: Step) -> Record:
    """Muck a hand at the showdown (or when hands are tabled, see rule 4 of :mod:`.hand`)."""
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


def _on_push(hand: Hand, st: HandState, inp: Push, step: Step) -> Record:
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


_Handler = Callable[["Hand", HandState, Input, Step], Record]


def _handler(fn: Callable[..., Record]) -> _Handler:
    """Return ``fn`` typed as the tables hold their handlers.

    Each handler is typed for its own input and step, with no check at run time: the tables
    guarantee them (the input's type is the key, the step the phase's).
    """
    return fn


HANDLERS: dict[Phase, dict[type, _Handler]] = {
    _POSTING: {Post: _handler(_on_post)},
    _DEALING: {Deal: _handler(_on_deal_hole)},
    _BETTING: {Act: _handler(_on_act)},
    _COLLECTING: {Collect: _handler(_on_collect)},
    _BURNING: {Deal: _handler(_on_burn)},
    _BOARD: {Deal: _handler(_on_board)},
    _SHOWDOWN: {Show: _handler(on_show), Muck: _handler(on_muck)},
    _AWARDING: {Push: _handler(_on_push)},
    _OVER: {},
    _VOID: {},
}
"""The transition table: which input each phase accepts (``Show`` also while hands are tabled)."""

SHOW_INPUTS = frozenset({Show, Muck})
SHOW_HANDLERS: dict[type, _Handler] = {Show: _handler(on_show), Muck: _handler(on_muck)}
"""The handlers of ``SHOW_INPUTS`` (also taken while hands are tabled, before the showdown)."""
SELF_CHECKED_INPUTS = frozenset({Act, Deal, Show, Muck})
"""Inputs whose handler moves no chips (``Deal``, ``Show``, ``Muck``) or checks in O(1) the only
chips it moves (``Act``): when no transition follows, the chip recount is not needed (rule 7)."""
LIGHT_INPUTS = frozenset({Act, Deal})
"""Inputs after which the pot recount is skipped (they move no chips into or out of the pot), and
the whole chip recount when no transition followed (see rule 7)."""

VALIDATE_FIRST = frozenset({_on_post, _on_deal_hole, _on_burn, _on_board, _on_act, _on_collect,
                             on_show, on_muck, _on_push})
"""Handlers that check everything before they change anything: ``apply`` runs them on the state
itself instead of a copy (the property tests check that a refused input changed nothing)."""

FAST_HANDLERS: dict[Phase, dict[type, _Handler]] = {
    phase: {k: h for k, h in handlers.items() if h in VALIDATE_FIRST}
    for phase, handlers in HANDLERS.items()}
"""``HANDLERS`` less any handler that would need a copy: ``apply`` runs these in place."""


# -- automatic transitions -----------------------------------------------------------------------


def _start_round(hand: Hand, st: HandState) -> None:
    """Start betting on the current street (after its board cards, or after the hole cards)."""
    if st.street is not _PREFLOP:
        st.round = BettingRound(hand.postflop_order, dict.fromkeys(hand.seats, 0), 0,
                                hand.config.big_blind)
    st.phase = _BETTING
    st.to_act = st.round.next_to_act(None, st.stacks, st.live)


def _collect(hand: Hand, st: HandState, returned: Mapping[int, int]) -> int:
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


def _after_round(hand: Hand, st: HandState, pots: tuple[PotView, ...] | None = None) -> None:
    """Move on once the bets are in: award at once, next street, or the showdown."""
    live = live_seats(hand, st)
    if pots is None:  # no collect (no bets this round): only folds may have changed the pots
        if st.pots_folds == len(st.folded):
            pots = st.pots
        else:
            in_hand = frozenset(s for s in hand.seats if s not in st.folded)
            pots = build_pots(st.contrib, in_hand, all_in_seats(hand, st), st.dead)
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


def _start_showdown(hand: Hand, st: HandState) -> None:
    live = live_seats(hand, st)
    if not st.tabled:
        st.show_order = showdown_order(live, hand.button, st.river_aggressor)
    if len(st.pots) > 1:  # Robert's Rules of Poker v11, Showdown 7: side pots show first
        st.show_order = side_pots_first(st.show_order, st.pots)
    st.phase = _SHOWDOWN
    if _next_shower(hand, st) is None:
        _make_awards(hand, st)


def _check_contender(hand: Hand, st: HandState, seat: int) -> None:
    if seat not in hand.seats:
        raise RuleError("unknown-seat", f"seat {seat} is not in this hand")
    if seat in st.folded:
        raise RuleError("folded", f"seat {seat} folded: it has no hand to show")
    if seat in st.shown or seat in st.mucked:
        raise RuleError("already-shown", f"seat {seat} already showed or mucked")


def _contenders_by_pot(hand: Hand, st: HandState, seat: int) -> list[list[int]]:
    """For each pot ``seat`` can win: the seats still contending for it (not mucked)."""
    return [[s for s in pot.eligible if s not in st.mucked]
            for pot in st.pots if seat in pot.eligible]


def _sole_contender(hand: Hand, st: HandState, seat: int) -> bool:
    """Tell whether ``seat`` is the only hand left in some pot it can win."""
    return any(c == [seat] for c in _contenders_by_pot(hand, st, seat))


def _next_shower(hand: Hand, st: HandState) -> int | None:
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


def _make_awards(hand: Hand, st: HandState) -> None:
    pots = st.pots
    cfg = hand.config
    if cfg.rake is None:  # no rake (rake_for would say 0: nothing taken from any pot)
        rake, rakes = 0, [0] * len(pots)
    else:
        rake = rake_for(sum(p.amount for p in pots), cfg.rake, st.flop_dealt)
        rakes = rake_by_pot((p.amount for p in pots), rake)
    values: dict[int, int] = {}
    if st.shown:  # (won by folds: no hand shown, nothing to evaluate)
        board = [c for c in st.board if c is not None]
        values = strengths({seat: cards for seat, cards in st.shown.items()
                            if seat not in st.folded and seat not in st.mucked}, board)
    awards = []
    room = cfg.rake.cap - rake if cfg.odd_chips_to_rake and cfg.rake and rake else 0
    for i, (pot, pot_rake) in enumerate(zip(pots, rakes, strict=True)):
        contenders = [s for s in pot.eligible if s not in st.mucked]
        won = winners(contenders, values) if len(contenders) > 1 else contenders
        if not won:
            raise RuleError("no-winner", f"pot {i} has no hand left to win it")
        odd_count = (pot.amount - pot_rake) % len(won)
        if odd_count and odd_count <= room:  # house option: the odd chips go to the rake
            pot_rake += odd_count
            room -= odd_count
        payouts, odd = split(pot.amount - pot_rake, won, hand.button)
        awards.append(AwardStep(i, pot.amount, MappingProxyType(payouts), odd, pot_rake))
    st.awards = awards
    st.phase = _AWARDING


def _auto_posting(hand: Hand, st: HandState) -> bool:
    if st.posts:
        return False
    st.phase = _DEALING
    return True


def _auto_dealing(hand: Hand, st: HandState) -> bool:
    if st.deal_i < len(hand.deal_steps):
        return False
    _start_round(hand, st)
    return True


def _auto_betting(hand: Hand, st: HandState) -> bool:
    if st.to_act is not None:
        return False
    if any(st.round.bets.values()):
        st.phase = _COLLECTING
    else:
        _after_round(hand, st)
    return True


def _auto_showdown(hand: Hand, st: HandState) -> bool:
    seat = _next_shower(hand, st)
    if seat is not None:
        st.step = ShowStep(seat)  # the expected step, found here already
        return False
    _make_awards(hand, st)
    return True


def _auto_awarding(hand: Hand, st: HandState) -> bool:
    if len(st.pushed) < len(st.awards):
        return False
    st.phase = _OVER
    return True


AUTOMATIC: dict[Phase, Callable[[Hand, HandState], bool]] = {
    Phase.POSTING: _auto_posting,
    Phase.DEALING: _auto_dealing,
    Phase.BETTING: _auto_betting,
    Phase.SHOWDOWN: _auto_showdown,
    Phase.AWARDING: _auto_awarding,
}
"""Transitions that need no input: each returns True when it moved the hand on."""


def settle(hand: Hand, st: HandState, kind: type) -> None:
    """After an input: run the automatic transitions, then check the chips (and cards).

    :raises ChipConservationError: chips do not add up.
    :raises DuplicateCardError: a card is known twice (full recount at the end of the hand).
    """
    auto = AUTOMATIC.get(st.phase)
    while auto is not None and auto(hand, st):
        auto = AUTOMATIC.get(st.phase)
    if st.phase is _OVER or kind not in LIGHT_INPUTS:
        check_integrity(st, hand.total, cards=st.phase is _OVER)
    elif (sum(st.stacks.values()) + sum(st.round.bets.values()) + st.middle + st.rake
          != hand.total or min(st.stacks.values()) < 0):  # the chip check, kept cheap
        check_integrity(st, hand.total, cards=False, pots=False)  # raises with the details


def advance(hand: Hand, st: HandState) -> None:
    """Run the transitions that need no input, until the hand waits for one."""
    while (auto := AUTOMATIC.get(st.phase)) is not None and auto(hand, st):
        pass
