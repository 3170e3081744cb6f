"""Where the cards lie: the canonical board view, the felt mask and each slot's card pose.

Rules this module keeps:

1. The camera is fixed: the calibrated homography maps the board area to a small canonical
   top-down view (:data:`CANON_PX_PER_MM`); no marker detection per frame.
2. A card is located from its straight edges, at the card size the registered faces give; a
   slot with no clean card-sized rectangle has no pose (``"empty"`` or ``"uncertain"``).
3. A felt's print, learnt from the empty board at calibration (:mod:`hardware.camera.feltprint`),
   is felt where the frame still shows it; without a print the felt mask is as it always was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Literal

import cv2
import numpy as np
import numpy.typing as npt

from hardware.camera.edges import (
    RUN_END_PX,
    card_columns_centre,
    clear_pair,
    corner_px,
    cut_side,
    fit_clear_of_print,
    neighbours_side,
    refit_on_shared_slope,
    run_ends,
    span_centre,
    straight_ends,
)
from hardware.camera.facebank import PATCH_SIZE
from hardware.camera.feltprint import PRINT_ON_EDGE, FeltPrint
from hardware.camera.geometry import BoardGeometry
from hardware.camera.inkgaps import closed_over_ink
from hardware.camera.occlusion import card_sized, runs_into_unknown
from hardware.camera.readings import FloatArray, Image, RecognizerParams, SlotStatus
from hardware.camera.turns import blocked_turns, same_pose, seen_square
from table_controller.errors import CalibrationError

#: Resolution of the canonical board view (pixels per millimetre).
CANON_PX_PER_MM = 1.2
#: Canonical view margin around the board area (millimetres).
CANON_MARGIN_MM = 20.0


@dataclass(frozen=True, slots=True)
class CardPose:
    """A card found in the canonical view: centre (px), angle (degrees), slot."""

    centre: tuple[float, float]
    angle_deg: float
    slot: int
    #: How far (canonical px, either way along the card's width) the centre may be off: nonzero
    #: only for a card whose both side edges are hidden under located neighbours.
    slack: float = 0.0


#: Steepest edge slope a card may lie at (tan of its rotation): 0.42 is 23 degrees; a dealer
#: leaves a card askew by 10-20 degrees now and then (was 0.3, 17 degrees).
MAX_SLOPE = 0.42
#: The felt's dominant colour channel (calibrated): the felt mask is that channel's ratio.
FeltChannel = Literal["blue", "green", "red"]
FELT_CHANNELS: tuple[FeltChannel, ...] = ("blue", "green", "red")
# BGR plane of the channel and the two others (green: red then blue, as the mask always had it).
_FELT_PLANES: dict[str, tuple[int, int, int]] = {
    "blue": (0, 2, 1), "green": (1, 2, 0), "red": (2, 1, 0),
}
#: Blue and red felt: a pixel is felt when its ratio is at least this times the felt's (green
#: felt: 0.45, as always). Set on rendered scenes: a dark navy sleeve passed 0.45 of the felt's
#: ratio and hid a card under it ("empty"); 0.6 did not. It costs nothing on medium scenes and
#: 1-3% of the cards (occluded) on hard ones (docs/vision.md, "Known limits").
COLOURED_FELT_FRACTION = 0.6
#: Blue and red felt only: a pixel whose felt channel is brighter than this times the frame's
#: felt level (median over the felt) is not felt, whatever its ratio. A dealer's skin can be as
#: red as burgundy felt by the ratio, but is far brighter (green felt keeps the ratio alone).
FELT_MAX_BRIGHTNESS = 1.3


#: A slot's columns beside a hand are tried for a card (a second centre estimate) only when
#: they hold half a card's area: less, and the card lies under the hand.
CARD_BESIDE_HAND = 0.5
#: Turns of the view (degrees) a card not located as the view lies is sought again at.
TURNS_DEG = (-15.0, 15.0)
#: Furthest a card found on a turned view may lie from square (degrees).
MAX_TURN_DEG = 35.0
#: A card's angle is fitted on its four edges' ends clear of the felt's print together
#: (:func:`.edges.refit_on_shared_slope`), not on its top and bottom edges alone (until run 46).
SHARED_SLOPE = True
#: Half the columns (share of the card's width) :func:`.turns.blocked_turns` looks at: within
#: those the top and bottom edges are fitted on (0.25 either side of the centre).
TURN_BAND = 0.1


#: A pixel whose felt-channel ratio exceeds the felt's by more than this is not felt: a card's
#: print of the felt's colour is far purer (ratio 0.9+) than a felt (0.37-0.81), and the felt
#: itself, noise, JPEG, dim light and glare included, stays within 0.18 of its calibrated
#: ratio on rendered hard scenes. Without it a green court card on green felt loses its
#: figure, open to the felt where the figure meets the card's edge.
FELT_MAX_EXCESS = 0.25
_AROUND_PRINT = np.ones((5, 5), np.uint8)


class CardLocator:
    """Finds cards in the slots of a fixed, calibrated camera's frames (no identification).

    :param world_to_image: homography from board millimetres to image pixels.
    :param felt_ratio: typical ``(P - max(other two)) / P`` of the empty felt, ``P`` its
        dominant channel ``felt_channel`` (from calibration; green: ``(G - max(R, B)) / G``).
    """

    def __init__(
        self,
        world_to_image: FloatArray,
        geometry: BoardGeometry,
        felt_ratio: float,
        params: RecognizerParams | None = None,
        felt_channel: FeltChannel = "green",
        reference: Image | None = None,
    ) -> None:
        if felt_channel not in _FELT_PLANES:
            raise CalibrationError(
                f"felt channel {felt_channel!r} is not one of {', '.join(FELT_CHANNELS)}"
            )
        self.felt_channel = felt_channel
        self.geometry = geometry
        self.params = params or RecognizerParams()
        self.world_to_image = np.asarray(world_to_image, np.float64)
        s = CANON_PX_PER_MM
        m = CANON_MARGIN_MM
        self._canon_from_world = np.array([[s, 0, s * m], [0, s, s * m], [0, 0, 1.0]])
        self._image_to_canon = self._canon_from_world @ np.linalg.inv(self.world_to_image)
        self._canon_to_image = self.world_to_image @ np.linalg.inv(self._canon_from_world)
        bw, bh = geometry.board_mm
        self.canon_size = (round((bw + 2 * m) * s), round((bh + 2 * m) * s))
        self.card_px = (geometry.card_mm[0] * s, geometry.card_mm[1] * s)
        fraction = 0.45 if felt_channel == "green" else COLOURED_FELT_FRACTION
        self.felt_threshold = max(0.08, fraction * felt_ratio)
        #: Above this ratio a pixel is purer than the felt: a card's print (not felt).
        self.felt_ceiling = felt_ratio + FELT_MAX_EXCESS
        self._ignore = self._ignore_mask()
        #: The last :meth:`foreground`'s view, box-blurred (float BGR): the colours
        #: :meth:`_merged_with_unknown` looks at.
        self._view: npt.NDArray[np.float32] | None = None
        #: The felt's print (:mod:`hardware.camera.feltprint`), None on a plain felt.
        self.print: FeltPrint | None = None
        if reference is not None:
            w, h = self.canon_size
            if reference.shape != (h, w, 3) or reference.dtype != np.uint8:
                raise CalibrationError(
                    f"board reference has shape {reference.shape} {reference.dtype}, "
                    f"expected {(h, w, 3)} uint8 (the canonical view of this board)"
                )
            img, not_felt = self._blurred_not_felt(reference)
            self.print = FeltPrint.of_empty_board(img, not_felt, self._ignore,
                                                  _FELT_PLANES[felt_channel][0])
        self.printed: Image | None = None if self.print is None else self.print.mask
        #: Set by :meth:`_edges` where ``span`` decides (no side edge placed the card).
        self._span_decides = False

    def _ignore_mask(self) -> Image:
        """Canonical pixels outside the board area in both axes (the marker corners)."""
        w, h = self.canon_size
        m = round(CANON_MARGIN_MM * CANON_PX_PER_MM)
        keep = np.zeros((h, w), np.uint8)
        keep[m : h - m, :] = 255
        keep[:, m : w - m] = 255
        return keep

    def canon_x(self, x_mm: float) -> float:
        """Canonical column of world x (mm)."""
        return (x_mm + CANON_MARGIN_MM) * CANON_PX_PER_MM

    def warp_board(self, frame: Image) -> Image:
        """Warp ``frame`` to the canonical top-down view of the board area (with margin)."""
        return np.asarray(
            cv2.warpPerspective(
                frame, self._image_to_canon, self.canon_size, flags=cv2.INTER_LINEAR
            ),
            dtype=np.uint8,
        )

    @staticmethod
    def felt_ratio(
        image: npt.NDArray[np.float32], channel: FeltChannel
    ) -> npt.NDArray[np.float32]:
        """Per pixel ``(P - max(other two)) / max(P, 8)``, ``P`` the ``channel`` plane (BGR)."""
        k, o1, o2 = _FELT_PLANES[channel]
        planes = cv2.split(image)
        p = planes[k]
        return np.asarray((p - np.maximum(planes[o1], planes[o2])) / np.maximum(p, 8.0),
                          np.float32)

    def foreground(self, canon: Image) -> Image:
        """Mask (0/255) of everything that is not felt in the canonical view, holes filled.

        Felt: the calibrated channel's ratio at least 0.45 times the felt's (blue or red felt:
        :data:`COLOURED_FELT_FRACTION`, and no brighter than :data:`FELT_MAX_BRIGHTNESS` times
        the frame's felt level).
        """
        img, not_felt = self._blurred_not_felt(canon)
        self._view = img
        # 0/255 as uint8 in one pass (``np.where`` made an int64 array first: the same mask).
        mask = np.multiply(not_felt, np.uint8(255), dtype=np.uint8) & self._ignore
        if self.print is not None:
            mask = self.print.unprint(img, not_felt, mask)
        mask = np.asarray(cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)),
                          np.uint8)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        filled = np.zeros_like(mask)
        cv2.drawContours(filled, contours, -1, 255, -1)
        return filled

    def _blurred_not_felt(
        self, canon: Image
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """Return the canonical view box-blurred (float), and where its colour is not the felt's."""
        img = cv2.blur(canon, (3, 3)).astype(np.float32)
        ratio = self.felt_ratio(img, self.felt_channel)
        not_felt = ratio < self.felt_threshold
        pure = np.asarray(ratio > self.felt_ceiling, np.uint8)
        if pure.any():
            # The print and the 2 px around it: where a figure meets the card's white, the
            # mixed pixels have the felt's ratio (thin lines of "felt" across the card).
            not_felt |= cv2.dilate(pure, _AROUND_PRINT) > 0
        if self.felt_channel != "green":
            plane = img[..., _FELT_PLANES[self.felt_channel][0]]
            felt = plane[~not_felt & (self._ignore > 0)]
            if felt.size >= 0.1 * plane.size:
                not_felt |= plane > FELT_MAX_BRIGHTNESS * float(np.median(felt))
        return np.asarray(img, np.float32), np.asarray(not_felt, np.bool_)

    def _merged_with_unknown(
        self, fg: Image, poses: Sequence[CardPose | None], slot: int, unknown: Sequence[int]
    ) -> bool:
        """Whether the card in ``slot`` runs on into something not a card (:mod:`.occlusion`)."""
        pose = poses[slot]
        if pose is None:
            return False
        return runs_into_unknown(
            fg, self._view, pose.centre, pose.angle_deg, self.card_px,
            lambda: [self._quad(p, grow=6.0) for n, p in enumerate(poses)
                     if p is not None and n != slot],
            {s - slot for s in unknown})

    def _card_sized(self, fg: Image, slot: int) -> bool:
        """Whether ``slot``'s non-felt spans at most a card's height (:func:`.card_sized`)."""
        sw = self.geometry.slot_width_mm
        return card_sized(fg, self.canon_x(slot * sw), self.canon_x((slot + 1) * sw),
                          self.card_px[1])

    def _retry_with_neighbours_cut(
        self, fg: Image, poses: list[CardPose | None], fallbacks: list[SlotStatus]
    ) -> bool:
        """Retry unresolved slots with their located neighbours cut out; True if one resolved.

        When no neighbour's cut resolves one, the slots still unresolved are tried by their top
        and bottom edges' stretches (``span``, :meth:`_find_card`), and then on the non-felt
        closed over a print of the felt's colour (:func:`.inkgaps.closed_over_ink`).
        """
        progress = False
        for slot, pose in enumerate(poses):
            if pose is not None or fallbacks[slot] != "uncertain":
                continue
            near = [poses[n] for n in (slot - 1, slot + 1) if 0 <= n < len(poses)]
            located = [n for n in near if n is not None]
            if not located:
                continue
            cut = np.zeros_like(fg)
            for n in located:
                cv2.fillPoly(cut, [np.round(self._quad(n, grow=1.5)).astype(np.int32)], 255)
            found, status = self._find_card(fg & ~cut, slot, cut)
            if found is not None:
                poses[slot] = found
                fallbacks[slot] = status
                progress = True
        if progress:
            return True
        share = self.params.ink_gap_share
        for slot, pose in enumerate(poses):
            if pose is None and fallbacks[slot] == "uncertain":
                found, status = self._find_card(fg, slot, span=True)
                if found is None and share > 0:  # its print of the felt's colour closed over
                    sw = self.geometry.slot_width_mm
                    found, status = self._find_card(closed_over_ink(
                        fg, self.canon_x(slot * sw), self.canon_x((slot + 1) * sw),
                        self.card_px[0], share), slot)
                if found is not None:
                    poses[slot] = found
                    fallbacks[slot] = status
                    progress = True
        return progress

    def _quad(self, pose: CardPose, grow: float = 0.0) -> FloatArray:
        cw, ch = self.card_px
        a = np.deg2rad(pose.angle_deg)
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        half = np.array([[-cw, -ch], [cw, -ch], [cw, ch], [-cw, ch]]) / 2
        half += np.sign(half) * grow
        return np.asarray(half @ rot.T + np.asarray(pose.centre), dtype=np.float64)

    @property
    def image_to_canon(self) -> FloatArray:
        """The homography from the full frame to the canonical view."""
        return np.asarray(self._image_to_canon, np.float64)

    def quad_px(self, pose: CardPose) -> FloatArray:
        """Corners (4, 2) of the card at ``pose`` in the full frame (TL, TR, BR, BL)."""
        quad = cv2.perspectiveTransform(self._quad(pose).reshape(-1, 1, 2), self._canon_to_image)
        return np.asarray(quad.reshape(-1, 2), np.float64)

    def locate(self, frame: Image, slot: int) -> CardPose | None:
        """Find the card lying in ``slot`` of ``frame``; None if there is no clean one."""
        pose, _ = self._find_card(self.foreground(self.warp_board(frame)), slot)
        return pose

    def _find_card(
        self, fg: Image, slot: int, cut: Image | None = None, span: bool = False
    ) -> tuple[CardPose | None, SlotStatus]:
        """Locate the card whose centre lies in ``slot`` from the card's straight edges.

        Top and bottom edges are fitted on columns near the card's middle, left and right edges
        on rows near its middle. A neighbour overlapping a little merges with the card on one
        side; then the genuine edge is the one that puts the card's centre inside this slot.
        ``cut`` marks neighbours already located and removed from ``fg``: an edge that ends on
        them is where the neighbour was cut away, not the card's own edge. ``span`` (once the
        other tries failed on this mask): a card whose both side edges run on into neighbours
        is placed by its top and bottom edges' stretches (:func:`.edges.span_centre`), and the
        turned views are not tried again.
        """
        p = self.params
        cw, ch = self.card_px
        x0 = self.canon_x(slot * self.geometry.slot_width_mm)
        x1 = self.canon_x((slot + 1) * self.geometry.slot_width_mm)
        cols = fg[:, int(x0) : int(np.ceil(x1))]
        count = int(np.count_nonzero(cols))
        if count < p.empty_fraction * cw * ch:
            return None, "empty"
        ys, xs = np.nonzero(cols)
        seed: tuple[float, float] | None = (float(xs.mean()) + int(x0), float(ys.mean()))
        first = True
        while seed is not None:
            cx, cy = seed
            pose = self._pose(fg, slot, cx, cy, x0, x1, cut, 0.0, span=span)
            if pose is None and not span:
                # Sampled along the card's own axes instead: a card turned far (or touching a
                # neighbour at another angle) mixes its edges along the view's rows and columns.
                # Not on a view whose middle runs into the border (a hand over the slot).
                blocked = blocked_turns(fg, (cx, cy), TURN_BAND * cw, TURNS_DEG)
                turned = [q for t in TURNS_DEG if t not in blocked
                          and (q := self._pose(fg, slot, cx, cy, x0, x1, cut, t)) is not None]
                if turned and all(same_pose(q, turned[0]) for q in turned[1:]):
                    pose = turned[0]
                elif turned:
                    pose = seen_square(turned, partial(self._pose, fg, slot, cx, cy, x0, x1, cut))
            if pose is not None:
                return pose, "card"
            # A hand or sleeve in the slot's columns pulls the first estimate off the card:
            # once more from the columns whose non-felt is no taller than a card.
            seed = (card_columns_centre(cols, ch, seed, int(x0), CARD_BESIDE_HAND * cw * ch)
                    if first else None)
            first = False
        return None, "uncertain"

    def _pose(
        self, fg: Image, slot: int, cx: float, cy: float, x0: float, x1: float,
        cut: Image | None, turn: float, span: bool = False,
    ) -> CardPose | None:
        """Find the card's pose from its edges, sampled on the view turned by ``turn`` degrees.

        The view is turned about the first estimate of the centre (``turn`` 0: as it is); the
        pose found is turned back, and must lie in the view, its centre in the slot, and its
        quad be covered by the foreground (:attr:`RecognizerParams.fill_fraction`).
        """
        p = self.params
        h, w = fg.shape
        view, view_cut, printed = fg, cut, self.printed
        back: FloatArray | None = None
        if turn:
            m = cv2.getRotationMatrix2D((cx, cy), turn, 1.0)
            back = np.asarray(cv2.invertAffineTransform(m), np.float64)

            def turned(mask: Image) -> Image:
                return np.asarray(cv2.warpAffine(mask, m, (w, h), flags=cv2.INTER_NEAREST,
                                                 borderValue=0), np.uint8)

            view = turned(fg)
            view_cut = None if cut is None else turned(cut)
            printed = None if printed is None else turned(printed)
        angle = slack = 0.0
        for _ in range(2):
            # The second fit off the corners, as the view lies only: a turned view samples the
            # card along its own axes already (there the turned fits agreed less with it).
            found = self._edges(view, cx, cy, x0, x1, view_cut, printed, back, span,
                                0.0 if turn else float(np.tan(np.deg2rad(angle))))
            if found is None:
                return None
            (cx, cy), angle, slack = found
        if back is not None:
            cx, cy = (float(v) for v in back @ np.array([cx, cy, 1.0]))
            angle += turn
            if abs(angle) > MAX_TURN_DEG:
                return None
        if not x0 <= cx < x1:
            return None
        pose = CardPose((cx, cy), angle, slot, slack)
        # The card's quad filled over its bounding box only (the same pixels as over the view).
        corners = self._quad(pose)
        if back is not None and not (np.all(corners >= 0) and np.all(corners[:, 0] < w - 1)
                                     and np.all(corners[:, 1] < h - 1)):
            # Turned, a run no longer ends at the view's border: a card must lie inside it.
            return None
        pts = np.round(corners).astype(np.int32)
        bx0, by0 = (max(int(v), 0) for v in pts.min(axis=0))
        bx1, by1 = (min(int(v) + 1, n) for v, n in zip(pts.max(axis=0), (w, h), strict=True))
        if bx1 <= bx0 or by1 <= by0:
            return None
        quad = np.zeros((by1 - by0, bx1 - bx0), np.uint8)
        cv2.fillPoly(quad, [pts - np.array([bx0, by0], np.int32)], 255)
        inside = np.count_nonzero(quad)
        covered = fg[by0:by1, bx0:bx1]
        if cut is not None:
            covered = covered | cut[by0:by1, bx0:bx1]
        if inside == 0 or np.count_nonzero(covered & quad) < p.fill_fraction * inside:
            return None
        if not (0 <= cx < w and 0 <= cy < h):
            return None
        return pose

    def _edges(
        self, fg: Image, cx: float, cy: float, x0: float, x1: float,
        cut: Image | None, printed: Image | None, back: FloatArray | None,
        span: bool = False, hint: float = 0.0,
    ) -> tuple[tuple[float, float], float, float] | None:
        """Centre, angle and slack of the card around ``(cx, cy)`` in ``fg`` (None: no card).

        ``back`` maps ``fg``'s pixels to the canonical view's (None: ``fg`` is the view): the
        centre must lie between the slot's columns ``x0`` and ``x1`` there. ``span``: with no
        side edge placing it, the card may be placed by :func:`.edges.span_centre`. ``hint``:
        the slope a first fit found (0: none), each edge is then fitted on its straight
        stretch only (:func:`.edges.straight_ends`).
        """
        p = self.params
        cw, ch = self.card_px
        h, w = fg.shape
        tol = p.size_tolerance

        def inside_slot(x: float, row: float) -> bool:
            """Whether a centre at ``(x, row)`` of ``fg`` lies in the slot's columns."""
            if back is not None:
                x = back[0, 0] * x + back[0, 1] * row + back[0, 2]
            return bool(x0 <= x < x1)

        # Left and right edges from rows around the middle.
        r0, r1 = max(0, int(cy - 0.3 * ch)), min(h, int(cy + 0.3 * ch) + 1)
        seed = round(cx)
        if not 0 <= seed < w:
            return None
        rows, left, right = run_ends(fg[r0:r1], seed)
        if rows.size < 0.3 * (r1 - r0):
            return None
        rows += r0
        # Each side on the rows along its straight stretch (a card turned far: off its corners).
        (rows_l, left), (rows_r, right) = straight_ends(
            rows, left, right, cy, cw / 2, ch / 2 - corner_px(cw), hint)
        iyl, iyr = rows_l.astype(np.intp), rows_r.astype(np.intp)
        li, ri = left.astype(np.intp), right.astype(np.intp)
        lfit, lp, *lpts = (fit_clear_of_print(printed, rows_l, left, iyl, li - 1, iyl, li)
                           if np.all(left > 0) else (None, 0.0))
        rfit, rp, *rpts = (fit_clear_of_print(printed, rows_r, right, iyr, ri, iyr, ri - 1)
                           if np.all(right < w) else (None, 0.0))
        lcut = rcut = None
        if cut is not None:
            lpts = rpts = []  # a side against a neighbour's cut keeps its own fit

            lfit, lcut = cut_side(rows_l, left, cut[iyl, np.maximum(li - 1, 0)] > 0, left > 0,
                                  lfit)
            rfit, rcut = cut_side(rows_r, right, cut[iyr, np.minimum(ri, w - 1)] > 0, right < w,
                                  rfit)
        # Top and bottom edges from columns around the middle.
        c0, c1 = max(0, int(cx - 0.25 * cw)), min(w, int(cx + 0.25 * cw) + 1)
        seed_row = round(cy)
        if not 0 <= seed_row < h:
            return None
        cols, top, bottom = run_ends(np.ascontiguousarray(fg[:, c0:c1].T), seed_row)
        if cols.size < 0.3 * (c1 - c0):
            return None
        cols += c0
        (cols_t, top), (cols_b, bottom) = straight_ends(
            cols, top, bottom, cx, -ch / 2, cw / 2 - corner_px(cw), hint)
        ixt, ixb = cols_t.astype(np.intp), cols_b.astype(np.intp)
        ty, by = top.astype(np.intp), bottom.astype(np.intp)
        tfit, tp, *tpts = (fit_clear_of_print(printed, cols_t, top, ty - 1, ixt, ty, ixt)
                           if np.all(top > 0) else (None, 0.0))
        bfit, bp, *bpts = (fit_clear_of_print(printed, cols_b, bottom, by, ixb, by - 1, ixb)
                           if np.all(bottom < h) else (None, 0.0))
        if printed is not None:
            own = (tfit, bfit)
            tfit, bfit = clear_pair(tfit, bfit, tp, bp, cx, ch, p.size_tolerance)
            # An edge rebuilt from the other has no ends of its own.
            tpts = tpts if tfit is own[0] else []
            bpts = bpts if bfit is own[1] else []
        if tfit is None or bfit is None:
            return None
        slope = (tfit[0] + bfit[0]) / 2
        if lfit is not None and abs(lfit[0] + slope) > 0.05:
            lfit = None
        if rfit is not None and abs(rfit[0] + slope) > 0.05:
            rfit = None
        if abs(tfit[0] - bfit[0]) > 0.06 or abs(slope) > MAX_SLOPE:
            return None
        if lfit is not None and rfit is not None and max(lp, rp) < PRINT_ON_EDGE:
            row = (tfit[0] + bfit[0]) * cx / 2 + (tfit[1] + bfit[1]) / 2
            far = neighbours_side(lfit, rfit, slope, row, cw, tol,
                                  lambda x: inside_slot(x - RUN_END_PX, row - RUN_END_PX))
            lfit, lpts = (None, []) if far < 0 else (lfit, lpts)
            rfit, rpts = (None, []) if far > 0 else (rfit, rpts)
        if SHARED_SLOPE:
            tfit, bfit, lfit, rfit = refit_on_shared_slope(
                [(tfit, tpts, 1.0), (bfit, bpts, 1.0), (lfit, lpts, -1.0), (rfit, rpts, -1.0)],
                ch)
            if tfit is None or bfit is None:
                return None
            slope = (tfit[0] + bfit[0]) / 2
        cos = 1 / np.sqrt(1 + slope**2)
        top_y, bottom_y = tfit[0] * cx + tfit[1], bfit[0] * cx + bfit[1]
        height = (bottom_y - top_y) * cos
        if abs(height - ch) > tol * ch:
            return None
        # The fits lie on run ends, half a pixel past the edges (RUN_END_PX): the centre is
        # that much up and left of their middle.
        new_cy = (top_y + bottom_y) / 2 - RUN_END_PX
        width_dx = cw / cos
        hyps: list[float] = []
        slack = 0.0
        if lcut is not None and rcut is not None:
            # Both sides under located neighbours: the card spans the visible part between the
            # cuts; where exactly is left to the face matching (within ``slack``).
            lx, rx = lcut[0] * new_cy + lcut[1], rcut[0] * new_cy + rcut[1]
            slack = (cw - (rx - lx) * cos) / 2
            if not 0 <= slack <= 0.15 * cw:
                return None
            hyps.append((lx + rx) / 2)
        elif lfit is not None and rfit is not None:
            lx, rx = lfit[0] * new_cy + lfit[1], rfit[0] * new_cy + rfit[1]
            width = (rx - lx) * cos
            if abs(width - cw) > tol * cw and (lp >= PRINT_ON_EDGE) != (rp >= PRINT_ON_EDGE):
                # One side lies along the print, the other is clear: the clear one places it.
                if lp >= PRINT_ON_EDGE:
                    hyps.append(rx - width_dx / 2)
                else:
                    hyps.append(lx + width_dx / 2)
            elif abs(width - cw) <= tol * cw:
                hyps.append((lx + rx) / 2)
            elif width > cw:
                hyps += [lx + width_dx / 2, rx - width_dx / 2]
            else:
                return None
        elif lfit is not None:
            hyps.append(lfit[0] * new_cy + lfit[1] + width_dx / 2)
        elif rfit is not None:
            hyps.append(rfit[0] * new_cy + rfit[1] - width_dx / 2)
        hyps = [x - RUN_END_PX for x in hyps]
        inside = [x for x in hyps if inside_slot(x, new_cy)]
        self._span_decides |= not inside and lcut is None and rcut is None
        if not inside and span and lcut is None and rcut is None:
            # No side edge places it in this slot (both run on into neighbours): the card
            # spans its top and bottom edges' straight stretches.
            mid = span_centre(fg, tfit, bfit, cx, new_cy + RUN_END_PX, cw, tol)
            if mid is not None and x0 <= mid < x1:
                inside = [mid]
        if len(inside) != 1:
            return None
        angle = float(np.degrees(np.arctan(slope)))
        return (inside[0], float(new_cy)), angle, slack

    def card_patch(
        self, frame: Image, pose: CardPose, size: tuple[int, int] = PATCH_SIZE
    ) -> Image:
        """Cut the card at ``pose`` from the full-resolution frame as a BGR patch of ``size``."""
        quad_canon = self._quad(pose)
        quad = cv2.perspectiveTransform(quad_canon.reshape(-1, 1, 2), self._canon_to_image)
        quad = quad.reshape(-1, 2)
        pw, ph = size
        big = (pw * 2, ph * 2)
        # The card's corners are the patch's outer corners, half a pixel out from its corner
        # pixels' centres (as a face is resized to its patch, ``INTER_AREA``).
        src = np.array([[0, 0], [big[0], 0], [big[0], big[1]], [0, big[1]]], np.float32) - 0.5
        m = cv2.getPerspectiveTransform(quad.astype(np.float32), src)
        warped = cv2.warpPerspective(frame, m, big, flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REPLICATE)
        return np.asarray(cv2.resize(warped, size, interpolation=cv2.INTER_AREA), np.uint8)
