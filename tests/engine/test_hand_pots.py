"""The engine's pots, one test (or a few) per rule (docs/engine.md), through the public Hand API.

Rules 6 (bets in front, side pots, uncalled bets), 7 (showdown), 8 (split pots, odd chips) and
the rake; the other rules: ``tests/engine/test_hand_rules.py``.
"""

from __future__ import annotations

import pytest

from table_controller.engine import (
    ActionKind,
    AwardStep,
    BurnStep,
    Collect,
    CollectStep,
    Deal,
    Muck,
    Push,
    RakeRule,
    Show,
    ShowStep,
    Street,
    parse_cards,
)
from table_controller.errors import (
    DuplicateCardError,
    RuleError,
)

from .helpers import act, deal_board, deal_hole, finish, make_hand

F, X, C, B, R, A = (ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.BET,
                    ActionKind.RAISE, ActionKind.ALL_IN)


# -- rule 6: bets in front, side pots, uncalled bets ---------------------------------------------


def test_bets_stay_in_front_until_collect() -> None:
    hand = make_hand({1: 1000, 2: 1000, 3: 1000}, button=1)
    deal_hole(hand)
    act(hand, 1, R, 300)
    status = hand.status()
    assert dict(status.bets) == {1: 300, 2: 50, 3: 100} and status.pots == ()
    act(hand, 2, C)
    act(hand, 3, C)
    assert hand.pots() == ()
    hand.apply(Collect())
    assert hand.pots()[0].amount == 900 and dict(hand.status().bets) == {}


def test_side_pots_three_all_in_levels() -> None:
    stacks = {1: 100, 2: 200, 3: 300, 4: 1000, 5: 1000}
    hand = make_hand(stacks, button=5, sb=5, bb=10)
    deal_hole(hand, {1: "AhAd", 2: "KhKd", 3: "QhQd", 4: "JhJd", 5: "2c7s"})
    act(hand, 3, A)
    act(hand, 4, A)
    act(hand, 5, F)
    act(hand, 1, A)
    act(hand, 2, A)
    collect = hand.expected()
    assert isinstance(collect, CollectStep)
    assert dict(collect.returned) == {4: 700}
    assert [(p.amount, p.eligible) for p in collect.into_pots] == [
        (400, (1, 2, 3, 4)), (300, (2, 3, 4)), (200, (3, 4))]
    final = finish(hand, "2d3c8s9cTd")
    assert final == {1: 400, 2: 300, 3: 200, 4: 700, 5: 1000}


def test_uncalled_bet_returned_on_the_river() -> None:
    hand = make_hand({1: 1000, 2: 1000}, button=1)
    deal_hole(hand)
    act(hand, 1, C)
    act(hand, 2, X)
    hand.apply(Collect())
    deal_board(hand, "2c3d4h5s6c")
    for _ in range(2):
        act(hand, 2, X)
        act(hand, 1, X)
        deal_board(hand, "2c3d4h5s6c")
    act(hand, 2, B, 500)
    act(hand, 1, F)
    step = hand.expected()
    assert isinstance(step, CollectStep) and dict(step.returned) == {2: 500}
    assert finish(hand) == {1: 900, 2: 1100}


# -- rule 7: showdown order, show in full, best five of seven ------------------------------------


def test_showdown_last_aggressor_shows_first() -> None:
    hand = make_hand({1: 1000, 2: 1000, 3: 1000}, button=1)
    deal_hole(hand, {1: "AhAd", 2: "KhKd", 3: "QhQd"})
    act(hand, 1, C)
    act(hand, 2, C)
    act(hand, 3, X)
    hand.apply(Collect())
    for _ in range(2):
        deal_board(hand, "2c3d8hJs5d")
        for seat in (2, 3, 1):
            act(hand, seat, X)
    deal_board(hand, "2c3d8hJs5d")
    act(hand, 2, X)
    act(hand, 3, B, 100)
    act(hand, 1, C)
    act(hand, 2, C)
    hand.apply(Collect())
    assert hand.expected() == ShowStep(3)
    hand.apply(Show(3))
    assert hand.expected() == ShowStep(1)


