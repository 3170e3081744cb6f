"""Cards partly under a neighbour, and cards turned far: the visible face, the straight edges."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from hardware.camera import partial as P
from hardware.camera.facebank import PATCH_MASK, PATCH_SIZE, face_features
from hardware.camera.locator import CANON_MARGIN_MM, CANON_PX_PER_MM, CardPose
from hardware.sim import scene as S
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import make_rig


def _features_of(patch: np.ndarray, keep: np.ndarray, red_weight: float) -> np.ndarray:
    """face_features computed on the kept pixels alone (its steps written out again)."""
    img = patch.astype(np.float32)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    white = cv2.GaussianBlur(cv2.dilate(gray, cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (9, 9))), (0, 0), 5.0)
    np.maximum(white, 16.0, out=white)
    b, g, r = cv2.split(img)
    lum = cv2.GaussianBlur(np.asarray(gray / white, np.float32), (0, 0), 0.8)
    red = cv2.GaussianBlur(np.asarray((r - np.maximum(g, b)) / white, np.float32), (0, 0), 0.8)
    idx = PATCH_MASK.reshape(-1) > 0
    lv = lum.reshape(-1)[idx][keep]
    lv = lv - lv.mean()
    lv /= np.linalg.norm(lv)
    rv = red.reshape(-1)[idx][keep] * np.float32(red_weight / np.sqrt(lv.size) * 4.0)
    out = np.concatenate([lv, rv])
    return np.asarray(out / np.linalg.norm(out), np.float32)


def test_restricted_features_are_those_of_the_visible_pixels() -> None:
    rng = np.random.default_rng(5)
    pw, ph = PATCH_SIZE
    patch = np.asarray(cv2.GaussianBlur(rng.integers(0, 256, (ph, pw, 3)).astype(np.uint8),
                                        (0, 0), 2.0), np.uint8)
    keep = rng.random(int(np.count_nonzero(PATCH_MASK))) < 0.7
    vec = face_features(patch, 1.5)
    np.testing.assert_allclose(P.restrict(vec, keep), _features_of(patch, keep, 1.5), atol=1e-5)
    both = P.restrict(np.stack([vec, vec]), keep)
    assert both.shape == (2, int(np.count_nonzero(keep)) * 2)


def test_a_neighbour_over_the_right_fifth_hides_the_patch_right_fifth() -> None:
    quad = np.array([[100.0, 40.0], [175.0, 40.0], [175.0, 145.0], [100.0, 145.0]])
    over = np.array([[160.0, 30.0], [240.0, 30.0], [240.0, 150.0], [160.0, 150.0]])
    hidden = P.hidden_in_patch(quad, [over])
    cols = np.nonzero(hidden.any(axis=0))[0]
    pw = PATCH_SIZE[0]
    # 15 of 75 canonical px, one patch px of dilation.
    assert abs(int(cols.min()) - round(pw * 60 / 75)) <= 2
    assert int(cols.max()) == pw - 1
    assert 0.15 <= P.hidden_share(hidden) <= 0.25
    assert P.hidden_share(P.hidden_in_patch(quad, [])) == 0.0


def _canon(rig_centre_mm: tuple[float, float]) -> tuple[float, float]:
    return ((rig_centre_mm[0] + CANON_MARGIN_MM) * CANON_PX_PER_MM,
            (rig_centre_mm[1] + CANON_MARGIN_MM) * CANON_PX_PER_MM)


@pytest.mark.parametrize("near_hand", [False, True])
def test_a_card_pushed_under_its_neighbour_is_read_on_what_shows(
    kennard: Faces, near_hand: bool
) -> None:
    """The next card (drawn on top) hides a quarter of it: the whole face may score low.

    Read on the part left visible, and never as the neighbour. On the thresholds of any read:
    the same with near-hand thresholds no read can meet (``near_hand``).
    """
    rig = make_rig(kennard, seed=61, level=S.Level.MEDIUM)
    if near_hand:
        rig.recognizer.params = replace(rig.recognizer.params, near_hand_min_score=1.01)
    geo = rig.camera.geometry
    read = 0
    for k, (under, top) in enumerate([("9s", "Kd"), ("4h", "Jc"), ("7d", "8c"), ("Ac", "2h")]):
        (x1, y1), (x2, y2) = geo.slot_centre_mm(1), geo.slot_centre_mm(2)
        placements = [S.Placement(Card.parse(under), 1, (x1 + 18.0, y1 + 8.0), 1.0),
                      S.Placement(Card.parse(top), 2, (x2 - 16.0, y2), -1.0)]
        scene = S.render(kennard, placements, rig.camera, np.random.default_rng(600 + k),
                         S.Perturbations(noise_sigma=4.0, jpeg_quality=75, blur_sigma=1.0))
        reading = rig.recognizer.read(scene.image)
        assert reading.slots[2].status == "card" and reading.slots[2].card == Card.parse(top)
        slot = reading.slots[1]
        assert slot.status != "card" or slot.card == Card.parse(under), slot
        read += slot.status == "card"
        # The neighbour lies over a quarter or so of the card.
        pose = rig.recognizer.locate(scene.image, 1)
        assert pose is not None
        other = rig.recognizer.locate(scene.image, 2)
        assert other is not None
        hidden = P.hidden_in_patch(rig.recognizer._quad(pose),
                                   [rig.recognizer._quad(other, grow=P.HIDDEN_GROW_PX)])
        assert 0.15 <= P.hidden_share(hidden) <= 0.35
    assert read == 4  # the whole face alone read two of them (9s 0.77, 7d 0.88: uncertain)


def test_a_card_turned_far_is_located_at_its_angle(kennard: Faces) -> None:
    """At 15-22 degrees each edge is fitted off the rounded corners: the angle is not pulled
    towards square (a fit on the band through the card's middle came out 0.4-0.5 degrees
    nearer square)."""
    rig = make_rig(kennard, seed=62, level=S.Level.EASY)
    geo = rig.camera.geometry
    errors = []
    for k, angle in enumerate((-22.0, -18.0, -15.0, 15.0, 18.0, 22.0)):
        x, y = geo.slot_centre_mm(2)
        placement = S.Placement(Card.parse("Qs"), 2, (x, y), angle)
        scene = S.render(kennard, [placement], rig.camera, np.random.default_rng(700 + k),
                         S.Perturbations(noise_sigma=2.0, jpeg_quality=90, blur_sigma=0.8))
        pose = rig.recognizer.locate(scene.image, 2)
        assert pose is not None
        assert isinstance(pose, CardPose)
        errors.append(pose.angle_deg - angle)
        cx, cy = _canon((x, y))
        assert abs(pose.centre[0] - cx) <= 1.5 and abs(pose.centre[1] - cy) <= 1.5
    assert max(abs(e) for e in errors) <= 0.3, errors
    assert abs(float(np.mean(np.abs(errors)))) <= 0.2, errors
