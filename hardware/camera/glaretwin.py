"""Pip suit twins compared off the glare: a streak over one half of their difference region.

Rules this module keeps:

1. A gloss streak adds white where it lies; over one half of the region where two suit twins
   differ (a spade's point against a club's lobes) it pulls that half's lean anywhere, and the
   twin rules (:mod:`.twindecide`), which ask every half to lean the same way, leave the pair
   undecided or refuse the read. Where the glare found on the card
   (:func:`~hardware.camera.glare.glare_mask`) covers part of the region, the comparison is
   made again on the region's pixels off the glare (:func:`unglared_check`), on the same
   bounds the sharp twin rule reads with (``suit_min_position``, ``suit_min_half`` on each
   half measured, at least two halves, fit ``suit_min_fit``) and above the frame's noise
   (:func:`~hardware.camera.twinleans.above_noise`); a half leaning past
   ``glare_twin_max_lean`` (the streak's edge left in, not the card) leaves it undecided
   (:func:`glare_twin_sign`).
2. Pure: the caller passes the glare mask, at the stored faces' size, upright.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from hardware.camera.blurmatch import lean_noise
from hardware.camera.glare import Mask
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.suits import MIN_REGION_PX, _pair, _region, line_fit
from hardware.camera.twinleans import above_noise

#: Pixels the glare mask is grown by before the region's pixels under it are left out: a
#: streak's soft edge lifts the paper beside what the mask finds.
GLARE_EDGE_PX = 3


@dataclass(frozen=True, slots=True)
class UnglaredCheck:
    """The twin comparison on the region's pixels off the glare (:func:`unglared_check`).

    :param position: +1 at the best face, -1 at the twin's, over the pixels kept.
    :param halves: the lean of each half of the card with enough pixels kept.
    :param fit: correlation of the kept pixels with the twins' mean face.
    :param cover: the share of the region's pixels the (grown) glare covers.
    """

    position: float
    halves: tuple[float, ...]
    fit: float
    cover: float


def unglared_check(ob: F32, fb: F32, fr: F32, glare: Mask) -> UnglaredCheck | None:
    """:func:`~hardware.camera.suits.pair_check` on the region's pixels off ``glare``.

    Aligned as the whole region is; brightness and contrast fitted on the pixels kept. None
    when the pair has no region, or too few pixels are left (``2 * MIN_REGION_PX``).
    """
    r = _region(_pair(fb, fr))
    if r.template is None:
        return None
    grown = cv2.dilate(glare.astype(np.uint8), np.ones((2 * GLARE_EDGE_PX + 1,) * 2, np.uint8))
    under = grown[r.ys, r.xs] > 0
    cover = float(under.mean())
    kept = ~under
    if int(kept.sum()) < 2 * MIN_REGION_PX:
        return None
    vals, _ = r.template.aligned(ob)
    mv, d, v = r.mv[kept], r.d[kept], vals[kept]
    a, b = line_fit(mv, v)
    if a <= 1e-3:
        return None
    o = (v - b) / a
    dd = float(d @ d)
    position = float((o - mv) @ d) / max(dd / 2, 1e-6)
    halves: list[float] = []
    for half, _, _, _ in r.halves:
        h = half[kept]
        dh = d[h]
        if dh.size < MIN_REGION_PX // 2:
            continue
        halves.append(float((o[h] - mv[h]) @ dh) / max(float(dh @ dh) / 2, 1e-6))
    fit = float(np.corrcoef(mv, v)[0, 1]) if mv.size > 1 and np.std(v) > 0 else 0.0
    return UnglaredCheck(position, tuple(halves), fit, cover)


def glare_twin_lean(ob: F32, fb: F32, fr: F32, glare: Mask,
                    params: RecognizerParams) -> float:
    """Return the lean off the glare: above 0 the best face read, below 0 the twin, 0 neither.

    Module rule 1. 0 unless the glare covers at least ``glare_twin_min_cover`` of the twins'
    difference region (elsewhere the twin rules have seen what there is to see).
    """
    p = params
    check = unglared_check(ob, fb, fr, glare)
    if check is None or check.cover < p.glare_twin_min_cover or len(check.halves) < 2:
        return 0.0
    sign = 1 if check.position > 0 else -1
    leans = [sign * h for h in check.halves]
    if (abs(check.position) < p.suit_min_position or check.fit < p.suit_min_fit
            or min(leans) < p.suit_min_half or max(leans) > p.glare_twin_max_lean):
        return 0.0
    if not above_noise(check.position, lean_noise(ob, fb, fr, joint=False), p):
        return 0.0
    return check.position
