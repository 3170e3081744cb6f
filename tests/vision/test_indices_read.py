"""A card read from its two corner indices, each aligned on its own (fallback.indices_read)."""

from __future__ import annotations

import cv2
import numpy as np

from hardware.camera.facebank import (
    PATCH_SIZE,
    STORED_PATCH_SIZE,
    FaceBank,
    decide,
    face_features,
    face_patch,
)
from hardware.camera.fallback import indices_read
from hardware.camera.readings import RecognizerParams
from hardware.camera.suits import observed_luminance
from table_controller.engine.cards import Card

from .conftest import Faces
from .test_difference import _camera, shared_pictures

CODES = ("6h", "8h", "3c", "5c", "8s", "9d", "Th", "2s", "Qd", "7c")


def _seen(face: np.ndarray, rng: np.random.Generator, scale: float) -> np.ndarray:
    """The face at the stored size, a little too large about its centre (a card located a
    pixel short in its size: the four corners move by different shifts), blurred, noisy."""
    patch = face_patch(face, STORED_PATCH_SIZE)
    w, h = STORED_PATCH_SIZE
    m = cv2.getRotationMatrix2D((w / 2, h / 2), 0.0, scale)
    grown = cv2.warpAffine(patch, m, (w, h), borderMode=cv2.BORDER_REPLICATE)
    return _camera(grown, rng, 1.0, noise=4.0)


def test_the_corner_indices_read_the_card_and_never_another(kennard: Faces) -> None:
    """One picture per suit, the card located 2% short: what the whole face leaves uncertain
    the two corner indices read, always as the card shown."""
    faces = shared_pictures(kennard)
    params = RecognizerParams()
    bank = FaceBank.from_faces(faces, params)
    rng = np.random.default_rng(53)
    read = 0
    for code in CODES:
        card = Card.parse(code)
        big = _seen(faces[card], rng, 1.02)
        small = np.asarray(cv2.resize(big, PATCH_SIZE, interpolation=cv2.INTER_AREA), np.uint8)
        match = bank.match(face_features(small, params.red_weight), params)
        if decide(match, params).status == "card":
            continue
        got = indices_read(observed_luminance(big), match, bank, params)
        assert got is None or got.card == card, (code, match.card, match.second, got)
        if got is not None:
            read += 1
            assert got.status == "card" and got.confidence <= 0.5
            # Never read beside a hand this way (the near-hand rule needs a separation).
            assert got.separation == 0.0 and got.discriminant == 0.0
    assert read >= 3, read


def test_indices_hidden_or_blank_read_nothing(kennard: Faces) -> None:
    """Both corner indices under a neighbour (``ignore``), or painted over with the card's
    paper: no evidence, no read."""
    faces = shared_pictures(kennard)
    params = RecognizerParams()
    bank = FaceBank.from_faces(faces, params)
    rng = np.random.default_rng(54)
    w, h = STORED_PATCH_SIZE
    everywhere = np.ones((h, w), np.uint8)
    for code in CODES:
        card = Card.parse(code)
        big = _seen(faces[card], rng, 1.0)
        small = np.asarray(cv2.resize(big, PATCH_SIZE, interpolation=cv2.INTER_AREA), np.uint8)
        match = bank.match(face_features(small, params.red_weight), params)
        seen = observed_luminance(big)
        assert indices_read(seen, match, bank, params, everywhere) is None, code
        blank = big.copy()
        ch, cw = int(0.3 * h), int(0.22 * w)
        blank[:ch, :cw] = blank[h // 2, w // 4]
        blank[h - ch :, w - cw :] = blank[h // 2, w // 4]
        got = indices_read(observed_luminance(blank), match, bank, params)
        assert got is None, (code, got)
