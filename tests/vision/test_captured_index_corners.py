"""A pip card on a deck registered from the camera: confirmed on its index corners alone.

On a deck whose faces were captured by the camera every read whose close second is another
card is confirmed on the fine faces
(:meth:`~hardware.camera.rivals.RivalChecks._fine_vetoed`). On a two-index design the top-right
and bottom-left corner boxes of a pip card show a corner pip and no index; with captured faces
they fit worse and lean weakly or the wrong way on right reads, while both index corners (top
left, bottom right) fit 0.97-0.99 and lean to the read (benchmark runs 113 and 114, synth-9276
bridge, hard frames). Such a read is confirmed where every available index corner leans clearly
to it; a pip corner leaning to the rival no longer refuses it. Courts and face-image decks keep
their rule.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from hardware.camera.facebank import Match
from hardware.camera.finedecide import (
    CAPTURED_NOISE_RATIO,
    INDEX_CORNERS,
    CornerLean,
    FineLean,
    fine_confirms,
    fine_confirms_indexed,
)
from hardware.camera.readings import F32, RecognizerParams, SlotReading
from hardware.camera.rivals import RivalChecks
from table_controller.engine.cards import Card

BLUR = (1.2, 0, 0)
#: A right read's leans as traced on synth-9276 bridge: both index corners fit 0.98 and lean
#: to the card over CAPTURED_NOISE_RATIO (not NOISE_RATIO) times their noise; a pip corner
#: fits 0.85 and leans to the rival.
TL, BR = CornerLean(0, 0.5, 0.2, 0.98), CornerLean(3, 0.55, 0.2, 0.97)
PIP = CornerLean(1, -0.96, 0.3, 0.85)
RIGHT = FineLean((TL, PIP, BR), BLUR, 4)


def test_the_index_corners_confirm_where_a_pip_corner_leans_away() -> None:
    assert frozenset((0, 3)) == INDEX_CORNERS
    assert not fine_confirms(RIGHT, CAPTURED_NOISE_RATIO)
    assert fine_confirms_indexed(RIGHT, CAPTURED_NOISE_RATIO)
    # Every other bound kept: both index corners where both are compared, each fitting
    # MIN_FIT and leaning clearly over its noise; none compared: not confirmed.
    for weak in (replace(BR, lean=0.1), replace(BR, fit=0.7), replace(BR, noise=0.7),
                 replace(BR, lean=-0.9)):
        assert not fine_confirms_indexed(FineLean((TL, PIP, weak), BLUR, 4),
                                         CAPTURED_NOISE_RATIO)
    assert fine_confirms_indexed(FineLean((TL, PIP), BLUR, 4), CAPTURED_NOISE_RATIO)
    assert not fine_confirms_indexed(FineLean((PIP,), BLUR, 4), CAPTURED_NOISE_RATIO)
    assert not fine_confirms_indexed(FineLean((), BLUR, 4)) and not fine_confirms_indexed(None)


class _Fine:
    """Fine faces whose every comparison gives ``lean``."""

    def __init__(self, captured: bool, lean: FineLean) -> None:
        self.captured, self.lean = captured, lean

    def confirms(self, observed: F32, card: Card, rival: Card, ratio: float) -> bool | None:
        return fine_confirms(self.lean, ratio)

    def confirms_indexed(self, observed: F32, card: Card, rival: Card,
                         ratio: float) -> bool | None:
        return fine_confirms_indexed(self.lean, ratio)


class _Bank:
    def __init__(self, fine: _Fine) -> None:
        self.fine = fine


class _Checks(RivalChecks):
    def __init__(self, fine: _Fine) -> None:
        self.bank = _Bank(fine)  # type: ignore[assignment]
        self.params = RecognizerParams(fine_rank_veto=False)


def _vetoed(card: Card, second: Card, captured: bool, lean: FineLean) -> str:
    match = Match(card, 0.8, 0.02, 0.02, 0.02, second, close=(card, second))
    reading = SlotReading("card", card, 0.8, card, 0.8, 0.02, 0.02, 0.02)
    observed = np.zeros((8, 8), np.float32)
    out = _Checks(_Fine(captured, lean))._fine_vetoed(lambda: observed, match, reading, False)
    return out.status


def test_a_captured_pip_read_is_kept_on_its_index_corners() -> None:
    seven, six = Card(5, 2), Card(4, 2)
    assert _vetoed(seven, six, True, RIGHT) == "card"
    # The index corners not both clear: refused, as on main.
    assert _vetoed(seven, six, True, FineLean((TL, PIP, replace(BR, lean=0.1)), BLUR, 4)) \
        == "uncertain"
    # A court keeps its rule (a corner clear by NOISE_RATIO times its noise): refused.
    jack, other = Card(9, 2), Card(9, 0)
    assert _vetoed(jack, other, True, RIGHT) == "uncertain"
