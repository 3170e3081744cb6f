"""Suit twins decided where their faces differ: a twin read, and a twin refuting a read.

Rules this module keeps:

1. Suit twins the whole face cannot separate (:func:`~hardware.camera.facebank.decide` leaves
   them to this module) are decided where their faces differ (:func:`decide_twin`): at the
   faces' own light blur first (:func:`sharp_twin_read`), then at the observation's blur; a
   pair of courts left undecided so, on the corner indices at the frame's own resolution
   (:data:`~hardware.camera.finetwins.FINE_RANKS`).
2. A read of a card is refused where the observation fails to show it rather than its suit
   twin (:func:`twin_refuted`).
3. Pure: the registered faces' luminance and the blurred faces are kept by the
   :class:`~hardware.camera.facebank.FaceBank` and :mod:`.blurmatch`.
"""

from __future__ import annotations

from dataclasses import replace

from hardware.camera.blurmatch import blurred_pair_check, lean_noise
from hardware.camera.facebank import FaceBank, Match
from hardware.camera.faintpair import faint_twin_sign
from hardware.camera.finetwins import FINE_RANKS
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.suits import SuitCheck, pair_check
from hardware.camera.twinconflict import (
    blurred_contradicts,
    blurred_names_twin,
    blurred_unmatched,
    blurred_withholds,
)
from hardware.camera.twinleans import (
    above_noise,
    blurred_read_stands,
    corner_blur_stands,
    corners_deny,
    lean_stands,
)
from table_controller.engine.cards import Card


def decide_twin(
    observed: F32, match: Match, bank: FaceBank, params: RecognizerParams
) -> tuple[Match, float] | None:
    """Decide between the best card and its suit twin (``match.second``) on their difference.

    First :func:`~hardware.camera.suits.pair_check` at the faces' own light blur, for the best
    card only (``suit_min_position``, ``suit_min_fit``, ``suit_min_half``); then, if that
    fails and ``suit_blur_check`` is set, :func:`~hardware.camera.blurmatch.blurred_pair_check`
    (both faces blurred as the observation is), for whichever twin the observation leans
    towards (``suit_blur_min_position`` on the whole region, ``suit_blur_min_half`` on each
    half, both measured: one half's region is one corner's print, benchmark run 87; the
    twin must also reach ``min_score``). Either way the lean must be at least
    ``suit_noise_ratio`` times the lean the frame's noise alone gives against those faces
    (:func:`~hardware.camera.blurmatch.lean_noise`,
    :func:`~hardware.camera.twinleans.lean_stands`), and a blurred read must hold at the blur
    the corner indices show (:func:`~hardware.camera.twinleans.index_lean_stands`): at that
    size, blur and light the camera may not resolve the little the twins differ in (a small index
    symbol, pips blurred to blobs), and with the cut moved by half a pixel each way
    (:func:`~hardware.camera.twinleans.offset_lean_stands`, ``suit_blur_offset_px``: where
    the twins differ in dot-sized pips the blurred lean can turn on the cut's offset), nor
    where the corners at the frame's resolution decide the other twin (``corners_deny``).
    Returns the match of the card read (its
    ``card`` and ``second`` swapped when the twin is read) and how far the observation leaned,
    or None: the two stay undecided.

    Left undecided so, a pair of courts (:data:`~hardware.camera.finetwins.FINE_RANKS`) is
    compared on the corner indices at the frame's own resolution where the bank has its
    faces so (``bank.fine``,
    :meth:`~hardware.camera.finetwins.FineFaces.decide`), unless the stored faces' sharp
    comparison leans the other way by ``twin_veto_position``, or both it and the weakest corner
    lie past the card decided, by more than ``twin_fine_max_position`` and
    ``twin_fine_max_lean`` (an observation that far beyond the face read by both measures does
    not show the twins' difference; benchmark run 107).

    :param observed: the observation's luminance, upright
        (:func:`~hardware.camera.suits.observed_luminance`).
    """
    decided = _stored_twin(observed, match, bank, params)
    if decided is not None or bank.fine is None or match.card.rank not in FINE_RANKS:
        return decided
    assert match.second is not None
    sign, lean = bank.fine.decide(observed, match.card, match.second)
    if sign == 0:
        return None
    sharp = sign * pair_check(observed, bank.luminance(match.card),
                              bank.luminance(match.second)).position
    if sharp < params.twin_veto_position or (sharp > params.twin_fine_max_position
                                             and lean > params.twin_fine_max_lean):
        return None
    return signed_read(match, sign, lean, params)


