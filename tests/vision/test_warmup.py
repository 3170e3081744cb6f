"""Work of the registered faces done ahead in frames with time to spare (:mod:`.warmup`)."""

from __future__ import annotations

import dataclasses
import time

import cv2
import numpy as np

from benchmarks.bench_vision import stream_scenes
from calibration.faces import load_face_folder
from hardware.camera.blurmatch import COARSE_GRID, blurred_pair_check, lean_noise
from hardware.camera.facebank import STORED_PATCH_SIZE, FaceBank, face_patch, suit_twins
from hardware.camera.readings import RecognizerParams
from hardware.camera.suits import (
    _pair,
    face_luminance,
    index_leans,
    ink_check,
    observed_luminance,
    pair_check,
)
from hardware.camera.twindecide import twin_refuted
from hardware.camera.warmup import CLOSE_RIVALS, FaceWarmer, close_rivals
from hardware.sim import scene as S
from hardware.sim.faces import face_folder
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import make_rig


def _moving(patch: np.ndarray, length: int, angle: float, rng: np.random.Generator) -> np.ndarray:
    """The patch streaked by motion (``length`` px at ``angle``), blurred and noisy."""
    k = np.zeros((length + 1, length + 1), np.float32)
    c = length // 2
    dx, dy = np.cos(np.deg2rad(angle)) * c, np.sin(np.deg2rad(angle)) * c
    cv2.line(k, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1)
    streaked = cv2.filter2D(patch.astype(np.float32), -1, k / k.sum())
    soft = cv2.GaussianBlur(streaked, (0, 0), 1.2)
    return np.asarray(np.clip(soft + rng.normal(0, 4, patch.shape), 0, 255), np.uint8)


