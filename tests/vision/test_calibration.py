from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from calibration.camera import (
    FaceCapture,
    calibrate_camera,
    detect_markers,
    draw_preview,
    load_profile,
    parse_corners,
    profile_with_patches,
    save_profile,
)
from hardware.camera.recognizer import face_patch
from hardware.sim import scene as S
from table_controller.engine.cards import FULL_DECK, Card
from table_controller.errors import CalibrationError

from .conftest import Faces
from .helpers import board, make_rig


def test_markers_give_the_board_corners(kennard: Faces) -> None:
    rig = make_rig(kennard, 11, S.Level.HARD)
    err = np.abs(rig.profile.board_corners_px - rig.camera.board_corners_px()).max()
    assert err < 1.5
    assert rig.profile.source == "markers"


def test_marker_at_the_frame_edge_is_found(kennard: Faces) -> None:
    """A camera rolled so that a marker's white quiet zone is cut by the frame edge (benchmark
    seed 140010, hard camera 16): the marker itself is whole and must be found, its corners
    where they are."""
    rng = np.random.default_rng(12)
    cam = S.make_camera(rng, S.Level.MEDIUM)
    image = S.render(kennard, [], cam, rng, S.Perturbations(noise_sigma=2.0)).image
    whole = detect_markers(image)
    assert sorted(whole)[:4] == [0, 1, 2, 3]
    left = int(np.floor(whole[3][:, 0].min())) - 1  # 1 px of the quiet zone left
    cut = np.ascontiguousarray(image[:, left:])
    found = detect_markers(cut)
    assert all(i in found for i in range(4)), sorted(found)
    assert np.abs(found[3] - (whole[3] - [left, 0])).max() < 0.5


def test_corners_instead_of_markers(kennard: Faces) -> None:
    rng = np.random.default_rng(12)
    cam = S.make_camera(rng, S.Level.MEDIUM)
    image = S.render(kennard, [], cam, rng).image
    truth = cam.board_corners_px()
    text = ",".join(f"{v:.2f}" for v in truth.reshape(-1))
    profile = calibrate_camera(image, kennard, corners=parse_corners(text))
    assert profile.source == "corners"
    assert np.abs(profile.board_corners_px - truth).max() < 0.05
    scene = S.render_board(kennard, board("Ah Kd 7c 2s"), rng, S.Level.EASY, cam)
    reading = profile.recognizer().read(scene.image)
    assert [s.card for s in reading.slots] == [t.card for t in scene.truth]


def test_no_markers_is_refused(kennard: Faces) -> None:
    image = np.full((1080, 1920, 3), (40, 120, 40), np.uint8)
    with pytest.raises(CalibrationError, match=r"board markers \[0, 1, 2, 3\] .* not found"):
        calibrate_camera(image, kennard)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1,2,3", "expected 8 numbers"),
        ("a,b,c,d,e,f,g,h", "not eight comma-separated numbers"),
        ("100,100,1800,100,1800,900,100,900,5,5", "expected 8 numbers"),
    ],
)
def test_bad_corner_text(text: str, message: str) -> None:
    with pytest.raises(CalibrationError, match=message):
        parse_corners(text)


def test_bad_corner_quads(kennard: Faces) -> None:
    image = np.full((1080, 1920, 3), (40, 120, 40), np.uint8)
    anticlockwise = parse_corners("100,100,100,900,1800,900,1800,100")
    with pytest.raises(CalibrationError, match="not a convex quad clockwise"):
        calibrate_camera(image, kennard, corners=anticlockwise)
    outside = parse_corners("100,100,2000,100,1800,900,100,900")
    with pytest.raises(CalibrationError, match="leave the 1920x1080 image"):
        calibrate_camera(image, kennard, corners=outside)
    grey = np.full((1080, 1920, 3), 128, np.uint8)
    with pytest.raises(CalibrationError, match="does not look like coloured felt"):
        calibrate_camera(grey, kennard, corners=parse_corners("100,100,1800,100,1800,900,100,900"))


