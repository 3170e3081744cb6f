"""The daemon's serial path beside a board camera at 10 fps: recogniser in a thread or a process.

The serial path as the daemon runs it: a real ``SerialShoe`` on a pty, read by
``AsyncDevice`` in ``reader`` mode (``loop.add_reader``), the ``CardDrawn`` event taken by a
listener (no hand-off to a task); latency from just before a CARD_DRAWN frame is written to the
pty's master until the listener has the event, one card every ``BENCH_CAMERA_GAP`` seconds
(default 0.02).

Beside it, in the same event loop, the daemon's camera loop (``DeviceHub.camera_loop``'s shape:
every 50 ms ``poll(now)`` of the board source through ``asyncio.to_thread``) over a ``camera:``
board source reading an MJPEG video of hands dealt (:func:`benchmarks.bench_vision.stream_scenes`,
1920x1080, JPEG q90, decoded by ``cv2.VideoCapture`` as a V4L2 MJPEG camera's frames are), one
frame every 0.1 s (10 fps):

- ``none``: no camera;
- ``thread``: the board source in the daemon's process (``process=0``; a worker thread
  recognises, holding the GIL for most of each frame);
- ``process``: the board source in a process of its own (the default for ``camera:``;
  :class:`hardware.camera.worker.ProcessBoardSource`), at its default priority, ``nice``
  :data:`~hardware.camera.worker.CHILD_NICENESS` below this process;
- ``process-nice0``: the same at this process's own priority (``nice=0``; as before the
  child's priority was lowered).

Each mode runs ``BENCH_CAMERA_ROUNDS`` times (default twice), interleaved (none, thread,
process, process-nice0, none, ...), so the shared machine's load shows as the spread between the
runs of a mode; ``BENCH_CAMERA_MODES`` (comma-separated) picks the modes. Reported per run: p50,
p90, p99 and max latency, the cards over 1 ms, the frames the camera read (and per second of
the run), the CPU time of this process (all threads) and of the recogniser's process per
second of the run, the recogniser process's CPU per frame read (its ``VideoCapture`` decode,
the read and the stabiliser: the whole child, user + system), and the load average at its end.

Environment: ``BENCH_CAMERA_SAMPLES`` (cards per run, default 1500), ``BENCH_CAMERA_GAP``,
``BENCH_CAMERA_FRAMES`` (distinct video frames, default 80; the video repeats them 4 times),
``BENCH_CAMERA_DECK`` (faces folder, default kennard), ``BENCH_CAMERA_SEED`` (default 1400000).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from benchmarks.bench_vision import deck_folder, stream_scenes
from calibration.camera import CameraProfile, calibrate_camera
from calibration.faces import load_face_folder
from hardware.base import BoardSource, CardDrawn, DeviceEvent, open_board_source
from hardware.camera.onecore import one_core
from hardware.camera.worker import ProcessBoardSource
from hardware.link.aio import AsyncDevice
from hardware.link.protocol import HELLO, MsgType, encode_frame
from hardware.shoe.driver import SerialShoe
from hardware.shoe.protocol import ShoeProtocol, card_drawn_payload
from hardware.sim import scene as S
from hardware.sim.pty import PtyPort
from table_controller.daemon.devices import CAMERA_POLL

UID = "04A1B2C3D4E5F6"
MODES = ("none", "thread", "process", "process-nice0")
WARMUP = 100


def _video(path: Path, frames: int, seed: int, deck: str) -> CameraProfile:
    """Write the stream as an MJPEG AVI (repeated 4 times); return its camera profile."""
    faces = load_face_folder(deck_folder(deck))
    rng = np.random.default_rng(seed)
    cam = S.make_camera(rng, S.Level.MEDIUM, S.geometry_for_faces(faces))
    calib = S.render(faces, [], cam, rng, S.Perturbations(noise_sigma=2.0, jpeg_quality=90))
    profile = calibrate_camera(calib.image, faces)
    scenes = stream_scenes(faces, rng, S.Level.MEDIUM, cam, frames)
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (1920, 1080))
    writer.set(cv2.VIDEOWRITER_PROP_QUALITY, 90)
    for _ in range(4):
        for scene in scenes:
            writer.write(scene.image)
    writer.release()
    return profile


async def _camera_loop(source: BoardSource, stop: asyncio.Event) -> None:
    """The daemon's camera loop: every CAMERA_POLL, the source's poll off the loop."""
    while not stop.is_set():
        await asyncio.sleep(CAMERA_POLL)
        await asyncio.to_thread(source.poll, time.monotonic())


async def _serial_run(samples: int, gap: float, source: BoardSource | None) -> list[float]:
    port = PtyPort()
    dev = SerialShoe(f"serial://{port.link_path}", port.link_path, ShoeProtocol(), kind="shoe")
    dev.open()
    master = port.fileno()
    assert master is not None
    os.write(master, encode_frame(MsgType.HELLO, 0, HELLO.pack(1, 1, 1, 1)))
    adev = AsyncDevice(dev, mode="reader")
    seen: list[float] = []
    arrived = asyncio.Event()

    def listen(event: DeviceEvent) -> None:
        if isinstance(event, CardDrawn):
            seen.append(time.perf_counter())
            arrived.set()

    adev.subscribe(listen)
    stop = asyncio.Event()
    out: list[float] = []
    async with adev:
        camera = asyncio.create_task(_camera_loop(source, stop)) if source else None
        try:
            await asyncio.sleep(0.3)
            for i in range(WARMUP + samples):
                await asyncio.sleep(gap)
                frame = encode_frame(MsgType.CARD_DRAWN, i + 1, card_drawn_payload(UID, i * 7))
                arrived.clear()
                t0 = time.perf_counter()
                os.write(master, frame)
                await arrived.wait()
                if i >= WARMUP:
                    out.append(seen[-1] - t0)
                port.read()
        finally:
            stop.set()
            if camera is not None:
                await camera
    dev.close()
    port.close()
    return out


def _child_cpu(pid: int | None) -> float:
    """CPU seconds (user + system) the process ``pid`` has used so far (0 without one)."""
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _run(mode: str, url: str, profile: CameraProfile, samples: int, gap: float) -> str:
    source: BoardSource | None = None
    if mode != "none":
        extra = {"thread": "&process=0", "process-nice0": "&nice=0"}.get(mode, "")
        source = open_board_source(url + extra, profile=profile)
        source.open()
    pid = source.pid if isinstance(source, ProcessBoardSource) else None
    c0, t0 = time.process_time(), time.monotonic()
    k0 = _child_cpu(pid)
    try:
        lat = asyncio.run(_serial_run(samples, gap, source))
        child_s = _child_cpu(pid) - k0
        child = child_s / (time.monotonic() - t0)
    finally:
        if source is not None:
            source.close()
    elapsed = time.monotonic() - t0
    cpu = (time.process_time() - c0) / elapsed
    frames = source.status().frames if source is not None else 0
    us = sorted(v * 1e6 for v in lat)

    def pct(q: float) -> float:
        return us[min(len(us) - 1, int(q * len(us)))]

    over = sum(v > 1000 for v in us)
    return (f"| {mode} | {len(us)} | {statistics.median(us):.0f} | {pct(0.9):.0f} | "
            f"{pct(0.99):.0f} | {us[-1]:.0f} | {over} | {frames} ({frames / elapsed:.1f}/s) | "
            f"{cpu * 100:.0f}% | {f'{child * 100:.0f}%' if pid else '-'} | "
            f"{f'{child_s * 1e3 / frames:.1f}' if pid and frames else '-'} | "
            f"{os.getloadavg()[0]:.1f} |")


def main() -> None:
    """Measure the three modes twice each and print a Markdown table."""
    one_core()
    samples = int(os.environ.get("BENCH_CAMERA_SAMPLES", "1500"))
    gap = float(os.environ.get("BENCH_CAMERA_GAP", "0.02"))
    frames = int(os.environ.get("BENCH_CAMERA_FRAMES", "80"))
    deck = os.environ.get("BENCH_CAMERA_DECK", "kennard")
    seed = int(os.environ.get("BENCH_CAMERA_SEED", "1400000"))
    rounds = int(os.environ.get("BENCH_CAMERA_ROUNDS", "2"))
    modes = [m for m in os.environ.get("BENCH_CAMERA_MODES", ",".join(MODES)).split(",") if m]
    unknown = sorted(set(modes) - set(MODES))
    if unknown:
        raise SystemExit(f"BENCH_CAMERA_MODES: unknown modes {unknown} ({', '.join(MODES)})")
    with tempfile.TemporaryDirectory() as tmp:
        video = Path(tmp) / "board.avi"
        profile = _video(video, frames, seed, deck)
        # at the video's end: one failed grab, lost, reopened 50 ms later (the video again)
        url = f"camera://{video}?lost_after=1&retry=0.05"
        print(f"serial path beside a camera at 10 fps ({deck}, {frames} frames x 4, MJPEG); "
              f"{samples} cards per run, {gap * 1e3:g} ms apart; load average "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n", flush=True)
        print("| camera | cards | p50 us | p90 us | p99 us | max us | over 1 ms | frames read | "
              "this process's CPU | the recogniser process's CPU | its CPU ms per frame "
              "(decode + read) | load |\n"
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
              flush=True)
        for _ in range(rounds):
            for mode in modes:
                print(_run(mode, url, profile, samples, gap), flush=True)


if __name__ == "__main__":
    main()
