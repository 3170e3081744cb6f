"""Pip suit twins under a gloss streak are compared on the region's pixels off the glare.

The faces are a 3 of spades and a 3 of clubs of ``synth-9284-poker`` and an 8 of clubs and an
8 of spades of ``synth-9283-bridge`` (generated designs, two colours, standard pips), and the
observations the 3 and the 8 of spades as medium gloss scenes showed them (cut upright at the
stored size where the recogniser located them; benchmark run 123, scene seeds 8903840 frame 4
and 8903830 frame 4), all kept in ``tests/vision/data``. A streak lay over one half of the
region where each pair differs: that half leaned 1.9 and 1.2 the wrong way, the other half the
right way, and the twin rules, which ask both halves, left both cards ``uncertain``. Off the
glare (:func:`~hardware.camera.glaretwin.unglared_check`) both halves lean to the spade.
"""

from __future__ import annotations

from hardware.camera.facebank import FaceBank, Match
from hardware.camera.glare import Mask, glare_mask
from hardware.camera.glaretwin import glare_twin_lean, unglared_check
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.suits import observed_luminance, pair_check
from hardware.camera.twindecide import decide_twin
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import kept_image, with_kept_faces

CASES = (
    # design, the card shown, the whole face's best card, its twin
    ("synth-9284-poker", Card.parse("3s"), Card.parse("3s"), Card.parse("3c")),
    ("synth-9283-bridge", Card.parse("8s"), Card.parse("8c"), Card.parse("8s")),
)


def _seen(kennard: Faces, design: str, shown: Card, best: Card, twin: Card,
          params: RecognizerParams) -> tuple[FaceBank, F32, Mask]:
    """The bank with the two kept faces, the kept observation and the glare found on it."""
    bank = FaceBank.from_faces(with_kept_faces(kennard, design, (best, twin)), params)
    patch = kept_image(design, f"observed-{shown}")
    glare, _ = glare_mask(patch, bank.luminance(best))
    return bank, observed_luminance(patch), glare


def test_the_streak_turns_one_half_the_twin_rules_leave_them(kennard: Faces) -> None:
    params = RecognizerParams()
    for design, shown, best, twin in CASES:
        bank, ob, glare = _seen(kennard, design, shown, best, twin, params)
        assert glare.any()
        check = pair_check(ob, bank.luminance(best), bank.luminance(twin))
        assert check.worst_half < -1.0 and check.best_half > 1.0  # the halves disagree
        match = Match(best, 0.85, 0.006, 0.47, 0.04, twin)
        assert decide_twin(ob, match, bank, params) is None


def test_off_the_glare_both_halves_name_the_spade(kennard: Faces) -> None:
    params = RecognizerParams()
    for design, shown, best, twin in CASES:
        bank, ob, glare = _seen(kennard, design, shown, best, twin, params)
        fb, fr = bank.luminance(best), bank.luminance(twin)
        check = unglared_check(ob, fb, fr, glare)
        assert check is not None and check.cover >= params.glare_twin_min_cover
        sign = 1 if shown == best else -1
        assert len(check.halves) == 2
        assert min(sign * h for h in check.halves) >= params.suit_min_half
        lean = glare_twin_lean(ob, fb, fr, glare, params)
        assert sign * lean >= params.suit_min_position


def test_the_rule_off_decides_nothing(kennard: Faces) -> None:
    params = RecognizerParams(glare_twin_min_cover=1.01)
    for design, shown, best, twin in CASES:
        bank, ob, glare = _seen(kennard, design, shown, best, twin, params)
        assert glare_twin_lean(ob, bank.luminance(best), bank.luminance(twin), glare,
                               params) == 0.0
