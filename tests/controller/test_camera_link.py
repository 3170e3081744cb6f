"""The board sources: the dealer's board file read as is, or rendered and recognised."""

from __future__ import annotations

from pathlib import Path

import pytest

from hardware.base import BadFrame, open_device
from hardware.sim.camera_link import (
    BoardFileCamera,
    BoardObserved,
    BoardRenderer,
    FrameFileSource,
    write_board,
)
from table_controller.errors import CalibrationError, ConfigError


def test_board_file_exact(tmp_path: Path) -> None:
    path = tmp_path / "board.json"
    cam = open_device(f"sim://camera?board={path}", kind="board")
    assert isinstance(cam, BoardFileCamera)
    cam.open()
    assert cam.poll(1.0) == [BoardObserved((None,) * 5)]
    write_board(path, ["Ah", "Kd", "2c", None, None], occluded=[3])
    assert cam.poll(1.1) == [BoardObserved(("Ah", "Kd", "2c", None, None), (3,))]
    assert cam.poll(1.2) == []
    path.write_text('{"slots": ["Zz", null, null, null, null]}')
    bad = cam.poll(1.3)
    assert len(bad) == 1 and isinstance(bad[0], BadFrame) and "Zz" in bad[0].reason
    assert cam.status().bad_frames == 1
    cam.close()


def test_board_file_options_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="board=PATH"):
        open_device("sim://camera?level=easy", kind="board")
    with pytest.raises(ConfigError, match="level"):
        open_device(f"sim://camera?board={tmp_path}/b.json&level=blurry", kind="board")
    with pytest.raises(ConfigError, match="unknown option"):
        open_device(f"sim://camera?board={tmp_path}/b.json&fps=3", kind="board")


def test_board_file_refuses_to_render_in_the_readers_process(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="BoardRenderer"):
        open_device(f"sim://camera?board={tmp_path}/b.json&level=easy", kind="board")


def test_frames_options_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="camera profile"):
        open_device(f"sim://camera?frames={tmp_path}/b.png", kind="board")
    with pytest.raises(ConfigError, match="unknown option 'level'"):
        open_device(f"sim://camera?frames={tmp_path}/b.png&level=easy", kind="board")
    with pytest.raises(CalibrationError, match="does not exist"):
        open_device(f"sim://camera?frames={tmp_path}/b.png", kind="board",
                    profile=tmp_path / "nope.json")


def test_frames_rendered_beside_the_dealer_and_recognised(tmp_path: Path) -> None:
    board, frames, profile = tmp_path / "board.json", tmp_path / "board.png", tmp_path / "p.json"
    renderer = BoardRenderer(board, frames, level="easy", seed=5)
    try:
        renderer.calibrate(profile)
        cam = open_device(f"sim://camera?frames={frames}", kind="board", profile=profile)
        assert isinstance(cam, FrameFileSource)
        cam.open()
        assert cam.poll(1.0) == [BoardObserved((None,) * 5, ())]
        assert cam.poll(1.1) == []  # the same file: not decoded again
        write_board(board, ["Ah", "Kd", "7c", None, None])
        assert renderer.poll(2.0) and not renderer.poll(2.1)
        assert cam.poll(2.0) == [BoardObserved(("Ah", "Kd", "7c", None, None), ())]
        write_board(board, ["Ah", "Kd", "7c", "Qs", None])
        renderer.poll(3.0)
        assert cam.poll(3.0) == [BoardObserved(("Ah", "Kd", "7c", "Qs", None), ())]
        st = cam.status()
        assert st.frames == 3 and st.bad_frames == 0 and st.link == "ok"
        # a bad board file keeps the last frame; the renderer says why
        board.write_text("{")
        assert not renderer.poll(4.0) and renderer.last_error
        assert cam.poll(4.0) == []
        cam.close()
    finally:
        renderer.close()


def test_the_renderers_thread_stamps_its_looks_beside_the_frames(tmp_path: Path) -> None:
    import threading
    import time

    from hardware.base import LookTimed
    from hardware.sim.camera_link import seen_path

    board, frames, profile = tmp_path / "board.json", tmp_path / "board.bmp", tmp_path / "p.json"
    renderer = BoardRenderer(board, frames, level="easy", seed=5)
    try:
        renderer.calibrate(profile)
        cam = open_device(f"sim://camera?frames={frames}", kind="board", profile=profile)
        assert isinstance(cam, FrameFileSource) and isinstance(cam, LookTimed)
        cam.open()
        assert cam.looked_at() is None  # no renderer thread: the reader's poll time counts
        before = time.monotonic()
        renderer.start(interval=0.01)
        stamped = threading.Event()
        for _ in range(3000):  # an event wait with a generous bound, not a time budget
            looked = cam.looked_at()
            if looked is not None and looked >= before:
                stamped.set()
                break
            time.sleep(0.01)
        assert stamped.is_set()
        renderer.stop()
        assert not Path(seen_path(frames)).exists() and cam.looked_at() is None
        Path(seen_path(frames)).write_text("not a time")
        assert cam.looked_at() is None  # a stamp that is not a number counts as none
        cam.close()
    finally:
        renderer.close()