def test_showdown_nobody_bet_first_left_of_button_and_muck_forfeits() -> None:
    hand = make_hand({1: 1000, 2: 1000, 3: 1000}, button=1)
    deal_hole(hand, {1: "AhAd", 2: "KhKd", 3: "QhQd"})
    act(hand, 1, C)
    act(hand, 2, C)
    act(hand, 3, X)
    hand.apply(Collect())
    for _ in range(3):
        deal_board(hand, "2c3d8hJs5d")
        for seat in (2, 3, 1):
            act(hand, seat, X)
    assert hand.expected() == ShowStep(2)
    hand.apply(Show(2))
    assert hand.expected() == ShowStep(3)
    hand.apply(Muck(3))
    assert hand.expected() == ShowStep(1)
    hand.apply(Muck(1))  # the aces muck: kings win
    assert finish(hand) == {1: 900, 2: 1200, 3: 900}


def test_last_contender_cannot_muck_and_need_not_show() -> None:
    hand = make_hand({1: 1000, 2: 1000}, button=1)
    deal_hole(hand)
    act(hand, 1, C)
    act(hand, 2, X)
    hand.apply(Collect())
    for _ in range(3):
        deal_board(hand, "2c3d8hJs5d")
        act(hand, 2, X)
        act(hand, 1, X)
    hand.apply(Muck(2))
    assert isinstance(hand.expected(), AwardStep)
    assert finish(hand) == {1: 1100, 2: 900}


def test_show_must_be_in_full_and_match_the_dealt_cards() -> None:
    hand = make_hand({1: 1000, 2: 1000}, button=1)
    deal_hole(hand, {1: "AhAd"})
    act(hand, 1, C)
    act(hand, 2, X)
    hand.apply(Collect())
    for _ in range(3):
        deal_board(hand, "2c3d8hJs5d")
        act(hand, 2, X)
        act(hand, 1, X)
    with pytest.raises(RuleError) as err:
        hand.apply(Show(2))
    assert err.value.rule == "show-unknown"
    with pytest.raises(RuleError) as err:
        hand.apply(Show(2, parse_cards("Kh")))
    assert err.value.rule == "show-in-full"
    with pytest.raises(DuplicateCardError):
        hand.apply(Show(2, parse_cards("AhKd")))
    hand.apply(Show(2, parse_cards("KhKd")))
    with pytest.raises(RuleError) as err:
        hand.apply(Show(1, parse_cards("AcAs")))
    assert err.value.rule == "show-mismatch"
    hand.apply(Show(1))
    assert finish(hand) == {1: 1100, 2: 900}


def test_kickers_decide_and_suits_never_break_ties() -> None:
    hand = make_hand({1: 1000, 2: 1000, 3: 1000}, button=1)
    deal_hole(hand, {1: "AsQc", 2: "AdJc", 3: "AcQd"})
    act(hand, 1, C)
    act(hand, 2, C)
    act(hand, 3, X)
    hand.apply(Collect())
    for _ in range(3):
        deal_board(hand, "AhKd7c4s2h")
        for seat in (2, 3, 1):
            act(hand, seat, X)
    assert finish(hand) == {1: 1050, 2: 900, 3: 1050}


def test_tabled_all_in_shows_before_the_board_and_after() -> None:
    hand = make_hand({1: 1000, 2: 1000, 3: 1000}, button=1)
    deal_hole(hand, {1: "AhAd", 2: "KhKd", 3: "QhQd"})
    act(hand, 1, A)
    act(hand, 2, C)
    act(hand, 3, F)
    assert hand.status().tabled
    hand.apply(Show(1))  # tabled at once, even before the bets are collected
    with pytest.raises(RuleError):
        hand.apply(Muck(2))  # a concession waits for the collect (the pots are cut then)
    hand.apply(Collect())
    assert hand.expected() == BurnStep(Street.FLOP)
    hand.apply(Show(2))  # tabled before the flop
    hand.apply(Deal(None))
    with pytest.raises(RuleError) as err:
        hand.apply(Show(1))
    assert err.value.rule == "already-shown"
    deal_board(hand, "2c3d8hJs5d")
    assert isinstance(hand.expected(), AwardStep)
    assert finish(hand) == {1: 2100, 2: 0, 3: 900}


