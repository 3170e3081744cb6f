"""A blurred twin read must hold at the blur the corner boxes show.

The faces are the 3 of clubs and the 3 of spades of a generated tuning design
(``synth-9235-poker``: jumbo indices in four corners, dot-sized pips), and the observation a 3
of spades on a hard askew frame (scene seed 5523281, frame 3, slot 1; the card cut upright at
the stored size where the recogniser located it, and the frame's pixels around it with the
card's corners there; two corner boxes a neighbour may cover), all kept in
``tests/vision/data``. The whole face put the club first by 0.001. Against the two faces
blurred as the stored cut is (a plain Gaussian of sigma 2 fitted) the observation leaned 0.94
towards the club, above its noise (0.32), holding at the blur the indices show and with the
cut moved half a pixel each way, and the corners, leaning -1.0 and -0.97 to the spade at only
2.1 and 1.9 times their noise, did not deny it: the 3 of clubs was read. The corner boxes,
at the frame's own resolution, fitted an 8 px vertical streak besides a Gaussian of 1.8 px;
both faces blurred so (scaled to the stored size), the whole card leans -0.28, towards the
spade, at a fit of 0.996: the club's lean was the Gaussian's misfit of the streak, and the
pair is left undecided (:func:`~hardware.camera.twinleans.corner_blur_stands`,
``suit_corner_blur_check``).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from hardware.camera.blurmatch import blurred_pair_check
from hardware.camera.facebank import FaceBank, Match
from hardware.camera.finetwins import FineView
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.twindecide import decide_twin
from hardware.camera.twinleans import corner_blur_stands, corners_deny
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import kept_image, kept_observation, with_kept_faces

DESIGN = "synth-9235-poker"
CLUB, SPADE = Card.parse("3c"), Card.parse("3s")
#: The 3's corners in the kept frame cut (px; TL, TR, BR, BL upright: the card lies turned).
QUAD = ((223.192, 220.836), (65.365, 256.997), (30.869, 62.464), (179.659, 30.26))


def _bank(kennard: Faces, params: RecognizerParams) -> FaceBank:
    return FaceBank.from_faces(with_kept_faces(kennard, DESIGN, (CLUB, SPADE)), params)


def _seen(bank: FaceBank) -> F32:
    """The 3 of spades' cut, its frame noted for the corner comparison."""
    observed = kept_observation(DESIGN, "observed-3s")
    assert bank.fine is not None
    bank.fine.look(observed, FineView(kept_image(DESIGN, "frame-3s"),
                                      np.array(QUAD, np.float64), (False, True, False, True)))
    return observed


def _match() -> Match:
    """The whole face's match as the frame gave it (the club first by 0.001)."""
    return Match(CLUB, 0.954, 0.001, 0.5, 0.01, SPADE, discriminant_others=0.8,
                 separation_others=0.2)


def test_the_club_leans_so_only_at_the_cuts_blur(kennard: Faces) -> None:
    params = RecognizerParams()
    bank = _bank(kennard, params)
    ob = _seen(bank)
    club, spade = bank.luminance(CLUB), bank.luminance(SPADE)
    blurred = blurred_pair_check(ob, club, spade)
    assert blurred.fit >= params.suit_min_fit
    assert blurred.position >= params.suit_blur_min_position
    assert not corners_deny(ob, CLUB, SPADE, bank.fine, params)
    assert not corner_blur_stands(ob, club, spade, 1.0, CLUB, SPADE, bank.fine, params)
    assert corner_blur_stands(ob, club, spade, -1.0, CLUB, SPADE, bank.fine, params)


def test_no_twin_is_read(kennard: Faces) -> None:
    params = RecognizerParams()
    bank = _bank(kennard, params)
    assert decide_twin(_seen(bank), _match(), bank, params) is None


def test_without_the_check_the_club_is_read(kennard: Faces) -> None:
    """What main did: the blurred rule read the 3 of clubs."""
    params = replace(RecognizerParams(), suit_corner_blur_check=False)
    bank = _bank(kennard, params)
    decided = decide_twin(_seen(bank), _match(), bank, params)
    assert decided is not None and decided[0].card == CLUB
