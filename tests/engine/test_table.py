"""Table across hands: button movement, dead button, missed blinds, new players, heads-up."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.engine import (
    FULL_DECK,
    ActStep,
    Deal,
    DealHoleStep,
    Hand,
    Post,
    PostChoice,
    PostKind,
    PostStep,
    RakeRule,
    Table,
    TableConfig,
)
from table_controller.engine.model import Act, ActionKind
from table_controller.errors import ConfigError, RuleError

from .helpers import finish, make_hand, play_random, post_all


def new_table(players: dict[int, int], seats: int = 9, **kw: object) -> Table:
    table = Table(TableConfig(seats=seats, small_blind=50, big_blind=100, **kw))  # type: ignore[arg-type]
    for seat, stack in players.items():
        table.seat_player(seat, f"p{seat}", stack)
    return table


def posts_of(hand: Hand) -> list[tuple[int, PostKind, int]]:
    out = []
    while isinstance(step := hand.expected(), PostStep):
        out.append((step.seat, step.kind, step.amount))
        hand.apply(Post(step.seat))
    return out


def fold_around(table: Table) -> Hand:
    """Start a hand, post, deal unknown cards, everyone folds to the last seat; finish it."""
    hand = table.start_hand()
    play_folds(hand)
    table.finish_hand(hand)
    return hand


def play_folds(hand: Hand) -> None:
    post_all(hand)
    while isinstance(hand.expected(), DealHoleStep):
        hand.apply(Deal(None))
    while isinstance(step := hand.expected(), ActStep):
        hand.apply(Act(step.seat, ActionKind.FOLD))
    finish(hand)


def positions(hand: Hand) -> tuple[int, int | None, int]:
    return hand.button, hand.sb_seat, hand.bb_seat


def test_config_is_validated() -> None:
    with pytest.raises(ConfigError):
        TableConfig(seats=11, small_blind=1, big_blind=2)
    with pytest.raises(ConfigError):
        TableConfig(seats=6, small_blind=3, big_blind=2)


def test_button_moves_one_seat_clockwise() -> None:
    table = new_table({1: 1000, 3: 1000, 5: 1000, 7: 1000})
    seen = [positions(fold_around(table)) for _ in range(5)]
    assert seen == [(1, 3, 5), (3, 5, 7), (5, 7, 1), (7, 1, 3), (1, 3, 5)]


def test_dead_small_blind_then_dead_button_when_big_blind_leaves() -> None:
    table = new_table({1: 1000, 2: 1000, 3: 1000, 4: 1000})
    assert positions(fold_around(table)) == (1, 2, 3)
    table.unseat(3)
    hand = table.start_hand()
    assert positions(hand) == (2, None, 4)  # dead small blind
    assert posts_of(hand) == [(4, PostKind.BIG_BLIND, 100)]
    play_folds(hand)
    table.finish_hand(hand)
    hand = table.start_hand()
    assert positions(hand) == (3, 4, 1)  # dead button on the empty seat 3
    assert hand.expected() == PostStep(4, PostKind.SMALL_BLIND, 50)


def test_missed_big_blind_posts_live_big_and_dead_small_on_return() -> None:
    table = new_table({1: 1000, 2: 1000, 3: 1000, 4: 1000, 5: 1000})
    fold_around(table)  # 1 / 2 / 3
    table.sit_out(4)
    hand = fold_around(table)
    assert positions(hand) == (2, 3, 5) and 4 not in hand.seats
    assert table.status().seats[4].missed_bb
    table.sit_in(4, post=True)
    # seat 4 is between the button (3) and the small blind (5): never dealt in there (Robert's
    # Rules of Poker, Button and Blind Use); it posts once the button has passed
    hand = fold_around(table)
    assert positions(hand) == (3, 5, 1) and 4 not in hand.seats
    hand = table.start_hand()
    assert positions(hand) == (5, 1, 2) and 4 in hand.seats
    assert posts_of(hand) == [(1, PostKind.SMALL_BLIND, 50), (2, PostKind.BIG_BLIND, 100),
                              (4, PostKind.MISSED_BIG, 100), (4, PostKind.DEAD_SMALL, 50)]
    play_folds(hand)
    table.finish_hand(hand)
    assert not table.status().seats[4].missed_bb


def test_missed_blinds_player_may_wait_for_the_big_blind() -> None:
    table = new_table({1: 1000, 2: 1000, 3: 1000, 4: 1000, 5: 1000})
    fold_around(table)
    table.sit_out(4)
    fold_around(table)  # 2 / 3 / 5
    table.sit_in(4)
    hand = fold_around(table)  # 3 / 5 / 1: seat 4 waits
    assert 4 not in hand.seats
    hand = fold_around(table)  # 5 / 1 / 2
    assert 4 not in hand.seats
    hand = table.start_hand()  # button 1, sb 2, bb 3?  no: bb moves to the next player: 3
    assert positions(hand) == (1, 2, 3) and 4 not in hand.seats
    play_folds(hand)
    table.finish_hand(hand)
    hand = table.start_hand()
    assert positions(hand) == (2, 3, 4) and 4 in hand.seats
    assert (4, PostKind.BIG_BLIND, 100) in posts_of(hand)


def test_missed_small_blind_only_posts_dead_small() -> None:
    table = new_table({1: 1000, 2: 1000, 3: 1000, 4: 1000})
    fold_around(table)  # 1 / 2 / 3
    table.sit_out(3)  # the big blind sits out: next hand its small blind is dead
    hand = fold_around(table)
    assert positions(hand) == (2, None, 4)
    status = table.status().seats[3]
    assert status.missed_sb and not status.missed_bb
    table.sit_in(3, post=True)
    hand = table.start_hand()  # button 3 (its own seat): it must wait
    assert positions(hand) == (3, 4, 1) and 3 not in hand.seats
    play_folds(hand)
    table.finish_hand(hand)
    hand = table.start_hand()
    assert 3 in hand.seats
    assert (3, PostKind.DEAD_SMALL, 50) in posts_of(hand)


def test_new_player_posts_or_waits_and_never_enters_on_the_button() -> None:
    table = new_table({1: 1000, 2: 1000, 3: 1000})
    fold_around(table)  # 1 / 2 / 3
    table.seat_player(5, "newcomer", 1000, post=True)
    table.seat_player(6, "waiter", 1000)
    hand = table.start_hand()
    assert positions(hand) == (2, 3, 5)  # the big blind reaches seat 5 anyway
    assert 6 not in hand.seats
    play_folds(hand)
    table.finish_hand(hand)
    table.seat_player(4, "late", 1000, post=True)
    hand = table.start_hand()
    assert positions(hand) == (3, 5, 6)
    # seat 4 sits between the button and the small blind: it waits (Robert's Rules of Poker,
    # Button and Blind Use), and posts its big blind once the button has passed it
    assert 4 not in hand.seats
    play_folds(hand)
    table.finish_hand(hand)
    hand = table.start_hand()
    assert positions(hand) == (5, 6, 1)
    assert 4 in hand.seats
    assert (4, PostKind.NEW_PLAYER, 100) in posts_of(hand)


def test_heads_up_button_posts_small_blind_and_blinds_alternate() -> None:
    table = new_table({2: 1000, 6: 1000})
    seen = [positions(fold_around(table)) for _ in range(3)]
    assert seen == [(2, 2, 6), (6, 6, 2), (2, 2, 6)]


def test_three_to_heads_up_nobody_posts_big_blind_twice() -> None:
    table = new_table({1: 1000, 2: 1000, 3: 1000})
    assert positions(fold_around(table)) == (1, 2, 3)
    table.unseat(2)
    hand = fold_around(table)
    assert positions(hand) == (3, 3, 1)


def test_void_hand_changes_nothing() -> None:
    table = new_table({1: 1000, 2: 1000, 3: 1000})
    hand = table.start_hand()
    post_all(hand)
    hand.void()
    table.finish_hand(hand)
    assert table.status().hands_played == 0
    assert all(v.stack == 1000 for v in table.status().seats.values())
    assert positions(table.start_hand()) == positions(hand)


def test_seat_changes_refused_during_the_hand() -> None:
    table = new_table({1: 1000, 2: 1000, 3: 1000}, max_buy_in=2000)
    hand = table.start_hand()
    for bad in (lambda: table.unseat(1), lambda: table.buy_in(2, 100),
                lambda: table.start_hand(), lambda: table.finish_hand(hand),
                lambda: table.seat_player(1, "x", 100), lambda: table.seat_player(10, "x", 100),
                lambda: table.set_button(0)):
        with pytest.raises(RuleError):
            bad()
    with pytest.raises(RuleError):
        table.finish_hand(make_hand({1: 10, 2: 10}, button=1))
    table.seat_player(4, "x", 500)
    with pytest.raises(RuleError) as err:
        table.buy_in(4, 1501)
    assert err.value.rule == "buy-in"
    table.buy_in(4, 1000)
    table.add_on(4, 500)
    assert table.status().seats[4].stack == 2000


def test_rake_adds_up_at_the_table() -> None:
    table = new_table({1: 1000, 2: 1000}, rake=RakeRule(1000, 50))
    rng = random.Random(1)
    total = 2000
    for _ in range(20):
        if sum(1 for v in table.status().seats.values() if v.stack > 0) < 2:
            break
        hand = table.start_hand()
        play_random(hand, rng, FULL_DECK)
        table.finish_hand(hand)
    status = table.status()
    assert sum(v.stack for v in status.seats.values()) + status.rake_total == total
    assert status.to_dict()["rake_total"] == status.rake_total


def _assert_refused_unchanged(table: Table, hand: Hand) -> None:
    before = table.status()
    seat = hand.seats[0]
    for bad in (lambda: table.unseat(seat), lambda: table.buy_in(seat, 10),
                lambda: table.seat_player(seat, "x", 10), table.start_hand,
                lambda: table.finish_hand(hand), lambda: table.buy_in(11, 10)):
        with pytest.raises(RuleError):
            bad()
        assert table.status() == before


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_random_sessions_keep_chips_and_blind_order(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(2, 10)
    table = Table(TableConfig(seats=n, small_blind=5, big_blind=10, ante=rng.choice([0, 1]),
                              rake=rng.choice([None, RakeRule(500, 20)])))
    total = 0
    for seat in range(1, n + 1):
        if rng.random() < 0.8:
            stack = rng.randint(20, 1000)
            table.seat_player(seat, f"p{seat}", stack, post=rng.random() < 0.5)
            total += stack
    last_bb: int | None = None
    for _ in range(12):
        # random comings and goings between hands
        for seat in range(1, n + 1):
            r = rng.random()
            view = table.status().seats.get(seat)
            if view is None and r < 0.05:
                table.seat_player(seat, f"q{seat}", 300, post=rng.random() < 0.5)
                total += 300
            elif view is not None and r < 0.05:
                total -= table.unseat(seat)
            elif view is not None and r < 0.12:
                table.sit_out(seat)
            elif view is not None and view.sitting_out and r < 0.4:
                table.sit_in(seat, post=rng.random() < 0.5)
        try:
            hand = table.start_hand()
        except RuleError as err:
            assert err.rule == "not-enough-players"
            continue
        assert hand.bb_seat != last_bb or len(hand.seats) == 2 or last_bb is None
        last_bb = hand.bb_seat
        _assert_refused_unchanged(table, hand)
        play_random(hand, rng, FULL_DECK)
        table.finish_hand(hand)
        status = table.status()
        assert sum(v.stack for v in status.seats.values()) + status.rake_total == total


def test_new_player_in_a_left_big_blind_seat_owes_no_missed_blind() -> None:
    table = new_table({1: 1000, 2: 1000, 3: 1000, 4: 1000})
    fold_around(table)  # 1 / 2 / 3
    table.unseat(3)
    table.seat_player(3, "newcomer", 1000)  # waits for the big blind
    hand = fold_around(table)
    assert positions(hand) == (2, None, 4) and 3 not in hand.seats
    view = table.status().seats[3]
    assert view.new and not view.missed_sb and not view.missed_bb


# -- re-deal after a misdeal (TDA 2024 rule 35-C: an exact replay) ------------------------------


def _voided(table: Table) -> Hand:
    hand = table.start_hand()
    post_all(hand)
    hand.void()
    table.finish_hand(hand)
    return hand


def test_redeal_after_a_misdeal_is_an_exact_replay_on_the_first_hand() -> None:
    table = new_table({1: 1000, 3: 1000, 5: 1000})
    voided = _voided(table)
    table.seat_player(2, "sat down during the misdeal", 1000, post=True)
    table.seat_player(6, "waits", 1000)
    again = table.start_hand()
    assert again.config == voided.config  # same button, blinds and seats dealt in
    assert positions(again) == (1, 3, 5) and 2 not in again.seats


def test_redeal_after_a_misdeal_is_an_exact_replay_later_on() -> None:
    table = new_table({1: 1000, 3: 1000, 5: 1000, 7: 1000})
    fold_around(table)  # 1 / 3 / 5
    voided = _voided(table)  # 3 / 5 / 7
    table.seat_player(8, "newcomer", 1000, post=True)
    again = table.start_hand()
    assert positions(again) == positions(voided) == (3, 5, 7)
    assert again.seats == voided.seats and 8 not in again.seats
    play_folds(again)
    table.finish_hand(again)
    hand = table.start_hand()  # the replay is over: the big blind reaches the newcomer
    assert positions(hand) == (5, 7, 8) and 8 in hand.seats


def test_redeal_leaves_out_a_player_who_left_but_keeps_the_blinds() -> None:
    table = new_table({1: 1000, 3: 1000, 5: 1000, 7: 1000})
    voided = _voided(table)
    table.unseat(7)  # not a blind
    again = table.start_hand()
    assert positions(again) == positions(voided) and again.seats == (1, 3, 5)
    table = new_table({1: 1000, 3: 1000, 5: 1000, 7: 1000})
    _voided(table)
    table.unseat(5)  # the big blind left: no replay possible, the normal plan
    again = table.start_hand()
    assert again.bb_seat == 7


# -- posting in (Robert's Rules of Poker, Button and Blind Use; TDA 2024 rules 32 and 34) -------


def test_post_choice_is_named_and_checked() -> None:
    table = new_table({1: 1000, 3: 1000, 5: 1000})
    fold_around(table)
    table.seat_player(7, "poster", 1000, post=PostChoice.NOW)
    table.seat_player(8, "waiter", 1000, post="wait")  # type: ignore[arg-type]
    with pytest.raises(RuleError) as err:
        table.seat_player(9, "x", 1000, post="later")  # type: ignore[arg-type]
    assert err.value.rule == "post-choice"
    hand = table.start_hand()  # 3 / 5 / 7: the big blind reaches seat 7 anyway
    assert positions(hand) == (3, 5, 7) and 8 not in hand.seats


def test_out_of_heads_up_the_button_is_never_the_big_blind() -> None:
    table = new_table({1: 1000, 5: 1000})
    assert positions(fold_around(table)) == (1, 1, 5)
    table.seat_player(3, "newcomer", 1000, post=True)  # between the button and the big blind
    hand = table.start_hand()
    # the big blind moves on to seat 1, the small blind is seat 5, the button right of it
    # (dead, seat 4): the newcomer, between the big blind and the button, posts and plays
    assert positions(hand) == (4, 5, 1) and hand.seats == (1, 3, 5)
    assert (3, PostKind.NEW_PLAYER, 100) in posts_of(hand)


def test_out_of_heads_up_a_newcomer_on_the_button_waits() -> None:
    table = new_table({1: 1000, 3: 1000})
    assert positions(fold_around(table)) == (1, 1, 3)
    table.seat_player(2, "newcomer", 1000, post=True)  # right of the small blind: the button
    hand = table.start_hand()
    assert hand.seats == (1, 3) and positions(hand) == (3, 3, 1)  # heads-up again, alternating
    play_folds(hand)
    table.finish_hand(hand)
    hand = table.start_hand()
    assert positions(hand) == (3, 1, 2) and hand.seats == (1, 2, 3)  # its big blind


def test_a_newcomer_alone_with_one_player_starts_a_new_game() -> None:
    table = new_table({1: 1000, 3: 1000})
    fold_around(table)
    table.unseat(3)
    table.seat_player(5, "waits", 1000)  # would wait for a big blind that never comes
    hand = table.start_hand()
    assert hand.seats == (1, 5) and not hand.config.extra_posts
