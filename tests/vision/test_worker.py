"""The board source in a process of its own (``hardware.camera.worker``)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import CameraProfile, calibrate_camera
from hardware.base import DeviceEvent, open_board_source
from hardware.camera import onecore
from hardware.camera.source import BoardObserved, FrameBoardSource
from hardware.camera.worker import CHILD_NICENESS, ProcessBoardSource
from hardware.sim import scene as S
from table_controller.errors import ConfigError

from .conftest import Faces
from .helpers import board


@pytest.fixture(scope="module")
def video(kennard: Faces, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, CameraProfile]:
    """An MJPEG video of the empty board, then four frames of three cards; its profile."""
    rng = np.random.default_rng(9)
    cam = S.make_camera(rng, S.Level.EASY)
    path = tmp_path_factory.mktemp("worker") / "board.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (1920, 1080))
    assert writer.isOpened()
    empty = S.render(kennard, [], cam, rng).image
    placed = S.place_cards(rng, board("Ah Kd 7c"), S.Level.EASY)
    frames = [empty] + [S.render(kennard, placed, cam, rng).image for _ in range(4)]
    for image in frames:
        writer.write(image)
    writer.release()
    return path, calibrate_camera(empty, kennard)


def _play(source: ProcessBoardSource | FrameBoardSource, times: list[float]) -> list[DeviceEvent]:
    source.open()
    try:
        return [e for t in times for e in source.poll(t)]
    finally:
        source.close()


def test_a_camera_board_source_runs_in_a_process_and_reports_the_same(
    video: tuple[Path, CameraProfile],
) -> None:
    path, profile = video
    times = [0.0, 0.05, 0.1, 0.2, 0.3, 0.4]  # 0.05: not due (one frame every 0.1 s)
    child = open_board_source(f"camera://{path}", profile=profile)
    assert isinstance(child, ProcessBoardSource)
    here = open_board_source(f"camera://{path}?process=0", profile=profile)
    assert isinstance(here, FrameBoardSource)
    events = _play(child, times)
    assert events == _play(here, times)
    assert events[-1] == BoardObserved(("Ah", "Kd", "7c", None, None))
    assert child.status().link == "closed" and child.pid is None


def test_a_source_kept_in_process_sets_the_process_to_one_core(
    video: tuple[Path, CameraProfile], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """process=0: the caller's process is the recogniser's, one OpenCV and one BLAS thread as
    the child's; a source in a child leaves the caller's process as it is."""
    path, profile = video
    calls: list[int] = []

    def counted() -> int:
        calls.append(1)
        return 0

    monkeypatch.setattr(onecore, "one_core", counted)
    child = open_board_source(f"camera://{path}", profile=profile)
    assert isinstance(child, ProcessBoardSource) and calls == []
    here = open_board_source(f"camera://{path}?process=0", profile=profile)
    assert isinstance(here, FrameBoardSource) and calls == [1]


def test_the_child_s_error_is_raised_at_open(video: tuple[Path, CameraProfile]) -> None:
    _, profile = video
    with pytest.raises(ConfigError, match=r"unknown options \['zoom'\]"):
        open_board_source("camera://0?zoom=2", profile=profile).open()
    with pytest.raises(ConfigError, match="process='yes' must be 0 or 1"):
        open_board_source("camera://0?process=yes", profile=profile)


def test_a_dead_child_is_lost_once_then_started_again(video: tuple[Path, CameraProfile]) -> None:
    path, profile = video
    source = ProcessBoardSource(f"camera://{path}", {"profile": profile, "process": False},
                                retry=1.0)
    source.open()
    try:
        assert source.poll(0.0) == [BoardObserved((None,) * 5)]
        pid = source.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        assert source.poll(0.1) == []
        status = source.status()
        assert status.link == "lost" and not status.connected
        assert source.poll(0.5) == [] and source.pid is None  # before the retry time
        assert source.poll(1.2) == []  # started again (the video from its start)
        assert source.pid not in (None, pid) and source.status().reconnects == 1
        assert source.poll(1.3) == [BoardObserved((None,) * 5)]
    finally:
        source.close()


def test_the_child_runs_below_the_daemon_s_priority(video: tuple[Path, CameraProfile]) -> None:
    path, profile = video
    own = os.getpriority(os.PRIO_PROCESS, 0)
    for url, below in ((f"camera://{path}", CHILD_NICENESS), (f"camera://{path}?nice=0", 0),
                       (f"camera://{path}?nice=2&process=1", 2)):
        source = open_board_source(url, profile=profile)
        assert isinstance(source, ProcessBoardSource)
        source.open()
        try:
            assert source.pid is not None
            assert os.getpriority(os.PRIO_PROCESS, source.pid) == min(own + below, 19), url
            assert source.poll(0.0) == [BoardObserved((None,) * 5)]
        finally:
            source.close()
    for bad in ("nice=-1", "nice=20", "nice=low", "nice=3&process=0"):
        with pytest.raises(ConfigError, match="nice="):
            open_board_source(f"camera://{path}?{bad}", profile=profile)
