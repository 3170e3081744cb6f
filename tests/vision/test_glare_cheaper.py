"""The glare check made cheaper, the same masks (benchmark run 118).

The paper's level (:func:`~hardware.camera.glare._paper_level`) is read off the grey levels'
counts instead of ``np.percentile``'s sort where the order statistics about the percentile
are one level; each card's own glare (:meth:`RivalChecks._own_glare`) is made by the
warm-up. Both pure speed-ups: each is checked here against what it replaced, bit for bit
(they pass on main's values, so these tests pin the behaviour rather than fail on main).
"""

from __future__ import annotations

import cv2
import numpy as np

from hardware.camera.facebank import STORED_PATCH_SIZE, face_patch
from hardware.camera.glare import (
    GLARE_MIN_GREY,
    GLARE_MIN_LIFT,
    GLARE_SPREAD_PX,
    PAPER_LEVEL,
    PAPER_PERCENTILE,
    SPREAD_ROUNDING,
    Mask,
    _paper_level,
    _plane,
    _white,
    glare_mask,
)
from hardware.camera.suits import face_luminance
from table_controller.engine.cards import FULL_DECK

from .conftest import Faces
from .helpers import Image, make_rig


def _mask_before(patch: Image, face: np.ndarray) -> tuple[Mask, bool]:
    """:func:`glare_mask` as it was before run 118 (the level by ``np.percentile``)."""
    grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float32)
    paper = cv2.erode((face >= PAPER_LEVEL).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    empty = np.zeros(grey.shape, bool)
    if np.count_nonzero(paper) < grey.size // 10:
        return empty, False
    level = float(np.percentile(grey[paper], PAPER_PERCENTILE))
    headroom = 255.0 - level
    if headroom < GLARE_MIN_GREY:
        return empty, False
    paper &= grey >= level - GLARE_MIN_GREY
    h, w = grey.shape
    coef = np.array([0.0, 0.0, level])
    fit = paper & (grey <= level + GLARE_MIN_GREY)
    for _ in range(2):
        if np.count_nonzero(fit) < 3:
            break
        coef = _plane(fit, grey)
        fit = paper & (grey - _white(coef, h, w) <= GLARE_MIN_GREY)
    white = (coef[0] * np.arange(w, dtype=np.float32)[None, :]
             + coef[1] * np.arange(h, dtype=np.float32)[:, None] + coef[2]).astype(np.float32)
    lift = np.where(paper, grey - white, 0.0).astype(np.float32)
    floor = max(GLARE_MIN_LIFT * headroom, GLARE_MIN_GREY)
    shows = headroom >= 2 * GLARE_MIN_GREY
    if float(lift.max()) < floor - SPREAD_ROUNDING:
        return empty, shows
    num = cv2.GaussianBlur(lift, (0, 0), GLARE_SPREAD_PX)
    den = cv2.GaussianBlur(paper.astype(np.float32), (0, 0), GLARE_SPREAD_PX)
    spread = num / np.maximum(den, 1e-3)
    return np.asarray((spread >= floor) & (den > 0.01), bool), shows


def test_the_paper_level_is_numpy_s_percentile_to_the_bit() -> None:
    """Narrow paper (ties about the percentile: the counts' answer), wide and tiny sets (numpy's
    own answer), at the check's percentile and others."""
    rng = np.random.default_rng(118)
    fast = 0
    for i in range(4000):
        n = int(rng.choice([1, 2, 3, 5, 40, 2000, 15000]))
        centre, spread = rng.uniform(0, 255), rng.choice([0.0, 0.4, 2.0, 8.0, 60.0])
        values = np.clip(np.round(rng.normal(centre, spread, n)), 0, 255).astype(np.uint8)
        q = PAPER_PERCENTILE if i % 2 else float(rng.choice([0.0, 5.0, 50.0, 95.0, 100.0]))
        expected = float(np.percentile(values.astype(np.float32), q))
        got = _paper_level(values, q)
        assert got == expected and type(got) is float, (n, centre, spread, q)
        n_lo = np.percentile(values, q, method="lower")
        fast += int(n_lo == np.percentile(values, q, method="higher"))
    assert fast > 1000  # both ways are exercised


def test_the_glare_mask_is_the_same_on_faces_lit_and_streaked(kennard: Faces) -> None:
    """Registered faces, and observations of them: noise, dimmed, a glare spot and a streak."""
    rng = np.random.default_rng(1180)
    h, w = STORED_PATCH_SIZE[1], STORED_PATCH_SIZE[0]
    ys, xs = np.mgrid[0:h, 0:w]
    found = 0
    for card in FULL_DECK:
        patch = face_patch(kennard[card], STORED_PATCH_SIZE)
        face = face_luminance(patch)
        cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(8, 30)
        spot = np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * r * r))[..., None]
        seen = patch.astype(np.float32) * rng.uniform(0.6, 1.0) + rng.normal(0, 4, patch.shape)
        seen += spot * rng.uniform(0.2, 0.8) * (255.0 - seen)
        for view in (patch, np.clip(seen, 0, 255).astype(np.uint8)):
            got, expected = glare_mask(view, face), _mask_before(view, face)
            assert np.array_equal(got[0], expected[0]) and got[1] == expected[1], card
            found += int(got[0].any())
    assert found > 10


def test_the_warm_up_makes_every_card_s_own_glare_as_a_read_would(kennard: Faces) -> None:
    """After the warm-up each card's own glare is kept, the mask a recogniser that was never
    warmed up makes when a read first asks for it."""
    rig = make_rig(kennard, 1181)
    warm, cold = rig.profile.recognizer(), rig.profile.recognizer()
    warm.warm_up()
    assert warm._own_glares is not None and set(warm._own_glares) == set(FULL_DECK)
    assert cold._own_glares is None
    for card in FULL_DECK:
        assert np.array_equal(warm._own_glares[card], cold._own_glare(card)), card
