"""A frame's cards cut upright, the neighbours over them and its edge fits, found once.

Rules this module keeps:

1. What is cut or found is the same pixels for the same frame, pose and side, so it is made
   once while a frame is read (:meth:`~hardware.camera.recognizer.BoardRecognizer.read` empties
   the caches before and after) and handed out read-only; outside a frame's read nothing is
   kept.
2. A slot's straight edge fits (:meth:`FrameCuts._pose`, not turned, nothing cut) are kept
   while the frame's mask is located, so a ``span`` try repeats none of the first tries'
   work whose outcome ``span`` cannot change (:meth:`FrameCuts.fits_kept_on`).
3. Part of :class:`~hardware.camera.recognizer.BoardRecognizer` (:class:`FrameCuts`), kept
   here by job.
"""

from __future__ import annotations

import cv2
import numpy as np

from hardware.camera.facebank import STORED_PATCH_SIZE, FaceBank
from hardware.camera.finetwins import FineView, corners_hidden
from hardware.camera.locator import CardLocator, CardPose
from hardware.camera.partial import neighbours_over
from hardware.camera.readings import F32, Image
from hardware.camera.suits import observed_luminance

__all__ = ["NEIGHBOUR_GROW_PX", "FrameCuts"]

#: A straight fit kept (:meth:`FrameCuts._pose`): slot, seed column and row, ``span``.
_FitKey = tuple[int, float, float, bool]

#: A neighbour's quad is grown by this (canonical px) where it is taken to overlap a card
#: (:meth:`FrameCuts._neighbours_over`): the fitted edges' error and the 3x3 blur (1.5),
#: and the shadow a card lying over another casts on it (about 2 mm more). Ink there may be
#: the neighbour's edge or shadow: a 7 of hearts beneath a jack was read as the 8 from ink
#: found only along the jack's shadow (GNOME atlasnye-skat bridge, overlap hard, tuning seed
#: 5201031), with 1.5.
NEIGHBOUR_GROW_PX = 4.0


class FrameCuts(CardLocator):
    """A frame's upright cuts (:meth:`_upright`) and overlaps (:meth:`_neighbours_over`)."""

    bank: FaceBank

    #: The frame's canonical grey view while it is read (None outside a read).
    _grey: Image | None
    #: This frame's located cards.
    _poses: list[CardPose | None]
    _cuts: dict[tuple[CardPose, bool], Image]
    _cut_from: Image | None
    _overs: dict[tuple[CardPose, bool], Image | None]
    #: The mask being located and its straight fits: the pose found and whether ``span``
    #: decided a step of it (:meth:`fits_kept_on`).
    _fits: tuple[Image, dict[_FitKey, tuple[CardPose | None, bool]]] | None = None

    def fits_kept_on(self, fg: Image | None) -> None:
        """Keep :meth:`_pose`'s straight fits on the mask ``fg`` until called again (None).

        A slot left unresolved is tried again by its edges' stretches (``span``,
        :meth:`~hardware.camera.locator.CardLocator._retry_with_neighbours_cut`) on the same
        mask from the same seeds; without a cut and not turned, such a fit is the first try's
        step for step up to where no side edge placed the card, the one step ``span``
        decides (:meth:`~hardware.camera.locator.CardLocator._edges`). A first try that never
        reached it found what the ``span`` try finds (the same pose, or none): that is kept
        and not fitted again; nor is a ``span`` try fitted twice. ``fg`` is not written to
        while kept (the recogniser's read keeps its own mask, :meth:`_read`).
        """
        self._fits = None if fg is None else (fg, {})

    def _pose(
        self, fg: Image, slot: int, cx: float, cy: float, x0: float, x1: float,
        cut: Image | None, turn: float, span: bool = False,
    ) -> CardPose | None:
        """:meth:`~hardware.camera.locator.CardLocator._pose`, a straight fit kept once made."""
        kept = self._fits
        if kept is None or kept[0] is not fg or cut is not None or turn:
            return super()._pose(fg, slot, cx, cy, x0, x1, cut, turn, span)
        fits = kept[1]
        known = fits.get((slot, cx, cy, span))
        if known is None and span:
            first = fits.get((slot, cx, cy, False))
            known = first if first is not None and not first[1] else None
        if known is not None:
            return known[0]
        self._span_decides = False
        pose = super()._pose(fg, slot, cx, cy, x0, x1, cut, turn, span)
        fits[(slot, cx, cy, span)] = (pose, self._span_decides)
        return pose

    def _upright(self, frame: Image, pose: CardPose, flipped: bool) -> Image:
        """Return the card at ``pose`` cut at the stored faces' size, turned upright.

        Cut once per frame, pose and side (read-only): a read's checks ask for it several
        times (the tone checks and the hue check as well as :meth:`_identify`'s own), and the
        same pose cuts the same pixels. Kept only during a frame's read (:meth:`read`).
        """
        reading = self._grey is not None
        if reading and frame is not self._cut_from:
            self._cuts, self._cut_from = {}, frame
        cut = self._cuts.get((pose, flipped)) if reading else None
        if cut is None:
            patch = self.card_patch(frame, pose, STORED_PATCH_SIZE)
            cut = np.asarray(cv2.rotate(patch, cv2.ROTATE_180), np.uint8) if flipped else patch
            cut.setflags(write=False)
            if reading:
                self._cuts[(pose, flipped)] = cut
        return cut

    def _neighbours_over(self, pose: CardPose, flipped: bool) -> Image | None:
        """Where another located card overlaps the card at ``pose`` (stored size, upright).

        Either card may lie on top; where a neighbour may, the print seen can be the
        neighbour's (its index over our corner), so the washed-out read takes no ink found
        only there for the card's own. None when no located card overlaps it. Found once per
        frame, pose and side (read-only; a read's checks ask several times).
        """
        key = (pose, flipped)
        if self._grey is not None and key in self._overs:
            return self._overs[key]
        others = [self._quad(o, grow=NEIGHBOUR_GROW_PX) for o in self._poses
                  if o is not None and o.slot != pose.slot]
        found = neighbours_over(self._quad(pose), others, flipped)
        if found is not None:
            found.setflags(write=False)
        if self._grey is not None:
            self._overs[key] = found
        return found

    def _observed(self, frame: Image, pose: CardPose, flipped: bool) -> F32:
        """Return the card's luminance at the stored size, upright, noting where it was cut.

        Where the registered faces are kept at their own resolution (``bank.fine``), the
        frame, the card's corners in it and the corner boxes a neighbour may cover go with the
        observation (:meth:`~hardware.camera.finetwins.FineFaces.look`): the suit-twin rule
        may compare the corner indices at the frame's resolution.
        """
        lum = observed_luminance(self._upright(frame, pose, flipped))
        fine = self.bank.fine
        if fine is not None:
            quad = cv2.perspectiveTransform(self._quad(pose).reshape(-1, 1, 2),
                                            self._canon_to_image).reshape(-1, 2)
            if flipped:
                quad = np.roll(quad, 2, axis=0)
            hidden = corners_hidden(self._neighbours_over(pose, flipped))
            fine.look(lum, FineView(frame, np.asarray(quad, np.float64), hidden))
        return lum
