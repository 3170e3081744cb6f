"""Faces captured by the camera, made comparable: suit twins share what they print alike.

A deck registered from the camera (:class:`calibration.faces.FaceCapture`) keeps each face at
the size the card has in the frame (its fine face), for the comparison of court suit twins at
the frame's own resolution (:mod:`hardware.camera.finetwins`). Two captures of a king of clubs
and the king of spades of a design whose courts share one picture differ in the index's small
suit sign, and also everywhere by the capture's noise and by a fraction of a pixel of pose:
left so, every corner box "differs", and the comparison's placebo noise (drawn from the faces)
does not see the capture's, so a box where the twins print the same leaned as if it told them
apart (benchmark run 71: a jack of clubs read as the spade, confirmed by a corner without an
index). So, at registration, each pair of suit twins is aligned (ECC, affine, on what the two
print alike) and, wherever the two agree within :data:`AGREE_LEVEL` grey levels, both take
their mean: what is left between them is what the design prints differently.

Rules this module keeps:

1. Every face is first brought to one size, the captured faces' median (they were cut from one
   slot of one camera, so they differ by a pixel at most).
2. A pair is aligned on what the two print alike only (:func:`aligned_pair`: clear of where
   they differ by :data:`ALIGN_CLEAR_PX`). An alignment that moves a face by more than
   :data:`MAX_SHIFT_PX` or scales it by more than :data:`MAX_SCALE` (or does not converge) is
   not used: the pair is compared unaligned.
3. Only pixels where the pair agrees change: where their signed difference, blurred by
   :data:`AGREE_SIGMA`, reaches :data:`AGREE_LEVEL` (dilated by a pixel) each keeps its own.
"""

from __future__ import annotations

from collections.abc import Mapping

import cv2
import numpy as np
import numpy.typing as npt

from hardware.camera.facebank import suit_twins
from table_controller.engine.cards import FULL_DECK, Card

Image = npt.NDArray[np.uint8]
F32 = npt.NDArray[np.float32]

#: Two captures agree where their signed difference, blurred (:data:`AGREE_SIGMA`), stays under
#: this (grey levels of 255): the capture noise of the rendered cameras (sigma 2, JPEG q90)
#: blurred so stays under 3; a suit sign's ink against paper differs by 100 and more.
AGREE_LEVEL = 14.0
#: The pair's signed difference is blurred by this (px) before it is compared with
#: :data:`AGREE_LEVEL`: two captures of one picture differ along its edges by a fraction of a
#: pixel of pose and sampling, in lines of opposite sign either side of an edge that the blur
#: cancels, where ink one twin alone prints stays.
AGREE_SIGMA = 2.0
#: A suit-twin pair is aligned on the pixels this far (px) or more from where the two differ
#: (:func:`aligned_pair`): clear of the edges of the ink one twin alone prints.
ALIGN_CLEAR_PX = 3
#: Largest translation (px) an alignment of two captures may make.
MAX_SHIFT_PX = 3.0
#: Largest change of scale (either axis, as a fraction) an alignment may make.
MAX_SCALE = 0.03


def common_size(faces: Mapping[Card, Image]) -> dict[Card, Image]:
    """Return every face resized (area average) to the median width and height of all."""
    w = int(np.median([f.shape[1] for f in faces.values()]))
    h = int(np.median([f.shape[0] for f in faces.values()]))
    out: dict[Card, Image] = {}
    for card, face in faces.items():
        if face.shape[:2] != (h, w):
            face = np.asarray(cv2.resize(face, (w, h), interpolation=cv2.INTER_AREA), np.uint8)
        out[card] = face
    return out


def aligned(reference: F32, moving: F32, where: npt.NDArray[np.bool_] | None = None) -> F32:
    """Return ``moving`` warped onto ``reference`` (same size) by ECC, or unchanged.

    ``where``: the pixels the warp is fitted on (default all). Unchanged when ECC does not
    converge or the warp goes past :data:`MAX_SHIFT_PX` or :data:`MAX_SCALE`.
    """
    warp = np.eye(2, 3, dtype=np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 60, 1e-5)
    mask = (np.full(reference.shape, 255, np.uint8) if where is None
            else np.asarray(where, np.uint8) * np.uint8(255))
    try:
        _, found = cv2.findTransformECC(reference, moving, warp, cv2.MOTION_AFFINE, criteria,
                                        mask, 3)
        warp = np.asarray(found, np.float32)
    except cv2.error:
        return moving
    linear = warp[:, :2]
    if (np.abs(warp[:, 2]).max() > MAX_SHIFT_PX
            or np.abs(linear - np.eye(2, dtype=np.float32)).max() > MAX_SCALE):
        return moving
    h, w = reference.shape
    return np.asarray(cv2.warpAffine(moving, warp, (w, h),
                                     flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                     borderMode=cv2.BORDER_REPLICATE), np.float32)


def differing(a: F32, b: F32) -> npt.NDArray[np.bool_]:
    """Return where two captures (same size) differ.

    There, their signed difference, blurred by :data:`AGREE_SIGMA`, reaches
    :data:`AGREE_LEVEL` (dilated by a pixel).
    """
    d = np.abs(cv2.GaussianBlur(a - b, (0, 0), AGREE_SIGMA))
    return np.asarray(cv2.dilate((d >= AGREE_LEVEL).astype(np.uint8),
                                 np.ones((3, 3), np.uint8)) > 0, np.bool_)


def aligned_pair(reference: F32, moving: F32) -> F32:
    """Return ``moving`` aligned onto ``reference`` on what the two print alike.

    :func:`aligned`, fitted only where the pair does not differ (:func:`differing`, grown by
    :data:`ALIGN_CLEAR_PX`): the paper, the border, the rank glyphs. Two pip twins print their
    pips in different places and shapes (a club's and a spade's, a heart's and a diamond's):
    fitted on the whole faces, the warp pulled one onto the other's pips, moving the shared
    index by up to 1.5 px and scaling it by up to 2%, and the corner where the two index suit
    signs differ no longer showed the difference the design prints (benchmark run 135: the
    twins' blurred index difference correlated 0.59-0.92 with the faces' own after that warp on
    synth-9286's clubs and spades, 0.98-1.00 after this one).
    """
    grow = 2 * ALIGN_CLEAR_PX + 1
    alike = cv2.dilate(differing(reference, moving).astype(np.uint8),
                       np.ones((grow, grow), np.uint8)) == 0
    return aligned(reference, moving, alike)


def share_agreement(a: F32, b: F32) -> tuple[F32, F32]:
    """Return ``a`` and ``b`` (aligned, same size) with their mean wherever they agree."""
    differ = differing(a, b)
    mean = 0.5 * (a + b)
    return (np.asarray(np.where(differ, a, mean), np.float32),
            np.asarray(np.where(differ, b, mean), np.float32))


def consolidate_twins(faces: Mapping[Card, Image]) -> dict[Card, Image]:
    """Return the 52 captured grey faces at one size, each suit-twin pair sharing its agreement.

    :param faces: card -> grey face (uint8) as captured, all 52.
    """
    same = common_size(faces)
    grey = {c: same[c].astype(np.float32) for c in FULL_DECK}
    for i, a in enumerate(FULL_DECK):
        for b in FULL_DECK[i + 1:]:
            if suit_twins(a, b):
                grey[a], grey[b] = share_agreement(grey[a], aligned_pair(grey[a], grey[b]))
    return {c: np.asarray(np.clip(grey[c] + 0.5, 0, 255), np.uint8) for c in FULL_DECK}
