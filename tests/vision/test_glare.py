"""Reads under a glare: ink only one face has, and the cheaper blurs of the twin checks."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.camera.blurmatch import _BLUR_RADIUS_HALF, _Spectrum, blur_kernel
from hardware.camera.facebank import (
    PATCH_SIZE,
    STORED_PATCH_SIZE,
    FaceBank,
    decide,
    face_features,
    face_patch,
)
from hardware.camera.fallback import twin_not_shown
from hardware.camera.glare import glare_score
from hardware.camera.readings import RecognizerParams, SlotReading
from hardware.camera.rivalrules import ink_refuted
from hardware.camera.suits import (
    face_luminance,
    ink_check,
    observed_luminance,
)
from hardware.camera.washedout import read_washed_out
from table_controller.engine.cards import FULL_DECK, Card

from .conftest import Faces


def _glare(patch: np.ndarray, centre: tuple[float, float], sigma: float,
           peak: float) -> np.ndarray:
    """Add a glossy reflection as the scene renderer does: white, ``peak`` at ``centre``."""
    h, w = patch.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    g = peak * np.exp(-((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2) / (2 * sigma**2))
    img = patch.astype(np.float32)
    img += g[..., None] * (255 - img)
    return np.asarray(np.clip(img + 0.5, 0, 255), np.uint8)


def _own_pip(more: np.ndarray, fewer: np.ndarray) -> tuple[float, float]:
    """Centre of the pip ``more`` has and ``fewer`` lacks, away from the corner indices."""
    lm, lf = face_luminance(more), face_luminance(fewer)
    h = lm.shape[0]
    own = (lf - lm) >= 0.3
    own[: int(0.3 * h)] = False
    own[int(0.7 * h) :] = False
    ys, xs = np.nonzero(own)
    return float(xs.mean()), float(ys.mean())


def _camera(patch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    soft = cv2.GaussianBlur(patch.astype(np.float32), (0, 0), 1.0)
    return np.asarray(np.clip(soft * 0.9 + rng.normal(0, 3, patch.shape), 0, 255), np.uint8)


@pytest.mark.parametrize(("shown", "fewer"), [("7c", "6c"), ("6h", "5h"), ("8d", "7d")])
def test_a_washed_out_pip_is_no_ink_of_the_rival(kennard: Faces, shown: str,
                                                 fewer: str) -> None:
    """A glare over the pip only ``shown`` has: its other own ink is there, the rival's not."""
    rng = np.random.default_rng(31)
    more, less = (face_patch(kennard[Card.parse(c)], STORED_PATCH_SIZE) for c in (shown, fewer))
    washed = _camera(_glare(more, _own_pip(more, less), 9.0, 0.8), rng)
    ob = observed_luminance(washed)
    fm, fl = face_luminance(more), face_luminance(less)
    right = ink_check(ob, fm, fl)
    assert right.rival >= 0.5, right
    # The fewer-pip card, read against the shown one, finds none of its own ink missing ...
    wrong = ink_check(ob, fl, fm)
    assert wrong.rival <= right.own or wrong.own < 0.7, wrong
    # ... and a clean card of the fewer pips lacks the shown card's own ink.
    clean = ink_check(observed_luminance(_camera(less, rng)), fm, fl)
    assert clean.own < 0.0 and (clean.rival < -0.5 or clean.blobs[1] == 0), clean


def test_read_washed_out_never_reads_the_card_not_shown(kennard: Faces) -> None:
    """Glare over one pip of each card of some ranks: read as shown or not at all."""
    params = RecognizerParams()
    bank = FaceBank.from_faces(kennard, params)
    rng = np.random.default_rng(32)
    read = 0
    for code, fewer in (("7c", "6c"), ("7s", "6s"), ("6h", "5h"), ("8d", "7d"), ("9c", "8c"),
                        ("5d", "4d"), ("Th", "9h"), ("3s", "2s")):
        more, less = (face_patch(kennard[Card.parse(c)], STORED_PATCH_SIZE)
                      for c in (code, fewer))
        for peak in (0.6, 0.9):
            big = _camera(_glare(more, _own_pip(more, less), 9.0, peak), rng)
            small = np.asarray(cv2.resize(big, PATCH_SIZE, interpolation=cv2.INTER_AREA), np.uint8)
            match = bank.match(face_features(small, params.red_weight), params)
            got = read_washed_out(observed_luminance(big), match, bank, params)
            assert got is None or got.card == Card.parse(code), (code, peak, match, got)
            if got is not None:
                read += 1
                assert got.status == "card" and got.confidence <= 0.5
                # Read beside a hand only on a clear win: never this way.
                assert got.separation == 0.0 and got.discriminant == 0.0
            elif decide(match, params).status == "card":
                read += 1
    assert read >= 10


def test_spectrum_blurs_as_filter2d(kennard: Faces) -> None:
    """The twins' mean face blurred through its spectrum equals ``cv2.filter2D``'s."""
    lum = face_luminance(face_patch(kennard[Card.parse("Qs")], STORED_PATCH_SIZE))
    small = np.asarray(cv2.resize(lum, (60, 84), interpolation=cv2.INTER_AREA), np.float32)
    spectrum = _Spectrum(small, _BLUR_RADIUS_HALF)
    for blur in ((0.0, 0, 0), (1.0, 8, 30), (4.0, 24, 150), (2.5, 16, 97), (0.25, 2, 7)):
        kernel = blur_kernel(blur, 0.5)
        want = cv2.filter2D(small, -1, kernel, borderType=cv2.BORDER_REPLICATE)
        assert np.abs(spectrum.blurred(kernel) - want).max() < 1e-5, blur


