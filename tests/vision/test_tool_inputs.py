"""The technician's camera tools on real inputs: an MJPEG stream, a video file, bad files.

Frames come from the simulated camera (level easy) and reach the tools as a real camera's do:
through ``cv2.VideoCapture`` from :class:`~hardware.sim.mjpeg.MjpegStream` (HTTP on 127.0.0.1)
or from a video file given as a device path. Nothing waits on the wall clock's budget: every
wait is for a line or a file, with a generous timeout.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from hardware.sim import scene as S
from hardware.sim.camera import SimCamera
from hardware.sim.mjpeg import MjpegStream
from table_controller.cli import main
from table_controller.engine.cards import Card

from .conftest import FACES, ROOT, Faces

SIM = "sim://camera?level=easy&seed=5"
#: Generous: a child process starts, FFmpeg opens the stream, the machine may be busy.
TIMEOUT = 120.0


def _camera(faces: Faces) -> SimCamera:
    cam = SimCamera(faces, url=SIM, level=S.Level.EASY, seed=5)
    cam.open()
    return cam


def _write(path: Path, image: np.ndarray) -> None:
    """Replace ``path`` at once (the stream never serves a half-written file)."""
    tmp = path.with_name("next-" + path.name)
    assert cv2.imwrite(str(tmp), image)
    os.replace(tmp, path)


@pytest.fixture
def profile(tmp_path: Path, kennard: Faces) -> Path:
    """A camera profile calibrated on the sim camera's empty board."""
    empty = tmp_path / "empty.png"
    frame = _camera(kennard).read_frame(0.0)
    assert frame is not None
    cv2.imwrite(str(empty), frame)
    out = tmp_path / "cam.json"
    assert main(["calibrate", "camera", "--image", str(empty), "--faces",
                 str(FACES["kennard"]), "--out", str(out)]) == 0
    return out


