"""The vision benchmark's report: its table rows, and the counts pooled against the targets."""

from __future__ import annotations

import statistics

import numpy as np

from benchmarks.vision_counts import Counts
from benchmarks.vision_scenes import deck_folder
from calibration.faces import load_face_folder
from hardware.camera.geometry import card_size_name
from hardware.sim import scene as S

#: The issue's targets: share of visible cards read per level (0 wrong reads everywhere), and CPU
#: per 1080p frame on one core, decode included.
TARGET_READ = {"medium": 0.999, "hard": 0.99}
TARGET_FRAME_CPU_MS = 20.0


class Pool:
    """Counts pooled per (situation, card size, level) across designs, for the targets table.

    "met" is the count's own share against the target; the Wilson 95% lower bound beside it says
    what the count can show (about 3,000 cards all read are needed to show 99.9%).
    """

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str, str], Counts] = {}

    def add(self, situation: str, size: str, level: str, c: Counts) -> None:
        into = self.counts.setdefault((situation, size, level), Counts())
        for name in ("cards", "correct", "uncertain", "wrong", "boards", "boards_all_correct"):
            setattr(into, name, getattr(into, name) + getattr(c, name))
        into.cpu_ms += c.cpu_ms
        into.decode_cpu_ms += c.decode_cpu_ms

    def table(self) -> list[str]:
        """Rows: cards read against the level's target, wrong reads, decode + read CPU."""
        out = ["| situation | card size | level | cards | read | 95% lower bound | target | met "
               "| wrong | decode + read CPU ms: median / p99 |",
               "|---|---|---|---|---|---|---|---|---|---|"]
        for (situation, size, level), c in sorted(self.counts.items()):
            target = TARGET_READ.get(level)
            met = ("-" if target is None or not c.cards else
                   "yes" if c.correct >= target * c.cards and not c.wrong else "no")
            both = [a + b for a, b in zip(c.decode_cpu_ms, c.cpu_ms, strict=True)]
            cpu = (f"{statistics.median(both):.1f} / {np.percentile(both, 99):.1f}" if both
                   else "-")
            out.append(f"| {situation} | {size} | {level} | {c.cards} | {c.correct} "
                       f"({_pct(c.correct, c.cards)}) | {_wilson_low(c.correct, c.cards)} | "
                       f"{'-' if target is None else f'{100 * target:g}%'} | {met} | {c.wrong} "
                       f"| {cpu} |")
        every = [a + b for c in self.counts.values()
                 for a, b in zip(c.decode_cpu_ms, c.cpu_ms, strict=True)]
        if every:
            median = statistics.median(every)
            out.append("")
            out.append(f"decode + read CPU per frame over every row: median {median:.1f} ms, "
                       f"p99 {np.percentile(every, 99):.1f} ms (target {TARGET_FRAME_CPU_MS:g} "
                       f"ms: {'met' if median <= TARGET_FRAME_CPU_MS else 'not met'} at the "
                       "median, at this run's load)")
        return out


def _wilson_low(n: int, d: int, z: float = 1.96) -> str:
    """The Wilson score interval's lower end for ``n`` of ``d`` (what the count can show)."""
    if not d:
        return "-"
    p = n / d
    centre = p + z * z / (2 * d)
    spread = z * float(np.sqrt(p * (1 - p) / d + z * z / (4 * d * d)))
    return f"{max(0.0, 100 * (centre - spread) / (1 + z * z / d)):.2f}%"


def _pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:.2f}%" if d else "-"


def _size_name(design: str) -> str:
    faces = load_face_folder(deck_folder(design))
    return card_size_name(S.geometry_for_faces(faces).card_mm)


def _row(name: str, design: str, level: str, c: Counts) -> str:
    return (f"| {name} | {design} | {level} | {c.cards} | {c.correct} ({_pct(c.correct, c.cards)})"
            f" | {c.uncertain} | {c.wrong} | {_pct(c.boards_all_correct, c.boards)} | "
            f"{statistics.median(c.ms):.1f} / {statistics.median(c.cpu_ms):.1f} / "
            f"{min(c.ms):.1f} | {np.percentile(c.cpu_ms, 99):.1f} / {max(c.cpu_ms):.1f} |"
            f"{_decode_cells(c)}")


def _decode_cells(c: Counts) -> str:
    """The JPEG decode columns: decode CPU, and decode + read CPU and wall (median / p99)."""
    if not c.decode_cpu_ms:
        return " - | - | - |"
    both = [a + b for a, b in zip(c.decode_cpu_ms, c.cpu_ms, strict=True)]
    both_wall = [a + b for a, b in zip(c.decode_ms, c.ms, strict=True)]
    return (f" {statistics.median(c.decode_cpu_ms):.1f} / {np.percentile(c.decode_cpu_ms, 99):.1f}"
            f" | {statistics.median(both):.1f} / {np.percentile(both, 99):.1f} | "
            f"{statistics.median(both_wall):.1f} / {np.percentile(both_wall, 99):.1f} |")
