"""Situations a real board shows (hardware.sim.situations): rendered as described, and read."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.camera import calibrate_camera
from hardware.sim import scene as S
from hardware.sim.situations import Situation, printed_felt, render_situation
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import Tally, board, make_rig, score


def test_situations_render_what_they_say(kennard: Faces) -> None:
    rig = make_rig(kennard, seed=41, level=S.Level.MEDIUM)
    cards = board("Ah Kd 7c 2s Td")
    rng = np.random.default_rng(4100)
    up = render_situation(kennard, cards, rng, S.Level.MEDIUM, rig.camera, Situation.UPSIDE_DOWN)
    assert all(abs(p.angle_deg - 180) <= 5 for p in up.placements)
    askew = render_situation(kennard, cards, rng, S.Level.MEDIUM, rig.camera, Situation.ASKEW)
    assert all(abs((p.angle_deg + 90) % 180 - 90) >= 5 for p in askew.placements)
    placing = render_situation(kennard, cards, rng, S.Level.MEDIUM, rig.camera,
                               Situation.PLACING)
    assert placing.hand is not None
    assert any(t.status == "occluded" and t.covered >= 0.05 for t in placing.truth)
    dim = render_situation(kennard, cards, np.random.default_rng(7), S.Level.MEDIUM, rig.camera,
                           Situation.DIM)
    plain = S.render(kennard, list(dim.placements), rig.camera, np.random.default_rng(7))
    assert dim.perturbations.gain < 0.8 * 1.08
    assert float(dim.image.mean()) < float(plain.image.mean())
    printed = printed_felt(rig.camera, np.random.default_rng(1))
    assert not np.array_equal(printed.background, rig.camera.background)


@pytest.mark.parametrize("situation", [Situation.UPSIDE_DOWN, Situation.ASKEW, Situation.DIM,
                                       Situation.BRIGHT, Situation.GLOSS, Situation.PLACING,
                                       Situation.PUSHED, Situation.OVERLAP])
def test_situations_are_read_without_a_wrong_card(kennard: Faces, situation: Situation) -> None:
    rig = make_rig(kennard, seed=43, level=S.Level.MEDIUM)
    rng = np.random.default_rng(4300)
    tally = Tally()
    for _ in range(3):
        cards: list[Card | None] = list(S.random_board(rng))
        scene = render_situation(kennard, cards, rng, S.Level.MEDIUM, rig.camera, situation)
        score(scene.truth, rig.recognizer.read(scene.image), tally)
    assert tally.wrong == 0, tally


def test_printed_felt_is_felt_and_cards_over_it_are_read(kennard: Faces) -> None:
    """Slot boxes, a line and a logo printed under the board: told apart against the empty board.

    Before the calibrated empty board was kept, each printed slot box filled into one
    non-felt rectangle larger than a card, and most cards were refused.
    """
    rng = np.random.default_rng(4500)
    cam = printed_felt(S.make_camera(rng, S.Level.MEDIUM, S.geometry_for_faces(kennard)), rng)
    empty = S.render(kennard, [], cam, rng, S.Perturbations(noise_sigma=2.0, jpeg_quality=90))
    recognizer = calibrate_camera(empty.image, kennard, design="test").recognizer()
    assert recognizer.printed is not None
    # The empty printed board is felt: every slot reads empty.
    again = S.render(kennard, [], cam, rng, S.sample_perturbations(rng, S.Level.MEDIUM, cam))
    assert [s.status for s in recognizer.read(again.image).slots] == ["empty"] * 5
    tally = Tally()
    for _ in range(4):
        scene = render_situation(kennard, list(S.random_board(rng)), rng, S.Level.MEDIUM, cam,
                                 Situation.PRINTED_FELT)
        score(scene.truth, recognizer.read(scene.image), tally)
    assert tally.wrong == 0, tally
    assert tally.correct >= 0.85 * tally.cards, tally