def test_profile_round_trip_and_preview(kennard: Faces, tmp_path: Path) -> None:
    rig = make_rig(kennard, 13)
    path = tmp_path / "cam.json"
    faces_file = save_profile(rig.profile, path)
    assert faces_file.exists()
    loaded = load_profile(path)
    assert np.allclose(loaded.world_to_image, rig.profile.world_to_image)
    assert all(np.array_equal(loaded.patches[c], rig.profile.patches[c]) for c in FULL_DECK)
    # The empty board's canonical view is kept with the faces (a felt's print is told by it).
    assert rig.profile.board_reference is not None and loaded.board_reference is not None
    assert np.array_equal(loaded.board_reference, rig.profile.board_reference)
    # So are the faces at their registered resolution (suit twins told apart on the frame's
    # corner indices), and a recogniser built from the file has them.
    assert rig.profile.fine_faces is not None and loaded.fine_faces is not None
    assert all(np.array_equal(loaded.fine_faces[c], rig.profile.fine_faces[c])
               for c in FULL_DECK)
    assert loaded.recognizer().bank.fine is not None
    preview = draw_preview(S.render(kennard, [], rig.camera, np.random.default_rng(0)).image,
                           loaded)
    assert preview.shape == (1080, 1920, 3)
    # The board outline is drawn in red on the preview.
    corner = np.round(loaded.board_corners_px[0]).astype(int)
    patch = preview[corner[1] - 2 : corner[1] + 3, corner[0] - 2 : corner[0] + 3]
    assert (patch[..., 2] > 200).any()


def _mutate(path: Path, key: str, value: object) -> None:
    doc = json.loads(path.read_text())
    if value is KeyError:
        del doc[key]
    else:
        doc[key] = value
    path.write_text(json.dumps(doc))


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("colour", 1, r"unknown keys \['colour'\]"),
        ("homography", KeyError, r"missing keys \['homography'\]"),
        ("version", 99, "version 99 is not supported"),
        ("slots", "five", "slots must be an integer"),
        ("card_mm", [63, -88], r"card_mm = -88 is outside"),
        ("board_corners_px", [[0, 0], [1, 0]], "board_corners_px must be"),
        ("board_corners_px", [[10, 10], [10, 900], [1800, 900], [1800, 10]], "not a convex quad"),
        ("homography", [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "homography does not map the board"),
        ("felt_ratio", 0.01, "felt_ratio = 0.01 is outside"),
        ("faces_sha256", "0" * 64, "does not match faces_sha256"),
        ("faces_file", "nope.npz", "faces file 'nope.npz' not found"),
    ],
)
def test_bad_profiles_are_refused(
    kennard: Faces, tmp_path: Path, key: str, value: object, message: str
) -> None:
    rig = make_rig(kennard, 14)
    path = tmp_path / "cam.json"
    save_profile(rig.profile, path)
    _mutate(path, key, value)
    with pytest.raises(CalibrationError, match=message):
        load_profile(path)


