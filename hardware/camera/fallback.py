"""Second looks at a card the whole face left uncertain, and a veto on two of them.

Rules this module keeps:

1. :func:`glare_lifted`: a glare's lifted ink may be left out of the whole-face score gate only
   (:func:`~hardware.camera.glare.glare_score`); every other rule still takes the whole face.
2. :func:`twin_not_shown`: a washed-out or difference read (:mod:`hardware.camera.facebank`) is
   kept only if the card's suit twin does not show instead, on the thresholds the whole-face
   twin rule uses.
3. :func:`indices_read`: a card the whole face and its difference region leave uncertain is
   read from its two corner indices alone, each aligned on its own, when they name it
   clearly against every close card of another rank; failing that, on a design where the close
   cards differ from it in their corners alone, from the fine faces (:func:`fine_ranks_read`).
4. Pure: the registered faces, the parameters and the observation in, a reading (or None) out.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import numpy.typing as npt

from hardware.camera.facebank import FaceBank, Match, decide, suit_twins, twin_of, whole_contrast
from hardware.camera.finedecide import RANK_MIN_MEAN, RANK_NOISE_RATIO, FineLean, corner_clear
from hardware.camera.glare import glare_score
from hardware.camera.readings import Image, RecognizerParams, SlotReading
from hardware.camera.suits import index_leans, pair_check

F32 = npt.NDArray[np.float32]


def glare_lifted(bank: FaceBank, p: RecognizerParams, vec: F32, match: Match,
                 reading: SlotReading) -> SlotReading:
    """Decide again with the best face's score over the pixels a glare did not lift.

    :func:`~hardware.camera.glare.glare_score` stands in for the whole-face score only (a
    score under ``min_score`` gets no further otherwise); the separation
    (``min_separation``: the residual's rule stays the whole face's) and the discriminant,
    measured on the whole face, must pass as they are, and the read goes through the same
    checks after (close rivals, corner indices). The washed-out and difference reads, the
    twin rules, and the near-hand rule (the reading keeps the whole face's score) still
    take the whole face's score: under a hand's fingers over a corner index, a 2 of spades
    was read as the 7 by the washed-out rule with its score raised (tuning seed 5503911).
    """
    # The face's row at the template blur the match chose (the one its best card scored
    # highest at), the way the card lay (upright or turned).
    k = 2 * match.card.index + int(match.flipped)
    row = max((m[k] for m in bank.matrices), key=lambda r: float(r @ vec))
    lifted, _ = glare_score(vec, row)
    if lifted < p.min_score or match.separation < p.min_separation:
        return reading
    decided = decide(replace(match, score=lifted), p)
    if decided.status != "card":
        return reading
    conf = float(np.clip(min(match.score, match.discriminant), 0.0, 1.0))
    return replace(decided, score=match.score, confidence=conf)


def twin_not_shown(bank: FaceBank, p: RecognizerParams, observed: F32,
                   reading: SlotReading | None) -> SlotReading | None:
    """Keep a washed-out or difference read only if its suit twin does not show instead.

    Those reads weigh the card against the whole face's close cards only; a glare over a
    heart's lobes makes the whole face a diamond's, the heart then scores below every
    diamond of the suit's picture and is never compared (GNOME tango-nuevo: a 6 of hearts
    read as the 6 of diamonds, twice, tuning seeds 5503800 and 5503811). Refused, as a
    whole-face read with its twin close is in
    :meth:`~hardware.camera.recognizer.BoardRecognizer._verify`, when the observation leans
    towards the twin where the two differ, over the whole region and on one half of the
    card (:func:`~hardware.camera.suits.pair_check`: ``twin_veto_position``,
    ``twin_veto_half``).
    """
    if reading is None or reading.card is None:
        return reading
    card = reading.card
    twin = twin_of(card)
    check = pair_check(observed, bank.luminance(card), bank.luminance(twin))
    if check.position < p.twin_veto_position and check.worst_half < p.twin_veto_half:
        return None
    return reading


def indices_read(observed: F32, match: Match, bank: FaceBank, p: RecognizerParams,
                 ignore: Image | None = None) -> SlotReading | None:
    """Read the card its two corner indices name against every close card, or None.

    The difference region (:func:`~hardware.camera.difference.read_by_difference`) is
    aligned with one shift over all four corners; a card located a pixel short in its size or
    a fraction of a degree off moves its corners by different shifts, and between two faces
    told apart by a short stroke of the index (a 6 and an 8) the region then leaned towards
    the wrong rank while each corner, aligned alone, leaned 0.8-2.0 towards the printed one
    (generated design 9132 bridge, overlap medium: four 8s left uncertain against the 6,
    run 49's seeds). Each corner index box aligned on its own
    (:func:`~hardware.camera.suits.index_leans`) is the evidence here, on the bounds of
    :meth:`~hardware.camera.recognizer.BoardRecognizer._indices_clear`: of the best card and
    the second best, the one whose both index boxes keep their contrast (at least
    ``difference_min_contrast`` times the whole card's: a glare washes ink out, never prints
    it) and lean towards it by ``index_clear_min`` against every close card of another rank,
    scoring at least ``min_score``; a box a located neighbour may lie over (``ignore``: what
    shows there may be the neighbour's print) is no evidence, and the other must then be
    clear alone. Against the same rank in a suit of the other colour the corners differ in a
    small suit sign only: the whole difference region must lean towards it by
    ``difference_min_position`` (fit ``difference_min_fit``). With its suit twin close the
    card is not read (the twin rules decide suits, on their own bounds). Reported as the difference
    read is: separation and discriminant 0 (never read beside a hand), half the confidence.
    """
    if len(match.close) > p.difference_max_close:
        return None
    scores = dict(zip(match.close, match.close_scores, strict=True))
    for x in (match.card, match.second):
        if x is None or scores.get(x, -1.0) < p.min_score:
            continue
        floor = p.difference_min_contrast * whole_contrast(observed, bank.whole_face(x))
        lean = np.inf
        for y in match.close:
            if y == x:
                continue
            if suit_twins(x, y):
                # A suit twin close: the twin rules' to decide (their bounds), not this read's.
                lean = -np.inf
                break
            fb, fr = bank.luminance(x), bank.luminance(y)
            if y.rank == x.rank:
                # The same rank in a suit of the other colour: the corner differs in its small
                # suit sign only; the whole difference region (the pips) decides, as the
                # difference read's comparison with any rival not a twin.
                check = pair_check(observed, fb, fr)
                if check.fit < p.difference_min_fit or check.position < p.difference_min_position:
                    lean = -np.inf
                    break
                lean = min(lean, check.position)
                continue
            leans = index_leans(observed, fb, fr)
            if len(leans) == 2 and ignore is not None:
                leans = index_leans(observed, fb, fr, ignore)
            elif len(leans) < 2:
                leans = []  # both corners must tell the two apart
            if len(leans) == 0 or not all(pos >= p.index_clear_min and contrast >= floor
                                          for pos, contrast in leans):
                lean = -np.inf
                break
            lean = min(lean, *(pos for pos, _ in leans))
        if np.isfinite(lean):
            conf = 0.5 * float(np.clip(min(scores[x], lean), 0.0, 1.0))
            return SlotReading("card", x, conf, None, scores[x], 0.0, 0.0, 0.0)
    return fine_ranks_read(observed, match, bank, p)


def fine_ranks_read(observed: F32, match: Match, bank: FaceBank,
                    p: RecognizerParams) -> SlotReading | None:
    """Read the card the fine faces name against every close card of another rank, or None.

    On a one-central-symbol design every pip card of a suit scores within a few thousandths of
    the read, and the corner index boxes of two ranks told apart by a short stroke (an 8 and a
    6) may differ too little to be compared at all (:func:`~hardware.camera.suits.index_leans`
    leaves them out), so :func:`indices_read` refuses a card whose corners, compared at the
    frame's own resolution, name it clearly (benchmark run 100: hard 8s and 6s of synth-9251
    and 9256). Of the close cards scoring at least ``min_score`` (the best and the second
    best only unless ``fine_rank_read_every_close``), the one the fine faces decide
    (:meth:`~hardware.camera.finetwins.FineFaces.decide`, on the rank veto's bounds
    :data:`~hardware.camera.finedecide.RANK_NOISE_RATIO` and ``RANK_MIN_MEAN``) against
    every other close card is read: each must be of another rank in the same suit whose face
    differs from it in the corners alone (``bank.index_only.alike_but_corners``: or nowhere
    at the stored size) or, with ``fine_rank_read_elsewhere`` and where the card has such
    alike ranks, elsewhere too (the ace, whose symbol is drawn larger); any other close card
    (a twin, the same rank, a card of another suit) leaves the read to the rules above; so
    does a corner fitting under ``fine_rank_read_min_fit`` or leaning past the card by more than
    ``fine_rank_read_max_lean`` (the observation shows neither face). The comparison of two
    cards is one comparison, its leans negated the other way round, so at most one close card
    is decided against all the others: which one is tried first does not matter. Where a
    located neighbour may lie over every corner box but one, that one decides alone
    (:func:`_alone_decides`). Reported as :func:`indices_read`'s read is.
    """
    fine = bank.fine
    if (fine is None or not p.fine_rank_read or len(match.close) < 2
            or len(match.close) > p.difference_max_close):
        return None
    scores = dict(zip(match.close, match.close_scores, strict=True))
    tried = match.close if p.fine_rank_read_every_close else (match.card, match.second)
    for x in tried:
        if x is None or scores.get(x, -1.0) < p.min_score:
            continue
        others = [y for y in match.close if y != x]
        # A card differing elsewhere too is compared only where the read card has ranks
        # alike but in their corners (one central symbol): on a design with pips the read
        # does not run at all.
        elsewhere = p.fine_rank_read_elsewhere and bool(bank.index_only.alike_ranks(x))
        if not all(y.suit == x.suit and y.rank != x.rank
                   and (elsewhere or bank.index_only.alike_but_corners(x, y))
                   for y in others):
            continue
        if p.fine_rank_read_all_alike and not bank.index_only.alike_ranks(x) <= set(others):
            continue  # a card it may show was not compared
        lean = np.inf
        for y in others:  # stopped at the first card not decided (a fine comparison: 5-10 ms)
            verdict, weakest = fine.decide(observed, x, y, RANK_NOISE_RATIO, RANK_MIN_MEAN)
            seen = fine.lean(observed, x, y)
            if verdict == 0 and _alone_decides(seen, p):
                assert seen is not None
                verdict, weakest = 1, seen.corners[0].lean
            if verdict != 1 or seen is None or not all(
                    c.fit >= p.fine_rank_read_min_fit and c.lean <= p.fine_rank_read_max_lean
                    for c in seen.corners):
                break
            lean = min(lean, weakest)
        else:
            conf = 0.5 * float(np.clip(min(scores[x], lean), 0.0, 1.0))
            return SlotReading("card", x, conf, None, scores[x], 0.0, 0.0, 0.0)
    return None


def _alone_decides(seen: FineLean | None, p: RecognizerParams) -> bool:
    """Whether one corner, every other where the two differ possibly covered, decides the card.

    :func:`~hardware.camera.finedecide.decide_fine` asks two corners; on a design printing its
    index in two corners, a neighbour lying near one (``FineView.hidden``: the box is then
    not compared at all) leaves one, as :func:`indices_read` lets the other index be clear
    alone. That corner must fit, lean towards the card by ``RANK_MIN_MEAN`` and by
    ``fine_rank_read_alone_ratio`` times its own noise (the twins' bound, above the two ranks'
    :data:`~hardware.camera.finedecide.RANK_NOISE_RATIO`).
    """
    if seen is None or len(seen.corners) != 1 or seen.differing < 2:
        return False
    c = seen.corners[0]
    return corner_clear(c, 1, p.fine_rank_read_alone_ratio) and c.lean >= RANK_MIN_MEAN
