"""A four-colour court the whole face tells from its rank's other suits, its ink naming no suit.

``synth-9279`` prints its suits in four inks and gives each king a picture of its own, mostly
red, yellow and blue whatever the suit. The ink's tone is taken over where any of the rank's
four faces has ink: the pictures, so the king of spades' tone is that of the hearts' and
the diamonds' (one red ink), and no suit is named. The whole face told the king of spades
from the diamonds' by 0.09 (0.997 against 0.907; benchmark run 117: bridge, medium plain,
scene seed 8501100, frame 2, slot 2), inside the close cards' gap (0.1), so the read was
refused, as a blue and a green card of one pip layout must be. The tone can never tell those
three kings apart: the whole face is what does. Kept in ``tests/vision/data``:
the four kings' stored patches and the card cut upright as the recogniser cut it.
"""

from __future__ import annotations

from dataclasses import replace

from hardware.camera.facebank import Match
from hardware.camera.inkhue import FaceTones, other_inks
from hardware.camera.locator import CardPose
from hardware.camera.readings import Image, RecognizerParams, SlotReading
from hardware.camera.tonechecks import ToneChecks
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import kept_image
from .test_inktone import (
    _patches,
    four_colour,  # noqa: F401  (the fixture)
)

DESIGN = "synth-9279-bridge"
KS, KD, KH, KC = (Card.parse(c) for c in ("Ks", "Kd", "Kh", "Kc"))
#: The whole face's scores of the king of spades and of diamonds (the two close cards).
KS_SCORE, KD_SCORE = 0.99708, 0.90697


class _Checks(ToneChecks):
    """The ink checks on a deck's tones alone, the card cut given."""

    def __init__(self, tones: FaceTones, cut: Image, params: RecognizerParams) -> None:
        self.tones = tones
        self.params = params
        self._cut = cut

    def _upright(self, frame: Image, pose: CardPose, flipped: bool) -> Image:
        return self._cut


def _checks(four_colour: Faces, params: RecognizerParams) -> _Checks:  # noqa: F811
    patches = _patches(four_colour)
    for king in (KS, KD, KH, KC):
        patches[(king.rank, king.suit)] = kept_image(DESIGN, f"patch-{king}")
    return _Checks(FaceTones(patches), kept_image(DESIGN, f"upright-{KS}"), params)


def _match(kd_score: float) -> Match:
    return Match(KS, KS_SCORE, KS_SCORE - kd_score, 0.9, 0.21, KD, True,
                 close=(KS, KD), close_scores=(KS_SCORE, kd_score))


READ = SlotReading("card", KS, 0.9, None, KS_SCORE, KS_SCORE - KD_SCORE, 0.9, 0.21)
POSE = CardPose((0.0, 0.0), 0.0, 2)


def test_the_kings_ink_names_no_suit(four_colour: Faces) -> None:  # noqa: F811
    checks = _checks(four_colour, RecognizerParams())
    assert checks._many_inks()
    cut = kept_image(DESIGN, f"upright-{KS}")
    assert checks.tones.suit_by_tone(cut, KS.rank) is None
    assert checks.tones.suit_by_hue(cut, KS.rank) is None
    # The kings of spades, diamonds and hearts show one ink over the pictures; the club green.
    tone = checks.tones.tone(KS.rank, KS.suit)
    assert tone is not None
    for king, apart in ((KD, False), (KH, False), (KC, True)):
        theirs = checks.tones.tone(king.rank, king.suit)
        assert theirs is not None and other_inks(tone, theirs) == apart


def test_a_king_the_whole_face_puts_clear_of_its_other_suit_stands(
    four_colour: Faces,  # noqa: F811
) -> None:
    checks = _checks(four_colour, RecognizerParams())
    frame = kept_image(DESIGN, f"upright-{KS}")
    assert checks._ink_kept(frame, POSE, True, READ, _match(KD_SCORE)) == READ
    # The diamond scoring within the gap, or no scores given, or a read not the whole
    # face's: refused, as before.
    assert checks._ink_kept(frame, POSE, True, READ, _match(KS_SCORE - 0.03)) is None
    bare = Match(KS, KS_SCORE, 0.09, 0.9, 0.21, KD, True, close=(KS, KD))
    assert checks._ink_kept(frame, POSE, True, READ, bare) is None
    assert checks._ink_kept(frame, POSE, True, READ) is None
    # A king of another ink close (the green club), however far under: left to the ink.
    clubs = Match(KS, KS_SCORE, 0.09, 0.9, 0.21, KC, True, close=(KS, KC),
                  close_scores=(KS_SCORE, KD_SCORE))
    assert checks._ink_kept(frame, POSE, True, READ, clubs) is None
    # The close cards' whole gap asked (as before this rule): refused.
    wide = _checks(four_colour, replace(RecognizerParams(), ink_unnamed_rank_gap=0.1))
    assert wide._ink_kept(frame, POSE, True, READ, _match(KD_SCORE)) is None
