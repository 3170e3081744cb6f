"""Rendered board-camera scenes: card faces on felt under a perspective camera, with ground truth.

Rules this module keeps:

1. Everything random comes from the :class:`numpy.random.Generator` passed in: the same seed
   gives the same image and the same truth.
2. The camera is fixed for a table: :func:`make_camera` draws the pose, the felt and the markers
   once (the felt green by default, or blue, red or grey: the same random draws in another
   colour, so a seed gives the same scene whatever the felt); :func:`render` draws cards,
   shadows, a dealer's hand and the per-frame perturbations
   (lighting gradient, vignetting, glare, blur, motion blur, noise, JPEG) on top.
3. The truth of a slot is ``"occluded"`` when the hand covers at least
   :data:`OCCLUDED_FRACTION` of the card (or, for an empty slot, of the card-sized area at the
   slot centre); otherwise ``"card"`` or ``"empty"``.

The camera (:mod:`hardware.sim.scene_camera`) and the light (:mod:`hardware.sim.scene_light`) live
in their own modules; their public names are re-exported here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import cv2
import numpy as np

from hardware.camera.geometry import BoardGeometry
from hardware.sim.scene_camera import (
    FELTS,
    FRAME_SIZE,
    LEVELS,
    CameraSetup,
    Felt,
    FloatArray,
    FloatImage,
    Image,
    Level,
    LevelParams,
    composite,
    geometry_for_faces,
    make_camera,
    uniform,
)
from hardware.sim.scene_light import (
    Perturbations,
    apply_perturbations,
    card_shadow,
    hand_shadow,
    sample_perturbations,
)
from table_controller.engine.cards import FULL_DECK, Card

__all__ = [
    "FELTS", "FRAME_SIZE", "LEVELS", "OCCLUDED_FRACTION", "CameraSetup", "Felt", "FloatArray",
    "FloatImage", "Hand", "Image", "Level",
    "LevelParams", "Perturbations", "Placement", "Scene", "SlotStatus", "SlotTruth",
    "geometry_for_faces", "make_camera", "place_cards", "random_board", "random_hand", "render",
    "render_board", "sample_perturbations",
]

OCCLUDED_FRACTION = 0.001
SlotStatus = Literal["card", "empty", "occluded"]


@dataclass(frozen=True, slots=True)
class Placement:
    """One card on the felt: centre (world mm), rotation in degrees (180 = upside down)."""

    card: Card
    slot: int
    centre_mm: tuple[float, float]
    angle_deg: float


@dataclass(frozen=True, slots=True)
class Hand:
    """A dealer's hand (with forearm and sleeve) over the board, in world millimetres."""

    centre_mm: tuple[float, float]
    angle_deg: float
    mirrored: bool = False
    skin_bgr: tuple[float, float, float] = (130.0, 160.0, 205.0)
    sleeve_bgr: tuple[float, float, float] = (40.0, 30.0, 30.0)



@dataclass(frozen=True, slots=True)
class SlotTruth:
    """Ground truth of one slot: status, the card lying there (also when occluded), coverage."""

    status: SlotStatus
    card: Card | None
    covered: float = 0.0


@dataclass(frozen=True, eq=False)
class Scene:
    """A rendered frame and its ground truth."""

    image: Image
    truth: tuple[SlotTruth, ...]
    placements: tuple[Placement, ...]
    hand: Hand | None
    camera: CameraSetup
    perturbations: Perturbations = field(default_factory=Perturbations)



def place_cards(
    rng: np.random.Generator,
    board: Sequence[Card | None],
    level: Level = Level.MEDIUM,
    geometry: BoardGeometry | None = None,
) -> list[Placement]:
    """Place the board's cards in their slots with the level's placement errors and overlaps.

    ``board[i]`` is the card in slot ``i`` (None = empty). Each centre stays inside its slot.
    """
    geo = geometry or BoardGeometry()
    p = LEVELS[level]
    placements: list[Placement] = []
    for slot, card in enumerate(board):
        if card is None:
            continue
        sx, sy = geo.slot_centre_mm(slot)
        dx, dy = np.clip(rng.normal(0, p.shift_mm, 2), -3 * p.shift_mm, 3 * p.shift_mm)
        angle = rng.uniform(-p.rotation_deg, p.rotation_deg) + (180.0 if rng.random() < 0.5 else 0)
        placements.append(Placement(card, slot, (sx + float(dx), sy + float(dy)), float(angle)))
    for i in range(len(placements) - 1):
        left, right = placements[i], placements[i + 1]
        if right.slot != left.slot + 1 or rng.random() >= p.overlap_prob:
            continue
        gap = (
            geo.card_corners_mm(right.centre_mm, right.angle_deg)[:, 0].min()
            - geo.card_corners_mm(left.centre_mm, left.angle_deg)[:, 0].max()
        )
        move = gap + uniform(rng, p.overlap_mm)
        if rng.random() < 0.5:
            moved = replace(left, centre_mm=(left.centre_mm[0] + move, left.centre_mm[1]))
            if geo.slot_of(moved.centre_mm[0]) == moved.slot:
                placements[i] = moved
        else:
            x, y = right.centre_mm
            moved = replace(right, centre_mm=(x - move, y))
            if geo.slot_of(moved.centre_mm[0]) == moved.slot:
                placements[i + 1] = moved
    return placements


