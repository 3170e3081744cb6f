"""A pip card of a four-colour deck registered from the camera: its suit told by the ink.

On a deck whose faces were captured by the camera (``vision capture-faces``), every read whose
close second is another card is confirmed on the fine faces
(:meth:`~hardware.camera.rivals.RivalChecks._fine_vetoed`), which compare luminance alone: a
green eight of clubs and a blue eight of diamonds differ there in pip shape only, through the
capture's own blur and sampling, and the fine fit stayed at 0.54-0.65 where the face images
fitted 0.8-0.98 (benchmark run 110: most of the four-colour designs' misses with camera-
registered faces). The ink's colour tells those suits apart
(:meth:`~hardware.camera.tonechecks.ToneChecks._ink_tells`), as it did for a one-picture court.

Kept in ``tests/vision/data/synth-9264-poker`` (normal indices in two corners, four colours):
the four eights' stored patches as the camera captured them (``captured-8?``) and the eight of
clubs of a medium plain scene cut upright at the stored size where the recogniser located it
(``observed-8c``), which the fine faces left unconfirmed against the eight of diamonds.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from hardware.camera.facebank import Match
from hardware.camera.inkhue import FaceTones
from hardware.camera.locator import CardPose
from hardware.camera.readings import F32, Image, RecognizerParams, SlotReading
from hardware.camera.tonechecks import ToneChecks
from table_controller.engine.cards import Card

from .helpers import kept_image

DESIGN = "synth-9264-poker"
EIGHT = 6
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)


@pytest.fixture(scope="module")
def eights() -> FaceTones:
    """The tones of the four eights' captured stored faces."""
    return FaceTones({(EIGHT, suit): kept_image(DESIGN, f"captured-8{code}")
                      for suit, code in enumerate("cdhs")})


class _Fine:
    """A stand-in for the fine faces: their corners confirm nothing."""

    def __init__(self, captured: bool) -> None:
        self.captured = captured

    def confirms(self, observed: F32, card: Card, rival: Card, ratio: float) -> bool | None:
        return False

    def confirms_indexed(self, observed: F32, card: Card, rival: Card,
                         ratio: float) -> bool | None:
        return False


class _Bank:
    def __init__(self, captured: bool) -> None:
        self.fine = _Fine(captured)


class _Cut(ToneChecks):
    """The ink checks on the kept cut; a deck of four inks, captured or from face images."""

    def __init__(self, tones: FaceTones, captured: bool) -> None:
        self.tones = tones
        self.bank = _Bank(captured)  # type: ignore[assignment]
        self.params = RecognizerParams()

    def _upright(self, frame: Image, pose: CardPose, flipped: bool) -> Image:
        return kept_image(DESIGN, "observed-8c")

    def _many_inks(self) -> bool:
        return True  # decided on all 52 faces: four inks on this design


FRAME = np.zeros((4, 4, 3), np.uint8)
POSE = CardPose((0.0, 0.0), 0.0, 0)


def test_the_ink_tells_a_captured_pip_card_s_suit(eights: FaceTones) -> None:
    """The eights do not share their print; on the captured deck the ink names the club, not
    the diamond, the heart or the spade. A deck registered from face images asks no pip
    card's fine confirmation, and its answer there is as before: no."""
    assert not eights.shared(EIGHT)
    captured = _Cut(eights, captured=True)
    assert captured._ink_tells(FRAME, POSE, False, Card(EIGHT, CLUBS))
    for suit in (DIAMONDS, HEARTS, SPADES):
        assert not captured._ink_tells(FRAME, POSE, False, Card(EIGHT, suit))
    from_images = _Cut(eights, captured=False)
    assert not from_images._ink_tells(FRAME, POSE, False, Card(EIGHT, CLUBS))


def test_a_captured_pip_read_left_unconfirmed_stands_on_its_ink(eights: FaceTones) -> None:
    """The eight of clubs read by the whole face, the diamond close second: the fine faces
    confirm nothing, so it is refused unless the ink tells its suit."""
    club, diamond = Card(EIGHT, CLUBS), Card(EIGHT, DIAMONDS)
    match = Match(club, 0.99, 0.01, 0.5, 0.1, diamond)
    checks = _Cut(eights, captured=True)
    read = SlotReading("card", club, 0.5, None, 0.99)
    seen: Callable[[], F32] = lambda: np.zeros((168, 120), np.float32)  # noqa: E731
    inked = lambda card: checks._ink_tells(FRAME, POSE, False, card)  # noqa: E731
    assert checks._fine_vetoed(seen, match, read, False).status == "uncertain"
    kept = checks._fine_vetoed(seen, match, read, False, inked)
    assert kept.status == "card" and kept.card == club
    # Read as the diamond, the club close second: the ink names the club, so refused.
    wrong = SlotReading("card", diamond, 0.5, None, 0.99)
    as_diamond = Match(diamond, 0.99, 0.01, 0.5, 0.1, club)
    assert checks._fine_vetoed(seen, as_diamond, wrong, False, inked).status == "uncertain"
