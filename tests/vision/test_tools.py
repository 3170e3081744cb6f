"""Technician's tools: the marker sheet, frame capture, annotated reads, faces from the camera."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import (
    calibrate_camera,
    detect_markers,
    load_profile,
    profile_with_patches,
)
from calibration.faces import CAPTURE_FRAMES, FaceRegistration, Image
from hardware.camera.markers import SHEET_DPI, marker_sheet, pdf_bytes, png_bytes
from hardware.sim import scene as S
from hardware.sim.camera import SimCamera
from table_controller.cli import main
from table_controller.engine.cards import FULL_DECK, Card
from table_controller.errors import CalibrationError

from .conftest import FACES, Faces
from .helpers import board
from .test_card_size import rescaled

SIM = "sim://camera?level=easy&seed=5"


def test_marker_sheet_is_true_size_and_detectable() -> None:
    sheet = marker_sheet()
    assert sheet.shape == (round(297 / 25.4 * SHEET_DPI), round(210 / 25.4 * SHEET_DPI))
    found = detect_markers(np.asarray(cv2.cvtColor(sheet, cv2.COLOR_GRAY2BGR), np.uint8))
    assert sorted(found) == [0, 1, 2, 3]
    side_px = 40 / 25.4 * SHEET_DPI
    for corners in found.values():
        assert np.linalg.norm(corners[1] - corners[0]) == pytest.approx(side_px, abs=1.5)
    png = png_bytes(sheet)
    at = png.index(b"pHYs")
    ppm_x, ppm_y, unit = struct.unpack(">IIB", png[at + 4 : at + 13])
    assert (ppm_x, ppm_y, unit) == (round(SHEET_DPI / 0.0254),) * 2 + (1,)
    decoded = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    assert decoded is not None and np.array_equal(np.asarray(decoded), sheet)
    pdf = pdf_bytes(sheet)
    assert pdf.startswith(b"%PDF-1.4") and b"/MediaBox [0 0 595.276 841.89]" in pdf
    assert pdf.rstrip().endswith(b"%%EOF")


def test_cli_print_markers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("m.pdf", "m.png"):
        assert main(["calibrate", "camera", "--print-markers", str(tmp_path / name)]) == 0
        assert (tmp_path / name).stat().st_size > 10_000
    assert "scale bar measures 100 mm" in capsys.readouterr().out
    assert main(["calibrate", "camera", "--print-markers", str(tmp_path / "m.svg")]) == 1
    assert "name it .pdf or .png" in capsys.readouterr().err
    assert main(["calibrate", "camera", "--image", "x.png"]) == 1
    assert "--faces, --out needed" in capsys.readouterr().err


def test_cli_capture_and_annotate(tmp_path: Path, kennard: Faces,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    calib = tmp_path / "calib.png"
    assert main(["vision", "capture", SIM + f"&faces={FACES['kennard']}", str(calib)]) == 0
    assert "1920x1080 frame from sim://camera" in capsys.readouterr().out
    first = cv2.imread(str(calib))
    assert first is not None and first.shape == (1080, 1920, 3)
    assert main(["vision", "capture", "camera:///dev/nonexistent-video", str(calib),
                 "--timeout", "0.1"]) == 1
    assert "vision capture:" in capsys.readouterr().err
    profile = tmp_path / "cam.json"
    assert main(["calibrate", "camera", "--image", str(calib), "--faces",
                 str(FACES["kennard"]), "--out", str(profile)]) == 0
    assert "cards 63 x 88 mm (poker, from the faces' proportions)" in capsys.readouterr().out
    cam = SimCamera(kennard, url=SIM, level=S.Level.EASY, seed=5)
    cam.open()
    for slot, card in enumerate(board("Qh 3c")):
        if card is not None:
            cam.place(slot, card)
    frame = cam.read_frame(0.0)
    assert frame is not None
    shot = tmp_path / "frame.png"
    cv2.imwrite(str(shot), frame)
    drawn = tmp_path / "drawn.png"
    assert main(["vision", "read", "--calibration", str(profile), "--annotate", str(drawn),
                 str(shot)]) == 0
    assert "1:Qh(" in capsys.readouterr().out
    image = cv2.imread(str(drawn))
    assert image is not None and image.shape == frame.shape
    assert not np.array_equal(np.asarray(image), frame)
    assert main(["vision", "read", "--calibration", str(profile), "--annotate", str(drawn),
                 str(shot), str(shot)]) == 1
    assert "--annotate takes one image" in capsys.readouterr().err


def test_face_registration_from_the_sim_camera(kennard: Faces) -> None:
    cam = SimCamera(kennard, url=SIM, level=S.Level.EASY, seed=5)
    cam.open()
    empty = cam.read_frame(0.0)
    assert empty is not None
    profile = calibrate_camera(empty, kennard)
    registration = FaceRegistration(profile.face_capture(slot=2), settle_frames=2)
    assert registration.prompt() == "show 2c face up, alone, in slot 3 (0/52 captured)"
    captured: list[Card] = []
    for card in FULL_DECK:
        assert registration.next_card == card
        cam.place(2, card)
        for _ in range(2):
            step = registration.feed(cam.read_frame(0.0))  # type: ignore[arg-type]
        assert step.captured == card and step.done == len(captured) + 1
        captured.append(card)
        # Still there: not captured again, asked to take it away.
        step = registration.feed(cam.read_frame(0.0))  # type: ignore[arg-type]
        assert step.captured is None
        if card != FULL_DECK[-1]:
            assert step.message.startswith("take the card out of slot 3")
        cam.remove(2)
        registration.feed(cam.read_frame(0.0))  # type: ignore[arg-type]
    assert registration.next_card is None and registration.prompt() == "all 52 faces captured"
    recognizer = profile_with_patches(profile, registration.capture.patches()).recognizer()
    codes = ["Ah", "Kd", "7c", "2s", "Td"]
    for slot, code in enumerate(codes):
        cam.place(slot, Card.parse(code))
    reading = recognizer.read(cam.read_frame(0.0))  # type: ignore[arg-type]
    assert [s.card.code if s.card else None for s in reading.slots] == codes


def test_face_registration_averages_the_frames_the_card_lay_still(kennard: Faces) -> None:
    """The registration captures a card from every frame it waited for it to lie still
    (:data:`CAPTURE_FRAMES` by default), not from the last alone; a frame without the card
    starts the count again and is the first of the frames then averaged."""
    cam = SimCamera(kennard, url=SIM, level=S.Level.EASY, seed=7)
    cam.open()
    empty = cam.read_frame(0.0)
    assert empty is not None
    profile = calibrate_camera(empty, kennard)
    capture = profile.face_capture(slot=2)
    counts: list[int] = []
    add = capture.add

    def counting_add(card: Card, frame: Image, *more: Image) -> Image:
        counts.append(1 + len(more))
        return add(card, frame, *more)

    capture.add = counting_add  # type: ignore[method-assign]
    registration = FaceRegistration(capture)
    assert registration.settle_frames == CAPTURE_FRAMES > 1
    cam.place(2, FULL_DECK[0])
    for i in range(CAPTURE_FRAMES):
        step = registration.feed(cam.read_frame(0.0))  # type: ignore[arg-type]
        assert (step.captured is not None) == (i == CAPTURE_FRAMES - 1)
    assert counts == [CAPTURE_FRAMES]
    cam.remove(2)
    registration.feed(cam.read_frame(0.0))  # type: ignore[arg-type]
    cam.place(2, FULL_DECK[1])
    registration.feed(cam.read_frame(0.0))  # type: ignore[arg-type]
    registration.feed(cam.read_frame(0.0))  # type: ignore[arg-type]
    cam.remove(2)
    registration.feed(cam.read_frame(0.0))  # type: ignore[arg-type]  # gone: count restarts
    cam.place(2, FULL_DECK[1])
    steps = [registration.feed(cam.read_frame(0.0))  # type: ignore[arg-type]
             for _ in range(CAPTURE_FRAMES)]
    assert steps[-1].captured == FULL_DECK[1]
    assert counts == [CAPTURE_FRAMES, CAPTURE_FRAMES]


def test_face_registration_names_a_card_of_another_size(kennard: Faces) -> None:
    bridge = rescaled(kennard, 57 / 89)
    cam = SimCamera(bridge, url=SIM, level=S.Level.EASY, seed=5)
    cam.open()
    empty = cam.read_frame(0.0)
    assert empty is not None
    poker_profile = calibrate_camera(empty, kennard)  # calibrated for poker cards by mistake
    registration = FaceRegistration(poker_profile.face_capture(slot=2))
    cam.place(2, Card.parse("2c"))
    step = registration.feed(cam.read_frame(0.0))  # type: ignore[arg-type]
    assert step.captured is None
    assert re.search(r"measures about 5[789] x (89|90) mm, not 63 x 88 mm", step.message), step
    with pytest.raises(CalibrationError, match="each of the 52 cards once"):
        FaceRegistration(poker_profile.face_capture(), order=FULL_DECK[:5])


def test_cli_capture_faces_from_image_files(tmp_path: Path, kennard: Faces,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    cam = SimCamera(kennard, url=SIM, level=S.Level.EASY, seed=5)
    cam.open()
    files = []
    for i, card in enumerate([None, "2c", "2c", "2c", "2c", None, "2d"]):
        if card is not None and cam.board()[2] is None:
            cam.place(2, Card.parse(card))
        elif card is None and cam.board()[2] is not None:
            cam.remove(2)
        path = tmp_path / f"f{i}.png"
        cv2.imwrite(str(path), cam.read_frame(0.0))  # type: ignore[arg-type]
        files.append(str(path))
    profile = tmp_path / "cam.json"
    assert main(["calibrate", "camera", "--image", files[0], "--faces", str(FACES["kennard"]),
                 "--out", str(profile)]) == 0
    capsys.readouterr()
    rc = main(["vision", "capture-faces", "--calibration", str(profile), "--out",
               str(tmp_path / "new.json"), *files])
    out, err = capsys.readouterr()
    assert rc == 1
    assert "show 2c face up, alone, in slot 3 (0/52 captured)" in out
    assert "captured 2c; take the card out of slot 3 (1/52 captured)" in out
    assert "show 2d face up, alone, in slot 3 (1/52 captured)" in out
    assert "51 cards not captured yet" in err
    assert not (tmp_path / "new.json").exists()
    load_profile(profile)
