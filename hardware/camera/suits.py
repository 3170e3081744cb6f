"""Suit twins told apart by their indices and pips, at the stored faces' full resolution.

Rules this module keeps:

1. Only for a best card and a rival of the same rank and colour (clubs / spades, hearts /
   diamonds) whose whole faces the matching cannot separate: court pictures drawn alike in the
   suits, black pips that blur into each other at the matching size.
2. Compared only where the two registered faces differ (the corner indices and the pips), at
   :data:`~hardware.camera.facebank.STORED_PATCH_SIZE` cut from the full frame, at the shift
   within :data:`SHIFT_PX` (the pose is good to about a millimetre) that best fits the two
   faces' mean, so the search favours neither; then where the observation lies on the line
   from one face to the other.
3. Pure: patches in, two correlations out.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]

#: Largest shift (stored-patch pixels, about 0.5 mm each) tried between observation and face.
SHIFT_PX = 3
#: A pixel belongs to the difference region when the two faces' luminance differs by this much.
DIFFERENCE_LEVEL = 0.1
#: The corner index boxes (fraction of the width, of the height) at top-left and bottom-right.
INDEX_BOX = (0.22, 0.3)
#: Fewest pixels of difference region to decide on.
MIN_REGION_PX = 40
_DILATE = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (17, 17))


@dataclass(frozen=True, slots=True)
class SuitCheck:
    """Where the observation falls between two twin faces, over the region where they differ.

    :param position: +1 at the best card's face, -1 at the rival's, 0 halfway (the observation's
        brightness and contrast fitted to the faces first).
    :param fit: correlation of the observation with the twins' mean face over the region (how
        well it is aligned and how clearly it shows one of the two at all).
    """

    position: float
    fit: float
    region_px: int
    #: The position measured on each half of the card alone (its corner index and its pips),
    #: the lower of the two: a neighbour over one corner or a glare spot spoils one half only.
    worst_half: float = 0.0
    #: The higher of the two halves' positions (how far both lean towards the rival: -1).
    best_half: float = 0.0


def luminance(patch: Image, blur: float = 1.0) -> F32:
    """Lighting-normalised luminance (card white = 1) of a BGR patch, lightly blurred."""
    gray = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float32)
    white = cv2.GaussianBlur(cv2.dilate(gray, _DILATE), (0, 0), 8.0)
    np.maximum(white, 16.0, out=white)
    out = np.asarray(gray / white, np.float32)
    return np.asarray(cv2.GaussianBlur(out, (0, 0), blur), np.float32) if blur > 0 else out


def _aligned(obs: F32, mean: F32, region: npt.NDArray[np.bool_]) -> tuple[F32, float]:
    """Observation values over ``region`` at the shift (up to SHIFT_PX) that fits ``mean`` best.

    Returns those values and the correlation there. The shift is chosen on the twins' mean
    face, so it favours neither. The correlations at every shift come from three template
    matches over the region's bounding box (the observation padded by repeating its edge).
    """
    ys, xs = np.nonzero(region)
    y0, y1, x0, x1 = int(ys.min()), int(ys.max()) + 1, int(xs.min()), int(xs.max()) + 1
    inside = region[y0:y1, x0:x1]
    weight = inside.astype(np.float32)
    box = mean[y0:y1, x0:x1]
    level = float(box[inside].mean())
    template = np.asarray((box - level) * weight, np.float32)
    norm = max(float(np.linalg.norm(template[inside])), 1e-6)
    s = SHIFT_PX
    padded = cv2.copyMakeBorder(obs, s, s, s, s, cv2.BORDER_REPLICATE)
    window = np.ascontiguousarray(padded[y0 : y1 + 2 * s, x0 : x1 + 2 * s])
    products = cv2.matchTemplate(window, template, cv2.TM_CCORR)
    sums = cv2.matchTemplate(window, weight, cv2.TM_CCORR)
    squares = cv2.matchTemplate(np.ascontiguousarray(window * window), weight, cv2.TM_CCORR)
    spread = np.sqrt(np.maximum(squares - sums * sums / float(ys.size), 1e-12))
    corr = products / (spread * norm)
    k = int(np.argmax(corr))
    dy, dx = k // (2 * s + 1) - s, k % (2 * s + 1) - s
    h, w = obs.shape
    vals = obs[np.clip(ys + dy, 0, h - 1), np.clip(xs + dx, 0, w - 1)]
    return np.asarray(vals, np.float32), float(corr.flat[k])


def suit_check(observed: Image, best: Image, rival: Image) -> SuitCheck:
    """Compare ``observed`` with two twin faces where they differ (all BGR, the same size).

    ``observed`` must already be turned the way the faces are (upright).
    """
    return pair_check(observed_luminance(observed), face_luminance(best), face_luminance(rival))


def observed_luminance(observed: Image) -> F32:
    """Luminance of an observed patch as :func:`pair_check` takes it."""
    return luminance(observed, blur=1.0)


def face_luminance(face: Image) -> F32:
    """Luminance of a registered face's patch as :func:`pair_check` takes it."""
    return luminance(face, blur=1.5)


