"""Deck check: distinct-card counting, alarm, hysteresis, and real rendered scenes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from hardware.camera.deckfit import (
    DeckFitError,
    DeckFitMonitor,
    DeckFitState,
    DeckFitTransition,
)
from hardware.camera.recognizer import BoardReading, SlotReading
from hardware.sim import scene as S
from table_controller.engine.cards import FULL_DECK, Card
from table_controller.errors import ConfigError

from .conftest import Faces
from .helpers import make_rig

OK, MISMATCH = DeckFitState.OK, DeckFitState.MISMATCH
CARDS = list(FULL_DECK)


def feed(m: DeckFitMonitor, scores: list[float], *, start: int = 0,
         now: float = 0.0) -> list[DeckFitTransition]:
    """One distinct card per score (each in its own slot), seen in min_frames frames."""
    out = []
    for i, s in enumerate(scores):
        for f in range(m.min_frames):
            t = m.observe(i % 5, CARDS[(start + i) % 52], s, now + i + 0.1 * f)
            if t is not None:
                out.append(t)
        m.clear(i % 5)
    return out


def test_defaults_are_the_measured_ones() -> None:
    m = DeckFitMonitor()
    assert (m.window, m.min_cards, m.alarm_below, m.clear_at, m.min_frames) == (
        12, 8, 0.90, 0.94, 2)
    assert m.state is OK and m.median is None and m.cards_seen == 0 and m.transitions == ()


def test_a_card_seen_in_many_frames_counts_once() -> None:
    m = DeckFitMonitor(min_frames=1)
    ah = Card.parse("Ah")
    for k in range(50):
        m.observe(0, ah, 0.30 + 0.001 * k, float(k))
    assert m.cards_seen == 1 and m.cards == 1
    assert m.scores == pytest.approx((0.349,))  # the best score of its frames
    assert m.state is OK  # one odd card decides nothing
    # the candidate of an uncertain read flickering between two cards: two entries, not 50
    kd = Card.parse("Kd")
    for k in range(50):
        m.observe(1, ah if k % 2 else kd, 0.5, 100.0 + k)
    assert m.cards_seen == 3
    # the slot empties: the same card laid again is a new appearance
    m.clear(0)
    m.observe(0, ah, 0.99, 200.0)
    assert m.cards_seen == 4


def test_min_frames_keeps_a_one_frame_glimpse_out() -> None:
    m = DeckFitMonitor(min_frames=2)
    m.observe(0, Card.parse("Ah"), 0.2, 0.0)
    assert m.cards_seen == 0 and m.median is None
    m.observe(0, Card.parse("Ah"), 0.4, 0.1)
    assert m.cards_seen == 1 and m.median == pytest.approx(0.4)


def test_alarm_needs_min_cards() -> None:
    m = DeckFitMonitor()
    assert feed(m, [0.3] * 7) == []
    assert m.state is OK and m.cards == 7
    changes = feed(m, [0.3], start=7, now=50.0)
    assert m.state is MISMATCH
    assert changes == [DeckFitTransition(MISMATCH, 0.3, 8, 50.1)]
    assert m.transitions == tuple(changes)


def test_hysteresis() -> None:
    m = DeckFitMonitor()
    feed(m, [0.97] * 12)
    assert m.state is OK and m.median == pytest.approx(0.97)
    # a window of right-deck cards at the worst measured level (0.923) does not alarm
    feed(m, [0.923] * 12, start=12)
    assert m.state is OK
    feed(m, [0.6] * 7, start=24)  # 7 low of 12: median low
    assert m.state is MISMATCH
    # between the thresholds: stays a mismatch
    feed(m, [0.92] * 12, start=31)
    assert m.state is MISMATCH and m.median == pytest.approx(0.92)
    feed(m, [0.95] * 5, start=43)  # 5 of 12 at 0.95: median still 0.92
    assert m.state is MISMATCH
    changes = feed(m, [0.95] * 2, start=48)
    assert m.state is OK and [c.state for c in changes] == [OK]
    assert [t.state for t in m.transitions] == [MISMATCH, OK]
    assert m.cards_seen == 50 and m.cards == 12


def test_ignored_readings() -> None:
    m = DeckFitMonitor(min_cards=1, window=1, min_frames=1)
    ah = Card.parse("Ah")
    reading = BoardReading((
        SlotReading("occluded", confidence=0.9),
        SlotReading("uncertain"),  # not located: no candidate, score 0
        SlotReading("uncertain", candidate=ah, score=0.0),
        SlotReading("empty", confidence=0.9),
        SlotReading("occluded", confidence=0.5),
    ))
    assert m.update(reading, 0.0) is None
    assert m.cards_seen == 0
    low = BoardReading((SlotReading("uncertain", candidate=ah, score=0.4),)
                       + (SlotReading("empty"),) * 4)
    change = m.update(low, 1.0)
    assert change is not None and change.state is MISMATCH and m.cards_seen == 1


def test_card_and_uncertain_readings_count() -> None:
    m = DeckFitMonitor(min_frames=1)
    reading = BoardReading(tuple(
        SlotReading("card", CARDS[i], 0.97, score=0.97) if i % 2 else
        SlotReading("uncertain", candidate=CARDS[i], score=0.5) for i in range(5)))
    assert m.update(reading, 0.0) is None
    assert m.cards_seen == 5
    assert sorted(m.scores) == pytest.approx([0.5, 0.5, 0.5, 0.97, 0.97])
    m.update(reading, 0.1)  # the same cards again: nothing new
    assert m.cards_seen == 5


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"window": 0}, "window must be an integer >= 1"),
    ({"window": 2.5}, "window must be an integer >= 1"),
    ({"min_cards": 13}, "min_cards must be an integer from 1 to window"),
    ({"min_cards": 0}, "min_cards must be an integer from 1 to window"),
    ({"min_frames": 0}, "min_frames must be an integer >= 1"),
    ({"alarm_below": 0.0}, r"alarm_below must be in \(0, 1\]"),
    ({"alarm_below": float("nan")}, r"alarm_below must be in \(0, 1\]"),
    ({"clear_at": 0.85}, r"clear_at must be from alarm_below \(0.9\) to 1"),
    ({"clear_at": 1.5}, "clear_at must be from alarm_below"),
])
def test_bad_parameters_raise(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        DeckFitMonitor(**kwargs)


def test_bad_observations_raise_and_change_nothing() -> None:
    m = DeckFitMonitor(min_frames=1)
    ah = Card.parse("Ah")
    with pytest.raises(DeckFitError, match=r"score must be a number from -1 to 1 \(got nan"):
        m.observe(0, ah, float("nan"), 0.0)
    with pytest.raises(DeckFitError, match="score must be a number from -1 to 1"):
        m.observe(0, ah, 1.5, 0.0)
    with pytest.raises(DeckFitError, match="slot must be an integer >= 0"):
        m.observe(-1, ah, 0.9, 0.0)
    bad = BoardReading((SlotReading("card", ah, 0.9, score=0.9),
                        SlotReading("card", CARDS[1], 0.9, score=2.0)))
    with pytest.raises(DeckFitError, match="in slot 1"):
        m.update(bad, 0.0)
    assert m.cards_seen == 0 and m.median is None


# -- real rendered scenes --------------------------------------------------------------------


def _run_scenes(shown: Faces, registered: Faces, seed: int) -> DeckFitMonitor:
    """Three boards of five distinct cards, two frames each, rendered at medium."""
    rig = make_rig(registered, seed=seed)
    rng = np.random.default_rng(seed)
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    m = DeckFitMonitor()
    now = 0.0
    for b in range(3):
        cards: list[Card | None] = list(deck[5 * b : 5 * b + 5])
        for _ in range(2):
            scene = S.render_board(shown, cards, rng, S.Level.MEDIUM, rig.camera)
            now += 0.1
            m.update(rig.recognizer.read(scene.image), now)
    return m


def test_wrong_deck_registered_alarms(kennard: Faces, svg_cards: Faces) -> None:
    m = _run_scenes(svg_cards, kennard, seed=8101)
    assert m.cards_seen >= 8
    assert m.state is MISMATCH, m.scores
    assert m.median is not None and m.median < 0.9
    assert [t.state for t in m.transitions] == [MISMATCH]


def test_right_deck_registered_stays_ok(kennard: Faces) -> None:
    m = _run_scenes(kennard, kennard, seed=8102)
    assert m.cards_seen >= 12
    assert m.state is OK and m.transitions == ()
    assert m.median is not None and m.median >= 0.94, m.scores


def test_suspect_before_a_verdict() -> None:
    m = DeckFitMonitor()
    assert not m.suspect  # nothing seen
    feed(m, [0.5] * 3)
    assert m.state is OK and m.suspect  # too few cards for an alarm, too bad to vouch for
    good = DeckFitMonitor()
    feed(good, [0.97, 0.88, 0.96])
    assert not good.suspect
    feed(m, [0.5] * 5, start=3)
    assert m.state is MISMATCH and m.suspect


def test_doctests() -> None:
    import doctest

    import hardware.camera.deckfit

    result = doctest.testmod(hardware.camera.deckfit)
    assert result.failed == 0 and result.attempted > 0


def test_numpy_scores_are_numbers() -> None:
    m = DeckFitMonitor(min_frames=1)
    m.observe(0, Card.parse("Ah"), np.float32(0.5), 0.0)  # type: ignore[arg-type]
    m.observe(1, Card.parse("Kd"), np.float64(0.75), 0.0)
    assert m.scores == pytest.approx((0.5, 0.75))
    with pytest.raises(DeckFitError, match="score must be a number"):
        m.observe(2, Card.parse("Qs"), True, 0.0)
