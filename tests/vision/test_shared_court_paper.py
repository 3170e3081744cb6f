"""A one-picture court on a four-colour deck: the ink's colour against the card's own paper.

The faces are the four jacks of a generated tuning design (``synth-9198-poker``: normal
indices in two corners, four colours, one picture for all twelve courts), at the stored size,
and the observations are a jack of spades (medium plain scene) and a jack of clubs (hard plain
scene) as the frames showed them, cut upright at the stored size where the recogniser located
them (benchmark run 79), all kept in ``tests/vision/data/synth-9198-poker``. The shared
picture prints light colours (a yellow coat, a face's skin) that are not ink to the tones, and
were taken for paper: the black spade's ink then showed a blue tone, and the spade was named
by no suit; the club, whose ink the tone named, was refused by the fine faces, which compare
luminance alone and confirmed neither the club nor the spade in the blurred corners.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from hardware.camera.facebank import Match
from hardware.camera.inkhue import INKS_APART, FaceTones, other_inks
from hardware.camera.locator import CardPose
from hardware.camera.readings import F32, Image, RecognizerParams, SlotReading
from hardware.camera.rivals import RivalChecks
from hardware.camera.tonechecks import ToneChecks
from table_controller.engine.cards import Card

from .helpers import kept_image

JACK = 9
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)


def _image(name: str) -> Image:
    return kept_image("synth-9198-poker", name)


@pytest.fixture(scope="module")
def jacks() -> FaceTones:
    """The tones of the four jacks' stored faces."""
    return FaceTones({(JACK, suit): _image(f"stored-J{code}")
                      for suit, code in enumerate("cdhs")})


def test_the_shared_picture_s_light_print_is_not_paper(jacks: FaceTones) -> None:
    """Against the paper round the indices the spade's ink is black, the others coloured."""
    assert jacks.shared(JACK)
    tones = [jacks.tone(JACK, suit) for suit in range(4)]
    assert all(t is not None for t in tones)
    spade = tones[SPADES]
    assert spade is not None and float(np.linalg.norm(spade)) < INKS_APART
    for suit in (CLUBS, DIAMONDS, HEARTS):
        tone = tones[suit]
        assert tone is not None and float(np.linalg.norm(tone)) > 2 * INKS_APART
        assert other_inks(tone, spade)


def test_the_jack_of_spades_ink_names_the_spade(jacks: FaceTones) -> None:
    """The frame's jack of spades: its ink's tone names the spade (before: no suit)."""
    assert jacks.suit_by_tone(_image("observed-Js"), JACK) == SPADES


def test_the_jack_of_clubs_ink_still_names_the_club(jacks: FaceTones) -> None:
    assert jacks.suit_by_tone(_image("observed-Jc"), JACK) == CLUBS


class _Cut(ToneChecks):
    """The ink checks on one observation: the recogniser's cut is the kept crop."""

    def __init__(self, tones: FaceTones, cut: Image) -> None:
        self.tones = tones
        self.cut = cut

    def _upright(self, frame: Image, pose: CardPose, flipped: bool) -> Image:
        return self.cut

    def _many_inks(self) -> bool:
        # The deck's inks are decided on all 52 faces (its pip cards); four inks here.
        return True


def test_the_ink_tells_the_jack_s_suit(jacks: FaceTones) -> None:
    """``_ink_tells``: the kept jack of clubs is the club's, not the spade's or the heart's."""
    frame = np.zeros((4, 4, 3), np.uint8)
    pose = CardPose((0.0, 0.0), 0.0, 0)
    checks = _Cut(jacks, _image("observed-Jc"))
    assert checks._ink_tells(frame, pose, False, Card(JACK, CLUBS))
    assert not checks._ink_tells(frame, pose, False, Card(JACK, SPADES))
    assert not checks._ink_tells(frame, pose, False, Card(JACK, HEARTS))
    spade = _Cut(jacks, _image("observed-Js"))
    assert spade._ink_tells(frame, pose, True, Card(JACK, SPADES))


class _Fine:
    """A stand-in for the fine faces: their corners confirm nothing."""

    captured = False

    def confirms(self, observed: F32, card: Card, rival: Card, ratio: float) -> bool | None:
        return False

    def lean(self, observed: F32, card: Card, rival: Card) -> None:
        return None


class _Pairs:
    """A stand-in for the bank's index-only pairs: the jacks share their picture."""

    def pair(self, a: Card, b: Card) -> bool:
        return True


class _Bank:
    fine = _Fine()
    index_only = _Pairs()


class _Rivals(RivalChecks):
    def __init__(self) -> None:
        self.bank = _Bank()  # type: ignore[assignment]
        self.params = RecognizerParams()


def _read(card: Card) -> SlotReading:
    return SlotReading("card", card, 0.5, None, 0.99)


def test_ink_that_tells_the_suit_keeps_a_court_the_fine_faces_leave_unconfirmed() -> None:
    """The twin read the fine faces do not confirm stands only where the ink tells its suit."""
    club, spade = Card(JACK, CLUBS), Card(JACK, SPADES)
    match = Match(club, 0.99, 0.0, 0.5, 0.01, spade, discriminant_others=0.8,
                  separation_others=0.2)
    checks = _Rivals()
    seen: Callable[[], F32] = lambda: np.zeros((168, 120), np.float32)  # noqa: E731
    assert checks._fine_vetoed(seen, match, _read(club), True).status == "uncertain"
    kept = checks._fine_vetoed(seen, match, _read(club), True, lambda card: card == club)
    assert kept.status == "card" and kept.card == club
    refused = checks._fine_vetoed(seen, match, _read(club), True, lambda card: False)
    assert refused.status == "uncertain"
