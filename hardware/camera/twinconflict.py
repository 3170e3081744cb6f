"""Whether the two faces blurred as the observation is contradict a pip card's suit-twin read.

Rules this module keeps:

1. A blurred comparison is evidence only where a blur was matched on the faces
   (:func:`blurred_unmatched`).
2. A 2 to 10 read over its suit twin (by the comparison at the faces' own blur, or by the
   whole face) is refused where the comparison against the two faces blurred as the
   observation is leans clearly towards the twin, no half towards the card
   (:func:`blurred_names_twin`): at the frame's blur, the sharp faces' lean towards the card
   is misfit as much as the card. Courts are the fine comparison's
   (:data:`~hardware.camera.finetwins.FINE_RANKS`); an ace's twins differ in the whole pip,
   where no blur is matched.
3. A 2 to 10 read on the sharp faces is refused too where the comparison against the faces
   blurred as the observation is would by itself read the twin by ``decide_twin``'s own
   bounds (``suit_blur_min_position`` on the region, ``suit_blur_min_half`` on every half),
   however noisy that comparison is at the frame's blur (:func:`blurred_contradicts`): two
   comparisons that each name a different card leave the card undecided.
4. A 2 to 10 read on the sharp faces is refused as well where the blurred comparison,
   matched on the frame, does not lean to the card by ``twin_blur_veto_position``, the bound
   a whole-face read is held to against its twin (:func:`blurred_withholds`): the sharp
   faces' lean at a blur far past theirs carries the blur's misfit, which the frame's noise
   does not measure.
5. Pure: the blurred faces and the matched blur are kept per pair by :mod:`.blurmatch`.
"""

from __future__ import annotations

from hardware.camera.blurmatch import blurred_pair_check
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.suits import SuitCheck
from hardware.camera.twinleans import lean_stands
from table_controller.engine.cards import RANKS, Card

#: The ranks whose suit-twin reads :func:`blurred_names_twin` may refuse: 2 to 10.
PIP_RANKS = frozenset(RANKS.index(r) for r in "23456789T")


def blurred_unmatched(blurred: SuitCheck, params: RecognizerParams) -> bool:
    """Whether a blurred twin comparison is no evidence: the faces were blurred past the frame.

    Faces blurred as the observation is keep about its contrast where they differ; a fitted
    contrast over ``twin_blur_max_contrast``, or blurred faces that no longer differ enough to
    be compared (no fit), means the blur found was more than the frame's: faces with too
    little print outside their difference region to match a blur on (an ace, a two of a
    four-colour deck, whose twins differ in the whole pip's ink).
    """
    return blurred.fit <= 0.0 or blurred.contrast > params.twin_blur_max_contrast


def matched_pip_blur(observed: F32, card: Card, best: F32, twin: F32,
                     params: RecognizerParams) -> SuitCheck | None:
    """Return the blurred twin comparison of a 2 to 10 if it matches the frame's blur, else None.

    Matched: fit at least ``suit_min_fit`` and :func:`blurred_unmatched` not. The one
    comparison rules 2-4 start from.
    """
    if card.rank not in PIP_RANKS:
        return None
    blurred = blurred_pair_check(observed, best, twin)
    if blurred.fit < params.suit_min_fit or blurred_unmatched(blurred, params):
        return None
    return blurred


def blurred_names_twin(observed: F32, card: Card, best: F32, twin: F32,
                       params: RecognizerParams) -> bool:
    """Whether the faces blurred as the observation is name ``twin`` rather than ``card``.

    ``best`` and ``twin`` are the two faces' luminance (``card``'s first). For a 2 to 10:
    the comparison against the two faces blurred as the observation is
    (:func:`~hardware.camera.blurmatch.blurred_pair_check`) matches the frame's blur
    (fit at least ``suit_min_fit``, :func:`blurred_unmatched` not) and leans towards the
    twin by ``suit_blur_min_position`` on the whole region, neither half leaning towards
    ``card`` (as :func:`~hardware.camera.pipagree.stored_lean` names a card), above twice
    the frame's noise at that blur (:func:`~hardware.camera.twinleans.lean_stands`).
    A 9 of clubs of a two-colour design whose club and spade differ in about 5% of their
    ink was read as the spade: the sharp faces leaned 0.77 towards the spade (noise 0.36),
    the blurred ones 0.70 towards the club (fit 0.99, halves 0.40 and 1.01; bridge, hard
    plain, benchmark run 81); a 10 of clubs of its poker variant, 0.74 to the spade (noise
    0.28) and blurred 0.68 to the club with one half at 0.05 (the bound ``decide_twin``
    reads a twin by, ``suit_blur_min_half``, would have kept that read).
    """
    p = params
    blurred = matched_pip_blur(observed, card, best, twin, p)
    return (blurred is not None and -blurred.position >= p.suit_blur_min_position
            and blurred.best_half <= 0.0
            and lean_stands(observed, best, twin, blurred.position, p))


def blurred_contradicts(observed: F32, card: Card, best: F32, twin: F32,
                        params: RecognizerParams) -> bool:
    """Whether the faces blurred as the observation is read ``twin`` rather than ``card``.

    Module rule 3. For a 2 to 10: the blurred comparison matches the frame's blur (fit at
    least ``suit_min_fit``, :func:`blurred_unmatched` not, both halves measured) and leans
    towards the twin by ``suit_blur_min_position`` on the region and ``suit_blur_min_half``
    on every half, the bounds :func:`~hardware.camera.twindecide.decide_twin` reads the twin
    from it by. Unlike :func:`blurred_names_twin` it does not ask the lean to stand above the
    frame's noise at that blur: a 2 of spades of a two-colour design was read as the club on
    the sharp faces (0.87, noise 0.37) while the blurred faces, fitting 0.94, leaned 0.77 to
    the spade with both halves at 0.60 and 0.93, under their noise of 2.24 (bridge, hard
    plain; an unseen measurement, benchmark run 127).
    """
    p = params
    blurred = matched_pip_blur(observed, card, best, twin, p)
    return (blurred is not None and blurred.halves >= 2
            and -blurred.position >= p.suit_blur_min_position
            and -blurred.best_half >= p.suit_blur_min_half)


def blurred_withholds(observed: F32, card: Card, best: F32, twin: F32,
                      params: RecognizerParams) -> bool:
    """Whether the faces blurred as the observation is, matched on it, fail to lean to ``card``.

    Module rule 4. For a 2 to 10: the blurred comparison matches the frame's blur (fit at
    least ``suit_min_fit``, :func:`blurred_unmatched` not) and leans towards ``card`` by less
    than ``twin_blur_veto_position`` on the region (the bound
    :func:`~hardware.camera.twindecide.twin_refuted` holds a whole-face read to). Where no
    blur is matched it says nothing (:func:`~hardware.camera.twindecide.sharp_unconfirmed`
    asks the corners then). An 8 of spades of a two-colour design whose club and spade differ
    in little ink was read as the club on the sharp faces (0.93, fit 0.85, above the frame's
    noise of 0.44: the noise measures spread, not the misfit of faces far sharper than the
    frame), while the blurred faces, fitting 0.98, leaned 0.07 to the spade (bridge, hard
    plain; benchmark run 134).
    """
    blurred = matched_pip_blur(observed, card, best, twin, params)
    return blurred is not None and blurred.position < params.twin_blur_veto_position
