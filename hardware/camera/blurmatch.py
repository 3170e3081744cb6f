"""Suit twins told apart at the frame's blur: the two faces blurred as the observation is.

Rules this module keeps:

1. The blur (a Gaussian after a straight motion streak, :data:`Blur`) is the one whose blurred
   faces best fit the observation where the two faces differ (:func:`matched_blur`); the
   comparison then is :func:`~hardware.camera.suits.pair_check`'s, on the blurred faces.
2. Caches are bounded (kernels, their spectra, the blurred faces per pair).
3. Pure: arrays in, a :class:`~hardware.camera.suits.SuitCheck` out.
"""

from __future__ import annotations

from collections import OrderedDict
from functools import lru_cache

import cv2
import numpy as np
import numpy.typing as npt

from hardware.camera.suits import (
    _BLURRED_MAX,
    _BLURS_MAX,
    DIFFERENCE_LEVEL,
    INDEX_BOX,
    SHIFT_PX,
    Blur,
    SuitCheck,
    _Pair,
    _pair,
    _Region,
    _region,
    _reversed,
    line_fit,
    pair_check,
    read_only,
)

F32 = npt.NDArray[np.float32]

#: The blurs tried on the registered faces (stored-patch pixels): a Gaussian of sigma up to
#: BLUR_SIGMA_MAX after a straight motion streak of length up to BLUR_LENGTH_MAX at any angle,
#: as a lens out of focus and a card or camera moving during the exposure blur a frame. The
#: search: a coarse grid (:data:`BLUR_COARSE`: sigmas, lengths, angle step in degrees), then
#: the neighbours of the best one at half the steps, twice.
BLUR_SIGMA_MAX = 4.0
BLUR_LENGTH_MAX = 24
BLUR_COARSE = ((0.0, 1.0, 2.0, 3.0), (0, 8, 16), 30)


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


#: The largest radius of a kernel :func:`matched_blur` tries (at half the stored size).
_BLUR_RADIUS_HALF = int(np.ceil(BLUR_LENGTH_MAX * 0.5 / 2 + 3 * BLUR_SIGMA_MAX * 0.5)) + 1


class _Spectrum:
    """An image padded by repeating its edge, as a spectrum: any blur of it by one product.

    :meth:`blurred` equals ``cv2.filter2D(image, -1, kernel, borderType=BORDER_REPLICATE)``
    (to float rounding, about 1e-7) for a kernel of radius up to the padding: the padding
    keeps the circular convolution from wrapping into the image.
    """

    __slots__ = ("pad", "shape", "size", "spectrum")

    def __init__(self, image: F32, pad: int) -> None:
        h, w = image.shape
        big_h, big_w = cv2.getOptimalDFTSize(h + 2 * pad), cv2.getOptimalDFTSize(w + 2 * pad)
        padded = cv2.copyMakeBorder(np.asarray(image, np.float32), pad, big_h - h - pad, pad,
                                    big_w - w - pad, cv2.BORDER_REPLICATE)
        self.pad, self.size, self.shape = pad, (h, w), (big_h, big_w)
        self.spectrum = cv2.dft(padded)

    def blurred(self, kernel: F32) -> F32:
        """Return the image correlated with ``kernel`` (odd size, radius at most the padding)."""
        spectrum = _kernel_spectrum(kernel, self.shape)
        full = cv2.idft(cv2.mulSpectrums(self.spectrum, spectrum, 0),
                        flags=cv2.DFT_SCALE | cv2.DFT_REAL_OUTPUT)
        (h, w), p = self.size, self.pad
        return np.asarray(full[p : p + h, p : p + w], np.float32)


#: Kernel spectra (by the kernel's bytes and the padded shape): a kernel is drawn per blur.
_KERNEL_SPECTRA: OrderedDict[tuple[bytes, int, tuple[int, int]], F32] = OrderedDict()
_KERNEL_SPECTRA_MAX = 4096


