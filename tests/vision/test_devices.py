"""Camera sources behind the registry, the stabiliser, and the command line end to end."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import calibrate_camera
from hardware.base import BoardCamera, open_camera
from hardware.camera.capture import CvCamera
from hardware.camera.recognizer import BoardReading, SlotReading
from hardware.camera.stabilizer import BoardStabilizer
from hardware.sim import scene as S
from hardware.sim.camera import SimCamera
from table_controller.cli import main
from table_controller.engine.cards import Card
from table_controller.errors import ConfigError, DeviceError, DuplicateCardError, RuleError

from .conftest import FACES, Faces
from .helpers import board

AH, KD, SEVEN = Card.parse("Ah"), Card.parse("Kd"), Card.parse("7c")


def test_sim_camera_serves_the_dealt_board(kennard: Faces) -> None:
    cam = open_camera("sim://camera?level=medium&seed=4", faces=kennard)
    assert isinstance(cam, SimCamera)
    assert isinstance(cam, BoardCamera)
    assert cam.read_frame(0.0) is None  # not open yet
    cam.open()
    empty = cam.read_frame(0.0)
    assert empty is not None and empty.shape == (1080, 1920, 3)
    recognizer = calibrate_camera(empty, kennard).recognizer()
    for slot, card in enumerate((AH, KD, SEVEN)):
        cam.place(slot, card)
    frame = cam.read_frame(0.1)
    assert frame is not None
    assert recognizer.read(frame).cards() == (AH, KD, SEVEN, None, None)
    cam.occlude(slot=1)
    frame = cam.read_frame(0.2)
    assert frame is not None
    assert cam.last_scene is not None and cam.last_scene.truth[1].status == "occluded"
    reading = recognizer.read(frame)
    assert reading.slots[1].status in ("occluded", "uncertain")
    cam.uncover()
    cam.clear()
    frame = cam.read_frame(0.3)
    assert frame is not None
    assert [s.status for s in recognizer.read(frame).slots] == ["empty"] * 5
    assert cam.status().frames == 4
    cam.close()
    assert cam.status().link == "closed"


def test_sim_dealer_mistakes_are_refused(kennard: Faces) -> None:
    cam = SimCamera(kennard, seed=1)
    cam.place(0, AH)
    with pytest.raises(DuplicateCardError, match="Ah is already on the board"):
        cam.place(1, AH)
    with pytest.raises(RuleError, match="slot 0 already holds Ah"):
        cam.place(0, KD)
    with pytest.raises(RuleError, match="slot 5 does not exist"):
        cam.place(5, KD)
    assert cam.board() == (AH, None, None, None, None)


def test_sim_camera_fps_and_options(kennard: Faces) -> None:
    cam = SimCamera(kennard, seed=2, fps=10)
    cam.open()
    assert cam.read_frame(1.0) is not None
    assert cam.read_frame(1.05) is None
    assert cam.read_frame(1.1) is not None
    with pytest.raises(ConfigError, match="level 'extreme'"):
        open_camera("sim://camera?level=extreme", faces=kennard)
    with pytest.raises(ConfigError, match=r"unknown options \['colour'\]"):
        open_camera("sim://camera?colour=red", faces=kennard)
    default = open_camera(f"sim://camera?faces={FACES['svg-cards']}&seed=1")
    assert isinstance(default, SimCamera)


def test_cv_camera_reads_a_video_file(kennard: Faces, tmp_path: Path) -> None:
    rng = np.random.default_rng(9)
    cam = S.make_camera(rng, S.Level.EASY)
    video = tmp_path / "board.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 5, (1920, 1080))
    assert writer.isOpened()
    empty = S.render(kennard, [], cam, rng).image
    scene = S.render(kennard, S.place_cards(rng, board("Ah Kd 7c"), S.Level.EASY), cam, rng)
    for image in (empty, scene.image):
        writer.write(image)
    writer.release()
    device = open_camera(f"camera://{video}?lost_after=2&retry=5")
    assert isinstance(device, CvCamera)
    device.open()
    first = device.read_frame(0.0)
    second = device.read_frame(0.1)
    assert first is not None and second is not None
    recognizer = calibrate_camera(first, kennard).recognizer()
    assert recognizer.read(second).cards() == (AH, KD, SEVEN, None, None)
    assert device.read_frame(0.2) is None
    assert device.status().link == "ok"
    assert device.read_frame(0.3) is None
    status = device.status()
    assert status.link == "lost" and status.frames == 2 and status.bad_frames == 2
    assert device.read_frame(1.0) is None  # before the retry time: no reopen attempt
    assert device.read_frame(5.4) is not None  # reopened (the file starts again)
    assert device.status().reconnects == 1
    device.close()


def test_cv_camera_urls_and_errors(tmp_path: Path) -> None:
    def source(url: str) -> int | str:
        device = open_camera(url)
        assert isinstance(device, CvCamera)
        return device.source

    assert source("camera://0") == 0
    assert source("camera:///dev/video3") == "/dev/video3"
    assert source("camera://?url=rtsp://cam.local/board") == "rtsp://cam.local/board"
    with pytest.raises(ConfigError, match="names no device"):
        open_camera("camera://")
    with pytest.raises(ConfigError, match="width=-3"):
        open_camera("camera://0?width=-3")
    with pytest.raises(ConfigError, match=r"unknown options \['zoom'\]"):
        open_camera("camera://0?zoom=2")
    with pytest.raises(ConfigError, match="fourcc='MJPEG' is not a four-character code"):
        open_camera("camera://0?fourcc=MJPEG")
    # A device is asked for MJPEG unless told otherwise; a file is read as it is encoded.
    def fourcc(url: str) -> str | None:
        device = open_camera(url)
        assert isinstance(device, CvCamera)
        return device.fourcc

    assert [fourcc(url) for url in (
        "camera://0", "camera:///dev/video1?fourcc=yuyv", "camera:///dev/video1?fourcc=none",
        f"camera://{tmp_path / 'board.avi'}")] == ["MJPG", "YUYV", None, None]
    missing = open_camera(f"camera://{tmp_path / 'none.avi'}")
    with pytest.raises(DeviceError, match="cannot open camera source"):
        missing.open()


def _reading(*slots: str) -> BoardReading:
    out = []
    for s in slots:
        if s in ("empty", "occluded", "uncertain"):
            out.append(SlotReading(s))  # type: ignore[arg-type]
        else:
            out.append(SlotReading("card", Card.parse(s), 0.9))
    return BoardReading(tuple(out))


def test_stabiliser_needs_frames_and_time() -> None:
    st = BoardStabilizer(frames=3, min_seconds=0.2)
    flop = _reading("Ah", "Kd", "7c", "empty", "empty")
    assert st.update(flop, 0.0).changes == ()
    assert st.update(flop, 0.1).changes == ()
    assert st.update(flop, 0.15).changes == ()  # three frames but only 0.15 s
    changes = st.update(flop, 0.25).changes
    assert [(slot, new) for slot, _, new in changes] == [(0, AH), (1, KD), (2, SEVEN)]
    # A hand passes over the board: occluded frames change nothing.
    hand = _reading("occluded", "occluded", "uncertain", "empty", "empty")
    board_now = st.update(hand, 0.3)
    assert board_now.cards[:3] == (AH, KD, SEVEN)
    assert board_now.occluded == (0, 1, 2)
    # A flicker (one frame of something else) is not a change.
    st.update(_reading("Ah", "Kd", "7c", "2c", "empty"), 0.4)
    st.update(flop, 0.5)
    st.update(flop, 0.6)
    assert st.update(flop, 0.9).changes == ()
    assert st.cards == (AH, KD, SEVEN, None, None)
    with pytest.raises(ConfigError, match="reading has 2 slots"):
        st.update(BoardReading((SlotReading("empty"), SlotReading("empty"))), 1.0)
    with pytest.raises(ConfigError, match="frames >= 1"):
        BoardStabilizer(frames=0)


@pytest.fixture(scope="module")
def cli_files(tmp_path_factory: pytest.TempPathFactory, svg_cards: Faces) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("cli")
    rng = np.random.default_rng(21)
    cam = S.make_camera(rng, S.Level.MEDIUM)
    files = {"calib": d / "calib.png", "f1": d / "f1.png", "f2": d / "f2.jpg"}
    cv2.imwrite(str(files["calib"]), S.render(svg_cards, [], cam, rng).image)
    s1 = S.render(svg_cards, S.place_cards(rng, board("Ah Kd 7c 2s Td"), S.Level.MEDIUM), cam,
                  rng, S.Perturbations(noise_sigma=4, blur_sigma=1.0))
    cv2.imwrite(str(files["f1"]), s1.image)
    s2 = S.render(svg_cards, S.place_cards(rng, board("Qh 3d 9s"), S.Level.MEDIUM), cam, rng,
                  S.Perturbations(noise_sigma=4))
    cv2.imwrite(str(files["f2"]), s2.image)
    return files


def test_cli_calibrate_and_read(cli_files: dict[str, Path], tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    profile = tmp_path / "cam.json"
    preview = tmp_path / "preview.png"
    rc = main(["calibrate", "camera", "--image", str(cli_files["calib"]), "--faces",
               str(FACES["svg-cards"]), "--out", str(profile), "--preview", str(preview)])
    assert rc == 0
    assert preview.exists() and (tmp_path / "cam.faces.npz").exists()
    out = capsys.readouterr().out
    assert "board area from markers" in out and "felt: green, ratio 0." in out
    rc = main(["vision", "read", "--calibration", str(profile), "--json",
               str(cli_files["f1"]), str(cli_files["f2"])])
    assert rc == 0
    docs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [d["image"] for d in docs] == [str(cli_files["f1"]), str(cli_files["f2"])]
    assert [s["card"] for s in docs[0]["slots"]] == ["Ah", "Kd", "7c", "2s", "Td"]
    assert [s["status"] for s in docs[1]["slots"]] == ["card"] * 3 + ["empty"] * 2
    assert all(0.0 <= s["confidence"] <= 1.0 for d in docs for s in d["slots"])
    rc = main(["vision", "read", "--calibration", str(profile), str(cli_files["f2"])])
    out = capsys.readouterr().out
    assert rc == 0 and "1:Qh(" in out and "4:empty" in out
    # Refused: existing profile without --force, bad corners, bad profile, bad image.
    assert main(["calibrate", "camera", "--image", str(cli_files["calib"]), "--faces",
                 str(FACES["svg-cards"]), "--out", str(profile)]) == 1
    assert "exists (use --force" in capsys.readouterr().err
    assert main(["calibrate", "camera", "--image", str(cli_files["calib"]), "--faces",
                 str(FACES["svg-cards"]), "--out", str(tmp_path / "x.json"),
                 "--corners", "1,2,3"]) == 1
    assert "expected 8 numbers" in capsys.readouterr().err
    doc = json.loads(profile.read_text())
    doc["card_mm"] = [90, 130]
    profile.write_text(json.dumps(doc))
    assert main(["vision", "read", "--calibration", str(profile), str(cli_files["f1"])]) == 1
    assert "does not fit a slot" in capsys.readouterr().err


def test_cli_read_refuses_bad_input(cli_files: dict[str, Path], tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    profile = tmp_path / "cam.json"
    assert main(["calibrate", "camera", "--image", str(cli_files["calib"]), "--faces",
                 str(FACES["svg-cards"]), "--out", str(profile), "--corners",
                 "500,380,1500,380,1520,720,480,720"]) == 0
    capsys.readouterr()
    (tmp_path / "odd.png").write_bytes(b"not a png")
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), np.zeros((100, 100, 3), np.uint8))
    rc = main(["vision", "read", "--calibration", str(profile), str(tmp_path / "odd.png"),
               str(small)])
    err = capsys.readouterr().err
    assert rc == 1
    assert "cannot be read as an image" in err
    assert "image is 100x100, the camera profile is for 1920x1080" in err
    assert main(["vision", "read", "--calibration", str(tmp_path / "nope.json"),
                 str(small)]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_board_watcher_confirms_cards_once_stable(kennard: Faces) -> None:
    from hardware.camera.watcher import BoardWatcher

    cam = SimCamera(kennard, level=S.Level.EASY, seed=31, fps=5)
    cam.open()
    empty = cam.read_frame(0.0)
    assert empty is not None
    watcher = BoardWatcher(cam, calibrate_camera(empty, kennard).recognizer(),
                           BoardStabilizer(frames=2))
    cam.place(0, AH)
    assert watcher.poll(0.1) is None  # the camera has no new frame yet (5 fps)
    first = watcher.poll(0.2)
    assert first is not None and first.changes == ()
    second = watcher.poll(0.4)
    assert second is not None and second.changes == ((0, None, AH),)
    cam.occlude(slot=0)
    during = watcher.poll(0.65)
    assert during is not None and during.cards[0] == AH and 0 in during.occluded
    status = watcher.status()
    assert status.frames == 3 and status.missed == 1


def test_a_camera_device_is_asked_for_a_one_frame_queue(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """No V4L2 device here: a stand-in for ``cv2.VideoCapture`` records what it is asked."""
    asked: list[tuple[int, float]] = []
    honoured = {"buffer": True}

    class Capture:
        def __init__(self, source: object) -> None:
            self.props: dict[int, float] = {}

        def isOpened(self) -> bool:
            return True

        def set(self, prop: int, value: float) -> bool:
            asked.append((prop, value))
            if prop == cv2.CAP_PROP_BUFFERSIZE and not honoured["buffer"]:
                return False
            self.props[prop] = value
            return True

        def get(self, prop: int) -> float:
            if prop == cv2.CAP_PROP_FOURCC:
                return float(cv2.VideoWriter.fourcc(*"MJPG"))
            return self.props.get(prop, 0.0)

        def release(self) -> None:
            pass

    monkeypatch.setattr(cv2, "VideoCapture", Capture)
    for url, want in (("camera://0", 1), ("camera:///dev/video1?buffer=2", 2),
                      ("camera:///dev/video1?buffer=none", None),
                      ("camera://?url=rtsp://cam.local/board", None)):
        asked.clear()
        device = open_camera(url)
        assert isinstance(device, CvCamera)
        device.open()
        got = [v for p, v in asked if p == cv2.CAP_PROP_BUFFERSIZE]
        assert got == ([] if want is None else [want]), url
        device.close()
    with pytest.raises(ConfigError, match="buffer='0' is not a whole number"):
        open_camera("camera://0?buffer=0")
    honoured["buffer"] = False
    device = open_camera("camera://0")
    with caplog.at_level("WARNING"):
        device.open()
    assert "asked for a queue of 1 frame(s)" in caplog.text
