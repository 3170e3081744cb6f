"""Rake on a split pot, a house option (``split_pot_rake``; engine ``odd_chips_to_rake``).

Default: the rake comes off the pot, the rest is split and its odd chips go one each to the
winners clockwise from the button (Robert's Rules of Poker, Ties 3-5: the odd chip is broken
down to the smallest unit, no player gets more than one, the first hand clockwise from the
button gets it; taking the rake off the pot first is house practice). House option: the odd
chips go to the rake while the hand's rake stays within the cap. The Poker TDA rules (2024) are
tournament rules and take no rake.
"""

from __future__ import annotations

import pytest

from table_controller.controller.house_rules import HouseRules
from table_controller.engine import (
    Act,
    ActionKind,
    ActStep,
    AwardStep,
    Hand,
    HandConfig,
    RakeRule,
    Show,
    ShowStep,
    card_input,
    default_input,
    parse_cards,
    wants_card,
)

# Both players hold low cards; the board (a royal straight) plays for both: a split pot.
HOLES = parse_cards("2c 3d 2h 3s")
BOARD = parse_cards("Ah Kh Qd Jc Ts")


def _split_pot(odd_to_rake: bool, cap: int) -> AwardStep:
    config = HandConfig(seats=(1, 2), stacks={1: 51, 2: 51}, button=1, small_blind=1,
                        big_blind=2, rake=RakeRule(percent_bp=500, cap=cap),
                        odd_chips_to_rake=odd_to_rake)
    hand = Hand(config)
    holes, burns, board = iter(HOLES), 0, iter(BOARD)
    award = None
    while not hand.is_over:
        step = hand.expected()
        if isinstance(step, ActStep):
            kind = ActionKind.ALL_IN if step.seat == 1 else ActionKind.CALL
            hand.apply(Act(step.seat, kind))
        elif wants_card(step):
            name = type(step).__name__
            if name == "DealHoleStep":
                hand.apply(card_input(next(holes)))
            elif name == "BurnStep":
                burns += 1
                hand.apply(card_input(None))
            else:
                hand.apply(card_input(next(board)))
        elif isinstance(step, ShowStep):
            hand.apply(Show(step.seat))
        else:
            if isinstance(step, AwardStep):
                award = step
            inp = default_input(step)
            assert inp is not None
            hand.apply(inp)
    assert award is not None
    return award


def test_default_rake_before_the_split_odd_chip_to_the_first_winner_left_of_the_button() -> None:
    # Pot 102, 5 % rake = 5; 97 split: 49 to seat 2 (first left of the button), 48 to seat 1.
    award = _split_pot(False, cap=100)
    assert (award.amount, award.rake) == (102, 5)
    assert dict(award.payouts) == {2: 49, 1: 48} and award.odd_chip_seats == (2,)


def test_house_option_odd_chip_to_the_rake() -> None:
    award = _split_pot(True, cap=100)
    assert award.rake == 6 and dict(award.payouts) == {2: 48, 1: 48}
    assert award.odd_chip_seats == ()


def test_odd_chip_stays_with_the_winners_when_the_cap_is_reached() -> None:
    award = _split_pot(True, cap=5)
    assert award.rake == 5 and dict(award.payouts) == {2: 49, 1: 48}


@pytest.mark.parametrize(("choice", "on"), [("before_split", False),
                                            ("odd_chips_to_rake", True)])
def test_split_pot_rake_is_a_house_option(choice: str, on: bool) -> None:
    assert HouseRules().split_pot_rake == "before_split"
    assert HouseRules(split_pot_rake=choice).table_options()["odd_chips_to_rake"] is on
