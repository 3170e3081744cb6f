"""A court twin the corners lean to far past its own face is not read.

synth-9263 poker (one court picture for all twelve courts; the club a triangle, the spade a
curved, flared leaf, both a few pixels across in the corners): a jack of spades as a hard
``bright`` scene showed it (the table light 30% above calibration, scene seed 3163021, frame
0, slot 1 from 0; benchmark run 106), the card cut upright at the stored size where the
recogniser located it and the frame's pixels around it with the card's corners there, all kept
in ``tests/vision/data``. Blurred and lit so, the index symbols are blobs: the stored faces'
sharp comparison left the pair undecided, and the four corners at the frame's own resolution
leaned 1.43-1.71 towards the club (each 3.5-3.9 times its noise), the sharp comparison 2.20:
both further than the club's own face lies (+1). The jack of clubs was read.

Right reads of the same design's clubs lay past the club's face too (the sharp comparison up
to 1.83 on a dim hard frame), but never with the weakest corner past it as well (1.05 there).
With ``twin_fine_max_position`` and ``twin_fine_max_lean`` a court both measurements put so far
past the face read is left undecided.
"""

from __future__ import annotations

from dataclasses import replace

from hardware.camera.facebank import FaceBank, Match
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.suits import pair_check
from hardware.camera.twindecide import decide_twin
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import kept_bank

DESIGN = "synth-9263-poker"
#: The card's corners in the kept frame cut (px; TL, TR, BR, BL of the card upright).
QUAD = ((29.363, 12.78), (193.078, 23.286), (176.898, 248.536), (12.122, 237.855))
CLUB, SPADE = Card.parse("Jc"), Card.parse("Js")


def _seen(kennard: Faces, params: RecognizerParams) -> tuple[FaceBank, F32]:
    """The bank (kennard with the pair's faces replaced) and the observation, its view noted."""
    return kept_bank(kennard, DESIGN, (CLUB, SPADE), SPADE, QUAD, params)


def _match(best: Card, second: Card) -> Match:
    return Match(card=best, score=0.918, margin=0.002, discriminant=0.70, second=second,
                 separation=0.045, close=(best, second), close_scores=(0.918, 0.916),
                 ranked=(best, second), ranked_scores=(0.918, 0.916))


def test_the_corners_and_the_sharp_faces_overshoot_the_club(kennard: Faces) -> None:
    """What the read rested on: every corner and the sharp comparison past the club's face."""
    params = RecognizerParams()
    bank, observed = _seen(kennard, params)
    assert bank.fine is not None
    sign, lean = bank.fine.decide(observed, CLUB, SPADE)
    assert sign == 1 and lean > params.twin_fine_max_lean
    sharp = pair_check(observed, bank.luminance(CLUB), bank.luminance(SPADE)).position
    assert sharp > params.twin_fine_max_position


def test_the_club_is_not_read(kennard: Faces) -> None:
    """Whichever of the two the whole face put first, the jack of clubs is never read."""
    params = RecognizerParams()
    bank, observed = _seen(kennard, params)
    for best, second in ((CLUB, SPADE), (SPADE, CLUB)):
        decided = decide_twin(observed, _match(best, second), bank, params)
        assert decided is None or decided[0].card == SPADE, (best, decided)


def test_without_the_bound_the_club_is_read(kennard: Faces) -> None:
    """The bound is what refuses it (as before it existed)."""
    params = replace(RecognizerParams(), twin_fine_max_position=float("inf"),
                     twin_fine_max_lean=float("inf"))
    bank, observed = _seen(kennard, params)
    decided = decide_twin(observed, _match(CLUB, SPADE), bank, params)
    assert decided is not None and decided[0].card == CLUB
