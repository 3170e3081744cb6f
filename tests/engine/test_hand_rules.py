"""One test (or a few) per rule of the engine (docs/engine.md), through the public Hand API.

Rules 6-8 (the pots, the showdown, split pots) and the rake: ``tests/engine/test_hand_pots.py``.
"""

from __future__ import annotations

import json

import pytest

from table_controller.engine import (
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
    ExtraPost,
    Hand,
    HandOverStep,
    Muck,
    Phase,
    Post,
    PostKind,
    PostStep,
    Push,
    ShowStep,
    Street,
    describe_step,
    parse_cards,
)
from table_controller.errors import (
    ChipConservationError,
    DuplicateCardError,
    RuleError,
)

from .helpers import act, deal_board, deal_hole, finish, make_hand, post_all

F, X, C, B, R, A = (ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.BET,
                    ActionKind.RAISE, ActionKind.ALL_IN)


def to_act(hand: object) -> int:
    step = hand.expected()  # type: ignore[attr-defined]
    assert isinstance(step, ActStep), step
    return step.seat


# -- rule 1: blinds, antes, heads-up ------------------------------------------------------------


def test_blinds_left_of_button() -> None:
    hand = make_hand({1: 1000, 2: 1000, 3: 1000, 4: 1000}, button=4)
    assert hand.expected() == PostStep(1, PostKind.SMALL_BLIND, 50)
    hand.apply(Post(1))
    assert hand.expected() == PostStep(2, PostKind.BIG_BLIND, 100)


def test_antes_then_blinds_then_bb_ante() -> None:
    hand = make_hand({1: 1000, 2: 1000, 3: 1000}, button=1, ante=10)
    posts = []
    while isinstance(step := hand.expected(), PostStep):
        posts.append((step.seat, step.kind))
        hand.apply(Post(step.seat))
    assert posts == [(2, PostKind.ANTE), (3, PostKind.ANTE), (1, PostKind.ANTE),
                     (2, PostKind.SMALL_BLIND), (3, PostKind.BIG_BLIND)]
    assert hand.pots()[0].amount == 30
    hand = make_hand({1: 1000, 2: 1000, 3: 1000}, button=1, bb_ante=100)
    kinds = []
    while isinstance(step := hand.expected(), PostStep):
        kinds.append((step.seat, step.kind, step.amount))
        hand.apply(Post(step.seat))
    assert kinds[-1] == (3, PostKind.BB_ANTE, 100)


def test_big_blind_has_priority_over_bb_ante_when_short() -> None:
    hand = make_hand({1: 1000, 2: 1000, 3: 130}, button=1, bb_ante=100)
    post_all(hand)
    status = hand.status()
    assert status.bets[3] == 100 and status.stacks[3] == 0 and hand.pots()[0].amount == 30


def test_posts_may_come_in_any_order() -> None:
    hand = make_hand({1: 1000, 2: 1000, 3: 1000}, button=1)
    hand.apply(Post(3))
    assert hand.expected() == PostStep(2, PostKind.SMALL_BLIND, 50)
    with pytest.raises(RuleError) as err:
        hand.apply(Post(1))
    assert err.value.rule == "no-such-post"


def test_heads_up_button_posts_small_blind_acts_first_preflop_last_after() -> None:
    hand = make_hand({3: 1000, 7: 1000}, button=7)
    assert hand.expected() == PostStep(7, PostKind.SMALL_BLIND, 50)
    post_all(hand)
    assert hand.expected() == DealHoleStep(3, 1)  # first card left of the button
    deal_hole(hand)
    assert to_act(hand) == 7
    act(hand, 7, C)
    assert to_act(hand) == 3  # big blind's option
    act(hand, 3, X)
    hand.apply(Collect())
    deal_board(hand, "2c3d4h5s6c")
    assert to_act(hand) == 3
    act(hand, 3, X)
    assert to_act(hand) == 7


