"""Long random sessions checked hand by hand against the rules of the button and the blinds.

Every hand's button, blinds, deal order and action order are checked against the dealer's
procedure (the player left of the button posts the small blind, the next one the big blind;
cards go out one at a time from the player left of the button; the first betting round starts
left of the big blind, the later ones left of the button), the Poker TDA rules (2024 edition)
32 (dead button), 33 (nobody dodges the blinds), 34 (button heads-up) and 35-C (a re-deal is
an exact replay), and Robert's Rules of Poker (v11), Button and Blind Use (missed blinds are
posted live big and dead small; nobody is dealt in between the button and the small blind).
Players join (posting or waiting), leave, bust on the blinds and rebuy, sit out and come back
(posting or waiting); the table goes heads-up and back. The regular run is 1,000 hands from
fixed seeds; ``-m slow`` runs 10,000.
"""

from __future__ import annotations

import random

import pytest

from table_controller.engine import (
    FULL_DECK,
    ActStep,
    BoardStep,
    DealHoleStep,
    Hand,
    HandOverStep,
    PostKind,
    PostStep,
    Table,
    TableConfig,
    TableStatus,
)
from table_controller.errors import RuleError

from .helpers import random_input


def _clockwise(after: int, seats: int, among: set[int] | frozenset[int]) -> list[int]:
    """The seats of ``among`` clockwise from the one after ``after``."""
    return [s for s in ((after - 1 + i) % seats + 1 for i in range(1, seats + 1)) if s in among]


def _between(after: int, upto: int, seats: int) -> list[int]:
    out, s = [], after % seats + 1
    while s != upto:
        out.append(s)
        s = s % seats + 1
    return out


class Checker:
    """Check one hand against the table it was started from; collect violations."""

    def __init__(self, seats: int) -> None:
        self.n = seats
        self.violations: list[str] = []
        self.replay_of: Hand | None = None

    def fail(self, hand_no: int, what: str) -> None:
        self.violations.append(f"hand {hand_no}: {what}")

    def positions(self, no: int, hand: Hand, before: TableStatus) -> None:
        seats, n = set(hand.seats), self.n
        button, sb, bb = hand.button, hand.sb_seat, hand.bb_seat
        able = {s for s, v in before.seats.items() if not v.sitting_out and v.stack > 0}
        if not seats <= able:
            self.fail(no, f"dealt {sorted(seats - able)} who cannot play")
        if self.replay_of is not None:  # TDA 35-C
            old = self.replay_of
            if (old.button, old.sb_seat, old.bb_seat, old.seats) != (button, sb, bb, hand.seats):
                self.fail(no, "the re-deal is not an exact replay")
            return
        prev_bb = before.bb_position
        posted = {p.seat for p in hand.config.extra_posts}

        def owes(s: int) -> bool:
            v = before.seats[s]
            return v.new or v.missed_bb or v.missed_sb
        # a new game (the first hand, or the posting rules left fewer than two players): every
        # player able is dealt in and owes nothing. Heads-up, a player who owes and posts may
        # be dealt in on the button: its post is the button's small blind (TDA 34)
        fresh = prev_bb is None or any(owes(s) and s not in (bb, sb) and s not in posted
                                       for s in seats)
        if fresh and seats != able:
            self.fail(no, f"a new game deals {sorted(seats)}, not everyone able {sorted(able)}")
        if prev_bb is not None:
            if bb == prev_bb:
                self.fail(no, f"seat {bb} posts the big blind twice in a row")
            skipped = [s for s in _between(prev_bb, bb, n) if s in able]
            if skipped:
                self.fail(no, f"the big blind skipped {skipped}")
        if len(seats) == 2:  # TDA 34
            if not (sb == button and bb in seats and bb != button):
                self.fail(no, f"heads-up: button {button} sb {sb} bb {bb}")
            return
        if button == bb:
            self.fail(no, f"the button {button} is also the big blind")
        if fresh:
            return
        if sb is not None and sb != prev_bb:
            self.fail(no, f"the small blind {sb} is not last hand's big blind {prev_bb}")
        sb_pos = sb if sb is not None else prev_bb
        assert sb_pos is not None
        inside = [s for s in _between(button, sb_pos, n) if s in seats]
        if inside:
            self.fail(no, f"{inside} dealt in between the button and the small blind")
        expected_posts: list[tuple[int, PostKind]] = []
        for s in sorted(seats - {x for x in (sb, bb) if x is not None}):
            v = before.seats[s]
            if v.missed_bb:
                expected_posts += [(s, PostKind.MISSED_BIG), (s, PostKind.DEAD_SMALL)]
            elif v.missed_sb:
                expected_posts.append((s, PostKind.DEAD_SMALL))
            elif v.new:
                expected_posts.append((s, PostKind.NEW_PLAYER))
            if owes(s) and s == button:
                self.fail(no, f"seat {s} owes a post and is dealt in on the button")
            if owes(s) and not v.wants_to_post:
                self.fail(no, f"seat {s} waits for the big blind and is dealt in")
        got = [(p.seat, p.kind) for p in hand.config.extra_posts]
        if got != expected_posts:
            self.fail(no, f"posts {got}, owed {expected_posts}")
        if sb is not None and owes(sb):
            self.fail(no, f"seat {sb} owes a post and is dealt in the small blind")

    def play(self, no: int, hand: Hand, rng: random.Random) -> None:
        """Play the hand at random, checking the deal order and the action order."""
        cards = list(FULL_DECK)
        rng.shuffle(cards)
        seats = set(hand.seats)
        deal_order = _clockwise(hand.button, self.n, seats) * 2
        dealt: list[int] = []
        last_actor: int | None = None
        new_round = True
        for _ in range(2000):
            step = hand.expected()
            if isinstance(step, HandOverStep):
                break
            if isinstance(step, DealHoleStep):
                dealt.append(step.seat)
            elif isinstance(step, (BoardStep, PostStep)):
                new_round = True
            elif isinstance(step, ActStep):
                st = hand.status()
                eligible = seats - st.folded - st.all_in
                if new_round:
                    ref = hand.bb_seat if st.board.count(None) == len(st.board) \
                        and not any(st.board) else hand.button
                    want = _clockwise(ref, self.n, eligible)[0]
                    if step.seat != want:
                        self.fail(no, f"round opens with seat {step.seat}, not {want}")
                elif last_actor is not None:
                    want = _clockwise(last_actor, self.n, eligible)[0]
                    if step.seat != want:
                        self.fail(no, f"seat {step.seat} acts after {last_actor}, not {want}")
                new_round = False
                last_actor = step.seat
            hand.apply(random_input(step, rng, cards))
        else:
            self.fail(no, "the hand did not end")
        if dealt != deal_order[:len(dealt)] or len(dealt) not in (0, len(deal_order)):
            self.fail(no, f"hole cards dealt {dealt}, not {deal_order}")


