"""Straight card edges in a foreground mask: run ends along rows and robust line fits.

Rules this module keeps:

1. A run is the stretch of foreground through a seed column, one per row of a band.
2. A line is fitted only where most run ends lie on it; two edges mixed half and half give none.
3. A card's top and bottom edges span its width where they run straight (:func:`span_centre`);
   a card turned far is fitted on each edge's straight stretch, off its corners
   (:func:`straight_ends`).
4. Next to a located neighbour cut out of the mask, only run ends with felt beyond are a
   card's own edge (:func:`cut_side`); an edge along the felt's print is rebuilt from the
   clear one (:func:`clear_pair`); run ends on the print are left out of a fit when enough
   are clear (:func:`fit_clear_of_print`).
5. A card's four edges share one angle, fitted on their clear ends together
   (:func:`shared_slope`, :func:`refit_on_shared_slope`); a side edge that is a merged
   neighbour's far side is not one of them (:func:`neighbours_side`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from hardware.camera.feltprint import PRINT_CLEAR_FRACTION, PRINT_ON_EDGE
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
    rows = np.flatnonzero(band[:, seed])
    if rows.size == 0:
        empty = np.zeros(0)
        return empty, empty, empty
    # Felt (0) to the left of the seed, nearest first, and to its right: the first felt pixel
    # each way ends the run (none: the run reaches the band's edge).
    felt = band[rows] == 0
    left_part = felt[:, seed::-1]
    to_left = np.where(left_part.any(axis=1), left_part.argmax(axis=1), seed + 1)
    right_part = felt[:, seed:]
    to_right = np.where(right_part.any(axis=1), right_part.argmax(axis=1), right_part.shape[1])
    start = seed - to_left + 1
    end = seed + to_right
    return rows.astype(np.float64), start.astype(np.float64), end.astype(np.float64)


#: A run's first pixel and its end (:func:`run_ends`: last pixel + 1) both lie half a pixel
#: past the edge they stand for: with pixel centres at whole coordinates (as ``warpPerspective``
#: and ``warpAffine`` place them), the edge between felt and card lies at ``first - 0.5`` and
#: at ``end - 0.5``. Edges fitted on run ends put a card this much right of and below its place
#: (rendered scenes: 0.5-0.8 canonical px, the face patch cut that far off with it).
RUN_END_PX = 0.5


#: A card's rounded corner: its radius as a share of the card's width (the face patch's mask,
#: ``facebank.PATCH_MASK``, takes the same), and the canonical px a located edge and the 3x3
#: blur add to it.
CORNER_SHARE = 0.09
CORNER_MARGIN_PX = 1.5


def corner_px(width: float) -> float:
    """Return how far (canonical px) from a card's corner its edges run straight."""
    return CORNER_SHARE * width + CORNER_MARGIN_PX


def straight_ends(
    along: FloatArray, first: FloatArray, second: FloatArray, centre: float, offset: float,
    half: float, slope: float,
) -> tuple[tuple[FloatArray, FloatArray], tuple[FloatArray, FloatArray]]:
    """Keep of two opposite edges' run ends those on each edge's straight stretch.

    ``first`` and ``second`` are the run ends at ``along`` (rows for the side edges, columns
    for the top and bottom). On a card turned by ``slope`` (tan of its angle; 0: not known,
    all kept) each edge's middle lies ``offset * sin`` before (the first) or after (the second)
    ``centre`` along that axis, and its straight part ``half * cos`` either side of the middle.
    Ends beyond it lie on the rounded corners, which bend away from the edge's line: at 15-25
    degrees the band through the card's middle reaches one corner of each edge, and a fit on
    all its ends came out 0.4-0.5 degrees nearer square (rendered askew scenes). An edge left
    with fewer than 8 ends keeps them all.
    """
    if slope == 0.0:
        return (along, first), (along, second)
    cos = 1.0 / float(np.sqrt(1.0 + slope * slope))
    sin = slope * cos
    out = []
    for ends, sign in ((first, -1.0), (second, 1.0)):
        keep = np.abs(along - (centre + sign * offset * sin)) <= half * cos
        n = int(np.count_nonzero(keep))
        out.append((along, ends) if n == along.size or n < 8 else (along[keep], ends[keep]))
    return out[0], out[1]


#: What a card's rounded corners take off the straight stretch of its top and bottom edges
#: (canonical px, both ends together; measured on located cards, rendered medium and hard).
CORNER_ALLOWANCE_PX = 1.5


