"""A blurred suit-twin read stands on both halves of the card, not on one.

The faces are the 7 of clubs and the 7 of spades of a generated tuning design
(``synth-9185-bridge``: normal indices in two corners, two colours, its club and spade
differing in about 5% of their ink), and the observation is a 7 of clubs lying upside down
and turned about 20 degrees as a hard askew scene showed it (scene seed 3303200, frame 4,
slot 0; benchmark runs 81 and 87; cut upright at the stored size where the recogniser located
it), all kept in ``tests/vision/data``. The whole face put the spade first by 0.0002; the
sharp comparison leaned 0.33 to the spade (below its noise), and the faces blurred as the
observation is (a 6 px streak) 1.04 to the spade over a difference region of 161 px that lies
all in one half of the card: the rule's bound on each half was asked of that half alone, and
the card was read as the 7 of spades at 0.98.
"""

from __future__ import annotations

from hardware.camera.blurmatch import blurred_pair_check
from hardware.camera.facebank import FaceBank, Match
from hardware.camera.readings import RecognizerParams
from hardware.camera.suits import pair_check
from hardware.camera.twindecide import decide_twin
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import kept_observation, with_kept_faces

CLUB, SPADE = Card.parse("7c"), Card.parse("7s")


def _bank(kennard: Faces) -> FaceBank:
    faces = with_kept_faces(kennard, "synth-9185-bridge", (CLUB, SPADE))
    return FaceBank.from_faces(faces, RecognizerParams())


def _match() -> Match:
    """The whole face's match as the frame gave it (the spade first, upside down)."""
    return Match(SPADE, 0.9873, 0.0002, 0.130, 0.0033, CLUB, flipped=True,
                 discriminant_others=0.93, separation_others=0.28, other=Card.parse("8s"),
                 ranked=(SPADE, CLUB), ranked_scores=(0.9873, 0.9871), close=(SPADE, CLUB),
                 close_scores=(0.9873, 0.9871))


def test_the_blurred_lean_stands_on_one_half(kennard: Faces) -> None:
    bank = _bank(kennard)
    seen = kept_observation("synth-9185-bridge", "observed-7c-upside-down")
    spade, club = bank.luminance(SPADE), bank.luminance(CLUB)
    blurred = blurred_pair_check(seen, spade, club)
    assert blurred.halves == 1 and blurred.position > 0.5
    sharp = pair_check(seen, spade, club)
    assert sharp.halves == 2


def test_a_one_half_blurred_lean_reads_no_twin(kennard: Faces) -> None:
    bank = _bank(kennard)
    seen = kept_observation("synth-9185-bridge", "observed-7c-upside-down")
    assert decide_twin(seen, _match(), bank, RecognizerParams()) is None