def pair_check(ob: F32, fb: F32, fr: F32, joint: bool = False) -> SuitCheck:
    """:func:`suit_check` on luminances (:func:`observed_luminance`, :func:`face_luminance`).

    Any two faces may be compared this way (not only suit twins): where they differ, which of
    the two the observation shows.

    :param joint: fit the observation's brightness and contrast together with its position
        (least squares on the mean face, the difference and a constant), instead of on the
        mean face first: where the two faces' mean and difference go together (ink of one
        face only), the first fit takes up part of the difference and pulls the position
        towards halfway.
    """
    diff = np.abs(fb - fr) >= DIFFERENCE_LEVEL
    region = cv2.dilate(diff.astype(np.uint8), np.ones((7, 7), np.uint8)) > 0
    border = 4
    region[:border, :] = region[-border:, :] = False
    region[:, :border] = region[:, -border:] = False
    n = int(np.count_nonzero(region))
    if n < MIN_REGION_PX:
        return SuitCheck(0.0, 0.0, n)
    mean = np.asarray((fb + fr) / 2, np.float32)
    vals, fit = _aligned(ob, mean, region)
    ys, xs = np.nonzero(region)
    mv = mean[ys, xs]
    d = fb[ys, xs] - fr[ys, xs]
    if joint:
        design = np.stack([mv, d / 2, np.ones_like(mv)], axis=1)
        a, _, b = np.linalg.lstsq(design, vals, rcond=None)[0]
    else:
        # Brightness and contrast of the observation fitted to the mean face (least squares).
        a, b = np.polyfit(mv, vals, 1)
    if a <= 1e-3:
        return SuitCheck(0.0, fit, n)
    o = (vals - b) / a
    halves = []
    for half in (ys < fb.shape[0] // 2, ys >= fb.shape[0] // 2):
        dh = d[half]
        if dh.size < MIN_REGION_PX // 2:
            continue
        halves.append(float((o[half] - mv[half]) @ dh) / max(float(dh @ dh) / 2, 1e-6))
    position = float((o - mv) @ d) / max(float(d @ d) / 2, 1e-6)
    return SuitCheck(position, fit, n, min(halves) if halves else 0.0,
                     max(halves) if halves else 0.0)


def index_positions(ob: F32, fb: F32, fr: F32) -> tuple[float, ...]:
    """Return the position (as :func:`pair_check`'s) on each corner index box alone.

    Each box is aligned and fitted on its own; a box where the two faces barely differ is left
    out. Only the two boxes (:data:`INDEX_BOX`, top-left and bottom-right) are cut, so this costs a
    fraction of :func:`pair_check`.
    """
    h, w = fb.shape
    bw, bh = round(INDEX_BOX[0] * w), round(INDEX_BOX[1] * h)
    border, s = 4, SHIFT_PX
    out = []
    for y0, x0 in ((0, 0), (h - bh, w - bw)):
        sl = (slice(y0, y0 + bh), slice(x0, x0 + bw))
        cb, cr = fb[sl], fr[sl]
        region = cv2.dilate((np.abs(cb - cr) >= DIFFERENCE_LEVEL).astype(np.uint8),
                            np.ones((7, 7), np.uint8)) > 0
        # The card's own border stays out, as in pair_check.
        if y0 == 0:
            region[:border, :] = False
            region[:, :border] = False
        else:
            region[-border:, :] = False
            region[:, -border:] = False
        if np.count_nonzero(region) < MIN_REGION_PX // 2:
            continue
        # The observation with room for the shift search around the box.
        oy0, ox0 = max(y0 - s, 0), max(x0 - s, 0)
        crop = ob[oy0 : min(y0 + bh + s, h), ox0 : min(x0 + bw + s, w)]
        full = np.zeros(crop.shape, bool)
        full[y0 - oy0 : y0 - oy0 + bh, x0 - ox0 : x0 - ox0 + bw] = region
        mean = np.zeros(crop.shape, np.float32)
        mean[y0 - oy0 : y0 - oy0 + bh, x0 - ox0 : x0 - ox0 + bw] = (cb + cr) / 2
        vals, _ = _aligned(np.ascontiguousarray(crop), mean, full)
        ys, xs = np.nonzero(region)
        mv = ((cb + cr) / 2)[ys, xs]
        a, b = np.polyfit(mv, vals, 1)
        if a <= 1e-3:
            continue
        d = cb[ys, xs] - cr[ys, xs]
        o = (vals - b) / a
        out.append(float((o - mv) @ d) / max(float(d @ d) / 2, 1e-6))
    return tuple(out)


#: The blurs tried on the registered faces (stored-patch pixels): a Gaussian of sigma up to
#: BLUR_SIGMA_MAX after a straight motion streak of length up to BLUR_LENGTH_MAX at any angle,
#: as a lens out of focus and a card or camera moving during the exposure blur a frame. The
#: search: a coarse grid (:data:`BLUR_COARSE`: sigmas, lengths, angle step in degrees), then
#: the neighbours of the best one at half the steps, twice.
BLUR_SIGMA_MAX = 4.0
BLUR_LENGTH_MAX = 24
BLUR_COARSE = ((0.0, 1.0, 2.0, 3.0), (0, 8, 16), 30)
Blur = tuple[float, int, int]


@lru_cache(maxsize=2048)
def blur_kernel(blur: Blur, scale: float = 1.0) -> F32:
    """Return the normalised kernel of ``(sigma, length, angle)`` at ``scale`` times stored size."""
    sigma, length, angle = blur
    n = int(np.ceil(length * scale / 2 + 3 * sigma * scale)) * 2 + 3
    # Drawn four times finer, then reduced: a streak of sub-pixel ends.
    fine = np.zeros((4 * n, 4 * n), np.float32)
    c, a = 2 * n, np.deg2rad(angle)
    dx, dy = np.cos(a) * length * scale * 2, np.sin(a) * length * scale * 2
    if length:
        cv2.line(fine, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 4)
    else:
        cv2.circle(fine, (c, c), 2, 1.0, -1)
    k = cv2.resize(fine, (n, n), interpolation=cv2.INTER_AREA)
    if sigma:
        k = cv2.GaussianBlur(k, (0, 0), sigma * scale)
    return np.asarray(k / k.sum(), np.float32)


def _neighbours(blur: Blur, step: tuple[float, int, int]) -> list[Blur]:
    sigma, length, angle = blur
    out = []
    for ds in (-step[0], 0.0, step[0]):
        for dl in (-step[1], 0, step[1]):
            for da in (-step[2], 0, step[2]) if length + dl > 0 else (0,):
                s2, l2 = sigma + ds, length + dl
                if 0 <= s2 <= BLUR_SIGMA_MAX and 0 <= l2 <= BLUR_LENGTH_MAX:
                    out.append((s2, l2, (angle + da) % 180 if l2 else 0))
    return out


def matched_blur(ob: F32, fb: F32, fr: F32) -> tuple[Blur, F32, float]:
    """Find the blur (:data:`BLUR_COARSE` ...) that makes the twins look most like ``ob``.

    Fitted, at half the stored size, on the two faces' mean where the two faces agree (their
    difference region, grown, is left out: there the mean is a mix of both shapes and would
    ask for less blur than the frame has), so the choice favours neither. Returns the blur's
    (sigma, length, angle), its kernel at the stored size and the correlation it reached.
    """
    h, w = ob.shape
    size = (w // 2, h // 2)
    small_o = cv2.resize(ob, size, interpolation=cv2.INTER_AREA)
    small_m = cv2.resize((fb + fr) / 2, size, interpolation=cv2.INTER_AREA)
    apart = cv2.dilate((np.abs(fb - fr) >= DIFFERENCE_LEVEL).astype(np.uint8),
                       np.ones((9, 9), np.uint8))
    keep = cv2.resize(apart, size, interpolation=cv2.INTER_NEAREST) == 0
    keep[:3, :] = keep[-3:, :] = False
    keep[:, :3] = keep[:, -3:] = False
    o = small_o[keep]
    o = o - o.mean()
    o /= max(float(np.linalg.norm(o)), 1e-6)
    fits: dict[Blur, float] = {}

    def fit(blur: Blur) -> float:
        if blur not in fits:
            m = cv2.filter2D(small_m, -1, blur_kernel(blur, 0.5),
                             borderType=cv2.BORDER_REPLICATE)[keep]
            m = m - m.mean()
            fits[blur] = float(o @ m) / max(float(np.linalg.norm(m)), 1e-6)
        return fits[blur]

    sigmas, lengths, angle_step = BLUR_COARSE
    grid = [(s, n, a) for s in sigmas for n in lengths
            for a in (range(0, 180, angle_step) if n else (0,))]
    best = max(grid, key=fit)
    step = (0.5, 4, angle_step // 2)
    for _ in range(2):
        best = max(_neighbours(best, step), key=fit)
        step = (step[0] / 2, max(step[1] // 2, 1), max(step[2] // 2, 1))
    return best, blur_kernel(best), fits[best]


def blurred_pair_check(ob: F32, fb: F32, fr: F32) -> SuitCheck:
    """:func:`pair_check` against the two faces blurred as ``ob`` is (:func:`matched_blur`).

    A frame blurred more than the faces' own light blur (a moving card, a lens out of focus)
    shrinks a club's lobes and a spade's point alike; compared with sharp faces, such an
    observation sits near halfway. Blurred the same way, the two faces differ less, but the
    observation lies near the face it shows.
    """
    _, kernel, _ = matched_blur(ob, fb, fr)
    bb = np.asarray(cv2.filter2D(fb, -1, kernel, borderType=cv2.BORDER_REPLICATE), np.float32)
    br = np.asarray(cv2.filter2D(fr, -1, kernel, borderType=cv2.BORDER_REPLICATE), np.float32)
    return pair_check(ob, bb, br, joint=True)