def span_centre(
    fg: Image, tfit: tuple[float, float], bfit: tuple[float, float],
    cx: float, cy: float, cw: float, tolerance: float,
) -> float | None:
    """Return the column of the card's centre from where its top and bottom edges run straight.

    Along each fitted edge, the columns whose run ends lie on it (1.5 px) next to column
    ``cx`` are the edge's visible stretch; the two stretches, taken along the card's width,
    must together span the card's width ``cw`` (within ``tolerance`` of it, the rounded
    corners allowed for). Returns the centre's column, or None when they do not.
    """
    h, w = fg.shape
    c0, c1 = max(0, int(cx - 0.8 * cw)), min(w, int(cx + 0.8 * cw) + 1)
    seed_row = round(cy)
    if not 0 <= seed_row < h or not c0 <= round(cx) < c1:
        return None
    cols, top, bottom = run_ends(np.ascontiguousarray(fg[:, c0:c1].T), seed_row)
    if cols.size == 0:
        return None
    cols += c0
    slope = (tfit[0] + bfit[0]) / 2
    cos = 1 / float(np.sqrt(1 + slope**2))
    lo, hi = np.inf, -np.inf
    for fit, ends in ((tfit, top), (bfit, bottom)):
        on = np.abs(ends - (fit[0] * cols + fit[1])) <= 1.5
        at = int(np.searchsorted(cols, round(cx)))
        if at >= cols.size or cols[at] != round(cx) or not on[at]:
            return None
        # The stretch of consecutive columns on the edge through ``cx``.
        first = last = at
        while first > 0 and on[first - 1] and cols[first] - cols[first - 1] == 1:
            first -= 1
        while last < cols.size - 1 and on[last + 1] and cols[last + 1] - cols[last] == 1:
            last += 1
        ys = fit[0] * cols[[first, last]] + fit[1]
        # Along the card's width from (cx, cy): u = (dx + slope * dy) * cos.
        u = ((cols[[first, last]] - cx) + slope * (ys - cy)) * cos
        lo, hi = min(lo, float(u[0]) - 0.5), max(hi, float(u[1]) + 0.5)
    span = hi - lo + CORNER_ALLOWANCE_PX
    if abs(span - cw) > tolerance * cw:
        return None
    return cx + (lo + hi) / 2 / cos


def card_columns_centre(
    cols: Image, height: float, seed: tuple[float, float], x0: int, least: float
) -> tuple[float, float] | None:
    """Return the centre of the foreground in the columns of ``cols`` no taller than a card.

    ``cols`` is a slot's columns of the mask (its first column is ``x0`` of the view); a
    column whose foreground reaches the view's top or bottom, or spans more than 1.15 times the
    card's ``height``, holds something else (a hand, a forearm). None when those columns hold
    fewer than ``least`` foreground pixels (no whole card beside the hand: the card is under
    it), or the centre is the ``seed`` already tried (within 3 px).
    """
    on = cols > 0
    h = on.shape[0]
    filled = on.any(axis=0)
    top = np.argmax(on, axis=0)
    bottom = h - 1 - np.argmax(on[::-1], axis=0)
    card = filled & (top > 0) & (bottom < h - 1) & (bottom - top <= 1.15 * height)
    if not card.any() or card.all():
        return None
    ys, xs = np.nonzero(on[:, card])
    if xs.size < max(least, 1):
        return None
    centre = (float(np.nonzero(card)[0][xs].mean()) + x0, float(ys.mean()))
    if abs(centre[0] - seed[0]) <= 3 and abs(centre[1] - seed[1]) <= 3:
        return None
    return centre


#: A side edge running partly into a located neighbour's cut is fitted on its other ends (those
#: with felt beyond) when at least this share of its ends, and 8, have felt beyond.
CUT_CLEAR_FRACTION = 0.25


