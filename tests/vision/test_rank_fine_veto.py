"""A read whose close second the corners alone tell apart is refused where the corners show it.

The faces are the 6 and 8 of diamonds of a generated design printing one large central
symbol on every number card (``synth-9228-bridge``: normal indices in two corners, four
colours; the unseen design of benchmark run 88), and the observation the 6 of diamonds lying
upside down under a gloss streak (medium gloss, scene seed 2783870, frame 1, slot 1): the
card cut upright at the stored size where the recogniser located it, and the frame's pixels
around it with the card's corners there, all kept in ``tests/vision/data``. The whole face
named the 8 with the 6 second (separation 0.146, under ``pair_check_below``), the score
raised over the streak (``glare_lifted``), and every check let it through: a confident wrong
read (0.68). The corners at the frame's own resolution lean towards the 6 by 0.41 and 0.70,
five and seven times their noise: on the bounds of two ranks they decide the 6, and the 8 is
refused (``RecognizerParams.fine_rank_veto``); the 6 read against the 8 is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from hardware.camera.facebank import Match
from hardware.camera.finedecide import RANK_MIN_MEAN, RANK_NOISE_RATIO
from hardware.camera.finetwins import FineView
from hardware.camera.readings import F32, RecognizerParams, SlotReading
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import BareChecks, kept_checks, kept_image, kept_observation

DESIGN = "synth-9228-bridge"
#: The card's corners in the kept frame cut (px; TL, TR, BR, BL of the card upright: it lay
#: upside down).
QUAD = ((199.688, 242.91), (16.621, 247.951), (12.076, 17.628), (191.226, 12.883))
SIX, EIGHT = Card.parse("6d"), Card.parse("8d")


def _seen(kennard: Faces, params: RecognizerParams) -> tuple[BareChecks, F32]:
    """The checks on kennard's bank with the pair's faces replaced, and the observation."""
    checks = kept_checks(kennard, DESIGN, (SIX, EIGHT), params)
    observed = kept_observation(DESIGN, "observed-6d")
    assert checks.bank.fine is not None
    checks.bank.fine.look(observed, FineView(kept_image(DESIGN, "frame-6d"),
                                             np.array(QUAD, np.float64)))
    return checks, observed


def _match(best: Card, second: Card) -> Match:
    return Match(card=best, score=0.678, margin=0.004, discriminant=1.0, separation=0.146,
                 second=second, flipped=True)


def test_the_eight_read_is_refused_and_the_six_kept(kennard: Faces) -> None:
    params = RecognizerParams()
    checks, observed = _seen(kennard, params)
    assert checks.bank.index_only.pair(EIGHT, SIX)
    assert checks.bank.fine is not None
    assert checks.bank.fine.decide(observed, EIGHT, SIX, RANK_NOISE_RATIO, RANK_MIN_MEAN)[0] == -1
    seen: Callable[[], F32] = lambda: observed  # noqa: E731
    wrong = SlotReading("card", EIGHT, 0.678, None, 0.678)
    refused = checks._fine_vetoed(seen, _match(EIGHT, SIX), wrong, False)
    assert refused.status == "uncertain" and refused.card is None
    right = SlotReading("card", SIX, 0.678, None, 0.678)
    kept = checks._fine_vetoed(seen, _match(SIX, EIGHT), right, False)
    assert kept.status == "card" and kept.card == SIX
    # A second outside pair_check_below is not asked.
    far = checks._fine_vetoed(seen, replace(_match(EIGHT, SIX), separation=0.3), wrong, False)
    assert far.card == EIGHT


def test_the_veto_can_be_turned_off(kennard: Faces) -> None:
    params = RecognizerParams(fine_rank_veto=False)
    checks, observed = _seen(kennard, params)
    wrong = SlotReading("card", EIGHT, 0.678, None, 0.678)
    kept = checks._fine_vetoed(lambda: observed, _match(EIGHT, SIX), wrong, False)
    assert kept.card == EIGHT
