"""A washed-out pip is found where the index's print runs a few pixels past its box.

The faces are the 2 and the 3 of diamonds of a generated design (``synth-9246-bridge``: normal
indices in four corners, two colours, standard pips), and the observation is a 3 of diamonds
as a hard gloss scene showed it (benchmark run 94, scene seed 2983851, frame 0, slot 0; cut
upright at the stored size where the recogniser located it), all kept in
``tests/vision/data``. A gloss streak washed the 3's middle pip out on paper where no glare
can show; the whole face read the 2 at 0.61. The 3's own ink the 2 lacks is its middle pip
and two specks of its corner indices' print just past the fixed index boxes, so it was not
"one blob" and the corner indices, which lean to the 3, were never asked.
"""

from __future__ import annotations

import pytest

from hardware.camera.glare import HiddenRivals, glare_mask
from hardware.camera.readings import SlotReading
from hardware.camera.suits import observed_luminance
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import BareChecks, kept_checks, kept_image

TWO, THREE = Card.parse("2d"), Card.parse("3d")
DESIGN = "synth-9246-bridge"


@pytest.fixture(scope="module")
def checks(kennard: Faces) -> BareChecks:
    """Kennard with its 2 and 3 of diamonds replaced by the design's."""
    return kept_checks(kennard, DESIGN, (TWO, THREE))


def _read_as(card: Card) -> SlotReading:
    return SlotReading("card", card, 0.61, None, 0.9, 0.02, 0.5, 0.1)


def test_the_three_is_one_blob_behind_the_two(checks: BareChecks) -> None:
    hidden = HiddenRivals(checks.bank.luminance)
    assert hidden.one_blob(TWO) == [THREE]
    # The 3 has more than one blob behind it: nothing one washed pip would make it.
    assert hidden.one_blob(THREE) == []


def test_the_washed_three_is_not_read_as_the_two(checks: BareChecks) -> None:
    patch = kept_image(DESIGN, "observed-3d")
    mask, shows = glare_mask(patch, checks.bank.luminance(TWO))
    assert not shows and not mask.any()  # no glare can show on this paper
    refused = checks._glare_confirmed(observed_luminance(patch), patch, _read_as(TWO))
    assert refused.status == "uncertain" and refused.card is None


def test_the_three_itself_is_still_read(checks: BareChecks) -> None:
    patch = kept_image(DESIGN, "observed-3d")
    kept = checks._glare_confirmed(observed_luminance(patch), patch, _read_as(THREE))
    assert kept.status == "card" and kept.card == THREE
