"""The suit from the ink's colour on a four-colour deck; a two-colour deck is left as it was."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.camera.facebank import face_patch
from hardware.camera.inkhue import FaceTones, SuitInks, ink_tone, other_inks, suit_by_tone
from table_controller.engine.cards import SUITS, Card

from .conftest import Faces
from .helpers import Image, make_rig
from .test_inkhue import BLUE, GREEN, _blurred_board, _observed, _recoloured


@pytest.fixture(scope="module")
def four_colour(kennard: Faces) -> Faces:
    """Kennard with its clubs printed green and its diamonds blue (a four-colour deck)."""
    colours = {"c": GREEN, "d": BLUE}
    return {card: (_recoloured(face, colours[card.code[1]]) if card.code[1] in colours
                   else face) for card, face in kennard.items()}


def _patches(faces: Faces) -> dict[tuple[int, int], Image]:
    return {(c.rank, c.suit): face_patch(f) for c, f in faces.items()}


def test_suits_in_four_inks_are_told_from_two(kennard: Faces, four_colour: Faces) -> None:
    """Clubs green and diamonds blue make four inks; red and black, two (decided once)."""
    assert SuitInks(_patches(four_colour)).many
    two = SuitInks(_patches(kennard))
    assert not two.many
    assert sorted(map(sorted, two.groups)) == [[0, 3], [1, 2]]


def test_a_light_and_a_dark_red_are_one_ink() -> None:
    """The same hue at another strength is one ink; black and a colour, or two hues, are two."""
    red, pale = np.array([0.0, 1.2]), np.array([0.02, 0.45])
    assert not other_inks(red, pale)
    assert other_inks(red, np.array([0.5, -0.6]))
    assert other_inks(np.zeros(2), red)
    assert not other_inks(np.zeros(2), np.array([0.05, -0.1]))


def _glared(patch: Image, share: float) -> Image:
    """Return ``patch`` under white light adding ``share`` of the paper's white, then blurred."""
    lit = patch.astype(np.float32) * (1.0 - share) + 255.0 * share
    return np.asarray(np.clip(cv2.GaussianBlur(lit, (0, 0), 2.0), 0, 255), np.uint8)


@pytest.mark.parametrize("rank", ["7", "T", "K"])
def test_a_glare_and_a_blur_keep_the_inks_tone(four_colour: Faces, rank: str) -> None:
    """White light and a blur fade the ink's colour and darkness alike: its tone is kept and
    the suit read from it, for every suit of a pip rank. A king's picture mixes inks: its
    suits are read or left to the other checks, never read as another suit."""
    patches = _patches(four_colour)
    r = Card.parse(rank + "c").rank
    faces = {s: patches[(r, s)] for s in range(4)}
    for suit in range(4):
        seen = _glared(faces[suit], 0.5)
        got = suit_by_tone(seen, faces)
        assert got == suit or (rank == "K" and got is None), SUITS[suit]


def test_a_washed_out_ink_shows_no_tone(four_colour: Faces) -> None:
    """Ink faded almost to the paper's white is no evidence of its colour."""
    face = face_patch(four_colour[Card.parse("9c")])
    ink = np.zeros(face.shape[:2], bool)
    ink[40:120, 30:90] = True
    assert ink_tone(_glared(face, 0.97), ink, ~ink) is None


def test_blurred_four_colour_clubs_read_and_two_colour_decks_never_toned(
    kennard: Faces, four_colour: Faces,
) -> None:
    """Under a hard motion blur each card of a four-colour deck is read right or refused; the
    tone tells its suit (clubs green, spades black). A two-colour deck never uses the tone."""
    rec, image = _blurred_board(four_colour, "Tc 9s Ac 4d 7h", 5803)
    reading = rec.read(image)
    for slot, text in enumerate(("Tc", "9s", "Ac", "4d", "7h")):
        seen = _observed(rec, image, slot)
        card = Card.parse(text)
        faces = {s: rec.bank.patches[Card(card.rank, s)] for s in range(4)}
        assert suit_by_tone(seen, faces) == card.suit, text
        got = reading.slots[slot]
        assert got.status != "card" or got.card == card, text
    assert rec._many_inks()
    plain = make_rig(kennard, 5804).recognizer
    assert not plain._many_inks()


def test_a_read_whose_ink_names_another_suit_is_refused(
    kennard: Faces, four_colour: Faces,
) -> None:
    """On a four-colour deck a read whose ink's tone names another suit of its rank is refused
    (a blurred blue diamond read as the green club by the pips' shape); the suit the ink shows,
    and any card on a two-colour deck, is not."""
    rec, image = _blurred_board(four_colour, "Td 6d Tc 6s 9h", 5805)
    for slot, text in enumerate(("Td", "6d", "Tc", "6s", "9h")):
        pose = rec.locate(image, slot)
        assert pose is not None, text
        card = Card.parse(text)
        others = [Card(card.rank, s) for s in range(4) if s != card.suit]
        assert not rec._tone_names_other(image, pose, False, card), text
        assert any(rec._tone_names_other(image, pose, False, o) for o in others), text
    plain, shown = _blurred_board(kennard, "Td 6d Tc 6s 9h", 5806)
    reading = plain.read(shown)
    assert not plain._many_inks()
    assert all(s.status != "card" or s.card == Card.parse(t)
               for s, t in zip(reading.slots, ["Td", "6d", "Tc", "6s", "9h"], strict=True))


@pytest.mark.parametrize("deck", ["four", "two"])
def test_the_tones_kept_equal_those_computed_in_each_call(
    kennard: Faces, four_colour: Faces, deck: str
) -> None:
    """:class:`FaceTones` (filled by its units, as the warm-up does) gives the deck's inks and
    each rank's suit by tone exactly as computed afresh, on faces glared and blurred; its rank
    units compute nothing on a two-colour deck (the tone reads are not made there)."""
    faces = four_colour if deck == "four" else kennard
    patches = _patches(faces)
    tones = FaceTones(patches)
    for unit in tones.units():
        unit()
    fresh = SuitInks(patches)
    kept = tones.suit_inks()
    assert kept.many == (deck == "four") and kept.groups == fresh.groups
    assert all(np.array_equal(a, b) for a, b in zip(kept.tones, fresh.tones, strict=True))
    assert len(tones._tones) == (52 if deck == "four" else 0)
    for (rank, suit), face in patches.items():
        seen = _glared(face, 0.1 * (suit + 1))
        assert tones.suit_by_tone(seen, rank) == suit_by_tone(
            seen, {s: patches[(rank, s)] for s in range(4)}), (rank, suit)
