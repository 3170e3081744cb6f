"""Whether a lean between suit twins is more than the frame itself can make.

:func:`~hardware.camera.twindecide.decide_twin` and
:func:`~hardware.camera.twindecide.twin_refuted` read a twin from where the two faces differ; on
designs whose twins differ in a small index suit symbol the lean there is as much the frame's
noise and blur misfit as the card. These rules ask for a lean the frame's own noise does not
make, at the blur the whole card shows and at the blur the corner indices show.
"""

from __future__ import annotations

from collections.abc import Iterator

import cv2
import numpy as np

from hardware.camera.blurmatch import (
    blur_kernel,
    blurred_faces,
    blurred_lean_noise,
    blurred_pair_check,
    index_blur,
    lean_noise,
    matched_blur,
)
from hardware.camera.finetwins import FineFaces
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.suits import pair_check
from table_controller.engine.cards import Card


def lean_stands(observed: F32, best: F32, twin: F32, position: float,
                params: RecognizerParams) -> bool:
    """Whether a lean between blurred twins is more than the frame's own noise can make.

    Where a club and a spade differ in a few pixels of a small index symbol, or in pips the
    frame blurs to blobs, the faces blurred as the observation is differ by little, and the
    position along that little difference (``position``: +1 at ``best``, -1 at ``twin``) is
    as much the frame's noise, compression and blur misfit as the card. The same difference
    laid where the two faces agree measures that noise on this very frame
    (:func:`~hardware.camera.blurmatch.lean_noise`): see :func:`above_noise`.
    """
    return above_noise(position, blurred_lean_noise(observed, best, twin), params)


def index_lean_stands(observed: F32, best: F32, twin: F32, sign: float,
                      params: RecognizerParams) -> bool:
    """Whether the lean a blurred twin read stands on holds at the blur the indices show.

    :func:`~hardware.camera.blurmatch.matched_blur` fits one blur over the whole card; where
    the twins share a court picture that fit is the picture's, and a streak the corner index
    glyphs show is lost to it: blurred as a plain Gaussian, a spade's point reads as a
    club's lobes. Fitted on the index boxes alone
    (:func:`~hardware.camera.blurmatch.index_blur`), where the twins differ, the same read
    must lean the same way (``sign``: +1 towards ``best``, -1 towards ``twin``) by
    ``suit_blur_min_position``, above that blur's own noise (:func:`above_noise`). Where the
    two fits agree, nothing more is asked.
    """
    blur, _kernel, _ = matched_blur(observed, best, twin)
    at = index_blur(observed, best, twin)
    if at == blur:
        return True
    faces = blurred_faces(best, twin, at)
    check = pair_check(observed, faces[0], faces[1], joint=True)
    return (sign * check.position >= params.suit_blur_min_position
            and above_noise(check.position, lean_noise(observed, faces[0], faces[1]), params))


def blurred_read_stands(observed: F32, best: F32, twin: F32, position: float, sign: float,
                        params: RecognizerParams) -> bool:
    """Whether a twin read by the blurred comparison (``position``, towards ``sign``) stands.

    Above the frame's noise (:func:`lean_stands`), at the blur the corner indices show
    (:func:`index_lean_stands`) and with the cut moved by half a pixel (:func:`offset_lean_stands`).
    """
    return (lean_stands(observed, best, twin, position, params)
            and index_lean_stands(observed, best, twin, sign, params)
            and offset_lean_stands(observed, best, twin, sign, params))


def corners_deny(observed: F32, card: Card, twin: Card, fine: FineFaces | None,
                 params: RecognizerParams) -> bool:
    """Whether the corners at the frame's resolution decide ``twin`` over a blurred read.

    :meth:`~hardware.camera.finetwins.FineFaces.denies` (every available corner box leaning
    clearly to ``twin``, :meth:`~hardware.camera.finetwins.FineFaces.decide`), where
    ``blurred_twin_corner_veto`` is set and the bank keeps its faces at their own
    resolution (``fine``; None: never).
    """
    return (params.blurred_twin_corner_veto and fine is not None
            and fine.denies(observed, card, twin))