def test_capture_from_an_mjpeg_stream(tmp_path: Path, kennard: Faces,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    cam = _camera(kennard)
    cam.place(1, Card.parse("Qh"))
    frame = cam.read_frame(0.0)
    assert frame is not None
    served = tmp_path / "served.png"
    _write(served, frame)
    with MjpegStream(served, fps=20.0) as stream:
        url = f"camera://?url={stream.url}"
        out = tmp_path / "got.jpg"
        assert main(["vision", "capture", url, str(out), "--skip", "1",
                     "--timeout", str(TIMEOUT)]) == 0
        assert f"got.jpg: 1920x1080 frame from {url}" in capsys.readouterr().out
    got = cv2.imread(str(out))
    assert got is not None and got.shape == frame.shape
    # the frame served (JPEG twice over: the stream's and the file's), not another
    assert float(np.mean(np.abs(got.astype(np.int16) - frame.astype(np.int16)))) < 4.0


def test_capture_from_a_video_file_as_a_device_path(tmp_path: Path, kennard: Faces,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    cam = _camera(kennard)
    video = tmp_path / "board.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (1920, 1080))
    assert writer.isOpened()
    frames = []
    for card in ("2c", "Kd", "7s"):
        cam.place(0, Card.parse(card))
        frame = cam.read_frame(0.0)
        assert frame is not None
        frames.append(frame)
        writer.write(frame)
        cam.remove(0)
    writer.release()
    out = tmp_path / "third.png"
    assert main(["vision", "capture", f"camera://{video}", str(out), "--skip", "2"]) == 0
    assert "third.png: 1920x1080 frame from camera://" in capsys.readouterr().out
    got = cv2.imread(str(out))
    assert got is not None
    errors = [float(np.mean(np.abs(got.astype(np.int16) - f.astype(np.int16)))) for f in frames]
    assert min(errors) == errors[2], errors  # the third frame: two were skipped


def _cli(argv: list[str], capfd: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(argv)
    out, err = capfd.readouterr()
    return rc, out, err


def test_bad_inputs_give_one_line_errors(tmp_path: Path, profile: Path,
                                         capfd: pytest.CaptureFixture[str]) -> None:
    board = tmp_path / "empty.png"
    garbage = tmp_path / "garbage.png"
    garbage.write_text("not an image")
    missing = str(tmp_path / "missing.png")
    nowhere = str(tmp_path / "no-such-folder" / "x.png")
    faces = str(FACES["kennard"])
    capfd.readouterr()
    cases = [
        (["vision", "capture", SIM, str(tmp_path / "frame.txt")],
         f"vision capture: '{tmp_path / 'frame.txt'}': name it .png or .jpg"),
        (["vision", "capture", SIM, nowhere], f"folder '{Path(nowhere).parent}' does not exist"),
        (["vision", "capture", "board.png", str(board)],
         "vision capture: 'board.png' is not a camera URL (use camera:///dev/video0"),
        (["vision", "capture", "nosuch://cam", str(board)], "no driver for device URL"),
        (["vision", "capture", "camera://", str(board)], "camera URL names no device"),
        (["vision", "read", "--calibration", str(profile), missing],
         f"vision read: '{missing}' does not exist"),
        (["vision", "read", "--calibration", str(profile), str(garbage)],
         "cannot be read as an image"),
        (["vision", "read", "--calibration", str(profile), str(tmp_path)], "is not a file"),
        (["vision", "read", "--calibration", str(tmp_path / "none.json"), str(board)],
         "vision read: camera profile"),
        (["vision", "read", "--calibration", str(profile), "--annotate",
          str(tmp_path / "seen.txt"), str(board)],
         f"--annotate '{tmp_path / 'seen.txt'}': name it .png or .jpg"),
        (["vision", "read", "--calibration", str(profile), "--annotate", nowhere, str(board)],
         "does not exist"),
        (["calibrate", "camera", "--image", missing, "--faces", faces, "--out",
          str(tmp_path / "c1.json")], f"calibrate camera: --image '{missing}' does not exist"),
        (["calibrate", "camera", "--image", str(garbage), "--faces", faces, "--out",
          str(tmp_path / "c1.json")], "cannot be read as an image"),
        (["calibrate", "camera", "--image", str(board), "--faces", faces, "--out",
          str(tmp_path / "c1.json"), "--preview", str(tmp_path / "p.txt")],
         f"--preview '{tmp_path / 'p.txt'}': name it .png or .jpg"),
        (["calibrate", "camera", "--image", str(board), "--faces", faces, "--out",
          str(tmp_path / "no-such-folder" / "c.json")], "does not exist"),
        (["calibrate", "camera", "--print-markers", str(tmp_path / "no-such-folder" / "m.pdf")],
         "cannot be written: No such file or directory"),
        (["vision", "capture-faces", "--calibration", str(profile), "--out",
          str(tmp_path / "n.json"), missing], "does not exist"),
        (["vision", "capture-faces", "--calibration", str(profile), "--out",
          str(tmp_path / "n.json"), "--slot", "9", str(board)],
         "--slot 9: the board has slots 1-5"),
        (["vision", "capture-faces", "--calibration", str(profile), "--out",
          str(tmp_path / "no-such-folder" / "n.json"), str(board)], "does not exist"),
        (["vision", "capture-faces", "--calibration", str(profile), "--out",
          str(tmp_path / "n.json"), "board.png://"], "no driver for device URL"),
    ]
    for argv, expected in cases:
        rc, _out, err = _cli(argv, capfd)
        assert rc == 1, (argv, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and expected in lines[0], (argv, err)
    # nothing was written by a command that failed
    assert not list(tmp_path.glob("c1*")) and not (tmp_path / "n.json").exists()


def test_capture_faces_from_an_mjpeg_camera(tmp_path: Path, profile: Path,
                                            kennard: Faces) -> None:
    """The command asks for each card in turn, shows its progress, and stops once the camera
    is gone (nothing saved)."""
    cam = _camera(kennard)
    empty = cam.read_frame(0.0)
    assert empty is not None
    served = tmp_path / "served.png"
    _write(served, empty)
    out = tmp_path / "new.json"
    stream = MjpegStream(served, fps=20.0)
    url = f"camera://?url={stream.start()}"
    child = subprocess.Popen(
        [sys.executable, "-m", "table_controller", "vision", "capture-faces", "--calibration",
         str(profile), "--out", str(out), "--timeout", "3", url],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    seen: list[str] = []
    try:
        while len([s for s in seen if s.startswith("captured")]) < 3:
            line = lines.get(timeout=TIMEOUT)
            assert line is not None, (seen, child.stderr.read() if child.stderr else "")
            seen.append(line)
            if line.startswith("show "):
                cam.place(2, Card.parse(line.split()[1]))
                _write(served, cam.read_frame(0.0))  # type: ignore[arg-type]
            elif line.startswith("captured"):
                cam.remove(2)
                _write(served, cam.read_frame(0.0))  # type: ignore[arg-type]
        stream.close()  # the camera goes away
        _out, err = child.communicate(timeout=TIMEOUT)
    finally:
        stream.close()
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 1
    assert seen[0] == "show 2c face up, alone, in slot 3 (0/52 captured)"
    assert "captured 2c; take the card out of slot 3 (1/52 captured)" in seen
    assert "show 2d face up, alone, in slot 3 (1/52 captured)" in seen
    assert "captured 2h; take the card out of slot 3 (3/52 captured)" in seen
    assert err.strip().splitlines()[-1].startswith(f"vision capture-faces: no frame from {url}")
    assert not out.exists()


def test_annotate_draws_each_slot_the_card_and_its_label(kennard: Faces) -> None:
    from calibration.camera import calibrate_camera
    from hardware.camera.annotate import COLOURS, annotate, label

    cam = _camera(kennard)
    empty = cam.read_frame(0.0)
    assert empty is not None
    recognizer = calibrate_camera(empty, kennard).recognizer()
    cam.place(0, Card.parse("Qh"))
    cam.place(3, Card.parse("7s"))
    frame = cam.read_frame(0.0)
    assert frame is not None
    reading = recognizer.read(frame)
    assert [label(s).split()[0] for s in reading.slots] == ["Qh", "empty", "empty", "7s",
                                                           "empty"]
    drawn = annotate(frame, recognizer, reading)
    assert drawn.shape == frame.shape

    def count(colour: tuple[int, int, int], box: npt.NDArray[np.float64]) -> int:
        """Pixels of exactly ``colour`` around one slot's box (its label below included)."""
        x0, y0 = np.floor(box.min(axis=0)).astype(int) - 40
        x1, y1 = np.ceil(box.max(axis=0)).astype(int) + 60
        region = drawn[max(y0, 0):y1, max(x0, 0):x1]
        return int(np.count_nonzero(np.all(region == colour, axis=2)))

    h = recognizer.world_to_image
    sw, bh = recognizer.geometry.slot_width_mm, recognizer.geometry.board_mm[1]
    for i, slot in enumerate(reading.slots):
        world = np.array([[i * sw, 0], [(i + 1) * sw, 0], [(i + 1) * sw, bh], [i * sw, bh]],
                         np.float64)
        box = np.asarray(cv2.perspectiveTransform(world.reshape(-1, 1, 2), h).reshape(-1, 2),
                         np.float64)
        assert count((0, 160, 255), box) > 100, i  # the slot's box
        colour = COLOURS[slot.status]
        # the card's outline (read: green) and the label, in the status colour
        assert count(colour, box) > (400 if slot.status == "card" else 50), (i, slot.status)
