from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from calibration.faces import load_face_folder
from hardware.camera.geometry import BoardGeometry
from hardware.sim import scene as S
from table_controller.engine.cards import Card
from table_controller.errors import CalibrationError

from .conftest import FACES, Faces


def test_same_seed_same_scene(kennard: Faces) -> None:
    board = [Card.parse(c) for c in ("Ah", "Kd", "7c")] + [None, None]
    a = S.render_board(kennard, board, np.random.default_rng(5), S.Level.HARD)
    b = S.render_board(kennard, board, np.random.default_rng(5), S.Level.HARD)
    assert np.array_equal(a.image, b.image)
    assert a.truth == b.truth
    assert a.image.shape == (1080, 1920, 3)
    statuses = [t.status for t in a.truth]
    assert statuses[3:] in (["empty", "empty"], ["occluded", "empty"], ["empty", "occluded"],
                            ["occluded", "occluded"])


def test_board_spans_half_the_frame(kennard: Faces) -> None:
    rng = np.random.default_rng(0)
    for level in S.Level:
        cam = S.make_camera(rng, level)
        corners = cam.board_corners_px()
        assert corners[:, 0].max() - corners[:, 0].min() >= 960


def test_hand_truth_is_occluded(kennard: Faces) -> None:
    rng = np.random.default_rng(1)
    cam = S.make_camera(rng, S.Level.EASY)
    board = [Card.parse(c) for c in ("2c", "3d", "4h", "5s", "6c")]
    placements = S.place_cards(rng, board, S.Level.EASY)
    hand = S.Hand(centre_mm=(200.0, 60.0), angle_deg=0.0)
    scene = S.render(kennard, placements, cam, rng, S.Perturbations(), hand)
    assert scene.truth[2].status == "occluded"
    assert scene.truth[2].card == Card.parse("4h")
    assert scene.truth[0].status == "card"


def test_overlaps_keep_cards_in_their_slots() -> None:
    rng = np.random.default_rng(2)
    board = [Card.parse(c) for c in ("2c", "3d", "4h", "5s", "6c")]
    geo = BoardGeometry()
    for _ in range(200):
        for pl in S.place_cards(rng, board, S.Level.HARD):
            assert geo.slot_of(pl.centre_mm[0]) == pl.slot


def test_face_folder_refused(tmp_path: Path) -> None:
    with pytest.raises(CalibrationError, match="does not exist"):
        load_face_folder(tmp_path / "nope")
    shutil.copytree(FACES["kennard"], tmp_path / "deck")
    (tmp_path / "deck" / "Qh.png").unlink()
    with pytest.raises(CalibrationError, match="lacks 1 of 52 faces: Qh"):
        load_face_folder(tmp_path / "deck")
    (tmp_path / "deck" / "Zz.png").write_bytes(b"x")
    with pytest.raises(CalibrationError, match=r"Zz\.png"):
        load_face_folder(tmp_path / "deck")
