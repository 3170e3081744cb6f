"""The vision benchmark's counts: one method's readings scored against the scenes' truth.

Counted per slot whose truth is a visible card: correct, uncertain (uncertain / occluded /
empty reported) and wrong (another card reported with confidence); a card reported on an
empty slot, or a different card on an occluded one, also counts as wrong. Beside them, the
per-frame times (:class:`Counts`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import cv2

from benchmarks.vision_scenes import Image
from hardware.sim import scene as S
from table_controller.engine.cards import Card


@dataclass
class Counts:
    cards: int = 0
    correct: int = 0
    uncertain: int = 0
    wrong: int = 0
    empty_slots: int = 0
    empty_read: int = 0
    occluded_slots: int = 0
    boards: int = 0
    boards_all_correct: int = 0
    ms: list[float] = field(default_factory=list)
    calibration_failures: list[str] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    #: Per frame read: CPU and wall time of ``cv2.imdecode`` of the frame as JPEG q90 (the
    #: reading is of the rendered frame itself, as always; this is the decode a camera's
    #: MJPEG frame adds).
    decode_cpu_ms: list[float] = field(default_factory=list)
    decode_ms: list[float] = field(default_factory=list)


def _time_decode(image: Image, c: Counts) -> None:
    """Time ``cv2.imdecode`` of ``image`` encoded as JPEG q90 (as a camera's MJPEG frame)."""
    blob = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])[1]
    t0, c0 = time.perf_counter(), time.thread_time()
    cv2.imdecode(blob, cv2.IMREAD_COLOR)
    c.decode_cpu_ms.append((time.thread_time() - c0) * 1000)
    c.decode_ms.append((time.perf_counter() - t0) * 1000)


def _score(truth: tuple[S.SlotTruth, ...], cards: list[tuple[str, Card | None]], c: Counts) -> None:
    c.boards += 1
    all_ok = True
    for t, (status, card) in zip(truth, cards, strict=True):
        if t.status == "card":
            c.cards += 1
            if status == "card" and card == t.card:
                c.correct += 1
            elif status == "card":
                c.wrong += 1
                all_ok = False
            else:
                c.uncertain += 1
                all_ok = False
        elif t.status == "empty":
            c.empty_slots += 1
            if status == "card":
                c.wrong += 1
                all_ok = False
            elif status == "empty":
                c.empty_read += 1
        else:
            c.occluded_slots += 1
            if status == "card" and card != t.card:
                c.wrong += 1
                all_ok = False
    c.boards_all_correct += all_ok
