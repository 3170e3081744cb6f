"""Which corner boxes of a design hold a rank index: found on the registered faces.

A design prints its rank index in the top-left and bottom-right corners
(:data:`~hardware.camera.finedecide.INDEX_CORNERS`), and some (four-index designs) in the
other two as well. The fine comparison confirms a pip card's read on a camera-registered deck
on the corners that hold an index (:func:`~hardware.camera.finedecide.fine_confirms_indexed`):
on a two-index design the other two boxes show a corner pip or paper and lean weakly or the
wrong way on right reads; on a four-index design they show the index too, and must confirm
as well.

Rules this module keeps:

1. A corner box holds an index where its content varies with the rank as much as the
   top-left box's does: over the pip cards of :data:`VARIATION_RANKS` (each suit, every pair
   of two ranks), the median squared difference of the box is at least
   :data:`INDEX_VARIATION` of the top-left box's. On standard layouts those ranks' corner
   pips lie at the same place, and on central-symbol designs there is none, so a box showing
   only pips or paper hardly varies.
2. The top-left and bottom-right boxes always count.
3. Pure: faces in, corners out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import cv2
import numpy as np
import numpy.typing as npt

from hardware.camera.finedecide import INDEX_CORNERS
from table_controller.engine.cards import RANKS, SUITS, Card

Image = npt.NDArray[np.uint8]

#: The ranks whose boxes are compared (4 to 10): on standard pip layouts their corner pips
#: lie at the same place; an ace, 2 or 3 shows none there.
VARIATION_RANKS = tuple(RANKS.index(r) for r in "456789T")
#: A box holds an index where its median rank-to-rank variation is at least this share of the
#: top-left box's. Measured on 40 generated designs (9241-9280, poker) and the two shipped
#: ones, from face images: 0.0 on every two-index design, 0.91-1.14 on every four-index one;
#: on faces captured by the camera (synth-9271, 9274, 9276, 9280, medium and hard cameras):
#: 0.013-0.027 on the two-index designs, 0.97-1.05 on the four-index ones (benchmark run 115).
INDEX_VARIATION = 0.5


def index_corners(greys: Mapping[Card, Image],
                  boxes: Sequence[tuple[int, int, int, int]]) -> frozenset[int]:
    """Return the corner boxes (0-3: TL, TR, BL, BR upright) that hold a rank index.

    :param greys: each card's registered face luminance; faces of other sizes than the first
        compared are resized to it.
    :param boxes: the four corner boxes (x, y, w, h) at that size, in that order.
    Cards missing from ``greys``: the top-left and bottom-right boxes only.
    """
    cards = [Card(r, s) for s in range(len(SUITS)) for r in VARIATION_RANKS]
    if any(c not in greys for c in cards):
        return INDEX_CORNERS
    h, w = greys[cards[0]].shape[:2]
    faces: dict[Card, npt.NDArray[np.float32]] = {}
    for c in cards:
        g = greys[c]
        if g.shape[:2] != (h, w):
            g = np.asarray(cv2.resize(g, (w, h), interpolation=cv2.INTER_AREA), np.uint8)
        faces[c] = g.astype(np.float32)
    variation = []
    for x, y, bw, bh in boxes:
        diffs = []
        for s in range(len(SUITS)):
            cut = [faces[Card(r, s)][y:y + bh, x:x + bw] for r in VARIATION_RANKS]
            diffs += [float(np.mean(np.square(a - b)))
                      for i, a in enumerate(cut) for b in cut[i + 1:]]
        variation.append(float(np.median(diffs)))
    top = variation[0]
    if top <= 0:
        return INDEX_CORNERS
    return INDEX_CORNERS | frozenset(k for k, v in enumerate(variation)
                                     if v >= INDEX_VARIATION * top)
