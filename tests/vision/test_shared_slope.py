"""A card's angle from its four edges together, the ends along the felt's print left out."""

from __future__ import annotations

import numpy as np

from calibration.camera import calibrate_camera
from hardware.camera.edges import neighbours_side, shared_slope
from hardware.camera.locator import CANON_MARGIN_MM, CANON_PX_PER_MM
from hardware.sim import scene as S
from hardware.sim.situations import printed_felt
from table_controller.engine.cards import Card

from .conftest import Faces


def test_the_shared_slope_weighs_the_long_sides_and_leaves_out_the_print() -> None:
    """Top and bottom span 30 px, the sides 50; the top's last third runs along a square line."""
    rng = np.random.default_rng(3)
    slope = 0.1
    cols = np.arange(100.0, 130.0)
    rows = np.arange(40.0, 90.0)
    top = slope * cols - 10 + rng.normal(0, 0.4, cols.size)
    top_clear = cols < 120
    top[~top_clear] = top[19]  # along a printed line square to the board: the run ends flat
    bottom = slope * cols + 90 + rng.normal(0, 0.4, cols.size)
    left = -slope * rows + 95 + rng.normal(0, 0.4, rows.size)
    right = -slope * rows + 160 + rng.normal(0, 0.4, rows.size)
    everywhere = np.ones(rows.size, np.bool_)
    edges = [(cols, top, (slope, -10.0), 1.0, top_clear),
             (cols, bottom, (slope, 90.0), 1.0, np.ones(cols.size, np.bool_)),
             (rows, left, (-slope, 95.0), -1.0, everywhere),
             (rows, right, (-slope, 160.0), -1.0, everywhere)]
    found = shared_slope(edges)
    assert found is not None
    a, intercepts = found
    assert abs(a - slope) < 0.005
    assert np.allclose(intercepts, [-10.0, 90.0, 95.0, 160.0], atol=0.5)
    # Taken as clear, the top's flat ends pull the angle towards square.
    biased = shared_slope([(cols, top, (slope, -10.0), 1.0, np.ones(cols.size, np.bool_))])
    assert biased is not None and biased[0] < slope - 0.01
    # An edge with fewer than 8 clear ends gives no slope; none at all: None.
    assert shared_slope([(cols, top, (slope, -10.0), 1.0, np.zeros(cols.size, np.bool_))]) is None


def test_turned_cards_across_the_printed_slot_boxes_are_located_at_their_angle(
    kennard: Faces,
) -> None:
    """Cards turned 5-8 degrees lie across their printed slot box's lines (hard cameras).

    Fitted on the top and bottom edges' ends alone (half the card's width, some of them on the
    print), these 30 cards' angles were 0.54 degrees off on average and up to 2.0; on the four
    edges' clear ends together 0.23 and 1.16.
    """
    geo_cards = [Card.parse(c) for c in ("As", "7h", "Td", "4c", "Qs")]
    offs: list[float] = []
    for seed in (4610, 4611, 4612):
        rng = np.random.default_rng(seed)
        cam = printed_felt(S.make_camera(rng, S.Level.HARD, S.geometry_for_faces(kennard)), rng)
        empty = S.render(kennard, [], cam, rng,
                         S.Perturbations(noise_sigma=2.0, jpeg_quality=90))
        recognizer = calibrate_camera(empty.image, kennard, design="test").recognizer()
        geo = cam.geometry
        for turn in (1.0, -1.0):
            placements = []
            for slot, card in enumerate(geo_cards):
                sx, sy = geo.slot_centre_mm(slot)
                angle = turn * (5.0 + slot * 0.75) * (-1) ** slot + (180.0 if slot % 2 else 0.0)
                placements.append(S.Placement(card, slot, (sx + turn * 1.5, sy - 2.0), angle))
            scene = S.render(kennard, placements, cam, rng,
                             S.sample_perturbations(rng, S.Level.HARD, cam))
            fg = recognizer.foreground(recognizer.warp_board(scene.image))
            for p in placements:
                pose, _ = recognizer._find_card(fg, p.slot)
                assert pose is not None, p
                offs.append(abs((pose.angle_deg - p.angle_deg + 90.0) % 180.0 - 90.0))
                x = (p.centre_mm[0] + CANON_MARGIN_MM) * CANON_PX_PER_MM
                y = (p.centre_mm[1] + CANON_MARGIN_MM) * CANON_PX_PER_MM
                assert abs(pose.centre[0] - x) <= 1.5 and abs(pose.centre[1] - y) <= 1.5, (p, pose)
    assert float(np.mean(offs)) <= 0.35, offs
    assert max(offs) <= 1.25, offs


def test_a_merged_neighbours_far_side_is_left_out_of_the_cards_angle() -> None:
    """Two side fits 150 px apart at a card width of 68: the one placing the centre in the slot."""

    def inside(x: float) -> bool:
        return 100.0 <= x < 170.0

    left, right = (0.05, 100.0), (0.12, 250.0)
    assert neighbours_side(left, right, -0.05, 0.0, 68.0, 0.08, inside) == 1
    assert neighbours_side(left, right, -0.05, 0.0, 68.0, 0.08, lambda x: x > 200.0) == -1
    # Both or neither in the slot: not decided here; a card's own width apart: no neighbour.
    assert neighbours_side(left, right, -0.05, 0.0, 68.0, 0.08, lambda x: True) == 0
    assert neighbours_side(left, (0.05, 168.5), -0.05, 0.0, 68.0, 0.08, inside) == 0


def test_an_overlapping_pair_at_two_angles_is_located_each_at_its_own(kennard: Faces) -> None:
    """Each left card lies 3-4 degrees off, the right one 5.5-6.5 degrees, over it by 3-7 mm.

    Fitted on one slope with the merged neighbour's far side, every card of these pairs was
    located 1.0-1.1 degrees off, towards its neighbour's angle; since 0.17 at most (benchmark
    run 74).
    """
    offs: list[float] = []
    for seed in (7410, 7411, 7412):
        rng = np.random.default_rng(seed)
        cam = S.make_camera(rng, S.Level.MEDIUM, S.geometry_for_faces(kennard))
        empty = S.render(kennard, [], cam, rng, S.Perturbations(noise_sigma=2.0, jpeg_quality=90))
        recognizer = calibrate_camera(empty.image, kennard, design="test").recognizer()
        geo = cam.geometry
        cw = geo.card_mm[0]
        placements = []
        for pair, (a, b) in enumerate(((Card.parse("As"), Card.parse("7h")),
                                       (Card.parse("Td"), Card.parse("4c")))):
            slot = 2 * pair
            sx, sy = geo.slot_centre_mm(slot)
            turn = -1.0 if seed % 2 else 1.0
            first = S.Placement(a, slot, (sx, sy), turn * (3.0 + pair))
            over = 3.0 + 2.0 * pair + (seed - 7410)
            second = S.Placement(b, slot + 1, (sx + cw - over, sy + 3.0), turn * (5.5 + pair))
            assert geo.slot_of(second.centre_mm[0]) == slot + 1
            placements += [first, second]
        scene = S.render(kennard, placements, cam, rng, S.Perturbations(noise_sigma=2.0))
        fg = recognizer.foreground(recognizer.warp_board(scene.image))
        for p in placements:
            pose, _ = recognizer._find_card(fg, p.slot)
            assert pose is not None, p
            offs.append(abs((pose.angle_deg - p.angle_deg + 90.0) % 180.0 - 90.0))
    assert max(offs) <= 0.6, offs
