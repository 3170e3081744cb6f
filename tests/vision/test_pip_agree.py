"""A pip card's suit twin read where the stored faces and the frame's own corners agree.

:func:`hardware.camera.pipagree.agreed_twin`: kennard's 5 of spades and 5 of clubs laid in a
frame at about 2.8 px/mm (the corner boxes cut from it, as the recogniser notes each cut's
view), blurred as a medium camera shows them.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.camera.facebank import STORED_PATCH_SIZE, FaceBank, Match
from hardware.camera.finetwins import FineView
from hardware.camera.pipagree import agreed_twin, stored_lean
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.suits import observed_luminance, read_only
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import with_kept_faces
from .test_finetwins import _frame, _quad

SPADE, CLUB = Card.parse("3s"), Card.parse("3c")


def _bank(kennard: Faces) -> tuple[Faces, FaceBank]:
    faces = with_kept_faces(kennard, "synth-9173-bridge", (SPADE, CLUB))
    return faces, FaceBank.from_faces(faces, RecognizerParams())


def _observed(frame: np.ndarray, quad: np.ndarray) -> F32:
    """The card cut upright at the stored size from ``frame`` at ``quad``."""
    w, h = STORED_PATCH_SIZE
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) - 0.5
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    patch = cv2.warpPerspective(frame, m, (w, h), flags=cv2.INTER_AREA)
    return observed_luminance(np.asarray(patch, np.uint8))


def _match(first: Card, second: Card, score: float = 0.96) -> Match:
    return Match(first, score, 0.004, 0.5, 0.03, second, discriminant_others=0.8,
                 separation_others=0.3)


def _seen(faces: Faces, card: Card, seed: int, sigma: float, streak: int, noise: float,
          quality: int) -> tuple[F32, np.ndarray, np.ndarray]:
    quad = _quad(width=158.0)  # a bridge card
    frame = _frame(faces[card], quad, np.random.default_rng(seed), sigma, streak, noise,
                   quality)
    observed = read_only(_observed(frame, quad))
    return observed, frame, quad


def test_the_spade_read_when_both_measures_name_it(kennard: Faces) -> None:
    """The stored faces and the corners both lean to the spade: read, whichever of the two
    the whole face put first; a twin read second must score ``min_score``."""
    params = RecognizerParams()
    faces, bank = _bank(kennard)
    assert bank.fine is not None
    observed, frame, quad = _seen(faces, SPADE, 73, 2.0, 5, 4.0, 75)
    spade, club = bank.luminance(SPADE), bank.luminance(CLUB)
    assert stored_lean(observed, spade, club, params) == 1
    assert stored_lean(observed, club, spade, params) == -1
    assert agreed_twin(observed, _match(SPADE, CLUB), bank, params) is None  # no view noted
    bank.fine.look(observed, FineView(frame, quad))
    first = agreed_twin(observed, _match(SPADE, CLUB), bank, params)
    assert first is not None and first[0].card == SPADE and first[1] >= 0.3
    second = agreed_twin(observed, _match(CLUB, SPADE), bank, params)
    assert second is not None and second[0].card == SPADE and second[0].second == CLUB
    assert agreed_twin(observed, _match(CLUB, SPADE, score=0.803), bank, params) is None
    club_seen, club_frame, _ = _seen(faces, CLUB, 76, 1.6, 0, 4.0, 80)
    bank.fine.look(club_seen, FineView(club_frame, quad))
    read = agreed_twin(club_seen, _match(SPADE, CLUB), bank, params)
    assert read is not None and read[0].card == CLUB


def test_no_read_when_the_corners_do_not_agree(kennard: Faces,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The corners undecided, or naming the other card, leave the pair undecided; a court
    pair is never read here (the corners decide courts alone, in ``decide_twin``)."""
    params = RecognizerParams()
    faces, bank = _bank(kennard)
    assert bank.fine is not None
    observed, frame, quad = _seen(faces, SPADE, 74, 1.2, 0, 3.0, 85)
    bank.fine.look(observed, FineView(frame, quad))
    for answer in ((0, 0.0), (-1, 0.9)):
        monkeypatch.setattr(bank.fine, "decide", lambda *a, answer=answer: answer)
        assert agreed_twin(observed, _match(SPADE, CLUB), bank, params) is None, answer
    monkeypatch.setattr(bank.fine, "decide", lambda *a: (1, 1.0))
    court = _match(Card.parse("Ks"), Card.parse("Kc"))
    assert agreed_twin(observed, court, bank, params) is None


def test_no_read_from_a_frame_drowned_in_noise(kennard: Faces) -> None:
    """A frame drowned in noise and blur: the stored faces still lean to the spade, the
    corners at the frame's resolution decide nothing, and nothing is read."""
    params = RecognizerParams()
    faces, bank = _bank(kennard)
    assert bank.fine is not None
    observed, frame, quad = _seen(faces, SPADE, 75, 2.5, 9, 60.0, 30)
    bank.fine.look(observed, FineView(frame, quad))
    assert stored_lean(observed, bank.luminance(SPADE), bank.luminance(CLUB), params) == 1
    assert bank.fine.decide(observed, SPADE, CLUB)[0] == 0
    assert agreed_twin(observed, _match(SPADE, CLUB), bank, params) is None


def test_the_whole_face_twin_decision_asks_it_when_switched_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``RivalChecks._decide_suit`` asks :func:`agreed_twin` where ``decide_twin`` left the pair
    undecided, and only with ``pip_twin_agree``; the card read is the one it names."""
    from types import SimpleNamespace

    from hardware.camera import rivals
    from hardware.camera.readings import SlotReading

    match = _match(CLUB, SPADE)
    swapped = Match(SPADE, 0.95, 0.004, 0.5, 0.03, CLUB, discriminant_others=0.8,
                    separation_others=0.3)
    monkeypatch.setattr(rivals, "decide_twin", lambda *a: None)
    monkeypatch.setattr(rivals, "agreed_twin", lambda *a: (swapped, 0.74))
    observed = np.zeros(STORED_PATCH_SIZE[::-1], np.float32)
    undecided = SlotReading("uncertain", None, 0.3, CLUB, 0.96)
    for on in (True, False):
        checks = SimpleNamespace(bank=None, params=RecognizerParams(pip_twin_agree=on))
        reading, used = rivals.RivalChecks._decide_suit(checks, observed, match, undecided)  # type: ignore[arg-type]
        if on:
            assert reading.status == "card" and reading.card == SPADE and used is swapped
            assert reading.confidence == pytest.approx(0.74)
        else:
            assert reading is undecided and used is match
