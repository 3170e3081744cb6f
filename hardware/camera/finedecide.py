"""The fine comparison's verdicts: the corners compared at the frame's own resolution decide.

:func:`~hardware.camera.finetwins.fine_lean` compares two faces on the corner boxes of a
frame (:class:`FineLean`, one :class:`CornerLean` per box); here is what those leans decide:

1. A corner counts where it fits well (:data:`MIN_FIT`, or its lit fit where the plain one
   misfits) and leans clearly: by :data:`MIN_LEAN` and by a ratio of its own placebo noise
   (:func:`corner_clear`).
2. A pair is decided (:func:`decide_fine`) where at least :data:`MIN_CORNERS` corners lean
   the same way clearly, every other available corner at least by the weakest bound, and
   their mean lean reaches :data:`MIN_MEAN`; refuted (:func:`fine_refutes`) or confirmed
   (:func:`fine_confirms`) on the same corner bounds.
3. Pure: leans in, a verdict out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hardware.camera.suits import Blur


@dataclass(frozen=True, slots=True)
class CornerLean:
    """One corner box's comparison: ``lean`` (+1 first card, -1 twin), its noise and fit (R^2).

    ``lit_lean``, ``lit_noise``, ``lit_fit``: the same box fitted with a light that varies
    across it (:func:`_fit` with ``lit``: a glare's gain and offset, planes over the box),
    made only where the plain fit is under :data:`MIN_FIT` (else fit 0: not made).
    """

    corner: int
    lean: float
    noise: float
    fit: float
    lit_lean: float = 0.0
    lit_noise: float = float("inf")
    lit_fit: float = 0.0


@dataclass(frozen=True, slots=True)
class FineLean:
    """The corners compared (:func:`fine_lean`) and the blur they were compared at."""

    corners: tuple[CornerLean, ...]
    blur: Blur
    #: The corners where the twins differ, available or not.
    differing: int


#: :func:`decide_fine`'s bounds: at least MIN_CORNERS corners available where the twins
#: differ; every one fitting at least MIN_FIT, leaning the same way by at least MIN_LEAN and
#: by at least NOISE_RATIO times its own placebo noise; their mean lean at least MIN_MEAN.
MIN_CORNERS = 2
MIN_FIT = 0.8
MIN_LEAN = 0.3
MIN_MEAN = 0.6
NOISE_RATIO = 3.0
#: The noise ratio a pip card's read on a deck captured by the camera is confirmed at
#: (:func:`fine_confirms`; courts keep :data:`NOISE_RATIO`), with no corner leaning so
#: towards the rival: such reads are asked for a confirmation wherever the rival is close,
#: and at 3 times the noise the blurred corners of hard frames confirmed too few (benchmark
#: run 72).
CAPTURED_NOISE_RATIO = 1.5
#: The corner boxes (TL, TR, BL, BR upright) that hold a rank index on every design: top left
#: and bottom right. A pip card's read on a deck captured by the camera that the four corners
#: do not confirm is confirmed on these alone (:func:`fine_confirms_indexed`): on a two-index
#: design the other two boxes show a corner pip and no index, and with captured faces they fit
#: worse (median 0.85 against 0.98) and lean weakly or the wrong way on right reads while both
#: index corners lean to the read (benchmark runs 113 and 114).
INDEX_CORNERS = frozenset((0, 3))
#: A court and its suit twin (:meth:`FineFaces.decide`) are decided where at least
#: :data:`MIN_CORNERS` corners lean clearly by :data:`NOISE_RATIO` times their noise and every
#: other available corner by this: on a design printing its indices in four corners the
#: weakest of four often stays short of 3 (benchmark run 85: a king and a jack of clubs of a
#: one-picture design at medium, corners 4.3-6.6 and 2.6 times their noise; jacks, queens
#: and kings at 2.5-3 on hard frames). Over 156 court twin comparisons of hard frames on
#: twelve one-picture tuning folders (scene seed 5230000) and 37 of medium ones this read 5
#: pairs more, none against the truth.
TWIN_WEAKEST_RATIO = 2.5

#: :func:`decide_fine`'s bounds for two ranks whose faces differ only in their corners
#: (:func:`~hardware.camera.difference.fine_rank_lean`); the twins' above were set for suit
#: twins, whose pip corners lean the wrong way on right reads (run 65). On hard scenes of
#: eight central-symbol designs no corner of 14,085 leant towards the other rank at 2 times
#: its noise, while right reads refused leant 2-3 times theirs (benchmark run 84).
RANK_NOISE_RATIO = 2.0
RANK_MIN_MEAN = 0.5

#: The rank veto's close cards (:meth:`~hardware.camera.rivals.RivalChecks._rank_refuted`)
#: are first compared at the blur the read's comparison with its second found, with no blur
#: search of their own (:meth:`~hardware.camera.finetwins.FineFaces.rough_lean`, half the
#: comparison's cost): a corner that fits :data:`MIN_FIT` and leans towards the read by
#: ROUGH_MIN_LEAN and ROUGH_NOISE_RATIO times its noise there (:func:`roughly_confirms`)
#: keeps the read against that card, which the searched comparison could refute only with
#: no corner towards the read at :data:`RANK_NOISE_RATIO` (benchmark run 126: 5,126 rough
#: confirmations of 5,246 rough comparisons on 32 central-symbol decks, plain and four
#: situations, medium and hard; the searched comparison refuted none of them, and left one
#: with no corner clear towards the read).
ROUGH_NOISE_RATIO = 4.0
ROUGH_MIN_LEAN = 0.6


def corner_clear(c: CornerLean, sign: int, noise_ratio: float = NOISE_RATIO) -> bool:
    """Whether corner ``c`` leans clearly towards ``sign`` (+1 the first card, -1 its twin).

    It fits at least :data:`MIN_FIT` and leans that way by at least :data:`MIN_LEAN` and by
    :data:`NOISE_RATIO` times its own placebo noise. Or, a box a glare misfits (the plain
    fit under :data:`MIN_FIT`): fitted with the glare's light (``lit_*``, :func:`_fit`) it
    fits :data:`MIN_FIT` and leans so by :data:`MIN_LEAN` and :data:`NOISE_RATIO` times its
    noise there, and the plain fit leans that way by :data:`MIN_LEAN` too. The glare's
    misfit is what the plain fit's noise measures; fitted with the light, the misfit and its
    noise go (a glare over a court's index: plain fit 0.58, lean 0.92 at noise 0.91; lit
    fit 0.94, lean 1.11 at noise 0.13).
    """
    def leans(lean: float, noise: float) -> bool:
        return sign * lean >= MIN_LEAN and sign * lean >= noise_ratio * noise

    if c.fit >= MIN_FIT:
        return leans(c.lean, c.noise)
    return (c.lit_fit >= MIN_FIT and leans(c.lit_lean, c.lit_noise)
            and sign * c.lean >= MIN_LEAN)


def roughly_confirms(lean: FineLean | None) -> bool:
    """Whether a corner leans to the first card by :data:`ROUGH_NOISE_RATIO` times its noise.

    Fitting at least :data:`MIN_FIT` (the plain fit only) and by :data:`ROUGH_MIN_LEAN`.
    """
    return lean is not None and any(
        c.fit >= MIN_FIT and c.lean >= ROUGH_MIN_LEAN and c.lean >= ROUGH_NOISE_RATIO * c.noise
        for c in lean.corners)

def decide_fine(lean: FineLean | None, noise_ratio: float = NOISE_RATIO,
                min_mean: float = MIN_MEAN, weakest: float | None = None) -> int:
    """+1: the first card; -1: its twin; 0: undecided (see the module's rule 3).

    At least :data:`MIN_CORNERS` corners must lean the same way by ``noise_ratio`` times their
    noise (:func:`corner_clear`), every other corner by ``weakest`` (at most ``noise_ratio``;
    None: ``noise_ratio`` too; :data:`TWIN_WEAKEST_RATIO` for court twins), and their mean
    lean be at least ``min_mean``.
    """
    if lean is None or len(lean.corners) < MIN_CORNERS:
        return 0
    sign = 1 if lean.corners[0].lean > 0 else -1
    if sum(corner_clear(c, sign, noise_ratio) for c in lean.corners) < MIN_CORNERS:
        return 0
    for c in lean.corners:
        if not corner_clear(c, sign, noise_ratio if weakest is None else weakest):
            return 0
    mean = float(np.mean([sign * c.lean for c in lean.corners]))
    return sign if mean >= min_mean else 0


def fine_refutes(lean: FineLean | None, noise_ratio: float = NOISE_RATIO) -> bool:
    """Whether the corners lean clearly towards the twin (a read of the first card refused).

    Asked of a suit-twin read however it was made. A corner leans clearly one way when it
    fits at least :data:`MIN_FIT` and leans that way by at least :data:`MIN_LEAN` and by
    :data:`NOISE_RATIO` times its own placebo noise (as :func:`decide_fine` asks of each
    corner it reads). Refused when at least one available corner leans clearly towards the
    twin and none clearly towards the card: on hard frames of two-corner designs the two
    pip corners of a 5, 8 or 10 of clubs leaned 0.6-0.8 towards the spade at a noise of
    0.05-0.08 while both index corners leaned 1.8-2.9 towards the club (benchmark run 65).
    No corner available, or none compared: False. ``noise_ratio``: the corners' bound
    (:data:`RANK_NOISE_RATIO` for two ranks whose faces differ only in their corners).
    """
    if lean is None:
        return False
    return (any(corner_clear(c, -1, noise_ratio) for c in lean.corners)
            and not any(corner_clear(c, 1, noise_ratio) for c in lean.corners))


def fine_confirms(lean: FineLean | None, noise_ratio: float = NOISE_RATIO) -> bool:
    """Whether at least one available corner leans clearly towards the card.

    Clearly as :func:`fine_refutes` asks of a corner towards the twin: it fits at least
    :data:`MIN_FIT` and leans the card's way by :data:`MIN_LEAN` and by :data:`NOISE_RATIO`
    times its own noise. A court's suit-twin read must have one (benchmark run 67: a jack of
    clubs read as the spade by the whole face through a glare over both indices, whose corners
    fitted 0.72 and 0.75 and leaned to the spade, so nothing refuted it). No corner available,
    or none compared: False. At a ``noise_ratio`` under :data:`NOISE_RATIO`
    (:data:`CAPTURED_NOISE_RATIO`), no corner may lean so towards the twin either.
    """
    if lean is None or not any(corner_clear(c, 1, noise_ratio) for c in lean.corners):
        return False
    return noise_ratio >= NOISE_RATIO or not any(
        corner_clear(c, -1, noise_ratio) for c in lean.corners)


def fine_confirms_indexed(lean: FineLean | None, noise_ratio: float = NOISE_RATIO,
                          corners: frozenset[int] = INDEX_CORNERS) -> bool:
    """Whether the available index corners all confirm the card.

    Every available corner of ``corners`` (those that hold an index: :data:`INDEX_CORNERS`,
    and on a four-index design the other two, :func:`~hardware.camera.fineindex.index_corners`)
    leans clearly towards the card (:func:`corner_clear` at ``noise_ratio``), all where all
    are available; the corners that show a pip and no index are left out. No index corner
    available, or none compared: False.
    """
    if lean is None:
        return False
    index = [c for c in lean.corners if c.corner in corners]
    return bool(index) and all(corner_clear(c, 1, noise_ratio) for c in index)


def fine_confirms_indices(lean: FineLean | None, noise_ratio: float) -> bool:
    """Whether both index corners (:data:`INDEX_CORNERS`) confirm the card, none the rival.

    Both index corners are available and lean clearly towards the card at ``noise_ratio``
    (:func:`corner_clear`), and no available corner leans so towards the rival. Fewer than
    both index corners available, or none compared: False.
    """
    if lean is None:
        return False
    index = [c for c in lean.corners if c.corner in INDEX_CORNERS]
    return (len(index) == len(INDEX_CORNERS)
            and all(corner_clear(c, 1, noise_ratio) for c in index)
            and not any(corner_clear(c, -1, noise_ratio) for c in lean.corners))


def negated(lean: FineLean) -> FineLean:
    """Return the comparison of the pair the other way round: every corner's lean negated."""
    corners = tuple(CornerLean(c.corner, -c.lean, c.noise, c.fit, -c.lit_lean, c.lit_noise,
                               c.lit_fit) for c in lean.corners)
    return FineLean(corners, lean.blur, lean.differing)
