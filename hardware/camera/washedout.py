"""A card the whole face left uncertain read from the ink each close rival lacks.

A glare washes pips and strokes out; it never prints one (:func:`read_washed_out`). Kept
apart from :mod:`hardware.camera.facebank`, whose rules it reads with.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from hardware.camera.difference import fine_shows, rank_needs_fine
from hardware.camera.facebank import FaceBank, Match, twin_of
from hardware.camera.index import IndexRead
from hardware.camera.readings import F32, Image, RecognizerParams, SlotReading
from hardware.camera.rivalrules import close_rivals, index_only_refutes
from hardware.camera.suits import ink_check
from hardware.camera.twindecide import decide_twin, twin_refuted
from table_controller.engine.cards import Card


def read_washed_out(observed: F32, match: Match, bank: FaceBank,
                    params: RecognizerParams, ignore: Image | None = None) -> SlotReading | None:
    """Read a card the whole face left uncertain, from the ink each close rival lacks.

    A glare washes pips and strokes out; it never prints one. Of the best card and the best
    card of another rank or colour (``match.card``, ``match.other``), a candidate X is read
    when, against every other card among the whole face's :data:`RANKED` best (its suit twin
    aside) within ``washed_score_gap`` of X's score, :func:`~hardware.camera.suits.ink_check`
    finds none of the rival's own ink (``rival >= washed_min_rival``) and either X's own ink
    present in some blob (``own >= washed_min_own``) or X's corner indices leaning towards X
    against that rival (``washed_min_index``); X's corner indices name no other rank
    (``index_veto_close``), X scores at least ``min_score``, and a suit twin among those cards
    is decided for X by :func:`decide_twin` and does not refute X (:func:`twin_refuted`, the
    veto a whole-face read with its twin close gets). Against a rival of another rank whose
    face differs from X's only in the corners, X's rank must show there at the frame's blur
    (:func:`~hardware.camera.difference.rank_unshown`). Exactly one candidate must pass; else None.

    :param observed: the observation's luminance, upright
        (:func:`~hardware.camera.suits.observed_luminance`).
    :param ignore: where a neighbouring card may lie over or under this one (stored size,
        upright): X's own ink found only there is no evidence (``ink_check``'s ``ignore``).
    """
    p = params
    scores = dict(zip(match.ranked, match.ranked_scores, strict=True))
    candidates = [c for c in (match.card, match.other) if c is not None and c in scores]
    index = bank.index.read(observed)
    passed: list[tuple[Card, float]] = []
    for x in candidates:
        sx = scores[x]
        if sx < p.min_score:
            continue
        # The cheap test first: the corner indices, read once.
        pos = index.positions(x)
        others = np.delete(pos.reshape(13, 4), x.rank, axis=0).reshape(-1)
        known = others[~np.isnan(others)]
        if known.size and float(known.min()) <= -p.index_veto_close:
            continue
        lean = _washed_lean(observed, x, sx, match, scores, bank, index, p, ignore)
        if lean is None:
            continue
        passed.append((x, min(sx, lean)))
    if len(passed) != 1:
        return None
    card, conf = passed[0]
    return SlotReading("card", card, 0.5 * float(np.clip(conf, 0.0, 1.0)), None, scores[card],
                       0.0, 0.0, 0.0)


def _washed_lean(observed: F32, x: Card, sx: float, match: Match, scores: dict[Card, float],
                 bank: FaceBank, index: IndexRead, params: RecognizerParams,
                 ignore: Image | None = None) -> float | None:
    """How clearly X shows against its close rivals (None: refuted, or not shown clearly).

    A rival of X's suit twin's suit and another rank is tested on its rank alone (the rival's
    rank in X's suit), the suit by X's twin: a club's blurred lobes may look like a spade's
    point, what :func:`decide_twin` is for.
    """
    p = params
    lean = 1.0
    rivals, twin_needed = close_rivals(x, (y for y in match.ranked
                                      if sx - scores[y] <= p.washed_score_gap))
    # The closest rival first: the likeliest to refute X (every rival must pass anyway).
    # The rank shown at the frame's own resolution (rank_unshown's last test, the costly fine
    # comparison) is asked last, of the rivals that need it, once every cheaper test passed:
    # each test is pure, so X is refused by the same rivals in any order. Unless the
    # observation's blur is not settled yet (no index-only pair fitted it): the tests of the
    # rivals after this one, which asking in turn would not make, could then fit it on
    # another pair than the reads after this one would.
    fine_needed: list[Card] = []
    for y in sorted(rivals, key=lambda c: (-scores.get(c, -1.0), c)):
        if index_only_refutes(observed, x, y, bank, p):
            return None
        if rank_needs_fine(observed, x, y, bank, p):
            if not bank.index_only.blur_settled(observed):
                if not fine_shows(observed, x, y, bank):
                    return None
            else:
                fine_needed.append(y)
        ink = ink_check(observed, bank.luminance(x), bank.luminance(y), ignore)
        if ink.rival < p.washed_min_rival:
            return None
        if ink.own >= p.washed_min_own:
            continue
        # No own ink of X's found at full strength (washed out, or X has none the rival
        # lacks: an 8's pips hold a 7's): X's corner indices must lean towards X instead.
        at = index.position(x, y)
        if at is None or at < p.washed_min_index:
            return None
        lean = min(lean, at)
    if twin_needed:
        # The costly test last (it may blur both faces as the observation is).
        twin = twin_of(x)
        st = scores.get(twin, sx - 1.0)
        decided = decide_twin(observed, replace(match, card=x, second=twin, score=sx,
                                                margin=sx - st), bank, p)
        if decided is None or decided[0].card != x:
            return None
        # No more than the whole face's read of X would stand on: the same veto.
        if twin_refuted(observed, x, twin, bank, p):
            return None
    if any(not fine_shows(observed, x, y, bank) for y in fine_needed):
        return None
    return lean

