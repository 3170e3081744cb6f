"""Straddles as a house rule: who posts, action order, minimum raise, the option, PHH, pokerkit.

Sources: the live straddle of cash games (a blind raise; the straddler acts last before the
flop, with the option to raise), a house rule with no rule-book section confirmed; the Poker TDA
rules are tournament rules and list no straddle, hence the default ``off`` (engine hand rule
1a, table rule 9; ``docs/engine.md``, Sources).
"""

from __future__ import annotations

import random
import warnings
from dataclasses import replace
from typing import Any

import pytest

from benchmarks.bench_engine import HandSpec, random_spec
from table_controller.engine import (
    FULL_DECK,
    Act,
    ActionKind,
    ActStep,
    AwardStep,
    BoardStep,
    Collect,
    CollectStep,
    DealHoleStep,
    Hand,
    HandConfig,
    HandConfigError,
    HandOverStep,
    LegalActions,
    PostKind,
    PostStep,
    Push,
    Show,
    ShowStep,
    Table,
    TableConfig,
    card_input,
    default_input,
    describe_step,
    wants_card,
)
from table_controller.errors import ConfigError, RuleError
from table_controller.phh import dumps, hand_config, history_from_hand, loads, replay
from tests.test_differential import (
    Outcome,
    _pk_idle_actions,
    _pk_options,
    _pokerkit_odd_chip_view,
    _within_odd_chips,
)

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

SEATS = (1, 2, 3, 4, 5, 6)


def _config(straddle_seat: int | None, *, button: int = 1, straddle: int = 20,
            stacks: int = 1000, **kw: Any) -> HandConfig:
    return HandConfig(seats=SEATS, stacks=dict.fromkeys(SEATS, stacks), button=button,
                      small_blind=5, big_blind=10, straddle_seat=straddle_seat,
                      straddle=straddle if straddle_seat is not None else 0, **kw)


def _to_action(hand: Hand) -> ActStep:
    cards = iter(FULL_DECK[len(hand.log):])  # a fresh card each time (none dealt twice)
    while not isinstance(step := hand.expected(), ActStep):
        inp = card_input(next(cards)) if wants_card(step) else default_input(step)
        assert inp is not None
        hand.apply(inp)
    return step


def _posts(hand: Hand) -> list[tuple[int, PostKind, int]]:
    out = []
    while isinstance(step := hand.expected(), PostStep):
        out.append((step.seat, step.kind, step.amount))
        inp = default_input(step)
        assert inp is not None
        hand.apply(inp)
    return out


def test_utg_straddle_posts_after_the_blinds_and_acts_last() -> None:
    # the live straddle (house rule): the seat left of the big blind posts twice the
    # big blind; action starts left of it, and it acts last before the flop.
    hand = Hand(_config(4))
    assert describe_step(hand.expected()) == "Seat 2 posts the small blind: 5"
    assert _posts(hand) == [(2, PostKind.SMALL_BLIND, 5), (3, PostKind.BIG_BLIND, 10),
                            (4, PostKind.STRADDLE, 20)]
    step = _to_action(hand)
    assert step.seat == 5
    # the straddle is the big blind for sizing: 20 to call, a full raise is 20 (to 40)
    assert (step.legal.to_call_total, step.legal.min_raise_to) == (20, 40)
    order = []
    for _ in range(5):  # everyone calls around to the straddler
        step = _to_action(hand)
        order.append(step.seat)
        hand.apply(Act(step.seat, ActionKind.CALL))
    assert order == [5, 6, 1, 2, 3]
    step = _to_action(hand)
    assert step.seat == 4  # the option: the straddler may check or raise
    assert step.legal.can_check and step.legal.can_raise and step.legal.min_raise_to == 40
    hand.apply(Act(4, ActionKind.CHECK))
    assert isinstance(hand.expected(), CollectStep)
    hand.apply(Collect())
    # after the flop the minimum bet is the big blind again, first to act left of the button
    step = _to_action(hand)
    assert step.seat == 2 and step.legal.is_bet and step.legal.min_raise_to == 10


def test_straddler_raised_reopens_to_the_callers_and_limits_raise_sizes() -> None:
    hand = Hand(_config(4))
    step = _to_action(hand)
    with pytest.raises(RuleError, match="minimum raise is to 40"):
        hand.apply(Act(5, ActionKind.RAISE, 30))  # 30 would do against a 10 big blind
    hand.apply(Act(5, ActionKind.RAISE, 40))
    step = _to_action(hand)
    assert step.seat == 6 and step.legal.min_raise_to == 60


