"""A pip card's sharp twin read must pass the check a whole-face read passes against its twin.

The faces are the 5 of clubs and the 5 of spades of a generated design (``synth-9286-bridge``:
normal indices in two corners, two colours, standard pips; its club and spade differ in little
ink), and the observation is a 5 of spades as a hard plain scene showed it (cut upright at the
stored size where the recogniser located it; benchmark run 119, an unseen measurement), all kept
in ``tests/vision/data``. The whole face put the club first by 0.008. The comparison at the faces'
own blur leaned 0.76 towards the club with the frame's noise against the sharp faces not
measurable, and the twin decision read the 5 of clubs at 0.76; the two faces blurred as the
observation is (fitting 0.99) leaned 0.66 towards the spade on both halves, under twice their
noise (0.45), so :func:`~hardware.camera.twinconflict.blurred_names_twin` did not refuse it. A
whole-face read of the club would have been refused against its twin
(:func:`~hardware.camera.twindecide.twin_refuted`); the twin decision's read now is too.
"""

from __future__ import annotations

from dataclasses import replace

from hardware.camera import difference
from hardware.camera.blurmatch import blurred_pair_check, lean_noise
from hardware.camera.facebank import FaceBank, Match
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.suits import pair_check
from hardware.camera.twinconflict import blurred_names_twin
from hardware.camera.twindecide import (
    decide_twin,
    sharp_read_refused,
    sharp_twin_read,
    twin_refuted,
)
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import kept_observation, twin_match, with_kept_bank

DESIGN = "synth-9286-bridge"
CLUB, SPADE = Card.parse("5c"), Card.parse("5s")


def _bank(kennard: Faces, params: RecognizerParams) -> FaceBank:
    """Kennard with its 5 of clubs and 5 of spades replaced by the two-colour design's."""
    return with_kept_bank(kennard, DESIGN, (CLUB, SPADE), params)


def _seen() -> F32:
    return kept_observation(DESIGN, "observed-5s")


def _match() -> Match:
    """The whole face's match as the frame gave it (the club first)."""
    return twin_match(CLUB, SPADE, Card.parse("4c"), (0.9677, 0.9594, 0.8735), 0.0083, 0.588,
                      0.0495, 0.935, 0.212)


def test_the_sharp_faces_name_the_club_unmeasured_the_blurred_the_spade(kennard: Faces) -> None:
    params = RecognizerParams()
    bank = _bank(kennard, params)
    ob, club, spade = _seen(), bank.luminance(CLUB), bank.luminance(SPADE)
    check = pair_check(ob, club, spade)
    assert sharp_twin_read(ob, club, spade, check, params, params.suit_min_fit)
    assert lean_noise(ob, club, spade, joint=False) is None
    blurred = blurred_pair_check(ob, club, spade)
    assert blurred.fit >= params.suit_min_fit
    assert blurred.position <= -params.suit_blur_min_position and blurred.best_half <= 0.0
    assert not blurred_names_twin(ob, CLUB, club, spade, params)  # under twice its noise
    assert twin_refuted(ob, CLUB, SPADE, bank, params)  # what a whole-face read would meet


def test_the_club_is_not_read(kennard: Faces) -> None:
    params = RecognizerParams()
    bank = _bank(kennard, params)
    ob = _seen()
    assert sharp_read_refused(ob, CLUB, SPADE, bank, params)
    decided = decide_twin(ob, _match(), bank, params)
    assert decided is None or decided[0].card == SPADE
    read = difference.read_by_difference(ob, _match(), bank, params)
    assert read is None or read.card != CLUB


def test_without_the_check_the_club_was_read(kennard: Faces) -> None:
    """With this check and the blurred comparison's (``twin_blur_contradiction``, which
    refuses the club here too: the blurred faces lean to the spade past the twin decision's
    own bounds) both off."""
    params = replace(RecognizerParams(), twin_read_verified=False, twin_blur_contradiction=False,
                     twin_blur_agreement=False)
    bank = _bank(kennard, params)
    decided = decide_twin(_seen(), _match(), bank, params)
    assert decided is not None and decided[0].card == CLUB
