"""Straight card edges in a foreground mask: run ends along rows and robust line fits.

Rules this module keeps:

1. A run is the stretch of foreground through a seed column, one per row of a band.
2. A line is fitted only where most run ends lie on it; two edges mixed half and half give none.
"""

from __future__ import annotations

import numpy as np

from hardware.camera.readings import FloatArray, Image


def _median(values: FloatArray) -> float:
    """Median of a short array (``np.median`` costs more in checks than in sorting here)."""
    ordered = values.copy()
    ordered.sort()
    return float(ordered[values.size // 2])


def fit_line(ys: FloatArray, xs: FloatArray) -> tuple[float, float] | None:
    """Fit ``x = a*y + b`` to edge points; None unless most points lie on one straight line.

    The first estimate is robust (median of slopes between points half the run apart), so a
    rounded corner or a neighbour at one end of the run does not tilt it; then the points within
    1.5 px are refitted. Two edges mixed half and half give no majority and are refused.
    """
    n = ys.size
    if n < 8:
        return None
    half = n // 2
    dy = ys[half:] - ys[: n - half]
    a0 = _median((xs[half:] - xs[: n - half]) / np.where(dy == 0, 1, dy))
    b0 = _median(xs - a0 * ys)
    keep = np.abs(xs - (a0 * ys + b0)) <= 1.5
    k = int(np.count_nonzero(keep))
    if k < max(8, 0.6 * n):
        return None
    y, x = ys[keep], xs[keep]
    # sum / count: what ``mean`` computes, without its wrapper's cost (called a few hundred
    # times a frame)
    my, mx = float(y.sum()) / k, float(x.sum()) / k
    vy = y - my
    a = float(vy @ (x - mx)) / max(float(vy @ vy), 1e-9)
    return a, mx - a * my


def run_ends(band: Image, seed: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    """For each row of ``band`` with a foreground pixel at ``seed``: start and end of that run.

    Returns (row indices, first column, last column + 1). A run reaching the band's edge ends at
    the edge (such ends are marked by the caller as not genuine).
    """
    on = band[:, seed] > 0
    rows = np.nonzero(on)[0]
    if rows.size == 0:
        empty = np.zeros(0)
        return empty, empty, empty
    sub = band[rows] > 0
    left_part = sub[:, : seed + 1][:, ::-1]
    to_left = np.where(
        (~left_part).any(axis=1), np.argmax(~left_part, axis=1), left_part.shape[1]
    )
    right_part = sub[:, seed:]
    to_right = np.where(
        (~right_part).any(axis=1), np.argmax(~right_part, axis=1), right_part.shape[1]
    )
    start = seed - to_left + 1
    end = seed + to_right
    return rows.astype(np.float64), start.astype(np.float64), end.astype(np.float64)
