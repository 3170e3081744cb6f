"""Suit twins told apart on the corner indices at the frame's own resolution.

On a design whose twelve courts share one picture, the king of clubs and the king of spades
differ only in the small suit symbols of the corner indices. The stored faces
(:data:`~hardware.camera.facebank.STORED_PATCH_SIZE`, about 1.9 px/mm) draw such a symbol in
a few pixels, while a camera shows the card at 2.4-3.2 px/mm: the stored faces throw away what
the frame still resolves. Here the registered faces' corners are kept at the resolution they
were registered at (:class:`FineFaces`), and an undecided pair is compared where the frame
shows it (:func:`fine_lean`).

Rules this module keeps:

1. Each corner box (:data:`FINE_BOX` of the card at each of its four corners) is cut from the
   full-resolution frame at the located pose, at the size the card has in the frame, and the
   two twins' faces are resized to that same size (``INTER_AREA``).
2. Each box is aligned on the two twins' mean (the rank glyph and the paper; it favours neither
   twin) within :data:`SHIFT_PX`, then fitted as ``a * mean + b + c * half_difference``; the
   blur (a Gaussian, :data:`SIGMAS`) is the one that fits all the corners best together. The
   lean is ``c / a`` (+1: the first card's face, -1: its twin's), with its standard error from
   the fit's residual, widened for the residual's spatial correlation.
3. Only the corners where the twins differ (:data:`MIN_DIFFERENCE_SHARE` of the corner that
   differs most) count; a corner a neighbour may cover, or that leaves the frame, is not
   available. The decision (:func:`decide_fine`) asks every available corner to fit well, to
   lean the same way clearly, and each above its own noise.
4. Pure: arrays in, a :class:`FineLean` out; caches are bounded.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
import numpy.typing as npt

from hardware.camera.blurmatch import blur_kernel
from hardware.camera.finedecide import (
    MIN_FIT,
    MIN_MEAN,
    NOISE_RATIO,
    TWIN_WEAKEST_RATIO,
    CornerLean,
    FineLean,
    decide_fine,
    fine_confirms,
    fine_confirms_indexed,
    fine_refutes,
    negated,
)
from hardware.camera.finefit import PLACEBO_SHIFTS as PLACEBO_SHIFTS
from hardware.camera.finefit import _fit as _fit
from hardware.camera.finefit import _placebos as _placebos
from hardware.camera.fineindex import index_corners
from hardware.camera.suits import Blur
from table_controller.engine.cards import RANKS, Card

F32 = npt.NDArray[np.float32]
Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]

#: The corner box (fraction of the card's width, of its height) at each corner.
FINE_BOX = (0.22, 0.3)
#: The ranks the fine comparison decides and vetoes suit twins of: the courts
#: (:func:`~hardware.camera.twindecide.decide_twin`,
#: :meth:`~hardware.camera.rivals.RivalChecks._fine_vetoed`). On pip cards its corner boxes
#: leaned clearly the wrong way on right reads (benchmark run 65: spades of a four-corner
#: design towards the club on every box, leans -0.3 to -1.9 at fits 0.89-0.99; on hard frames
#: a club's pip corners towards the spade), so it neither reads nor refuses them; on courts,
#: whose twins differ in the index alone, none did.
FINE_RANKS = frozenset(RANKS.index(r) for r in "JQK")
#: A fine face's longer side is kept at most this (px; about 9.5 px/mm on an 88 mm card, three
#: times what the cameras show): a larger registered image is reduced to it
#: (:func:`fine_grey`), and a faces file holding a larger one is refused, so a scan's size
#: cannot grow the profile.
FINE_MAX_PX = 840
#: A fine face shorter than this (px) is refused in a faces file: it cannot be the
#: registered face.
FINE_MIN_PX = 64
#: The card's own edge (fraction of the width) left out of each box: felt may show there.
EDGE = 0.02
#: Largest shift (frame px) searched when aligning a corner box.
SHIFT_PX = 5
#: The blurs tried (frame px; :data:`~hardware.camera.suits.Blur`: a Gaussian's sigma after a
#: straight streak's length at an angle): a coarse grid, then the neighbours of the best at
#: :data:`BLUR_STEPS`, each step halving. Fitted at half the frame's size on the twins' mean
#: where the two agree (the rank glyph, the paper), so the choice favours neither.
BLUR_GRID: tuple[Blur, ...] = tuple(
    (s, n, a) for s in (0.5, 1.2, 2.0, 3.0) for n in (0, 6, 12)
    for a in ((0, 45, 90, 135) if n else (0,)))
BLUR_STEPS = ((0.4, 3, 22), (0.2, 2, 11))
#: Where the twins differ by at least this (grey levels, at half size) is left out of the fit.
AGREE_LEVEL = 6.0
#: How many corner boxes (those where the twins differ most) the blur is fitted on.
BLUR_CORNERS = 2
#: Columns (half size) between the boxes laid side by side for the blur's fit: more than the
#: largest kernel's radius.
_GAP = 16
#: A corner counts when the twins' difference there holds at least this share of the energy
#: of the corner where they differ most.
MIN_DIFFERENCE_SHARE = 0.25
#: Faces resized to a frame's size, kept per (card, size).
_RESIZED_MAX = 64
#: Observations whose view is kept (:meth:`FineFaces.look`).
_VIEWS_MAX = 8


@dataclass(frozen=True, slots=True)
class FineView:
    """Where a card lies in a frame: the frame, its corners (px) upright, covered corner boxes.

    :param quad: TL, TR, BR, BL of the card turned upright (its top-left index first).
    :param hidden: per corner box (TL, TR, BL, BR, upright), whether a neighbour may lie
        over it.
    """

    frame: Image
    quad: FloatArray
    hidden: tuple[bool, bool, bool, bool] = (False, False, False, False)


class FineFaces:
    """Each registered face's luminance at the resolution it was registered at (read-only).

    :param faces: card -> BGR(A) face as registered (transparent outside the card: white).
    :param captured: the faces were captured by the camera (``vision capture-faces``), not
        registered from face images: every suit-twin read is then confirmed on them
        (:meth:`~hardware.camera.rivals.RivalChecks._fine_vetoed`), not only a court's.
    """

    def __init__(self, faces: Mapping[Card, Image], captured: bool = False) -> None:
        self.captured = captured
        self._grey: dict[Card, Image] = {}
        for card, face in faces.items():
            grey = fine_grey(face)
            grey.setflags(write=False)
            self._grey[card] = grey
        self._resized: OrderedDict[tuple[Card, int, int], F32] = OrderedDict()
        #: The corners holding an index: found once, where captured (only such a deck asks).
        self._index = self._index_corners() if captured and self._grey else None
        #: Where each recent observation was cut from (:meth:`look`), by the array's identity.
        self._views: OrderedDict[int, tuple[F32, FineView]] = OrderedDict()
        #: The last comparisons made, by observation and pair.
        self._leans: OrderedDict[tuple[int, Card, Card], tuple[F32, FineLean | None]] = (
            OrderedDict())

    def _index_corners(self) -> frozenset[int]:
        return index_corners(self._grey, _boxes(next(iter(self._grey.values())).shape[::-1]))

    def look(self, observed: F32, view: FineView) -> None:
        """Note that ``observed`` (a read-only stored-size cut) was cut from ``view``."""
        self._views[id(observed)] = (observed, view)
        self._views.move_to_end(id(observed))
        while len(self._views) > _VIEWS_MAX:
            self._views.popitem(last=False)

    def _view(self, observed: F32) -> tuple[F32, FineView] | None:
        seen = self._views.get(id(observed))
        return seen if seen is not None and seen[0] is observed else None

    def rough_lean(self, observed: F32, card: Card, twin: Card, blur: Blur) -> FineLean | None:
        """:func:`fine_lean` at ``blur`` (no blur search, nothing kept); no view noted: None.

        None too where the comparison at the searched blur is kept already (:meth:`_lean`).
        """
        seen = self._view(observed)
        if seen is None or any(self._leans.get((id(observed), a, b), (None,))[0] is observed
                               for a, b in ((card, twin), (twin, card))):
            return None
        return fine_lean(seen[1].frame, seen[1].quad, card, twin, self, seen[1].hidden, blur)

    def decide(self, observed: F32, card: Card, twin: Card,
               noise_ratio: float | None = None, min_mean: float | None = None,
               ) -> tuple[int, float]:
        """Decide ``card`` (+1) or ``twin`` (-1) on the view ``observed`` was cut from, or 0.

        Also returns the weakest corner's lean towards the card decided (0 when undecided).
        No view noted for ``observed`` (:meth:`look`): undecided. ``noise_ratio`` and
        ``min_mean``: :func:`decide_fine`'s bounds (None: the twins', :data:`NOISE_RATIO` and
        :data:`MIN_MEAN`; two cards of different ranks: :data:`RANK_NOISE_RATIO`,
        :data:`RANK_MIN_MEAN`).
        """
        seen = self._view(observed)
        if seen is None:
            return 0, 0.0
        lean = self._lean(observed, seen[1], card, twin)
        court_twins = card.rank == twin.rank and card.rank in FINE_RANKS
        sign = decide_fine(lean, NOISE_RATIO if noise_ratio is None else noise_ratio,
                           MIN_MEAN if min_mean is None else min_mean,
                           TWIN_WEAKEST_RATIO if court_twins else None)
        if sign == 0 or lean is None:
            return 0, 0.0
        return sign, min(sign * c.lean for c in lean.corners)

    def lean(self, observed: F32, card: Card, twin: Card) -> FineLean | None:
        """Return the corners' comparison of ``card`` (+) with ``twin`` (-); no view noted: None."""
        seen = self._view(observed)
        if seen is None:
            return None
        return self._lean(observed, seen[1], card, twin)

    def denies(self, observed: F32, card: Card, twin: Card) -> bool:
        """Whether the corners decide ``twin`` over ``card`` (:meth:`decide`: -1).

        Asked of a twin read by the stored faces blurred as the observation is: each box is
        aligned on its own, so the cut's offset that turns that comparison does not turn
        these (benchmark run 90).
        """
        return self.decide(observed, card, twin)[0] < 0

    def refutes(self, observed: F32, card: Card, twin: Card,
                noise_ratio: float | None = None) -> bool:
        """Whether the view ``observed`` was cut from shows ``twin`` rather than ``card``.

        :func:`fine_refutes` on :func:`fine_lean` (``noise_ratio``: its bound, None:
        :data:`~hardware.camera.finedecide.NOISE_RATIO`); no view noted for ``observed``:
        False.
        """
        seen = self._view(observed)
        if seen is None:
            return False
        return fine_refutes(self._lean(observed, seen[1], card, twin),
                            NOISE_RATIO if noise_ratio is None else noise_ratio)

    def confirms(self, observed: F32, card: Card, twin: Card,
                 noise_ratio: float | None = None) -> bool | None:
        """Whether the view ``observed`` was cut from shows ``card`` clearly against ``twin``.

        :func:`fine_confirms` on :func:`fine_lean`; no view noted for ``observed``: None.
        """
        seen = self._view(observed)
        if seen is None:
            return None
        return fine_confirms(self._lean(observed, seen[1], card, twin),
                             NOISE_RATIO if noise_ratio is None else noise_ratio)

    def confirms_indexed(self, observed: F32, card: Card, twin: Card,
                         noise_ratio: float | None = None) -> bool | None:
        """Whether the index corners of the view ``observed`` was cut from show ``card``.

        :func:`fine_confirms_indexed` on :func:`fine_lean`, on the corners that hold an index
        (:func:`~hardware.camera.fineindex.index_corners`); no view noted: None.
        """
        seen = self._view(observed)
        if seen is None:
            return None
        if self._index is None:
            self._index = self._index_corners()
        return fine_confirms_indexed(self._lean(observed, seen[1], card, twin),
                                     NOISE_RATIO if noise_ratio is None else noise_ratio,
                                     self._index)

    def blur_seen(self, observed: F32, card: Card, twin: Card) -> tuple[Blur, float] | None:
        """Return the blur the corner boxes were compared at, and the stored size's scale.

        The blur is :func:`fine_lean`'s (frame px); the scale, the cut's width over the
        card's width in the frame.

        None where no view is noted for ``observed`` or no corner was compared.
        """
        seen = self._view(observed)
        if seen is None:
            return None
        lean = self._lean(observed, seen[1], card, twin)
        if lean is None or not lean.corners:
            return None
        width = quad_size(seen[1].quad)[0]
        return (lean.blur, observed.shape[1] / width) if width > 0 else None

    def _lean(self, observed: F32, view: FineView, card: Card, twin: Card) -> FineLean | None:
        """:func:`fine_lean` of the pair on ``view``, kept per observation and pair.

        The pair compared the other way round is the same comparison, its leans negated.
        """
        known = self._leans.get((id(observed), card, twin))
        if known is not None and known[0] is observed:
            return known[1]
        other = self._leans.get((id(observed), twin, card))
        if other is not None and other[0] is observed:
            return None if other[1] is None else negated(other[1])
        lean = fine_lean(view.frame, view.quad, card, twin, self, view.hidden)
        self._leans[(id(observed), card, twin)] = (observed, lean)
        while len(self._leans) > _VIEWS_MAX:
            self._leans.popitem(last=False)
        return lean

    def __contains__(self, card: object) -> bool:
        return card in self._grey

    def grey(self, card: Card) -> Image:
        """Return the registered face's luminance (uint8, read-only)."""
        return self._grey[card]

    def at_size(self, card: Card, size: tuple[int, int]) -> F32:
        """Return the face resized to ``size`` (width, height), as a frame's pixels would be."""
        key = (card, size[0], size[1])
        out = self._resized.get(key)
        if out is None:
            out = np.asarray(cv2.resize(self._grey[card].astype(np.float32), size,
                                        interpolation=cv2.INTER_AREA), np.float32)
            out.setflags(write=False)
            self._resized[key] = out
            if len(self._resized) > _RESIZED_MAX:
                self._resized.popitem(last=False)
        else:
            self._resized.move_to_end(key)
        return out


