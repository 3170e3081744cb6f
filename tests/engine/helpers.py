"""Drive hands in tests: scripted decks, a random legal-action player, short constructors."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence

from table_controller.engine import (
    Act,
    ActionKind,
    ActStep,
    AwardStep,
    BoardStep,
    BurnStep,
    Card,
    CollectStep,
    Deal,
    DealHoleStep,
    ExtraPost,
    Hand,
    HandConfig,
    HandOverStep,
    Input,
    PostStep,
    RakeRule,
    ShowStep,
    Step,
    card_input,
    default_input,
    parse_cards,
    wants_card,
)
from table_controller.engine.model import Post


def make_hand(
    stacks: Mapping[int, int],
    button: int,
    sb: int = 50,
    bb: int = 100,
    ante: int = 0,
    bb_ante: int = 0,
    rake: RakeRule | None = None,
    extra: Sequence[ExtraPost] = (),
    **kw: object,
) -> Hand:
    cfg = HandConfig(seats=tuple(stacks), stacks=dict(stacks), button=button, small_blind=sb,
                     big_blind=bb, ante=ante, bb_ante=bb_ante, rake=rake,
                     extra_posts=tuple(extra), **kw)  # type: ignore[arg-type]
    return Hand(cfg)


def post_all(hand: Hand) -> None:
    while isinstance(step := hand.expected(), PostStep):
        hand.apply(Post(step.seat))


def deal_hole(hand: Hand, cards: Mapping[int, str] | None = None,
              deck: list[Card] | None = None) -> None:
    """Deal hole cards: ``cards`` maps seat -> "AhKd"; others come from ``deck`` (or unknown)."""
    post_all(hand)
    given = {s: list(parse_cards(c)) for s, c in (cards or {}).items()}
    while isinstance(step := hand.expected(), DealHoleStep):
        if step.seat in given:
            card: Card | None = given[step.seat][step.round - 1]
        elif deck:
            card = deck.pop()
        else:
            card = None
        hand.apply(Deal(card))


def deal_board(hand: Hand, board: str) -> None:
    """Deal burns and board cards while the hand expects them (burn cards unknown)."""
    cards = list(parse_cards(board))
    while isinstance(step := hand.expected(), BurnStep | BoardStep):
        if isinstance(step, BurnStep):
            hand.apply(Deal(None))
        else:
            hand.apply(Deal(cards[step.slot]))


def act(hand: Hand, seat: int, kind: ActionKind, to: int = 0) -> None:
    hand.apply(Act(seat, kind, to))


def finish(hand: Hand, board: str = "") -> dict[int, int]:
    """Collect, deal the board, show known hands, push pots; return the final stacks."""
    cards = list(parse_cards(board)) if board else []
    while not isinstance(step := hand.expected(), HandOverStep):
        if isinstance(step, BurnStep):
            hand.apply(card_input(None))
        elif isinstance(step, BoardStep):
            hand.apply(card_input(cards[step.slot]))
        elif isinstance(step, CollectStep | ShowStep | AwardStep):
            answer = default_input(step)
            assert answer is not None
            hand.apply(answer)
        else:
            raise AssertionError(f"finish() cannot do {step}")
    return dict(step.final_stacks)


def random_input(step: Step, rng: random.Random, deck: list[Card]) -> Input:
    """A legal input for ``step`` chosen at random."""
    if wants_card(step):
        return card_input(deck.pop())
    if isinstance(step, ActStep):
        legal = step.legal
        options: list[Input] = [Act(step.seat, ActionKind.FOLD)]
        if legal.can_check:
            options += [Act(step.seat, ActionKind.CHECK)] * 3
        if legal.can_call:
            options += [Act(step.seat, ActionKind.CALL)] * 3
        if legal.can_raise:
            kind = ActionKind.BET if legal.is_bet else ActionKind.RAISE
            options.append(Act(step.seat, kind, rng.randint(legal.min_raise_to,
                                                            legal.max_raise_to)))
            options.append(Act(step.seat, kind, legal.min_raise_to))
            options.append(Act(step.seat, ActionKind.ALL_IN))
        return rng.choice(options)
    answer = default_input(step)
    if answer is None:
        raise AssertionError(f"no input for {step}")
    return answer


def play_random(hand: Hand, rng: random.Random, deck: Iterable[Card]) -> None:
    cards = list(deck)
    rng.shuffle(cards)
    for _ in range(1000):
        step = hand.expected()
        if isinstance(step, HandOverStep):
            return
        hand.apply(random_input(step, rng, cards))
    raise AssertionError("hand did not end")