def random_board(rng: np.random.Generator, slots: int = 5) -> list[Card | None]:
    """Distinct random cards filling the first 0..5 slots left to right (mostly 3 to 5)."""
    count = int(rng.choice([0, 3, 4, 5, 5, 5, 5, 5]))
    order = rng.permutation(len(FULL_DECK))[:count]
    cards: list[Card | None] = [FULL_DECK[int(i)] for i in order]
    return cards + [None] * (slots - count)


def random_hand(rng: np.random.Generator, geometry: BoardGeometry | None = None) -> Hand:
    """Draw a dealer's hand over a random part of the board, arm towards the dealer (bottom)."""
    geo = geometry or BoardGeometry()
    x = rng.uniform(0, geo.board_mm[0])
    y = rng.uniform(-0.1, 1.3) * geo.board_mm[1]
    skin = (float(rng.uniform(80, 170)), float(rng.uniform(115, 190)), float(rng.uniform(160, 235)))
    grey = rng.uniform(15, 90)
    sleeve = (grey + rng.uniform(0, 30), grey * rng.uniform(0.6, 1.0), grey + rng.uniform(0, 30))
    return Hand(
        centre_mm=(float(x), float(y)), angle_deg=float(rng.uniform(-35, 35)),
        mirrored=bool(rng.random() < 0.5), skin_bgr=skin,
        sleeve_bgr=(float(sleeve[0]), float(sleeve[1]), float(sleeve[2])),
    )


def _capsule(a: tuple[float, float], b: tuple[float, float], width: float) -> FloatArray:
    ax, ay = a
    bx, by = b
    ang = np.arctan2(by - ay, bx - ax)
    r = width / 2
    t1 = np.linspace(ang + np.pi / 2, ang + 3 * np.pi / 2, 10)
    t2 = np.linspace(ang - np.pi / 2, ang + np.pi / 2, 10)
    cap_a = np.stack([ax + r * np.cos(t1), ay + r * np.sin(t1)], axis=1)
    cap_b = np.stack([bx + r * np.cos(t2), by + r * np.sin(t2)], axis=1)
    return np.concatenate([cap_a, cap_b])


def _hand_polygons(hand: Hand) -> tuple[list[FloatArray], list[FloatArray]]:
    """Skin and sleeve polygons of ``hand`` in world millimetres."""
    t = np.linspace(0, 2 * np.pi, 32, endpoint=False)
    skin = [np.stack([42 * np.cos(t), 50 * np.sin(t)], axis=1)]
    for fx, lean, length in ((-27, -8, 62), (-9, -3, 74), (9, 3, 76), (27, 8, 64)):
        a = np.deg2rad(lean)
        tip = (fx + length * np.sin(a), -40 - length * np.cos(a))
        skin.append(_capsule((fx, -30.0), tip, 17.0))
    skin.append(_capsule((30.0, 10.0), (70.0, -30.0), 21.0))
    skin.append(_capsule((0.0, 30.0), (0.0, 190.0), 72.0))
    sleeve = [_capsule((0.0, 180.0), (0.0, 900.0), 95.0)]
    ang = np.deg2rad(hand.angle_deg)
    rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
    flip = np.array([-1.0 if hand.mirrored else 1.0, 1.0])

    def place(poly: FloatArray) -> FloatArray:
        return np.asarray((poly * flip) @ rot.T + np.asarray(hand.centre_mm), dtype=np.float64)

    return [place(p) for p in skin], [place(p) for p in sleeve]


def _hand_mask(camera: CameraSetup, polys: list[FloatArray]) -> Image:
    w, h = camera.size
    mask = np.zeros((h, w), np.uint8)
    for poly in polys:
        pts = np.round(camera.project(poly) * 16).astype(np.int32)
        cv2.fillPoly(mask, [pts], 255, lineType=cv2.LINE_AA, shift=4)
    return mask


