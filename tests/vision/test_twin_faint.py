"""Suit twins the frame's blur leaves differing by little are compared on that faint difference.

The faces are the 7 of clubs and the 7 of spades of a generated tuning design
(``synth-9246-bridge``: normal indices in four corners, two colours), and the observation a 7
of spades on a hard plain frame (scene seed 6102000, frame 0, slot 4; the card cut upright at
the stored size where the recogniser located it), all kept in ``tests/vision/data``. The whole
face put the club first by 0.002. Blurred as the observation is (a Gaussian of 1.25 px with a
6 px streak), the two faces differ by 0.056 at most, under the difference level
(:data:`~hardware.camera.suits.DIFFERENCE_LEVEL`): the blurred comparison had no pixel left
to compare (fit 0) and the pair stayed undecided. On that faint difference the observation
leans about 1.0 towards the spade, five times the frame's noise there, both halves of the card
towards it: the spade is read (:func:`~hardware.camera.faintpair.faint_twin_sign`,
``suit_faint_noise_ratio``).
"""

from __future__ import annotations

from dataclasses import replace

from hardware.camera.blurmatch import blurred_pair_check
from hardware.camera.facebank import FaceBank, Match
from hardware.camera.faintpair import faint_pair_check
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.twindecide import decide_twin
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import kept_observation, with_kept_faces

DESIGN = "synth-9246-bridge"
CLUB, SPADE = Card.parse("7c"), Card.parse("7s")


def _bank(kennard: Faces, params: RecognizerParams) -> FaceBank:
    return FaceBank.from_faces(with_kept_faces(kennard, DESIGN, (CLUB, SPADE)), params)


def _seen() -> F32:
    return kept_observation(DESIGN, "observed-7s")


def _match() -> Match:
    """The whole face's match as the frame gave it (the club first by 0.002)."""
    return Match(CLUB, 0.972, 0.002, 0.82, 0.029, SPADE, discriminant_others=0.82,
                 separation_others=0.18)


def test_the_blurred_faces_no_longer_differ_enough(kennard: Faces) -> None:
    params = RecognizerParams()
    bank = _bank(kennard, params)
    ob, club, spade = _seen(), bank.luminance(CLUB), bank.luminance(SPADE)
    assert blurred_pair_check(ob, club, spade).fit == 0.0
    found = faint_pair_check(ob, club, spade)
    assert found is not None
    check, noise = found
    assert noise is not None
    assert check.position <= -0.8 and check.best_half < -0.5
    assert -check.position >= 4 * noise


def test_the_spade_is_read(kennard: Faces) -> None:
    params = RecognizerParams()
    decided = decide_twin(_seen(), _match(), _bank(kennard, params), params)
    assert decided is not None
    assert decided[0].card == SPADE


def test_not_read_without_the_faint_comparison(kennard: Faces) -> None:
    params = replace(RecognizerParams(), suit_faint_noise_ratio=0.0)
    assert decide_twin(_seen(), _match(), _bank(kennard, params), params) is None
