"""Felt colour is calibrated: green, blue and red felt; grey refused; profile versions 1 and 2."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from calibration.camera import (
    MIN_FELT_RATIO,
    CameraProfile,
    calibrate_camera,
    load_profile,
    measure_felt,
    save_profile,
)
from hardware.base import open_camera
from hardware.camera import locator
from hardware.camera import recognizer as R
from hardware.sim import scene as S
from hardware.sim.camera import SimCamera
from table_controller.engine.cards import Card
from table_controller.errors import CalibrationError, ConfigError

from .conftest import Faces
from .helpers import board

Image = npt.NDArray[np.uint8]
CLEAN = S.Perturbations(noise_sigma=2.0, jpeg_quality=90)


def _calibrated(
    faces: Faces, seed: int, felt: S.Felt, level: S.Level = S.Level.MEDIUM
) -> tuple[np.random.Generator, S.CameraSetup, CameraProfile]:
    rng = np.random.default_rng(seed)
    cam = S.make_camera(rng, level, felt=felt)
    empty = S.render(faces, [], cam, rng, CLEAN)
    return rng, cam, calibrate_camera(empty.image, faces, design="test")


# -- green: exactly the computation from before felt colour was calibrated -------------------


def _old_measure(image: Image, profile: CameraProfile) -> float:
    locator = R.CardLocator(profile.world_to_image, profile.geometry, 0.5)
    canon = locator.warp_board(image).astype(np.float32)
    b, g, r = cv2.split(canon)
    green = (g - np.maximum(r, b)) / np.maximum(g, 8.0)
    return float(np.median(green[locator._ignore > 0]))


def _old_foreground(locator: R.CardLocator, canon: Image, felt_greenness: float) -> Image:
    img = cv2.blur(canon, (3, 3)).astype(np.float32)
    b, g, r = cv2.split(img)
    green = (g - np.maximum(r, b)) / np.maximum(g, 8.0)
    mask = np.where(green < max(0.08, 0.45 * felt_greenness), 255, 0).astype(np.uint8)
    mask &= locator._ignore
    mask = np.asarray(cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)),
                      np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 255, -1)
    return filled


@pytest.mark.parametrize("seed", [31, 32])
def test_green_felt_mask_is_the_old_formula_bit_for_bit(kennard: Faces, seed: int) -> None:
    rng = np.random.default_rng(seed)
    cam = S.make_camera(rng, S.Level.HARD)
    empty = S.render(kennard, [], cam, rng, CLEAN).image
    profile = calibrate_camera(empty, kennard)
    assert profile.felt_channel == "green"
    old_ratio = _old_measure(empty, profile)
    assert profile.felt_ratio == old_ratio
    assert measure_felt(empty, profile.world_to_image, profile.geometry) == ("green", old_ratio)
    recognizer = profile.recognizer()
    for k in range(3):
        placements = S.place_cards(rng, board("Ah Kd 7c 2s 9h"), S.Level.HARD, cam.geometry)
        hand = S.random_hand(rng, cam.geometry) if k else None
        scene = S.render(kennard, placements, cam, rng,
                         S.sample_perturbations(rng, S.Level.HARD, cam), hand)
        canon = recognizer.warp_board(scene.image)
        new = recognizer.foreground(canon)
        assert np.array_equal(new, _old_foreground(recognizer, canon, old_ratio))
        assert 0 < int(np.count_nonzero(new)) < new.size


def test_default_felt_draws_as_before() -> None:
    scenes = {}
    for felt in S.FELTS:
        rng = np.random.default_rng(5)
        cam = S.make_camera(rng, S.Level.MEDIUM, felt=felt)
        scenes[felt] = (cam, rng.random())
    green, _ = scenes["green"]
    for felt, (cam, after) in scenes.items():
        assert after == scenes["green"][1], felt  # the same draws whatever the felt
        assert np.array_equal(cam.homography, green.homography)
    medians = {f: np.median(c.background.reshape(-1, 3), axis=0) for f, (c, _) in scenes.items()}
    assert int(np.argmax(medians["green"])) == 1
    assert int(np.argmax(medians["blue"])) == 0
    assert int(np.argmax(medians["red"])) == 2
    assert np.ptp(medians["grey"]) < 1.0
    with pytest.raises(ConfigError, match="felt 'purple' is not one of green, blue, red, grey"):
        S.make_camera(np.random.default_rng(5), felt="purple")  # type: ignore[arg-type]


# -- blue and red felt: calibrate and read -----------------------------------------------------


def _read_frames(
    faces: Faces, seed: int, felt: S.Felt, frames: int
) -> tuple[CameraProfile, dict[str, Counter[str]]]:
    """Read ``frames`` medium boards, every other one with a dealer's hand; tally by hand."""
    rng, cam, profile = _calibrated(faces, seed, felt)
    recognizer = profile.recognizer()
    tally: dict[str, Counter[str]] = {"no hand": Counter(), "hand": Counter()}
    for k in range(frames):
        placements = S.place_cards(rng, S.random_board(rng), S.Level.MEDIUM, cam.geometry)
        pert = S.sample_perturbations(rng, S.Level.MEDIUM, cam)
        hand = S.random_hand(rng, cam.geometry) if k % 2 else None
        scene = S.render(faces, placements, cam, rng, pert, hand)
        t = tally["hand" if hand else "no hand"]
        for truth, slot in zip(scene.truth, recognizer.read(scene.image).slots, strict=True):
            if slot.status == "card" and slot.card != truth.card:
                t["wrong"] += 1
            if truth.status == "card":
                t["cards"] += 1
                t["read" if slot.status == "card" else slot.status] += 1
            elif truth.status == "occluded":
                covered = "card" if truth.card else "empty slot"
                t[f"hand over {covered} -> {slot.status}"] += 1
    return profile, tally


