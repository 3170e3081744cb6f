"""The ink's hue against fallback reads: a four-colour deck's green club is not its blue diamond."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.camera.facebank import STORED_PATCH_SIZE
from hardware.camera.inkhue import HUE_MAX_RESIDUAL, hue_refutes, hue_residual, ink_colours
from hardware.camera.recognizer import BoardRecognizer
from hardware.sim import scene as S
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import Image, make_rig

#: Ink colours (BGR) a four-colour deck prints clubs and diamonds in.
GREEN = (40.0, 140.0, 20.0)
BLUE = (200.0, 90.0, 10.0)


def _recoloured(face: Image, bgr: tuple[float, float, float]) -> Image:
    """Return a BGRA face printed in ``bgr`` on white: its ink where it is dark (any colour)."""
    out = face.copy()
    grey = cv2.cvtColor(np.ascontiguousarray(face[..., :3]), cv2.COLOR_BGR2GRAY)
    ink = np.clip(1.0 - grey.astype(np.float32) / 255.0, 0.0, 1.0)[..., None]
    printed = 255.0 * (1 - ink) + ink * np.asarray(bgr, np.float32)
    out[..., :3] = np.clip(printed, 0, 255).astype(np.uint8)
    return out


@pytest.fixture(scope="module")
def four_colour(kennard: Faces) -> Faces:
    """Kennard with its clubs printed green and its diamonds blue (a four-colour deck)."""
    colours = {"c": GREEN, "d": BLUE}
    return {card: (_recoloured(face, colours[card.code[1]]) if card.code[1] in colours
                   else face) for card, face in kennard.items()}


def _observed(rec: BoardRecognizer, image: Image, slot: int) -> Image:
    pose = rec.locate(image, slot)
    assert pose is not None
    patch = rec.card_patch(image, pose, STORED_PATCH_SIZE)
    return patch if abs(pose.angle_deg) < 90 else np.asarray(cv2.rotate(patch, cv2.ROTATE_180))


def _blurred_board(faces: Faces, cards: str, seed: int) -> tuple[BoardRecognizer, Image]:
    rig = make_rig(faces, seed, S.Level.HARD)
    geo = rig.camera.geometry
    placements = [S.Placement(Card.parse(c), i, geo.slot_centre_mm(i), 0.0)
                  for i, c in enumerate(cards.split())]
    pert = S.Perturbations(blur_sigma=1.5, motion_len=14.0, motion_angle_deg=35.0,
                           noise_sigma=9.0, jpeg_quality=50)
    scene = S.render(faces, placements, rig.camera, np.random.default_rng(seed), pert)
    return rig.recognizer, scene.image


def test_a_blurred_green_club_refutes_its_blue_diamond(four_colour: Faces) -> None:
    """Under a hard motion blur the club's ink is still green: the diamond is refuted, the club
    itself is not."""
    rec, image = _blurred_board(four_colour, "Tc 9c Ac", 5801)
    bank = rec.bank.patches
    for slot, text in enumerate(("Tc", "9c", "Ac")):
        club, diamond = Card.parse(text), Card.parse(text[0] + "d")
        seen = _observed(rec, image, slot)
        assert hue_refutes(seen, bank[diamond], bank[club]), text
        assert not hue_refutes(seen, bank[club], bank[diamond]), text


def test_a_two_colour_deck_is_never_refuted_between_twins(kennard: Faces) -> None:
    """Clubs and spades share black ink, hearts and diamonds red: either twin's pips explain
    the ink, so neither is refuted (the twin rules decide them, as before)."""
    rec, image = _blurred_board(kennard, "Tc 9h 4s 7d", 5802)
    bank = rec.bank.patches
    for slot, (text, twin) in enumerate((("Tc", "Ts"), ("9h", "9d"), ("4s", "4c"),
                                         ("7d", "7h"))):
        card, other = Card.parse(text), Card.parse(twin)
        seen = _observed(rec, image, slot)
        assert not hue_refutes(seen, bank[card], bank[other]), text
        assert not hue_refutes(seen, bank[other], bank[card]), text
        _, _, colour = ink_colours(seen, bank[card], bank[other])
        assert hue_residual(colour, ink_colours(seen, bank[card], bank[other])[0]) \
            <= HUE_MAX_RESIDUAL, text
