"""Suit twins compared on the corner indices at the frame's own resolution (finetwins)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.camera.facebank import STORED_PATCH_SIZE, FaceBank
from hardware.camera.finedecide import (
    decide_fine,
    fine_confirms,
)
from hardware.camera.finetwins import (
    FineFaces,
    FineView,
    corners_hidden,
    fine_grey,
    fine_lean,
)
from hardware.camera.readings import RecognizerParams
from hardware.camera.suits import observed_luminance, read_only
from table_controller.engine.cards import Card

from .conftest import Faces
from .test_suits import shared_courts

#: The card's corners in the test frame (px): about 2.8 px/mm, turned 6 degrees.
_FRAME = (480, 420)


def _quad(angle_deg: float = 6.0, width: float = 176.0, height: float = 246.0) -> np.ndarray:
    a = np.deg2rad(angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    half = np.array([[-width, -height], [width, -height], [width, height], [-width, height]]) / 2
    return np.asarray(half @ rot.T + np.array([240.0, 210.0]), np.float64)


def _frame(face: np.ndarray, quad: np.ndarray, rng: np.random.Generator, sigma: float,
           streak: int, noise: float, quality: int) -> np.ndarray:
    """``face`` laid on felt at ``quad``, blurred (Gaussian, a horizontal streak), noisy, JPEG."""
    grey = fine_grey(face)
    h, w = grey.shape
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) - 0.5
    m = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    card = cv2.warpPerspective(grey, m, _FRAME, flags=cv2.INTER_AREA, borderValue=0)
    inside = cv2.warpPerspective(np.full_like(grey, 255), m, _FRAME, flags=cv2.INTER_AREA)
    img = np.where(inside > 127, card, 70).astype(np.float32)
    img = np.asarray(cv2.GaussianBlur(img, (0, 0), sigma), np.float32)
    if streak:
        img = np.asarray(cv2.filter2D(img, -1, np.full((1, streak), 1.0 / streak, np.float32)),
                         np.float32)
    img = np.clip(img + rng.normal(0, noise, img.shape), 0, 255).astype(np.uint8)
    bgr = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    ok, jpeg = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return np.asarray(cv2.imdecode(jpeg, cv2.IMREAD_COLOR), np.uint8)


def test_shared_courts_told_apart_by_the_index_suit_symbol(kennard: Faces) -> None:
    """Kings, queens and jacks whose picture is shared: only the small suit symbols of the two
    corner indices differ. Blurred and streaked as hard frames are, each is read as itself
    against its twin, and its twin is never read."""
    faces = shared_courts(kennard)
    fine = FineFaces(faces)
    rng = np.random.default_rng(62)
    quad = _quad()
    for code, twin_code in (("Ks", "Kc"), ("Qc", "Qs"), ("Jd", "Jh"), ("Kh", "Kd")):
        card, twin = Card.parse(code), Card.parse(twin_code)
        for sigma, streak in ((1.0, 0), (1.8, 7)):
            frame = _frame(faces[card], quad, rng, sigma, streak, 4.0, 75)
            lean = fine_lean(frame, quad, card, twin, fine)
            assert lean is not None and len(lean.corners) == 2, code
            assert decide_fine(lean) == 1, (code, sigma, lean)
            assert decide_fine(fine_lean(frame, quad, twin, card, fine)) == -1, (code, sigma)


def test_no_decision_on_noise_a_covered_corner_or_a_card_off_its_pose(kennard: Faces) -> None:
    """What the frame cannot resolve decides nothing: a frame drowned in noise, one of the two
    index corners under a neighbour (a single corner is not enough), the card a few
    millimetres from where it was located."""
    faces = shared_courts(kennard)
    fine = FineFaces(faces)
    rng = np.random.default_rng(63)
    quad = _quad()
    card, twin = Card.parse("Ks"), Card.parse("Kc")
    drowned = _frame(faces[card], quad, rng, 2.5, 9, 60.0, 30)
    assert decide_fine(fine_lean(drowned, quad, card, twin, fine)) == 0
    clear = _frame(faces[card], quad, rng, 1.0, 0, 3.0, 90)
    covered = fine_lean(clear, quad, card, twin, fine, (True, False, False, False))
    assert covered is not None and len(covered.corners) == 1 and covered.differing == 2
    assert decide_fine(covered) == 0
    assert decide_fine(fine_lean(clear, quad + np.array([14.0, 12.0]), card, twin, fine)) != -1


def test_decided_only_for_an_observation_whose_view_was_noted(kennard: Faces) -> None:
    """The bank's fine faces answer only for an observation cut from a noted view
    (:meth:`FineFaces.look`); a copy of it, or another observation, stays undecided."""
    faces = shared_courts(kennard)
    bank = FaceBank.from_faces(faces, RecognizerParams())
    assert bank.fine is not None
    rng = np.random.default_rng(64)
    quad = _quad()
    card, twin = Card.parse("Qd"), Card.parse("Qh")
    frame = _frame(faces[card], quad, rng, 1.2, 0, 4.0, 80)
    patch = np.asarray(cv2.resize(frame, STORED_PATCH_SIZE), np.uint8)
    observed = observed_luminance(patch)
    assert bank.fine.decide(observed, card, twin) == (0, 0.0)
    bank.fine.look(observed, FineView(frame, quad))
    sign, lean = bank.fine.decide(observed, card, twin)
    assert sign == 1 and lean >= 0.3
    assert bank.fine.decide(observed, twin, card)[0] == -1
    assert bank.fine.decide(read_only(observed.copy()), card, twin) == (0, 0.0)


def test_corners_hidden_marks_the_boxes_a_mask_touches() -> None:
    mask = np.zeros((168, 120), np.uint8)
    assert corners_hidden(None) == (False, False, False, False)
    assert corners_hidden(mask) == (False, False, False, False)
    mask[160:, 110:] = 255
    assert corners_hidden(mask) == (False, False, False, True)
    mask[:, :3] = 255
    assert corners_hidden(mask) == (True, False, True, True)


def test_a_large_registered_face_is_kept_at_the_fine_cap() -> None:
    from hardware.camera.finetwins import FINE_MAX_PX, fine_grey

    face = np.full((2400, 1640, 4), 255, np.uint8)
    grey = fine_grey(face)
    assert max(grey.shape) == FINE_MAX_PX and grey.dtype == np.uint8


def test_a_faces_file_with_an_oversized_fine_face_is_refused() -> None:

    from calibration.facesfile import load_patches, patches_bytes
    from hardware.camera.recognizer import STORED_PATCH_SIZE
    from table_controller.engine.cards import FULL_DECK
    from table_controller.errors import CalibrationError

    w, h = STORED_PATCH_SIZE
    patches = {c: np.full((h, w, 3), 200, np.uint8) for c in FULL_DECK}
    fine = {c: np.full((420, 300), 200, np.uint8) for c in FULL_DECK}
    loaded = load_patches(patches_bytes(patches, None, fine), "ok.npz")
    assert loaded[2] is not None and len(loaded[2]) == 52
    fine[FULL_DECK[0]] = np.full((5000, 3000), 200, np.uint8)
    with pytest.raises(CalibrationError, match="px a side"):
        load_patches(patches_bytes(patches, None, fine), "big.npz")


def test_the_fine_comparison_decides_courts_only(kennard: Faces,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A pair the stored faces leave undecided is put to the fine comparison only when it is a
    court pair (``FINE_RANKS``): on pip cards its corners leaned clearly the wrong way on
    right reads, so a pip pair stays undecided whatever it would say."""
    from hardware.camera import twindecide
    from hardware.camera.facebank import Match
    from hardware.camera.twindecide import decide_twin

    bank = FaceBank.from_faces(shared_courts(kennard), RecognizerParams())
    assert bank.fine is not None
    asked: list[str] = []

    def leans_to_card(observed: object, card: Card, twin: Card) -> tuple[int, float]:
        asked.append(card.code)
        return 1, 1.5

    monkeypatch.setattr(twindecide, "_stored_twin", lambda *a: None)
    monkeypatch.setattr(bank.fine, "decide", leans_to_card)
    monkeypatch.setattr(twindecide, "pair_check",
                        lambda *a: type("P", (), {"position": 1.0})())
    observed = observed_luminance(np.asarray(cv2.resize(kennard[Card.parse("Ks")],
                                                        STORED_PATCH_SIZE)[..., :3], np.uint8))
    for code, twin, decided in (("Ks", "Kc", True), ("5s", "5c", False), ("Th", "Td", False)):
        match = Match(card=Card.parse(code), score=0.95, margin=0.01, discriminant=0.5,
                      second=Card.parse(twin))
        out = decide_twin(observed, match, bank, RecognizerParams())
        assert (out is not None) is decided, code
    assert asked == ["Ks"]


