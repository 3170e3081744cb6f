"""Dealer words for every step, records as the rules read them, config refusals."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from table_controller.engine import (
    FULL_DECK,
    Act,
    ActionKind,
    ActStep,
    AwardStep,
    BoardStep,
    CollectStep,
    Deal,
    DealHoleStep,
    DuplicateCard,
    HandConfig,
    HandOverStep,
    Input,
    PostKind,
    PostStep,
    PotView,
    ShowStep,
    Street,
    describe_step,
)
from table_controller.engine.hand import Hand, HandConfigError
from table_controller.engine.model import Post
from table_controller.errors import RuleError

from .helpers import act, deal_hole, make_hand


def test_every_step_has_dealer_words() -> None:
    assert describe_step(PostStep(2, PostKind.DEAD_SMALL, 50)) == \
        "Seat 2 posts a dead small blind: 50"
    assert describe_step(DealHoleStep(4, 2)) == "Deal the second hole card to seat 4"
    assert describe_step(BoardStep(Street.TURN, 3)) == "Deal the turn"
    assert describe_step(ShowStep(7)) == "Seat 7 shows"
    assert describe_step(HandOverStep(MappingProxyType({}))) == "Hand over"
    collect = CollectStep((PotView(600, (1, 2, 3)), PotView(300, (2, 3))),
                          MappingProxyType({3: 200}))
    assert describe_step(collect) == \
        "Collect the bets: pots 900 (main 600, side 1 300); return 200 to seat 3"
    split = AwardStep(1, 1001, MappingProxyType({3: 496, 5: 495}), (3,), 10)
    assert describe_step(split) == "Side pot 1 991 split: 496 to seat 3 and 495 to seat 5 (rake 10)"


def test_records_read_actions_as_the_rules_do() -> None:
    hand = make_hand({1: 1000, 2: 250, 3: 1000}, button=1)
    deal_hole(hand)
    act(hand, 1, ActionKind.BET, 300)  # a "bet" facing the blind is a raise
    assert hand.log[-1].kind is ActionKind.RAISE and hand.log[-1].to == 300
    act(hand, 2, ActionKind.ALL_IN)  # all-in for less than the call: a call
    rec = hand.log[-1]
    assert rec.kind is ActionKind.CALL and rec.all_in and rec.amount == 200 and rec.to == 250
    act(hand, 3, ActionKind.ALL_IN)
    rec = hand.log[-1]
    assert rec.kind is ActionKind.RAISE and rec.to == 1000 and rec.amount == 900


def test_call_when_nothing_to_call_is_refused() -> None:
    hand = make_hand({1: 1000, 2: 1000}, button=1)
    deal_hole(hand)
    act(hand, 1, ActionKind.CALL)
    with pytest.raises(RuleError) as err:
        act(hand, 2, ActionKind.CALL)
    assert err.value.rule == "call-nothing"


@pytest.mark.parametrize("kw", [
    {"seats": (1,), "stacks": {1: 100}},
    {"seats": (1, 1), "stacks": {1: 100}},
    {"seats": (1, 2), "stacks": {1: 100, 2: 0}},
    {"seats": (1, 2), "stacks": {1: 100, 2: 100}, "big_blind": 0},
    {"seats": (1, 2), "stacks": {1: 100, 2: 100}, "sb_seat": 5},
    {"seats": (1, 2), "stacks": {1: 100, 2: 100}, "sb_seat": 2, "bb_seat": 2},
])
def test_bad_configs_are_refused(kw: dict[str, object]) -> None:
    args: dict[str, object] = {"button": 1, "small_blind": 1, "big_blind": 2, **kw}
    with pytest.raises(HandConfigError) as err:
        Hand(HandConfig(**args))  # type: ignore[arg-type]
    assert err.value.rule == "config"


def test_check_does_not_change_anything() -> None:
    hand = make_hand({1: 1000, 2: 1000}, button=1)
    deal_hole(hand)
    before = hand.status()
    assert hand.check(Act(1, ActionKind.RAISE, 500)) is None
    assert hand.status() == before and len(hand.log) == 6


def test_records_in_dealer_words() -> None:
    from table_controller.engine import describe_record

    hand = make_hand({1: 1000, 2: 250, 3: 1000}, button=1)
    deal_hole(hand, {1: "AhAd", 2: "KhKd", 3: "QhQd"})
    act(hand, 1, ActionKind.RAISE, 300)
    act(hand, 2, ActionKind.ALL_IN)
    act(hand, 3, ActionKind.FOLD)
    words = [describe_record(r) for r in hand.log]
    assert words[:3] == ["Seat 2 posts the small blind: 50", "Seat 3 posts the big blind: 100",
                         "Seat 2 has its first hole card"]
    assert words[-3:] == ["Seat 1 raises to 300", "Seat 2 calls 200: all-in", "Seat 3 folds"]


def test_apply_all_deals_hole_cards_as_apply_does() -> None:
    """A run of hole cards in one call: the same records, state and checks as one by one."""
    stacks = {1: 1000, 2: 1000, 3: 1000}
    deals = [Deal(c) for c in FULL_DECK[:5]] + [Deal(None)]
    inputs: list[Input] = [Post(2), Post(3), *deals]
    one, batch = make_hand(stacks, 1), make_hand(stacks, 1)
    for inp in inputs:
        one.apply(inp)
    batch.apply_all(inputs)
    assert batch.log == one.log
    assert batch.status() == one.status()
    assert isinstance(batch.expected(), ActStep)
    # a card already out is refused as apply refuses it; the inputs before it stay applied
    again = make_hand(stacks, 1)
    with pytest.raises(DuplicateCard):
        again.apply_all([Post(2), Post(3), Deal(FULL_DECK[0]), Deal(FULL_DECK[0])])
    assert len(again.log) == 3
    assert again.expected() == again.deal_steps[1]
