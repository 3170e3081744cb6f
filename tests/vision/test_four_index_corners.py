"""A captured pip card's index-corner confirmation asks every corner that holds an index.

Run 114 keeps a pip card's read on a deck registered from the camera where both index corners,
top left and bottom right (:data:`~hardware.camera.finedecide.INDEX_CORNERS`), confirm it
clearly, though a corner that shows a corner pip leans to the rival (on a two-index design such
corners lean weakly or the wrong way on right reads). On a four-index design the other two
corners hold the index as well: one of them leaning clearly to the rival is evidence, and the
read must not be kept over it. Which corners hold an index is found on the registered faces
(:func:`~hardware.camera.fineindex.index_corners`: a box whose content varies with the rank,
over the 4 to 10 of each suit, as much as the top-left one's does; benchmark run 115).
"""

from __future__ import annotations

import cv2
import numpy as np

from hardware.camera.finedecide import (
    CAPTURED_NOISE_RATIO,
    INDEX_CORNERS,
    CornerLean,
    FineLean,
    fine_confirms_indexed,
)
from hardware.camera.fineindex import VARIATION_RANKS, index_corners
from hardware.camera.finetwins import FineFaces, FineView, _boxes
from table_controller.engine.cards import FULL_DECK, RANKS, Card

W, H = 170, 240
BLUR = (1.2, 0, 0)
ALL = frozenset(range(4))


def _face(card: Card, four: bool) -> np.ndarray:
    """A grey face: the index top left (and top right on a four-index design), a corner pip
    beside the index column on a two-index one, the lower half the upper turned."""
    top = np.full((H // 2, W), 255, np.uint8)
    text, mark = RANKS[card.rank], 40 + 50 * card.suit
    xs = (6, W - 26) if four else (6,)
    for x in xs:
        cv2.putText(top, text, (x, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.7, 0, 2)
        cv2.circle(top, (x + 8, 36), 5, mark, -1)
    if not four:
        cv2.rectangle(top, (W - 34, 10), (W - 20, 30), mark, -1)  # a corner pip
    face = np.vstack([top, np.rot90(top, 2)])
    return np.asarray(cv2.cvtColor(face, cv2.COLOR_GRAY2BGR), np.uint8)


def _faces(four: bool) -> dict[Card, np.ndarray]:
    return {c: _face(c, four) for c in FULL_DECK}


def test_the_corners_that_hold_an_index_are_found() -> None:
    boxes = _boxes((W, H))
    two = {c: _face(c, False)[..., 0] for c in FULL_DECK}
    four = {c: _face(c, True)[..., 0] for c in FULL_DECK}
    assert index_corners(two, boxes) == INDEX_CORNERS
    assert index_corners(four, boxes) == ALL
    # Faces missing: the top-left and bottom-right corners only.
    assert index_corners({Card(VARIATION_RANKS[0], 0): two[Card(VARIATION_RANKS[0], 0)]},
                         boxes) == INDEX_CORNERS


#: Both of run 114's index corners confirm the read; the top-right corner leans to the rival
#: as clearly.
TL, BR = CornerLean(0, 0.5, 0.2, 0.98), CornerLean(3, 0.55, 0.2, 0.97)
TR_AWAY = CornerLean(1, -0.9, 0.2, 0.97)
LEAN = FineLean((TL, TR_AWAY, BR), BLUR, 4)


def test_every_index_corner_must_confirm() -> None:
    assert fine_confirms_indexed(LEAN, CAPTURED_NOISE_RATIO)  # a two-index design: run 114
    assert not fine_confirms_indexed(LEAN, CAPTURED_NOISE_RATIO, ALL)
    confirming = FineLean((TL, CornerLean(1, 0.6, 0.2, 0.97), BR), BLUR, 4)
    assert fine_confirms_indexed(confirming, CAPTURED_NOISE_RATIO, ALL)


def _confirmed(four: bool) -> bool | None:
    fine = FineFaces(_faces(four), captured=True)
    observed = np.zeros((8, 8), np.float32)
    view = FineView(np.zeros((4, 4), np.uint8), np.zeros((4, 2)))
    fine.look(observed, view)
    seven, twin = Card(5, 0), Card(5, 3)
    fine._leans[(id(observed), seven, twin)] = (observed, LEAN)
    return fine.confirms_indexed(observed, seven, twin, CAPTURED_NOISE_RATIO)


def test_a_captured_four_index_deck_is_not_confirmed_over_an_index_corner() -> None:
    assert _confirmed(False) is True
    assert _confirmed(True) is False
