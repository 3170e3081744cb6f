"""A number card's rank shown by its corner indices at the frame's own resolution.

The two faces are the 8 and the 6 of clubs of a generated tuning design printing one central
symbol on every number card (``synth-2-poker``: ranks 2-10 of a suit share one picture, small
corner indices), kept in ``tests/vision/data``: they differ in their corner indices alone.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.camera.difference import fine_shows, index_only_lean, rank_unshown
from hardware.camera.facebank import STORED_PATCH_SIZE, FaceBank
from hardware.camera.finetwins import FineView
from hardware.camera.readings import RecognizerParams
from hardware.camera.suits import observed_luminance, read_only
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import with_kept_faces
from .test_finetwins import _frame, _quad

EIGHT, SIX = Card.parse("8c"), Card.parse("6c")


def _central_faces(kennard: Faces) -> Faces:
    """Kennard with its 8 and 6 of clubs replaced by the central-symbol design's."""
    return with_kept_faces(kennard, "synth-2-poker", (EIGHT, SIX))


def _observed(frame: np.ndarray, quad: np.ndarray, grow: float) -> np.ndarray:
    """The card cut at the stored size from ``quad`` grown by ``grow`` about its centre (a
    card located a little large: its corners each a few pixels off)."""
    w, h = STORED_PATCH_SIZE
    centre = quad.mean(axis=0)
    src = (centre + (quad - centre) * grow).astype(np.float32)
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) - 0.5
    m = cv2.getPerspectiveTransform(src, dst)
    patch = cv2.warpPerspective(frame, m, STORED_PATCH_SIZE, flags=cv2.INTER_AREA)
    return observed_luminance(np.asarray(patch, np.uint8))


def test_the_two_faces_differ_in_their_corners_alone(kennard: Faces) -> None:
    bank = FaceBank.from_faces(_central_faces(kennard), RecognizerParams())
    assert bank.index_only.pair(EIGHT, SIX)


@pytest.mark.parametrize(("sigma", "streak"), [(1.4, 0), (1.8, 5)])
def test_a_rank_the_stored_faces_leave_unresolved_is_shown_at_the_frame_s_resolution(
        kennard: Faces, sigma: float, streak: int) -> None:
    """An 8 located 2% large, blurred: over both indices at the stored faces' blur it leans
    too little towards the 8 (the boxes each a few pixels off), and the rank veto would refuse
    it. Each index corner aligned alone at the frame's resolution shows the 8: not refused.
    The 6 is never shown there, and without the frame's view (a copy of the observation, no
    view noted) nothing changes from the stored faces' answer."""
    params = RecognizerParams()
    bank = FaceBank.from_faces(_central_faces(kennard), params)
    assert bank.fine is not None
    quad = _quad()
    frame = _frame(_central_faces(kennard)[EIGHT], quad, np.random.default_rng(69), sigma,
                   streak, 4.0, 80)
    observed = _observed(frame, quad, 1.02)
    bank.fine.look(observed, FineView(frame, quad))
    assert index_only_lean(observed, EIGHT, SIX, bank, params) is None
    assert fine_shows(observed, EIGHT, SIX, bank)
    assert not rank_unshown(observed, EIGHT, SIX, bank, params)
    assert not fine_shows(observed, SIX, EIGHT, bank)
    assert rank_unshown(observed, SIX, EIGHT, bank, params)
    unseen = read_only(observed.copy())
    assert not fine_shows(unseen, EIGHT, SIX, bank)
    assert rank_unshown(unseen, EIGHT, SIX, bank, params)


def test_a_card_located_far_off_is_not_shown(kennard: Faces) -> None:
    """Located 3.5% large, the stored faces lean towards the 6 for an 8: the frame's corners,
    each aligned alone, still show the 8 and never the 6."""
    params = RecognizerParams()
    faces = _central_faces(kennard)
    bank = FaceBank.from_faces(faces, params)
    assert bank.fine is not None
    quad = _quad()
    frame = _frame(faces[EIGHT], quad, np.random.default_rng(70), 1.2, 0, 4.0, 80)
    observed = _observed(frame, quad, 1.035)
    bank.fine.look(observed, FineView(frame, quad))
    assert bank.index_only.check(observed, EIGHT, SIX).position < 0
    assert not fine_shows(observed, SIX, EIGHT, bank)
    assert fine_shows(observed, EIGHT, SIX, bank)
