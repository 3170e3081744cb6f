"""A whole-face suit-twin read stands only where its blurred lean is above the frame's noise.

The faces are the 2 of clubs and the 2 of spades of a generated tuning design
(``synth-9203-poker``: normal indices in two corners, two colours, standard pips, suit signs
differing in 7% of their ink), and the observation is a 2 of spades as a hard plain scene
showed it (cut upright at the stored size where the recogniser located it; benchmark run 82),
all kept in ``tests/vision/data``. The whole face put the club first (margin 0.007); the two
faces blurred as the observation is leaned 0.84 towards the club, past the twin veto's bounds,
but by less than the frame's own noise against the two faces can make: the twin decision
would not have read the club on that lean, and :func:`twin_refuted` now asks the same.
"""

from __future__ import annotations

import numpy as np

from hardware.camera.blurmatch import blurred_pair_check
from hardware.camera.facebank import STORED_PATCH_SIZE, FaceBank, face_patch
from hardware.camera.readings import RecognizerParams
from hardware.camera.suits import observed_luminance
from hardware.camera.twindecide import twin_refuted
from hardware.camera.twinleans import lean_stands
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import kept_observation, streaked, with_kept_faces

CLUB, SPADE = Card.parse("2c"), Card.parse("2s")


def _bank(kennard: Faces) -> tuple[FaceBank, Faces]:
    faces = with_kept_faces(kennard, "synth-9203-poker", (CLUB, SPADE))
    return FaceBank.from_faces(faces, RecognizerParams()), faces


def _seen() -> np.ndarray:
    return kept_observation("synth-9203-poker", "observed-2s")


def _camera(patch: np.ndarray, seed: int) -> np.ndarray:
    """``patch`` through a camera: a 3 px streak, sensor noise, JPEG q90."""
    return streaked(patch, (0.8, 3, 20), np.random.default_rng(seed))


def test_the_spade_read_as_the_club_is_refused(kennard: Faces) -> None:
    """The frame as it was: the blurred lean passes the veto's bounds but not the noise."""
    params = RecognizerParams()
    bank, _ = _bank(kennard)
    ob, club, spade = _seen(), bank.luminance(CLUB), bank.luminance(SPADE)
    blurred = blurred_pair_check(ob, club, spade)
    assert blurred.position >= params.twin_blur_veto_position
    assert blurred.worst_half >= params.twin_blur_veto_half
    assert not lean_stands(ob, club, spade, blurred.position, params)
    assert twin_refuted(ob, CLUB, SPADE, bank, params)


class _Corners:
    """A stand-in for the fine faces: what their corners answer on any observation."""

    def __init__(self, answer: bool | None) -> None:
        self.answer = answer

    def confirms(self, observed: np.ndarray, card: Card, twin: Card) -> bool | None:
        return self.answer


def test_corners_that_confirm_the_read_keep_it(kennard: Faces) -> None:
    """Only corners at the frame's resolution that confirm the club keep the lean under noise."""
    params = RecognizerParams()
    bank, _ = _bank(kennard)
    ob = _seen()
    for answer, refused in ((True, False), (False, True), (None, True)):
        bank.fine = _Corners(answer)  # type: ignore[assignment]
        assert twin_refuted(ob, CLUB, SPADE, bank, params) is refused


def test_a_club_the_camera_shows_plainly_is_kept(kennard: Faces) -> None:
    """The same pair on clean camera cuts of each card: neither read is refused."""
    params = RecognizerParams()
    bank, faces = _bank(kennard)
    for card, twin in ((CLUB, SPADE), (SPADE, CLUB)):
        for seed in (1, 2, 3):
            ob = observed_luminance(_camera(face_patch(faces[card], STORED_PATCH_SIZE), seed))
            assert not twin_refuted(ob, card, twin, bank, params), (card, seed)
