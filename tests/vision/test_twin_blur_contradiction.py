"""A pip card's sharp twin read is refused where the blurred faces would read the twin.

The faces are the 2 of clubs and the 2 of spades of a generated design (``synth-9297-bridge``:
a jumbo index in four corners, two colours, standard pips; its club and spade differ in little
ink), and the observation is a 2 of spades as a hard plain scene showed it (cut upright at the
stored size where the recogniser located it; benchmark run 127, an unseen measurement), all kept
in ``tests/vision/data``. The whole face put the club first by 0.002. The comparison at the
faces' own blur leaned 0.87 towards the club, above the frame's noise (0.37), and the twin
decision read the 2 of clubs at 0.75; the two faces blurred as the observation is (fitting
0.94) leaned 0.77 towards the spade with both halves at 0.60 and 0.93, by the bounds the twin
decision reads the twin from them by, but under their noise at that blur (2.24), so
:func:`~hardware.camera.twinconflict.blurred_names_twin` did not refuse the club.
:func:`~hardware.camera.twinconflict.blurred_contradicts` does: two comparisons that name
different cards leave the card undecided.
"""

from __future__ import annotations

from dataclasses import replace

from hardware.camera import difference
from hardware.camera.blurmatch import blurred_pair_check
from hardware.camera.facebank import FaceBank, Match
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.suits import pair_check
from hardware.camera.twinconflict import blurred_contradicts, blurred_names_twin
from hardware.camera.twindecide import decide_twin, sharp_read_refused, sharp_twin_read
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import kept_observation, twin_match, with_kept_bank

DESIGN = "synth-9297-bridge"
CLUB, SPADE = Card.parse("2c"), Card.parse("2s")


def _bank(kennard: Faces, params: RecognizerParams) -> FaceBank:
    """Kennard with its 2 of clubs and 2 of spades replaced by the two-colour design's."""
    return with_kept_bank(kennard, DESIGN, (CLUB, SPADE), params)


def _seen() -> F32:
    return kept_observation(DESIGN, "observed-2s")


def _match() -> Match:
    """The whole face's match as the frame gave it (the club first)."""
    return twin_match(CLUB, SPADE, Card.parse("3c"), (0.9671, 0.9654, 0.8836), 0.0016, 0.549,
                      0.0213, 0.747, 0.177)


def test_the_sharp_faces_name_the_club_the_blurred_the_spade(kennard: Faces) -> None:
    params = RecognizerParams()
    bank = _bank(kennard, params)
    ob, club, spade = _seen(), bank.luminance(CLUB), bank.luminance(SPADE)
    assert sharp_twin_read(ob, club, spade, pair_check(ob, club, spade), params,
                           params.suit_min_fit)
    blurred = blurred_pair_check(ob, club, spade)
    assert blurred.fit >= params.suit_min_fit and blurred.halves >= 2
    assert -blurred.position >= params.suit_blur_min_position
    assert -blurred.best_half >= params.suit_blur_min_half
    assert not blurred_names_twin(ob, CLUB, club, spade, params)  # under twice its noise
    assert blurred_contradicts(ob, CLUB, club, spade, params)
    assert not blurred_contradicts(ob, SPADE, spade, club, params)  # it names the spade


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
    params = replace(RecognizerParams(), twin_blur_contradiction=False,
                     twin_blur_agreement=False)
    bank = _bank(kennard, params)
    decided = decide_twin(_seen(), _match(), bank, params)
    assert decided is not None and decided[0].card == CLUB
