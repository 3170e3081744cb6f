"""A suit-twin read is refused where the corner indices at the frame's own resolution show the
twin (:func:`hardware.camera.finedecide.fine_refutes`, ``RecognizerParams.fine_twin_veto``)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import load_profile, profile_with_patches, save_profile
from calibration.faces import FaceCapture
from hardware.camera import rivals
from hardware.camera.facebank import STORED_PATCH_SIZE, FaceBank, Match, face_patch
from hardware.camera.finedecide import (
    CornerLean,
    FineLean,
    fine_confirms,
    fine_refutes,
)
from hardware.camera.finetwins import (
    FineView,
    fine_grey,
    fine_lean,
)
from hardware.camera.readings import RecognizerParams
from hardware.camera.suits import observed_luminance, read_only
from hardware.sim import scene as S
from table_controller.engine.cards import Card
from table_controller.errors import CalibrationError

from .conftest import Faces
from .helpers import Rig, board, make_rig
from .test_finetwins import _frame, _quad
from .test_suits import shared_courts


def test_refuted_only_towards_the_twin_shown(kennard: Faces) -> None:
    """A queen of diamonds in the frame: a read of the queen of hearts is refused, the
    diamond's is not, even with one corner left; an observation whose view was not noted, a
    frame drowned in noise, or every corner covered refuses nothing."""
    faces = shared_courts(kennard)
    bank = FaceBank.from_faces(faces, RecognizerParams())
    assert bank.fine is not None
    rng = np.random.default_rng(65)
    quad = _quad()
    shown, twin = Card.parse("Qd"), Card.parse("Qh")
    frame = _frame(faces[shown], quad, rng, 1.2, 0, 4.0, 80)
    observed = observed_luminance(np.asarray(cv2.resize(frame, STORED_PATCH_SIZE), np.uint8))
    assert not bank.fine.refutes(observed, twin, shown)
    bank.fine.look(observed, FineView(frame, quad))
    assert bank.fine.refutes(observed, twin, shown)
    assert not bank.fine.refutes(observed, shown, twin)
    assert not bank.fine.refutes(read_only(observed.copy()), twin, shown)
    drowned = _frame(faces[shown], quad, rng, 2.5, 9, 60.0, 30)
    assert not fine_refutes(fine_lean(drowned, quad, twin, shown, bank.fine))
    # One corner under a neighbour: the other, leaning to the diamond as clearly, refuses.
    covered = fine_lean(frame, quad, twin, shown, bank.fine, (True, False, False, False))
    assert covered is not None and len(covered.corners) == 1
    assert fine_refutes(covered)
    assert not fine_refutes(fine_lean(frame, quad, twin, shown, bank.fine, (True,) * 4))


def test_a_corner_leaning_clearly_to_the_card_keeps_the_read() -> None:
    """The leans of a hard frame's 5 of clubs (benchmark run 65): its two pip corners lean to
    the spade, its index corners far more to the club. Kept while an index corner leans
    clearly; refused once none does (a misfit corner or a noisy one is no support)."""
    index, pip = CornerLean(0, 2.26, 0.61, 0.87), CornerLean(1, -0.72, 0.08, 0.81)
    other_pip = CornerLean(2, -0.85, 0.05, 0.80)
    assert not fine_refutes(FineLean((index, pip, other_pip), (1.5, 6, 45), 4))
    assert fine_refutes(FineLean((pip, other_pip), (1.5, 6, 45), 4))
    misfit = replace(index, fit=0.7)
    noisy = replace(index, noise=0.8)
    assert fine_refutes(FineLean((misfit, pip), (1.5, 6, 45), 4))
    assert fine_refutes(FineLean((noisy, pip), (1.5, 6, 45), 4))
    assert not fine_refutes(FineLean((replace(pip, lean=-0.2),), (1.5, 6, 45), 4))
    assert not fine_refutes(FineLean((), (0.0, 0, 0), 2))


def test_a_wrong_twin_read_is_refused(kennard: Faces, monkeypatch: pytest.MonkeyPatch) -> None:
    """Shared-court queens and kings on a calibrated camera; the stored faces' twin rule made
    to read each as its twin (as the blurred rule read a queen of spades as the club, benchmark
    run 62). With the veto the twin is never read; without it, it is."""
    faces = shared_courts(kennard)
    rig = make_rig(faces, seed=31, level=S.Level.MEDIUM)
    off = rig.profile.recognizer(RecognizerParams(fine_twin_veto=False))
    forced: list[Card] = []

    def twin_read(observed: object, match: Match, bank: object,
                  params: object) -> tuple[Match, float]:
        assert match.second is not None
        forced.append(match.card)
        return replace(match, card=match.second, second=match.card), 1.0

    rng = np.random.default_rng(32)
    truth = board("Qs Kd Qh Ks Kc")
    scenes = [S.render_board(faces, truth, rng, S.Level.MEDIUM, rig.camera) for _ in range(3)]
    right = [[s.card for s in rig.recognizer.read(sc.image).slots] for sc in scenes]
    monkeypatch.setattr(rivals, "decide_twin", twin_read)
    wrong_with = wrong_without = 0
    for scene, before in zip(scenes, right, strict=True):
        with_veto = rig.recognizer.read(scene.image).slots
        without = off.read(scene.image).slots
        for t, r, w, b in zip(truth, with_veto, without, before, strict=True):
            assert b in (t, None)
            wrong_with += r.status == "card" and r.card != t
            wrong_without += w.status == "card" and w.card != t
    assert forced
    assert wrong_with == 0
    assert wrong_without >= 3


def test_a_court_twin_read_must_be_confirmed_by_a_clear_corner() -> None:
    """A jack of clubs read as the spade through a glare over both indices (benchmark run 67):
    both corners fit under 0.8 and lean to the read, so nothing refutes it, and nothing
    confirms it either: refused. One corner fitting well and leaning clearly confirms."""
    blur = (1.5, 6, 45)
    glared = (CornerLean(0, 3.1, 1.4, 0.72), CornerLean(3, 2.4, 1.19, 0.75))
    assert not fine_refutes(FineLean(glared, blur, 2))
    assert not fine_confirms(FineLean(glared, blur, 2))
    clear = CornerLean(3, 1.04, 0.09, 0.96)
    assert fine_confirms(FineLean((glared[0], clear), blur, 2))
    assert not fine_confirms(FineLean((replace(clear, noise=0.4),), blur, 2))
    assert not fine_confirms(FineLean((replace(clear, lean=0.25, noise=0.01),), blur, 2))
    assert not fine_confirms(FineLean((), blur, 2)) and not fine_confirms(None)
    # Fitted with a glare's light: a box that fits so and leans clearly confirms, where the
    # plain fit leans the same way; not where the plain fit leans the other way.
    lit = CornerLean(0, 0.92, 0.91, 0.58, 1.11, 0.13, 0.94)
    assert fine_confirms(FineLean((lit,), blur, 2))
    assert not fine_confirms(FineLean((replace(lit, lean=-0.4),), blur, 2))
    assert not fine_confirms(FineLean((replace(lit, lit_noise=0.4),), blur, 2))
    assert not fine_confirms(FineLean((replace(lit, lit_fit=0.75),), blur, 2))
    assert not fine_refutes(FineLean((lit,), blur, 2))


def _read_as_twin(observed: object, match: Match, bank: object,
                  params: object) -> tuple[Match, float]:
    """The stored faces' twin rule made to read the twin (as the blurred rule read a queen of
    spades as the club, benchmark run 62)."""
    assert match.second is not None
    return replace(match, card=match.second, second=match.card), 1.0


def _captured(rig: Rig, shown: list[Card], rng: np.random.Generator) -> FaceCapture:
    """Capture ``shown`` from the rig's camera (each alone in slot 3), the rest of the deck
    from its faces at the captured size (a real installation captures all 52)."""
    prof = rig.profile
    capture = prof.face_capture(slot=2)
    clean = S.Perturbations(noise_sigma=2.0, jpeg_quality=90)
    for card in shown:
        placement = [S.Placement(card, 2, prof.geometry.slot_centre_mm(2), 0.5)]
        capture.add(card, S.render(rig.faces, placement, rig.camera, rng, clean).image)
    assert capture.fine_faces() is None  # not all 52 yet
    size = capture._fine[shown[0]].shape[::-1]
    for card in capture.missing():
        capture._patches[card] = face_patch(rig.faces[card])
        small = np.asarray(cv2.resize(rig.faces[card], size, interpolation=cv2.INTER_AREA),
                           np.uint8)
        capture._fine[card] = fine_grey(small)
    return capture


def test_faces_captured_by_the_camera_keep_their_fine_faces(
        kennard: Faces, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A deck registered from the camera (``vision capture-faces``) keeps each face at the
    card's size in the frame, so its court twin reads are checked too: the stored faces' twin
    rule forced to read each shared-court queen and king as its twin is refused every time
    with the captured fine faces, and not without them."""
    faces = shared_courts(kennard)
    rig = make_rig(faces, seed=33, level=S.Level.MEDIUM)
    prof = rig.profile
    rng = np.random.default_rng(34)
    courts = [c for c in faces if c.rank in (9, 10, 11)]
    capture = _captured(rig, courts, rng)
    fine = capture.fine_faces()
    assert fine is not None
    w, h = fine[courts[0]].shape[::-1]
    assert 64 <= w < h < 400  # the card's size in the frame, not the stored patch's
    saved = profile_with_patches(prof, capture.patches(), fine)
    save_profile(saved, tmp_path / "captured.json")
    loaded = load_profile(tmp_path / "captured.json").fine_faces
    assert loaded is not None and all(np.array_equal(loaded[c], fine[c]) for c in fine)
    with_fine = saved.recognizer()
    without = profile_with_patches(prof, capture.patches()).recognizer()
    truth = board("Qs Kd Qh Ks Kc")
    scenes = [S.render_board(faces, truth, rng, S.Level.MEDIUM, rig.camera) for _ in range(3)]
    right = sum(r.card == t for sc in scenes
                for r, t in zip(with_fine.read(sc.image).slots, truth, strict=True))
    assert right >= 10

    monkeypatch.setattr(rivals, "decide_twin", _read_as_twin)
    wrong_with = wrong_without = 0
    for scene in scenes:
        for t, a, b in zip(truth, with_fine.read(scene.image).slots,
                           without.read(scene.image).slots, strict=True):
            wrong_with += a.status == "card" and a.card != t
            wrong_without += b.status == "card" and b.card != t
    assert wrong_with == 0
    assert wrong_without >= 3