# -- rule 2: dealing and burns -------------------------------------------------------------------


def test_hole_cards_one_at_a_time_from_left_of_button_then_burns() -> None:
    hand = make_hand({1: 1000, 2: 1000, 5: 1000}, button=2)
    post_all(hand)
    order = []
    while isinstance(step := hand.expected(), DealHoleStep):
        order.append((step.seat, step.round))
        hand.apply(Deal(None))
    assert order == [(5, 1), (1, 1), (2, 1), (5, 2), (1, 2), (2, 2)]
    for seat in (2, 5):  # SB 5, BB 1: seat 2 acts first
        act(hand, seat, C)
    act(hand, 1, X)
    assert isinstance(hand.expected(), CollectStep)
    hand.apply(Collect())
    steps = []
    board = iter(parse_cards("2c3d4h5s6c"))
    for _ in range(4):
        step = hand.expected()
        steps.append(step)
        hand.apply(Deal(None if isinstance(step, BurnStep) else next(board)))
    assert steps == [BurnStep(Street.FLOP), BoardStep(Street.FLOP, 0), BoardStep(Street.FLOP, 1),
                     BoardStep(Street.FLOP, 2)]
    for seat in (5, 1, 2):
        act(hand, seat, X)
    assert hand.expected() == BurnStep(Street.TURN)
    hand.apply(Deal(None))
    assert hand.expected() == BoardStep(Street.TURN, 3)
    hand.apply(Deal(next(board)))
    for seat in (5, 1, 2):
        act(hand, seat, X)
    assert hand.expected() == BurnStep(Street.RIVER)
    hand.apply(Deal(None))
    hand.apply(Deal(next(board)))
    for seat in (5, 1, 2):
        act(hand, seat, X)
    assert isinstance(hand.expected(), ShowStep)  # no burn before the showdown


def test_board_card_must_be_known() -> None:
    hand = make_hand({1: 1000, 2: 1000}, button=1)
    deal_hole(hand)
    act(hand, 1, C)
    act(hand, 2, X)
    hand.apply(Collect())
    hand.apply(Deal(None))
    with pytest.raises(RuleError) as err:
        hand.apply(Deal(None))
    assert err.value.rule == "unknown-card"


# -- rule 3: order of action, end of round, big blind option, all fold ---------------------------


def test_preflop_left_of_bb_postflop_left_of_button_and_bb_option() -> None:
    hand = make_hand({1: 1000, 2: 1000, 3: 1000, 4: 1000}, button=1)
    deal_hole(hand)
    assert to_act(hand) == 4
    act(hand, 4, C)
    act(hand, 1, C)
    act(hand, 2, C)
    step = hand.expected()
    assert isinstance(step, ActStep) and step.seat == 3
    assert step.legal.can_check and step.legal.can_raise and step.legal.min_raise_to == 200
    act(hand, 3, R, 300)
    assert to_act(hand) == 4  # the BB raised: everyone acts again
    for seat in (4, 1, 2):
        act(hand, seat, C)
    hand.apply(Collect())
    deal_board(hand, "2c3d4h5s6c")
    assert to_act(hand) == 2


def test_postflop_first_active_left_of_button_skips_folded() -> None:
    hand = make_hand({1: 1000, 2: 1000, 3: 1000, 4: 1000}, button=1)
    deal_hole(hand)
    act(hand, 4, C)
    act(hand, 1, C)
    act(hand, 2, F)
    act(hand, 3, X)
    hand.apply(Collect())
    deal_board(hand, "2c3d4h5s6c")
    assert to_act(hand) == 3


