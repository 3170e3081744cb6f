"""Suit twins of a four-colour deck, and corner indices a neighbour may lie over."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from hardware.camera.facebank import STORED_PATCH_SIZE, FaceBank, face_patch
from hardware.camera.readings import RecognizerParams
from hardware.camera.suits import (
    SuitCheck,
    face_luminance,
    index_leans,
    observed_luminance,
)
from hardware.camera.twinconflict import blurred_unmatched
from hardware.camera.twindecide import twin_refuted
from table_controller.engine.cards import Card

from .conftest import Faces

#: Spades printed green, diamonds orange-yellow (BGR), as four-colour decks print them.
INKS = {"s": (60, 140, 30), "d": (40, 170, 230)}


def four_colour(faces: Faces) -> Faces:
    """Kennard with the spades' and diamonds' ink recoloured as a four-colour deck's."""
    out = dict(faces)
    for card, face in faces.items():
        ink = INKS.get(card.code[-1])
        if ink is None:
            continue
        bgr = face[..., :3].astype(np.float32)
        # How far each pixel is from the card's white towards the ink (0 white, 1 full ink).
        depth = 1.0 - bgr.min(axis=2, keepdims=True) / 255.0
        coloured = 255.0 - depth * (255.0 - np.asarray(ink, np.float32))
        new = face.copy()
        new[..., :3] = np.clip(coloured + 0.5, 0, 255).astype(np.uint8)
        out[card] = new
    return out


def _seen(patch: np.ndarray, seed: int) -> np.ndarray:
    """A sharp camera view of a stored patch: a pixel off, light blur and noise."""
    rng = np.random.default_rng(seed)
    noisy = np.clip(patch.astype(np.float32) + rng.normal(0, 6, patch.shape), 0, 255)
    shifted = np.roll(np.asarray(noisy, np.uint8), (1, -1), axis=(0, 1))
    return np.asarray(cv2.GaussianBlur(shifted, (0, 0), 1.0), np.uint8)


def test_blurred_comparison_without_a_matched_blur_is_no_evidence() -> None:
    p = RecognizerParams()
    assert blurred_unmatched(SuitCheck(0.0, 0.0, 0), p)
    assert blurred_unmatched(SuitCheck(0.1, 0.95, 900, 0.1, 0.1, 1.8), p)
    assert not blurred_unmatched(SuitCheck(0.6, 0.95, 900, 0.5, 0.7, 1.0), p)


def test_four_colour_aces_and_twos_are_not_refused_by_their_twin(kennard: Faces) -> None:
    """A sharp green ace of spades is not refused against the black club, nor the other way;
    each is refused as its twin."""
    faces = four_colour(kennard)
    params = RecognizerParams()
    bank = FaceBank.from_faces(faces, params)
    for k, (a, b) in enumerate((("As", "Ac"), ("Ac", "As"), ("2s", "2c"), ("Ad", "Ah"))):
        ca, cb = Card.parse(a), Card.parse(b)
        ob = observed_luminance(_seen(face_patch(faces[ca], STORED_PATCH_SIZE), 40 + k))
        assert not twin_refuted(ob, ca, cb, bank, params), (a, b)
        assert twin_refuted(ob, cb, ca, bank, params), (a, b)


def test_twin_veto_takes_the_sharp_comparison_when_no_blur_matched(
    kennard: Faces, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A blurred comparison whose faces were blurred past the observation (its fitted contrast
    far over 1: an ace or a two with little print to match a blur on) sits near halfway
    whichever card it is; the veto then stands on the sharp comparison."""
    import hardware.camera.twindecide as twindecide

    faces = four_colour(kennard)
    params = RecognizerParams()
    bank = FaceBank.from_faces(faces, params)
    spade, club = Card.parse("2s"), Card.parse("2c")
    ob = observed_luminance(_seen(face_patch(faces[spade], STORED_PATCH_SIZE), 42))
    over_blurred = SuitCheck(0.05, 0.95, 900, 0.02, 0.08, 1.9)
    monkeypatch.setattr(twindecide, "blurred_pair_check", lambda *_: over_blurred)
    assert not twin_refuted(ob, spade, club, bank, params)
    assert twin_refuted(ob, club, spade, bank, params)
    # Before (the over-blurred comparison taken as evidence): refused.
    strict = replace(params, twin_blur_max_contrast=10.0)
    assert twin_refuted(ob, spade, club, bank, strict)


def test_an_index_under_a_neighbour_is_left_out(kennard: Faces) -> None:
    six, seven = (face_patch(kennard[Card.parse(x)], STORED_PATCH_SIZE) for x in ("6h", "7h"))
    ob = observed_luminance(_seen(six, 3))
    fb, fr = face_luminance(six), face_luminance(seven)
    both = index_leans(ob, fb, fr)
    assert len(both) == 2 and all(lean > 0.5 for lean, _ in both)
    w, h = STORED_PATCH_SIZE
    corner = np.zeros((h, w), np.uint8)
    corner[h - 30 :, w - 25 :] = 1  # a neighbour over the bottom-right corner
    left = index_leans(ob, fb, fr, corner)
    assert left == both[:1]
    assert index_leans(ob, fb, fr, np.zeros((h, w), np.uint8)) == both