def cut_side(
    rows: FloatArray, ends: FloatArray, on_cut: npt.NDArray[np.bool_], inner: npt.NDArray[np.bool_],
    fit: tuple[float, float] | None,
) -> tuple[tuple[float, float] | None, tuple[float, float] | None]:
    """Return a side's edge and its cut line, given which run ends lie against a neighbour's cut.

    A side whose ends mostly lie against the cut runs on under the neighbour (a cut line, no
    edge), unless enough of its other ends (``inner``: not at the view's border) have felt
    beyond and lie on one line: a neighbour lying at another angle covers only part of the
    side, and those ends are the card's own edge. The same fit replaces a side's ``fit`` that
    failed because some of its ends lie against the cut.
    """
    clear = ~on_cut & inner
    n_clear = int(np.count_nonzero(clear))
    own = (fit_line(rows[clear], ends[clear])
           if n_clear >= max(8, CUT_CLEAR_FRACTION * ends.size) and n_clear < ends.size
           else None)
    if np.mean(on_cut) > 0.5:
        return (own, None) if own is not None else (None, fit_line(rows, ends))
    return (fit if fit is not None else own), None


def clear_pair(
    first: tuple[float, float] | None, second: tuple[float, float] | None,
    first_print: float, second_print: float, at: float, size: float, tol: float,
) -> tuple[tuple[float, float] | None, tuple[float, float] | None]:
    """Top and bottom edges, one of them rebuilt from the other when it lies on the print.

    When the two do not agree (slope, or the card's height ``size`` at column ``at``) and
    only one lies along the felt's print (:data:`PRINT_ON_EDGE` of its ends), that one is
    replaced by the clear edge moved by the card's height. ``tol``: the share of the card's
    height the two may differ by (:attr:`RecognizerParams.size_tolerance`).
    """
    if first is not None and second is not None:
        slope = (first[0] + second[0]) / 2
        height = ((second[0] - first[0]) * at + second[1] - first[1]) / np.sqrt(1 + slope**2)
        if abs(first[0] - second[0]) <= 0.06 and abs(height - size) <= tol * size:
            return first, second
    if first_print >= PRINT_ON_EDGE > second_print and second is not None:
        a, b = second
        return (a, b - size * float(np.sqrt(1 + a * a))), second
    if second_print >= PRINT_ON_EDGE > first_print and first is not None:
        a, b = first
        return first, (a, b + size * float(np.sqrt(1 + a * a)))
    return first, second


def neighbours_side(
    lfit: tuple[float, float], rfit: tuple[float, float], slope: float, row: float,
    cw: float, tol: float, inside: Callable[[float], bool],
) -> int:
    """Which of two side fits is a neighbour's far side: -1 the left, 1 the right, 0 neither.

    A card overlapping its neighbour (or lying under it) merges with it in the mask: the runs
    through the card's middle end on its own side edge and on the neighbour's far one, more
    than a card's width (``cw``, ``tol`` of it) apart at ``row``. Where exactly one of the two
    places the card's centre ``inside`` its slot, the other is the neighbour's, and the
    neighbour lies at its own angle: fitted on one slope with the card's edges it turned the
    card towards it (1.7 degrees on a rendered pair 3.8 and 7.1 degrees off, benchmark run 74).
    """
    cos = 1.0 / float(np.sqrt(1.0 + slope * slope))
    lx, rx = lfit[0] * row + lfit[1], rfit[0] * row + rfit[1]
    if (rx - lx) * cos - cw <= tol * cw:
        return 0
    half = cw / cos / 2
    from_left, from_right = inside(lx + half), inside(rx - half)
    if from_left == from_right:
        return 0
    return 1 if from_left else -1


#: A fitted edge's run ends within this many px of its line are its own (as :func:`fit_line`).
EDGE_INLIER_PX = 1.5


def shared_slope(
    edges: list[tuple[FloatArray, FloatArray, tuple[float, float], float, npt.NDArray[np.bool_]]],
) -> tuple[float, list[float]] | None:
    """Fit one slope to a card's edges together; return it and each edge's intercept on it.

    A card is a rectangle: its four edges share one angle. Each edge is ``(along, ends, fit,
    sign, clear)``: the run ends its own ``fit`` was made on (columns and rows of the top and
    bottom edges, ``sign`` 1; rows and columns of the side edges, ``sign`` -1, whose
    ``x = a*y + b`` slope is minus the card's), and which of them lie clear of the felt's print.
    The slope is the least-squares one over every edge's clear ends on its line
    (:data:`EDGE_INLIER_PX`), each about its own mean: a long side weighs by its length, where
    the top and bottom edges alone span half the card's width, and ends along a printed line
    (square to the board) do not pull a turned card's angle towards square. An edge with fewer
    than 8 clear ends on its line gives no slope. Each edge's intercept is taken on the
    shared slope through the mean of the ends it gave (an edge that gave none: of its ends on
    its line). None when no edge gives a slope.
    """
    num = den = 0.0
    means: list[tuple[float, float, float]] = []
    for along, ends, (a, b), sign, clear in edges:
        on = np.abs(ends - (a * along + b)) <= EDGE_INLIER_PX
        own = on & clear
        k = int(np.count_nonzero(own))
        if k < 8:
            n = int(np.count_nonzero(on))
            u, v = along[on], ends[on]
            means.append((float(u.sum()) / max(n, 1), float(v.sum()) / max(n, 1), sign))
            continue
        u, v = along[own], ends[own]
        mu, mv = float(u.sum()) / k, float(v.sum()) / k
        means.append((mu, mv, sign))
        du = u - mu
        num += sign * float(du @ (v - mv))
        den += float(du @ du)
    if den <= 0.0:
        return None
    slope = num / den
    return slope, [mv - sign * slope * mu for mu, mv, sign in means]


