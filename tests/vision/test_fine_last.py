"""The fine comparison of a rank (the costly test) asked last by the washed-out read.

``rank_unshown`` is :func:`~hardware.camera.difference.rank_needs_fine` and not
:func:`~hardware.camera.difference.fine_shows`; the washed-out read asks the latter only once
every cheaper test of every rival passed, and answers as it did asking each rival's in turn.
The faces: kennard with its 8 and 6 of clubs replaced by a central-symbol design's
(``synth-2-poker``), which differ in their corner indices alone.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import hardware.camera.difference as D
import hardware.camera.washedout as W
from hardware.camera.difference import fine_shows, rank_needs_fine, rank_unshown
from hardware.camera.facebank import FaceBank, Match
from hardware.camera.finetwins import FineView
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.rivalrules import close_rivals, index_only_refutes
from hardware.camera.suits import InkCheck, ink_check
from table_controller.engine.cards import Card

from .conftest import Faces
from .test_finetwins import _frame, _quad
from .test_rank_fine import EIGHT, SIX, _central_faces, _observed

FIVE = Card.parse("5c")
#: The ink check the reference below asks (a test may stand in for it as for the read's).
_ink: dict[str, Callable[..., InkCheck]] = {"check": ink_check}


def _seen(kennard: Faces, shown: Card, sigma: float, streak: int,
          grow: float) -> tuple[FaceBank, F32]:
    params = RecognizerParams()
    faces = _central_faces(kennard)
    bank = FaceBank.from_faces(faces, params)
    assert bank.fine is not None
    quad = _quad()
    frame = _frame(faces[shown], quad, np.random.default_rng(75), sigma, streak, 4.0, 80)
    observed = _observed(frame, quad, grow)
    bank.fine.look(observed, FineView(frame, quad))
    return bank, observed


def _in_turn(observed: F32, x: Card, match: Match, scores: dict[Card, float], bank: FaceBank,
             params: RecognizerParams) -> float | None:
    """The washed-out lean as it was asked before: each rival's every test in turn (no twin
    among the cards these tests give)."""
    index = bank.index.read(observed)
    lean = 1.0
    rivals, twin_needed = close_rivals(x, (y for y in match.ranked
                                      if scores[x] - scores[y] <= params.washed_score_gap))
    assert not twin_needed
    for y in sorted(rivals, key=lambda c: (-scores.get(c, -1.0), c)):
        if (index_only_refutes(observed, x, y, bank, params)
                or rank_unshown(observed, x, y, bank, params)):
            return None
        ink = _ink["check"](observed, bank.luminance(x), bank.luminance(y), None)
        if ink.rival < params.washed_min_rival:
            return None
        if ink.own >= params.washed_min_own:
            continue
        at = index.position(x, y)
        if at is None or at < params.washed_min_index:
            return None
        lean = min(lean, at)
    return lean


def _match(x: Card, ranked: tuple[Card, ...]) -> tuple[Match, dict[Card, float]]:
    scores = {c: 0.9 - 0.001 * k for k, c in enumerate(ranked)}
    return (Match(x, scores[x], 0.001, 0.0, ranked=ranked,
                  ranked_scores=tuple(scores[c] for c in ranked)), scores)


@pytest.mark.parametrize(("shown", "sigma", "streak", "grow"),
                         [(EIGHT, 1.4, 0, 1.02), (EIGHT, 1.8, 5, 1.02), (SIX, 1.4, 0, 1.02),
                          (EIGHT, 1.2, 0, 1.035)])
def test_the_rank_veto_is_its_cheap_part_and_the_fine_comparison(
        kennard: Faces, shown: Card, sigma: float, streak: int, grow: float) -> None:
    params = RecognizerParams()
    bank, observed = _seen(kennard, shown, sigma, streak, grow)
    for x, y in ((EIGHT, SIX), (SIX, EIGHT), (EIGHT, FIVE), (FIVE, EIGHT)):
        assert rank_unshown(observed, x, y, bank, params) == (
            rank_needs_fine(observed, x, y, bank, params)
            and not fine_shows(observed, x, y, bank)), (x, y)


def _spied(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Card, Card]]:
    asked: list[tuple[Card, Card]] = []
    real = fine_shows

    def spy(observed: F32, x: Card, y: Card, bank: FaceBank) -> bool:
        asked.append((x, y))
        return real(observed, x, y, bank)

    monkeypatch.setattr(W, "fine_shows", spy)
    monkeypatch.setattr(D, "fine_shows", spy)
    return asked


@pytest.mark.parametrize(("shown", "sigma", "streak"), [(EIGHT, 1.4, 0), (EIGHT, 1.8, 5),
                                                        (SIX, 1.4, 0)])
def test_the_washed_out_lean_is_as_asked_in_turn(
        kennard: Faces, monkeypatch: pytest.MonkeyPatch, shown: Card, sigma: float,
        streak: int) -> None:
    params = RecognizerParams()
    bank, observed = _seen(kennard, shown, sigma, streak, 1.02)
    asked = _spied(monkeypatch)
    index = bank.index.read(observed)
    for x, ranked in ((EIGHT, (EIGHT, SIX)), (SIX, (SIX, EIGHT)),
                      (EIGHT, (EIGHT, SIX, FIVE)), (EIGHT, (EIGHT, FIVE, SIX))):
        match, scores = _match(x, ranked)
        got = W._washed_lean(observed, x, scores[x], match, scores, bank, index, params)
        assert got == _in_turn(observed, x, match, scores, bank, params), (x, ranked)
    # The 8 against the 6 needs the fine comparison where the stored faces leave it
    # unresolved: asked by both ways of asking.
    if shown == EIGHT and rank_needs_fine(observed, EIGHT, SIX, bank, params):
        assert (EIGHT, SIX) in asked


def test_a_rival_refused_cheaply_spares_the_fine_comparison(
        kennard: Faces, monkeypatch: pytest.MonkeyPatch) -> None:
    """The 6, which needs the fine comparison, ranked before a rival whose ink refuses the 8:
    asked in turn, the fine comparison would be made first; here it is never made."""
    params = RecognizerParams()
    bank, observed = _seen(kennard, EIGHT, 1.8, 5, 1.02)
    assert rank_needs_fine(observed, EIGHT, SIX, bank, params)
    asked = _spied(monkeypatch)
    real_ink: Callable[..., InkCheck] = ink_check

    def ink(obs: F32, own: F32, rival: F32, ignore: object = None) -> InkCheck:
        if rival is bank.luminance(FIVE):
            return InkCheck(own=1.0, rival=-1.0, blobs=(1, 1))
        return real_ink(obs, own, rival, ignore)

    monkeypatch.setattr(W, "ink_check", ink)
    monkeypatch.setitem(_ink, "check", ink)
    match, scores = _match(EIGHT, (EIGHT, SIX, FIVE))
    index = bank.index.read(observed)
    assert W._washed_lean(observed, EIGHT, scores[EIGHT], match, scores, bank, index,
                          params) is None
    assert asked == []
    assert _in_turn(observed, EIGHT, match, scores, bank, params) is None
    assert asked == [(EIGHT, SIX)]


def test_the_observation_s_blur_is_settled_once_an_index_pair_fitted_it(
        kennard: Faces) -> None:
    """The washed-out read asks the fine comparison last only where no later test can fit
    the observation's blur on another pair than the reads after it would."""
    bank, observed = _seen(kennard, EIGHT, 1.4, 0, 1.02)
    assert not observed.flags.writeable
    assert not bank.index_only.blur_settled(observed)
    assert bank.index_only.blur_settled(observed.copy())
    bank.index_only.check(observed, EIGHT, SIX)
    assert bank.index_only.blur_settled(observed)
    _, other = _seen(kennard, SIX, 1.4, 0, 1.02)
    assert not bank.index_only.blur_settled(other)