def _kernel_spectrum(kernel: F32, shape: tuple[int, int]) -> F32:
    """Return the spectrum of ``kernel`` flipped (a correlation) with its centre at the origin."""
    key = (kernel.tobytes(), kernel.shape[0], shape)
    cached = _KERNEL_SPECTRA.get(key)
    if cached is not None:
        return cached
    n = kernel.shape[0]
    c = n // 2
    big = np.zeros(shape, np.float32)
    big[:n, :n] = cv2.flip(kernel, -1)
    out = np.asarray(cv2.dft(np.roll(big, (-c, -c), axis=(0, 1))), np.float32)
    _KERNEL_SPECTRA[key] = out
    if len(_KERNEL_SPECTRA) > _KERNEL_SPECTRA_MAX:
        _KERNEL_SPECTRA.popitem(last=False)
    return out


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


_Setup = tuple[_Spectrum, npt.NDArray[np.bool_], dict[Blur, tuple[F32, float]]]
#: The coarse grid of blurs :func:`matched_blur` tries first on every observation.
COARSE_GRID: tuple[Blur, ...] = tuple(
    (s, n, a) for s in BLUR_COARSE[0] for n in BLUR_COARSE[1]
    for a in (range(0, 180, BLUR_COARSE[2]) if n else (0,)))


def _blur_setup(fb: F32, fr: F32, size: tuple[int, int], indices: bool = False) -> _Setup:
    """Return the pair's mean face at ``size`` as a spectrum, the pixels fitted, the blurs made.

    ``indices``: only the pixels of the two corner index boxes (:data:`INDEX_BOX`, top-left
    and bottom-right) are fitted. Computed once per pair, size and ``indices`` (kept by
    :func:`~hardware.camera.suits._pair`).
    """
    pair = _pair(fb, fr)
    key = (size[0], size[1], indices)
    setup = pair.blur_setup.get(key)
    back = _reversed(pair) if setup is None else None
    if back is not None and key in back.blur_setup:
        # The mean face and the pixels fitted are the reversed pair's, bit for bit (the sum
        # and the absolute difference of two floats do not depend on their order): shared,
        # with the blurs made for either.
        setup = pair.blur_setup[key] = back.blur_setup[key]
    if setup is None:
        if indices:
            whole = _blur_setup(fb, fr, size)
            w, h = size
            bw, bh = round(INDEX_BOX[0] * w), round(INDEX_BOX[1] * h)
            boxes = np.zeros((h, w), bool)
            boxes[:bh, :bw] = boxes[h - bh:, w - bw:] = True
            setup = pair.blur_setup[key] = (whole[0], whole[1] & boxes, {})
            return setup
        small_m = cv2.resize((fb + fr) / 2, size, interpolation=cv2.INTER_AREA)
        apart = cv2.dilate((np.abs(fb - fr) >= DIFFERENCE_LEVEL).astype(np.uint8),
                           np.ones((9, 9), np.uint8))
        keep = cv2.resize(apart, size, interpolation=cv2.INTER_NEAREST) == 0
        keep[:3, :] = keep[-3:, :] = False
        keep[:, :3] = keep[:, -3:] = False
        setup = pair.blur_setup[key] = (_Spectrum(np.asarray(small_m, np.float32),
                                                   _BLUR_RADIUS_HALF),
                                         np.asarray(keep, bool), {})
    return setup


def _blurred_mean(setup: _Setup, blur: Blur) -> tuple[F32, float]:
    """Return the mean face blurred by ``blur`` over the pixels fitted (centred), and its norm."""
    spectrum, keep, faces = setup
    face = faces.get(blur)
    if face is None:
        m = spectrum.blurred(blur_kernel(blur, 0.5))[keep]
        m = m - m.mean()
        if len(faces) >= _BLURS_MAX:
            faces.clear()
        face = faces[blur] = (m, max(float(np.linalg.norm(m)), 1e-6))
    return face


