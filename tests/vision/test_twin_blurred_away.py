"""A pip card's twin read refused where the frame's blur left the twins' difference on one half.

The faces are the 9 of clubs and the 9 of spades of a generated design (``synth-9246-poker``:
normal indices in four corners, two colours), and the observation the 9 of clubs as a hard
pushed scene showed it under a horizontal motion blur (benchmark run 98, scene seed 6413401,
frame 3, slot 0): the card cut upright at the stored size where the recogniser located it,
and the frame's pixels around it with the card's corners there, all kept in
``tests/vision/data``. The whole face put the club first by 0.0014 and the twin decision left
the pair undecided; the difference read then read the spade: the sharp faces leaned 0.74
towards it (fit 0.95; the frame's noise not measurable against them on this design), the
faces blurred as the observation is differed on one half of the card only (147 pixels of
region), and the corners at the frame's own resolution confirmed neither: a confident wrong
read (0.37). Refused since (``RecognizerParams.twin_blur_check``,
:func:`~hardware.camera.rivalrules.twin_blurred_away`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from hardware.camera.blurmatch import blurred_pair_check, lean_noise
from hardware.camera.difference import read_by_difference
from hardware.camera.facebank import Match
from hardware.camera.finetwins import FineView
from hardware.camera.readings import F32, RecognizerParams, SlotReading
from hardware.camera.rivalrules import twin_blurred_away
from hardware.camera.suits import pair_check
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import BareChecks, kept_checks, kept_image, kept_observation

DESIGN = "synth-9246-poker"
#: The card's corners in the kept frame cut (px; TL, TR, BR, BL of the card upright).
QUAD = ((189.243, 244.237), (10.709, 228.981), (78.618, 10.527), (241.167, 23.806))
CLUB, SPADE = Card.parse("9c"), Card.parse("9s")
#: The whole face's match as the frame gave it (the club first by a hair, the spade close).
MATCH = Match(card=CLUB, score=0.9303, margin=0.0014, discriminant=0.42, separation=0.017,
              second=SPADE, flipped=True, discriminant_others=0.90, separation_others=0.28,
              close=(CLUB, SPADE), close_scores=(0.9303, 0.9289))


def _seen(kennard: Faces, params: RecognizerParams) -> tuple[BareChecks, F32]:
    """The checks on kennard's bank with the two nines replaced, and the observation."""
    checks = kept_checks(kennard, DESIGN, (CLUB, SPADE), params)
    observed = kept_observation(DESIGN, "observed-9c")
    assert checks.bank.fine is not None
    checks.bank.fine.look(observed, FineView(kept_image(DESIGN, "frame-9c"),
                                             np.array(QUAD, np.float64)))
    return checks, observed


@pytest.fixture(scope="module")
def seen(kennard: Faces) -> tuple[BareChecks, F32]:
    return _seen(kennard, RecognizerParams())


def test_the_blur_left_the_twins_one_half(seen: tuple[BareChecks, F32]) -> None:
    checks, observed = seen
    spade, club = checks.bank.luminance(SPADE), checks.bank.luminance(CLUB)
    sharp = pair_check(observed, spade, club)
    assert sharp.position > 0.7 and sharp.fit > 0.9  # the sharp faces name the spade
    assert lean_noise(observed, spade, club, joint=False) is None
    blurred = blurred_pair_check(observed, spade, club)
    assert blurred.halves == 1 and blurred.region_px < 0.1 * sharp.region_px
    assert twin_blurred_away(observed, SPADE, checks.bank, checks.params)
    # Neither twin: the rule refuses the club read on this frame as well.
    assert twin_blurred_away(observed, CLUB, checks.bank, checks.params)


def test_the_difference_read_of_the_spade_is_refused(seen: tuple[BareChecks, F32]) -> None:
    checks, observed = seen
    # Since run 121 the difference read's twin step makes no such read itself: the sharp
    # lean is checked as a whole-face read's would be (twindecide.sharp_read_refused).
    read = read_by_difference(observed, MATCH, checks.bank, checks.params)
    assert read is None or read.card != SPADE
    # Without that check it reads the spade (the wrong read the second look made), which
    # the twin blur check refuses.
    read = read_by_difference(observed, MATCH, checks.bank,
                              replace(checks.params, twin_read_verified=False))
    assert read is not None and read.card == SPADE
    refused = checks._fine_vetoed(lambda: observed, MATCH, read, True)
    assert refused.status == "uncertain" and refused.card is None


def test_kept_when_turned_off_or_not_a_twin_read(kennard: Faces,
                                                 seen: tuple[BareChecks, F32]) -> None:
    checks, observed = seen
    wrong = SlotReading("card", SPADE, 0.37, None, 0.93)
    # Not a twin read (a whole-face read stands on its own checks): not asked.
    assert checks._fine_vetoed(lambda: observed, MATCH, wrong, False).card == SPADE
    off, observed = _seen(kennard, RecognizerParams(twin_blur_check=False))
    assert off._fine_vetoed(lambda: observed, MATCH, wrong, True).card == SPADE
