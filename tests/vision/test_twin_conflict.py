"""A pip card's suit-twin read is refused where the faces blurred as the frame name the twin.

The faces are the 9 of clubs and the 9 of spades of a generated tuning design
(``synth-9185-bridge``: normal indices in two corners, two colours, standard pips, its club
and spade differing in about 5% of their ink), and the observation is a 9 of clubs as a hard
plain scene showed it (cut upright at the stored size where the recogniser located it;
benchmark run 81), all kept in ``tests/vision/data``. The whole face put the spade first by
0.0008; the comparison at the faces' own blur leaned 0.77 towards the spade, above twice the
frame's noise (0.36), and the card was read as the 9 of spades at 0.77. The two faces blurred
as the observation is leaned 0.70 towards the club (fit 0.99).
"""

from __future__ import annotations

import cv2
import numpy as np

from hardware.camera import difference
from hardware.camera.blurmatch import blurred_pair_check, lean_noise
from hardware.camera.facebank import STORED_PATCH_SIZE, FaceBank, Match, face_patch
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.suits import observed_luminance, pair_check
from hardware.camera.twinconflict import blurred_names_twin
from hardware.camera.twindecide import decide_twin, sharp_twin_read, sharp_unresolved, twin_refuted
from table_controller.engine.cards import Card

from .conftest import ROOT, Faces
from .helpers import kept_observation, streaked, with_kept_faces

CLUB, SPADE = Card.parse("9c"), Card.parse("9s")


def _faces(kennard: Faces) -> Faces:
    """Kennard with its 9 of clubs and 9 of spades replaced by the two-colour design's."""
    return with_kept_faces(kennard, "synth-9185-bridge", (CLUB, SPADE))


def _seen() -> F32:
    return kept_observation("synth-9185-bridge", "observed-9c")


def _match(first: Card, second: Card) -> Match:
    """The whole face's match as the frame gave it (the spade first)."""
    return Match(first, 0.9759, 0.0008, 0.637, 0.0162, second, discriminant_others=0.924,
                 separation_others=0.285, other=Card.parse("Ts"), ranked=(first, second),
                 ranked_scores=(0.9759, 0.9751), close=(first, second),
                 close_scores=(0.9759, 0.9751))


def _lightly_blurred(patch: np.ndarray) -> np.ndarray:
    """``patch`` through a sharper camera: a 4 px streak, sensor noise, JPEG q90."""
    return streaked(patch, (0.6, 4, 30), np.random.default_rng(81))


def test_the_sharp_and_the_blurred_comparisons_name_different_twins(kennard: Faces) -> None:
    """The frame as it was: the sharp rule reads the spade, measured; blurred, the club."""
    params = RecognizerParams()
    bank = FaceBank.from_faces(_faces(kennard), params)
    ob, spade, club = _seen(), bank.luminance(SPADE), bank.luminance(CLUB)
    check = pair_check(ob, spade, club)
    noise = lean_noise(ob, spade, club, joint=False)
    assert noise is not None and check.position > 2 * noise
    assert sharp_twin_read(ob, spade, club, check, params, params.suit_min_fit)
    assert not sharp_unresolved(ob, spade, club, params)
    blurred = blurred_pair_check(ob, spade, club)
    assert blurred.fit >= params.suit_min_fit and blurred.position <= -0.5
    assert blurred_names_twin(ob, SPADE, spade, club, params)
    assert not blurred_names_twin(ob, CLUB, club, spade, params)


def test_the_spade_is_not_read(kennard: Faces) -> None:
    """decide_twin reads neither nine; the veto refuses the spade; the second look reads none."""
    params = RecognizerParams()
    bank = FaceBank.from_faces(_faces(kennard), params)
    ob = _seen()
    assert decide_twin(ob, _match(SPADE, CLUB), bank, params) is None
    decided = decide_twin(ob, _match(CLUB, SPADE), bank, params)
    assert decided is None or decided[0].card == CLUB
    assert twin_refuted(ob, SPADE, CLUB, bank, params)
    read = difference.read_by_difference(ob, _match(SPADE, CLUB), bank, params)
    assert read is None or read.card == CLUB


def test_a_spade_the_blur_does_not_contradict_is_still_read(kennard: Faces) -> None:
    """The 9 of spades through a sharper camera: read by the sharp rule, not refuted."""
    params = RecognizerParams()
    faces = _faces(kennard)
    bank = FaceBank.from_faces(faces, params)
    ob = observed_luminance(_lightly_blurred(face_patch(faces[SPADE], STORED_PATCH_SIZE)))
    spade, club = bank.luminance(SPADE), bank.luminance(CLUB)
    assert not blurred_names_twin(ob, SPADE, spade, club, params)
    decided = decide_twin(ob, _match(SPADE, CLUB), bank, params)
    assert decided is not None and decided[0].card == SPADE
    assert not twin_refuted(ob, SPADE, CLUB, bank, params)


def test_courts_and_aces_are_left_to_their_own_rules(kennard: Faces) -> None:
    """The rule is asked of a 2 to 10 only: any other rank is never named so."""
    params = RecognizerParams()
    bank = FaceBank.from_faces(_faces(kennard), params)
    ob = _seen()
    spade, club = bank.luminance(SPADE), bank.luminance(CLUB)
    for rank in "JQKA":
        assert not blurred_names_twin(ob, Card.parse(rank + "s"), spade, club, params)


TENS = (Card.parse("Tc"), Card.parse("Ts"))


def test_a_half_short_of_the_read_bound_still_names_the_twin(kennard: Faces) -> None:
    """A 10 of clubs of the poker variant, read as the spade: one blurred half at 0.05.

    ``observed-Tc.png``: the card as a hard plain scene showed it (benchmark run 81). The
    blurred faces lean 0.68 to the club with no half leaning to the spade, short of the
    bound a twin is read by on one half; that is still no ground for the spade.
    """
    params = RecognizerParams()
    bank = FaceBank.from_faces(with_kept_faces(kennard, "synth-9185-poker", TENS), params)
    club, spade = TENS
    cut = cv2.imread(str(ROOT / "tests" / "vision" / "data" / "synth-9185-poker"
                         / "observed-Tc.png"), cv2.IMREAD_COLOR)
    assert cut is not None
    ob = observed_luminance(np.asarray(cut, np.uint8))
    fs, fc = bank.luminance(spade), bank.luminance(club)
    check = pair_check(ob, fs, fc)
    assert sharp_twin_read(ob, fs, fc, check, params, params.suit_min_fit)
    blurred = blurred_pair_check(ob, fs, fc)
    assert blurred.position <= -0.5 and -params.suit_blur_min_half < blurred.best_half <= 0.0
    assert blurred_names_twin(ob, spade, fs, fc, params)
    assert decide_twin(ob, _match(spade, club), bank, params) is None
    assert twin_refuted(ob, spade, club, bank, params)
