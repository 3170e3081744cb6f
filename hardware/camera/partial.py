"""A card read on the part of its face that no located neighbour's card covers.

A card pushed part-way out of its slot, or turned askew, can lie under its neighbour: the strip
the neighbour covers shows the neighbour's face, and the whole-face match scores low (0.6-0.8)
although the rest of the face is plainly the card's.

Rules this module keeps:

1. The hidden part is geometry only: where a located neighbour's card (grown by
   :data:`HIDDEN_GROW_PX`) lies over the card's quad. Which of two overlapping cards is on top
   is not decided: the card on top loses a strip of its own face, which is still a fair
   comparison, only on less of the face.
2. Observation and registered faces are compared on the same visible pixels: each feature
   vector (:func:`hardware.camera.facebank.face_features`) is cut to them and normalised
   again exactly as the whole vector was (luminance z-normalised, redness at its absolute level
   weighed for the pixels kept), so two faces that differ only under the neighbour are as alike
   as they look, and the decision rule's separation and discriminant see that.
3. Pure: poses and feature vectors in, restricted vectors and a face bank view out; the
   recogniser decides, and reads a card this way only when the whole face did not read it,
   most of the face is visible (:data:`MIN_VISIBLE`) and the visible part wins on the
   thresholds of any read (the close rivals' checks included).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import cv2
import numpy as np

from hardware.camera.facebank import PATCH_MASK, PATCH_SIZE, STORED_PATCH_SIZE, FaceBank
from hardware.camera.readings import F32, FloatArray, Image

#: Canonical px a neighbour's located quad is grown by before it hides our pixels: a located
#: edge is within about a pixel of the true one, and the 3x3 blur mixes one more.
HIDDEN_GROW_PX = 2.0
#: Least share of the face's matched pixels that must stay visible for a read on part of it.
MIN_VISIBLE = 0.6
#: Least share of a card's face a neighbour must cover for the visible part to be tried.
MIN_HIDDEN = 0.01
_MASK_IDX = PATCH_MASK.reshape(-1) > 0
_N = int(np.count_nonzero(_MASK_IDX))


def hidden_in_patch(quad: FloatArray, others: Sequence[FloatArray]) -> Image:
    """Mask (PATCH_SIZE, 0/255) of the card's face patch that the ``others`` quads cover.

    ``quad`` is the card's corners in the canonical view (TL, TR, BR, BL, as the face patch
    is cut); ``others`` are the neighbours' corners there, already grown. The canonical view
    and the face patch are both projective images of the felt, so the map between them is the
    homography that takes the card's corners to the patch's.
    """
    pw, ph = PATCH_SIZE
    dst = np.array([[0, 0], [pw, 0], [pw, ph], [0, ph]], np.float32)
    # Patch pixel j covers [j, j + 1): its centre is at j + 0.5.
    h = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), dst - 0.5)
    mask = np.zeros((ph, pw), np.uint8)
    for other in others:
        pts = cv2.perspectiveTransform(np.asarray(other, np.float64).reshape(-1, 1, 2), h)
        cv2.fillPoly(mask, [np.round(pts.reshape(-1, 2) * 16).astype(np.int32)], 255,
                     cv2.LINE_8, shift=4)
    return np.asarray(cv2.dilate(mask, np.ones((3, 3), np.uint8)), np.uint8)


def visible_keep(hidden: Image) -> np.ndarray:
    """Return which of a feature vector's pixels (those of ``PATCH_MASK``) ``hidden`` leaves."""
    return np.asarray(hidden.reshape(-1)[_MASK_IDX] == 0, np.bool_)


def restrict(rows: F32, keep: np.ndarray) -> F32:
    """Return feature vectors as made from the ``keep`` pixels alone.

    ``rows``: vectors as :func:`~hardware.camera.facebank.face_features` makes them (the last
    axis). A vector is ``[l, r] / n``: ``l`` the z-normalised luminance (unit norm), ``r``
    the redness times ``w / sqrt(N)`` (``N`` pixels), ``n`` the norm of ``[l, r]``, so
    ``n = 1 / |row_l|``.
    Cut to ``M`` pixels: the luminance part is z-normalised again (any positive scale and
    offset of it gives the same), the redness is scaled back by ``n`` and weighed for ``M``
    pixels (``* sqrt(N / M)``), and the whole normalised again.
    """
    two_d = rows.reshape(-1, 2 * _N)
    lum = two_d[:, :_N]
    n = 1.0 / np.maximum(np.linalg.norm(lum, axis=1, keepdims=True), 1e-9)
    m = int(np.count_nonzero(keep))
    lv = lum[:, keep]
    lv = lv - lv.mean(axis=1, keepdims=True)
    lv /= np.maximum(np.linalg.norm(lv, axis=1, keepdims=True), 1e-9)
    rv = two_d[:, _N:][:, keep] * n * np.float32(np.sqrt(_N / max(m, 1)))
    out = np.concatenate([lv, rv], axis=1)
    out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)
    return np.asarray(out.reshape((*rows.shape[:-1], out.shape[1])), np.float32)


def visible_bank(bank: FaceBank, keep: np.ndarray) -> FaceBank:
    """Return the face bank compared on the ``keep`` pixels only (a view; the bank unchanged).

    Only the matching matrices differ, so :meth:`FaceBank.match` (and what it derives:
    separation, discriminant, rivals) runs unchanged on the visible pixels.
    """
    view = copy.copy(bank)
    view.matrices = [restrict(m, keep) for m in bank.matrices]
    view.matrix = view.matrices[0]
    return view


def hidden_share(hidden: Image) -> float:
    """Share of the face's matched pixels that ``hidden`` covers."""
    return 1.0 - float(np.count_nonzero(visible_keep(hidden))) / _N


def neighbours_over(quad: FloatArray, others: Sequence[FloatArray], flipped: bool) -> Image | None:
    """Where the quads ``others`` (grown neighbours) overlap the card at ``quad``.

    Stored size, upright (turned when the card lies ``flipped``); None when none overlaps.
    """
    w, h = STORED_PATCH_SIZE
    src = quad[:3].astype(np.float32)
    to_patch = cv2.getAffineTransform(src, np.array([[0, 0], [w, 0], [w, h]], np.float32))
    out: Image | None = None
    for other in others:
        q = cv2.transform(np.asarray(other, np.float64)[None], to_patch)[0]
        if q[:, 0].max() < 0 or q[:, 0].min() > w or q[:, 1].max() < 0 or q[:, 1].min() > h:
            continue
        if out is None:
            out = np.zeros((h, w), np.uint8)
        cv2.fillPoly(out, [np.round(q).astype(np.int32)], 1)
    if out is None or not out.any():
        return None
    return np.asarray(cv2.rotate(out, cv2.ROTATE_180), np.uint8) if flipped else out
