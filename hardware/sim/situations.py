"""Situations a real board shows, rendered on top of :mod:`hardware.sim.scene`.

Rules this module keeps:

1. Each situation changes one thing against :func:`hardware.sim.scene.render_board` at the same
   level: how the cards lie, a hand placing a card, the light, a reflection, or the felt's
   print. Everything random comes from the generator passed in.
2. The truth is the renderer's: a card the hand touches is ``"occluded"``.
3. A printed felt is part of the fixed camera (:func:`printed_felt`): the calibration image
   shows it too, as an installer's would.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from enum import StrEnum

import cv2
import numpy as np

from hardware.sim import scene as S
from table_controller.engine.cards import Card


class Situation(StrEnum):
    """One thing a real board shows that the plain scenes do not."""

    PLAIN = "plain"
    UPSIDE_DOWN = "upside-down"  # every card turned 180 degrees
    ASKEW = "askew"  # every card rotated 10-20 degrees
    OVERLAP = "overlap"  # every neighbouring pair overlapping by 2-8 mm
    PUSHED = "pushed"  # one card pushed 10-18 mm across and 10-25 mm along, part-way out
    PLACING = "placing"  # the dealer's hand half over a card while it is being placed
    DIM = "dim"  # the table light 30% darker than at calibration
    BRIGHT = "bright"  # the table light 30% brighter than at calibration
    GLOSS = "gloss"  # a glossy reflection streak across one card
    PRINTED_FELT = "printed-felt"  # printed slot boxes, a line and a logo under the board area


def printed_felt(camera: S.CameraSetup, rng: np.random.Generator) -> S.CameraSetup:
    """Return the same camera over a felt printed with slot boxes, a betting line and a logo."""
    geo = camera.geometry
    bg = camera.background.copy()
    ink = np.array([rng.uniform(150, 200), rng.uniform(190, 230), rng.uniform(200, 240)],
                   np.float32) if rng.random() < 0.5 else np.array([40.0, 190.0, 220.0],
                                                                    np.float32)
    h, w = bg.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    thick = max(2, round(1.5 * camera.px_per_mm))

    def line(points_mm: np.ndarray, closed: bool) -> None:
        pts = np.round(camera.project(points_mm) * 16).astype(np.int32)
        cv2.polylines(mask, [pts], closed, 255, thick, cv2.LINE_AA, shift=4)

    bw, bh = geo.board_mm
    for slot in range(geo.slots):
        cx, cy = geo.slot_centre_mm(slot)
        cw, ch = geo.card_mm
        box = np.array([[cx - cw / 2 - 4, cy - ch / 2 - 4], [cx + cw / 2 + 4, cy - ch / 2 - 4],
                        [cx + cw / 2 + 4, cy + ch / 2 + 4], [cx - cw / 2 - 4, cy + ch / 2 + 4]])
        line(box, True)
    xs = np.linspace(0, bw, 40)
    line(np.stack([xs, bh + 8 + 4 * np.sin(xs / 25)], axis=1), False)
    t = np.linspace(0, 2 * np.pi, 60)
    line(np.stack([bw / 2 + 60 * np.cos(t), bh / 2 + 25 * np.sin(t)], axis=1), True)
    a = mask.astype(np.float32)[..., None] / 255 * 0.85
    bg *= 1 - a
    bg += a * ink * (bg.mean() / 80.0 if bg.mean() > 80 else 1.0)
    return replace(camera, background=bg)


def _placements(rng: np.random.Generator, board: Sequence[Card | None], level: S.Level,
                camera: S.CameraSetup, situation: Situation) -> list[S.Placement]:
    geo = camera.geometry
    placements = S.place_cards(rng, board, level, geo)
    if situation is Situation.UPSIDE_DOWN:
        placements = [replace(p, angle_deg=p.angle_deg if p.angle_deg > 90 else
                              p.angle_deg + 180.0) for p in placements]
    elif situation is Situation.ASKEW:
        placements = [replace(p, angle_deg=p.angle_deg + float(rng.choice([-1, 1]))
                              * float(rng.uniform(10, 20))) for p in placements]
    elif situation is Situation.OVERLAP:
        for i in range(len(placements) - 1):
            left, right = placements[i], placements[i + 1]
            if right.slot != left.slot + 1:
                continue
            gap = (geo.card_corners_mm(right.centre_mm, right.angle_deg)[:, 0].min()
                   - geo.card_corners_mm(left.centre_mm, left.angle_deg)[:, 0].max())
            move = gap + float(rng.uniform(2, 8))
            x, y = right.centre_mm
            moved = replace(right, centre_mm=(x - move, y))
            if geo.slot_of(moved.centre_mm[0]) == moved.slot:
                placements[i + 1] = moved
    elif situation is Situation.PUSHED and placements:
        i = int(rng.integers(len(placements)))
        p = placements[i]
        dx = float(rng.choice([-1, 1]) * rng.uniform(10, 18))
        dy = float(rng.choice([-1, 1]) * rng.uniform(10, 25))
        x, y = p.centre_mm
        if geo.slot_of(x + dx) != p.slot:
            dx = -dx
        placements[i] = replace(p, centre_mm=(x + dx, y + dy))
    return placements


def render_situation(
    faces: Mapping[Card, S.Image],
    board: Sequence[Card | None],
    rng: np.random.Generator,
    level: S.Level,
    camera: S.CameraSetup,
    situation: Situation,
) -> S.Scene:
    """Render ``board`` at ``level`` in ``situation`` (a printed felt: pass its camera).

    The hand is drawn as in :func:`hardware.sim.scene.render_board` except for
    :attr:`Situation.PLACING`, where it always lies half over one card.
    """
    placements = _placements(rng, board, level, camera, situation)
    pert = S.sample_perturbations(rng, level, camera)
    hand = (S.random_hand(rng, camera.geometry)
            if rng.random() < S.LEVELS[level].occlusion_prob else None)
    if situation is Situation.PLACING and placements:
        p = placements[int(rng.integers(len(placements)))]
        x, y = p.centre_mm
        base = S.random_hand(rng, camera.geometry)
        hand = replace(base, centre_mm=(x + float(rng.uniform(-15, 15)),
                                        y + float(rng.uniform(80, 100))),
                       angle_deg=float(rng.uniform(-15, 15)))
    elif situation in (Situation.DIM, Situation.BRIGHT):
        pert = replace(pert, gain=pert.gain * (0.7 if situation is Situation.DIM else 1.3))
    elif situation is Situation.GLOSS and placements:
        p = placements[int(rng.integers(len(placements)))]
        corners = camera.project(camera.geometry.card_corners_mm(p.centre_mm, p.angle_deg))
        u0, u1 = rng.uniform(0, 1, 2)
        start = corners[0] + u0 * (corners[3] - corners[0])
        end = corners[1] + u1 * (corners[2] - corners[1])
        sigma = float(rng.uniform(2.5, 5.0)) * camera.px_per_mm
        peak = float(rng.uniform(0.4, 0.75))
        streak = tuple((float(x), float(y), sigma, peak)
                       for x, y in np.linspace(start, end, 14))
        pert = replace(pert, glare=pert.glare + streak)
    return S.render(faces, placements, camera, rng, pert, hand)