def signed_read(match: Match, sign: int, lean: float,
                params: RecognizerParams) -> tuple[Match, float] | None:
    """``match`` (``sign`` > 0) or its twin read (card and second swapped), with ``lean``.

    The twin must score ``min_score`` (the best score less the margin); else None.
    """
    if sign > 0:
        return match, lean
    if match.second is None or match.score - match.margin < params.min_score:
        return None
    return replace(match, card=match.second, second=match.card,
                   score=match.score - match.margin), lean


def _stored_twin(
    observed: F32, match: Match, bank: FaceBank, params: RecognizerParams
) -> tuple[Match, float] | None:
    """:func:`decide_twin` on the stored faces (the sharp, then the blurred comparison)."""
    assert match.second is not None
    p = params
    best, twin = bank.luminance(match.card), bank.luminance(match.second)
    check = pair_check(observed, best, twin)
    if sharp_twin_read(observed, best, twin, check, p, p.suit_min_fit):
        if sharp_read_refused(observed, match.card, match.second, bank, p):
            return None
        return match, check.position
    if not p.suit_blur_check:
        return None
    blurred = blurred_pair_check(observed, best, twin)
    if blurred.fit <= 0.0 and p.suit_faint_noise_ratio > 0.0:
        return _faint_twin(observed, match, best, twin, bank, p)
    if blurred.fit < p.suit_min_fit or blurred_unmatched(blurred, p) or blurred.halves < 2:
        return None
    if blurred.position >= p.suit_blur_min_position and blurred.worst_half >= p.suit_blur_min_half:
        if not blurred_read_stands(observed, best, twin, blurred.position, 1.0, p) or (
                _corners_refuse(observed, match, best, twin, 1, bank, p)):
            return None
        return match, blurred.position
    if (-blurred.position >= p.suit_blur_min_position
            and -blurred.best_half >= p.suit_blur_min_half
            and match.score - match.margin >= p.min_score):
        if not blurred_read_stands(observed, best, twin, blurred.position, -1.0, p) or (
                _corners_refuse(observed, match, best, twin, -1, bank, p)):
            return None
        return signed_read(match, -1, -blurred.position, p)
    return None


def sharp_read_refused(observed: F32, card: Card, twin: Card, bank: FaceBank,
                       params: RecognizerParams) -> bool:
    """Whether a twin read the sharp comparison makes (:func:`sharp_twin_read`) is refused.

    Refused where nothing measures a pip card's sharp lean and its corners do not confirm it
    (:func:`sharp_unconfirmed`), where the faces blurred as the observation is name the twin
    (:func:`~hardware.camera.twinconflict.blurred_names_twin`), and, with
    ``twin_read_verified``, where a pip card's read fails the check a whole-face read of it
    passes against its twin (:func:`twin_refuted`; the whole-face read's check,
    :meth:`~hardware.camera.rivals.RivalChecks._verify`, is not made on a twin decision's
    read): where the frame's noise against the sharp faces cannot be measured, the faces
    blurred as the observation is must lean to the card; with ``twin_blur_agreement``, where
    those blurred faces are matched on the frame they must lean to the card by
    ``twin_blur_veto_position`` (:func:`~hardware.camera.twinconflict.blurred_withholds`).
    """
    p = params
    best, other = bank.luminance(card), bank.luminance(twin)
    return (sharp_unconfirmed(observed, card, twin, bank, p)
            or (p.suit_blur_check and blurred_names_twin(observed, card, best, other, p))
            or (p.suit_blur_check and p.twin_blur_contradiction
                and blurred_contradicts(observed, card, best, other, p))
            or (p.suit_blur_check and p.twin_blur_agreement
                and blurred_withholds(observed, card, best, other, p))
            or (p.twin_read_verified and card.rank not in FINE_RANKS
                and twin_refuted(observed, card, twin, bank, p)))


