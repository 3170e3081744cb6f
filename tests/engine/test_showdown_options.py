"""Showdown order with side pots, and the house options of the engine (each rule named)."""

from __future__ import annotations

from table_controller.engine import (
    ActionKind,
    ActStep,
    BurnStep,
    Card,
    Deal,
    DealHoleStep,
    Hand,
    HandOverStep,
    PostKind,
    PostStep,
    ShowStep,
)
from table_controller.engine.answers import default_input

from .helpers import act, make_hand, post_all

A, F, C, K = ActionKind.ALL_IN, ActionKind.FOLD, ActionKind.CALL, ActionKind.CHECK


def _deal(hand: Hand) -> None:
    post_all(hand)
    cards = iter(Card.parse(c) for c in ("As", "Ad", "Ks", "Kd", "Qs", "Qd"))
    while isinstance(hand.expected(), DealHoleStep):
        hand.apply(Deal(next(cards)))


def _run_out(hand: Hand, script: tuple[tuple[ActionKind, int], ...] = ()) -> list[int]:
    """Play ``script`` (kind, to) at the next action steps, then check every round down; deal
    the board; return the seats in the order they show."""
    board = iter(Card.parse(c) for c in ("2c", "7d", "9h", "Js", "3c"))
    todo = list(script)
    shows: list[int] = []
    while not isinstance(step := hand.expected(), HandOverStep):
        if isinstance(step, ActStep):
            kind, to = todo.pop(0) if todo else (K, 0)
            act(hand, step.seat, kind, to)
            continue
        if isinstance(step, ShowStep):
            shows.append(step.seat)
        answer = default_input(step)
        if answer is None:  # a card: burns unknown, the board from the list
            answer = Deal(None if isinstance(step, BurnStep) else next(board))
        hand.apply(answer)
    return shows


def _side_pot_hand(*, table_all_ins: bool = True) -> Hand:
    # button 2, small blind 3 (short: 300), big blind 1; seat 3 is all-in for the main pot
    # only, seats 1 and 2 build a side pot on the flop, then check it down
    hand = make_hand({1: 1000, 2: 1000, 3: 300}, button=2, table_all_ins=table_all_ins)
    _deal(hand)
    act(hand, 2, C)
    act(hand, 3, A)
    act(hand, 1, C)
    act(hand, 2, C)
    return hand


def test_players_in_a_side_pot_show_before_the_main_pot_all_in() -> None:
    """Robert's Rules of Poker v11, Showdown 7: the side pot shows first, then the main."""
    hand = _side_pot_hand(table_all_ins=False)
    shows = _run_out(hand, ((ActionKind.BET, 200), (C, 0)))
    # without side pots the order would be left of the button: 3, 1, 2
    assert shows == [1, 2, 3]
    assert _run_out(_side_pot_hand(), ((ActionKind.BET, 200), (C, 0))) == [1, 2, 3]


def test_no_side_pot_keeps_the_dealers_order() -> None:
    """Seeds' order: with no bet on the river, the first seat left of the button shows first."""
    hand = make_hand({1: 1000, 2: 1000, 3: 1000}, button=2)
    _deal(hand)
    act(hand, 2, C)
    act(hand, 3, C)
    act(hand, 1, K)
    assert _run_out(hand) == [3, 1, 2]


def test_all_in_hands_are_tabled_by_default_tda_16() -> None:
    """TDA 2024 rule 16: all hands face up once a player is all-in and the action is over."""
    hand = make_hand({1: 1000, 2: 1000}, button=1)
    _deal(hand)
    act(hand, 1, A)
    act(hand, 2, C)
    assert hand.status().tabled


def test_house_may_keep_all_in_hands_down_to_the_showdown() -> None:
    """House option ``table_all_ins = False``: shown at the showdown in order (RRoP Showdown)."""
    hand = make_hand({1: 1000, 2: 1000}, button=1, table_all_ins=False)
    _deal(hand)
    act(hand, 1, A)
    act(hand, 2, C)
    assert not hand.status().tabled
    assert _run_out(hand) == [2, 1]


def _posts(hand: Hand) -> list[tuple[int, PostKind, int]]:
    out = []
    while isinstance(step := hand.expected(), PostStep):
        out.append((step.seat, step.kind, step.amount))
        answer = default_input(step)
        assert answer is not None
        hand.apply(answer)
    return out


def test_short_big_blind_posts_the_blind_first_tda_2024() -> None:
    """TDA 2024 rule 2 (the default): a short big blind's chips go to the blind first."""
    hand = make_hand({1: 1000, 2: 1000, 3: 120}, button=1, bb_ante=100)
    assert _posts(hand) == [(2, PostKind.SMALL_BLIND, 50), (3, PostKind.BIG_BLIND, 100),
                            (3, PostKind.BB_ANTE, 20)]


def test_short_big_blind_posts_the_ante_first_tda_2019() -> None:
    """TDA 2019 rule 2 (house option ``bb_ante_first``): the ante first."""
    hand = make_hand({1: 1000, 2: 1000, 3: 120}, button=1, bb_ante=100, bb_ante_first=True)
    assert _posts(hand) == [(2, PostKind.SMALL_BLIND, 50), (3, PostKind.BB_ANTE, 100),
                            (3, PostKind.BIG_BLIND, 20)]
