"""A dealer's hand touching a card's side, not over it: the card is read on its whole face."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from hardware.camera import recognizer as R
from hardware.camera.locator import CANON_MARGIN_MM, CANON_PX_PER_MM, CardPose
from hardware.camera.sides import beside_only
from hardware.sim import scene as S
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import Rig, make_rig


@pytest.fixture(scope="module", params=["kennard", "svg-cards"])
def rig(request: pytest.FixtureRequest, kennard: Faces, svg_cards: Faces) -> Rig:
    """A rig whose near-hand thresholds no read can meet: a card beside a hand is read only
    by the rule that the hand lies beside it."""
    out = make_rig(kennard if request.param == "kennard" else svg_cards, 490, S.Level.MEDIUM)
    out.recognizer.params = replace(out.recognizer.params, near_hand_min_score=1.01)
    return out


def _hand(rig: Rig, x: float, y: float, rng: np.random.Generator) -> S.Hand:
    base = S.random_hand(rng, rig.camera.geometry)
    return S.Hand((x, y), 0.0, False, base.skin_bgr, base.sleeve_bgr)


def _beside(rig: Rig, image: S.Image, placement: S.Placement) -> bool:
    """:func:`beside_only` on the card's true pose, with the non-card pixels near it."""
    rec = rig.recognizer
    fg = rec.foreground(rec.warp_board(image))
    view = rec._view
    assert view is not None
    centre = ((placement.centre_mm[0] + CANON_MARGIN_MM) * CANON_PX_PER_MM,
              (placement.centre_mm[1] + CANON_MARGIN_MM) * CANON_PX_PER_MM)
    card = CardPose(centre, placement.angle_deg, placement.slot)
    near = np.zeros_like(fg)
    cv2.fillPoly(near, [np.round(rec._quad(card, grow=rec.params.band_px)).astype(np.int32)], 255)
    cv2.fillPoly(near, [np.round(rec._quad(card, grow=3.0)).astype(np.int32)], 0)
    return beside_only(view, fg, fg & near, centre, placement.angle_deg, rec.card_px)


def test_a_hand_touching_a_cards_side_leaves_its_face_to_be_read(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hand's palm ends 1.5 mm from the card's right edge: beside it, the card is read."""
    geo = rig.camera.geometry
    rng = np.random.default_rng(491)
    read = 0
    for text in ("5c", "Qs", "8h", "3d"):
        x, y = geo.slot_centre_mm(2)
        placement = S.Placement(Card.parse(text), 2, (x, y), 0.0)
        # The palm reaches 42 mm left of the hand's centre.
        hand = _hand(rig, x + geo.card_mm[0] / 2 + 43.5, y + 10.0, rng)
        scene = S.render(rig.faces, [placement], rig.camera, rng,
                         S.Perturbations(noise_sigma=6.0, jpeg_quality=80, blur_sigma=2.0,
                                         motion_len=8.0), hand)
        assert _beside(rig, scene.image, placement)
        slot = rig.recognizer.read(scene.image).slots[2]
        assert slot.status == "card" and slot.card == placement.card, slot
        read += 1
        # Without the rule the hand makes the slot occluded (the near-hand thresholds unmet).
        with monkeypatch.context() as m:
            m.setattr(R, "beside_only", lambda *a, **k: False)
            rig.recognizer._board, rig.recognizer._last = None, {}
            assert rig.recognizer.read(scene.image).slots[2].status == "occluded"
    assert read == 4, read


def test_a_hand_over_a_cards_side_is_not_beside_it(rig: Rig) -> None:
    """The palm over the right part of the card: no paper at that edge, the strict rule holds."""
    geo = rig.camera.geometry
    rng = np.random.default_rng(492)
    for text in ("7h", "Jc", "Td"):
        x, y = geo.slot_centre_mm(2)
        placement = S.Placement(Card.parse(text), 2, (x, y), 0.0)
        hand = _hand(rig, x + 0.5 * geo.card_mm[0], y + 45.0, rng)
        scene = S.render(rig.faces, [placement], rig.camera, rng, S.Perturbations(noise_sigma=3),
                         hand)
        assert not _beside(rig, scene.image, placement)
        slot = rig.recognizer.read(scene.image).slots[2]
        assert slot.status != "card", slot