def test_all_but_one_fold_wins_at_once_without_more_cards() -> None:
    hand = make_hand({1: 1000, 2: 1000, 3: 1000}, button=1)
    deal_hole(hand)
    act(hand, 1, R, 300)
    act(hand, 2, F)
    act(hand, 3, F)
    step = hand.expected()
    assert isinstance(step, CollectStep) and dict(step.returned) == {1: 200}
    hand.apply(Collect())
    award = hand.expected()
    assert isinstance(award, AwardStep) and dict(award.payouts) == {1: 250}
    hand.apply(Push(0))
    over = hand.expected()
    assert isinstance(over, HandOverStep)
    assert dict(over.final_stacks) == {1: 1150, 2: 950, 3: 900}
    assert hand.status().board == ()


def test_fold_on_the_flop_ends_the_hand() -> None:
    hand = make_hand({1: 1000, 2: 1000}, button=1)
    deal_hole(hand)
    act(hand, 1, C)
    act(hand, 2, X)
    hand.apply(Collect())
    deal_board(hand, "2c3d4h")
    act(hand, 2, B, 100)
    act(hand, 1, F)
    assert finish(hand) == {1: 900, 2: 1100}


# -- rule 4: minimum bet and raise; incomplete all-in does not reopen -----------------------------


def test_min_bet_is_big_blind_and_min_raise_is_last_full_raise() -> None:
    hand = make_hand({1: 5000, 2: 5000, 3: 5000}, button=1)
    deal_hole(hand)
    act(hand, 1, C)
    act(hand, 2, C)
    act(hand, 3, X)
    hand.apply(Collect())
    deal_board(hand, "2c3d4h")
    before = hand.status()
    with pytest.raises(RuleError) as err:
        act(hand, 2, B, 99)
    assert err.value.rule == "min-bet"
    assert hand.status() == before
    act(hand, 2, B, 100)
    act(hand, 3, R, 400)  # a raise of 300
    step = hand.expected()
    assert isinstance(step, ActStep) and step.legal.min_raise_to == 700
    with pytest.raises(RuleError) as err:
        act(hand, 1, R, 699)
    assert err.value.rule == "min-raise"
    act(hand, 1, R, 700)


def test_incomplete_all_in_raise_does_not_reopen_betting() -> None:
    hand = make_hand({1: 350, 2: 5000, 3: 5000}, button=3)  # SB 1, BB 2, seat 3 first
    deal_hole(hand)
    act(hand, 3, R, 300)
    act(hand, 1, A)  # all-in to 350: +50, less than a full raise of 200
    step = hand.expected()
    assert isinstance(step, ActStep) and step.seat == 2
    assert step.legal.can_raise  # seat 2 has not acted
    act(hand, 2, C)
    step = hand.expected()
    assert isinstance(step, ActStep) and step.seat == 3
    assert not step.legal.can_raise and step.legal.call_amount == 50
    before = hand.status()
    with pytest.raises(RuleError) as err:
        act(hand, 3, R, 1000)
    assert err.value.rule == "betting-not-reopened"
    with pytest.raises(RuleError):
        act(hand, 3, A)
    assert hand.status() == before
    act(hand, 3, C)
    assert isinstance(hand.expected(), CollectStep)


def test_short_all_ins_that_add_up_to_a_full_raise_reopen() -> None:
    hand = make_hand({1: 5000, 2: 5000, 3: 5000, 4: 260, 5: 330}, button=5)
    # SB 1, BB 2, first to act 3
    deal_hole(hand)
    act(hand, 3, R, 200)  # full raise of 100
    act(hand, 4, A)  # 260: +60, short
    act(hand, 5, A)  # 330: +70; 130 over seat 3's 200 -> a full raise for seat 3
    act(hand, 1, F)
    act(hand, 2, C)
    step = hand.expected()
    assert isinstance(step, ActStep) and step.seat == 3 and step.legal.can_raise


