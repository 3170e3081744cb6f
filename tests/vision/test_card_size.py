"""Card size from the registered faces: poker, bridge and other proportions read alike."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.camera import calibrate_camera, card_size, layout_report
from hardware.camera.geometry import BoardGeometry, card_mm_for_aspect, face_aspect
from hardware.sim import scene as S
from table_controller.engine.cards import FULL_DECK
from table_controller.errors import CalibrationError
from tests.vision.conftest import Faces
from tests.vision.helpers import Tally, make_rig, score


def rescaled(faces: Faces, aspect: float) -> Faces:
    """The same design on a card of another width / height (what a bridge deck is)."""
    out: Faces = {}
    for card, face in faces.items():
        h = face.shape[0]
        out[card] = np.asarray(cv2.resize(face, (round(h * aspect), h),
                                          interpolation=cv2.INTER_AREA), np.uint8)
    return out


@pytest.fixture(scope="module")
def bridge(kennard: Faces) -> Faces:
    return rescaled(kennard, 57 / 89)


def test_card_size_from_the_faces(kennard: Faces, svg_cards: Faces, bridge: Faces) -> None:
    assert card_size(kennard) == (63.0, 88.0)
    assert card_size(bridge) == (57.0, 89.0)
    assert card_size(svg_cards) == (60.8, 88.0)
    assert card_size(bridge, (57.2, 88.9)) == (57.2, 88.9)
    assert card_mm_for_aspect(0.5) == (44.0, 88.0)
    assert face_aspect([(420, 300, 4), (420, 269, 4), (420, 300, 4)]) == pytest.approx(300 / 420)


def test_card_size_given_must_match_the_faces(bridge: Faces) -> None:
    with pytest.raises(CalibrationError, match=r"63 x 88 mm .*does not match the faces.*0\.640"
                                               r".*bridge"):
        card_size(bridge, (63.0, 88.0))
    with pytest.raises(CalibrationError, match="must be positive"):
        card_size(bridge, (0.0, 88.0))


def test_a_card_that_does_not_fit_a_slot_is_refused_plainly(bridge: Faces) -> None:
    rig = make_rig(bridge, seed=4, level=S.Level.EASY)
    empty = S.render(bridge, [], rig.camera, np.random.default_rng(1))
    with pytest.raises(CalibrationError, match=r"a 57 x 89 mm card does not fit a slot: the "
                                               r"board area 250 x 120 mm has 5 slots of 50\.0"):
        calibrate_camera(empty.image, bridge, geometry=BoardGeometry(board_mm=(250.0, 120.0),
                                                                     card_mm=(40.0, 80.0)))
    lines = layout_report(BoardGeometry(board_mm=(330.0, 120.0), card_mm=(63.0, 88.0)), "given")
    assert lines[0].startswith("cards 63 x 88 mm (poker, given); 5 slots of 66.0 x 120.0 mm")
    assert lines[1].startswith("warning: only 3.0 mm between cards")
    assert len(layout_report(BoardGeometry())) == 1


@pytest.mark.parametrize("aspect", [57 / 89, 0.62, 0.68])
def test_narrow_decks_read_like_poker_ones(kennard: Faces, aspect: float) -> None:
    faces = rescaled(kennard, aspect)
    rig = make_rig(faces, seed=21, level=S.Level.MEDIUM)
    cw, ch = rig.profile.geometry.card_mm
    assert cw / ch == pytest.approx(aspect, rel=0.02)
    assert rig.camera.geometry.card_mm == rig.profile.geometry.card_mm
    rng = np.random.default_rng(2100)
    tally = Tally()
    for _ in range(6):
        board = [FULL_DECK[int(i)] for i in rng.permutation(52)[:5]]
        scene = S.render_board(faces, board, rng, S.Level.MEDIUM, rig.camera)
        score(scene.truth, rig.recognizer.read(scene.image), tally)
    assert tally.wrong == 0
    assert tally.correct >= tally.cards - 1, tally
