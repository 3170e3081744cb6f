"""A read its corners decide over its second is still refused where they refute it against a third.

The faces are the 6, 8 and 9 of diamonds of a generated design printing one central symbol
on every number card (``synth-9228-poker``), and the observation the 6 of diamonds under a
gloss streak (medium gloss, scene seed 7153840, frame 2, slot 2 from 0; benchmark run 102):
the card cut upright at the stored size where the recogniser located it, and the frame's
pixels around it with the card's corners there, all kept in ``tests/vision/data``. The whole
face named the 8 (score 0.791, separation 0.102 from the 9, over ``min_separation``), the 6
fourth. The corners at the frame's own resolution decide the 8 over the 9 (both index
corners 0.82-0.90 towards the 8), so the rank veto of run 93, which asked the other close
ranks only where the second was undecided, kept the read: a confident wrong read (0.79).
Against the 6 both corners lean to the 6 (0.50 and 0.85, 5-13 times their noise): refuted
(``RecognizerParams.fine_rank_close_decided``).
"""

from __future__ import annotations

from hardware.camera.facebank import Match
from hardware.camera.finedecide import RANK_MIN_MEAN, RANK_NOISE_RATIO
from hardware.camera.readings import F32, RecognizerParams, SlotReading
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import BareChecks, kept_checks, kept_look

DESIGN = "synth-9228-poker"
#: The card's corners in the kept frame cut (px; TL, TR, BR, BL of the card upright).
QUAD = ((12.321, 18.268), (204.251, 12.421), (217.932, 261.748), (18.245, 268.186))
SIX, EIGHT, NINE = Card.parse("6d"), Card.parse("8d"), Card.parse("9d")


def _seen(kennard: Faces, params: RecognizerParams) -> tuple[BareChecks, F32]:
    """The checks on kennard's bank with the three faces replaced, and the observation."""
    checks = kept_checks(kennard, DESIGN, (SIX, EIGHT, NINE), params)
    return checks, kept_look(checks.bank.fine, DESIGN, SIX, QUAD)


def _match(best: Card, second: Card, third: Card) -> Match:
    return Match(card=best, score=0.791, margin=0.002, discriminant=1.0, separation=0.102,
                 second=second, close=(best, second, third),
                 close_scores=(0.791, 0.789, 0.786))


def test_the_eight_read_is_refused_by_the_third(kennard: Faces) -> None:
    params = RecognizerParams()
    checks, observed = _seen(kennard, params)
    fine = checks.bank.fine
    assert fine is not None
    assert checks.bank.index_only.pair(EIGHT, NINE) and checks.bank.index_only.pair(EIGHT, SIX)
    # The corners decide the 8 over its second: the veto of run 93 asked no one else.
    assert fine.decide(observed, EIGHT, NINE, RANK_NOISE_RATIO, RANK_MIN_MEAN)[0] == 1
    assert fine.refutes(observed, EIGHT, SIX, RANK_NOISE_RATIO)
    wrong = SlotReading("card", EIGHT, 0.791, None, 0.791)
    refused = checks._fine_vetoed(lambda: observed, _match(EIGHT, NINE, SIX), wrong, False)
    assert refused.status == "uncertain" and refused.card is None
    right = SlotReading("card", SIX, 0.791, None, 0.791)
    kept = checks._fine_vetoed(lambda: observed, _match(SIX, EIGHT, NINE), right, False)
    assert kept.status == "card" and kept.card == SIX


def test_kept_when_turned_off(kennard: Faces) -> None:
    checks, observed = _seen(kennard, RecognizerParams(fine_rank_close_decided=False))
    wrong = SlotReading("card", EIGHT, 0.791, None, 0.791)
    kept = checks._fine_vetoed(lambda: observed, _match(EIGHT, NINE, SIX), wrong, False)
    assert kept.card == EIGHT
