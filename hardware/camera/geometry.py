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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from table_controller.errors import CalibrationError

FloatArray = npt.NDArray[np.float64]


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
                f"card_mm {self.card_mm} does not fit a slot of {bw / self.slots:.1f} x "
                f"{bh:.1f} mm (board_mm {self.board_mm}, {self.slots} slots)"
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
