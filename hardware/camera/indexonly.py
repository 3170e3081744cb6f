"""Faces told apart only by their corner indices: which pairs, and where an observation lies.

Some designs print one picture for many cards: one central suit symbol on every number card of
a suit (casino "jumbo index" decks, GNOME tango-nuevo), one court picture for all twelve courts.
Two such faces differ only in their corner indices, a few dozen pixels of ink at the stored
size, and on a blurred frame the whole-face comparisons (the difference region at the faces'
own blur, the corner index templates) put the observation near halfway.

Rules this module keeps:

1. Which pairs of registered faces differ only in their corner indices is found from the faces
   themselves (:meth:`IndexOnly.pair`, once per pair of a deck): where their luminances differ
   by :data:`~hardware.camera.suits.DIFFERENCE_LEVEL` or more, the card's 4-px border aside,
   nothing lies outside the four corner boxes (:data:`CORNER_BOX`). No design is named, and no
   switch is set per design.
2. Between two such faces (:meth:`IndexOnly.check`), the observation is compared with both
   faces blurred as the observation is: the blur (:func:`~hardware.camera.blurmatch.matched_blur`)
   is fitted on the print the two faces share (everything but the indices: the central symbol,
   the court picture), once per observation, and kept for the other pairs compared with it. The
   region compared is the sharp faces' difference (the indices, grown 3 px): blurred, the two
   faces' own difference falls under the level that marks a region. Brightness, contrast and
   position are fitted together (as :func:`~hardware.camera.suits.pair_check`'s ``joint``),
   aligned on the blurred faces' mean; each half of the card (its top and bottom indices) is
   also measured alone.
3. Pure: luminances in, a :class:`~hardware.camera.suits.SuitCheck` out; caches are bounded.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Mapping

import cv2
import numpy as np
import numpy.typing as npt

from hardware.camera.blurmatch import matched_blur
from hardware.camera.suits import DIFFERENCE_LEVEL, Blur, SuitCheck, _Template
from table_controller.engine.cards import Card

F32 = npt.NDArray[np.float32]

#: The card's own border (stored-patch pixels): felt may show there.
BORDER = 4
#: The corner boxes (fraction of the width, of the height) an index may reach into: wider
#: than the index reader's boxes (:data:`~hardware.camera.index.INDEX_BOX`, 0.22 x 0.3), which
#: a condensed "10" or a large rank glyph overruns by a few pixels (GNOME tango-nuevo's ranks
#: reach 0.29 of the width; a jumbo index with its suit below, 0.33 of the height).
CORNER_BOX = (0.35, 0.35)
#: Fewest pixels of a pair's region (and of a half of it) for a comparison.
MIN_REGION_PX = 20
#: Blurred faces kept (by card and blur), and pairs' regions kept.
_BLURRED_MAX = 256
_REGIONS_MAX = 512


class IndexOnly:
    """The registered faces' pairs that differ only in their corner indices, and the check.

    :param luminances: each card's face luminance at the stored size
        (:func:`hardware.camera.suits.face_luminance`, read-only).
    """

    def __init__(self, luminances: Mapping[Card, F32]) -> None:
        self._lum = luminances
        first = next(iter(luminances.values()))
        h, w = first.shape
        bw, bh = round(CORNER_BOX[0] * w), round(CORNER_BOX[1] * h)
        outside = np.ones((h, w), bool)
        outside[:BORDER, :] = outside[-BORDER:, :] = False
        outside[:, :BORDER] = outside[:, -BORDER:] = False
        for y0, x0 in ((0, 0), (0, w - bw), (h - bh, 0), (h - bh, w - bw)):
            outside[y0 : y0 + bh, x0 : x0 + bw] = False
        self._outside = outside
        self._pairs: dict[tuple[int, int], bool] = {}
        self._alike: dict[int, frozenset[Card]] = {}
        self._regions: OrderedDict[tuple[int, int], tuple[npt.NDArray[np.bool_], int]] = (
            OrderedDict())
        self._blurred: OrderedDict[tuple[int, Blur], F32] = OrderedDict()
        #: The last observation's blur (by a weak reference: the same read-only array).
        self._blur: tuple[weakref.ref[F32], Blur, F32] | None = None
        #: That observation's fits (:meth:`_fit`) by pair (card, rival): asked again by the
        #: other fallback reads of the same card, the same array at the same blur.
        self._fits: dict[tuple[int, int], tuple[SuitCheck, float]] = {}

    def pair(self, a: Card, b: Card) -> bool:
        """Whether the faces of ``a`` and ``b`` differ (at all) only in their corner boxes."""
        key = (min(a.index, b.index), max(a.index, b.index))
        known = self._pairs.get(key)
        if known is None:
            la, lb = self._lum[a], self._lum[b]
            apart = np.abs(la - lb) >= DIFFERENCE_LEVEL
            known = self._pairs[key] = bool(apart.any()) and not bool(
                (apart & self._outside).any())
        return known

    def alike_but_corners(self, a: Card, b: Card) -> bool:
        """Whether the faces of ``a`` and ``b`` differ nowhere outside their corner boxes.

        As :meth:`pair`, but also where they differ nowhere at the stored size: an 8 and a 6
        told apart by a short stroke of the index alone (synth-9251, benchmark run 100), which
        only the fine faces, at the frame's own resolution, tell apart.
        """
        if self.pair(a, b):
            return True
        apart = np.abs(self._lum[a] - self._lum[b]) >= DIFFERENCE_LEVEL
        return not bool(apart.any())

    def alike_ranks(self, card: Card) -> frozenset[Card]:
        """Return the cards of ``card``'s suit, of other ranks, alike but in their corners.

        Those :meth:`alike_but_corners` finds: on a one-central-symbol design every other
        number card of the suit, any of which the observation may show (cached per card).
        """
        known = self._alike.get(card.index)
        if known is None:
            known = self._alike[card.index] = frozenset(
                y for y in self._lum
                if y.suit == card.suit and y.rank != card.rank and self.alike_but_corners(card, y))
        return known

    def check(self, observed: F32, card: Card, rival: Card) -> SuitCheck:
        """Where ``observed`` lies between ``rival`` (-1) and ``card`` (+1), both blurred as it is.

        For a pair :meth:`pair` accepts. ``fit`` is the correlation of the observation with the
        blurred faces' mean over the region (aligned, up to 3 px), ``contrast`` the fitted scale
        of the observation against the faces there (towards 0 where a glare lifted the ink).
        """
        return self._fit(observed, card, rival)[0]

    def resolved(self, observed: F32, card: Card, rival: Card) -> float:
        """How far the camera resolves the pair: their difference over what the fit leaves.

        The two faces blurred as the observation is differ over the region by some amount (RMS,
        in the faces' luminance); the fit of :meth:`check` (brightness, contrast, position)
        leaves a residual (RMS, in the same units: noise, JPEG, a blur or pose not quite the
        camera's). Their ratio: under 1, the pair's whole difference at this blur is smaller
        than what the comparison cannot explain, and its position is no evidence. 0 where
        :meth:`check` has no fit.
        """
        return self._fit(observed, card, rival)[1]

    def _fit(self, observed: F32, card: Card, rival: Card) -> tuple[SuitCheck, float]:
        """:meth:`check`'s comparison, and :meth:`resolved`'s ratio."""
        region, n = self._region(card, rival)
        if n < MIN_REGION_PX:
            return SuitCheck(0.0, 0.0, n), 0.0
        blur, kernel = self._observed_blur(observed, card, rival)
        # Read-only: the blur just found is the one kept for this array (:meth:`_observed_blur`).
        kept = not observed.flags.writeable
        pair = (card.index, rival.index)
        if kept and pair in self._fits:
            return self._fits[pair]
        fb, fr = self._blurred_face(card, blur, kernel), self._blurred_face(rival, blur, kernel)
        mean = np.asarray((fb + fr) / 2, np.float32)
        vals, fit = _Template(mean, region, quarters=True).aligned(observed)
        ys, xs = np.nonzero(region)
        mv, d = mean[ys, xs], np.asarray(fb[ys, xs] - fr[ys, xs], np.float32)
        design = np.stack([mv, d / 2, np.ones_like(mv)], axis=1)
        coef = np.linalg.lstsq(design, vals, rcond=None)[0]
        a, b = float(coef[0]), float(coef[2])
        if a <= 1e-3:
            return SuitCheck(0.0, fit, n), 0.0
        o = (vals - b) / a - mv
        dd = float(d @ d)
        halves = []
        for half in (ys < region.shape[0] // 2, ys >= region.shape[0] // 2):
            dh = d[half]
            if dh.size >= MIN_REGION_PX // 2:
                halves.append(float(o[half] @ dh) / max(float(dh @ dh) / 2, 1e-6))
        position = float(o @ d) / max(dd / 2, 1e-6)
        residual = float(np.sqrt(np.mean(np.square(vals - design @ coef)))) / a
        ratio = float(np.sqrt(dd / d.size)) / max(residual, 1e-6)
        out = (SuitCheck(position, fit, n, min(halves) if halves else 0.0,
                         max(halves) if halves else 0.0, a), ratio)
        if kept:
            self._fits[pair] = out
        return out

    def _region(self, a: Card, b: Card) -> tuple[npt.NDArray[np.bool_], int]:
        key = (min(a.index, b.index), max(a.index, b.index))
        got = self._regions.get(key)
        if got is None:
            apart = np.abs(self._lum[a] - self._lum[b]) >= DIFFERENCE_LEVEL
            region = cv2.dilate(apart.astype(np.uint8), np.ones((7, 7), np.uint8)) > 0
            region[:BORDER, :] = region[-BORDER:, :] = False
            region[:, :BORDER] = region[:, -BORDER:] = False
            got = self._regions[key] = (region, int(np.count_nonzero(region)))
            if len(self._regions) > _REGIONS_MAX:
                self._regions.popitem(last=False)
        return got

    def blur_settled(self, observed: F32) -> bool:
        """Whether no later :meth:`check` can change the blur ``observed`` is compared at.

        A read-only observation's blur is fitted on the first pair asked and kept
        (:meth:`_observed_blur`): settled once fitted. A writable one is fitted afresh for
        each pair, nothing kept: always settled.
        """
        last = self._blur
        return observed.flags.writeable or (last is not None and last[0]() is observed)

    def _observed_blur(self, observed: F32, a: Card, b: Card) -> tuple[Blur, F32]:
        """Return the observation's blur, fitted on what ``a`` and ``b`` share (once per array)."""
        last = self._blur
        if last is not None and last[0]() is observed and not observed.flags.writeable:
            return last[1], last[2]
        blur, kernel, _ = matched_blur(observed, self._lum[a], self._lum[b])
        if not observed.flags.writeable:
            self._blur = (weakref.ref(observed), blur, kernel)
            self._fits = {}
        return blur, kernel

    def _blurred_face(self, card: Card, blur: Blur, kernel: F32) -> F32:
        key = (card.index, blur)
        face = self._blurred.get(key)
        if face is None:
            face = self._blurred[key] = np.asarray(cv2.filter2D(
                self._lum[card], -1, kernel, borderType=cv2.BORDER_REPLICATE), np.float32)
            if len(self._blurred) > _BLURRED_MAX:
                self._blurred.popitem(last=False)
        return face
