"""A real ``camera:`` board source through the daemon: a recogniser process reading MJPEG.

The daemon runs as in production with ``camera = "camera://?url=http://..."``: the board source
runs in a child process of the daemon (``ProcessBoardSource``, the default), which opens the
stream with ``cv2.VideoCapture``, decodes every MJPEG frame and reads it with the calibrated
recogniser. The frames are the dealer's board as the simulation renders it
(:class:`~hardware.sim.camera_link.BoardRenderer`, level easy), served at 5 fps by
:class:`~hardware.sim.mjpeg.MjpegStream`. Nothing waits on the wall clock's budget: every wait
is for an event (a journal entry, a feed prompt) with a generous timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path

from hardware.sim.mjpeg import MjpegStream
from table_controller.journal import EntryKind, Journal
from table_controller.simtable.rig import SimRig
from table_controller.simtable.session import DealerSession
from tests.controller.rig import e2e_rig
from tests.controller.test_e2e import arun, dealing, fold_seat_1, seat_three

#: Generous: the recogniser process starts (imports, face bank), FFmpeg opens the stream, and
#: the machine may be busy.
TIMEOUT = 90.0


def _camera_boards(rig: SimRig) -> list[str]:
    """The journal's camera looks, as their text (``camera sees the board ...``)."""
    with contextlib.closing(Journal.open(rig.journal_path, readonly=True)) as j:
        return [str(e.payload["text"]) for e in j.entries()
                if e.kind is EntryKind.DEVICE_EVENT
                and str(e.payload.get("text", "")).startswith("camera sees the board")]


async def _journaled(rig: SimRig, text: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while text not in _camera_boards(rig):
        assert time.monotonic() < deadline, (text, _camera_boards(rig)[-5:])
        await asyncio.sleep(0.1)


def _children(pid: int) -> list[str]:
    """Command lines of the child processes of ``pid`` (Linux ``/proc``)."""
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            with contextlib.suppress(OSError):
                out.append(Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ")
                           .decode(errors="replace"))
    return out


async def _deal_board(d: DealerSession, cards: int) -> None:
    """Step the hand (seat 1 folds, the others check or call) until ``cards`` are on the board."""
    laid = 0
    for _ in range(200):
        if laid == cards:
            return
        laid += d.step_now.get("kind") == "board"
        await d.step(fold_seat_1)
    raise AssertionError(f"{laid} board cards after 200 steps; prompt {d.prompt}")


def test_a_camera_source_in_its_own_process_reads_the_board_of_a_hand(tmp_path: Path) -> None:
    rig = e2e_rig(tmp_path, camera_level="easy")
    # 5 fps against the source's 10 reads a second: the stream never queues up frames
    stream = MjpegStream(rig.frames_path, fps=5.0)
    try:
        url = stream.start()
        config = rig.config_path.read_text()
        sim_camera = f'camera = "sim://camera?frames={rig.frames_path}"'
        assert sim_camera in config
        rig.config_path.write_text(config.replace(sim_camera, f'camera = "camera://?url={url}"'))
        rig.start_daemon()
        assert rig.process is not None
        daemon_pid = rig.process.pid

        async def main() -> None:
            async with dealing(rig) as d:
                await seat_three(d)
                await d.wait(lambda: d.prompt["step"]["kind"] == "start_hand")
                # the empty board, seen through the child process before the hand
                await _journaled(rig, "camera sees the board -- -- -- -- --")
                assert any("spawn_main" in c for c in _children(daemon_pid))
                await d.step()
                await _deal_board(d, 3)
                await _journaled(rig, "camera sees the board 9s Qc Jd -- --")
                await _deal_board(d, 2)
                await _journaled(rig, "camera sees the board 9s Qc Jd 5s 8d")
                await d.play_until(lambda s: s["kind"] == "start_hand", fold_seat_1)
                status = (await d.ok("status")).result
                # the camera never read another card than the shoe dealt (a camera slowed down
                # past the daemon's lag limit by a busy machine may still be judged late:
                # ``board_missing`` depends on the machine, not on what was read)
                kinds = [i["kind"] for i in status["irregularities"]]
                assert set(kinds) <= {"board_missing"}, status["irregularities"]
                camera = status["device_health"]["camera"]
                assert camera["link"] == "ok" and camera["frames"] >= 3, camera

        arun(main(), timeout=4 * TIMEOUT)
        assert rig.terminate() == 0
    finally:
        rig.stop()
        stream.close()
    assert stream.sent > 0
