"""Suit twins: a lean no larger than what the frame's own noise gives decides nothing."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from hardware.camera.blurmatch import blurred_lean_noise, blurred_pair_check, lean_noise
from hardware.camera.facebank import STORED_PATCH_SIZE, FaceBank, Match, face_patch
from hardware.camera.readings import RecognizerParams
from hardware.camera.suits import face_luminance, observed_luminance, pair_check, read_only
from hardware.camera.twindecide import decide_twin
from table_controller.engine.cards import Card

from .conftest import Faces
from .test_suits import shared_courts


def _camera(patch: np.ndarray, sigma: float, noise: float, quality: int,
            rng: np.random.Generator) -> np.ndarray:
    """``patch`` blurred, with sensor noise, through a JPEG of ``quality``."""
    soft = cv2.GaussianBlur(patch.astype(np.float32), (0, 0), sigma)
    noisy = np.asarray(np.clip(soft + rng.normal(0, noise, patch.shape), 0, 255), np.uint8)
    ok, jpeg = cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return np.asarray(cv2.imdecode(jpeg, cv2.IMREAD_COLOR), np.uint8)


def test_lean_noise_grows_with_the_frames_noise(kennard: Faces) -> None:
    """The king of clubs of a shared-court deck (only the index symbol differs), clean and
    through a noisy camera: the placebo lean grows; on the clean frame the read's own lean
    stands well out of it, at the frame's blur and at the faces' own."""
    rng = np.random.default_rng(39)
    faces = shared_courts(kennard)
    club, spade = (face_patch(faces[Card.parse(x)], STORED_PATCH_SIZE) for x in ("Kc", "Ks"))
    fc, fs = read_only(face_luminance(club)), read_only(face_luminance(spade))
    clean = observed_luminance(_camera(club, 1.0, 2.0, 95, rng))
    noisy = observed_luminance(_camera(club, 1.0, 25.0, 30, rng))
    quiet, loud = blurred_lean_noise(clean, fc, fs), blurred_lean_noise(noisy, fc, fs)
    assert quiet is not None and loud is not None
    assert loud > quiet, (quiet, loud)
    assert blurred_pair_check(clean, fc, fs).position > 3 * quiet
    three, spade3 = (face_patch(kennard[Card.parse(x)], STORED_PATCH_SIZE) for x in ("3c", "3s"))
    f3, s3 = read_only(face_luminance(three)), read_only(face_luminance(spade3))
    ob = observed_luminance(_camera(three, 1.0, 2.0, 95, rng))
    sharp = lean_noise(ob, f3, s3, joint=False)
    assert sharp is not None and pair_check(ob, f3, s3).position > 2 * sharp


def test_lean_noise_needs_agreeing_print(kennard: Faces) -> None:
    """Faces that agree nowhere but their border leave no place to lay the difference."""
    a = read_only(np.ones((168, 120), np.float32))
    b = np.ones((168, 120), np.float32)
    b[8:-8, 8:-8] = 0.2
    assert lean_noise(a, a, read_only(b)) is None


def test_a_lean_the_frame_shows_elsewhere_is_not_read(kennard: Faces) -> None:
    """The king of clubs of a shared-court deck, on a frame whose print carries, beside the
    index, marks as large as the club's and the spade's difference (faint copies of it, either
    sign): the index leans half-way to the club, no more than those marks lean, and neither
    twin is read; without the noise rule the club is. On the clean frame the club is read."""
    faces = shared_courts(kennard)
    params = RecognizerParams()
    bank = FaceBank.from_faces(faces, params)
    club, spade = (face_patch(faces[Card.parse(x)], STORED_PATCH_SIZE).astype(np.float32)
                   for x in ("Kc", "Ks"))
    match = Match(Card.parse("Ks"), 0.97, 0.002, 0.1, 0.01, Card.parse("Kc"),
                  discriminant_others=0.9, separation_others=0.3, other=Card.parse("Qs"))
    rng = np.random.default_rng(7)
    marked = club.copy()
    for dy in (-10, -6, 6, 10):
        for dx in (-10, -6, 6, 10):
            marked += 0.5 * rng.choice([-1, 1]) * np.roll(club - spade, (dy, dx), axis=(0, 1))
    loose = replace(params, suit_noise_ratio=0.0)
    for patch, read in ((marked, False), (club, True)):
        ob = observed_luminance(np.asarray(np.clip(cv2.GaussianBlur(patch, (0, 0), 0.8),
                                                   0, 255), np.uint8))
        decided = decide_twin(ob, match, bank, params)
        assert (decided is not None) == read, decided
        assert decided is None or decided[0].card == Card.parse("Kc")
        anyway = decide_twin(ob, match, bank, loose)
        assert anyway is not None and anyway[0].card == Card.parse("Kc")


def test_a_clear_twin_is_still_read(kennard: Faces) -> None:
    """The club of a shared-court king, clearly printed: read over the spade the face put first."""
    faces = shared_courts(kennard)
    params = RecognizerParams()
    bank = FaceBank.from_faces(faces, params)
    rng = np.random.default_rng(391)
    club = face_patch(faces[Card.parse("Kc")], STORED_PATCH_SIZE)
    match = Match(Card.parse("Kc"), 0.97, 0.002, 0.1, 0.01, Card.parse("Ks"),
                  discriminant_others=0.9, separation_others=0.3, other=Card.parse("Qc"))
    for _ in range(4):
        ob = observed_luminance(_camera(club, 0.8, 2.0, 92, rng))
        decided = decide_twin(ob, match, bank, params)
        assert decided is not None and decided[0].card == Card.parse("Kc")
