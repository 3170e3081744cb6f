"""A felt's print (slot boxes, a betting line, a logo's outline) told from what lies on it.

Rules this module keeps:

1. The print is what the empty board seen at calibration shows that is not felt and thin
   (:data:`PRINT_MAX_PX`): a thicker thing (a card left lying at calibration) is not print.
2. In a frame, a printed pixel counts as felt unless the frame shows something else there: its
   colour or brightness changed against the empty board's, under the local light, or non-felt
   lies on both sides of the line (a card's pips or picture over it); never as a rim thinner
   than :data:`PRINT_RIM_PX` (a card's edge blurred into a line beside it).
3. Pure: canonical views in (:mod:`hardware.camera.locator`), masks out; no state per frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]
Mask = npt.NDArray[np.bool_]

#: Printed felt: the thin non-felt structures of the empty board seen at calibration (slot
#: boxes, lines, a logo's outline) are the print. A structure this thick (canonical px) or
#: thinner is print; a thicker one (a card left on the board at calibration) is not.
PRINT_MAX_PX = 9
#: A printed pixel is read as non-felt in a frame where non-felt lies on both sides of the
#: line within this many canonical px (a card lying over it): morphological closing.
PRINT_CLOSE_PX = 7
#: The print is grown by this square (canonical px) for the blur and motion of later frames.
PRINT_GROW = 5
#: A printed pixel is not felt where the frame differs from the empty board there: its colour
#: (log B/G and R/G) lies this far outside the empty board's, ...
PRINT_CHROMA = 0.2
#: ... or its brightest channel is this much brighter than the empty board's under the local
#: light (the felt's brightness around it against the empty board's).
PRINT_BRIGHTER = 1.15
#: ... both against the empty board's range over this square (canonical px) around the pixel.
PRINT_RANGE_PX = 5
#: Printed pixels read as non-felt are kept only where they belong to non-felt this wide (a
#: square, canonical px: morphological opening); thinner, they are the blurred rim of a card's
#: edge lying along a line (2 px or less on rendered hard scenes).
PRINT_RIM_PX = 5
#: Window (canonical px) over which the local light is measured on the felt.
PRINT_LIGHT_WINDOW = 31
#: A card edge is fitted on its ends clear of the print alone when at least this fraction of
#: them is clear.
PRINT_CLEAR_FRACTION = 0.4
#: An edge with this share of its ends on the print lies along it: where the card's other
#: edge is clear, that one places the card.
PRINT_ON_EDGE = 0.6
#: Print smaller than this (canonical px, once thinned) is a speck of noise, not print.
PRINT_MIN_AREA = 30


def print_mask(not_felt: Image) -> Image | None:
    """Return the print (0/255) given the empty board's non-felt mask (0/255, unfilled).

    Non-felt structures no thicker than :data:`PRINT_MAX_PX` (lines, outlines), grown by
    :data:`PRINT_GROW` for the blur of later frames, specks left out; None when there are none
    (a plain felt).
    """
    k = PRINT_MAX_PX
    wide = np.asarray(cv2.morphologyEx(not_felt, cv2.MORPH_OPEN, np.ones((k, k), np.uint8)),
                      np.uint8)
    thin = np.asarray(cv2.dilate(not_felt & ~wide, np.ones((PRINT_GROW, PRINT_GROW), np.uint8)),
                      np.uint8)
    thin &= ~np.asarray(cv2.dilate(wide, np.ones((3, 3), np.uint8)), np.uint8)
    # Specks (noise, a dark vignetted corner) are not print.
    n, labels, stats, _ = cv2.connectedComponentsWithStats(thin, connectivity=8)
    keep = np.zeros(n, np.uint8)
    keep[1:] = np.where(stats[1:, cv2.CC_STAT_AREA] >= PRINT_MIN_AREA, 255, 0)
    printed = keep[labels]
    if not np.count_nonzero(printed):
        return None
    return np.asarray(printed, np.uint8)


def _colour_planes(img: F32) -> list[F32]:
    """Log B/G, log R/G and the brightest channel of a BGR float image."""
    px = np.maximum(img, 8.0)
    return [np.log(px[..., 0] / px[..., 1]), np.log(px[..., 2] / px[..., 1]), px.max(axis=2)]


@dataclass(frozen=True, eq=False)
class FeltPrint:
    """The print of one calibrated board, and the empty board's colours over it.

    Build with :meth:`of_empty_board`.
    """

    #: The print (0/255) in the canonical view.
    mask: Image
    #: Where the board is not ignored (0/255: the marker corners are).
    keep: Image
    #: The felt's dominant BGR plane.
    plane: int
    #: The printed pixels (rows, columns) and, there, the empty board's lowest log B/G and
    #: R/G (2, n) and highest log B/G, R/G and brightest channel (3, n) around each, and its
    #: local light.
    at: tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]
    lo: F32
    hi: F32
    light: F32

    @classmethod
    def of_empty_board(
        cls, img: F32, not_felt: Mask, keep: Image, plane: int
    ) -> FeltPrint | None:
        """Return the print of the empty board's canonical view; None when the felt is plain.

        :param img: the view, box-blurred 3x3, as floats; ``not_felt`` where its colour is not
            the felt's; ``keep`` the pixels not ignored (0/255); ``plane`` the felt's BGR plane.
        """
        mask = print_mask(np.where(not_felt, 255, 0).astype(np.uint8) & keep)
        if mask is None:
            return None
        rows, cols = np.nonzero(mask)
        at = (rows.astype(np.intp), cols.astype(np.intp))
        # The empty board's colour range around each printed pixel: a frame's blur or a line's
        # anti-aliased edge mixes ink and felt, which is no change.
        k = np.ones((PRINT_RANGE_PX, PRINT_RANGE_PX), np.uint8)
        planes = _colour_planes(img)
        lo = np.stack([np.asarray(cv2.erode(q, k), np.float32)[at] for q in planes[:2]])
        hi = np.stack([np.asarray(cv2.dilate(q, k), np.float32)[at] for q in planes])
        felt = (~not_felt & (keep > 0) & (mask == 0)).astype(np.float32)
        light = _local_light(img, felt, plane, at)
        return cls(mask, keep, plane, at, lo, hi, light)

    def on(self, rows: npt.NDArray[np.intp], cols: npt.NDArray[np.intp]) -> Mask:
        """Return whether each canonical pixel (clipped to the view) is print."""
        h, w = self.mask.shape
        return np.asarray(self.mask[np.clip(rows, 0, h - 1), np.clip(cols, 0, w - 1)] > 0)

    def unprint(self, img: F32, not_felt: Mask, mask: Image) -> Image:
        """Return ``mask`` (non-felt, 0/255) with the print taken for felt where it still shows.

        A printed pixel is not felt where its colour or brightness changed against the empty
        board (a card or a hand over the line), or where non-felt lies on both sides of it
        within :data:`PRINT_CLOSE_PX` (a card's pips or picture over the line).

        :param img: the frame's canonical view, box-blurred 3x3, as floats.
        """
        at = self.at
        felt = (~not_felt & (self.keep > 0) & (self.mask == 0)).astype(np.float32)
        light = _local_light(img, felt, self.plane, at)
        known = (light > 0) & (self.light > 0)
        ratio = light / np.maximum(self.light, 1e-6)
        overall = float(np.median(ratio[known])) if np.any(known) else 1.0
        gain = np.where(known, ratio, overall)
        px = np.maximum(img[at], 8.0)
        now = (np.log(px[:, 0] / px[:, 1]), np.log(px[:, 2] / px[:, 1]), px.max(axis=1))
        lo, hi = self.lo, self.hi
        changed = ((now[0] < lo[0] - PRINT_CHROMA) | (now[0] > hi[0] + PRINT_CHROMA)
                   | (now[1] < lo[1] - PRINT_CHROMA) | (now[1] > hi[1] + PRINT_CHROMA)
                   | (now[2] > PRINT_BRIGHTER * gain * hi[2]))
        clear = mask & ~self.mask
        k = PRINT_CLOSE_PX
        closed = np.asarray(cv2.morphologyEx(clear, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8)),
                            np.uint8)
        out = clear | (closed & self.mask)
        out[at[0][changed], at[1][changed]] = 255
        # A card's edge along a line blurs into it and brightens it: a rim of "changed" print a
        # pixel or two wide beyond the card's edge, no part of anything lying there.
        k = PRINT_RIM_PX
        solid = np.asarray(cv2.morphologyEx(out, cv2.MORPH_OPEN, np.ones((k, k), np.uint8)),
                           np.uint8)
        out &= ~(self.mask & ~solid)
        return np.asarray(out & self.keep, np.uint8)


def _local_light(
    img: F32, felt: F32, plane: int, at: tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]
) -> F32:
    """At the pixels ``at``: the felt plane's mean over the felt around (0: no felt there)."""
    k = PRINT_LIGHT_WINDOW
    total = np.asarray(cv2.blur(np.ascontiguousarray(img[..., plane]) * felt, (k, k)),
                       np.float32)[at]
    share = np.asarray(cv2.blur(felt, (k, k)), np.float32)[at]
    return np.asarray(np.where(share > 0.05, total / np.maximum(share, 1e-6), 0.0), np.float32)
