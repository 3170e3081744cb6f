"""The corners may not keep a pip card's sharp twin read the sharp faces fit poorly.

The faces are the 5 of clubs and the 5 of spades of a generated design (``synth-9297-bridge``:
a jumbo index in four corners, two colours, standard pips; its club and spade differ in little
ink), and the observation is a 5 of spades as a hard plain scene showed it (scene seed 9801000,
frame 28, slot 3; benchmark runs 134 and 139, a tuning design): the card cut upright at the
stored size where the recogniser located it, and the frame's pixels around it with the card's
corners there, all kept in ``tests/vision/data``. The whole face put the club first by 0.003.
The comparison at the faces' own blur leaned 1.09 towards the club at a fit of 0.86; the two
faces blurred as the observation is no longer differed (fit 0), so
:func:`~hardware.camera.twindecide.sharp_unconfirmed` asked the corners at the frame's
resolution, and all four leaned to the club: the 5 of clubs was read. With
``twin_corner_keep_min_fit`` the corners may keep such a read only where the sharp faces fit
the observation by that bound.
"""

from __future__ import annotations

from dataclasses import replace

from hardware.camera.blurmatch import blurred_pair_check
from hardware.camera.facebank import FaceBank, Match
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.suits import pair_check
from hardware.camera.twindecide import (
    corners_confirm,
    decide_twin,
    sharp_read_refused,
    sharp_twin_read,
    sharp_unresolved,
)
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import kept_bank, twin_match

DESIGN = "synth-9297-bridge"
CLUB, SPADE = Card.parse("5c"), Card.parse("5s")
#: The card's corners in the kept frame cut (px; TL, TR, BR, BL of the card upright).
QUAD = ((180.917, 278.58), (12.571, 251.923), (43.667, 12.835), (201.779, 36.507))


def _seen(kennard: Faces, params: RecognizerParams) -> tuple[FaceBank, F32]:
    """The bank (kennard with the pair's faces replaced) and the observation, its view noted."""
    return kept_bank(kennard, DESIGN, (CLUB, SPADE), SPADE, QUAD, params)


def _match() -> Match:
    """The whole face's match as the frame gave it (the club first)."""
    return twin_match(CLUB, SPADE, Card.parse("6c"), (0.8918, 0.8885, 0.8008), 0.0033, 0.666,
                      0.0403, 0.666, 0.174)


def test_the_blurred_faces_no_longer_differ_and_the_corners_lean_to_the_club(
        kennard: Faces) -> None:
    params = RecognizerParams()
    bank, ob = _seen(kennard, params)
    club, spade = bank.luminance(CLUB), bank.luminance(SPADE)
    check = pair_check(ob, club, spade)
    assert sharp_twin_read(ob, club, spade, check, params, params.suit_min_fit)
    assert check.fit < params.twin_corner_keep_min_fit
    assert blurred_pair_check(ob, club, spade).fit <= 0.0
    assert sharp_unresolved(ob, club, spade, params)
    assert corners_confirm(ob, CLUB, SPADE, bank)


def test_the_club_is_not_read(kennard: Faces) -> None:
    params = RecognizerParams()
    bank, ob = _seen(kennard, params)
    assert sharp_read_refused(ob, CLUB, SPADE, bank, params)
    decided = decide_twin(ob, _match(), bank, params)
    assert decided is None or decided[0].card == SPADE


def test_without_the_bound_the_corners_kept_the_club(kennard: Faces) -> None:
    params = replace(RecognizerParams(), twin_corner_keep_min_fit=0.0)
    bank, ob = _seen(kennard, params)
    assert not sharp_read_refused(ob, CLUB, SPADE, bank, params)
    decided = decide_twin(ob, _match(), bank, params)
    assert decided is not None and decided[0].card == CLUB