def corners_hidden(over: Image | None) -> tuple[bool, bool, bool, bool]:
    """Which corner boxes (TL, TR, BL, BR) of an upright card a mask marks anywhere.

    :param over: where a neighbour may lie over the card, at any size, upright (None: nowhere).
    """
    if over is None:
        return (False, False, False, False)
    h, w = over.shape[:2]
    hits = [bool(np.any(over[y:y + bh, x:x + bw])) for x, y, bw, bh in _boxes((w, h), 0)]
    return (hits[0], hits[1], hits[2], hits[3])


def fine_grey(face: Image) -> Image:
    """Return a registered face's luminance, transparent pixels taken as white paper.

    A face whose longer side is over :data:`FINE_MAX_PX` is reduced to that first (area
    average).
    """
    if max(face.shape[:2]) > FINE_MAX_PX:
        scale = FINE_MAX_PX / max(face.shape[:2])
        size = (min(FINE_MAX_PX, max(1, round(face.shape[1] * scale))),
                min(FINE_MAX_PX, max(1, round(face.shape[0] * scale))))
        face = np.asarray(cv2.resize(face, size, interpolation=cv2.INTER_AREA), np.uint8)
    f = face.astype(np.float32)
    if f.ndim == 2:
        return np.asarray(np.clip(f + 0.5, 0, 255), np.uint8)
    alpha = f[..., 3:4] / 255 if f.shape[2] == 4 else np.ones_like(f[..., :1])
    bgr = f[..., :3] * alpha + 255 * (1 - alpha)
    grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    return np.asarray(np.clip(grey + 0.5, 0, 255), np.uint8)


