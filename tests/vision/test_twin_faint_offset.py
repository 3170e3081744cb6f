"""The faint twin comparison's noise, where it cannot be measured, measured by moving the cut.

The faces are the 4 of clubs and the 4 of spades of a generated tuning design
(``synth-9246-bridge``: normal indices in four corners, two colours), and the observation a 4
of spades on a hard plain frame (scene seed 6610000, frame 0, slot 1; the card cut upright at
the stored size where the recogniser located it), all kept in ``tests/vision/data``. Blurred
as the observation is, the two faces differ nowhere by the difference level, and on their
faint difference (:func:`~hardware.camera.faintpair.faint_pair_check`) the observation leans
about 1.2 towards the spade; but the faint region is wide and too few offsets land on
agreeing print, so the frame's noise there cannot be measured and the card stayed
``uncertain`` (benchmark run 95: 13 of 34 such black cards of this design). With the cut moved
half a pixel each way (:func:`~hardware.camera.faintpair.offset_spread`) every moved cut
leans to the spade too, the lean changing by under 0.2: the spade is read
(``suit_faint_offset_noise``, benchmark run 101).
"""

from __future__ import annotations

from dataclasses import replace

from hardware.camera.facebank import FaceBank, Match
from hardware.camera.faintpair import faint_pair_check, faint_twin_sign, offset_spread
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.twindecide import decide_twin
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import kept_observation, with_kept_faces

DESIGN = "synth-9246-bridge"
CLUB, SPADE = Card.parse("4c"), Card.parse("4s")


def _bank(kennard: Faces, params: RecognizerParams) -> FaceBank:
    return FaceBank.from_faces(with_kept_faces(kennard, DESIGN, (CLUB, SPADE)), params)


def _seen() -> F32:
    return kept_observation(DESIGN, "observed-4s")


def _match() -> Match:
    """A whole-face match putting the club first by a hair."""
    return Match(CLUB, 0.972, 0.002, 0.82, 0.029, SPADE, discriminant_others=0.82,
                 separation_others=0.18)


def test_the_faint_noise_is_not_measured(kennard: Faces) -> None:
    params = RecognizerParams()
    bank = _bank(kennard, params)
    ob, club, spade = _seen(), bank.luminance(CLUB), bank.luminance(SPADE)
    found = faint_pair_check(ob, club, spade)
    assert found is not None
    check, noise = found
    assert noise is None
    assert check.position <= -1.0 and check.fit >= params.suit_min_fit
    spread = offset_spread(ob, club, spade, check.position, params)
    assert spread is not None
    assert -check.position >= 5 * spread


def test_the_spade_is_read(kennard: Faces) -> None:
    params = RecognizerParams()
    bank = _bank(kennard, params)
    assert faint_twin_sign(_seen(), bank.luminance(CLUB), bank.luminance(SPADE), params)[0] == -1
    decided = decide_twin(_seen(), _match(), bank, params)
    assert decided is not None
    assert decided[0].card == SPADE


def test_not_read_without_the_moved_cuts(kennard: Faces) -> None:
    for params in (replace(RecognizerParams(), suit_faint_offset_noise=False),
                   replace(RecognizerParams(), suit_blur_offset_px=0.0)):
        bank = _bank(kennard, params)
        assert faint_twin_sign(_seen(), bank.luminance(CLUB), bank.luminance(SPADE),
                               params) == (0, 0.0)
        assert decide_twin(_seen(), _match(), bank, params) is None