def render(
    faces: Mapping[Card, Image],
    placements: Sequence[Placement],
    camera: CameraSetup,
    rng: np.random.Generator,
    perturbations: Perturbations | None = None,
    hand: Hand | None = None,
) -> Scene:
    """Render one frame: cards (in order, later on top) with shadows, the hand, perturbations.

    :param faces: BGRA face images by card (``calibration.faces.load_face_folder``).
    :param rng: source of the sensor noise.
    """
    geo = camera.geometry
    pert = perturbations or Perturbations()
    img = camera.background.copy()
    w, h = camera.size
    sx, sy = camera.shadow_offset
    card_cover: dict[int, tuple[tuple[int, int, int, int], FloatImage]] = {}
    for pl in placements:
        face = faces[pl.card]
        fh, fw = face.shape[:2]
        src = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], dtype=np.float64)
        dst = camera.project(geo.card_corners_mm(pl.centre_mm, pl.angle_deg))
        card_shadow(img, dst, (sx, sy), pert.shadow, 0.6 * camera.px_per_mm)
        card_shadow(img, dst, (0.0, 0.0), 0.5, 0.25 * camera.px_per_mm, grow=0.4 * camera.px_per_mm)
        done = composite(img, np.ascontiguousarray(face[..., :3]), face[..., 3], src, dst)
        if done is not None:
            card_cover[pl.slot] = done
    hand_mask: Image | None = None
    if hand is not None:
        skin_polys, sleeve_polys = _hand_polygons(hand)
        skin = _hand_mask(camera, skin_polys)
        sleeve = _hand_mask(camera, sleeve_polys)
        hand_mask = np.maximum(skin, sleeve)
        hand_shadow(img, hand_mask, (4 * sx, 4 * sy), 4 * camera.px_per_mm)
        ys, xs = np.nonzero(hand_mask[::4, ::4])
        if ys.size:
            y0, y1 = max(0, 4 * int(ys.min()) - 8), min(h, 4 * int(ys.max()) + 12)
            x0, x1 = max(0, 4 * int(xs.min()) - 8), min(w, 4 * int(xs.max()) + 12)
            roi = img[y0:y1, x0:x1]
            for mask, colour in ((skin, hand.skin_bgr), (sleeve, hand.sleeve_bgr)):
                m = mask[y0:y1, x0:x1]
                a = m.astype(np.float32)[..., None] / 255
                shade = 0.85 + 0.15 * cv2.GaussianBlur(m, (0, 0), 6).astype(np.float32) / 255
                roi *= 1 - a
                roi += a * shade[..., None] * np.asarray(colour, np.float32)
    truth = _truth(placements, camera, card_cover, hand_mask)
    gloss = np.full((h, w), 0.3, np.float32)
    for (x0, y0, x1, y1), cover in card_cover.values():
        np.maximum(gloss[y0:y1, x0:x1], cover, out=gloss[y0:y1, x0:x1])
    if hand_mask is not None:
        gloss *= 1 - hand_mask.astype(np.float32) / 255
    image = apply_perturbations(img, pert, rng, gloss)
    return Scene(image, truth, tuple(placements), hand, camera, pert)


def _truth(
    placements: Sequence[Placement],
    camera: CameraSetup,
    card_cover: Mapping[int, tuple[tuple[int, int, int, int], FloatImage]],
    hand_mask: Image | None,
) -> tuple[SlotTruth, ...]:
    geo = camera.geometry
    by_slot = {pl.slot: pl for pl in placements}
    out: list[SlotTruth] = []
    for slot in range(geo.slots):
        pl = by_slot.get(slot)
        covered = 0.0
        if hand_mask is not None:
            if pl is not None and slot in card_cover:
                (x0, y0, x1, y1), cover = card_cover[slot]
                area = float(cover.sum())
                hm = hand_mask[y0:y1, x0:x1].astype(np.float32) / 255
                covered = float((hm * cover).sum()) / max(area, 1.0)
            else:
                quad = camera.project(geo.card_corners_mm(geo.slot_centre_mm(slot), 0.0))
                region = np.zeros(hand_mask.shape, np.uint8)
                cv2.fillPoly(region, [np.round(quad).astype(np.int32)], 255)
                area = float(np.count_nonzero(region))
                covered = float(np.count_nonzero(hand_mask[region > 0] > 127)) / max(area, 1.0)
        card = pl.card if pl is not None else None
        if covered >= OCCLUDED_FRACTION:
            out.append(SlotTruth("occluded", card, covered))
        else:
            out.append(SlotTruth("card" if card else "empty", card, covered))
    return tuple(out)


def render_board(
    faces: Mapping[Card, Image],
    board: Sequence[Card | None],
    rng: np.random.Generator,
    level: Level = Level.MEDIUM,
    camera: CameraSetup | None = None,
) -> Scene:
    """Render ``board`` at ``level``: random placement errors, perturbations and maybe a hand."""
    cam = camera or make_camera(rng, level)
    placements = place_cards(rng, board, level, cam.geometry)
    pert = sample_perturbations(rng, level, cam)
    hand = random_hand(rng, cam.geometry) if rng.random() < LEVELS[level].occlusion_prob else None
    return render(faces, placements, cam, rng, pert, hand)
