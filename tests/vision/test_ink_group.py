"""On a deck of two inks, the reads that weigh luminance alone compare the ink's cards only.

The faces are the four nines of a generated tuning design (``synth-9218-poker``: normal
indices in four corners, two colours, one picture for all twelve courts) at the stored size,
and the observation a nine of diamonds as a hard plain scene showed it (scene seed 5210000,
frame 6 slot 4), cut upright at the stored size where the recogniser located it, all kept in
``tests/vision/data/synth-9218-poker``. The whole face put the nine of spades second; the
washed-out read, which compares luminance, found the spade's ink there and was refused by the
ink's hue, and the nine was left ``uncertain``. Its ink's tone names the red suits: compared
with the red nines alone the washed-out read reads the diamond.
"""

from __future__ import annotations

import pytest

from hardware.camera.inkhue import FaceTones
from table_controller.engine.cards import RANKS

from .helpers import kept_image

DESIGN = "synth-9218-poker"
NINE = RANKS.index("9")
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)


@pytest.fixture(scope="module")
def nines() -> FaceTones:
    return FaceTones({(NINE, suit): kept_image(DESIGN, f"stored-9{code}")
                      for suit, code in enumerate("cdhs")})


def test_the_deck_prints_two_inks(nines: FaceTones) -> None:
    inks = nines.suit_inks()
    assert not inks.many
    assert sorted(map(sorted, inks.groups)) == [[CLUBS, SPADES], [DIAMONDS, HEARTS]]


def test_the_nine_of_diamonds_ink_names_the_red_suits(nines: FaceTones) -> None:
    assert nines.inks_by_tone(kept_image(DESIGN, "observed-9d"), NINE) == frozenset(
        {DIAMONDS, HEARTS})
    # No one suit: the two red inks are one.
    assert nines.suit_by_tone(kept_image(DESIGN, "observed-9d"), NINE) is None


@pytest.mark.parametrize("code,group", [("c", {CLUBS, SPADES}), ("s", {CLUBS, SPADES}),
                                        ("d", {DIAMONDS, HEARTS}), ("h", {DIAMONDS, HEARTS})])
def test_each_stored_face_names_its_own_ink(nines: FaceTones, code: str,
                                            group: set[int]) -> None:
    assert nines.inks_by_tone(kept_image(DESIGN, f"stored-9{code}"), NINE) == frozenset(group)
