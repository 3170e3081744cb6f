"""A card whose print of the felt's colour notches its edges, located on its closed outline.

Rules this module keeps:

1. A four-colour deck prints one suit in the felt's colour (green clubs on green felt): the
   felt mask takes that ink near the card's edge for felt, and the card's outline in the
   non-felt mask has notches (an index or a pip cut into the edge) and open holes, so no
   straight edge is found and the slot is reported ``"occluded"`` (benchmark run 128).
2. Only for a slot the locator left unresolved (``"uncertain"``, no pose) by every other try:
   the non-felt mask is closed over gaps up to :attr:`.RecognizerParams.ink_gap_share` of a
   card's width and its holes filled, in that slot's columns only, and the card sought there
   again by the same rules (straight edges at the card's size, the quad covered as always).
   A slot any other rule placed or called empty is never looked at again.
3. Pure: a mask in, a mask out.
"""

from __future__ import annotations

import cv2
import numpy as np

from hardware.camera.readings import Image


def closed_over_ink(fg: Image, x0: float, x1: float, card_width: float, share: float) -> Image:
    """``fg`` closed over gaps up to ``share`` of ``card_width`` (px), holes filled.

    Only the slot's columns ``x0``-``x1`` and half a card's width either side change (a card
    lying off its slot's middle keeps both side edges in them).
    """
    side = max(3, 2 * round((share * card_width - 1) / 2) + 1)
    shape = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side))
    closed = np.asarray(cv2.morphologyEx(fg, cv2.MORPH_CLOSE, shape), np.uint8)
    contours, _ = cv2.findContours(closed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(closed)
    cv2.drawContours(filled, contours, -1, 255, -1)
    a, b = max(int(x0 - card_width / 2), 0), min(int(np.ceil(x1 + card_width / 2)), fg.shape[1])
    out = fg.copy()
    out[:, a:b] = filled[:, a:b]
    return out
