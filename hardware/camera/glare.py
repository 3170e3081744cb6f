"""The whole-face score with a glare's lifted ink left out.

Rules this module keeps:

1. A glare (a glossy card's reflection) adds white light: it lifts ink towards the card's white,
   it never darkens anything. So where the observation is *brighter* than a face predicts, over
   that face's ink, a glare may be the cause; where it is darker, nothing a glare does explains
   it.
2. :func:`glare_score` is the correlation of an observation with one face over the pixels a
   glare did not lift: the observation's brightness and contrast are fitted to the face, the
   face's ink pixels lifted by more than :data:`GLARE_LIFT` of the face's contrast are left out
   (luminance and redness alike), and the fit is repeated on what is left. Every other pixel,
   and any ink the face lacks, counts as before.
3. It only lifts a score towards what the rest of the face shows; which card it is stays for the
   separation, the discriminant and the checks after them to decide (the caller's rule).
4. Pure: feature vectors in, a correlation out.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]

#: A face's ink pixel is taken as lifted by a glare when the observation there is brighter than
#: the fitted face by this fraction of the face's contrast (its 95th minus 5th percentile).
GLARE_LIFT = 0.2
#: At most this fraction of the card's pixels may be left out; more is no glare spot or streak.
GLARE_MAX_DROP = 0.3
#: Fits: the first on every pixel, then on the pixels not left out.
GLARE_FITS = 3


def glare_score(vec: F32, row: F32) -> tuple[float, float]:
    """Return the correlation of ``vec`` with ``row`` over the pixels a glare did not lift.

    Both are :func:`hardware.camera.facebank.face_features` vectors: the luminance of the
    card's pixels (z-normalised), then their redness in the same order. Also returns the fraction
    of pixels left out. When more than :data:`GLARE_MAX_DROP` would be left out, the plain
    correlation is returned.
    """
    n_lum = vec.shape[0] // 2
    lo = vec[:n_lum].astype(np.float64)
    lf = row[:n_lum].astype(np.float64)
    ro = vec[n_lum:].astype(np.float64)
    rf = row[n_lum:].astype(np.float64)
    ink_level, paper_level = np.percentile(lf, (5.0, 95.0))
    contrast = float(paper_level - ink_level)
    plain = float(vec @ row)
    if contrast <= 0:
        return plain, 0.0
    ink = lf < (ink_level + paper_level) / 2
    keep = np.ones(n_lum, bool)
    for _ in range(GLARE_FITS):
        a, b = _line(lf[keep], lo[keep])
        if a <= 0:
            return plain, 0.0
        lifted = lo - (a * lf + b) > GLARE_LIFT * a * contrast
        keep = ~(lifted & ink)
    dropped = 1.0 - float(np.count_nonzero(keep)) / n_lum
    if dropped > GLARE_MAX_DROP:
        return plain, dropped
    o = np.concatenate([lo[keep] - lo[keep].mean(), ro[keep]])
    f = np.concatenate([lf[keep] - lf[keep].mean(), rf[keep]])
    norm = float(np.linalg.norm(o) * np.linalg.norm(f))
    return (float(o @ f) / norm if norm > 0 else plain), dropped


def _line(x: F64, y: F64) -> tuple[float, float]:
    """Least-squares ``y = a x + b``."""
    xm, ym = float(x.mean()), float(y.mean())
    xc = x - xm
    xx = float(xc @ xc)
    a = float(xc @ (y - ym)) / xx if xx > 0 else 0.0
    return a, ym - a * xm
