"""Cheaper ways to the same arrays: the ink tone's means and the glare check's differences.

Benchmark run 92 made three costs of a read cheaper without changing any reading: each is
checked here against the formula it replaced, bit for bit, on the registered faces (kennard,
svg-cards) and on noisy, dimmed and tinted observations of them.
"""

from __future__ import annotations

import warnings

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from hardware.camera.facebank import STORED_PATCH_SIZE, face_patch
from hardware.camera.glare import _DIFFERENCE_LEVEL, HiddenRivals, _kept
from hardware.camera.inkhue import (
    INK_LEVEL,
    TONE_MIN_DARKNESS,
    FaceTones,
    _colour,
    _colour_means,
    _grown,
    _luminance,
    _raw_ink,
    ink_tone,
)
from hardware.camera.suits import face_luminance
from table_controller.engine.cards import FULL_DECK

from .conftest import Faces
from .helpers import Image

F64 = npt.NDArray[np.float64]


def _tone_before(patch: Image, ink: npt.NDArray[np.bool_],
                 paper: npt.NDArray[np.bool_]) -> F64 | None:
    """:func:`ink_tone` as it was made before run 92: both planes over the whole patch."""
    img = patch.astype(np.float32)
    b, g, r = cv2.split(img)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    colour = np.stack([b - g, r - np.maximum(g, b)], -1)
    white = float(grey[paper].mean())
    dark = white - float(grey[ink].mean())
    if dark < TONE_MIN_DARKNESS * max(white, 16.0):
        return None
    return np.asarray((colour[ink].mean(axis=0) - colour[paper].mean(axis=0)) / dark, np.float64)


def _patches(faces: Faces, rng: np.random.Generator) -> list[Image]:
    """Every fourth face at the stored size, and an observation of it (noise, light, tint)."""
    out: list[Image] = []
    for card in FULL_DECK[::4]:
        patch = face_patch(faces[card], STORED_PATCH_SIZE)
        out.append(patch)
        seen = (patch.astype(np.float32) * rng.uniform(0.55, 1.1)
                + rng.normal(0.0, 7.0, patch.shape) + rng.uniform(-20, 20, 3))
        out.append(np.clip(seen, 0, 255).astype(np.uint8))
    return out


def test_tones_as_before(kennard: Faces, svg_cards: Faces) -> None:
    rng = np.random.default_rng(92)
    compared = 0
    for faces in (kennard, svg_cards):
        patches = _patches(faces, rng)
        for i, patch in enumerate(patches):
            ink, paper = _grown(_raw_ink(patch))
            for other in (patch, patches[(i + 5) % len(patches)]):
                before, now = _tone_before(other, ink, paper), ink_tone(other, ink, paper)
                assert (before is None) == (now is None)
                if before is not None and now is not None:
                    assert before.tobytes() == now.tobytes()
                    compared += 1
    assert compared > 20


@pytest.mark.filterwarnings("ignore:Mean of empty slice")
@pytest.mark.filterwarnings("ignore:invalid value encountered")
def test_colour_means_as_numpy_mean() -> None:
    """The running sums' ends over n equal numpy's mean of the (n, 2) rows, empty masks too."""
    rng = np.random.default_rng(5)
    for size in ((168, 120), (7, 5), (300, 211)):
        img = rng.uniform(0, 255, (*size, 3)).astype(np.float32)
        b, g, r = cv2.split(img)
        colour = np.stack([b - g, r - np.maximum(g, b)], -1)
        masks = (rng.uniform(size=size) < 0.7, rng.uniform(size=size) < 0.02,
                 np.ones(size, bool), np.zeros(size, bool))
        got = _colour_means(img, masks[:3])
        for mask, mean in zip(masks, got, strict=False):
            assert mean.dtype == np.float32
            assert colour[mask].mean(axis=0).tobytes() == mean.tobytes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        empty = _colour_means(img, (np.zeros(img.shape[:2], bool),))[0]
    assert np.isnan(empty).all()


def test_luminance_as_colour_planes(kennard: Faces) -> None:
    rng = np.random.default_rng(7)
    for patch in _patches(kennard, rng):
        assert _luminance(patch).tobytes() == _colour(patch)[0].tobytes()
        assert np.array_equal(_raw_ink(patch), _colour(patch)[0] < INK_LEVEL)


def test_face_tones_as_before(svg_cards: Faces) -> None:
    """The deck's own tones (the first read's warm-up) are those of the former formula."""
    patches = {(c.rank, c.suit): face_patch(svg_cards[c], STORED_PATCH_SIZE)
               for c in FULL_DECK}
    tones = FaceTones(patches)
    for key, patch in patches.items():
        ink, paper = _grown(_colour(patch)[0] < INK_LEVEL)
        before = _tone_before(patch, ink, paper) if ink.any() and paper.any() else None
        now = tones.own(key)
        assert (before is None) == (now is None)
        if before is not None and now is not None:
            assert before.tobytes() == now.tobytes()


def test_kept_as_where() -> None:
    rng = np.random.default_rng(3)
    d = rng.normal(0.0, 0.3, (52, 999)).astype(np.float32)
    d[:, ::7] = 0.0
    d[:, 3::11] = -0.0
    for values, where in ((-d, d <= -0.1), (d, d >= 0.1), (d, d > 0), (-d, d < 0)):
        before = np.where(where, values, 0.0)
        now = _kept(values, where)
        assert now.dtype == before.dtype == np.float32
        assert now.tobytes() == before.tobytes()
        assert now.sum(axis=1).tobytes() == before.sum(axis=1).tobytes()


def test_glare_weights_as_before(kennard: Faces) -> None:
    lum = {c: face_luminance(face_patch(kennard[c], STORED_PATCH_SIZE)) for c in FULL_DECK}
    hidden = HiddenRivals(lum.__getitem__)
    face = hidden._face
    glare = np.zeros_like(face)
    glare[40:90, 30:80] = True
    stack = np.stack([lum[c][face] for c in FULL_DECK])
    for card in FULL_DECK[::5]:
        for where in (face, glare):
            sel = where[face]
            rows = stack if sel.all() else stack[:, sel]
            d = rows - rows[FULL_DECK.index(card)][None, :]
            theirs = np.where(d <= -_DIFFERENCE_LEVEL, -d, 0.0).sum(axis=1)
            ours = np.where(d >= _DIFFERENCE_LEVEL, d, 0.0).sum(axis=1)
            got = hidden._weights(card, where)
            assert got[0].tobytes() == np.asarray(theirs, np.float64).tobytes()
            assert got[1].tobytes() == np.asarray(ours, np.float64).tobytes()