def warm_blurs(fb: F32, fr: F32, shape: tuple[int, int], blurs: tuple[Blur, ...]) -> None:
    """Make ahead what :func:`matched_blur` makes for ``blurs`` on an observation of ``shape``.

    The pair's setup and its mean face blurred by each of ``blurs``: the same arrays the search
    would compute itself (:mod:`hardware.camera.warmup`).
    """
    h, w = shape
    setup = _blur_setup(fb, fr, (w // 2, h // 2))
    for blur in blurs:
        _blurred_mean(setup, blur)


def matched_blur(ob: F32, fb: F32, fr: F32) -> tuple[Blur, F32, float]:
    """Find the blur (:data:`BLUR_COARSE` ...) that makes the twins look most like ``ob``.

    Fitted, at half the stored size, on the two faces' mean where the two faces agree (their
    difference region, grown, is left out: there the mean is a mix of both shapes and would
    ask for less blur than the frame has), so the choice favours neither. Returns the blur's
    (sigma, length, angle), its kernel at the stored size and the correlation it reached.
    """
    best, fits = _search(ob, fb, fr)
    return best, blur_kernel(best), fits[best]


def index_blur(ob: F32, fb: F32, fr: F32) -> Blur:
    """Find the blur as :func:`matched_blur` does, fitted on the two corner index boxes alone.

    Where the twins differ in a small index suit symbol and share everything else (a court
    picture), the whole card's fit is mostly that picture, and a streak the index glyphs
    show (a card's corner moving, a lens's blur that varies across the field) is lost to it.
    The index's rank glyph is the same on both twins: blurred as the frame blurs it, it
    gives the blur where the twins' difference is.
    """
    return _search(ob, fb, fr, indices=True)[0]


#: The last searches (:func:`_search`): one read's checks ask for the same observation's blur
#: against the same pair several times (the blurred comparison, its noise, the index blur's
#: test); kept for read-only observations only, so the array cannot have changed since.
_SEARCHED: OrderedDict[tuple[int, int, bool], tuple[F32, F32, F32,
                                                    tuple[Blur, dict[Blur, float]]]] = OrderedDict()
_SEARCHED_MAX = 4


def _search(ob: F32, fb: F32, fr: F32,
            indices: bool = False) -> tuple[Blur, dict[Blur, float]]:
    """:func:`matched_blur`'s search: the blur found and the fit of every blur tried."""
    key = (id(fb), id(fr), indices)
    last = _SEARCHED.get(key)
    if (last is not None and last[0] is ob and last[1] is fb and last[2] is fr
            and not ob.flags.writeable):
        return last[3]
    found = _fresh_search(ob, fb, fr, indices)
    if not ob.flags.writeable:
        _SEARCHED[key] = (ob, fb, fr, found)
        _SEARCHED.move_to_end(key)
        while len(_SEARCHED) > _SEARCHED_MAX:
            _SEARCHED.popitem(last=False)
    return found


def _fresh_search(ob: F32, fb: F32, fr: F32, indices: bool) -> tuple[Blur, dict[Blur, float]]:
    h, w = ob.shape
    size = (w // 2, h // 2)
    small_o = cv2.resize(ob, size, interpolation=cv2.INTER_AREA)
    setup = _blur_setup(fb, fr, size, indices)
    keep = setup[1]
    o = small_o[keep]
    o = o - o.mean()
    o /= max(float(np.linalg.norm(o)), 1e-6)
    fits: dict[Blur, float] = {}

    def fit(blur: Blur) -> float:
        if blur not in fits:
            face = _blurred_mean(setup, blur)
            fits[blur] = float(o @ face[0]) / face[1]
        return fits[blur]

    best = max(COARSE_GRID, key=fit)
    angle_step = BLUR_COARSE[2]
    step = (0.5, 4, angle_step // 2)
    for _ in range(2):
        best = max(_neighbours(best, step), key=fit)
        step = (step[0] / 2, max(step[1] // 2, 1), max(step[2] // 2, 1))
    return best, fits


def blurred_pair_check(ob: F32, fb: F32, fr: F32) -> SuitCheck:
    """:func:`pair_check` against the two faces blurred as ``ob`` is (:func:`matched_blur`).

    A frame blurred more than the faces' own light blur (a moving card, a lens out of focus)
    shrinks a club's lobes and a spade's point alike; compared with sharp faces, such an
    observation sits near halfway. Blurred the same way, the two faces differ less, but the
    observation lies near the face it shows.
    """
    blur, kernel, _ = matched_blur(ob, fb, fr)
    faces = blurred_faces(fb, fr, blur, kernel)
    return pair_check(ob, faces[0], faces[1], joint=True)


def blurred_faces(fb: F32, fr: F32, blur: Blur, kernel: F32 | None = None) -> tuple[F32, F32]:
    """Return the two faces blurred by ``blur`` (kept per pair of read-only faces)."""
    pair = _pair(fb, fr)
    faces = pair.blurred.get(blur)
    back = _reversed(pair) if faces is None else None
    if back is not None and blur in back.blurred:
        # Each face blurred alone: the reversed pair's two, swapped.
        bb, br = back.blurred[blur][1], back.blurred[blur][0]
        if len(pair.blurred) >= _BLURRED_MAX:
            del pair.blurred[next(iter(pair.blurred))]
        faces = pair.blurred[blur] = (bb, br)
    if faces is None:
        if kernel is None:
            kernel = blur_kernel(blur)
        bb = np.asarray(cv2.filter2D(fb, -1, kernel, borderType=cv2.BORDER_REPLICATE),
                        np.float32)
        br = np.asarray(cv2.filter2D(fr, -1, kernel, borderType=cv2.BORDER_REPLICATE),
                        np.float32)
        faces = (bb, br)
        if not (fb.flags.writeable or fr.flags.writeable):
            if len(pair.blurred) >= _BLURRED_MAX:
                del pair.blurred[next(iter(pair.blurred))]
            faces = pair.blurred[blur] = (read_only(bb), read_only(br))
    return faces


#: How far (stored-patch pixels, about 0.5 mm each) :func:`lean_noise` lays the difference.
PLACEBO_REACH = 12
#: The share of two faces' difference (its squared weight) lying outside the four corner
#: boxes (:data:`~hardware.camera.suits.INDEX_BOX` at each corner) from which the pips, not
#: the indices, are what tells them apart (:func:`lean_noise`).
PIP_SHARE = 0.5


def pip_share(r: _Region, shape: tuple[int, int]) -> float:
    """Return the share of the region's squared difference outside the four corner boxes."""
    h, w = shape
    bw, bh = round(INDEX_BOX[0] * w), round(INDEX_BOX[1] * h)
    corner = (((r.xs < bw) | (r.xs >= w - bw)) & ((r.ys < bh) | (r.ys >= h - bh)))
    dd = r.d * r.d
    return float(dd[~corner].sum()) / max(float(dd.sum()), 1e-12)


class _Placebo:
    """What :func:`lean_noise` derives from two faces alone (computed once per pair)."""

    __slots__ = ("box", "free", "landed", "landed_d", "mean", "pips", "support", "templates",
                 "usable", "usable_share")

    def __init__(self, fb: F32, fr: F32, r: _Region) -> None:
        h, w = fb.shape
        reach = PLACEBO_REACH
        self.mean = np.asarray((fb + fr) / 2, np.float32)
        # Where the faces agree (the region grown, and the card's own border, left out).
        inside = np.zeros((h, w), np.uint8)
        inside[r.ys, r.xs] = 1
        free = np.asarray(cv2.dilate(inside, np.ones((7, 7), np.uint8)) == 0, np.float32)
        free[:4, :] = free[-4:, :] = 0.0
        free[:, :4] = free[:, -4:] = 0.0
        self.free = free
        y0, y1 = int(r.ys.min()), int(r.ys.max()) + 1
        x0, x1 = int(r.xs.min()), int(r.xs.max()) + 1
        self.box = (y0, y1, x0, x1)
        diff = np.zeros((h, w), np.float32)
        diff[r.ys, r.xs] = r.d
        t = np.ascontiguousarray(diff[y0:y1, x0:x1])
        self.templates = (t, np.ascontiguousarray(t * t))
        # The difference's share laid on agreeing print at each offset: an offset is used
        # where at least half of it lands there, beyond the alignment's own search.
        share = cv2.matchTemplate(self.window(free), self.templates[1], cv2.TM_CCORR)
        off = np.abs(np.arange(-reach, reach + 1))
        far = (off[:, None] > SHIFT_PX) | (off[None, :] > SHIFT_PX)
        self.usable = (share > 0.5 * r.dd) & far
        self.usable_share = share
        # For a placebo's own brightness (:func:`lean_noise`, ``joint``): at each offset, how
        # many of the difference's pixels land on agreeing print, and the difference's sum
        # over them.
        self.support = np.asarray(t != 0, np.float32)
        self.landed = cv2.matchTemplate(self.window(free), self.support, cv2.TM_CCORR)
        self.landed_d = cv2.matchTemplate(self.window(free), t, cv2.TM_CCORR)
        self.pips = pip_share(r, (h, w)) >= PIP_SHARE

    def window(self, image: F32) -> F32:
        """``image`` padded with zeros by :data:`PLACEBO_REACH`, cut around the region's box."""
        y0, y1, x0, x1 = self.box
        k = PLACEBO_REACH
        padded = cv2.copyMakeBorder(image, k, k, k, k, cv2.BORDER_CONSTANT, value=0.0)
        return np.ascontiguousarray(padded[y0 : y1 + 2 * k, x0 : x1 + 2 * k])


#: Fewest offsets :func:`lean_noise` measures the noise on.
MIN_PLACEBOS = 8


def _placebo(pair: _Pair, r: _Region) -> _Placebo:
    """Return the pair's :class:`_Placebo` (made once per pair: the faces alone decide it)."""
    if pair.placebo is None:
        pair.placebo = _Placebo(pair.fb, pair.fr, r)
    return pair.placebo


def warm_placebo(fb: F32, fr: F32) -> None:
    """Make ahead what :func:`lean_noise` derives from the two faces alone (the same arrays).

    About 0.8 ms a pair (three template matches over the difference's box); a read of a suit
    twin asks it of the card read and its twin (:mod:`hardware.camera.warmup`).
    """
    pair = _pair(fb, fr)
    r = _region(pair)
    if r.template is not None:
        _placebo(pair, r)


def lean_noise(ob: F32, fb: F32, fr: F32, joint: bool = True) -> float | None:
    """How far :func:`pair_check`'s position strays by noise alone, on this frame.

    The same difference between the two faces is laid, at offsets up to
    :data:`PLACEBO_REACH` beyond the alignment's own search, where the two faces agree: there
    the observation shows neither face's own ink, and the position measured (the observation
    aligned, its brightness and contrast fitted as :func:`pair_check` fits them for the real
    one, ``joint`` or not) is noise, blur misfit,
    compression and print together, as the real position's is. Returns the spread of those
    positions (1.4826 times their median absolute value: a placebo that lands on ink the
    faces print differently from the frame counts once), or None when fewer than
    :data:`MIN_PLACEBOS` offsets land on agreeing print. With ``joint``, for a pair the pips
    tell apart (:func:`pip_share` at least :data:`PIP_SHARE`), each placebo's position is
    fitted with its own brightness over the pixels it lands on, as the real one is.
    """
    pair = _pair(fb, fr)
    r = _region(pair)
    if r.template is None:
        return None
    pl = _placebo(pair, r)
    if int(np.count_nonzero(pl.usable)) < MIN_PLACEBOS:
        return None
    vals, _ = r.template.aligned(ob)
    dy, dx = r.template.shift
    if joint:
        design = np.stack([r.mv, r.d / 2, np.ones_like(r.mv)], axis=1)
        a, _, b = np.linalg.lstsq(design, vals, rcond=None)[0]
    else:
        a, b = line_fit(r.mv, vals)
    if a <= 1e-3:
        return None
    h, w = ob.shape
    s = SHIFT_PX
    moved = cv2.copyMakeBorder(ob, s, s, s, s, cv2.BORDER_REPLICATE)[s + dy : s + dy + h,
                                                                      s + dx : s + dx + w]
    residual = np.asarray(((moved - b) / a - pl.mean) * pl.free, np.float32)
    window = pl.window(residual)
    num = cv2.matchTemplate(window, pl.templates[0], cv2.TM_CCORR)[pl.usable]
    den = pl.usable_share[pl.usable]
    if joint and pl.pips:
        # Each placebo with its own brightness, as the real position is fitted with one: a
        # paper a shade off the level the region's fit gave is no lean (large pips: the
        # difference, mostly one face's ink, sums far from 0 and turned such an offset into
        # positions of 0.3-1.6 on every placebo alike).
        n = np.maximum(pl.landed[pl.usable], 1.0)
        sd = pl.landed_d[pl.usable]
        total = cv2.matchTemplate(window, pl.support, cv2.TM_CCORR)[pl.usable]
        num = num - total * sd / n
        den = np.maximum(den - sd * sd / n, 1e-6)
    positions = num / (den / 2)
    return float(1.4826 * np.median(np.abs(positions)))



def blurred_lean_noise(ob: F32, fb: F32, fr: F32) -> float | None:
    """:func:`lean_noise` against the two faces blurred as ``ob`` is (:func:`matched_blur`)."""
    blur, kernel, _ = matched_blur(ob, fb, fr)
    faces = blurred_faces(fb, fr, blur, kernel)
    return lean_noise(ob, faces[0], faces[1])