def corner_blur_stands(observed: F32, best: F32, twin: F32, sign: float, card: Card,
                       other: Card, fine: FineFaces | None, params: RecognizerParams) -> bool:
    """Whether a blurred twin read holds at the blur the corner boxes show.

    :func:`~hardware.camera.blurmatch.matched_blur` fits one blur on the stored-size cut;
    the corner boxes at the frame's own resolution fit theirs
    (:meth:`~hardware.camera.finetwins.FineFaces.blur_seen`), where a streak a few frame
    pixels long still shows. Both faces blurred by the corners' blur (scaled to the stored
    size), the comparison must not lean the other way (``sign``: +1 the read is ``best``,
    -1 ``twin``) where it fits ``suit_min_fit``: a 3 of spades on an askew hard frame, its
    stored cut fitted by a plain Gaussian (sigma 2), leaned 0.94 towards the club, while the
    corners found an 8 px vertical streak, at which the whole card leaned -0.28, to the
    spade, at a fit of 0.996 (benchmark run 95). ``suit_corner_blur_check`` off, no fine
    faces or no corner compared: True.
    """
    if not params.suit_corner_blur_check or fine is None:
        return True
    seen = fine.blur_seen(observed, card, other)
    if seen is None:
        return True
    kernel = blur_kernel(seen[0], seen[1])
    fb = np.asarray(cv2.filter2D(best, -1, kernel, borderType=cv2.BORDER_REPLICATE), np.float32)
    fr = np.asarray(cv2.filter2D(twin, -1, kernel, borderType=cv2.BORDER_REPLICATE), np.float32)
    check = pair_check(observed, fb, fr, joint=True)
    return check.fit < params.suit_min_fit or sign * check.position >= 0.0


def offset_lean_stands(observed: F32, best: F32, twin: F32, sign: float,
                       params: RecognizerParams) -> bool:
    """Whether a blurred twin read holds with the cut moved by ``suit_blur_offset_px``.

    The cut is moved that far left, right, up and down in turn (bilinear, stored-patch
    pixels) and compared again against the two faces blurred as the moved cut is
    (:func:`~hardware.camera.blurmatch.blurred_pair_check`); where a moved cut's comparison
    fits ``suit_min_fit`` and leans the other way (``sign``: +1 the read is ``best``, -1
    ``twin``), the lean is the cut's offset, not the card. Where the twins differ in small
    pips a few pixels across, the blur fitted and the lean along the twins' difference turn
    on a fraction of a pixel: a 9 of spades of a design with dot-sized pips (jumbo indices),
    cut from a card being placed, leaned -0.78 towards the club, and +0.87 and +0.79 with
    the cut moved half a pixel left or down (benchmark run 90); over 62 right blurred twin
    reads of tuning designs no moved cut leaned the other way (the lowest +0.43).
    ``suit_blur_offset_px`` 0: not asked.
    """
    step = params.suit_blur_offset_px
    if step <= 0.0:
        return True
    for moved in moved_cuts(observed, step):
        check = blurred_pair_check(moved, best, twin)
        if check.fit >= params.suit_min_fit and sign * check.position < 0.0:
            return False
    return True


def moved_cuts(observed: F32, step: float) -> Iterator[F32]:
    """Yield the cut moved ``step`` stored-patch pixels left, right, up and down (bilinear)."""
    h, w = observed.shape
    for dx, dy in ((-step, 0.0), (step, 0.0), (0.0, -step), (0.0, step)):
        move = np.array([[1.0, 0.0, dx], [0.0, 1.0, dy]], np.float32)
        # Writeable, so the blur searches' cache keeps the cut's own search.
        yield np.asarray(cv2.warpAffine(observed, move, (w, h), flags=cv2.INTER_LINEAR,
                                        borderMode=cv2.BORDER_REPLICATE), np.float32)


def above_noise(position: float, noise: float | None, params: RecognizerParams) -> bool:
    """Whether ``|position|`` is at least ``suit_noise_ratio`` times ``noise``.

    True when the noise could not be measured (too little of the card where the two faces
    agree): the thresholds alone decide, as before (a card whose pips fill the face).
    """
    return noise is None or abs(position) >= params.suit_noise_ratio * noise

