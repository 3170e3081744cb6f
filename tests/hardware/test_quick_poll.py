"""Which board sources the daemon polls on its loop (quick) and which in a worker thread."""

from __future__ import annotations

from pathlib import Path

from hardware.base import QuickPoll
from hardware.camera.source import FrameBoardSource
from hardware.sim.camera_link import BoardFileCamera


def test_the_board_file_is_quick_and_a_recognizer_is_not(tmp_path: Path) -> None:
    board = BoardFileCamera("sim://camera?board=x", str(tmp_path / "board.json"))
    assert isinstance(board, QuickPoll) and board.quick_poll
    assert not hasattr(FrameBoardSource, "quick_poll")