def test_ink_refuted_when_the_rival_s_own_ink_is_there(kennard: Faces) -> None:
    """An 8 with one pip washed out is no 7: its other own pips are there, the 7 has none."""
    params = RecognizerParams()
    bank = FaceBank.from_faces(kennard, params)
    rng = np.random.default_rng(33)
    eight, seven = (face_patch(kennard[Card.parse(c)], STORED_PATCH_SIZE) for c in ("8d", "7d"))
    washed = observed_luminance(_camera(_glare(eight, _own_pip(eight, seven), 9.0, 0.8), rng))
    assert ink_refuted(washed, Card.parse("7d"), Card.parse("8d"), bank, params)
    clean = observed_luminance(_camera(seven, rng))
    assert not ink_refuted(clean, Card.parse("7d"), Card.parse("8d"), bank, params)


def _streak(patch: np.ndarray, start: tuple[float, float], end: tuple[float, float],
            sigma: float, peak: float) -> np.ndarray:
    """A reflection streak across a card, as the ``gloss`` situation draws it: 14 spots."""
    out = patch
    for x, y in np.linspace(start, end, 14):
        out = _glare(out, (float(x), float(y)), sigma, peak)
    return out


def _observed(patch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The camera's view of a stored-size patch, at the matching size."""
    big = _camera(patch, rng)
    return np.asarray(cv2.resize(big, PATCH_SIZE, interpolation=cv2.INTER_AREA), np.uint8)


@pytest.mark.parametrize("code", ["As", "7s", "Kh", "4d", "9c", "Qs"])
def test_glare_score_leaves_the_lifted_ink_out(kennard: Faces, code: str) -> None:
    """A streak across a one-picture deck's big symbol: the whole face falls, the rest fits."""
    from .test_difference import shared_pictures

    faces = shared_pictures(kennard)
    params = RecognizerParams()
    bank = FaceBank.from_faces(faces, params)
    rng = np.random.default_rng(61)
    card = Card.parse(code)
    shown = _streak(face_patch(faces[card], STORED_PATCH_SIZE), (0, 60), (120, 110), 8.0, 0.7)
    vec = face_features(_observed(shown, rng), params.red_weight)
    match = bank.match(vec, params)
    assert match.score < 0.85, match
    lifted = {c: max(glare_score(vec, bank.matrix[2 * c.index + k])[0]
                     for k in (0, 1)) for c in FULL_DECK}
    assert lifted[card] >= 0.9, lifted[card]
    # The card shown still fits best: the left-out pixels are the glare's, not its rivals'.
    assert max(lifted, key=lambda c: lifted[c]) == card


def test_glare_score_does_not_lift_another_face(kennard: Faces) -> None:
    """A clean card against faces it is not: nothing a glare did, so little is left out."""
    params = RecognizerParams()
    bank = FaceBank.from_faces(kennard, params)
    rng = np.random.default_rng(62)
    for code, other in (("7s", "Kh"), ("Qd", "3c"), ("2h", "9s"), ("Jc", "As")):
        vec = face_features(_observed(face_patch(kennard[Card.parse(code)],
                                                 STORED_PATCH_SIZE), rng), params.red_weight)
        for k in (0, 1):
            row = bank.matrix[2 * Card.parse(other).index + k]
            lifted, _ = glare_score(vec, row)
            assert lifted < params.min_score, (code, other, lifted)


def test_a_fallback_read_is_refused_when_its_suit_twin_shows(kennard: Faces) -> None:
    """A heart read as the diamond (or a club as the spade) by the washed-out or difference
    rule is refused: where the twins differ, the observation leans towards the one shown."""
    from .helpers import make_rig
    from .test_difference import shared_pictures

    faces = shared_pictures(kennard)
    rig = make_rig(faces, seed=5701)
    recognizer = rig.recognizer
    rng = np.random.default_rng(63)
    for shown, twin in (("6h", "6d"), ("Qd", "Qh"), ("4c", "4s"), ("9s", "9c")):
        patch = _camera(face_patch(faces[Card.parse(shown)], STORED_PATCH_SIZE), rng)
        ob = observed_luminance(patch)
        for code, kept in ((shown, True), (twin, False)):
            reading = SlotReading("card", Card.parse(code), 0.45, None, 0.9)
            got = twin_not_shown(recognizer.bank, recognizer.params, ob, reading)
            assert (got is reading) if kept else got is None, (shown, code)


def test_gloss_boards_of_one_picture_per_suit_read_more_never_wrong(kennard: Faces) -> None:
    """Rendered boards with a reflection streak across one card: the glare-lifted score reads
    more of them than the whole face's alone, and none wrongly."""
    from hardware.sim import scene as S
    from hardware.sim.situations import Situation, render_situation

    from .helpers import Tally, make_rig, score
    from .test_difference import shared_pictures

    faces = shared_pictures(kennard)
    rig = make_rig(faces, seed=GLOSS_RIG_SEED)
    off = rig.profile.recognizer(RecognizerParams(glare_check=False))
    rng = np.random.default_rng(GLOSS_RIG_SEED + 1)
    with_rule, without = Tally(), Tally()
    for _ in range(GLOSS_FRAMES):
        scene = render_situation(faces, S.random_board(rng), rng, S.Level.MEDIUM, rig.camera,
                                 Situation.GLOSS)
        score(scene.truth, rig.recognizer.read(scene.image), with_rule)
        score(scene.truth, off.read(scene.image), without)
    assert with_rule.wrong == 0 and without.wrong == 0, (with_rule, without)
    assert with_rule.correct >= without.correct + 1, (with_rule, without)


GLOSS_RIG_SEED = 5808
GLOSS_FRAMES = 12