def _corners_refuse(observed: F32, match: Match, best: F32, twin: F32, sign: int,
                    bank: FaceBank, params: RecognizerParams) -> bool:
    """Whether the corners refuse the twin ``sign`` names (+1 ``match.card``, -1 the second).

    They decide the other twin at the frame's resolution
    (:func:`~hardware.camera.twinleans.corners_deny`), or the faces blurred as the corner boxes
    show lean the other way (:func:`~hardware.camera.twinleans.corner_blur_stands`).
    """
    assert match.second is not None
    card, other = (match.card, match.second) if sign > 0 else (match.second, match.card)
    return corners_deny(observed, card, other, bank.fine, params) or not corner_blur_stands(
        observed, best, twin, float(sign), match.card, match.second, bank.fine, params)


def _faint_twin(observed: F32, match: Match, best: F32, twin: F32, bank: FaceBank,
                params: RecognizerParams) -> tuple[Match, float] | None:
    """Read a twin on the faces' faint blurred difference (:func:`faint_twin_sign`).

    Not where the corners at the frame's resolution decide the other twin
    (:func:`~hardware.camera.twinleans.corners_deny`).
    """
    assert match.second is not None
    sign, lean = faint_twin_sign(observed, best, twin, params)
    if sign == 0:
        return None
    if _corners_refuse(observed, match, best, twin, sign, bank, params):
        return None
    return signed_read(match, sign, lean, params)


def sharp_twin_read(observed: F32, best: F32, twin: F32, check: SuitCheck,
                    params: RecognizerParams, min_fit: float) -> bool:
    """Whether the comparison at the faces' own blur (``check``) reads ``best`` over ``twin``.

    ``suit_min_position`` on the whole region, ``suit_min_half`` on each half, a fit of at
    least ``min_fit``, and a position above the frame's noise against the sharp faces
    (:func:`~hardware.camera.twinleans.above_noise`): on a blurred frame the sharp faces fit
    nowhere well, and a lean of 0.7 towards a club is no more than that misfit gives.
    """
    p = params
    return (check.position >= p.suit_min_position and check.fit >= min_fit
            and check.worst_half >= p.suit_min_half
            and above_noise(check.position, lean_noise(observed, best, twin, joint=False), p))


def sharp_unresolved(observed: F32, best: F32, twin: F32, params: RecognizerParams) -> bool:
    """Whether nothing on this frame shows that the sharp twin comparison is more than misfit.

    :func:`sharp_twin_read` asks the lean to stand above the frame's noise against the sharp
    faces, but takes it as it is where that noise cannot be measured
    (:func:`~hardware.camera.blurmatch.lean_noise` None: too little print where the twins
    agree); the blurred comparison is the other measure, and where the two faces blurred as
    the observation is no longer differ enough to be compared (:func:`blurred_unmatched`),
    the frame's blur has smoothed away what the twins differ in. With neither, the sharp lean
    is blur misfit as much as the card: a 6 of spades read as the club at 0.73 (synth-9152
    bridge, jumbo indices, bright hard, blur sigma 3 px and 12 px of motion; benchmark runs
    64 and 68). Asked of a pip card's read (:func:`sharp_unconfirmed`).

    Nor does a measured noise make the sharp lean evidence where the two faces blurred as the
    observation is no longer differ at all (no region left to compare, fit 0): the frame has
    blurred away what the twins differ in, and the sharp faces' misfit there can stand far
    above the noise it is measured against. A 7 of clubs of a two-colour design whose club
    and spade differ in little ink was read as the spade at 2.6 (noise 0.99; bridge, hard,
    blur about 3 px with motion; benchmark run 77).
    """
    blurred = blurred_pair_check(observed, best, twin)
    if blurred.fit <= 0.0:
        return True
    if lean_noise(observed, best, twin, joint=False) is not None:
        return False
    return blurred_unmatched(blurred, params)


