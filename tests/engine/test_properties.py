"""Hypothesis: random hands driven by random legal inputs keep every invariant."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.engine import (
    FULL_DECK,
    Act,
    ActionKind,
    ActStep,
    AwardStep,
    Card,
    Collect,
    Deal,
    Hand,
    HandConfig,
    HandOverStep,
    Input,
    Push,
    RakeRule,
    Show,
    Step,
)
from table_controller.errors import RuleError

from .helpers import random_input


@st.composite
def hand_configs(draw: st.DrawFn) -> HandConfig:
    n = draw(st.integers(2, 10))
    seats = tuple(sorted(draw(st.sets(st.integers(1, 10), min_size=n, max_size=n))))
    bb = draw(st.sampled_from([2, 10, 100]))
    sb = draw(st.sampled_from([0, bb // 2, bb]))
    stacks = {s: draw(st.one_of(st.integers(1, 3 * bb), st.integers(1, 300 * bb)))
              for s in seats}
    button = draw(st.one_of(st.sampled_from(seats), st.integers(1, 10)))
    ante = draw(st.sampled_from([0, 0, 1, bb // 2]))
    bb_ante = draw(st.sampled_from([0, 0, bb]))
    rake = draw(st.sampled_from([None, RakeRule(500, 3 * bb), RakeRule(1000, 10**6, False)]))
    return HandConfig(seats=seats, stacks=stacks, button=button, small_blind=sb, big_blind=bb,
                      ante=ante, bb_ante=bb_ante, rake=rake)


def _assert_invariants(hand: Hand) -> None:
    status = hand.status()
    in_play = (sum(status.stacks.values()) + sum(status.bets.values())
               + sum(p.amount for p in status.pots) + status.rake)
    assert in_play == sum(status.starting_stacks.values())
    known: list[Card] = [c for c in status.board if c is not None]
    for seat, cards in status.hole_cards.items():
        known += [c for c in cards if c is not None]
        assert len(cards) <= 2, seat
    assert len(known) == len(set(known))
    hidden = [c for seat, cards in status.hole_cards.items() if seat not in status.shown
              for c in cards if c is not None]
    assert hand.hidden_hole_cards() == hidden


def _illegal_inputs(step: Step, hand: Hand, used: list[Card]) -> list[Input]:
    """Inputs that must be refused at ``step``."""
    bad: list[Input] = [Push(99)]
    if used:
        bad.append(Deal(used[0]))
    if isinstance(step, ActStep):
        legal = step.legal
        others = [s for s in hand.seats if s != step.seat]
        bad.append(Act(others[0], ActionKind.CALL))
        bad.append(Act(11, ActionKind.FOLD))
        bad.append(Act(step.seat, ActionKind.RAISE, legal.bet + legal.stack + 1))
        if not legal.can_check:
            bad.append(Act(step.seat, ActionKind.CHECK))
        if legal.can_raise and legal.min_raise_to < legal.max_raise_to:
            bad.append(Act(step.seat, ActionKind.RAISE, legal.min_raise_to - 1))
        if not legal.can_raise and legal.bet + legal.stack > legal.to_call_total:
            bad.append(Act(step.seat, ActionKind.ALL_IN))
        bad.append(Collect())
    else:
        bad.append(Act(hand.seats[0], ActionKind.FOLD))
    if not isinstance(step, AwardStep):
        bad.append(Show(11))
    return bad


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=hand_configs(), rnd=st.randoms(use_true_random=False))
def test_random_hands_keep_invariants(config: HandConfig, rnd: random.Random) -> None:
    hand = Hand(config)
    deck = list(FULL_DECK)
    rnd.shuffle(deck)
    used: list[Card] = []
    for _ in range(400):
        _assert_invariants(hand)
        step = hand.expected()
        if isinstance(step, HandOverStep):
            break
        before = hand.status()
        log_len = len(hand.log)
        for inp in _illegal_inputs(step, hand, used):
            err = hand.check(inp)
            assert err is not None, (step, inp)
            try:
                hand.apply(inp)
            except RuleError as raised:
                assert raised.rule == err.rule
            else:
                raise AssertionError(f"{inp} was applied at {step}")
            assert hand.status() == before and len(hand.log) == log_len
        if isinstance(step, ActStep):
            st = hand._st
            assert st.round.needs_action(step.seat, st.stacks, st.live)
        inp = random_input(step, rnd, deck)
        if isinstance(inp, Deal) and inp.card is not None:
            used.append(inp.card)
        assert hand.check(inp) is None, (step, inp)
        record = hand.apply(inp)
        assert record.seq == log_len and hand.log[-1] is record
    else:
        raise AssertionError("the hand did not end")
    final = dict(step.final_stacks)
    assert sum(final.values()) + hand.rake == sum(config.stacks.values())
    assert all(v >= 0 for v in final.values())


def _choose(step: Step, hand: Hand, rnd: random.Random, deck: list[Card],
            hidden: dict[int, list[Card]]) -> Input:
    """A legal input, with unknown hole cards, early shows, mucks and explicit cards mixed in."""
    from table_controller.engine import BurnStep, DealHoleStep, Muck, ShowStep

    status = hand.status()
    if isinstance(step, DealHoleStep) and rnd.random() < 0.3:
        hidden.setdefault(step.seat, []).append(deck.pop())
        return Deal(None)
    if isinstance(step, BurnStep) and rnd.random() < 0.3:
        deck.pop()
        return Deal(None)
    if isinstance(step, ShowStep):
        seat = step.seat
        if rnd.random() < 0.2 and hand.check(Muck(seat)) is None:
            return Muck(seat)
        if seat in hidden:
            known = [c for c in status.hole_cards[seat] if c is not None]
            return Show(seat, (*known, *hidden[seat]))
    if status.phase.value in ("burning", "board") and rnd.random() < 0.3:
        for seat in hand.seats:
            if seat not in hidden and hand.check(Show(seat)) is None:
                return Show(seat)
    return random_input(step, rnd, deck)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=hand_configs(), rnd=st.randoms(use_true_random=False))
def test_random_hands_with_hidden_cards_mucks_and_voids(config: HandConfig,
                                                        rnd: random.Random) -> None:
    hand = Hand(config)
    deck = list(FULL_DECK)
    rnd.shuffle(deck)
    hidden: dict[int, list[Card]] = {}
    void_at = rnd.choice([None, None, rnd.randint(0, 40)])
    for i in range(400):
        _assert_invariants(hand)
        step = hand.expected()
        if isinstance(step, HandOverStep):
            break
        if i == void_at:
            before = hand.status()
            refunds = hand.void()
            assert sum(refunds.values()) == sum(config.stacks.values()) - sum(
                before.stacks.values())
            final = hand.expected()
            assert isinstance(final, HandOverStep)
            assert dict(final.final_stacks) == dict(config.stacks)
            return
        inp = _choose(step, hand, rnd, deck, hidden)
        assert hand.check(inp) is None, (step, inp)
        record = hand.apply(inp)
        if isinstance(record.step, AwardStep):
            assert sum(record.step.payouts.values()) + record.step.rake == record.step.amount
    else:
        raise AssertionError("the hand did not end")
    assert sum(hand.final_stacks.values()) + hand.rake == sum(config.stacks.values())
