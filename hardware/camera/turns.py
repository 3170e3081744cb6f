"""Which of two turned views' poses to keep when they disagree: the one seen square from itself.

Rules this module keeps:

1. Pure: the candidate poses and a way to seek the card on the view turned by an angle in,
   one pose or None out.
2. A card's edges are sampled best along its own axes: a pose is kept when the view turned by
   its own angle (the card then lies square) finds it again; exactly one candidate may.
3. A turned view is skipped only when it surely fits no top or bottom edge (:func:`blocked_turns`):
   what is found is what trying it finds; the check errs towards trying.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

import cv2
import numpy as np

from hardware.camera.readings import Image


class _Pose(Protocol):
    @property
    def centre(self) -> tuple[float, float]: ...

    @property
    def angle_deg(self) -> float: ...


P = TypeVar("P", bound=_Pose)


def same_pose(a: _Pose, b: _Pose) -> bool:
    """Whether two poses found for one card agree (within 3 px and 2 degrees)."""
    return (abs(a.centre[0] - b.centre[0]) <= 3.0 and abs(a.centre[1] - b.centre[1]) <= 3.0
            and abs(a.angle_deg - b.angle_deg) <= 2.0)


def seen_square(candidates: Sequence[P], seek: Callable[[float], P | None]) -> P | None:
    """Return the one candidate that the view turned by its own angle finds again, or None.

    Two turned views that disagree (a card between neighbours lying at other angles: one
    view's rows run into a neighbour) each fitted the card at a slope; on the view turned by
    the true card's angle the card lies square and is found where it lies, so the right
    candidate finds itself again and a wrong one finds another pose (or none).
    """
    kept = [c for c in candidates if (again := seek(c.angle_deg)) is not None
            and same_pose(again, c)]
    return kept[0] if len(kept) == 1 else None


_CORE = np.ones((3, 3), np.uint8)


def blocked_turns(
    fg: Image, centre: tuple[float, float], half_band: float, turns: Sequence[float]
) -> frozenset[float]:
    """Return those of ``turns`` whose turned view has no top or bottom edge to fit.

    The locator turns the mask ``fg`` about ``centre`` (``cv2.getRotationMatrix2D``, nearest
    pixel) and fits the card's top and bottom on the runs up and down from the centre's row in
    the columns around it (at least ``half_band`` px either side of the centre's column); a run
    that reaches the view's top or bottom row ends at the border, not at an edge, and that side
    is not fitted (:meth:`.locator.CardLocator._edges`). A hand or forearm over the slot reaches
    in from beyond the view: such a column runs from the centre to the border. A turn is
    returned when one column of the band does so on the mask's core (``fg`` eroded by 3 x 3,
    zero at the view's border): nearest-pixel sampling of the turned view picks a pixel within
    one of the core's, which is then foreground too, so the turned view's run is whole for any
    rounding (the band is warped alone here, the locator warps the whole view).
    """
    h, w = fg.shape
    cx, cy = centre
    c0, c1 = max(0, int(cx - half_band)), min(w, int(cx + half_band) + 1)
    row = round(cy)
    if c1 <= c0 or not 0 <= row < h or not turns:
        return frozenset()
    # The mask's columns the band's pixels come from, whatever the turn.
    reach = half_band + h * max(abs(float(np.sin(np.deg2rad(t)))) for t in turns) + 3
    a, b = max(int(cx - reach), 0), min(int(np.ceil(cx + reach)) + 1, w)
    if b <= a:
        return frozenset()
    core = cv2.erode(fg[:, a:b], _CORE, borderType=cv2.BORDER_CONSTANT, borderValue=0)
    blocked = []
    for turn in turns:
        back = np.asarray(cv2.invertAffineTransform(cv2.getRotationMatrix2D((cx, cy), turn, 1.0)),
                          np.float64)
        # The band's pixel (x, y) is the turned view's (x + c0, y); the core's column 0 is a.
        back[:, 2] += back[:, 0] * c0
        back[0, 2] -= a
        band = cv2.warpAffine(core, back, (c1 - c0, h),
                              flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP, borderValue=0)
        if band[: row + 1].min(axis=0).any() or band[row:].min(axis=0).any():
            blocked.append(turn)
    return frozenset(blocked)