def test_the_warmer_fills_every_twin_pair_and_stops_at_its_deadline() -> None:
    """Each card with its suit twin: the region, the 52 coarse blurs and the placebo offsets
    of the frame's noise, made once; and its close rivals' pairs."""
    bank = FaceBank.from_faces(load_face_folder(face_folder("kennard")), RecognizerParams())
    warmer = FaceWarmer(bank)
    warmer.work(time.thread_time())       # the deadline already passed: nothing done
    assert warmer.units == 0 and not warmer.done
    warmer.work(float("inf"))
    assert warmer.done and warmer.units == 52 * 6 + 52 * 2 * 3
    size = (STORED_PATCH_SIZE[0] // 2, STORED_PATCH_SIZE[1] // 2)
    for a, b in (("3c", "3s"), ("3s", "3c"), ("Kh", "Kd"), ("Ad", "Ah")):
        pair = _pair(bank.luminance(Card.parse(a)), bank.luminance(Card.parse(b)))
        assert pair.region is not None
        assert set(COARSE_GRID) <= set(pair.blur_setup[(*size, False)][2])
        assert pair.placebo is not None


def test_a_recognisers_warmer_computes_the_tones_first(kennard: Faces) -> None:
    """The deck's inks (asked by the first card read on every deck) come first: the faces' own
    tones, one unit each, then the inks; then each rank's tones, then the twin pairs."""
    rec = make_rig(kennard, 132, S.Level.MEDIUM).recognizer
    assert rec.tones._inks is None
    rec.warmer.work(time.thread_time())
    assert rec.warmer.units == 0
    for _ in range(52):
        rec.warmer._todo.popleft()()
    assert rec.tones._inks is None and len(rec.tones._own) == 52
    rec.warmer._todo.popleft()()
    assert rec.tones._inks is not None and not rec.tones._inks.many
    rec.warmer.work(float("inf"))
    # after the 53 taken above: the twins', the close rivals', then each card's glare totals
    # and its own glare (run 118)
    assert rec.warmer.done and rec.warmer.units == 52 + 52 * 6 + 52 * 2 * 3 + 52 + 52


def test_warmed_checks_equal_fresh_ones(kennard: Faces) -> None:
    """After the warm-up, the twin checks give what they give on faces never cached."""
    bank = FaceBank.from_faces(kennard, RecognizerParams())
    FaceWarmer(bank).work(float("inf"))
    p = RecognizerParams()
    rng = np.random.default_rng(60)
    for a, b, angle in (("3c", "3s", 30), ("8s", "8c", 100), ("Kh", "Kd", 90), ("5d", "5h", 0)):
        ca, cb = Card.parse(a), Card.parse(b)
        pa = face_patch(kennard[ca], STORED_PATCH_SIZE)
        pb = face_patch(kennard[cb], STORED_PATCH_SIZE)
        fresh_a, fresh_b = face_luminance(pa), face_luminance(pb)     # writable: never cached
        for length in (0, 9, 16):
            ob = observed_luminance(_moving(pa, length, angle, rng) if length else pa)
            ra, rb = bank.luminance(ca), bank.luminance(cb)
            assert pair_check(ob, ra, rb) == pair_check(ob, fresh_a, fresh_b), a
            assert blurred_pair_check(ob, ra, rb) == blurred_pair_check(ob, fresh_a, fresh_b), a
            # The frame's noise against the pair, its placebo offsets made by the warm-up
            # (run 131): the same value, bit for bit, as on faces never cached.
            assert _pair(ra, rb).placebo is not None
            for joint in (False, True):
                assert lean_noise(ob, ra, rb, joint) == lean_noise(ob, fresh_a, fresh_b, joint), a
            assert twin_refuted(ob, ca, cb, bank, p) == twin_refuted(
                ob, ca, cb, FaceBank.from_faces(kennard, p), p), a


def test_a_stream_reads_the_same_with_the_warmer_as_without(kennard: Faces) -> None:
    """The frames not read again do the warm-up's units; every reading equals, field for field,
    that of a recogniser whose warmer does nothing (its own bank: caches of its own)."""
    rig = make_rig(kennard, 131, S.Level.HARD)
    rng = np.random.default_rng(1310)
    scenes = stream_scenes(kennard, rng, S.Level.HARD, rig.camera, 40)
    warm, cold = rig.profile.recognizer(), rig.profile.recognizer()
    cold.warmer.work(time.thread_time())
    cold.warmer._todo.clear()
    for sc in scenes:
        a, b = warm.read(sc.image), cold.read(sc.image)
        for x, y in zip(a.slots, b.slots, strict=True):
            assert dataclasses.astuple(x) == dataclasses.astuple(y)
    assert warm.unchanged_frames == cold.unchanged_frames > 0
    assert warm.warmer.units > 0 and cold.warmer.units == 0
    assert warm.identified == cold.identified


def test_the_warmer_makes_each_cards_close_rival_pairs(kennard: Faces) -> None:
    """A card's nearest faces of another kind (a 6 of hearts: other red and black sixes and
    nines, not the 6 of diamonds): their pairs' regions, ink blobs and index boxes made ahead,
    and the checks on them equal those on faces never cached."""
    bank = FaceBank.from_faces(kennard, RecognizerParams())
    six = Card.parse("6h")
    near = close_rivals(bank, six)
    assert len(near) == CLOSE_RIVALS and six not in near and Card.parse("6d") not in near
    assert all(not suit_twins(six, c) for c in close_rivals(bank, six, 10))
    FaceWarmer(bank).work(float("inf"))
    rng = np.random.default_rng(61)
    for card in (six, Card.parse("Qs"), Card.parse("2c")):
        for rival in close_rivals(bank, card):
            fb, fr = bank.luminance(card), bank.luminance(rival)
            pair = _pair(fb, fr)
            assert pair.region is not None and pair.blobs is not None
            assert pair.boxes is not None
            patch = face_patch(kennard[card], STORED_PATCH_SIZE)
            ob = observed_luminance(_moving(patch, 9, 40, rng))
            fresh_b, fresh_r = np.array(fb), np.array(fr)     # writable: never cached
            assert pair_check(ob, fb, fr) == pair_check(ob, fresh_b, fresh_r)
            assert ink_check(ob, fb, fr) == ink_check(ob, fresh_b, fresh_r)
            assert index_leans(ob, fb, fr) == index_leans(ob, fresh_b, fresh_r)
