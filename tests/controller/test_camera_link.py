"""The board sources: the dealer's board file read as is, or rendered and recognised."""

from __future__ import annotations

from pathlib import Path

import pytest

from hardware.base import BadFrame, open_device
from hardware.sim.camera_link import BoardFileCamera, BoardObserved, write_board
from table_controller.errors import ConfigError


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


def test_board_file_rendered_and_recognised(tmp_path: Path) -> None:
    path = tmp_path / "board.json"
    cam = open_device(f"sim://camera?board={path}&level=easy&seed=5", kind="board")
    cam.open()
    write_board(path, ["Ah", "Kd", "7c", None, None])
    assert cam.poll(1.0) == [BoardObserved(("Ah", "Kd", "7c", None, None), ())]
    write_board(path, ["Ah", "Kd", "7c", "Qs", None])
    assert cam.poll(2.0) == [BoardObserved(("Ah", "Kd", "7c", "Qs", None), ())]
    cam.close()