def test_all_in_bet_below_big_blind_does_not_reopen_for_checkers() -> None:
    hand = make_hand({1: 5000, 2: 5000, 3: 150}, button=3)
    deal_hole(hand)
    act(hand, 3, C)
    act(hand, 1, C)
    act(hand, 2, X)
    hand.apply(Collect())
    deal_board(hand, "2c3d4h")
    act(hand, 1, X)
    act(hand, 2, X)
    act(hand, 3, A)  # all-in bet of 50, below the big blind
    step = hand.expected()
    assert isinstance(step, ActStep) and step.seat == 1
    assert not step.legal.can_raise and step.legal.call_amount == 50


def test_bet_above_stack_and_check_facing_bet_are_refused() -> None:
    hand = make_hand({1: 1000, 2: 1000, 3: 1000}, button=1)
    deal_hole(hand)
    before = hand.status()
    with pytest.raises(RuleError) as err:
        act(hand, 1, R, 1001)
    assert err.value.rule == "bet-above-stack"
    with pytest.raises(RuleError) as err:
        act(hand, 1, X)
    assert err.value.rule == "check-facing-bet"
    with pytest.raises(RuleError) as err:
        act(hand, 2, C)
    assert err.value.rule == "out-of-turn"
    with pytest.raises(RuleError) as err:
        act(hand, 9, C)
    assert err.value.rule == "unknown-seat"
    with pytest.raises(RuleError) as err:
        hand.apply(Deal(None))
    assert err.value.rule == "wrong-step"
    assert hand.status() == before
    assert hand.check(Act(1, R, 1001)) is not None
    assert hand.check(Act(1, R, 1000)) is None
    assert hand.status() == before


# -- rule 5: big blind all-in for less counts as a full big blind --------------------------------


def test_short_big_blind_all_in_others_call_full_big_blind() -> None:
    hand = make_hand({1: 1000, 2: 1000, 3: 60}, button=1)
    deal_hole(hand)
    step = hand.expected()
    assert isinstance(step, ActStep) and step.seat == 1
    assert step.legal.call_amount == 100 and step.legal.min_raise_to == 200
    act(hand, 1, C)
    act(hand, 2, C)
    collect = hand.expected()
    assert isinstance(collect, CollectStep) and dict(collect.returned) == {}
    assert [(p.amount, p.eligible) for p in collect.into_pots] == [(180, (1, 2, 3)),
                                                                   (80, (1, 2))]


def test_short_big_blind_heads_up_small_blind_calls_full_then_excess_returned() -> None:
    hand = make_hand({1: 1000, 2: 60}, button=1)
    deal_hole(hand, {1: "AhAd", 2: "KhKd"})
    step = hand.expected()
    assert isinstance(step, ActStep) and step.legal.call_amount == 50
    assert not step.legal.can_raise  # nobody could call a raise
    act(hand, 1, C)
    collect = hand.expected()
    assert isinstance(collect, CollectStep) and dict(collect.returned) == {1: 40}
    assert finish(hand, "2c7d9hJs3s") == {1: 1060, 2: 0}


# -- rule 10 and inputs: integrity, transactional apply -----------------------------------------


def test_duplicate_card_refused_state_unchanged() -> None:
    hand = make_hand({1: 1000, 2: 1000}, button=1)
    post_all(hand)
    hand.apply(Deal(parse_cards("Ah")[0]))
    before = hand.status()
    with pytest.raises(DuplicateCardError) as err:
        hand.apply(Deal(parse_cards("Ah")[0]))
    assert isinstance(err.value, RuleError) and err.value.rule == "duplicate-card"
    assert hand.status() == before and len(hand.log) == 3


def test_chip_conservation_breach_raises() -> None:
    hand = make_hand({1: 1000, 2: 1000}, button=1)
    hand._st.stacks[1] += 1  # simulate a bug
    with pytest.raises(ChipConservationError):
        hand.apply(Post(1))