def _on_print(
    printed: Image, rows: npt.NDArray[np.intp], cols: npt.NDArray[np.intp]
) -> npt.NDArray[np.bool_]:
    """Whether each pixel lies on the felt's ``printed`` mask (``np.clip`` costs more)."""
    h, w = printed.shape
    return np.asarray(printed[np.minimum(np.maximum(rows, 0), h - 1),
                              np.minimum(np.maximum(cols, 0), w - 1)] > 0)


def refit_on_shared_slope(
    edges: list[tuple[tuple[float, float] | None, list[npt.NDArray[Any]], float]],
    ch: float,
) -> list[tuple[float, float] | None]:
    """Refit the edges (top, bottom, left, right) on one slope (:func:`shared_slope`).

    Each is ``(fit, [along, ends, clear] or [], sign)``: an edge with no ends of its own
    (rebuilt from the other, against a cut) or no fit keeps its fit; a top or bottom edge
    rebuilt from the other is rebuilt again on the shared slope, ``ch`` away. Unchanged
    when fewer than two edges have their own ends, or none has 8 clear ends on its line.
    """
    own = [(pts[0], pts[1], fit, sign, pts[2]) for fit, pts, sign in edges
           if fit is not None and pts]
    if len(own) < 2 or not (edges[0][1] or edges[1][1]):
        return [fit for fit, _, _ in edges]
    found = shared_slope(own)
    if found is None:
        return [fit for fit, _, _ in edges]
    a, intercepts = found
    out: list[tuple[float, float] | None] = []
    it = iter(intercepts)
    for fit, pts, sign in edges:
        out.append(None if fit is None else (sign * a, next(it)) if pts else fit)
    rise = ch * float(np.sqrt(1 + a * a))
    top, bottom = out[0], out[1]
    if not edges[0][1] and bottom is not None:
        out[0] = (a, bottom[1] - rise)
    elif not edges[1][1] and top is not None:
        out[1] = (a, top[1] + rise)
    return out


def fit_clear_of_print(
    printed: Image | None, along: FloatArray, ends: FloatArray,
    out_y: npt.NDArray[np.intp], out_x: npt.NDArray[np.intp],
    in_y: npt.NDArray[np.intp], in_x: npt.NDArray[np.intp],
) -> tuple[tuple[float, float] | None, float, FloatArray, FloatArray,
           npt.NDArray[np.bool_]]:
    """:func:`fit_line` on run ends, leaving out those on the print.

    ``out_*`` index the canonical pixel just past each end, ``in_*`` the last one of the
    run. Where a card edge crosses a printed line, the run may end short of the edge or
    run on along the line; when enough of the edge is clear of the print
    (:data:`PRINT_CLEAR_FRACTION`), only the clear ends are fitted. Returns the fit, the
    share of the ends that lie on the print, the ends fitted (along, across) and which of
    them are clear of the print.
    """
    if printed is None:
        return fit_line(along, ends), 0.0, along, ends, np.ones(ends.size, np.bool_)
    on_print = _on_print(printed, out_y, out_x) | _on_print(printed, in_y, in_x)
    clear = ~on_print
    n_clear = int(np.count_nonzero(clear))
    share = 1.0 - n_clear / max(ends.size, 1)
    if n_clear == ends.size or n_clear < max(8, PRINT_CLEAR_FRACTION * ends.size):
        return fit_line(along, ends), share, along, ends, clear
    return (fit_line(along[clear], ends[clear]), share, along[clear], ends[clear],
            clear[clear])
