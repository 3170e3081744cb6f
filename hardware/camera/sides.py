"""Whether a located card's side shows its own paper: a hand beside a card is not over it.

Rules this module keeps:

1. Pure: the frame's canonical view (3x3 box-blurred, float BGR) and a card's pose in, a
   verdict out; no state.
2. A card's reference is its own border, along its top and bottom edges (located, so visible):
   the colour of the card's paper under this frame's light, glare and tint, where felt lies
   beyond them (a hand over an edge hides the paper there).
3. A side shows the card when nearly all of the strip just inside it has the paper's colour
   or steps in colour across the edge; a hand or sleeve lying over the side does neither.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

#: Canonical px inside the card's edge the strips are sampled at (about 2 mm; the fitted edge
#: is within a pixel, and the 3x3 blur mixes one more).
STRIP_INSET_PX = 2.5
#: A strip pixel has the paper's colour when no channel differs from the reference by more
#: than this share of the reference's brightest channel, plus :data:`PAPER_NOISE`.
PAPER_TOLERANCE = 0.12
PAPER_NOISE = 10.0
#: Canonical px outside the card's edge the other side of a step is sampled at (the
#: samples of :meth:`~hardware.camera.locator.CardLocator._merged_with_unknown`).
OUTSIDE_PX = 3.0
#: Fewest border samples (of 30) with felt beyond that give the paper's colour.
MIN_BORDER = 6
#: Share of the side strip that must have the paper's colour.
PAPER_SHARE = 0.85


def _samples(
    view: npt.NDArray[np.float32] | npt.NDArray[np.uint8], pts: npt.NDArray[np.float64]
) -> npt.NDArray[np.float32]:
    h, w = view.shape[:2]
    xs = np.clip(np.round(pts[:, 0]).astype(np.intp), 0, w - 1)
    ys = np.clip(np.round(pts[:, 1]).astype(np.intp), 0, h - 1)
    return np.asarray(view[ys, xs], np.float32)


def side_shows_paper(
    view: npt.NDArray[np.float32], fg: npt.NDArray[np.uint8], centre: tuple[float, float],
    angle_deg: float, card_px: tuple[float, float], side: int, reach: float = 0.3,
) -> bool:
    """Whether the card's ``side`` (-1 left, 1 right) shows the card itself, up to its edge.

    Sampled over the middle ``2 * reach`` of the side's height (default 60%): a pixel
    :data:`STRIP_INSET_PX` inside the edge shows the card when it has the paper's colour (the
    median of the strips inside the top and bottom edges, middle 60% of the width, where the
    foreground ``fg`` shows felt beyond the edge; fewer than :data:`MIN_BORDER` such: False),
    or when it differs from the pixel as far outside the edge (:data:`OUTSIDE_PX`): a step of
    colour along the card's edge, a pip printed to the edge against a hand beside it. A hand
    or sleeve over the side shows on both sides of the edge alike and is no paper; a
    neighbour's paper beside ours is.
    """
    cw, ch = card_px
    a = np.deg2rad(angle_deg)
    along = np.array([np.cos(a), np.sin(a)])
    down = np.array([-np.sin(a), np.cos(a)])
    c = np.asarray(centre, np.float64)
    us = np.linspace(-0.3 * cw, 0.3 * cw, 15)
    inner, outer = [], []
    for e in (-1, 1):
        across = c + us[:, None] * along
        inner.append(_samples(view, across + e * (ch / 2 - STRIP_INSET_PX) * down))
        outer.append(_samples(fg[..., None], across + e * (ch / 2 + OUTSIDE_PX) * down)[:, 0])
    # The border only where felt lies beyond the edge: a hand over the edge hides it.
    border = np.concatenate(inner)[np.concatenate(outer) == 0]
    if border.shape[0] < MIN_BORDER:
        return False
    ref = np.median(border, axis=0)
    tol = PAPER_TOLERANCE * float(ref.max()) + PAPER_NOISE
    ts = np.linspace(-reach * ch, reach * ch, 21)
    line = c + ts[:, None] * down
    inside = _samples(view, line + side * (cw / 2 - STRIP_INSET_PX) * along)
    outside = _samples(view, line + side * (cw / 2 + OUTSIDE_PX) * along)
    paper = np.all(np.abs(inside - ref) <= tol, axis=1)
    step = np.any(np.abs(inside - outside) > tol, axis=1)
    return bool(np.mean(paper | step) >= PAPER_SHARE)


#: A side a hand touches is tested for paper over this share either way of its middle (90% of
#: its height: a hand's fingers over a corner lie within it; clear of the rounded corners).
BESIDE_REACH = 0.45


def beside_only(
    view: npt.NDArray[np.float32] | None, fg: npt.NDArray[np.uint8], foreign: npt.NDArray[np.uint8],
    centre: tuple[float, float], angle_deg: float, card_px: tuple[float, float],
) -> bool:
    """Whether the non-card pixels ``foreign`` by a card lie only beside it, not over it.

    Every such pixel lies beyond the card's left or right edge, and each of those sides shows
    the card's own paper up to its edge (:func:`side_shows_paper`) over 90% of its height
    (:data:`BESIDE_REACH`): a hand touching a card's side leaves the whole face to be seen,
    a hand over the side shows there on both sides of the edge alike. A pixel beyond the top
    or bottom edge is not decided (no paper test there): False, as is no pixel or no view.
    """
    ys, xs = np.nonzero(foreign)
    if view is None or xs.size == 0:
        return False
    a = np.deg2rad(angle_deg)
    u = (xs - centre[0]) * np.cos(a) + (ys - centre[1]) * np.sin(a)
    half = card_px[0] / 2
    if np.any(np.abs(u) < half):
        return False
    sides = [side for side in (-1, 1) if np.any(side * u >= half)]
    return all(side_shows_paper(view, fg, centre, angle_deg, card_px, side, BESIDE_REACH)
               for side in sides)


#: A card lying on another casts a thin contact shadow along its edge onto the card under it:
#: across the side, the view's darkest line lies at the edge (within a pixel; measured on
#: rendered medium and hard scenes of tuning designs). The edge is sought this far (canonical
#: px) clear of the slack's ends: at the ends lies the neighbour's own edge (the cut's 1.5 px
#: in), with its shadow reaching 0.5 px beyond it. 1.5 while located cards lay half a pixel
#: right of and below their place (``edges.RUN_END_PX``): one end was 2 px clear, the other 1.
SHADOW_CLEAR_PX = 2.0
#: The shadow's depth under the paper 3-4 px inside the edge (share of the paper's grey) a
#: side must show to place the card (true edges over a neighbour, rendered medium and hard
#: scenes: 0.085-0.61; kennard under a light that saturates the paper: 0.15).
SHADOW_DEPTH = 0.08
#: Two sides that both show a shadow must place the card within this (canonical px).
SHADOW_AGREE_PX = 1.5


def _grey_at(grey: npt.NDArray[np.uint8], pts: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
    """Bilinear samples of ``grey`` at ``pts`` (..., 2), clamped to the view."""
    h, w = grey.shape
    xs = np.clip(pts[..., 0], 0, w - 1.001)
    ys = np.clip(pts[..., 1], 0, h - 1.001)
    x0, y0 = np.floor(xs).astype(np.intp), np.floor(ys).astype(np.intp)
    fx, fy = (xs - x0).astype(np.float32), (ys - y0).astype(np.float32)
    g = grey.astype(np.float32)
    top = g[y0, x0] * (1 - fx) + g[y0, x0 + 1] * fx
    bottom = g[y0 + 1, x0] * (1 - fx) + g[y0 + 1, x0 + 1] * fx
    return np.asarray(top * (1 - fy) + bottom * fy, np.float32)


def shadow_offset(
    grey: npt.NDArray[np.uint8], centre: tuple[float, float], angle_deg: float,
    card_px: tuple[float, float], slack: float,
) -> float | None:
    """Where along its width a card whose both sides lie against neighbours is, by its shadow.

    The card (``centre`` +- ``slack`` along its width) lies on one neighbour or under it.
    The side lying on a neighbour casts a contact shadow on it: over the middle 60% of the
    side, the median grey across it (``grey``: the canonical view, 3x3 box-blurred) is
    darkest at the edge (within 1.5 px either way), at least :data:`SHADOW_DEPTH` under the
    paper 3-4 px inside the edge. Searched where the edge can lie :data:`SHADOW_CLEAR_PX`
    clear of the slack's ends (at the ends lies the neighbour's own edge); both sides
    showing one must agree (:data:`SHADOW_AGREE_PX`). Returns the offset along the width, or
    None.
    """
    cw, ch = card_px
    if slack < SHADOW_CLEAR_PX + 0.5:
        return None
    a = np.deg2rad(angle_deg)
    along = np.array([np.cos(a), np.sin(a)])
    down = np.array([-np.sin(a), np.cos(a)])
    ts = np.linspace(-0.3 * ch, 0.3 * ch, 21)
    base = np.asarray(centre, np.float64) + ts[:, None] * down

    def across(us: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
        pts = base[None, :, :] + us[:, None, None] * along[None, None, :]
        return np.asarray(np.median(_grey_at(grey, pts), axis=1), np.float32)

    found: list[tuple[float, float]] = []
    for side in (-1, 1):
        reach = side * cw / 2
        offs = np.arange(-slack + SHADOW_CLEAR_PX, slack - SHADOW_CLEAR_PX + 1e-6, 0.25)
        # The line is the darkest within 1.5 px either way (6 steps of 0.25 px).
        pad = np.arange(1, 7) * 0.25
        prof = across(np.concatenate((offs[0] - pad[::-1], offs, offs[-1] + pad)) + reach)
        best: tuple[float, float] | None = None
        for i in range(6, prof.size - 6):
            if prof[i] > prof[i - 6 : i + 7].min():
                continue
            u = float(offs[i - 6]) + reach
            paper = float(across(np.array([u - side * 3.0, u - side * 4.0])).mean())
            depth = (paper - float(prof[i])) / max(paper, 1.0)
            if depth >= SHADOW_DEPTH and (best is None or depth > best[1]):
                best = (float(offs[i - 6]), depth)
        if best is not None:
            found.append(best)
    if not found:
        return None
    if len(found) == 2 and abs(found[0][0] - found[1][0]) > SHADOW_AGREE_PX:
        return None
    return max(found, key=lambda f: f[1])[0]