@pytest.mark.parametrize("felt", ["blue", "red"])
@pytest.mark.parametrize("design", ["kennard", "svg-cards"])
def test_reads_boards_on_coloured_felt(
    kennard: Faces, svg_cards: Faces, felt: S.Felt, design: str
) -> None:
    faces = kennard if design == "kennard" else svg_cards
    profile, tally = _read_frames(faces, 41, felt, 16)
    assert profile.felt_channel == felt
    assert profile.felt_ratio > 0.4
    for hand, t in tally.items():
        assert t["wrong"] == 0, (hand, t)
        assert t["hand over card -> empty"] == 0, (hand, t)  # a hidden card is never "empty"
    clear, near_hand = tally["no hand"], tally["hand"]
    assert clear["cards"] >= 20 and clear["read"] >= 0.95 * clear["cards"], clear
    assert near_hand["cards"] >= 10 and near_hand["read"] >= 0.85 * near_hand["cards"], near_hand


def test_red_felt_a_hand_as_red_as_the_felt_is_seen(
    kennard: Faces, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Skin whose red ratio passes for burgundy felt is told apart by its brightness."""
    rng, cam, profile = _calibrated(kennard, 43, "red")
    card = Card.parse("Qs")
    placements = [S.Placement(card, 1, cam.geometry.slot_centre_mm(1), 0.0)]
    skin = (110.0, 140.0, 235.0)  # red ratio (235 - 140) / 235 = 0.40
    assert (skin[2] - max(skin[:2])) / skin[2] > 0.45 * profile.felt_ratio
    x, y = cam.geometry.slot_centre_mm(1)
    hand = S.Hand(centre_mm=(x, y + 5.0), angle_deg=0.0, skin_bgr=skin)
    scene = S.render(kennard, placements, cam, rng, CLEAN, hand)
    assert scene.truth[1].status == "occluded" and scene.truth[1].covered > 0.95
    over_empty = S.Hand(centre_mm=cam.geometry.slot_centre_mm(3), angle_deg=10.0, skin_bgr=skin)
    empty_scene = S.render(kennard, [], cam, rng, CLEAN, over_empty)
    assert empty_scene.truth[3].status == "occluded"
    recognizer = profile.recognizer()
    assert recognizer.read(scene.image).slots[1].status == "occluded"
    assert recognizer.read(empty_scene.image).slots[3].status == "occluded"
    # By the ratio alone, the hand would be felt: the card under it would read "empty".
    monkeypatch.setattr(locator, "FELT_MAX_BRIGHTNESS", float("inf"))
    ratio_only = profile.recognizer()
    assert ratio_only.read(scene.image).slots[1].status == "empty"
    assert ratio_only.read(empty_scene.image).slots[3].status == "empty"


def test_blue_felt_a_navy_sleeve_is_seen(kennard: Faces, monkeypatch: pytest.MonkeyPatch) -> None:
    """A dark sleeve of the felt's hue passes 0.45 of the felt's ratio, not 0.6 of it."""
    rng, cam, profile = _calibrated(kennard, 50, "blue")
    x, y = cam.geometry.slot_centre_mm(2)
    placements = [S.Placement(Card.parse("3s"), 2, (x, y), 0.0)]
    red = 84.0 * (1 - 0.52 * profile.felt_ratio)  # blue ratio 0.52 times the felt's
    sleeve = (84.0, 0.8 * red, red)  # seen on seed 1401: (84, 48, 61) hid a card, read "empty"
    hand = S.Hand(centre_mm=(x, y - 300.0), angle_deg=0.0, sleeve_bgr=sleeve)
    scene = S.render(kennard, placements, cam, rng, CLEAN, hand)
    assert scene.truth[2].status == "occluded" and scene.truth[2].covered > 0.95
    assert profile.recognizer().read(scene.image).slots[2].status == "occluded"
    monkeypatch.setattr(locator, "COLOURED_FELT_FRACTION", 0.45)
    assert profile.recognizer().read(scene.image).slots[2].status == "empty"


# -- refused felts ----------------------------------------------------------------------------


def test_grey_felt_is_refused_with_its_colour(kennard: Faces) -> None:
    rng = np.random.default_rng(44)
    cam = S.make_camera(rng, S.Level.MEDIUM, felt="grey")
    image = S.render(kennard, [], cam, rng, CLEAN).image
    pattern = (r"does not look like coloured felt: median BGR \(\d+, \d+, \d+\), "
               rf"(blue|green|red) ratio -?0\.\d\d < {MIN_FELT_RATIO}; grey, black or two-colour "
               "felts are not supported")
    with pytest.raises(CalibrationError, match=pattern):
        calibrate_camera(image, kennard)


def test_black_board_is_refused(kennard: Faces) -> None:
    black = np.full((1080, 1920, 3), 4, np.uint8)
    with pytest.raises(CalibrationError, match=r"median BGR \(4, 4, 4\), blue ratio 0\.00"):
        calibrate_camera(black, kennard,
                         corners=np.array([[100, 100], [1800, 100], [1800, 900], [100, 900.0]]))


# -- profile file -------------------------------------------------------------------------------


def test_profile_round_trip_keeps_the_felt(kennard: Faces, tmp_path: Path) -> None:
    rng, cam, profile = _calibrated(kennard, 45, "blue")
    path = tmp_path / "camera.json"
    save_profile(profile, path)
    doc = json.loads(path.read_text())
    assert doc["version"] == 2
    assert doc["felt_channel"] == "blue"
    assert doc["felt_ratio"] == round(profile.felt_ratio, 5)
    assert "felt_greenness" not in doc
    loaded = load_profile(path)
    assert loaded.felt_channel == "blue"
    assert loaded.felt_ratio == pytest.approx(profile.felt_ratio, abs=1e-5)
    scene = S.render_board(kennard, board("Ah Kd 7c 2s"), rng, S.Level.EASY, cam)
    reading = loaded.recognizer().read(scene.image)
    assert [s.card for s in reading.slots] == [t.card for t in scene.truth]
    capture = loaded.face_capture(slot=2)
    placement = [S.Placement(Card.parse("Ah"), 2, cam.geometry.slot_centre_mm(2), 0.0)]
    assert capture.add(Card.parse("Ah"), S.render(kennard, placement, cam, rng, CLEAN).image).shape


def _refused(path: Path, edit: dict[str, object], message: str) -> None:
    """Edit the saved profile (None deletes a key): loading it must fail with ``message``."""
    doc = json.loads(path.read_text())
    for key, value in edit.items():
        if value is None:
            del doc[key]
        else:
            doc[key] = value
    path.write_text(json.dumps(doc))
    with pytest.raises(CalibrationError, match=message):
        load_profile(path)


def _as_version_1(path: Path) -> None:
    doc = json.loads(path.read_text())
    doc["version"] = 1
    doc["felt_greenness"] = doc.pop("felt_ratio")
    del doc["felt_channel"]
    path.write_text(json.dumps(doc, indent=2))


def test_version_1_profile_loads_as_green(kennard: Faces, tmp_path: Path) -> None:
    rng, cam, profile = _calibrated(kennard, 46, "green")
    path = tmp_path / "old.json"
    save_profile(profile, path)
    _as_version_1(path)
    loaded = load_profile(path)
    assert loaded.felt_channel == "green"
    assert loaded.felt_ratio == round(profile.felt_ratio, 5)
    scene = S.render_board(kennard, board("Qh 3d Tc"), rng, S.Level.EASY, cam)
    reading = loaded.recognizer().read(scene.image)
    assert [s.card for s in reading.slots] == [t.card for t in scene.truth]
    save_profile(loaded, tmp_path / "new.json")  # saving writes the current version
    assert json.loads((tmp_path / "new.json").read_text())["felt_channel"] == "green"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"felt_channel": "purple"}, "felt_channel must be one of blue, green, red, got 'purple'"),
        ({"felt_channel": 1}, "felt_channel must be one of blue, green, red, got 1"),
        ({"felt_channel": None}, r"missing keys \['felt_channel'\] \(version 2\)"),
        ({"felt_ratio": None}, r"missing keys \['felt_ratio'\] \(version 2\)"),
        ({"felt_ratio": 0.05}, r"felt_ratio = 0.05 is outside \[0.15, 1.0\]"),
        ({"felt_ratio": "high"}, "felt_ratio must be a number"),
        ({"felt_greenness": 0.6}, r"unknown keys \['felt_greenness'\] \(version 2\)"),
        ({"version": "2"}, "version '2' is not supported"),
        ({"version": True}, "version True is not supported"),
        ({"version": 3}, r"version 3 is not supported \(1, 2\)"),
    ],
)
def test_bad_felt_keys_are_refused(
    kennard: Faces, tmp_path: Path, edit: dict[str, object], message: str
) -> None:
    _rng, _cam, profile = _calibrated(kennard, 47, "red")
    path = tmp_path / "camera.json"
    save_profile(profile, path)
    _refused(path, edit, message)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"felt_channel": "red"}, r"unknown keys \['felt_channel'\] \(version 1\)"),
        ({"felt_greenness": None}, r"missing keys \['felt_greenness'\] \(version 1\)"),
        ({"felt_greenness": 0.1}, r"felt_greenness = 0.1 is outside"),
    ],
)
def test_bad_version_1_profiles_are_refused(
    kennard: Faces, tmp_path: Path, edit: dict[str, object], message: str
) -> None:
    _rng, _cam, profile = _calibrated(kennard, 48, "green")
    path = tmp_path / "camera.json"
    save_profile(profile, path)
    _as_version_1(path)
    _refused(path, edit, message)


def test_locator_refuses_an_unknown_channel(kennard: Faces) -> None:
    _rng, _cam, profile = _calibrated(kennard, 49, "green")
    with pytest.raises(CalibrationError, match="felt channel 'purple' is not one of"):
        R.CardLocator(profile.world_to_image, profile.geometry, 0.5,
                      felt_channel="purple")  # type: ignore[arg-type]


# -- the simulated camera ----------------------------------------------------------------------


def test_sim_camera_felt_option(kennard: Faces) -> None:
    cam = open_camera("sim://camera?felt=red&seed=3", faces=kennard)
    assert isinstance(cam, SimCamera)
    median = np.median(cam.camera.background.reshape(-1, 3), axis=0)
    assert int(np.argmax(median)) == 2
    default = open_camera("sim://camera?seed=3", faces=kennard)
    assert isinstance(default, SimCamera)
    assert np.array_equal(default.camera.homography, cam.camera.homography)
    assert int(np.argmax(np.median(default.camera.background.reshape(-1, 3), axis=0))) == 1
    with pytest.raises(ConfigError, match="felt 'teal' is not one of green, blue, red, grey"):
        open_camera("sim://camera?felt=teal", faces=kennard)
