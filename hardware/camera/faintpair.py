"""Suit twins compared where the frame's blur leaves their faces differing by little.

:func:`~hardware.camera.blurmatch.blurred_pair_check` compares an observation with the two
faces blurred as it is, over the pixels where those blurred faces differ by
:data:`~hardware.camera.suits.DIFFERENCE_LEVEL`. On a hard frame of a design whose club and
spade differ in small index symbols and pips drawn in fine lines, that blur leaves the two
faces differing by 0.05-0.09 at most: no pixel is left to compare (fit 0), and the pair
stayed undecided (benchmark run 95: 33 of 46 cards left ``uncertain`` on hard frames of a
four-corner design so). The difference is still there, only fainter.

Rules this module keeps:

1. Only where the faces blurred as the observation is differ nowhere by
   ``DIFFERENCE_LEVEL`` (:func:`faint_pair_check`): that difference is scaled so its largest
   value reaches :data:`FAINT_PEAK` times the level, and compared as
   :func:`~hardware.camera.suits.pair_check` compares (the observation's brightness,
   contrast and position fitted together), over the pixels where the scaled difference
   reaches the level; positions and the frame's noise there
   (:func:`~hardware.camera.blurmatch.lean_noise`) are given back in the unscaled faces'
   units (+1 at the first face blurred, -1 at the twin's).
2. A twin is read (:func:`faint_twin_sign`) only where that comparison fits
   ``suit_min_fit``, leans by ``suit_blur_min_position`` on the whole region and
   ``suit_blur_min_half`` on each half, and stands above ``suit_faint_noise_ratio`` times a
   noise that could be measured; where it could not (the faint region too wide for enough
   offsets to land on agreeing print: 13 of 34 black cards of a design traced in benchmark
   run 95), the lean's change with the cut moved half a pixel (:func:`offset_spread`,
   ``suit_faint_offset_noise``) stands for it (benchmark run 101).
3. Pure: arrays in, a verdict out (the scaled faces are not cached: asked only where the
   blurred comparison found nothing to compare).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from hardware.camera.blurmatch import blurred_faces, lean_noise, matched_blur
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.suits import DIFFERENCE_LEVEL, SuitCheck, pair_check
from hardware.camera.twinleans import moved_cuts

#: The scaled difference's largest value, in :data:`DIFFERENCE_LEVEL`\ s: the region compared
#: is where the blurred faces differ by at least half their largest difference.
FAINT_PEAK = 2.0
#: Blurred faces differing by less than this at most (luminance) are not compared: nothing
#: but the print's rounding is left.
FAINT_MIN_DIFFERENCE = 0.02


def faint_pair_check(observed: F32, best: F32, twin: F32) -> tuple[SuitCheck, float | None] | None:
    """Return the comparison of rule 1 and its noise (the unscaled faces' units).

    None where the blurred faces differ by ``DIFFERENCE_LEVEL`` somewhere (the ordinary
    blurred comparison applies) or by less than :data:`FAINT_MIN_DIFFERENCE` everywhere.
    """
    blur, kernel, _ = matched_blur(observed, best, twin)
    bb, br = blurred_faces(best, twin, blur, kernel)
    half = (bb - br) / 2
    peak = float(np.abs(half).max()) * 2
    if peak >= DIFFERENCE_LEVEL or peak < FAINT_MIN_DIFFERENCE:
        return None
    scale = FAINT_PEAK * DIFFERENCE_LEVEL / peak
    mean = (bb + br) / 2
    fb = np.asarray(mean + scale * half, np.float32)
    fr = np.asarray(mean - scale * half, np.float32)
    check = pair_check(observed, fb, fr, joint=True)
    noise = lean_noise(observed, fb, fr)
    check = replace(check, position=check.position * scale,
                    worst_half=check.worst_half * scale, best_half=check.best_half * scale)
    return check, None if noise is None else noise * scale


def faint_twin_sign(observed: F32, best: F32, twin: F32, params: RecognizerParams
                    ) -> tuple[int, float]:
    """Return +1 (``best``) or -1 (``twin``) where rule 2 reads one, with the lean; else 0."""
    p = params
    found = faint_pair_check(observed, best, twin)
    if found is None:
        return 0, 0.0
    check, noise = found
    if check.fit < p.suit_min_fit or check.halves < 2:
        return 0, 0.0
    sign = 1 if check.position > 0 else -1
    if noise is None and p.suit_faint_offset_noise:
        noise = offset_spread(observed, best, twin, check.position, p)
    if noise is None:
        return 0, 0.0
    half = check.worst_half if sign > 0 else -check.best_half
    lean = sign * check.position
    if (lean < p.suit_blur_min_position or half < p.suit_blur_min_half
            or lean < p.suit_faint_noise_ratio * noise):
        return 0, 0.0
    return sign, lean


def offset_spread(observed: F32, best: F32, twin: F32, position: float,
                  params: RecognizerParams) -> float | None:
    """How far the faint comparison's position moves with the cut moved by half a pixel.

    Where the faint difference's region is wide, too few offsets land on agreeing print for
    :func:`~hardware.camera.blurmatch.lean_noise`, and the lean's noise is measured so
    instead: the cut moved ``suit_blur_offset_px`` left, right, up and down in turn
    (:func:`~hardware.camera.twinleans.moved_cuts`), each compared by
    :func:`faint_pair_check` again; the largest distance of those four positions from the
    unmoved one (``position``) is the spread. None (no read) where the step is 0, or where a
    moved cut is not compared so, fits under ``suit_min_fit`` or leans the other way.
    """
    step = params.suit_blur_offset_px
    if step <= 0.0:
        return None
    spread = 0.0
    for moved in moved_cuts(observed, step):
        found = faint_pair_check(moved, best, twin)
        if found is None or found[0].fit < params.suit_min_fit:
            return None
        if found[0].position * position <= 0.0:
            return None
        spread = max(spread, abs(found[0].position - position))
    return spread
