"""The fine rank read's guards: a card the fine faces decide wrongly, the card shown not compared.

The faces are the 6, 5 and 8 of diamonds of a generated design printing one central symbol on
every number card (``synth-9228-bridge``), and the observation an 8 of diamonds on a hard plain
frame (scene seed 7204710, frame 2, slot 0; benchmark run 103): the card cut upright at the
stored size where the recogniser located it, and the frame's pixels around it with the card's
corners there, all kept in ``tests/vision/data``. Compared on the rank veto's bounds, the fine
faces decide the 6 against the 5 (both corners past their noise twice over), though neither is
the card shown: the corners fit the two faces' blend only 0.83 and 0.74 (R^2) and lean past
the 6's own face (1.83 and 2.04, the 6 being 1). Where the 8 is not among the close cards, the
fine rank read (:func:`~hardware.camera.fallback.fine_ranks_read`) would read the 6 but for its
guards: the 8, a card of the suit alike but in its corners, was not compared
(``fine_rank_read_all_alike``), and the corners fit under ``fine_rank_read_min_fit`` (0.95) and
lean past ``fine_rank_read_max_lean`` (1.5); each refuses it alone.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from hardware.camera.facebank import Match
from hardware.camera.fallback import fine_ranks_read
from hardware.camera.finedecide import RANK_MIN_MEAN, RANK_NOISE_RATIO
from hardware.camera.readings import F32, RecognizerParams
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import BareChecks, kept_checks, kept_look

DESIGN = "synth-9228-bridge"
#: The card's corners in the kept frame cut (px; TL, TR, BR, BL of the card upright).
QUAD = ((175.394, 262.311), (12.824, 298.787), (14.144, 43.743), (160.878, 12.909))
SIX, FIVE, EIGHT = Card.parse("6d"), Card.parse("5d"), Card.parse("8d")


def _seen(kennard: Faces, params: RecognizerParams,
          cards: tuple[Card, ...] = (SIX, FIVE, EIGHT)) -> tuple[BareChecks, F32]:
    """The checks on kennard's bank with ``cards``' faces replaced, and the observation."""
    checks = kept_checks(kennard, DESIGN, cards, params)
    return checks, kept_look(checks.bank.fine, DESIGN, EIGHT, QUAD)


def _match(*close: Card) -> Match:
    return Match(card=close[0], score=0.985, margin=0.0, discriminant=0.2, separation=0.011,
                 second=close[1], flipped=False, close=close,
                 close_scores=tuple(0.985 for _ in close))


def test_a_wrong_six_decided_by_ill_fitting_corners_is_refused(kennard: Faces) -> None:
    checks, observed = _seen(kennard, RecognizerParams())
    fine = checks.bank.fine
    assert fine is not None
    # The fine faces decide the 6 against the 5, though the card is the 8 ...
    assert fine.decide(observed, SIX, FIVE, RANK_NOISE_RATIO, RANK_MIN_MEAN)[0] == 1
    seen = fine.lean(observed, SIX, FIVE)
    assert seen is not None and len(seen.corners) == 2
    # ... by corners that fit neither face and lean past the 6's own.
    assert max(c.fit for c in seen.corners) < 0.85
    assert min(c.lean for c in seen.corners) > 1.5
    assert fine_ranks_read(observed, _match(SIX, FIVE), checks.bank, checks.params) is None
    # With the 8 among the close cards the 6 is not decided against it either.
    assert fine_ranks_read(observed, _match(SIX, FIVE, EIGHT), checks.bank,
                           checks.params) is None


def test_each_guard_refuses_it_alone(kennard: Faces) -> None:
    loose = RecognizerParams(fine_rank_read_min_fit=0.0, fine_rank_read_max_lean=np.inf)
    # Without the 8's face in the bank the 6 and the 5 are all the suit's alike cards.
    checks, observed = _seen(kennard, loose, (SIX, FIVE))
    assert checks.bank.index_only.alike_ranks(SIX) == {FIVE}
    read = fine_ranks_read(observed, _match(SIX, FIVE), checks.bank, checks.params)
    assert read is not None and read.card == SIX  # the wrong read the guards keep out
    for params in (RecognizerParams(fine_rank_read_max_lean=np.inf),
                   RecognizerParams(fine_rank_read_min_fit=0.0)):
        checks, observed = _seen(kennard, params, (SIX, FIVE))
        assert fine_ranks_read(observed, _match(SIX, FIVE), checks.bank, checks.params) is None
    # With it, the 8 is alike but was not compared: refused whatever the bounds.
    checks, observed = _seen(kennard, loose)
    assert checks.bank.index_only.alike_ranks(SIX) == {FIVE, EIGHT}
    assert fine_ranks_read(observed, _match(SIX, FIVE), checks.bank, checks.params) is None
    checks, observed = _seen(kennard, replace(loose, fine_rank_read_all_alike=False))
    read = fine_ranks_read(observed, _match(SIX, FIVE), checks.bank, checks.params)
    assert read is not None and read.card == SIX
