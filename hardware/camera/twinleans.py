"""Whether a lean between suit twins is more than the frame itself can make.

:func:`~hardware.camera.facebank.decide_twin` and
:func:`~hardware.camera.facebank.twin_refuted` read a twin from where the two faces differ; on
designs whose twins differ in a small index suit symbol the lean there is as much the frame's
noise and blur misfit as the card. These rules ask for a lean the frame's own noise does not
make, at the blur the whole card shows and at the blur the corner indices show.
"""

from __future__ import annotations

from hardware.camera.blurmatch import (
    blurred_faces,
    blurred_lean_noise,
    index_blur,
    lean_noise,
    matched_blur,
)
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.suits import pair_check


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


def above_noise(position: float, noise: float | None, params: RecognizerParams) -> bool:
    """Whether ``|position|`` is at least ``suit_noise_ratio`` times ``noise``.

    True when the noise could not be measured (too little of the card where the two faces
    agree): the thresholds alone decide, as before (a card whose pips fill the face).
    """
    return noise is None or abs(position) >= params.suit_noise_ratio * noise

