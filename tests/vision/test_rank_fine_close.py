"""A read refused where the corners refute it against a close rank that is not its second.

The faces are the 5, 8 and 9 of diamonds of a generated design printing one central symbol
on every number card (``synth-9224-bridge``: normal indices in four corners, four colours),
and the observation the 5 of diamonds lying upside down under a gloss streak (hard gloss,
scene seed 5803871, frame 2, slot 2; benchmark run 93): the card cut upright at the stored
size where the recogniser located it, and the frame's pixels around it with the card's
corners there, all kept in ``tests/vision/data``. Every diamond pip card scored within
``difference_score_gap`` of the best; the whole face named the 8 (score 0.827, separation
0.0503 from the 9, just over ``min_separation``), and every check let it through: a confident
wrong read (0.83). The corners at the frame's own resolution decide nothing between the 8 and
the 9 (the veto of run 88 asks only the second); against the 5, the third card, all four lean
to the 5 (0.65-1.04, 1.9-5.3 times their noise), none to the 8: refuted
(``RecognizerParams.fine_rank_close``). The 5 read against the 8 is kept.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from hardware.camera.facebank import Match
from hardware.camera.finedecide import RANK_MIN_MEAN, RANK_NOISE_RATIO
from hardware.camera.finetwins import FineView
from hardware.camera.readings import F32, RecognizerParams, SlotReading
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import BareChecks, kept_checks, kept_image, kept_observation

DESIGN = "synth-9224-bridge"
#: The card's corners in the kept frame cut (px; TL, TR, BR, BL of the card upright: it lay
#: upside down).
QUAD = ((188.332, 291.896), (12.36, 297.804), (17.258, 16.915), (171.16, 12.388))
FIVE, EIGHT, NINE = Card.parse("5d"), Card.parse("8d"), Card.parse("9d")


def _seen(kennard: Faces, params: RecognizerParams) -> tuple[BareChecks, F32]:
    """The checks on kennard's bank with the three faces replaced, and the observation."""
    checks = kept_checks(kennard, DESIGN, (FIVE, EIGHT, NINE), params)
    observed = kept_observation(DESIGN, "observed-5d")
    assert checks.bank.fine is not None
    checks.bank.fine.look(observed, FineView(kept_image(DESIGN, "frame-5d"),
                                             np.array(QUAD, np.float64)))
    return checks, observed


def _match(best: Card, second: Card, third: Card) -> Match:
    return Match(card=best, score=0.827, margin=0.003, discriminant=1.0, separation=0.0503,
                 second=second, flipped=True, close=(best, second, third),
                 close_scores=(0.827, 0.824, 0.822))


def test_the_eight_read_is_refused_by_the_third(kennard: Faces) -> None:
    params = RecognizerParams()
    checks, observed = _seen(kennard, params)
    fine = checks.bank.fine
    assert fine is not None
    assert checks.bank.index_only.pair(EIGHT, NINE) and checks.bank.index_only.pair(EIGHT, FIVE)
    # The second decides nothing: the veto of run 88 alone keeps the read.
    assert fine.decide(observed, EIGHT, NINE, RANK_NOISE_RATIO, RANK_MIN_MEAN)[0] == 0
    wrong = SlotReading("card", EIGHT, 0.827, None, 0.827)
    refused = checks._fine_vetoed(lambda: observed, _match(EIGHT, NINE, FIVE), wrong, False)
    assert refused.status == "uncertain" and refused.card is None
    assert fine.refutes(observed, EIGHT, FIVE, RANK_NOISE_RATIO)
    right = SlotReading("card", FIVE, 0.827, None, 0.827)
    kept = checks._fine_vetoed(lambda: observed, _match(FIVE, EIGHT, NINE), right, False)
    assert kept.status == "card" and kept.card == FIVE


def test_only_the_second_asked_when_turned_off(kennard: Faces) -> None:
    checks, observed = _seen(kennard, RecognizerParams(fine_rank_close=False))
    wrong = SlotReading("card", EIGHT, 0.827, None, 0.827)
    kept = checks._fine_vetoed(lambda: observed, _match(EIGHT, NINE, FIVE), wrong, False)
    assert kept.card == EIGHT
    # Nor is anything asked where the second lies outside pair_check_below.
    checks, observed = _seen(kennard, RecognizerParams())
    far = replace(_match(EIGHT, NINE, FIVE), separation=0.3)
    assert checks._fine_vetoed(lambda: observed, far, wrong, False).card == EIGHT
