"""Turned tries not made beside and under a dealer's hand (:func:`.turns.blocked_turns`)."""

from __future__ import annotations

import numpy as np
import pytest

from hardware.camera.locator import TURN_BAND, TURNS_DEG
from hardware.camera.turns import blocked_turns
from hardware.sim import scene as S
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import Rig, make_rig


def _mask(h: int = 192, w: int = 400) -> np.ndarray:
    """A card-sized block (76 x 106 px) in the middle of an empty mask."""
    fg = np.zeros((h, w), np.uint8)
    fg[43:149, 162:238] = 255
    return fg


def test_a_column_running_into_the_top_blocks_both_turns() -> None:
    fg = _mask()
    fg[:100, 140:260] = 255  # a forearm from beyond the view's top, over the card's middle
    assert blocked_turns(fg, (200.0, 96.0), 8.0, TURNS_DEG) == frozenset(TURNS_DEG)


def test_a_card_alone_blocks_no_turn() -> None:
    assert blocked_turns(_mask(), (200.0, 96.0), 8.0, TURNS_DEG) == frozenset()


def test_a_hand_ending_inside_the_view_blocks_nothing() -> None:
    """A hand whose top lies inside the view (20 px down) leaves the run an edge: tried."""
    fg = _mask()
    fg[20:100, 140:260] = 255
    assert blocked_turns(fg, (200.0, 96.0), 8.0, TURNS_DEG) == frozenset()


def test_a_column_running_off_the_band_blocks_nothing() -> None:
    """A forearm beside the card's middle columns (past the band) leaves the turns to be tried."""
    fg = _mask()
    fg[:100, 300:400] = 255
    assert blocked_turns(fg, (200.0, 96.0), 8.0, TURNS_DEG) == frozenset()


@pytest.fixture(scope="module")
def rig(kennard: Faces) -> Rig:
    return make_rig(kennard, 610, S.Level.MEDIUM)


def test_a_blocked_turn_finds_nothing_when_tried(rig: Rig) -> None:
    """Hands over and beside cards: every turn blocked finds no pose when tried all the same."""
    rng = np.random.default_rng(611)
    rec = rig.recognizer
    geo = rig.camera.geometry
    cw, ch = rec.card_px
    blocked_n = tried = 0
    for n in range(12):
        slot = n % geo.slots
        placements = []
        for s in range(geo.slots):
            x, y = geo.slot_centre_mm(s)
            card = Card.parse(("Ah", "Qd", "7c", "Ts", "3h")[s])
            placements.append(S.Placement(card, s, (x, y), float(rng.uniform(-18, 18))))
        base = S.random_hand(rng, geo)
        x, y = geo.slot_centre_mm(slot)
        hand = S.Hand((x + float(rng.uniform(-20, 20)), y + float(rng.uniform(40, 90))), 0.0,
                      base.mirrored, base.skin_bgr, base.sleeve_bgr)
        scene = S.render(rig.faces, placements, rig.camera, rng, S.Perturbations(noise_sigma=3),
                         hand)
        fg = rec.foreground(rec.warp_board(scene.image))
        for s in range(geo.slots):
            x0 = rec.canon_x(s * geo.slot_width_mm)
            x1 = rec.canon_x((s + 1) * geo.slot_width_mm)
            ys, xs = np.nonzero(fg[:, int(x0):int(np.ceil(x1))])
            if xs.size < rec.params.empty_fraction * cw * ch:
                continue
            cx, cy = float(xs.mean()) + int(x0), float(ys.mean())
            for turn in blocked_turns(fg, (cx, cy), TURN_BAND * cw, TURNS_DEG):
                blocked_n += 1
                assert rec._pose(fg, s, cx, cy, x0, x1, None, turn) is None, (n, s, turn)
            for turn in TURNS_DEG:
                tried += rec._pose(fg, s, cx, cy, x0, x1, None, turn) is not None
    assert blocked_n >= 6, blocked_n
    assert tried > 0, tried
