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

import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from hardware.camera.blurmatch import _Placebo, _Spectrum

Image = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]
#: A blur: Gaussian sigma, motion streak length, streak angle (:mod:`hardware.camera.blurmatch`).
Blur = tuple[float, int, int]

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
    #: The observation's contrast over the region, fitted against the faces' (1: as printed;
    #: a glare over the region lifts its ink towards the white and brings this towards 0).
    contrast: float = 0.0
    #: How many halves of the card the region has enough pixels on to be measured alone
    #: (``worst_half`` and ``best_half`` are one half's when 1; 0 where not counted).
    halves: int = 0


def luminance(patch: Image, blur: float = 1.0) -> F32:
    """Lighting-normalised luminance (card white = 1) of a BGR patch, lightly blurred."""
    gray8 = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
    gray = gray8.astype(np.float32)
    # Dilated as bytes (the same maxima, converted exactly; faster than on floats).
    white = cv2.GaussianBlur(cv2.dilate(gray8, _DILATE).astype(np.float32), (0, 0), 8.0)
    np.maximum(white, 16.0, out=white)
    out = np.asarray(gray / white, np.float32)
    return np.asarray(cv2.GaussianBlur(out, (0, 0), blur), np.float32) if blur > 0 else out


class _Template:
    """What :func:`_aligned` derives from ``mean`` and ``region`` alone (computed once).

    ``quarters``: where the region is sparse (the corner indices: a few glyphs in a box the
    size of the card), the template is matched on the region's bounding box in each quarter
    of the card, and the four correlations added. Outside the region the template and its
    weight are 0, so the sum is the whole box's correlation (to float rounding: about 1e-5 of
    the fit), at a part of the cost. Where the quarters' boxes cover half the whole box or
    more, the whole box is matched as without ``quarters``.
    """

    __slots__ = ("box", "norm", "parts", "seen", "shift", "template", "weight", "xs", "ys")

    def __init__(self, mean: F32, region: npt.NDArray[np.bool_], quarters: bool = False) -> None:
        ys, xs = np.nonzero(region)
        y0, y1, x0, x1 = int(ys.min()), int(ys.max()) + 1, int(xs.min()), int(xs.max()) + 1
        inside = region[y0:y1, x0:x1]
        weight = inside.astype(np.float32)
        box = mean[y0:y1, x0:x1]
        level = float(box[inside].mean())
        self.ys, self.xs, self.box, self.weight = ys, xs, (y0, y1, x0, x1), weight
        self.template = np.asarray((box - level) * weight, np.float32)
        self.norm = max(float(np.linalg.norm(self.template[inside])), 1e-6)
        #: Per quarter holding region pixels: its bounding box (y0, y1, x0, x1; observation
        #: px), template and weight there (``quarters`` only).
        self.parts: list[tuple[tuple[int, int, int, int], F32, F32]] = []
        if quarters:
            h, w = region.shape
            for top, bottom in ((0, h // 2), (h // 2, h)):
                for left, right in ((0, w // 2), (w // 2, w)):
                    py, px = np.nonzero(region[top:bottom, left:right])
                    if py.size == 0:
                        continue
                    b = (top + int(py.min()), top + int(py.max()) + 1,
                         left + int(px.min()), left + int(px.max()) + 1)
                    cut = (slice(b[0] - y0, b[1] - y0), slice(b[2] - x0, b[3] - x0))
                    self.parts.append((b, np.ascontiguousarray(self.template[cut]),
                                       np.ascontiguousarray(weight[cut])))
            if sum(w.size for _, _, w in self.parts) >= 0.5 * weight.size:
                self.parts = []
        #: The last read-only observation aligned (by a weak reference: the same array, alive,
        #: not written to since) and what :meth:`aligned` returned for it.
        self.seen: tuple[weakref.ref[F32], F32, float, tuple[int, int]] | None = None
        #: The shift (rows, columns) of the last observation aligned.
        self.shift = (0, 0)

    def aligned(self, obs: F32) -> tuple[F32, float]:
        """:func:`_aligned` of ``obs`` on this template.

        The checks of one observation against one pair of faces (:func:`ink_check`, then
        :func:`pair_check`) align it once: the last read-only observation's result is kept
        (read-only too), another array is aligned afresh.
        """
        seen = self.seen
        if seen is not None and seen[0]() is obs and not obs.flags.writeable:
            self.shift = seen[3]
            return seen[1], seen[2]
        vals, corr = self._aligned(obs)
        if not obs.flags.writeable:
            self.seen = (weakref.ref(obs), read_only(vals), corr, self.shift)
        return vals, corr

    def _aligned(self, obs: F32) -> tuple[F32, float]:
        ys, xs = self.ys, self.xs
        y0, y1, x0, x1 = self.box
        weight = self.weight
        s = SHIFT_PX
        padded = np.asarray(cv2.copyMakeBorder(obs, s, s, s, s, cv2.BORDER_REPLICATE),
                            np.float32)
        if self.parts:
            products, sums, squares = self._by_parts(padded)
        else:
            window = np.ascontiguousarray(padded[y0 : y1 + 2 * s, x0 : x1 + 2 * s])
            products, sums, squares = (np.asarray(cv2.matchTemplate(w, t, cv2.TM_CCORR),
                                                  np.float32)
                                       for w, t in ((window, self.template), (window, weight),
                                                    (np.ascontiguousarray(window * window),
                                                     weight)))
        spread = np.sqrt(np.maximum(squares - sums * sums / float(ys.size), 1e-12))
        corr = products / (spread * self.norm)
        k = int(np.argmax(corr))
        dy, dx = k // (2 * s + 1) - s, k % (2 * s + 1) - s
        self.shift = (dy, dx)
        h, w = obs.shape
        vals = obs[np.clip(ys + dy, 0, h - 1), np.clip(xs + dx, 0, w - 1)]
        return np.asarray(vals, np.float32), float(corr.flat[k])


    def _by_parts(self, padded: F32) -> tuple[F32, F32, F32]:
        """Return the three correlations of :meth:`_aligned`, summed over :attr:`parts`."""
        s = SHIFT_PX
        out: list[F32] = []
        for (y0, y1, x0, x1), template, weight in self.parts:
            window = np.ascontiguousarray(padded[y0 : y1 + 2 * s, x0 : x1 + 2 * s])
            got = (cv2.matchTemplate(window, template, cv2.TM_CCORR),
                   cv2.matchTemplate(window, weight, cv2.TM_CCORR),
                   cv2.matchTemplate(np.ascontiguousarray(window * window), weight,
                                     cv2.TM_CCORR))
            if out:
                for total, part in zip(out, got, strict=True):
                    total += part
            else:
                out = [np.asarray(g, np.float32) for g in got]
        return out[0], out[1], out[2]


def _aligned(obs: F32, mean: F32, region: npt.NDArray[np.bool_]) -> tuple[F32, float]:
    """Observation values over ``region`` at the shift (up to SHIFT_PX) that fits ``mean`` best.

    Returns those values and the correlation there. The shift is chosen on the twins' mean
    face, so it favours neither. The correlations at every shift come from three template
    matches over the region's bounding box (the observation padded by repeating its edge).
    """
    return _Template(mean, region).aligned(obs)


#: OpenBLAS runs a float64 dot product of more than this many elements on every core.
_DOT_ONE_THREAD = 10_000


def dot(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> np.float64:
    """Return ``a @ b`` of two float64 vectors on the calling thread.

    OpenBLAS splits a ``ddot`` of more than :data:`_DOT_ONE_THREAD` elements over its threads
    (about 3 ms of the caller's CPU for 15,000 elements on a loaded machine, against 0.01 ms
    on one thread). Summed here in as many nearly equal parts as it takes to stay under that
    size, added in order as OpenBLAS adds its threads' sums: on two cores the same value bit
    for bit (a whole card has 14,000 to 18,000 pixels; parts of ``ceil(n / 2)`` and the rest).
    """
    n = a.shape[0]
    if n <= _DOT_ONE_THREAD:
        return np.float64(np.dot(a, b))
    parts = -(-n // _DOT_ONE_THREAD)
    total, start = np.float64(0.0), 0
    for left in range(parts, 0, -1):
        width = -(-(n - start) // left)
        total = total + np.dot(a[start : start + width], b[start : start + width])
        start += width
    return np.float64(total)


class LineX:
    """What :func:`line_fit` derives from ``x`` alone (computed once for a fixed ``x``)."""

    __slots__ = ("xc", "xm", "xx")

    def __init__(self, x: F32 | npt.NDArray[np.float64]) -> None:
        xd = x.astype(np.float64)
        self.xm = xd.mean()
        self.xc = xd - self.xm
        self.xx = dot(self.xc, self.xc)


def line_fit(x: F32 | npt.NDArray[np.float64] | LineX, y: F32) -> tuple[np.float64, np.float64]:
    """Least-squares line ``y = a x + b`` (as ``np.polyfit(x, y, 1)``, in closed form).

    ``x`` may be given as its :class:`LineX` (the same result, its share computed once).
    """
    lx = x if isinstance(x, LineX) else LineX(x)
    yd = y.astype(np.float64)
    ym = yd.mean()
    xc, xx = lx.xc, lx.xx
    a = np.float64(dot(xc, yd - ym) / xx) if xx > 0 else np.float64(0.0)
    return a, np.float64(ym - a * lx.xm)


def suit_check(observed: Image, best: Image, rival: Image) -> SuitCheck:
    """Compare ``observed`` with two twin faces where they differ (all BGR, the same size).

    ``observed`` must already be turned the way the faces are (upright).
    """
    return pair_check(observed_luminance(observed), face_luminance(best), face_luminance(rival))


def observed_luminance(observed: Image) -> F32:
    """Luminance of an observed patch as :func:`pair_check` takes it (read-only).

    Read-only so that the checks of one card can share what they derive from it
    (:meth:`hardware.camera.index.IndexBank.read`).
    """
    return read_only(luminance(observed, blur=1.0))


def face_luminance(face: Image) -> F32:
    """Luminance of a registered face's patch as :func:`pair_check` takes it."""
    return luminance(face, blur=1.5)


class _Region:
    """What :func:`pair_check` derives from the two faces alone (computed once per pair)."""

    __slots__ = ("d", "dd", "halves", "mv", "n", "template", "xs", "ys")

    def __init__(self, fb: F32, fr: F32) -> None:
        diff = np.abs(fb - fr) >= DIFFERENCE_LEVEL
        region = cv2.dilate(diff.astype(np.uint8), np.ones((7, 7), np.uint8)) > 0
        border = 4
        region[:border, :] = region[-border:, :] = False
        region[:, :border] = region[:, -border:] = False
        self.n = int(np.count_nonzero(region))
        self.template: _Template | None = None
        if self.n < MIN_REGION_PX:
            return
        mean = np.asarray((fb + fr) / 2, np.float32)
        self.template = _Template(mean, region, quarters=True)
        ys, xs = np.nonzero(region)
        self.ys, self.xs = ys, xs
        self.mv = mean[ys, xs]
        self.d = fb[ys, xs] - fr[ys, xs]
        self.dd = float(self.d @ self.d)
        #: Per half of the card (with enough pixels): its mask, mean face, difference, d @ d.
        self.halves: list[tuple[npt.NDArray[np.bool_], F32, F32, float]] = []
        for half in (ys < fb.shape[0] // 2, ys >= fb.shape[0] // 2):
            dh = self.d[half]
            if dh.size < MIN_REGION_PX // 2:
                continue
            self.halves.append((half, self.mv[half], dh, float(dh @ dh)))


    def reversed(self) -> _Region:
        """Return the region of the two faces the other way round (``fr``, ``fb``).

        The same pixels, mean face and template (so :meth:`_Template.aligned` keeps one
        alignment for both orders), the difference negated: ``fr - fb`` exactly, zeros
        positive as that subtraction gives them.
        """
        out = _Region.__new__(_Region)
        out.n, out.template = self.n, self.template
        if self.template is None:
            return out
        out.ys, out.xs, out.mv, out.dd = self.ys, self.xs, self.mv, self.dd
        out.d = _negated(self.d)
        out.halves = [(half, mvh, _negated(dh), dhdh) for half, mvh, dh, dhdh in self.halves]
        return out


def _negated(d: F32) -> F32:
    """Return ``-d`` with positive zeros (``b - a`` for ``d = a - b``, bit for bit)."""
    out = np.negative(d)
    out[out == 0] = 0.0
    return out


class _Pair:
    """Two faces' luminances and what is derived from them alone, each computed once."""

    __slots__ = ("blobs", "blur_setup", "blurred", "boxes", "fb", "fr", "placebo", "region")

    def __init__(self, fb: F32, fr: F32) -> None:
        self.fb, self.fr = fb, fr
        self.region: _Region | None = None
        #: :func:`ink_check`'s blobs of each face's own ink (indices into the region's pixels).
        self.blobs: tuple[list[npt.NDArray[np.intp]], list[npt.NDArray[np.intp]]] | None = None
        #: :func:`index_positions`'s per corner index box it uses.
        self.boxes: list[_IndexBox] | None = None
        #: :func:`matched_blur`'s per observation shape (and whether fitted on the corner
        #: indices alone): the mean face at half size (a :class:`_Spectrum`), the pixels
        #: fitted, and per blur the blurred mean there (centred) and its norm.
        self.blur_setup: dict[tuple[int, int, bool], tuple[_Spectrum, npt.NDArray[np.bool_],
                                                     dict[Blur, tuple[F32, float]]]] = {}
        #: Per blur kernel found: the two faces blurred by it (read-only).
        self.blurred: dict[Blur, tuple[F32, F32]] = {}
        #: :func:`~hardware.camera.blurmatch.lean_noise`'s share (computed when first needed).
        self.placebo: _Placebo | None = None


#: Face pairs seen (by the identity of two read-only luminance arrays, the registered faces').
_PAIRS: OrderedDict[tuple[int, int], _Pair] = OrderedDict()
_PAIRS_MAX = 512
#: Blurred mean faces kept per pair (:func:`matched_blur`), blurred face pairs per pair.
_BLURS_MAX = 2048
_BLURRED_MAX = 16


def _pair(fb: F32, fr: F32) -> _Pair:
    """Return the cached :class:`_Pair` of two read-only arrays (a new one if writable)."""
    if fb.flags.writeable or fr.flags.writeable:
        return _Pair(fb, fr)
    key = (id(fb), id(fr))
    pair = _PAIRS.get(key)
    if pair is not None and pair.fb is fb and pair.fr is fr:
        _PAIRS.move_to_end(key)
        return pair
    pair = _PAIRS[key] = _Pair(fb, fr)
    if len(_PAIRS) > _PAIRS_MAX:
        _PAIRS.popitem(last=False)
    return pair


def _reversed(pair: _Pair) -> _Pair | None:
    """Return the cached pair of the same two read-only faces the other way round, if any."""
    fb, fr = pair.fb, pair.fr
    if fb is fr or fb.flags.writeable or fr.flags.writeable:
        return None
    back = _PAIRS.get((id(fr), id(fb)))
    return back if back is not None and back.fb is fr and back.fr is fb else None


def _region(pair: _Pair) -> _Region:
    """Return the pair's :class:`_Region`: the reversed pair's turned round, if it has one."""
    if pair.region is None:
        back = _reversed(pair)
        if back is not None and back.region is not None:
            pair.region = back.region.reversed()
        else:
            pair.region = _Region(pair.fb, pair.fr)
    return pair.region


def pair_check(ob: F32, fb: F32, fr: F32, joint: bool = False) -> SuitCheck:
    """:func:`suit_check` on luminances (:func:`observed_luminance`, :func:`face_luminance`).

    Any two faces may be compared this way (not only suit twins): where they differ, which of
    the two the observation shows. What depends on the two faces alone is computed once per
    pair of read-only arrays (the registered faces', :func:`read_only`).

    :param joint: fit the observation's brightness and contrast together with its position
        (least squares on the mean face, the difference and a constant), instead of on the
        mean face first: where the two faces' mean and difference go together (ink of one
        face only), the first fit takes up part of the difference and pulls the position
        towards halfway.
    """
    pair = _pair(fb, fr)
    r = _region(pair)
    if r.template is None:
        return SuitCheck(0.0, 0.0, r.n)
    vals, fit = r.template.aligned(ob)
    mv, d = r.mv, r.d
    if joint:
        design = np.stack([mv, d / 2, np.ones_like(mv)], axis=1)
        a, _, b = np.linalg.lstsq(design, vals, rcond=None)[0]
    else:
        # Brightness and contrast of the observation fitted to the mean face (least squares).
        a, b = line_fit(mv, vals)
    if a <= 1e-3:
        return SuitCheck(0.0, fit, r.n)
    o = (vals - b) / a
    halves = [float((o[half] - mvh) @ dh) / max(dhdh / 2, 1e-6)
              for half, mvh, dh, dhdh in r.halves]
    position = float((o - mv) @ d) / max(r.dd / 2, 1e-6)
    return SuitCheck(position, fit, r.n, min(halves) if halves else 0.0,
                     max(halves) if halves else 0.0, float(a), len(halves))


@dataclass(frozen=True, slots=True)
class InkCheck:
    """Which of two faces' own ink an observation shows (:func:`ink_check`).

    :param own: the highest position (+1: the best face's, -1: the rival's) over the blobs
        of ink only the best face has: at +1 that ink is there, as printed.
    :param rival: the lowest position over the blobs of ink only the rival has: at -1 the
        rival's ink is there; +1 (white, as on the best face) when it is not.
    :param blobs: how many blobs of each kind were measured (best face's, rival's).
    """

    own: float
    rival: float
    blobs: tuple[int, int]


#: Fewest pixels of a blob of one face's own ink (:func:`ink_check`), at the stored size.
MIN_BLOB_PX = 16


def ink_check(ob: F32, fb: F32, fr: F32, ignore: Image | None = None) -> InkCheck:
    """Where the observation lies between two faces, blob by blob of each face's own ink.

    A glare (a glossy card's reflection) adds white: it can wash a pip or a stroke out, never
    print one. Ink only the best face has (``fb`` darker than ``fr`` by
    :data:`DIFFERENCE_LEVEL`), found at full strength in one blob, is evidence a glare cannot
    make; ink only the rival has, found in one blob, refutes the best face whatever else a
    glare washed out. Aligned as :func:`pair_check` is, brightness and contrast fitted on the
    pair's whole difference region (jointly with the position); each blob (a connected piece
    of one face's own ink, at least :data:`MIN_BLOB_PX` pixels) is then measured alone.
    ``ignore`` (stored size, upright; nonzero where a neighbouring card may lie over or under
    this one): a blob of the best face's own ink reaching into it is no evidence for the best
    face (the neighbour's print may be what shows there); the rival's blobs are all measured.
    """
    pair = _pair(fb, fr)
    r = _region(pair)
    if r.template is None:
        return InkCheck(-1.0, -1.0, (0, 0))
    if pair.blobs is None:
        pair.blobs = _ink_blobs(fb, fr, r)
    vals, _ = r.template.aligned(ob)
    # Brightness, contrast and position together (as pair_check's ``joint``): where ink is in
    # one face only, a fit on the mean face alone takes up the difference.
    design = np.stack([r.mv, r.d / 2, np.ones_like(r.mv)], axis=1)
    a, _, b = np.linalg.lstsq(design, vals, rcond=None)[0]
    if a <= 1e-3:
        return InkCheck(-1.0, -1.0, (0, 0))
    o = (vals - b) / a - r.mv
    own_blobs, rival_blobs = pair.blobs
    if ignore is not None:
        own_blobs = [i for i in own_blobs if not ignore[r.ys[i], r.xs[i]].any()]
    own = [float(o[i] @ r.d[i]) / max(float(r.d[i] @ r.d[i]) / 2, 1e-6) for i in own_blobs]
    rival = [float(o[i] @ r.d[i]) / max(float(r.d[i] @ r.d[i]) / 2, 1e-6)
             for i in rival_blobs]
    return InkCheck(max(own) if own else -1.0, min(rival) if rival else 1.0,
                    (len(own), len(rival)))


def _ink_blobs(fb: F32, fr: F32, r: _Region) -> tuple[list[npt.NDArray[np.intp]],
                                                        list[npt.NDArray[np.intp]]]:
    """Return the indices into the region's pixels of each blob of ``fb``'s, ``fr``'s own ink."""
    out: tuple[list[npt.NDArray[np.intp]], list[npt.NDArray[np.intp]]] = ([], [])
    for k, ink in enumerate((fr - fb >= DIFFERENCE_LEVEL, fb - fr >= DIFFERENCE_LEVEL)):
        grown = cv2.dilate(ink.astype(np.uint8), np.ones((3, 3), np.uint8))
        _, labels = cv2.connectedComponents(grown, connectivity=8)
        at = labels[r.ys, r.xs]
        own = ink[r.ys, r.xs]
        for label in np.unique(at[own & (at > 0)]):
            idx = np.flatnonzero(own & (at == label))
            if idx.size >= MIN_BLOB_PX:
                out[k].append(idx)
    return out


def read_only(lum: F32) -> F32:
    """Return ``lum`` marked read-only: :func:`pair_check` then computes each pair's share once."""
    lum.setflags(write=False)
    return lum


def index_positions(ob: F32, fb: F32, fr: F32) -> tuple[float, ...]:
    """Return the position (as :func:`pair_check`'s) on each corner index box alone.

    Each box is aligned and fitted on its own; a box where the two faces barely differ is left
    out, and so is a box whose ink the fit finds gone (:func:`index_leans`' contrast). Only the
    two boxes (:data:`INDEX_BOX`, top-left and bottom-right) are cut, so this costs a fraction
    of :func:`pair_check`.
    """
    return tuple(pos for pos, contrast in index_leans(ob, fb, fr) if contrast > 1e-3)


def index_leans(ob: F32, fb: F32, fr: F32,
                ignore: Image | None = None) -> list[tuple[float, float]]:
    """Per corner index box, where the observation lies between two faces and its contrast.

    As :func:`index_positions` (each box aligned and fitted on its own; a box where the two
    faces barely differ left out), with each box's fitted contrast (the scale of the
    observation against the faces there: 1 as printed, towards 0 where a glare lifted the
    index's ink; a box with none is given position 0). ``ob`` is
    :func:`observed_luminance`'s, ``fb`` and ``fr`` the two faces' :func:`face_luminance`.
    ``ignore`` (stored size, upright; nonzero where a neighbouring card may lie over this one):
    a box reaching into it is left out (what shows there may be the neighbour's print).
    """
    pair = _pair(fb, fr)
    if pair.boxes is None:
        pair.boxes = _index_boxes(fb, fr)
    out = []
    for crop_at, template, mv, d, dd in pair.boxes:
        if ignore is not None and ignore[crop_at].any():
            continue
        vals, _ = template.aligned(np.ascontiguousarray(ob[crop_at]))
        a, b = line_fit(mv, vals)
        if a <= 1e-3:
            out.append((0.0, float(max(a, 0.0))))
            continue
        o = (vals - b) / a
        out.append((float((o - mv) @ d) / max(dd / 2, 1e-6), float(a)))
    return out


_IndexBox = tuple[tuple[slice, slice], _Template, F32, F32, float]


def _index_boxes(fb: F32, fr: F32) -> list[_IndexBox]:
    """Return what :func:`index_positions` derives from the two faces alone, per box."""
    h, w = fb.shape
    bw, bh = round(INDEX_BOX[0] * w), round(INDEX_BOX[1] * h)
    border, s = 4, SHIFT_PX
    out: list[_IndexBox] = []
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
        crop_at = (slice(oy0, min(y0 + bh + s, h)), slice(ox0, min(x0 + bw + s, w)))
        shape = (crop_at[0].stop - oy0, crop_at[1].stop - ox0)
        full = np.zeros(shape, bool)
        full[y0 - oy0 : y0 - oy0 + bh, x0 - ox0 : x0 - ox0 + bw] = region
        mean = np.zeros(shape, np.float32)
        mean[y0 - oy0 : y0 - oy0 + bh, x0 - ox0 : x0 - ox0 + bw] = (cb + cr) / 2
        ys, xs = np.nonzero(region)
        mv = np.asarray(((cb + cr) / 2)[ys, xs], np.float32)
        d = np.asarray(cb[ys, xs] - cr[ys, xs], np.float32)
        out.append((crop_at, _Template(mean, full), mv, d, float(d @ d)))
    return out