def test_void_returns_every_chip() -> None:
    hand = make_hand({1: 1000, 2: 1000, 3: 1000}, button=1)
    deal_hole(hand)
    act(hand, 1, R, 300)
    refunds = hand.void()
    assert refunds == {1: 300, 2: 50, 3: 100}
    assert hand.phase is Phase.VOID and hand.is_over
    over = hand.expected()
    assert isinstance(over, HandOverStep) and dict(over.final_stacks) == {1: 1000, 2: 1000,
                                                                         3: 1000}
    with pytest.raises(RuleError):
        hand.apply(Act(2, C))


# -- dead button, dead small blind, extra posts --------------------------------------------------


def test_dead_button_and_dead_small_blind_from_config() -> None:
    hand = make_hand({1: 1000, 3: 1000, 4: 1000}, button=2, no_small_blind=True, bb_seat=3)
    assert hand.expected() == PostStep(3, PostKind.BIG_BLIND, 100)
    post_all(hand)
    assert hand.expected() == DealHoleStep(3, 1)
    deal_hole(hand)
    assert to_act(hand) == 4


def test_missed_blinds_posted_live_and_dead() -> None:
    extra = [ExtraPost(4, PostKind.MISSED_BIG, 100), ExtraPost(4, PostKind.DEAD_SMALL, 50)]
    hand = make_hand({1: 1000, 2: 1000, 3: 1000, 4: 1000}, button=1, extra=extra)
    deal_hole(hand)
    status = hand.status()
    assert status.bets[4] == 100 and hand.pots()[0].amount == 50
    act(hand, 4, X)  # live big blind: may check
    act(hand, 1, C)
    act(hand, 2, C)
    act(hand, 3, X)
    hand.apply(Collect())
    assert hand.pots()[0].amount == 450


def test_status_is_json_friendly_and_describes_next_step() -> None:
    hand = make_hand({1: 1000, 2: 1000, 3: 1000}, button=1)
    deal_hole(hand, {1: "AhAd"})
    data = hand.status().to_dict()
    json.dumps(data)
    assert data["expected"] == "Seat 1 to act: fold, call 100, or raise to 200–1,000"
    assert data["hole_cards"]["1"] == ["Ah", "Ad"]
    hand.apply(Act(1, R, 300))
    hand.apply(Act(2, F))
    hand.apply(Act(3, F))
    assert describe_step(hand.expected()) == "Collect the bets: pot 250; return 200 to seat 1"
    hand.apply(Collect())
    assert describe_step(hand.expected()) == "Main pot 250 to seat 1"


# -- irregularities: corrections -----------------------------------------------------------------


def test_replace_hole_burn_and_board_cards() -> None:
    hand = make_hand({1: 1000, 2: 1000}, button=1)
    deal_hole(hand, {1: "AhAd", 2: "KhKd"})
    with pytest.raises(DuplicateCardError):
        hand.replace_hole_card(1, 2, parse_cards("Kh")[0])
    fix = hand.replace_hole_card(1, 2, parse_cards("Ac")[0])
    assert fix.old == parse_cards("Ad")[0] and hand.corrections == [fix]
    assert hand.status().hole_cards[1] == parse_cards("AhAc")
    act(hand, 1, C)
    act(hand, 2, X)
    hand.apply(Collect())
    hand.apply(Deal(parse_cards("Ad")[0]))  # the replaced card is free again
    with pytest.raises(RuleError) as err:
        hand.replace_board_card(0, parse_cards("2c")[0])
    assert err.value.rule == "no-such-card"
    for card in parse_cards("2c3d4h"):
        hand.apply(Deal(card))
    hand.replace_burn(0, parse_cards("9s")[0])
    hand.replace_board_card(2, parse_cards("8h")[0])
    assert hand.status().board == parse_cards("2c3d8h")
    act(hand, 2, X)
    act(hand, 1, X)
    hand.apply(Deal(parse_cards("4h")[0]))  # burn before the turn: 4h is free again
    with pytest.raises(RuleError) as err:
        hand.replace_hole_card(5, 1, None)
    assert err.value.rule == "no-such-card"
    again = Hand.replay(hand.config, [r.input for r in hand.log], hand.corrections)
    assert again.status() == hand.status() and again.corrections == hand.corrections