def test_button_straddle_action_starts_left_of_the_button() -> None:
    # A button straddle (house rule "button"): the small blind acts first before the flop, the
    # button last.
    hand = Hand(_config(1))
    assert _posts(hand)[-1] == (1, PostKind.STRADDLE, 20)
    seen = []
    for _ in range(6):
        step = _to_action(hand)
        seen.append(step.seat)
        hand.apply(Act(step.seat, ActionKind.CHECK if step.legal.can_check else ActionKind.CALL))
    assert seen == [2, 3, 4, 5, 6, 1]


@pytest.mark.parametrize(("kw", "match"), [
    ({"straddle_seat": 2}, "posts a blind"),
    ({"straddle_seat": 3}, "posts a blind"),
    ({"straddle_seat": 4, "straddle": 10}, "not more than the big blind"),
    ({"straddle_seat": 4, "stacks": 15}, "cannot cover"),
    ({"straddle_seat": 9}, "not dealt in"),
])
def test_straddle_config_errors(kw: dict[str, Any], match: str) -> None:
    with pytest.raises(HandConfigError, match=match):
        Hand(_config(**kw))


def test_straddle_without_a_seat_is_refused() -> None:
    with pytest.raises(HandConfigError, match="needs its seat"):
        Hand(replace(_config(None), straddle=20))


# -- the table: the house rule ---------------------------------------------------------------


def _table(rule: str) -> Table:
    table = Table(TableConfig(seats=6, small_blind=5, big_blind=10, straddle=rule))
    for s in SEATS:
        table.seat_player(s, f"p{s}", 1000)
    table.set_button(1)
    return table


def test_straddles_are_off_by_default() -> None:
    table = Table(TableConfig(seats=6, small_blind=5, big_blind=10))
    for s in SEATS:
        table.seat_player(s, f"p{s}", 1000)
    with pytest.raises(RuleError, match="not played"):
        table.straddle(4)
    with pytest.raises(ConfigError, match="straddle"):
        TableConfig(seats=6, small_blind=5, big_blind=10, straddle="mississippi")


def test_table_utg_straddle_for_one_hand() -> None:
    table = _table("utg")
    with pytest.raises(RuleError, match="under the gun"):
        table.straddle(5)
    assert table.check_straddle(4) == 20
    table.straddle(4)
    hand = table.start_hand()
    assert (hand.button, hand.sb_seat, hand.bb_seat, hand.straddle_seat) == (1, 2, 3, 4)
    assert _to_action(hand).seat == 5
    hand.void()  # a misdeal: the re-deal keeps the straddle (TDA 35-C, an exact replay)
    table.finish_hand(hand)
    again = table.start_hand()
    assert again.straddle_seat == 4
    _play_out(again)
    table.finish_hand(again)
    nxt = table.start_hand()  # the request was for one hand
    assert nxt.straddle_seat is None


def test_table_button_straddle_and_a_request_taken_back() -> None:
    table = _table("button")
    with pytest.raises(RuleError, match="on the button"):
        table.straddle(4)
    table.straddle(1)
    table.straddle(None)
    assert table.start_hand().straddle_seat is None


def test_a_straddle_needs_three_players() -> None:
    table = Table(TableConfig(seats=6, small_blind=5, big_blind=10, straddle="button"))
    table.seat_player(1, "a", 1000)
    table.seat_player(2, "b", 1000)
    with pytest.raises(RuleError, match="on the button"):
        table.straddle(1)


def _play_out(hand: Hand, rng: random.Random | None = None) -> None:
    """Play to the end: known cards from a shuffled deck, checks and calls (raises with rng)."""
    rng = rng or random.Random(0)
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    cards = iter(deck)
    while not hand.is_over:
        step = hand.expected()
        if isinstance(step, ActStep):
            legal = step.legal
            if legal.can_raise and rng.random() < 0.2:
                hand.apply(Act(step.seat, ActionKind.BET if legal.is_bet else ActionKind.RAISE,
                               legal.min_raise_to))
            elif not legal.can_check and rng.random() < 0.2:
                hand.apply(Act(step.seat, ActionKind.FOLD))
            else:
                kind = ActionKind.CHECK if legal.can_check else ActionKind.CALL
                hand.apply(Act(step.seat, kind))
        elif wants_card(step):
            hand.apply(card_input(next(cards)))
        else:
            inp = default_input(step)
            assert inp is not None
            hand.apply(inp)