def _boxes(size: tuple[int, int], edge: int | None = None) -> list[tuple[int, int, int, int]]:
    """Return the four corner boxes (x, y, w, h) of a card of ``size`` px: TL, TR, BL, BR."""
    w, h = size
    e = max(1, round(EDGE * w)) if edge is None else edge
    bw, bh = round(FINE_BOX[0] * w) - e, round(FINE_BOX[1] * h) - e
    return [(e, e, bw, bh), (w - e - bw, e, bw, bh), (e, h - e - bh, bw, bh),
            (w - e - bw, h - e - bh, bw, bh)]


def _card_to_frame(quad: FloatArray, size: tuple[int, int]) -> FloatArray:
    """Homography from the upright card's pixels at ``size`` to the frame (pixel centres)."""
    w, h = size
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) - 0.5
    return np.asarray(cv2.getPerspectiveTransform(src, quad.astype(np.float32)), np.float64)


def _cut(frame: Image, to_frame: FloatArray, x: float, y: float, w: int, h: int) -> F32:
    """Cut the card's box at (x, y) (card px, may be fractional) of ``w`` x ``h`` from the frame.

    Returned as luminance; ``frame`` is BGR or grey.
    """
    shift = np.array([[1, 0, x], [0, 1, y], [0, 0, 1]], np.float64)
    m = to_frame @ shift
    out = cv2.warpPerspective(frame, m, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                              borderMode=cv2.BORDER_REPLICATE)
    if out.ndim == 3:
        out = cv2.cvtColor(out, cv2.COLOR_BGR2GRAY)
    return np.asarray(out, np.float32)


