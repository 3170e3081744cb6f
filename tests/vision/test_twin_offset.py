"""A twin read by the blurred comparison must hold with the cut moved, and by the corners.

The faces are the 9 of clubs and the 9 of spades of a generated tuning design
(``synth-9235-bridge``: jumbo indices in four corners, dot-sized pips, one of run 89's unseen
designs), and the observation a 9 of spades on a hard frame while being placed (scene seed
2883541, frame 2, slot 4; the card cut upright at the stored size where the recogniser
located it), all kept in ``tests/vision/data``. The twins differ there in pips a few pixels
across: the comparison at the faces' own light blur leaned -0.22 (towards the club), the one
against the two faces blurred as the observation is -0.78, above its noise and holding at
the blur the indices show, and the 9 of clubs was read: a confident wrong read. Moved half a
stored pixel left or down, the same comparison leans +0.87 and +0.79 towards the spade: the
lean is the cut's offset, and the pair is left undecided
(:func:`~hardware.camera.twinleans.offset_lean_stands`, ``suit_blur_offset_px``).

The second observation, of the same design, is a 7 of spades being placed on a hard frame
(scene seed 5510111, frame 4), kept with the frame's pixels around it and the card's corners
there. Its cut lies a pixel or so off the card (felt along its right and bottom edges), and
the blurred comparison leaned 1.48 towards the club (each moved cut still leaned that way,
by 0.10 to 1.70); the corner boxes, each aligned on its own at the frame's resolution, lean
-3.5, -2.9 and -3.7 towards the spade at 4.1, 3.7 and 6.7 times their noise: they decide the
spade, and the club is not read (:func:`~hardware.camera.twinleans.corners_deny`,
``blurred_twin_corner_veto``).
"""

from __future__ import annotations

import numpy as np

from hardware.camera.blurmatch import blurred_pair_check
from hardware.camera.facebank import FaceBank, Match
from hardware.camera.finetwins import FineView
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.twindecide import decide_twin
from hardware.camera.twinleans import corners_deny, lean_stands, offset_lean_stands
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import kept_image, kept_observation, with_kept_faces

DESIGN = "synth-9235-bridge"
CLUB, SPADE = Card.parse("9c"), Card.parse("9s")
SEVEN_C, SEVEN_S = Card.parse("7c"), Card.parse("7s")
#: The 7's corners in the kept frame cut (px; TL, TR, BR, BL upright); a neighbour may lie
#: over its bottom right corner box.
QUAD_7 = ((20.527, 38.559), (166.974, 20.25), (246.955, 279.567), (76.607, 305.088))


def _bank(kennard: Faces, params: RecognizerParams) -> FaceBank:
    return FaceBank.from_faces(
        with_kept_faces(kennard, DESIGN, (CLUB, SPADE, SEVEN_C, SEVEN_S)), params)


def _seen() -> F32:
    return kept_observation(DESIGN, "observed-9s")


def _match(first: Card, second: Card) -> Match:
    """The whole face's match as the frame gave it (the spade first by 0.002)."""
    return Match(first, 0.976, 0.002, 0.40, 0.018, second, discriminant_others=0.89,
                 separation_others=0.24)


def test_the_spade_leans_to_the_club_at_its_cut(kennard: Faces) -> None:
    params = RecognizerParams()
    bank = _bank(kennard, params)
    ob, spade, club = _seen(), bank.luminance(SPADE), bank.luminance(CLUB)
    blurred = blurred_pair_check(ob, spade, club)
    assert blurred.fit >= params.suit_min_fit
    assert blurred.position <= -params.suit_blur_min_position
    assert lean_stands(ob, spade, club, blurred.position, params)
    assert not offset_lean_stands(ob, spade, club, -1.0, params)


def test_no_twin_is_read(kennard: Faces) -> None:
    params = RecognizerParams()
    bank = _bank(kennard, params)
    assert decide_twin(_seen(), _match(SPADE, CLUB), bank, params) is None
    assert decide_twin(_seen(), _match(CLUB, SPADE), bank, params) is None


def test_without_the_offset_check_the_club_is_read(kennard: Faces) -> None:
    """What main did: the blurred rule read the 9 of clubs."""
    params = RecognizerParams(suit_blur_offset_px=0.0)
    decided = decide_twin(_seen(), _match(SPADE, CLUB), _bank(kennard, params), params)
    assert decided is not None and decided[0].card == CLUB


def _seven(bank: FaceBank) -> F32:
    """The 7 of spades' cut, its frame noted for the corner comparison."""
    observed = kept_observation(DESIGN, "observed-7s")
    assert bank.fine is not None
    bank.fine.look(observed, FineView(kept_image(DESIGN, "frame-7s"),
                                      np.array(QUAD_7, np.float64), (False, False, False, True)))
    return observed


def _match_7() -> Match:
    """The whole face's match as the frame gave it (the club first by 0.001)."""
    return Match(SEVEN_C, 0.968, 0.001, 0.18, 0.009, SEVEN_S, discriminant_others=0.86,
                 separation_others=0.28)


def test_the_corners_deny_the_club_the_blurred_faces_lean_to(kennard: Faces) -> None:
    params = RecognizerParams()
    bank = _bank(kennard, params)
    ob = _seven(bank)
    club, spade = bank.luminance(SEVEN_C), bank.luminance(SEVEN_S)
    blurred = blurred_pair_check(ob, club, spade)
    assert blurred.fit >= params.suit_min_fit
    assert blurred.position >= params.suit_blur_min_position
    assert offset_lean_stands(ob, club, spade, 1.0, params)
    assert corners_deny(ob, SEVEN_C, SEVEN_S, bank.fine, params)
    assert not corners_deny(ob, SEVEN_S, SEVEN_C, bank.fine, params)
    assert decide_twin(ob, _match_7(), bank, params) is None


def test_without_the_corner_veto_the_seven_of_clubs_is_read(kennard: Faces) -> None:
    """What main did: the blurred rule read the 7 of clubs."""
    params = RecognizerParams(blurred_twin_corner_veto=False)
    bank = _bank(kennard, params)
    decided = decide_twin(_seven(bank), _match_7(), bank, params)
    assert decided is not None and decided[0].card == SEVEN_C