# -- PHH: blinds_or_straddles read and written ---------------------------------------------------


def test_phh_straddle_read_at_its_position() -> None:
    text = ('variant = "NT"\nantes = [0, 0, 0, 0]\nblinds_or_straddles = [1, 2, 4, 0]\n'
            'min_bet = 2\nstarting_stacks = [100, 100, 100, 100]\nactions = []\n')
    config, seats = hand_config(loads(text))
    assert (config.straddle_seat, config.straddle) == (seats[2], 4)
    button = text.replace("[1, 2, 4, 0]", "[1, 2, 0, 4]")
    config, seats = hand_config(loads(button))
    assert (config.straddle_seat, config.button) == (seats[3], seats[3])
    from table_controller.phh import PhhError

    with pytest.raises(PhhError, match="one straddle"):
        hand_config(loads(text.replace("[1, 2, 4, 0]", "[1, 2, 4, 8]")))


# -- differential: pokerkit on straddle hands ----------------------------------------------------


def _straddle_spec(rng: random.Random, where: str) -> tuple[HandSpec, int]:
    """A random hand of 3..10 players with the straddle seat able to cover twice the big blind."""
    while True:
        spec = random_spec(rng, min_players=3, short_bb=False)
        order = spec.order()
        if where == "button" and spec.button not in spec.seats:
            continue
        at = 2 if where == "utg" else len(order) - 1
        seat = order[at]
        amount = 2 * spec.big_blind
        stacks = list(spec.stacks)
        i = spec.seats.index(seat)
        stacks[i] = max(stacks[i], spec.ante + amount + spec.big_blind)
        return replace(spec, stacks=tuple(stacks)), at


def _pk_state(spec: HandSpec, at: int) -> Any:
    from pokerkit import Automation, Mode, NoLimitTexasHoldem

    order = spec.order()
    n = len(order)
    antes = [spec.ante] * n
    antes[1] += spec.bb_ante
    blinds = [0] * n
    blinds[0], blinds[1], blinds[at] = spec.small_blind, spec.big_blind, 2 * spec.big_blind
    return NoLimitTexasHoldem.create_state(
        (Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
         Automation.CARD_BURNING, Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
         Automation.HAND_KILLING, Automation.CHIPS_PUSHING, Automation.CHIPS_PULLING,
         Automation.RUNOUT_COUNT_SELECTION),
        spec.bb_ante == 0, tuple(antes), tuple(blinds), spec.big_blind,
        tuple(spec.stacks[spec.seats.index(s)] for s in order), n, mode=Mode.CASH_GAME)


def _pick(rng: random.Random, legal: LegalActions, raise_ok: bool) -> Act:
    seat = legal.seat
    raising = ActionKind.BET if legal.is_bet else ActionKind.RAISE
    lo, hi = min(legal.min_raise_to, legal.max_raise_to), legal.max_raise_to
    if raise_ok and rng.random() < 0.3:
        return Act(seat, raising, lo if rng.random() < 0.5 else rng.randint(lo, hi))
    if legal.can_check:
        return Act(seat, ActionKind.CHECK)
    return Act(seat, ActionKind.FOLD if rng.random() < 0.3 else ActionKind.CALL)