def test_a_camera_registered_deck_confirms_every_twin_read(
        kennard: Faces, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Faces captured by the camera: a pip card's twin read is confirmed on the fine faces as
    a court's is (two captures of twins differ by the capture's defects as well, benchmark
    run 72). The stored faces' twin rule forced to read each 7 and 9 as its twin: refused
    every time on a deck marked captured, not on the same faces unmarked; the mark is kept
    in the profile file."""
    faces = shared_courts(kennard, "79")
    rig = make_rig(faces, seed=35, level=S.Level.MEDIUM)
    prof = rig.profile
    rng = np.random.default_rng(36)
    capture = _captured(rig, [c for c in faces if c.rank in (5, 7)], rng)
    marked = profile_with_patches(prof, capture.patches(), capture.fine_faces(), captured=True)
    save_profile(marked, tmp_path / "captured.json")
    assert load_profile(tmp_path / "captured.json").faces_captured
    unmarked = profile_with_patches(prof, capture.patches(), capture.fine_faces())
    save_profile(unmarked, tmp_path / "images.json")
    assert "faces_captured" not in (tmp_path / "images.json").read_text()
    assert not load_profile(tmp_path / "images.json").faces_captured

    monkeypatch.setattr(rivals, "decide_twin", _read_as_twin)
    truth = board("7s 9d 7h 9c 7d")
    with_mark, without = marked.recognizer(), unmarked.recognizer()
    wrong_with = wrong_without = 0
    for _ in range(3):
        scene = S.render_board(faces, truth, rng, S.Level.MEDIUM, rig.camera)
        for t, a, b in zip(truth, with_mark.read(scene.image).slots,
                           without.read(scene.image).slots, strict=True):
            wrong_with += a.status == "card" and a.card != t
            wrong_without += b.status == "card" and b.card != t
    assert wrong_with == 0
    assert wrong_without >= 3


def test_a_profile_whose_faces_captured_is_not_a_flag_is_refused(tmp_path: Path,
                                                                  kennard: Faces) -> None:
    rig = make_rig(kennard, seed=37)
    path = tmp_path / "p.json"
    save_profile(rig.profile, path)
    doc = json.loads(path.read_text())
    doc["faces_captured"] = "yes"
    path.write_text(json.dumps(doc))
    with pytest.raises(CalibrationError, match="faces_captured must be true or false"):
        load_profile(path)