def _glared(frame: np.ndarray, centres: list[tuple[float, float]], sigma: float,
            peak: float) -> np.ndarray:
    """``frame`` under glare spots (as the scenes render one: ``ink (1 - g) + 255 g``)."""
    h, w = frame.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    g = np.zeros((h, w), np.float32)
    for cx, cy in centres:
        g += peak * np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * sigma * sigma))
    g = np.minimum(g, 1.0)[..., None]
    out = frame.astype(np.float32) * (1 - g) + 255 * g
    return np.asarray(np.clip(out + 0.5, 0, 255), np.uint8)


def test_a_glare_over_the_indices_fitted_with_its_light(kennard: Faces) -> None:
    """A glare spot over each index lifts part of the box and flattens its ink: the plain fit
    (one gain, one offset) misfits the box (under 0.8) and its noise swells; fitted with the
    light varying across the box the courts are read as themselves against their twins, and
    the twin is never read or confirmed."""
    faces = shared_courts(kennard)
    fine = FineFaces(faces)
    rng = np.random.default_rng(65)
    quad = _quad()
    # Over the top-left and the bottom-right index (upright card, 6 degrees).
    spots = [(quad[0][0] + 30.0, quad[0][1] + 60.0), (quad[2][0] - 30.0, quad[2][1] - 60.0)]
    lit_read = 0
    for code, twin_code in (("Ks", "Kc"), ("Qc", "Qs"), ("Jd", "Jh"), ("Kh", "Kd")):
        card, twin = Card.parse(code), Card.parse(twin_code)
        frame = _glared(_frame(faces[card], quad, rng, 1.4, 5, 8.0, 75), spots, 35.0, 0.9)
        lean = fine_lean(frame, quad, card, twin, fine)
        assert lean is not None and len(lean.corners) == 2, code
        against = fine_lean(frame, quad, twin, card, fine)
        assert decide_fine(against) != 1 and not fine_confirms(against), code
        if decide_fine(lean) == 1 and all(c.fit < 0.8 for c in lean.corners):
            lit_read += 1
    assert lit_read >= 2
