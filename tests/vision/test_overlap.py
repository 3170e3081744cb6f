"""Overlapping cards: the middle card placed by its shadow, a neighbour's print no evidence."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.camera.locator import CANON_MARGIN_MM, CANON_PX_PER_MM, CardPose
from hardware.camera.recognizer import SLACK_LOCATED_PX
from hardware.camera.sides import shadow_offset
from hardware.camera.suits import ink_check
from hardware.camera.turns import seen_square
from hardware.sim import scene as S
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import Rig, Tally, make_rig, score


@pytest.fixture(scope="module")
def rig(kennard: Faces) -> Rig:
    return make_rig(kennard, 170, S.Level.MEDIUM)


@pytest.mark.parametrize(("text", "over"), [("Kd 7c 7s", 4.0), ("2s 9h 6d", 5.0),
                                            ("Qh 3c 8d", 6.0)])
def test_a_card_between_neighbours_is_placed_by_the_shadow_of_its_side_on_one(
    rig: Rig, text: str, over: float
) -> None:
    """Slot 2 lies on slot 1 and under slot 3 (``over`` mm each): both its sides run on into
    neighbours, so the mask leaves it slack along its width; the shadow its left edge casts on
    slot 1's card places it within a pixel."""
    geo = rig.camera.geometry
    cw = geo.card_mm[0]
    x2, y2 = geo.slot_centre_mm(2)
    a, b, c = (Card.parse(t) for t in text.split())
    placements = [S.Placement(a, 1, (x2 - cw + over, y2 + 1.0), -0.5),
                  S.Placement(b, 2, (x2, y2), 0.5),
                  S.Placement(c, 3, (x2 + cw - over, y2 - 1.0), 1.0)]
    scene = S.render(rig.faces, placements, rig.camera, np.random.default_rng(178),
                     S.Perturbations(noise_sigma=3))
    rec = rig.recognizer
    tally = Tally()
    score(scene.truth, rec.read(scene.image), tally)
    assert tally.wrong == 0 and tally.correct == tally.cards == 3, tally
    pose = rec._poses[2]
    assert pose is not None and pose.slack >= 2.0, pose
    grey = np.asarray(cv2.blur(cv2.cvtColor(rec.warp_board(scene.image), cv2.COLOR_BGR2GRAY),
                               (3, 3)), np.uint8)
    off = shadow_offset(grey, pose.centre, pose.angle_deg, rec.card_px, pose.slack)
    truth = (x2 + CANON_MARGIN_MM) * CANON_PX_PER_MM - pose.centre[0]
    assert off is not None and abs(off - truth) <= 1.0, (off, truth)


def test_no_shadow_places_a_card_that_lies_on_felt_alone(rig: Rig) -> None:
    """Felt either side (no neighbour to cast a shadow on): no offset."""
    geo = rig.camera.geometry
    x2, y2 = geo.slot_centre_mm(2)
    scene = S.render(rig.faces, [S.Placement(Card.parse("9c"), 2, (x2, y2), 0.0)], rig.camera,
                     np.random.default_rng(179), S.Perturbations(noise_sigma=3))
    rec = rig.recognizer
    grey = np.asarray(cv2.blur(cv2.cvtColor(rec.warp_board(scene.image), cv2.COLOR_BGR2GRAY),
                               (3, 3)), np.uint8)
    centre = ((x2 + CANON_MARGIN_MM) * CANON_PX_PER_MM, (y2 + CANON_MARGIN_MM) * CANON_PX_PER_MM)
    assert shadow_offset(grey, centre, 0.0, rec.card_px, 5.0) is None


@pytest.mark.parametrize(("read", "rival"), [("8d", "7d"), ("8s", "7s"), ("3h", "2h")])
def test_ink_where_a_neighbour_lies_is_no_evidence(rig: Rig, read: str, rival: str) -> None:
    """A 7 whose bottom-right corner shows the 8's index (a neighbour's print there): the 8's
    own ink is found, unless that corner is where a neighbour lies (``ignore``)."""
    bank = rig.recognizer.bank
    fb, fr = bank.luminance(Card.parse(read)), bank.luminance(Card.parse(rival))
    h, w = fr.shape
    ob = fr.copy()
    ob[int(0.75 * h):, int(0.8 * w):] = fb[int(0.75 * h):, int(0.8 * w):]
    assert ink_check(ob, fb, fr).own >= 0.7
    ignore = np.zeros((h, w), np.uint8)
    ignore[:, int(0.85 * w):] = 1
    assert ink_check(ob, fb, fr, ignore).own < 0.0
    assert ink_check(fr.copy(), fb, fr, ignore).own < 0.0


def test_of_two_turned_poses_the_one_seen_square_from_its_own_angle_is_kept() -> None:
    """The card lies at 7.8 degrees: seen from 7.8 it is found again; from 5.5, at 7.8."""
    right = CardPose((150.9, 94.6), 8.1, 1)
    wrong = CardPose((149.6, 94.2), 5.5, 1)

    def seek(turn: float) -> CardPose | None:
        # What a view turned by ``turn`` finds: the card's own pose, within 2 degrees of it.
        return CardPose((150.5, 94.4), 7.8, 1) if abs(turn - 7.8) <= 4.0 else None

    assert seen_square([wrong, right], seek) is right
    assert seen_square([right, wrong], lambda turn: right) is right
    assert seen_square([right, CardPose((150.0, 94.0), 7.0, 1)], lambda turn: right) is None
    assert seen_square([wrong], lambda turn: None) is None


@pytest.mark.parametrize("over", [0.0, 0.3])
def test_a_card_barely_between_touching_neighbours_is_read(rig: Rig, over: float) -> None:
    """Neighbours touching slot 2 (``over`` mm): its slack is under 2.5 px, within the fits' own
    error, and its best slide is read as any located card."""
    geo = rig.camera.geometry
    cw = geo.card_mm[0]
    x2, y2 = geo.slot_centre_mm(2)
    a, b, c = (Card.parse(t) for t in ("Kd", "7c", "7s"))
    placements = [S.Placement(a, 1, (x2 - cw + over, y2 + 1.0), 0.0),
                  S.Placement(b, 2, (x2, y2), 0.0),
                  S.Placement(c, 3, (x2 + cw - over, y2 - 1.0), 0.0)]
    scene = S.render(rig.faces, placements, rig.camera, np.random.default_rng(178),
                     S.Perturbations(noise_sigma=3))
    tally = Tally()
    score(scene.truth, rig.recognizer.read(scene.image), tally)
    pose = rig.recognizer._poses[2]
    assert pose is not None and 0.0 < pose.slack <= SLACK_LOCATED_PX, pose
    assert tally.wrong == 0 and tally.correct == tally.cards == 3, tally
