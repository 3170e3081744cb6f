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
4. :func:`glare_mask`: where a glare lies on an observed card, from its paper alone (a glare
   lifts the paper above the card's own white); :class:`HiddenRivals`: the cards that differ
   from a read card almost only there, which the face cannot rule out (the caller asks the
   corner indices); where the paper is too near white for a glare to show on it, the cards
   that differ from the read by one blob of their own ink (a pip a glare may have washed out,
   :meth:`HiddenRivals.one_blob`).
5. Pure: feature vectors or an observed patch in, a correlation or cards out.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from table_controller.engine.cards import FULL_DECK, Card

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
Image = npt.NDArray[np.uint8]
Mask = npt.NDArray[np.bool_]

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


#: A pixel of the read face at this luminance or more (:func:`~.suits.face_luminance`, white 1)
#: is paper: where a glare shows (ink under it does not tell a glare from a lighter ink).
PAPER_LEVEL = 0.85
#: The paper's own level: this percentile of the observed paper's grey (a glare lifts the
#: rest; a streak covers well under half a card's paper).
PAPER_PERCENTILE = 40.0
#: The glare's lift is spread from the paper over the ink within it by a Gaussian of this sigma
#: (stored-patch pixels, about 0.5 mm each): a glare spot of the scenes is 2.5-5 mm (sigma),
#: a pip 5-10 mm across.
GLARE_SPREAD_PX = 5.0
#: A pixel lies under a glare where the paper around it is lifted by this fraction of the
#: headroom left above the card's white (a glare adds ``lift * (255 - grey)``) ...
GLARE_MIN_LIFT = 0.15
#: ... and by at least this many grey levels over the paper's fitted white (a plain 6 of clubs
#: in bright light, paper at 247, was 4 levels over its paper's level on 38% of the card, from
#: the light's gradient: none over the fitted plane); a 3 of diamonds whose middle pip a
#: diagonal streak half washed out (read as the 2, synth-9122 bridge, hard gloss, tuning seed
#: 7203831): 43% of that pip lay under the glare found at 8 levels, 85% at 6, 98% at 5. A card
#: whose paper has less than twice this headroom left (bright light: paper at 247) shows no
#: glare that could wash ink out without lifting its paper to the top.
GLARE_MIN_GREY = 5.0
#: The spread lift (:func:`glare_mask`) is a mean of the paper's lifts weighted by a Gaussian,
#: so never above their largest but for the float32 blurs' rounding (about 1e-6 of the largest
#: absolute lift, 255 at most: 3e-4 grey levels); when the largest lift lies this far (grey
#: levels) under the floor, no pixel is glare and the blurs are not made.
SPREAD_ROUNDING = 0.05
#: A rival differs from the read "only under the glare" when at least this share of its own ink
#: the read lacks (outside the corner index boxes, weighted by how much the faces differ) lies
#: under it ...
HIDDEN_MIN_SHARE = 0.75
#: ... and the read's own ink the rival lacks, seen outside the glare, is under this share of
#: the two faces' difference (about a third of one pip of ten).
OWN_INK_MAX = 0.1
#: The largest piece of ink (share of the face's pixels, index boxes and border left out) a
#: glare the paper cannot show is taken to wash out (:meth:`HiddenRivals.one_blob`): a pip
#: is 1-2% of the face, a court's picture a third or more.
ONE_BLOB_MAX_SHARE = 0.05
#: A rival's own ink lies where no glare is when at most this share of it is under one.
UNGLARED_MAX_SHARE = 0.05
#: The corner index boxes (fraction of width, height), left out of the faces' difference: they
#: are what decides the rivals found (:data:`hardware.camera.index.INDEX_BOX`).
_INDEX_BOX = (0.22, 0.3)
_BORDER = 4
_DIFFERENCE_LEVEL = 0.1


def _plane(fit: Mask, grey: F32) -> F64:
    """Return the least squares of ``grey = a x + b y + c`` over ``fit`` (normal equations).

    Their sums are taken from the rows' and columns' sums (no per-pixel design matrix).
    """
    h, w = grey.shape
    xs = np.arange(w, dtype=np.float64)
    ys = np.arange(h, dtype=np.float64)
    m = fit.astype(np.float64)
    mv = m * grey
    cols, rows = m.sum(axis=0), m.sum(axis=1)
    cols_v, rows_v = mv.sum(axis=0), mv.sum(axis=1)
    sx, sy, n = cols @ xs, rows @ ys, cols.sum()
    sxy = ys @ m @ xs
    normal = np.array([[cols @ (xs * xs), sxy, sx], [sxy, rows @ (ys * ys), sy], [sx, sy, n]])
    rhs = np.array([cols_v @ xs, rows_v @ ys, cols_v.sum()])
    return np.asarray(np.linalg.solve(normal, rhs), np.float64)


def _paper_level(levels: Image, q: float) -> float:
    """``float(np.percentile(levels, q))`` of uint8 ``levels`` (flat), the same value.

    The percentile interpolates between the two order statistics about ``q`` of the way
    along; grey levels are whole numbers and a card's paper thousands of pixels, so the
    statistics a rank either side of those two are almost always one level, and that level
    is the percentile exactly (a mean of equal whole numbers). They are read off the levels'
    counts (no sort); where they differ, numpy's own percentile is taken.
    """
    n = int(levels.size)
    cum = np.cumsum(np.bincount(levels, minlength=256))
    at = int(np.floor(q / 100.0 * (n - 1)))
    lo, hi = np.searchsorted(cum, [max(at - 1, 0), min(at + 2, n - 1)], side="right")
    if lo == hi:
        return float(lo)
    return float(np.percentile(levels.astype(np.float32), q))


def _white(coef: F64, h: int, w: int) -> F64:
    """Return the fitted plane ``coef`` over an ``h`` x ``w`` card (the loop's comparison)."""
    xs = np.arange(w, dtype=np.float64)[None, :]
    ys = np.arange(h, dtype=np.float64)[:, None]
    return np.asarray(coef[0] * xs + coef[1] * ys + coef[2], np.float64)


def glare_mask(patch: Image, face: F32) -> tuple[Mask, bool]:
    """Where a glare lies on an observed card (upright BGR patch at the stored size).

    A glare adds white light: the paper under it shows brighter than the card's own white.
    The paper is the read face's (``face``: its :func:`~.suits.face_luminance`), its level the
    observed paper's :data:`PAPER_PERCENTILE` (paper darker than it by more than
    :data:`GLARE_MIN_GREY` is ink the face lacks, left out), its white across the card a plane
    fitted to the paper not lifted; each paper pixel's lift over that white, measured against
    the headroom above the level, is spread over the ink around it (normalised convolution,
    :data:`GLARE_SPREAD_PX`) and taken as glare from :data:`GLARE_MIN_LIFT` of the headroom
    and :data:`GLARE_MIN_GREY` grey levels.

    Also returns whether a glare strong enough to wash ink out would show on the paper: the
    paper's headroom is at least twice :data:`GLARE_MIN_GREY` (such a glare adds half of it
    or more). Otherwise an empty mask is no evidence that no glare is there.
    """
    levels = np.asarray(cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY), np.uint8)
    grey = levels.astype(np.float32)
    paper = cv2.erode((face >= PAPER_LEVEL).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    empty = np.zeros(grey.shape, bool)
    if np.count_nonzero(paper) < grey.size // 10:
        return empty, False
    level = _paper_level(levels[paper], PAPER_PERCENTILE)
    headroom = 255.0 - level
    if headroom < GLARE_MIN_GREY:
        return empty, False
    # The read face's paper darker than the paper's level by more than the noise is ink there
    # (a pip the read lacks, half washed out; a shadow): no evidence about a glare either way.
    paper &= grey >= level - GLARE_MIN_GREY
    # The paper's own white across the card: a plane (the light's gradient and vignetting over
    # one card), fitted to the paper a glare did not lift (twice, leaving out what the fit
    # before found lifted).
    h, w = grey.shape
    coef = np.array([0.0, 0.0, level])
    fit = paper & (grey <= level + GLARE_MIN_GREY)
    for _ in range(2):
        if np.count_nonzero(fit) < 3:
            break
        coef = _plane(fit, grey)
        fit = paper & (grey - _white(coef, h, w) <= GLARE_MIN_GREY)
    white = (coef[0] * np.arange(w, dtype=np.float32)[None, :]
             + coef[1] * np.arange(h, dtype=np.float32)[:, None] + coef[2]).astype(np.float32)
    lift = np.where(paper, grey - white, 0.0).astype(np.float32)
    floor = max(GLARE_MIN_LIFT * headroom, GLARE_MIN_GREY)
    shows = headroom >= 2 * GLARE_MIN_GREY
    if float(lift.max()) < floor - SPREAD_ROUNDING:
        # The spread lift is a weighted mean of the paper's lifts: none reaches the floor, so
        # no pixel can (the two blurs, most of the cost, not made; the same empty mask).
        return empty, shows
    num = cv2.GaussianBlur(lift, (0, 0), GLARE_SPREAD_PX)
    den = cv2.GaussianBlur(paper.astype(np.float32), (0, 0), GLARE_SPREAD_PX)
    spread = num / np.maximum(den, 1e-3)
    mask = np.asarray((spread >= floor) & (den > 0.01), bool)
    return mask, shows


def _kept(values: F32, where: Mask) -> F32:
    """Return ``np.where(where, values, 0.0)`` for finite float32 ``values``, bit for bit.

    Made as ``values * where + 0``: a value times True is itself, times False a zero whose
    sign the value's gives, and adding +0 leaves every other float as it was and makes each
    -0 a +0, as ``np.where`` writes it. The same array, so the same sums; several times
    cheaper on the deck-wide differences of :meth:`HiddenRivals._weights` (``np.where``
    with a scalar branches on every element).
    """
    out = np.multiply(values, where, dtype=np.float32)
    out += np.float32(0.0)
    return np.asarray(out, np.float32)


class HiddenRivals:
    """The cards a glare may turn a read card into: those whose difference from it it hides.

    :param luminance: a registered face's :func:`~.suits.face_luminance`, for every card.
    """

    def __init__(self, luminance: Callable[[Card], F32]) -> None:
        self._lum = luminance
        h, w = luminance(FULL_DECK[0]).shape
        face = np.zeros((h, w), bool)
        face[_BORDER:-_BORDER, _BORDER:-_BORDER] = True
        bw, bh = round(_INDEX_BOX[0] * w), round(_INDEX_BOX[1] * h)
        for y0, x0 in ((0, 0), (0, w - bw), (h - bh, 0), (h - bh, w - bw)):
            face[y0 : y0 + bh, x0 : x0 + bw] = False
        self._face = face
        self._face_px = int(np.count_nonzero(face))
        # The pixels of the face beside an index box (within 2): a piece of ink there is the
        # index's print running past the box (:meth:`_one_piece`).
        boxes = np.zeros((h, w), np.uint8)
        boxes[~face] = 1
        boxes[:_BORDER, :] = boxes[-_BORDER:, :] = boxes[:, :_BORDER] = boxes[:, -_BORDER:] = 0
        self._near_box = cv2.dilate(boxes, np.ones((5, 5), np.uint8)).astype(bool) & face
        self._stack: F32 | None = None
        #: Per read card, every card's difference from it over the face (:meth:`_weights`).
        self._totals: dict[Card, tuple[F64, F64]] = {}
        #: Per read card, :meth:`one_blob`'s answer.
        self._blobs: dict[Card, list[Card]] = {}

    def _weights(self, card: Card, where: Mask) -> tuple[F64, F64]:
        """Per card, its difference from ``card`` summed over ``where`` (within the face).

        Split by whose ink it is: the card's own (darker than ``card``'s face: what a glare
        may have washed out) and ``card``'s (a glare cannot print it).
        """
        if self._stack is None:
            # Every face's pixels on the face (index boxes and border left out), once.
            self._stack = np.stack([self._lum(c)[self._face] for c in FULL_DECK])
        sel = where[self._face]
        rows = self._stack if sel.all() else self._stack[:, sel]
        d = rows - rows[FULL_DECK.index(card)][None, :]
        theirs = _kept(-d, d <= -_DIFFERENCE_LEVEL).sum(axis=1)
        ours = _kept(d, d >= _DIFFERENCE_LEVEL).sum(axis=1)
        return np.asarray(theirs, np.float64), np.asarray(ours, np.float64)

    def _total(self, card: Card) -> tuple[F64, F64]:
        """Per card, its difference from ``card`` over the whole face (:meth:`_weights`), once."""
        total = self._totals.get(card)
        if total is None:
            total = self._totals[card] = self._weights(card, self._face)
        return total

    def units(self) -> list[Callable[[], object]]:
        """Return warm-up units: each card's :meth:`_total`, as a glare check would first ask it.

        The same arrays whichever asks first (the faces alone decide them; about 1.5-2 ms a
        card, the first also stacking the faces): a read whose glare mask is not empty no
        longer pays for them (:mod:`~hardware.camera.warmup`).
        """
        return [partial(self._total, card) for card in FULL_DECK]

    def hidden(self, card: Card, glare: Mask) -> list[Card]:
        """Return the cards that differ from ``card`` almost only by ink ``glare`` may hide.

        A card's own ink that ``card`` lacks lies at least :data:`HIDDEN_MIN_SHARE` under the
        glare, and ``card``'s own ink that it lacks, outside the glare, is under
        :data:`OWN_INK_MAX` of the two faces' difference (a glare cannot print ink: ``card``'s
        ink seen refutes a card without it). Corner indices left out.
        """
        if not glare.any():
            return []
        theirs, ours = self._total(card)
        theirs_under, ours_under = self._weights(card, glare)
        diff = theirs + ours
        hidden = np.divide(theirs_under, theirs, out=np.zeros_like(theirs), where=theirs > 0)
        seen = np.divide(ours - ours_under, diff, out=np.ones_like(diff), where=diff > 0)
        return [c for c, h, o in zip(FULL_DECK, hidden, seen, strict=True)
                if c != card and h >= HIDDEN_MIN_SHARE and o < OWN_INK_MAX]

    def one_blob(self, card: Card) -> list[Card]:
        """Return the cards that differ from ``card`` by one blob of their own ink, on the face.

        What a glare may have washed out where no mask shows it (the paper within twice
        :data:`GLARE_MIN_GREY` of the top, :func:`glare_mask`'s second answer False; or a
        streak beside the mask found, benchmark run 87): one
        connected piece of ink that a card of ``card``'s suit has and ``card`` lacks (a 3's
        middle pip against a 2, an 8's against a 7; at most :data:`ONE_BLOB_MAX_SHARE` of the
        face: a pip, not a court's picture), with ``card``'s own ink that card lacks under
        :data:`OWN_INK_MAX` of the two faces' difference. Only the same suit: a glare whitens
        ink, it does not turn a black pip red or a club into a spade. Corner index boxes left
        out (they decide). A 3 of spades whose middle pip a glossy streak washed out on paper
        at the top was read as the 2 with no glare found (synth-9181 poker, gloss, hard;
        benchmark run 77).
        """
        found = self._blobs.get(card)
        if found is not None:
            return found
        theirs, ours = self._total(card)
        diff = theirs + ours
        own = np.divide(ours, diff, out=np.ones_like(diff), where=diff > 0)
        lum_c = self._lum(card)
        found = []
        for c, t, o in zip(FULL_DECK, theirs, own, strict=True):
            if c == card or c.suit != card.suit or t <= 0 or o >= OWN_INK_MAX:
                continue
            ink = ((self._lum(c) - lum_c <= -_DIFFERENCE_LEVEL) & self._face).astype(np.uint8)
            grown = cv2.dilate(ink, np.ones((3, 3), np.uint8))
            if (self._one_piece(grown)
                    and np.count_nonzero(ink) <= ONE_BLOB_MAX_SHARE * self._face_px):
                found.append(c)
        self._blobs[card] = found
        return found

    def _one_piece(self, grown: npt.NDArray[np.integer[Any] | np.floating[Any]]) -> bool:
        """Whether ``grown`` is one piece of ink (8-connected), a corner index's specks aside.

        One piece, or one piece with the others all reaching a corner index box
        (:data:`_INDEX_BOX`): those are that index's print running past the fixed box, not
        ink a glare washes out as it washes a pip. The 3's index beside a 2's showed two
        such specks of 34 grown pixels each against its middle pip's 184 (synth-9246 bridge,
        normal indices in four corners: a 3 of diamonds whose middle pip a gloss streak
        washed out was read as the 2; benchmark run 94). Only ever adds a rival to
        :meth:`one_blob`, so only ever refuses more reads.
        """
        n, labels = cv2.connectedComponents(grown, connectivity=8)
        if n - 1 == 1:
            return True
        touching = np.unique(labels[self._near_box])
        return n - 1 - int(np.count_nonzero(touching)) == 1

    def unglared(self, card: Card, rival: Card, glare: Mask) -> bool:
        """Whether ``rival``'s own ink that ``card`` lacks lies where no glare is, on the face.

        At least half of it (weighted as :meth:`hidden`) outside the corner index boxes, and
        at most :data:`UNGLARED_MAX_SHARE` of it under ``glare``: where the observation shows
        paper there and the paper is not lifted, the white is the card's own, not a glare's.
        """
        k = FULL_DECK.index(rival)
        total = self._totals.get(card)
        if total is None:
            total = self._totals[card] = self._weights(card, self._face)
        lum_r, lum_c = self._lum(rival), self._lum(card)
        theirs = np.where(lum_r - lum_c <= -_DIFFERENCE_LEVEL, lum_c - lum_r, 0.0)
        on_face = float(total[0][k])
        if on_face <= 0 or on_face < 0.5 * float(theirs.sum()):
            return False
        return float(theirs[glare].sum()) <= UNGLARED_MAX_SHARE * float(theirs.sum())
