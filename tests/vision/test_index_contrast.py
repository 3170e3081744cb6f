"""Faces told apart by their corners alone: the index's contrast at the frame's blur, the
candidates a difference read tries."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from hardware.camera import difference
from hardware.camera.difference import _washed_out, read_by_difference
from hardware.camera.facebank import (
    PATCH_SIZE,
    STORED_PATCH_SIZE,
    FaceBank,
    face_features,
    face_patch,
    whole_contrast,
)
from hardware.camera.readings import RecognizerParams
from hardware.camera.suits import observed_luminance, pair_check
from table_controller.engine.cards import Card

from .conftest import Faces
from .test_difference import _camera, shared_pictures

PAIRS = (("6h", "8h"), ("3c", "5c"), ("9s", "6s"), ("2d", "7d"))


def _shared_bank(kennard: Faces) -> tuple[Faces, RecognizerParams, FaceBank]:
    """Kennard with one picture for every pip card of a suit, and its face bank."""
    faces = shared_pictures(kennard)
    params = RecognizerParams()
    return faces, params, FaceBank.from_faces(faces, params)


def test_a_blurred_index_keeps_its_contrast_at_the_frame_s_blur(kennard: Faces) -> None:
    """Blurred (sigma 2.5 stored px), a thin index stroke's ink spreads: against the sharp
    faces its contrast drops to 0.5-0.7 of the whole card's (near the washed-out bound), against
    the faces blurred as the observation is it stays near the card's own, and the index is not
    taken for washed out."""
    faces, params, bank = _shared_bank(kennard)
    rng = np.random.default_rng(69)
    for code, rival in PAIRS:
        card, other = Card.parse(code), Card.parse(rival)
        ob = observed_luminance(_camera(face_patch(faces[card], STORED_PATCH_SIZE), rng, 2.5))
        sharp = pair_check(ob, bank.luminance(card), bank.luminance(other))
        blurred = bank.index_only.check(ob, card, other)
        whole = whole_contrast(ob, bank.whole_face(card))
        assert blurred.fit >= params.difference_min_fit, (code, blurred)
        assert sharp.contrast <= 0.7 * whole, (code, sharp, whole)
        assert blurred.contrast >= 0.8 * whole, (code, blurred, whole)
        bound = params.difference_min_contrast * whole
        assert not _washed_out(sharp, blurred, bound, params), code


def test_a_glare_over_the_indices_washes_them_out_at_any_blur(kennard: Faces) -> None:
    """A highlight over both corner indices lifts their ink towards the white: washed out
    against the blurred faces as against the sharp ones."""
    from .test_glare import _glare

    faces, params, bank = _shared_bank(kennard)
    rng = np.random.default_rng(70)
    for code, rival in PAIRS:
        card, other = Card.parse(code), Card.parse(rival)
        shown = face_patch(faces[card], STORED_PATCH_SIZE)
        h, w = shown.shape[:2]
        glared = _glare(_glare(shown, (0.1 * w, 0.1 * h), 14.0, 0.9), (0.9 * w, 0.9 * h), 14.0,
                        0.9)
        ob = observed_luminance(_camera(glared, rng, 2.5))
        sharp = pair_check(ob, bank.luminance(card), bank.luminance(other))
        blurred = bank.index_only.check(ob, card, other)
        bound = params.difference_min_contrast * whole_contrast(ob, bank.whole_face(card))
        assert _washed_out(sharp, blurred, bound, params), (code, sharp, blurred, bound)


def test_the_other_close_cards_are_tried_when_the_chain_ends(
    kennard: Faces, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The best card refused with no card it clearly lost to: the other close cards that may
    be read are tried, best first, and the card shown is read (never another)."""
    faces = shared_pictures(kennard)
    params = RecognizerParams()
    bank = FaceBank.from_faces(faces, params)
    rng = np.random.default_rng(71)
    real = difference._difference_lean
    read = 0
    for code in ("6h", "3c", "9s", "2d", "8c"):
        card = Card.parse(code)
        big = _camera(face_patch(faces[card], STORED_PATCH_SIZE), rng, 1.5)
        small = np.asarray(cv2.resize(big, PATCH_SIZE, interpolation=cv2.INTER_AREA), np.uint8)
        match = bank.match(face_features(small, params.red_weight), params)
        # Another card of the suit taken as the whole face's best.
        first = next(c for c in match.close if c != card and c.suit == card.suit)
        match = replace(match, card=first)

        def lean(observed, x, *args, first=first, **kwargs):  # type: ignore[no-untyped-def]
            # The best card refused, naming no card it lost to.
            return (None, None) if x == first else real(observed, x, *args, **kwargs)

        monkeypatch.setattr(difference, "_difference_lean", lean)
        got = read_by_difference(observed_luminance(big), match, bank, params)
        monkeypatch.setattr(difference, "_difference_lean", real)
        assert got is None or got.card == card, (code, got)
        read += got is not None
    assert read >= 3, read
