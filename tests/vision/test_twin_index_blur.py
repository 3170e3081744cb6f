"""Suit twins: a blurred read must hold at the blur the corner indices show; a lean no noise
can be set against decides nothing."""

from __future__ import annotations

import cv2
import numpy as np

from hardware.camera.blurmatch import blur_kernel, index_blur, matched_blur
from hardware.camera.facebank import STORED_PATCH_SIZE, FaceBank, Match, face_patch
from hardware.camera.readings import RecognizerParams
from hardware.camera.suits import face_luminance, observed_luminance, read_only
from hardware.camera.twindecide import decide_twin
from hardware.camera.twinleans import above_noise, index_lean_stands
from table_controller.engine.cards import Card

from .conftest import Faces
from .test_suits import shared_courts


def _streaked_corners(patch: np.ndarray, streak: tuple[float, int, int]) -> np.ndarray:
    """``patch`` under a light Gaussian, its two corner index boxes under ``streak`` instead."""
    soft = cv2.GaussianBlur(patch.astype(np.float32), (0, 0), 1.0)
    moved = cv2.filter2D(patch.astype(np.float32), -1, blur_kernel(streak),
                         borderType=cv2.BORDER_REPLICATE)
    h, w = patch.shape[:2]
    bh, bw = int(0.3 * h), int(0.22 * w)
    soft[:bh, :bw] = moved[:bh, :bw]
    soft[h - bh :, w - bw :] = moved[h - bh :, w - bw :]
    return np.asarray(np.clip(soft, 0, 255), np.uint8)


def test_the_index_blur_is_the_corners_own(kennard: Faces) -> None:
    """A shared-court king whose corners alone are streaked (the card's corner moving): the
    whole card's fit is the court picture's light Gaussian, the corner fit finds the streak."""
    faces = shared_courts(kennard)
    spade, club = (face_patch(faces[Card.parse(x)], STORED_PATCH_SIZE) for x in ("Ks", "Kc"))
    fs, fc = read_only(face_luminance(spade)), read_only(face_luminance(club))
    ob = observed_luminance(_streaked_corners(spade, (0.0, 8, 45)))
    whole = matched_blur(ob, fs, fc)[0]
    corners = index_blur(ob, fs, fc)
    assert corners[1] >= 4, corners
    assert corners != whole
    plain = observed_luminance(np.asarray(cv2.GaussianBlur(spade, (0, 0), 1.0), np.uint8))
    assert index_blur(plain, fs, fc)[1] <= 2


def test_a_clear_twin_holds_at_the_corners_blur(kennard: Faces) -> None:
    """The spade of a shared-court king, its corners streaked: the read still leans to the
    spade at the corners' own blur, and the twin decision reads it."""
    faces = shared_courts(kennard)
    params = RecognizerParams()
    bank = FaceBank.from_faces(faces, params)
    spade = face_patch(faces[Card.parse("Ks")], STORED_PATCH_SIZE)
    fs, fc = bank.luminance(Card.parse("Ks")), bank.luminance(Card.parse("Kc"))
    ob = observed_luminance(_streaked_corners(spade, (0.0, 6, 30)))
    assert index_lean_stands(ob, fs, fc, 1.0, params)
    assert not index_lean_stands(ob, fs, fc, -1.0, params)
    match = Match(Card.parse("Ks"), 0.97, 0.002, 0.1, 0.01, Card.parse("Kc"),
                  discriminant_others=0.9, separation_others=0.3, other=Card.parse("Qs"))
    decided = decide_twin(ob, match, bank, params)
    assert decided is None or decided[0].card == Card.parse("Ks")


def test_a_lean_under_twice_the_noise_decides_nothing() -> None:
    """A lean stands at twice the frame's noise; an unmeasured noise leaves the bounds alone."""
    params = RecognizerParams()
    assert above_noise(1.0, 0.4, params)
    assert not above_noise(0.7, 0.4, params)
    assert above_noise(3.0, None, params)
