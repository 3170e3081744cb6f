"""The vision benchmark's stream: a camera delivering frames continuously, decoded and read.

``BENCH_VISION_STREAM=N`` in :mod:`benchmarks.bench_vision` runs :func:`run_stream`
(``BENCH_VISION_STREAM_COLD``, ``BENCH_VISION_MATCH_UNTIL_MS``: see there).
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

import cv2
import numpy as np

from benchmarks.vision_counts import Counts, _score
from benchmarks.vision_scenes import deck_folder, stream_scenes
from calibration.camera import calibrate_camera
from calibration.faces import load_face_folder
from hardware.sim import scene as S

#: ``BENCH_VISION_STREAM_COLD=1``: the stream's recogniser starts without its warm-up (as before
#: benchmark run 86): the frames not read again do it a few units at a time, and the first card
#: read pays for the deck's inks. By default it is warmed before the first frame, as
#: :meth:`~hardware.camera.source.FrameBoardSource.open` does.
STREAM_COLD = os.environ.get("BENCH_VISION_STREAM_COLD", "") == "1"


def run_stream(frames: int, seed: int, fps: float = 10.0, design: str = "kennard",
               level: S.Level = S.Level.MEDIUM) -> list[str]:
    """A camera delivering frames continuously: decode (JPEG q90 as MJPEG, and PNG) + read.

    Frames are rendered first (:func:`stream_scenes`, one calibrated camera), encoded, then fed
    in order at ``fps`` on the time line to one recogniser per encoding: per frame the CPU time
    of ``cv2.imdecode`` and of ``BoardRecognizer.read``, whether the two fit in one frame
    interval, how many cards were matched afresh and how many kept their earlier reading
    (pixels unchanged), and the reads scored against the truth.
    """
    faces = load_face_folder(deck_folder(design))
    rng = np.random.default_rng(seed)
    cam = S.make_camera(rng, level, S.geometry_for_faces(faces))
    calib = S.render(faces, [], cam, rng, S.Perturbations(noise_sigma=2.0, jpeg_quality=90))
    profile = calibrate_camera(calib.image, faces)
    scenes = stream_scenes(faces, rng, level, cam, frames)
    name = Path(design).name or design
    out = []
    for kind, params in (("jpeg q90", [cv2.IMWRITE_JPEG_QUALITY, 90]), ("png", [])):
        recognizer = profile.recognizer()
        if not STREAM_COLD:
            recognizer.warm_up()  # as a board source does when opened, before its first frame
        bound = os.environ.get("BENCH_VISION_MATCH_UNTIL_MS")
        recognizer.match_until_s = None if bound is None else float(bound) / 1000
        ext = ".jpg" if kind.startswith("jpeg") else ".png"
        blobs = [cv2.imencode(ext, sc.image, params)[1] for sc in scenes]
        dec, rd, late = [], [], 0
        wall: list[float] = []
        # per frame: how many cards were matched afresh (0: every card kept its reading)
        matched: list[int] = []
        counts = Counts()
        for blob, sc in zip(blobs, scenes, strict=True):
            before = getattr(recognizer, "identified", 0)
            skipped = getattr(recognizer, "unchanged_frames", 0)
            w0, c0 = time.perf_counter(), time.thread_time()
            frame = np.asarray(cv2.imdecode(blob, cv2.IMREAD_COLOR), np.uint8)
            c1 = time.thread_time()
            reading = recognizer.read(frame)
            c2 = time.thread_time()
            wall.append((time.perf_counter() - w0) * 1000)
            dec.append((c1 - c0) * 1000)
            rd.append((c2 - c1) * 1000)
            # -1: the whole board unchanged, not read again
            same = getattr(recognizer, "unchanged_frames", 0) > skipped
            matched.append(-1 if same else getattr(recognizer, "identified", 0) - before)
            late += (c2 - c0) > 1.0 / fps
            _score(sc.truth, [(r.status, r.card) for r in reading.slots], counts)
        total = [a + b for a, b in zip(dec, rd, strict=True)]
        out.append(f"stream {name} {level.value} {kind} at {fps:g} fps, {frames} frames: decode "
                   f"{statistics.median(dec):.1f} ms, read {statistics.median(rd):.1f} ms "
                   f"(mean {statistics.fmean(rd):.1f}), both {statistics.median(total):.1f} ms "
                   f"median / {statistics.fmean(total):.1f} mean / "
                   f"{np.percentile(total, 99):.1f} ms p99 / {max(total):.1f} ms max CPU "
                   f"(wall {statistics.median(wall):.1f} median / "
                   f"{np.percentile(wall, 99):.1f} p99); "
                   f"{late} frames over the "
                   f"{1000 / fps:.0f} ms interval; cards matched "
                   f"{getattr(recognizer, 'identified', '-')}, kept "
                   f"{getattr(recognizer, 'reused', '-')} (not located again "
                   f"{getattr(recognizer, 'not_located', '-')}; put off to the next frame "
                   f"{getattr(recognizer, 'put_off', '-')}); frames whose whole board "
                   f"was unchanged (not read again) {matched.count(-1)}; cards {counts.cards}: "
                   f"{counts.correct} read, {counts.uncertain} not, {counts.wrong} wrong")
        for k in sorted(set(matched)):
            cost = [t for t, m in zip(total, matched, strict=True) if m == k]
            what = ("the whole board unchanged (not read again)" if k < 0 else
                    f"read, {k} card(s) matched afresh")
            out.append(f"  {kind}, frames {what}: {len(cost)}, "
                       f"decode + read {statistics.median(cost):.1f} ms median / "
                       f"{np.percentile(cost, 99):.1f} p99 / {max(cost):.1f} max CPU")
    return out