def test_unreadable_profile(tmp_path: Path) -> None:
    with pytest.raises(CalibrationError, match="does not exist"):
        load_profile(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(CalibrationError, match="not readable JSON"):
        load_profile(tmp_path / "bad.json")


def test_capture_faces_one_at_a_time(kennard: Faces) -> None:
    rig = make_rig(kennard, 15)
    prof = rig.profile
    capture = FaceCapture(prof.world_to_image, prof.geometry, prof.felt_ratio, slot=2)
    rng = np.random.default_rng(16)
    clean = S.Perturbations(noise_sigma=2.0, jpeg_quality=92)
    shown = [Card.parse(c) for c in ("Ah", "Kd", "7c", "7s", "Qh")]
    for card in shown:
        placement = [S.Placement(card, 2, prof.geometry.slot_centre_mm(2), 0.0)]
        capture.add(card, S.render(kennard, placement, rig.camera, rng, clean).image)
    assert len(capture.missing()) == 47
    empty = S.render(kennard, [], rig.camera, rng, clean).image
    with pytest.raises(CalibrationError, match="no clean card found in slot 3"):
        capture.add(FULL_DECK[0], empty)
    # The rest of the deck from the folder, so the bank is complete (a real install captures all).
    for card in capture.missing():
        capture._patches[card] = face_patch(kennard[card])
    captured = profile_with_patches(prof, capture.patches())
    recognizer = captured.recognizer()
    scene = S.render_board(kennard, [*shown, None][:5], rng, S.Level.EASY, rig.camera)
    reading = recognizer.read(scene.image)
    assert [s.card for s in reading.slots] == [t.card for t in scene.truth]


def test_a_capture_of_several_still_frames_averages_their_noise(kennard: Faces) -> None:
    """A card captured from eight frames of it lying still (their own sensor noise each) is
    stored, patch and fine face, nearer the capture of a noiseless frame than from any one of
    them: the averaged cuts keep the design and shed the capture's noise."""
    rig = make_rig(kennard, 19)
    prof = rig.profile
    card = Card.parse("9c")
    placement = [S.Placement(card, 2, prof.geometry.slot_centre_mm(2), 0.7)]
    rng = np.random.default_rng(20)
    noisy = S.Perturbations(noise_sigma=6.0, jpeg_quality=90)
    frames = [S.render(kennard, placement, rig.camera, rng, noisy).image for _ in range(8)]
    truth = FaceCapture(prof.world_to_image, prof.geometry, prof.felt_ratio, slot=2)
    truth.add(card, S.render(kennard, placement, rig.camera, rng,
                             S.Perturbations(jpeg_quality=90)).image)
    want = truth._patches[card].astype(np.float32)
    want_fine = truth._fine[card].astype(np.float32)

    def errors(capture: FaceCapture) -> tuple[float, float]:
        return (float(np.abs(capture._patches[card].astype(np.float32) - want).mean()),
                float(np.abs(capture._fine[card].astype(np.float32) - want_fine).mean()))

    singles = []
    for frame in frames:
        one = FaceCapture(prof.world_to_image, prof.geometry, prof.felt_ratio, slot=2)
        one.add(card, frame)
        singles.append(errors(one))
    averaged = FaceCapture(prof.world_to_image, prof.geometry, prof.felt_ratio, slot=2)
    averaged.add(card, *frames)
    patch_error, fine_error = errors(averaged)
    assert patch_error < min(s[0] for s in singles) - 0.05, (patch_error, singles)
    assert fine_error < min(s[1] for s in singles) - 0.05, (fine_error, singles)
    # One frame without the card among them: refused, nothing stored.
    empty = S.render(kennard, [], rig.camera, rng, noisy).image
    other = FaceCapture(prof.world_to_image, prof.geometry, prof.felt_ratio, slot=2)
    with pytest.raises(CalibrationError, match="no clean card found in slot 3"):
        other.add(card, frames[0], empty)
    assert card in other.missing()


def test_a_captured_card_is_cut_along_its_edges_in_the_frame(kennard: Faces) -> None:
    """The locator's pose of a card lying alone is off its own by up to a few tenths of a
    degree (fitted on the canonical view's mask); the capture fits the card's four edges in the
    frame, so two captures of one card at different places agree to the design, where the
    located poses left them differing along every edge of the print."""
    rig = make_rig(kennard, 23)
    prof = rig.profile
    card = Card.parse("9c")
    rng = np.random.default_rng(20)
    clean = S.Perturbations(noise_sigma=2.0, jpeg_quality=90)
    cx, cy = prof.geometry.slot_centre_mm(2)
    patches: list[np.ndarray[Any, np.dtype[np.float32]]] = []
    for angle in (-1.6, -0.4, 0.2, 0.9, 1.7):
        where = (cx + rng.uniform(-2, 2), cy + rng.uniform(-2, 2))
        frame = S.render(kennard, [S.Placement(card, 2, where, angle)], rig.camera, rng,
                         clean).image
        capture = FaceCapture(prof.world_to_image, prof.geometry, prof.felt_ratio, slot=2)
        located = capture.locate(frame)
        assert located is not None
        fitted = capture._fitted(frame, located)
        assert abs(fitted.angle_deg - angle) < 0.05, (fitted, angle)
        capture.add(card, frame)
        patches.append(capture._patches[card].astype(np.float32))
    apart = [float(np.abs(a - b).mean()) for i, a in enumerate(patches) for b in patches[i + 1:]]
    assert max(apart) < 2.6, apart


def test_capture_incomplete(kennard: Faces) -> None:
    rig = make_rig(kennard, 17)
    prof = rig.profile
    capture = FaceCapture(prof.world_to_image, prof.geometry, prof.felt_ratio)
    with pytest.raises(CalibrationError, match="52 cards not captured yet"):
        capture.patches()
    with pytest.raises(CalibrationError, match="capture slot 7"):
        FaceCapture(prof.world_to_image, prof.geometry, prof.felt_ratio, slot=7)


def test_a_board_reference_of_the_wrong_size_is_refused(kennard: Faces, tmp_path: Path) -> None:
    import hashlib
    import io

    rig = make_rig(kennard, 13)
    path = tmp_path / "cam.json"
    faces_file = save_profile(rig.profile, path)
    with np.load(faces_file) as npz:
        # Any: numpy's savez stub takes its arrays as keyword arguments of any type.
        arrays: dict[str, Any] = {k: np.asarray(npz[k]) for k in npz.files}
    arrays["board_reference"] = arrays["board_reference"][:100]
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    faces_file.write_bytes(buf.getvalue())
    _mutate(path, "faces_sha256", hashlib.sha256(buf.getvalue()).hexdigest())
    with pytest.raises(CalibrationError, match="board reference has shape"):
        load_profile(path)
