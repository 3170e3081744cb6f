"""A shared-picture court's twin read kept where both index corners lean to it.

The faces are the jacks of clubs and of spades of a generated tuning design whose twelve
courts share one monogram picture (``synth-9276-poker``: jumbo indices in two corners, two
colours), and the observation the jack of clubs on a hard plain frame (benchmark run 116,
scene seed 8401010, frame 6, slot 1): the card cut upright at the stored size where the
recogniser located it, and the frame's pixels around it with the card's corners there, all
kept in ``tests/vision/data/synth-9276-poker``. The whole face read the club with the spade
second (separation 0.040, under ``pair_check_below``); at the frame's own resolution the two
index corners lean to the club by 0.97 and 1.35, 2.2 and 2.6 times their placebo noise, so
neither confirms it at 3 times (``fine_confirms``) and the jack was left ``uncertain``. Both
index corners at twice their noise, none towards the spade, now keep it
(``RecognizerParams.twin_index_ratio``); the spade read against the club stays refused.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hardware.camera.facebank import Match
from hardware.camera.finedecide import (
    NOISE_RATIO,
    CornerLean,
    FineLean,
    fine_confirms,
    fine_confirms_indices,
)
from hardware.camera.finetwins import FineView
from hardware.camera.readings import F32, RecognizerParams, SlotReading
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import BareChecks, kept_checks, kept_image, kept_observation

DESIGN = "synth-9276-poker"
#: The card's corners in the kept frame cut (px; TL, TR, BR, BL of the card upright).
QUAD = ((60.282, 12.199), (196.458, 23.164), (165.985, 200.856), (12.983, 187.873))
JC, JS = Card.parse("Jc"), Card.parse("Js")


def _seen(kennard: Faces, params: RecognizerParams) -> tuple[BareChecks, F32]:
    """The checks on kennard's bank with the jacks' faces replaced, and the observation."""
    checks = kept_checks(kennard, DESIGN, (JC, JS), params)
    observed = kept_observation(DESIGN, "observed-Jc")
    assert checks.bank.fine is not None
    checks.bank.fine.look(observed, FineView(kept_image(DESIGN, "frame-Jc"),
                                             np.array(QUAD, np.float64)))
    return checks, observed


def _match(best: Card, second: Card) -> Match:
    return Match(card=best, score=0.980, margin=0.003, discriminant=1.0, separation=0.040,
                 second=second)


def test_both_index_corners_lean_to_the_club_under_three_times_their_noise(
        kennard: Faces) -> None:
    checks, observed = _seen(kennard, RecognizerParams())
    assert checks.bank.index_only.pair(JC, JS)
    assert checks.bank.fine is not None
    lean = checks.bank.fine.lean(observed, JC, JS)
    assert lean is not None and sorted(c.corner for c in lean.corners) == [0, 3]
    ratios = sorted(c.lean / c.noise for c in lean.corners)
    assert ratios[0] >= 2.0 and ratios[1] < NOISE_RATIO
    assert not fine_confirms(lean)
    assert fine_confirms_indices(lean, RecognizerParams().twin_index_ratio)


def test_the_jack_of_clubs_is_kept_and_the_spade_refused(kennard: Faces) -> None:
    checks, observed = _seen(kennard, RecognizerParams())
    seen: Callable[[], F32] = lambda: observed  # noqa: E731
    right = SlotReading("card", JC, 0.98, None, 0.98)
    kept = checks._fine_vetoed(seen, _match(JC, JS), right, False)
    assert kept.status == "card" and kept.card == JC
    wrong = SlotReading("card", JS, 0.98, None, 0.98)
    refused = checks._fine_vetoed(seen, _match(JS, JC), wrong, False)
    assert refused.status == "uncertain" and refused.card is None


def test_the_rule_can_be_turned_off(kennard: Faces) -> None:
    checks, observed = _seen(kennard, RecognizerParams(twin_index_ratio=0.0))
    right = SlotReading("card", JC, 0.98, None, 0.98)
    refused = checks._fine_vetoed(lambda: observed, _match(JC, JS), right, False)
    assert refused.status == "uncertain"


def test_both_index_corners_are_asked_and_none_may_lean_to_the_twin() -> None:
    both = (CornerLean(0, 0.9, 0.4, 0.95), CornerLean(3, 0.9, 0.4, 0.95))
    assert fine_confirms_indices(FineLean(both, (1.0, 0, 0), 2), 2.0)
    # One index corner hidden: not kept.
    assert not fine_confirms_indices(FineLean(both[:1], (1.0, 0, 0), 2), 2.0)
    # Under twice its noise: not kept.
    weak = (both[0], CornerLean(3, 0.7, 0.4, 0.95))
    assert not fine_confirms_indices(FineLean(weak, (1.0, 0, 0), 2), 2.0)
    # A pip corner leaning clearly to the twin: not kept.
    pip = (*both, CornerLean(1, -0.9, 0.4, 0.95))
    assert not fine_confirms_indices(FineLean(pip, (1.0, 0, 0), 4), 2.0)