def _subpixel(r: F32, iy: int, ix: int) -> tuple[float, float]:
    """Return the peak of ``r`` near (iy, ix), refined by a parabola on each axis."""
    def vertex(a: float, b: float, c: float) -> float:
        den = a - 2 * b + c
        return 0.0 if den >= 0 else float(np.clip(0.5 * (a - c) / den, -0.5, 0.5))

    h, w = r.shape
    dx = vertex(float(r[iy, ix - 1]), float(r[iy, ix]), float(r[iy, ix + 1])) \
        if 0 < ix < w - 1 else 0.0
    dy = vertex(float(r[iy - 1, ix]), float(r[iy, ix]), float(r[iy + 1, ix])) \
        if 0 < iy < h - 1 else 0.0
    return ix + dx, iy + dy


def quad_size(quad: FloatArray) -> tuple[int, int]:
    """Return a card's size (w, h) in px from its corners (TL, TR, BR, BL): opposite sides' mean."""
    wf = 0.5 * (np.hypot(*(quad[1] - quad[0])) + np.hypot(*(quad[2] - quad[3])))
    hf = 0.5 * (np.hypot(*(quad[3] - quad[0])) + np.hypot(*(quad[2] - quad[1])))
    return (round(float(wf)), round(float(hf)))


def fine_lean(frame: Image, quad: FloatArray, card: Card, twin: Card, faces: FineFaces,
              hidden: Sequence[bool] = (False, False, False, False),
              blur: Blur | None = None) -> FineLean | None:
    """Compare the card's corner boxes in the frame with ``card``'s and ``twin``'s faces.

    :param frame: the full-resolution frame (BGR or grey).
    :param quad: the card's corners in the frame (px), upright card order (TL, TR, BR, BL).
    :param hidden: per corner box (TL, TR, BL, BR, upright), whether something may lie over it.
    :param blur: the blur to compare at (frame px); None: found (:func:`_blur`).
    :returns: None when the faces are not at hand or the twins differ in no corner.
    """
    if card not in faces or twin not in faces:
        return None
    size = quad_size(quad)
    if min(size) < 20:
        return None
    fa, fb = faces.at_size(card, size), faces.at_size(twin, size)
    boxes = _boxes(size)
    energy = []
    for x, y, w, h in boxes:
        d = fa[y:y + h, x:x + w] - fb[y:y + h, x:x + w]
        energy.append(float((d * d).sum()))
    top = max(energy)
    if top <= 0:
        return None
    differing = [k for k, e in enumerate(energy) if e >= MIN_DIFFERENCE_SHARE * top]
    fh, fw = frame.shape[:2]
    to_frame = _card_to_frame(quad, size)
    inside = np.all((quad >= 0) & (quad <= [fw - 1, fh - 1]))
    used = [k for k in differing if not hidden[k] and inside]
    if not used:
        return FineLean((), (0.0, 0, 0), len(differing))
    s = SHIFT_PX
    cuts: list[tuple[int, F32, F32, F32]] = []
    for k in used:
        x, y, w, h = boxes[k]
        a, b = fa[y:y + h, x:x + w], fb[y:y + h, x:x + w]
        aligner = cv2.GaussianBlur((a + b) * 0.5, (0, 0), 1.0)
        around = _cut(frame, to_frame, x - s, y - s, w + 2 * s, h + 2 * s)
        r = cv2.matchTemplate(around, np.asarray(aligner, np.float32), cv2.TM_CCOEFF_NORMED)
        _, _, _, (ix, iy) = cv2.minMaxLoc(r)
        px, py = _subpixel(np.asarray(r, np.float32), iy, ix)
        obs = _cut(frame, to_frame, x - s + px, y - s + py, w, h)
        cuts.append((k, obs, a, b))
    blur = _blur(cuts) if blur is None else blur
    kernel = blur_kernel(blur)
    leans: list[CornerLean] = []
    for k, obs, a, b in cuts:
        mean: F32 = np.asarray(cv2.filter2D((a + b) * 0.5, -1, kernel,
                                            borderType=cv2.BORDER_REPLICATE), dtype=np.float32)
        half: F32 = np.asarray(cv2.filter2D((a - b) * 0.5, -1, kernel,
                                            borderType=cv2.BORDER_REPLICATE), dtype=np.float32)
        placebos = _placebos(half)
        lean, noise, fit = _fit(obs, mean, half, placebos=placebos)
        lit = (_fit(obs, mean, half, lit=True, placebos=placebos) if fit < MIN_FIT
               else (0.0, np.inf, 0.0))
        leans.append(CornerLean(k, lean, noise, fit, *lit))
    return FineLean(tuple(leans), blur, len(differing))


