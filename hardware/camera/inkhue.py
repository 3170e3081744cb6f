"""The ink's hue, which a glare or a blur cannot change: a check on the fallback reads.

A glare adds white light and a blur mixes the ink with the paper: either moves the ink's
colour (against the paper's) towards zero along a straight line, never to another hue. A
four-colour deck prints its suits in four inks (clubs green, diamonds blue), which the whole
face's features see only through luminance and redness; under a hard motion blur the washed-out
and difference reads (:func:`hardware.camera.facebank.read_washed_out`,
:func:`~hardware.camera.facebank.read_by_difference`), which compare luminance only, read a
green club as the blue diamond of its rank (tuning design synth-9103, hard plain scenes).

Rules this module keeps:

1. Colour per pixel: ``(B - G) / white`` and ``(R - max(G, B)) / white`` (``white`` the
   card's white under the local light, as :func:`~hardware.camera.facebank.face_features`
   takes it); the ink's colour is its mean over the ink of the two faces compared (grown by
   the blur) less its mean over the rest of the card (the paper: a tinted light shifts both).
2. The observation's ink colour is explained by a face when it is a non-negative multiple of
   that face's (:func:`hue_residual`). A read is refuted only when its face leaves more than
   :data:`HUE_MAX_RESIDUAL` unexplained and the rival's face explains the ink at least twice
   as well: refusing is the safe direction, and a deck whose suits share their inks (red and
   black) gives the same colour to the pips of both twins, which it never tells apart.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from hardware.camera.readings import Image

#: A face's pixel is ink where its luminance is under this share of the card's white.
INK_LEVEL = 0.7
#: The ink region grown by this (stored px; a hard scene's blur spreads the ink that far).
INK_GROW = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))
#: The card's border (stored px) left out of ink and paper alike.
BORDER_PX = 6
#: Most of the observation's ink colour a read's face may leave unexplained. Tuning design
#: synth-9103 poker, hard plain scenes (seed 5271310): the fallback reads that were right left
#: at most 0.031 (the rival at least 0.23); the three read wrong left 0.14-0.18 (the rival
#: at most 0.004).
HUE_MAX_RESIDUAL = 0.06
_WHITE_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (17, 17))

F64 = npt.NDArray[np.float64]


def _colour(patch: Image) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Return a BGR patch's luminance and colour (two planes) against its local white."""
    img = patch.astype(np.float32)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    white = np.maximum(cv2.GaussianBlur(cv2.dilate(gray, _WHITE_KERNEL), (0, 0), 10.0), 16.0)
    b, g, r = cv2.split(img)
    colour = np.stack([(b - g) / white, (r - np.maximum(g, b)) / white], -1)
    return np.asarray(gray / white, np.float32), np.asarray(colour, np.float32)


def ink_colours(observed: Image, read: Image, rival: Image) -> tuple[F64, F64, F64]:
    """Return the ink colour of the read's face, the rival's face and the observation.

    All three are BGR patches of the same size, upright; the ink is where either face has
    ink (rule 1).
    """
    lr, cr = _colour(read)
    lv, cv = _colour(rival)
    _, co = _colour(observed)
    ink = cv2.dilate(((lr < INK_LEVEL) | (lv < INK_LEVEL)).astype(np.uint8), INK_GROW) > 0
    inside = np.zeros_like(ink)
    b = BORDER_PX
    inside[b:-b, b:-b] = True
    ink &= inside
    paper = inside & ~ink
    if not ink.any() or not paper.any():
        zero = np.zeros(2)
        return zero, zero, zero
    out = [np.asarray(c[ink].mean(axis=0) - c[paper].mean(axis=0), np.float64)
           for c in (cr, cv, co)]
    return out[0], out[1], out[2]


def hue_residual(observed: F64, face: F64) -> float:
    """How much of the observed ink colour no non-negative multiple of ``face``'s explains."""
    n = float(face @ face)
    k = max(0.0, float(observed @ face) / n) if n > 1e-9 else 0.0
    return float(np.linalg.norm(observed - k * face))


def hue_refutes(observed: Image, read: Image, rival: Image) -> bool:
    """Whether the observation's ink colour refutes ``read``'s face for ``rival``'s (rule 2)."""
    cr, cv, co = ink_colours(observed, read, rival)
    own = hue_residual(co, cr)
    return own > HUE_MAX_RESIDUAL and hue_residual(co, cv) <= 0.5 * own
