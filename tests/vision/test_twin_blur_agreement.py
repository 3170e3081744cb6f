"""A pip card's sharp twin read is refused where the matched blurred faces do not lean to it.

The faces are the 8 of clubs and the 8 of spades of a generated design (``synth-9297-bridge``:
a jumbo index in four corners, two colours, standard pips; its club and spade differ in little
ink), and the observation is an 8 of spades as a hard plain scene showed it (cut upright at the
stored size where the recogniser located it; benchmark run 134, a tuning design), all kept in
``tests/vision/data``. The whole face put the club first by 0.002. The comparison at the faces'
own blur leaned 0.93 towards the club (fit 0.85), above twice the frame's noise (0.44), and the
twin decision read the 8 of clubs at 0.93; the two faces blurred as the observation is, fitting
0.98, leaned 0.07 towards the spade. Neither
:func:`~hardware.camera.twinconflict.blurred_names_twin` nor
:func:`~hardware.camera.twinconflict.blurred_contradicts` refused it (the blurred lean is far
under their bounds); :func:`~hardware.camera.twinconflict.blurred_withholds` does: the blurred
faces do not lean to the club by the bound a whole-face read is held to.
"""

from __future__ import annotations

from dataclasses import replace

from hardware.camera import difference
from hardware.camera.blurmatch import blurred_pair_check
from hardware.camera.facebank import FaceBank, Match
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.suits import pair_check
from hardware.camera.twinconflict import (
    blurred_contradicts,
    blurred_names_twin,
    blurred_withholds,
)
from hardware.camera.twindecide import decide_twin, sharp_read_refused, sharp_twin_read
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import kept_observation, twin_match, with_kept_bank

DESIGN = "synth-9297-bridge"
CLUB, SPADE = Card.parse("8c"), Card.parse("8s")


def _bank(kennard: Faces, params: RecognizerParams) -> FaceBank:
    """Kennard with its 8 of clubs and 8 of spades replaced by the two-colour design's."""
    return with_kept_bank(kennard, DESIGN, (CLUB, SPADE), params)


def _seen() -> F32:
    return kept_observation(DESIGN, "observed-8s")


def _match() -> Match:
    """The whole face's match as the frame gave it (the club first)."""
    return twin_match(CLUB, SPADE, Card.parse("6c"), (0.9571, 0.9548, 0.9062), 0.0024, 0.693,
                      0.0316, 0.693, 0.139)


def test_the_sharp_faces_name_the_club_the_blurred_do_not(kennard: Faces) -> None:
    params = RecognizerParams()
    bank = _bank(kennard, params)
    ob, club, spade = _seen(), bank.luminance(CLUB), bank.luminance(SPADE)
    assert sharp_twin_read(ob, club, spade, pair_check(ob, club, spade), params,
                           params.suit_min_fit)
    blurred = blurred_pair_check(ob, club, spade)
    assert blurred.fit >= params.suit_min_fit
    assert blurred.position < params.twin_blur_veto_position
    assert not blurred_names_twin(ob, CLUB, club, spade, params)
    assert not blurred_contradicts(ob, CLUB, club, spade, params)
    assert blurred_withholds(ob, CLUB, club, spade, params)


def test_the_club_is_not_read(kennard: Faces) -> None:
    params = RecognizerParams()
    bank = _bank(kennard, params)
    ob = _seen()
    assert sharp_read_refused(ob, CLUB, SPADE, bank, params)
    decided = decide_twin(ob, _match(), bank, params)
    assert decided is None or decided[0].card == SPADE
    read = difference.read_by_difference(ob, _match(), bank, params)
    assert read is None or read.card != CLUB


def test_without_the_rule_the_club_was_read(kennard: Faces) -> None:
    params = replace(RecognizerParams(), twin_blur_agreement=False)
    bank = _bank(kennard, params)
    decided = decide_twin(_seen(), _match(), bank, params)
    assert decided is not None and decided[0].card == CLUB