def test_tabled_all_in_shows_after_board_in_order_from_button() -> None:
    hand = make_hand({1: 1000, 2: 1000, 3: 1000}, button=1)
    deal_hole(hand, {1: "AhAd", 2: "KhKd", 3: "QhQd"})
    act(hand, 1, A)
    act(hand, 2, C)
    act(hand, 3, F)
    hand.apply(Collect())
    deal_board(hand, "2c3d8hJs5d")
    assert hand.expected() == ShowStep(2)


# -- rule 8: split pots, odd chips one each clockwise from the button -----------------------------


def test_odd_chips_one_each_clockwise_from_button() -> None:
    # ante 1 x 4 + 4 x 100 = 404; seat 4 folds on the flop; 3 winners share 404: 135, 135, 134
    hand = make_hand({1: 1000, 2: 1000, 3: 1000, 4: 1000}, button=2, ante=1)
    deal_hole(hand, {1: "2h3h", 2: "2d3d", 3: "2s3s", 4: "AhAd"})
    for seat in (1, 2, 3):
        act(hand, seat, C)
    act(hand, 4, X)
    hand.apply(Collect())
    deal_board(hand, "AsKsQsJsTs")
    act(hand, 3, X)
    act(hand, 4, F)
    act(hand, 1, X)
    act(hand, 2, X)
    for _ in range(2):
        deal_board(hand, "AsKsQsJsTs")
        for seat in (3, 1, 2):
            act(hand, seat, X)
    while isinstance(step := hand.expected(), ShowStep):
        hand.apply(Show(step.seat))
    award = hand.expected()
    assert isinstance(award, AwardStep)
    assert award.odd_chip_seats == (3, 1)
    assert dict(award.payouts) == {3: 135, 1: 135, 2: 134}


def test_each_pot_split_on_its_own() -> None:
    # seat 1 all-in 101 (ante 1); main pot 303 split between 1 and 2; side pot to 2 and 3 split
    hand = make_hand({1: 101, 2: 1000, 3: 1000}, button=3, ante=1, sb=50, bb=100)
    deal_hole(hand, {1: "2h3h", 2: "2d3d", 3: "4c5c"})
    act(hand, 3, R, 301)
    act(hand, 1, A)
    act(hand, 2, C)
    hand.apply(Collect())
    pots = hand.pots()
    assert [(p.amount, p.eligible) for p in pots] == [(303, (1, 2, 3)), (402, (2, 3))]
    deal_board(hand, "AsKsQsJsTs")
    for _ in range(3):
        act(hand, 2, X)
        act(hand, 3, X)
        deal_board(hand, "AsKsQsJsTs")
    while isinstance(step := hand.expected(), ShowStep):
        hand.apply(Show(step.seat))
    side = hand.expected()
    assert isinstance(side, AwardStep) and side.pot_index == 1
    assert dict(side.payouts) == {2: 201, 3: 201}
    hand.apply(Push(1))
    main = hand.expected()
    assert isinstance(main, AwardStep) and dict(main.payouts) == {1: 101, 2: 101, 3: 101}


# -- rake -----------------------------------------------------------------------------------------


def test_rake_percentage_cap_and_no_flop_no_drop() -> None:
    rake = RakeRule(percent_bp=500, cap=30)
    hand = make_hand({1: 1000, 2: 1000}, button=1, rake=rake)
    deal_hole(hand)
    act(hand, 1, R, 300)
    act(hand, 2, F)
    assert finish(hand) == {1: 1100, 2: 900}
    assert hand.rake == 0
    hand = make_hand({1: 1000, 2: 1000}, button=1, rake=rake)
    deal_hole(hand, {1: "AhAd", 2: "KhKd"})
    act(hand, 1, C)
    act(hand, 2, X)
    hand.apply(Collect())
    deal_board(hand, "2c3d8hJs5d")
    act(hand, 2, B, 100)
    act(hand, 1, F)
    hand.apply(Collect())
    award = hand.expected()
    assert isinstance(award, AwardStep) and award.rake == 10 and award.amount == 200
    assert finish(hand) == {1: 900, 2: 1090}
    assert hand.rake == 10
    hand = make_hand({1: 1000, 2: 1000}, button=1, rake=rake)
    deal_hole(hand, {1: "AhAd", 2: "KhKd"})
    act(hand, 1, A)
    act(hand, 2, C)
    assert finish(hand, "2c3d8hJs5d") == {1: 1970, 2: 0}