def _blur(cuts: Sequence[tuple[int, F32, F32, F32]]) -> Blur:
    """Find the blur whose faces' mean fits the observed boxes best where the twins agree.

    At half the frame's size, on the :data:`BLUR_CORNERS` boxes where the twins differ most,
    laid side by side (:data:`_GAP` px apart, left out of the fit) so one filter blurs them all.
    """
    chosen = sorted(cuts, key=lambda c: -float(np.abs(c[2] - c[3]).sum()))[:BLUR_CORNERS]
    obs_parts: list[F32] = []
    mean_parts: list[F32] = []
    keep_parts: list[npt.NDArray[np.bool_]] = []
    height = max(c[1].shape[0] // 2 for c in chosen)
    for _k, obs, a, b in chosen:
        h, w = obs.shape
        size = (max(w // 2, 1), max(h // 2, 1))
        o = cv2.resize(obs, size, interpolation=cv2.INTER_AREA)
        ha = cv2.resize(a, size, interpolation=cv2.INTER_AREA)
        hb = cv2.resize(b, size, interpolation=cv2.INTER_AREA)
        differ = (np.abs(ha - hb) >= AGREE_LEVEL).astype(np.uint8)
        keep = cv2.dilate(differ, np.ones((5, 5), np.uint8)) == 0
        below = height - size[1]
        m = np.asarray((ha + hb) * 0.5, np.float32)
        obs_parts.append(np.asarray(cv2.copyMakeBorder(o, 0, below, _GAP, 0,
                                                       cv2.BORDER_REPLICATE), np.float32))
        mean_parts.append(np.asarray(cv2.copyMakeBorder(m, 0, below, _GAP, 0,
                                                        cv2.BORDER_REPLICATE), np.float32))
        keep_part = np.zeros((height, size[0] + _GAP), np.bool_)
        keep_part[:size[1], _GAP:] = keep
        keep_parts.append(keep_part)
    mean = np.hstack(mean_parts)
    # The pixels fitted, as flat indices (``take`` gives what the boolean mask gives, in the
    # same order, without the mask's scan per blur).
    keep_at = np.flatnonzero(np.hstack(keep_parts))
    ov = np.hstack(obs_parts).reshape(-1).take(keep_at).astype(np.float32)
    ov -= ov.mean()
    ov /= max(float(np.linalg.norm(ov)), 1e-6)
    count = np.intp(ov.size)
    fits: dict[Blur, float] = {}
    # Two blurs whose kernels are the same to the bit fit the same: filtered once.
    by_kernel: dict[bytes, float] = {}

    def fit(blur: Blur) -> float:
        known = fits.get(blur)
        if known is None:
            kernel, key = _half_kernel(blur)
            known = by_kernel.get(key)
            if known is None:
                bm: F32 = np.asarray(cv2.filter2D(mean, -1, kernel,
                                                  borderType=cv2.BORDER_REPLICATE),
                                     np.float32).reshape(-1).take(keep_at)
                # ``bm.mean()`` and ``np.linalg.norm(bm)`` as numpy computes them (float32).
                bm -= np.float32(np.add.reduce(bm) / count)
                known = float(bm @ ov) / max(float(np.sqrt(bm.dot(bm))), 1e-6)
                by_kernel[key] = known
            fits[blur] = known
        return known

    best = max(BLUR_GRID, key=fit)
    for step in BLUR_STEPS:
        best = max(_near(best, step), key=fit)
    return best


@lru_cache(maxsize=2048)
def _half_kernel(blur: Blur) -> tuple[F32, bytes]:
    """:func:`blur_kernel` at half size, with its shape and bytes (equal kernels, equal keys)."""
    kernel = blur_kernel(blur, 0.5)
    return kernel, repr(kernel.shape).encode() + kernel.tobytes()


def _near(blur: Blur, step: tuple[float, int, int]) -> list[Blur]:
    """``blur`` and its neighbours at ``step`` (sigma, length, angle)."""
    sigma, length, angle = blur
    out: list[Blur] = []
    for ds in (-step[0], 0.0, step[0]):
        for dl in (-step[1], 0, step[1]):
            s2, l2 = round(sigma + ds, 2), length + dl
            if not (0.0 <= s2 <= 4.0 and 0 <= l2 <= 20):
                continue
            for da in ((-step[2], 0, step[2]) if l2 else (0,)):
                out.append((s2, l2, (angle + da) % 180 if l2 else 0))
    return out
