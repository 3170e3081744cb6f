"""Second looks at a card the whole face left uncertain, and a veto on two of them.

Rules this module keeps:

1. :func:`glare_lifted`: a glare's lifted ink may be left out of the whole-face score gate only
   (:func:`~hardware.camera.glare.glare_score`); every other rule still takes the whole face.
2. :func:`twin_not_shown`: a washed-out or difference read (:mod:`hardware.camera.facebank`) is
   kept only if the card's suit twin does not show instead, on the thresholds the whole-face
   twin rule uses.
3. Pure: the registered faces, the parameters and the observation in, a reading (or None) out.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import numpy.typing as npt

from hardware.camera.facebank import FaceBank, Match, decide, suit_twins
from hardware.camera.glare import glare_score
from hardware.camera.readings import RecognizerParams, SlotReading
from hardware.camera.suits import pair_check
from table_controller.engine.cards import Card

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
    twin = next(c for c in (Card(card.rank, s) for s in range(4)) if suit_twins(card, c))
    check = pair_check(observed, bank.luminance(card), bank.luminance(twin))
    if check.position < p.twin_veto_position and check.worst_half < p.twin_veto_half:
        return None
    return reading