def run_session(seed: int, hands: int) -> tuple[int, list[str]]:
    """Play ``hands`` hands of random comings and goings; return hands played and violations."""
    rng = random.Random(seed)
    n = rng.choice([6, 9, 10])
    table = Table(TableConfig(seats=n, small_blind=5, big_blind=10, ante=rng.choice([0, 0, 1])))
    check = Checker(n)
    played = names = 0
    for seat in rng.sample(range(1, n + 1), rng.randint(2, n)):
        names += 1
        table.seat_player(seat, f"p{names}", rng.randint(15, 400))
    while played < hands:
        status = table.status()
        target = rng.choice([2, 2, 3, 4, n])  # heads-up often, and back
        for seat in range(1, n + 1) if check.replay_of is None else ():  # re-deal at once
            view = status.seats.get(seat)
            r = rng.random()
            if view is None:
                if len(table.status().seats) < target and r < 0.3:
                    names += 1
                    table.seat_player(seat, f"p{names}", rng.randint(15, 400),
                                      post=rng.choice(["wait", "now"]))  # type: ignore[arg-type]
            elif view.stack == 0:
                if r < 0.5:
                    table.buy_in(seat, rng.randint(15, 400))
                else:
                    table.unseat(seat)
            elif r < 0.04 or (len(table.status().seats) > target + 2 and r < 0.3):
                table.unseat(seat)
            elif not view.sitting_out and r < 0.1:
                table.sit_out(seat)
            elif view.sitting_out and r < 0.35:
                table.sit_in(seat, post=rng.choice([True, False]))
        before = table.status()
        try:
            hand = table.start_hand()
        except RuleError as err:
            if err.rule != "not-enough-players":
                check.fail(played, f"start refused: {err}")
            names += 1
            empty = [s for s in range(1, n + 1) if s not in before.seats]
            if empty:
                table.seat_player(rng.choice(empty), f"p{names}", rng.randint(15, 400))
            for seat, view in before.seats.items():
                if view.sitting_out:
                    table.sit_in(seat)
            continue
        played += 1
        check.positions(played, hand, before)
        if rng.random() < 0.03:  # a misdeal: the next hand is the same one again
            while isinstance(step := hand.expected(), PostStep):
                hand.apply(random_input(step, rng, []))
            hand.void()
            table.finish_hand(hand)
            check.replay_of = hand
            continue
        check.replay_of = None
        check.play(played, hand, rng)
        table.finish_hand(hand)
        after = table.status()
        prev_bb = before.bb_position
        if prev_bb is not None and hand.bb_seat is not None and len(hand.seats) > 2:
            for s in _between(prev_bb, hand.bb_seat, n):
                v = after.seats.get(s)
                if v is not None and before.seats.get(s) is not None \
                        and not before.seats[s].new and s not in hand.seats \
                        and not v.missed_bb:
                    check.fail(played, f"seat {s} passed by the big blind owes nothing")
    return played, check.violations


def test_a_thousand_hands_keep_the_button_and_blind_rules() -> None:
    total, bad = 0, []
    for seed in range(10):
        played, violations = run_session(seed, 100)
        total += played
        bad += [f"seed {seed}, {v}" for v in violations]
    assert total == 1000
    assert bad == []


@pytest.mark.slow
def test_ten_thousand_hands_keep_the_button_and_blind_rules() -> None:
    total, bad = 0, []
    for seed in range(1000, 1020):
        played, violations = run_session(seed, 500)
        total += played
        bad += [f"seed {seed}, {v}" for v in violations]
    assert total == 10_000
    assert bad == []