def sharp_unconfirmed(observed: F32, card: Card, twin: Card, bank: FaceBank,
                      params: RecognizerParams) -> bool:
    """Whether a pip card's sharp twin read of ``card`` over ``twin`` is refused.

    Refused where nothing measures the sharp lean (:func:`sharp_unresolved`) unless the
    corner boxes at the frame's own resolution confirm ``card``
    (:meth:`~hardware.camera.finetwins.FineFaces.confirms`: a corner fitting 0.8 and leaning
    towards ``card`` by 0.3 and three times its noise; no fine faces or no view noted: not
    confirmed). On pip cards the fine comparison neither reads nor refutes a twin (its pip
    corners can lean the wrong way, :data:`~hardware.camera.finetwins.FINE_RANKS`); here it
    may only keep a read the sharp rule made: a medium 9 of spades whose faces blurred as the
    frame no longer differed was kept so, its three corners at 0.58-0.86 over noises of 0.13-0.14
    (synth-3 bridge, benchmark run 68), while the 6 of spades read as the club leaned
    towards the spade there, within its noise. A court's read is the fine comparison's
    already (:meth:`~hardware.camera.rivals.RivalChecks._fine_vetoed`): never refused here.

    Nor may the corners keep it where the observation fits the sharp faces over their
    difference region under ``twin_corner_keep_min_fit``: the frame is blurred far past them,
    and the corners at its resolution can lean with the sharp faces' misfit. A 5 of spades of a
    two-colour design whose club and spade differ in little ink was read as the club at 1.09
    (fit 0.86), the blurred faces no longer differing and all four corners leaning to the club
    at two to four times their noise (bridge, hard plain; benchmark runs 134 and 139).
    """
    if card.rank in FINE_RANKS:
        return False
    best, other = bank.luminance(card), bank.luminance(twin)
    if not sharp_unresolved(observed, best, other, params):
        return False
    if pair_check(observed, best, other).fit < params.twin_corner_keep_min_fit:
        return True
    return not corners_confirm(observed, card, twin, bank)


def corners_confirm(observed: F32, card: Card, twin: Card, bank: FaceBank) -> bool:
    """Whether the corners at the frame's resolution confirm ``card`` (no fine faces: no)."""
    return bank.fine is not None and bank.fine.confirms(observed, card, twin) is True


def twin_refuted(observed: F32, card: Card, twin: Card, bank: FaceBank,
                 params: RecognizerParams) -> bool:
    """Whether the observation fails to show ``card`` rather than its suit twin ``twin``.

    Refuted when, where the two faces differ, it leans towards the twin at the faces' own blur
    (``twin_veto_position`` on the whole region and ``twin_veto_half`` on one half), or, with
    ``suit_blur_check``, not clearly towards ``card`` against the two faces blurred as the
    observation is (``twin_blur_veto_position``, ``twin_blur_veto_half``). The blurred
    comparison is skipped when the comparison at the faces' own blur already reads ``card``
    by the rule :func:`decide_twin` reads a twin with (:func:`sharp_twin_read`) and the
    frame's noise against the two faces could be measured (refuted then only where the faces
    blurred as the observation is name the twin, :func:`blurred_names_twin`), and replaced
    by that comparison (at the blurred bounds, fit at least ``suit_min_fit``, its lean above
    the frame's noise where that is measured: :func:`~hardware.camera.twinleans.above_noise`)
    when no blur could be matched (:func:`blurred_unmatched`). The blurred lean must also
    stand above the frame's noise, as the twin decision asks
    (:func:`~hardware.camera.twinleans.lean_stands`), unless the corners at the frame's own
    resolution confirm ``card`` (:func:`corners_confirm`).
    """
    p = params
    best, other = bank.luminance(card), bank.luminance(twin)
    check = pair_check(observed, best, other)
    if check.position < p.twin_veto_position and check.worst_half < p.twin_veto_half:
        return True
    if (sharp_twin_read(observed, best, other, check, p, p.suit_min_fit)
            and lean_noise(observed, best, other, joint=False) is not None):
        # Read by the sharp rule above a measured noise: unless the faces blurred as the
        # observation is name the twin (:func:`blurred_names_twin`).
        return p.suit_blur_check and blurred_names_twin(observed, card, best, other, p)
    if not p.suit_blur_check:
        return False
    blurred = blurred_pair_check(observed, best, other)
    if blurred_unmatched(blurred, p):
        # No blur could be matched on these faces: the comparison at their own blur decides,
        # by the blurred rule's bounds, where it fits the twins and leans above the frame's
        # noise against them.
        if check.fit < p.suit_min_fit or not above_noise(
                check.position, lean_noise(observed, best, other, joint=False), p):
            return True
        blurred = check
    return (blurred.position < p.twin_blur_veto_position
            or blurred.worst_half < p.twin_blur_veto_half
            or (not lean_stands(observed, best, other, blurred.position, p)
                and not corners_confirm(observed, card, twin, bank)))