def test_tabled_all_in_muck_ends_the_hand_without_more_cards() -> None:
    hand = make_hand({1: 1000, 2: 1000}, button=1)
    deal_hole(hand, {1: "AhAd", 2: "KhKd"})
    act(hand, 1, A)
    act(hand, 2, C)
    hand.apply(Collect())
    hand.apply(Deal(None))
    hand.apply(Muck(2))
    assert isinstance(hand.expected(), AwardStep)
    assert finish(hand) == {1: 2000, 2: 0}
    assert len(hand.status().board) == 0


def test_big_blind_keeps_its_option_after_a_short_all_in() -> None:
    # seat 1 (UTG) calls, seat 2 (SB) is all-in for 150: +50, short; the big blind has not acted
    hand = make_hand({1: 5000, 2: 150, 3: 5000}, button=1)  # SB 2, BB 3, first to act 1
    deal_hole(hand)
    act(hand, 1, C)
    act(hand, 2, A)
    step = hand.expected()
    assert isinstance(step, ActStep) and step.seat == 3 and step.legal.can_raise
    assert step.legal.min_raise_to == 250  # the last full raise is still the big blind
    act(hand, 3, C)
    step = hand.expected()
    assert isinstance(step, ActStep) and step.seat == 1 and not step.legal.can_raise


def test_all_in_bet_below_big_blind_sets_min_raise_from_the_big_blind() -> None:
    hand = make_hand({1: 5000, 2: 5000, 3: 150}, button=1)  # SB 2, BB 3
    deal_hole(hand)
    act(hand, 1, C)
    act(hand, 2, C)
    act(hand, 3, X)
    hand.apply(Collect())
    deal_board(hand, "2c3d4h")
    act(hand, 2, X)
    act(hand, 3, A)  # a bet of 50, below the big blind of 100
    step = hand.expected()
    assert isinstance(step, ActStep) and step.seat == 1
    assert step.legal.can_raise and step.legal.min_raise_to == 150


# -- set-up: what every hand of one configuration starts from is worked out once ---------------


def test_hands_of_one_configuration_start_alike_and_stay_apart() -> None:
    """Hands of one :class:`HandConfig` start from the same (checked) set-up, kept once per
    configuration; each hand changes its own state only, and changed stacks are seen."""
    from table_controller.engine import HandConfig

    cfg = HandConfig(seats=(1, 3, 5), stacks={1: 1000, 3: 20, 5: 1000}, button=5, small_blind=50,
                     big_blind=100, ante=10)
    first, second = Hand(cfg), Hand(cfg)
    assert first.status() == second.status()
    post_all(first)
    deal_hole(first)
    assert second.expected() == PostStep(1, PostKind.ANTE, 10)
    assert second.status().stacks == {1: 1000, 3: 20, 5: 1000}
    assert first.status().stacks == {1: 940, 3: 0, 5: 990}  # seat 3 short: all in on the blind
    assert first.starting_stacks == second.starting_stacks == {1: 1000, 3: 20, 5: 1000}
    assert first.deal_steps == second.deal_steps and first.deal_steps is not second.deal_steps
    post_all(second)
    assert second.status() != Hand(cfg).status()  # a new hand starts afresh
    assert Hand(cfg).status().stacks == {1: 1000, 3: 20, 5: 1000}
    cfg.stacks[3] = 500  # type: ignore[index]  # (a Mapping: changed anyway, it is seen)
    third = Hand(cfg)
    post_all(third)
    assert third.status().stacks == {1: 940, 3: 390, 5: 990}
    bad = HandConfig(seats=(1, 2), stacks={1: 1000, 2: 0}, button=1, small_blind=5, big_blind=10)
    for _ in range(2):  # refused each time
        with pytest.raises(RuleError, match="seat 2 has no chips"):
            Hand(bad)
