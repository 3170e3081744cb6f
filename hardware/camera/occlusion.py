"""Whether a located card runs on, past a side edge, into something that is not a card.

Rules this module keeps:

1. Non-felt just outside a side edge belongs to a located neighbour, to an unlocated but
   card-sized neighbour (overlapping cards), or else to something else: a hand.
2. A located neighbour claims the non-felt within twice the sampling distance of its edges:
   two cards laid touching at slightly different angles leave a thin wedge of non-felt between
   their fitted edges that is neither card's but is no hand either.
3. A side that shows the card's own paper up to its edge (:func:`.sides.side_shows_paper`) is
   only touched by what lies beyond it.
4. Pure: masks and poses in, a verdict out (moved out of :mod:`.locator`, unchanged).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence

import cv2
import numpy as np
import numpy.typing as npt

from hardware.camera.readings import FloatArray, Image
from hardware.camera.sides import side_shows_paper


def runs_into_unknown(
    fg: Image, view: npt.NDArray[np.float32] | None, centre: tuple[float, float],
    angle_deg: float, card_px: tuple[float, float],
    neighbours: Callable[[], Sequence[FloatArray]], unknown_sides: Container[int],
) -> bool:
    """Whether the card at ``centre``, ``angle_deg`` runs on past a side into no card.

    ``fg``: the non-felt mask; ``view``: the canonical view, box-blurred (None: no side is
    taken to show paper); ``neighbours``: the other located cards' quads grown by 6 px (called
    only once a side has non-felt beyond it); ``unknown_sides``: the sides (-1 left, 1 right)
    whose neighbour slot holds an unlocated but card-sized something.
    """
    cw, ch = card_px
    a = np.deg2rad(angle_deg)
    along = np.array([np.cos(a), np.sin(a)])
    down = np.array([-np.sin(a), np.cos(a)])
    h, w = fg.shape
    others: Image | None = None  # drawn only once a side has non-felt outside
    for side in (-1, 1):
        ts = np.linspace(-0.35 * ch, 0.35 * ch, 15)
        pts = (np.asarray(centre) + side * (cw / 2 + 3) * along
               + ts[:, None] * down[None, :])
        xs = np.clip(np.round(pts[:, 0]).astype(int), 0, w - 1)
        ys = np.clip(np.round(pts[:, 1]).astype(int), 0, h - 1)
        outside = fg[ys, xs] > 0
        if np.mean(outside) <= 0.5:
            continue
        if others is None:
            others = np.zeros_like(fg)
            for quad in neighbours():
                cv2.fillPoly(others, [np.round(quad).astype(np.int32)], 255)
        if np.mean(others[ys, xs][outside] > 0) > 0.5:
            continue
        if side in unknown_sides:
            continue
        if view is not None and side_shows_paper(view, fg, centre, angle_deg, card_px, side):
            # The card's own paper runs to that edge: what lies beyond touches it only.
            continue
        return True
    return False


def card_sized(fg: Image, x0: float, x1: float, card_h: float) -> bool:
    """Whether the non-felt in columns ``x0``-``x1`` spans at most a card's height, in the view.

    A hand and forearm reach in from beyond the canonical view (moved out of :mod:`.locator`,
    unchanged).
    """
    rows = np.nonzero(fg[:, int(x0) : int(np.ceil(x1))].any(axis=1))[0]
    if rows.size == 0:
        return True
    top, bottom = int(rows[0]), int(rows[-1])
    h = fg.shape[0]
    return top > 0 and bottom < h - 1 and bottom - top <= 1.15 * card_h