def _lockstep(spec: HandSpec, at: int, tally: dict[str, int]) -> None:
    """Play one straddle hand through both engines; assert they agree (or our rule holds)."""
    rng = random.Random(spec.seed)
    order = spec.order()
    index = {seat: i for i, seat in enumerate(order)}
    straddle = 2 * spec.big_blind
    hand = Hand(replace(spec.config(), straddle_seat=order[at], straddle=straddle))
    pk = _pk_state(spec, at)
    deck = iter(spec.deck)
    board: list[Any] = []
    awards: list[AwardStep] = []
    first = True
    out = Outcome()
    while True:
        step = hand.expected()
        if isinstance(step, HandOverStep):
            break
        if isinstance(step, ActStep):
            legal = step.legal
            assert pk.actor_index == index[step.seat], (step, pk.actor_index, spec)
            if first:  # the first to act preflop: left of the straddler (who acts last)
                assert step.seat == order[(at + 1) % len(order)]
                assert legal.to_call_total == straddle
                if legal.can_raise:  # the straddle sizes the raise (pokerkit: the big blind)
                    assert legal.min_raise_to == min(2 * straddle, legal.max_raise_to)
                first = False
            pk_call, pk_raise, pk_lo, pk_hi = _pk_options(pk)
            assert pk_call == legal.call_amount, (legal, pk_call, spec)
            raise_ok = legal.can_raise and legal.max_raise_to > legal.to_call_total
            pk_ok = pk_raise and pk_hi > legal.to_call_total
            if raise_ok and pk_ok:
                assert pk_hi == legal.max_raise_to and pk_lo <= legal.min_raise_to
                tally["smaller_pk_min_raise"] += pk_lo < legal.min_raise_to
            elif raise_ok != pk_ok:
                tally["reopening_rule"] += 1  # short all-ins (see test_differential.py)
                raise_ok = False
            act = _pick(rng, legal, raise_ok)
            rec = hand.apply(act)
            if rec.kind is ActionKind.FOLD:
                pk.fold()
            elif rec.kind in (ActionKind.CHECK, ActionKind.CALL):
                pk.check_or_call()
            else:
                pk.complete_bet_or_raise_to(rec.to)
            tally["decisions"] += 1
            if step.seat == order[at] and rec.street.value == "preflop" and not board:
                tally["straddler_acted"] += 1
        elif wants_card(step):
            card = next(deck)
            hand.apply(card_input(card))
            if isinstance(step, DealHoleStep):
                pk.deal_hole(card.code)
            elif isinstance(step, BoardStep) and step.slot >= 2:
                board.append(card)
                _pk_idle_actions(pk, out)
                cards = board[-3:] if step.slot == 2 else board[-1:]
                pk.deal_board("".join(c.code for c in cards))
            elif isinstance(step, BoardStep):
                board.append(card)
        elif isinstance(step, ShowStep):
            hand.apply(Show(step.seat))
        elif isinstance(step, AwardStep):
            awards.append(step)
            hand.apply(Push(step.pot_index))
        else:
            inp = default_input(step)
            assert inp is not None
            hand.apply(inp)
    _pk_idle_actions(pk, out)
    assert not pk.status, spec
    ours = dict(hand.final_stacks)
    theirs = {seat: pk.stacks[i] for i, seat in enumerate(order)}
    if ours != theirs:
        assert (_pokerkit_odd_chip_view(ours, awards) == theirs
                or _within_odd_chips(ours, theirs, awards)), (ours, theirs, spec)
        tally["odd_chips"] += 1
    tally["hands"] += 1


@pytest.mark.parametrize("where", ["utg", "button"])
def test_straddle_hands_against_pokerkit(where: str) -> None:
    rng = random.Random(2026 if where == "utg" else 2027)
    tally: dict[str, int] = dict.fromkeys(
        ("hands", "decisions", "smaller_pk_min_raise", "reopening_rule", "odd_chips",
         "straddler_acted"), 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(300):
            spec, at = _straddle_spec(rng, where)
            _lockstep(spec, at, tally)
    assert tally["hands"] == 300
    # the comparison reached the straddle's own rules
    assert tally["straddler_acted"] >= 50 and tally["smaller_pk_min_raise"] >= 50, tally


def test_written_straddle_hands_replay_in_pokerkit() -> None:
    from pokerkit import HandHistory as PkHandHistory

    rng = random.Random(99)
    for where in ("utg", "button"):
        for _ in range(40):
            spec, at = _straddle_spec(rng, where)
            hand = Hand(replace(spec.config(), straddle_seat=spec.order()[at],
                                straddle=2 * spec.big_blind))
            _play_out(hand, random.Random(spec.seed))
            hh = history_from_hand(hand)
            assert hh.blinds_or_straddles[at] == 2 * spec.big_blind
            text = dumps(hh)
            assert replay(loads(text)).status == "matched", text
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                state: Any = list(PkHandHistory.loads(text))[-1]
            assert not state.status
            ours = [hand.final_stacks[s] for s in spec.order()]
            assert list(state.stacks) == ours or sum(state.stacks) == sum(ours), text
