"""Physical layout of the board area on the felt, in millimetres.

Rules this module keeps:

1. World coordinates are millimetres on the felt, origin at the board area's top-left corner,
   x to the right (towards slot 4), y down (towards the dealer).
2. The board area is split into ``slots`` equal slots left to right; a card belongs to the slot
   its centre falls in.
3. ArUco markers (DICT_4X4_50) ids 0..3 sit clockwise from the top-left just outside the board
   area's corners: each marker's white quiet zone touches the corner, so the black square starts
   ``marker_margin_mm`` out from the corner on both axes.

>>> g = BoardGeometry()
>>> g.slot_of(10.0), g.slot_of(399.0), g.slot_of(-1.0)
(0, 4, None)
>>> g.slot_centre_mm(2)
(200.0, 60.0)
>>> card_mm_for_aspect(63 / 88), card_mm_for_aspect(0.641), card_mm_for_aspect(0.69)
((63.0, 88.0), (57.0, 89.0), (60.7, 88.0))
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from table_controller.errors import CalibrationError

FloatArray = npt.NDArray[np.float64]

#: Standard card sizes (width, height in mm): a face whose proportions are within
#: :data:`SNAP_TOLERANCE` of one of them is taken to be that size.
STANDARD_CARD_MM: dict[str, tuple[float, float]] = {
    "poker": (63.0, 88.0),
    "bridge": (57.0, 89.0),
}
SNAP_TOLERANCE = 0.02
#: Height assumed for a card of other proportions (both standard sizes are 88-89 mm tall).
DEFAULT_CARD_HEIGHT_MM = 88.0


def card_mm_for_aspect(aspect: float) -> tuple[float, float]:
    """Card size (mm) of a face whose width / height is ``aspect``.

    A standard size (:data:`STANDARD_CARD_MM`) when the proportions are within
    :data:`SNAP_TOLERANCE` of it, else :data:`DEFAULT_CARD_HEIGHT_MM` tall with that aspect
    (width rounded to 0.1 mm).

    :raises CalibrationError: if ``aspect`` is not a positive finite number.
    """
    if not np.isfinite(aspect) or aspect <= 0:
        raise CalibrationError(f"card aspect (width / height) must be positive, got {aspect}")
    for size in STANDARD_CARD_MM.values():
        if abs(aspect / (size[0] / size[1]) - 1) <= SNAP_TOLERANCE:
            return size
    return (round(aspect * DEFAULT_CARD_HEIGHT_MM, 1), DEFAULT_CARD_HEIGHT_MM)


def card_size_name(card_mm: tuple[float, float]) -> str:
    """``"poker"``, ``"bridge"`` or ``"W x H mm"`` for a card size.

    >>> card_size_name((57.0, 89.0)), card_size_name((60.7, 88.0))
    ('bridge', '60.7 x 88 mm')
    """
    for name, size in STANDARD_CARD_MM.items():
        if tuple(card_mm) == size:
            return name
    return f"{card_mm[0]:g} x {card_mm[1]:g} mm"


def face_aspect(shapes: Iterable[tuple[int, ...]]) -> float:
    """Median width / height of face images given by their array shapes ``(h, w, ...)``.

    :raises CalibrationError: if there are no shapes.
    """
    ratios = sorted(s[1] / s[0] for s in shapes)
    if not ratios:
        raise CalibrationError("no faces to measure the card proportions from")
    return float(ratios[len(ratios) // 2])


@dataclass(frozen=True, slots=True)
class BoardGeometry:
    """Sizes of the board area, the cards and the corner markers (millimetres).

    :param board_mm: width and height of the board area.
    :param card_mm: width and height of one card (poker size 63 x 88 by default).
    :param slots: number of board slots (five for hold'em).
    :param marker_mm: side of the black square of each ArUco marker.
    :param marker_margin_mm: white quiet zone around each marker.
    """

    board_mm: tuple[float, float] = (400.0, 120.0)
    card_mm: tuple[float, float] = (63.0, 88.0)
    slots: int = 5
    marker_mm: float = 40.0
    marker_margin_mm: float = 5.0

    def __post_init__(self) -> None:
        bw, bh = self.board_mm
        cw, ch = self.card_mm
        if not (bw > 0 and bh > 0 and cw > 0 and ch > 0):
            raise CalibrationError(
                f"board_mm {self.board_mm} and card_mm {self.card_mm} must be positive"
            )
        if self.slots < 1:
            raise CalibrationError(f"slots must be at least 1, got {self.slots}")
        if cw > bw / self.slots or ch > bh:
            raise CalibrationError(
                f"a {cw:g} x {ch:g} mm card does not fit a slot: the board area "
                f"{bw:g} x {bh:g} mm has {self.slots} slots of {bw / self.slots:.1f} x "
                f"{bh:.1f} mm (card_mm {self.card_mm}, board_mm {self.board_mm}); give the "
                "board size or the card size that is really there"
            )
        if self.marker_mm <= 0 or self.marker_margin_mm < 0:
            raise CalibrationError(
                f"marker_mm {self.marker_mm} must be positive and "
                f"marker_margin_mm {self.marker_margin_mm} not negative"
            )

    @property
    def slot_width_mm(self) -> float:
        """Width of one slot."""
        return self.board_mm[0] / self.slots

    def board_corners_mm(self) -> FloatArray:
        """Board-area corners, clockwise from top-left, shape (4, 2)."""
        w, h = self.board_mm
        return np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]])

    def marker_corners_mm(self, marker_id: int) -> FloatArray:
        """Black-square corners of marker ``marker_id`` in ArUco order (TL, TR, BR, BL), (4, 2).

        :raises CalibrationError: if the id is not 0..3.
        """
        if marker_id not in (0, 1, 2, 3):
            raise CalibrationError(f"board markers have ids 0..3, not {marker_id}")
        w, h = self.board_mm
        q, m = self.marker_margin_mm, self.marker_mm
        x0 = -q - m if marker_id in (0, 3) else w + q
        y0 = -q - m if marker_id in (0, 1) else h + q
        return np.array([[x0, y0], [x0 + m, y0], [x0 + m, y0 + m], [x0, y0 + m]])

    def slot_centre_mm(self, slot: int) -> tuple[float, float]:
        """Centre of slot ``slot`` (0 = leftmost)."""
        return ((slot + 0.5) * self.slot_width_mm, self.board_mm[1] / 2)

    def slot_of(self, x_mm: float) -> int | None:
        """Slot whose column contains ``x_mm``, or None outside the board area."""
        if not 0.0 <= x_mm < self.board_mm[0]:
            return None
        return int(x_mm // self.slot_width_mm)

    def card_corners_mm(self, centre: tuple[float, float], angle_deg: float) -> FloatArray:
        """Corners of a card centred at ``centre`` rotated by ``angle_deg`` (TL, TR, BR, BL).

        The order follows the face image: corner 0 is the face's top-left, so an angle near 180
        means the card lies upside down.
        """
        cw, ch = self.card_mm
        a = np.deg2rad(angle_deg)
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        half = np.array([[-cw, -ch], [cw, -ch], [cw, ch], [-cw, ch]]) / 2
        return np.asarray(half @ rot.T + np.asarray(centre), dtype=np.float64)
