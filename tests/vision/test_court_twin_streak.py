"""A shared-picture court under a streak blur: every corner leans to its suit twin.

The faces are the jacks of clubs and of spades of a generated tuning design whose twelve
courts share one figure (``synth-9283-bridge``: jumbo indices in all four corners, two
colours, one central symbol on the number cards), and the observation a jack of spades on a
hard plain frame (benchmark run 125, scene seed 9121000, frame 5, slot 0): the card cut
upright at the stored size where the recogniser located it, and the frame's pixels around it
with the card's corners there, all kept in ``tests/vision/data/synth-9283-bridge``. The frame's
blur streaks the index's rank glyph and its small suit symbol into one stroke; the whole face
leaves the twins 0.000005 apart, and at the frame's own resolution all four index corners
lean to the club, by 2.5 to 3.5 times their placebo noise: the corners decide the wrong twin
on the court twins' own bounds (two corners at 3 times, every other at 2.5). Four looks at
one glyph share one blur, so their errors do not average out. The read is refused only by
the stored faces' sharp comparison, which leans 0.201 to the spade, past
``twin_veto_position`` (-0.2) by 0.001. This test keeps that refusal: a court twin read on
the corners alone must not get past a sharp comparison leaning the other way.
"""

from __future__ import annotations

import numpy as np

from hardware.camera.facebank import Match
from hardware.camera.finetwins import FineView
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.suits import pair_check
from hardware.camera.twindecide import decide_twin
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import BareChecks, kept_checks, kept_image, kept_observation

DESIGN = "synth-9283-bridge"
#: The card's corners in the kept frame cut (px; TL, TR, BR, BL of the card upright).
QUAD = ((12.602, 33.375), (166.467, 12.669), (194.278, 213.02), (37.876, 234.269))
JC, JS = Card.parse("Jc"), Card.parse("Js")


def _seen(kennard: Faces) -> tuple[BareChecks, F32]:
    """The checks on kennard's bank with the jacks' faces replaced, and the observation."""
    checks = kept_checks(kennard, DESIGN, (JC, JS))
    observed = kept_observation(DESIGN, "observed-Js")
    assert checks.bank.fine is not None
    checks.bank.fine.look(observed, FineView(kept_image(DESIGN, "frame-Js"),
                                             np.array(QUAD, np.float64)))
    return checks, observed


def _match(best: Card, second: Card) -> Match:
    return Match(card=best, score=0.963, margin=0.000005, discriminant=0.005,
                 separation=0.0001, second=second)


def test_every_corner_leans_to_the_club_on_the_twins_bounds(kennard: Faces) -> None:
    checks, observed = _seen(kennard)
    assert checks.bank.index_only.pair(JC, JS)
    fine = checks.bank.fine
    assert fine is not None
    lean = fine.lean(observed, JC, JS)
    assert lean is not None and sorted(c.corner for c in lean.corners) == [0, 1, 2, 3]
    ratios = [c.lean / c.noise for c in lean.corners]
    assert min(ratios) >= 2.0 and min(c.fit for c in lean.corners) >= 0.9
    assert fine.decide(observed, JC, JS)[0] == 1  # the wrong twin, on the corners alone


def test_the_sharp_comparison_refuses_the_club(kennard: Faces) -> None:
    checks, observed = _seen(kennard)
    params = RecognizerParams()
    sharp = pair_check(observed, checks.bank.luminance(JC), checks.bank.luminance(JS))
    assert sharp.position < params.twin_veto_position
    assert decide_twin(observed, _match(JC, JS), checks.bank, params) is None
    decided = decide_twin(observed, _match(JS, JC), checks.bank, params)
    assert decided is None or decided[0].card == JS
