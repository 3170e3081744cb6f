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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Literal

import cv2
import numpy as np
import numpy.typing as npt

from hardware.camera.geometry import BoardGeometry, card_mm_for_aspect, face_aspect
from table_controller.engine.cards import FULL_DECK, Card
from table_controller.errors import ConfigError

Image = npt.NDArray[np.uint8]
FloatImage = npt.NDArray[np.float32]
FloatArray = npt.NDArray[np.float64]

FRAME_SIZE = (1920, 1080)
OCCLUDED_FRACTION = 0.001
SlotStatus = Literal["card", "empty", "occluded"]
#: Felt colours :func:`make_camera` can draw (grey is not a felt the camera accepts).
Felt = Literal["green", "blue", "red", "grey"]
FELTS: tuple[Felt, ...] = ("green", "blue", "red", "grey")


class Level(StrEnum):
    """Difficulty of a scene."""

    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


@dataclass(frozen=True, slots=True)
class LevelParams:
    """Ranges the perturbations of one level are drawn from."""

    rotation_deg: float
    shift_mm: float
    blur_sigma: tuple[float, float]
    motion_prob: float
    motion_len: tuple[float, float]
    noise_sigma: tuple[float, float]
    jpeg_quality: tuple[int, int]
    gradient: tuple[float, float]
    vignette: tuple[float, float]
    glare_count: tuple[int, int]
    glare_peak: tuple[float, float]
    occlusion_prob: float
    overlap_prob: float
    overlap_mm: tuple[float, float]
    shadow: tuple[float, float]
    keystone: tuple[float, float]
    roll_deg: float
    board_width_px: tuple[float, float]


LEVELS: dict[Level, LevelParams] = {
    Level.EASY: LevelParams(
        rotation_deg=2.0, shift_mm=1.0, blur_sigma=(0.0, 0.8), motion_prob=0.0,
        motion_len=(0, 0), noise_sigma=(1.0, 3.0), jpeg_quality=(85, 95), gradient=(0.0, 0.15),
        vignette=(0.0, 0.15), glare_count=(0, 1), glare_peak=(0.1, 0.3), occlusion_prob=0.0,
        overlap_prob=0.0, overlap_mm=(0, 0), shadow=(0.2, 0.35), keystone=(0.95, 1.0),
        roll_deg=1.0, board_width_px=(1050, 1300),
    ),
    Level.MEDIUM: LevelParams(
        rotation_deg=5.0, shift_mm=2.5, blur_sigma=(0.5, 1.8), motion_prob=0.3,
        motion_len=(3, 9), noise_sigma=(3.0, 7.0), jpeg_quality=(55, 90), gradient=(0.1, 0.3),
        vignette=(0.1, 0.3), glare_count=(0, 2), glare_peak=(0.2, 0.5), occlusion_prob=0.15,
        overlap_prob=0.08, overlap_mm=(1.0, 4.0), shadow=(0.25, 0.45), keystone=(0.88, 1.0),
        roll_deg=3.0, board_width_px=(1000, 1300),
    ),
    Level.HARD: LevelParams(
        rotation_deg=9.0, shift_mm=4.0, blur_sigma=(1.0, 3.0), motion_prob=0.5,
        motion_len=(5, 15), noise_sigma=(6.0, 12.0), jpeg_quality=(30, 70), gradient=(0.2, 0.45),
        vignette=(0.2, 0.4), glare_count=(1, 3), glare_peak=(0.3, 0.7), occlusion_prob=0.3,
        overlap_prob=0.15, overlap_mm=(1.0, 6.0), shadow=(0.3, 0.55), keystone=(0.8, 1.0),
        roll_deg=5.0, board_width_px=(960, 1300),
    ),
}


@dataclass(frozen=True, eq=False)
class CameraSetup:
    """A fixed camera over the board: pose, felt and markers (the static scene).

    :param homography: 3x3, world millimetres to image pixels.
    :param background: the empty table as float32 BGR (felt and markers).
    :param shadow_offset: image-pixel offset of a card's shadow (light direction).
    """

    size: tuple[int, int]
    geometry: BoardGeometry
    homography: FloatArray
    background: FloatImage
    shadow_offset: tuple[float, float]
    px_per_mm: float

    def project(self, points_mm: FloatArray) -> FloatArray:
        """Map world points (N, 2) in millimetres to image pixels."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 1, 2)
        out = cv2.perspectiveTransform(pts, self.homography)
        return np.asarray(out.reshape(-1, 2), dtype=np.float64)

    def board_corners_px(self) -> FloatArray:
        """Image position of the board-area corners, clockwise from top-left."""
        return self.project(self.geometry.board_corners_mm())


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
class Perturbations:
    """Per-frame image degradations (all off by default)."""

    gain: float = 1.0
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)
    gradient: float = 0.0
    gradient_angle_deg: float = 0.0
    vignette: float = 0.0
    glare: tuple[tuple[float, float, float, float], ...] = ()
    blur_sigma: float = 0.0
    motion_len: float = 0.0
    motion_angle_deg: float = 0.0
    noise_sigma: float = 0.0
    jpeg_quality: int | None = None
    shadow: float = 0.3


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


def _uniform(rng: np.random.Generator, lo_hi: tuple[float, float]) -> float:
    lo, hi = lo_hi
    return float(rng.uniform(lo, hi)) if hi > lo else float(lo)


def _aruco_marker(marker_id: int, side: int) -> Image:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    return np.asarray(cv2.aruco.generateImageMarker(dictionary, marker_id, side), dtype=np.uint8)


def _felt(rng: np.random.Generator, size: tuple[int, int], felt: Felt = "green") -> FloatImage:
    w, h = size
    base = np.array(
        [rng.uniform(25, 60), rng.uniform(95, 135), rng.uniform(20, 55)], dtype=np.float32
    )
    # Other felts: the same draws in another order (no extra draw), so a seed's scene is the
    # same but for the felt's hue. Blue: B 95-135, G 25-60, R 20-55. Red (burgundy): R 95-135,
    # G 25-60, B 20-55. Grey: the three draws' mean in every channel.
    if felt == "blue":
        base = base[[1, 0, 2]]
    elif felt == "red":
        base = base[[2, 0, 1]]
    elif felt == "grey":
        base = np.full(3, base.mean(), np.float32)
    coarse = rng.standard_normal((h // 4, w // 4)).astype(np.float32)
    grain = cv2.resize(coarse, (w, h), interpolation=cv2.INTER_LINEAR)
    fine = rng.standard_normal((h, w)).astype(np.float32)
    texture = 1.0 + 0.05 * grain + 0.02 * fine
    return np.asarray(texture[..., None] * base[None, None, :], dtype=np.float32)


def geometry_for_faces(
    faces: Mapping[Card, Image], geometry: BoardGeometry | None = None
) -> BoardGeometry:
    """``geometry`` (default layout) with the card size the faces' proportions give.

    A deck is rendered at its own size: poker faces as 63 x 88 mm cards, bridge faces as
    57 x 89 mm (:func:`hardware.camera.geometry.card_mm_for_aspect`).
    """
    geo = geometry or BoardGeometry()
    card_mm = card_mm_for_aspect(face_aspect(f.shape for f in faces.values()))
    return replace(geo, card_mm=card_mm)


def make_camera(
    rng: np.random.Generator,
    level: Level = Level.MEDIUM,
    geometry: BoardGeometry | None = None,
    size: tuple[int, int] = FRAME_SIZE,
    felt: Felt = "green",
) -> CameraSetup:
    """Draw a fixed camera pose over the board and render the empty table with its markers.

    :param felt: the felt's colour, one of :data:`FELTS` (the draws do not depend on it).
    :raises ConfigError: for another felt.
    """
    if felt not in FELTS:
        raise ConfigError(f"felt {felt!r} is not one of {', '.join(FELTS)}")
    geo = geometry or BoardGeometry()
    p = LEVELS[level]
    w, h = size
    bw_mm, bh_mm = geo.board_mm
    width = _uniform(rng, p.board_width_px) * w / FRAME_SIZE[0]
    height = width * bh_mm / bw_mm * _uniform(rng, (0.8, 1.0))
    keystone = _uniform(rng, p.keystone)
    cx = w / 2 + rng.uniform(-0.04, 0.04) * w
    cy = h / 2 + rng.uniform(-0.05, 0.05) * h
    top, bottom = width * keystone / 2, width / 2
    quad = np.array(
        [[-top, -height / 2], [top, -height / 2], [bottom, height / 2], [-bottom, height / 2]]
    )
    roll = np.deg2rad(rng.uniform(-p.roll_deg, p.roll_deg))
    rot = np.array([[np.cos(roll), -np.sin(roll)], [np.sin(roll), np.cos(roll)]])
    quad = quad @ rot.T + np.array([cx, cy])
    homography = cv2.getPerspectiveTransform(
        geo.board_corners_mm().astype(np.float32), quad.astype(np.float32)
    ).astype(np.float64)
    background = _felt(rng, size, felt)
    setup = CameraSetup(
        size=size, geometry=geo, homography=homography, background=background,
        shadow_offset=(0.0, 0.0), px_per_mm=width / bw_mm,
    )
    for marker_id in range(4):
        _draw_marker(setup, marker_id)
    angle = rng.uniform(0, 2 * np.pi)
    offset = 1.2 * setup.px_per_mm * rng.uniform(0.6, 1.2)
    return replace(setup, shadow_offset=(offset * np.cos(angle), offset * np.sin(angle)))


def _draw_marker(setup: CameraSetup, marker_id: int) -> None:
    geo = setup.geometry
    cells = 6  # 4x4 bits plus the black border
    cell_px = 20
    side = cells * cell_px
    margin_px = geo.marker_margin_mm / geo.marker_mm * side
    pad = round(margin_px)
    marker = _aruco_marker(marker_id, side)
    tile = np.full((side + 2 * pad, side + 2 * pad), 255, np.uint8)
    tile[pad : pad + side, pad : pad + side] = marker
    black = geo.marker_corners_mm(marker_id)
    q = geo.marker_margin_mm
    outer = black + np.array([[-q, -q], [q, -q], [q, q], [-q, q]])
    dst = setup.project(outer)
    n = float(side + 2 * pad)
    src = np.array([[0, 0], [n, 0], [n, n], [0, n]], dtype=np.float64)
    _composite(setup.background, tile, None, src, dst)


def _bbox(points: FloatArray, size: tuple[int, int], pad: float) -> tuple[int, int, int, int]:
    w, h = size
    x0 = max(0, int(np.floor(points[:, 0].min() - pad)))
    y0 = max(0, int(np.floor(points[:, 1].min() - pad)))
    x1 = min(w, int(np.ceil(points[:, 0].max() + pad)) + 1)
    y1 = min(h, int(np.ceil(points[:, 1].max() + pad)) + 1)
    return x0, y0, x1, y1


def _composite(
    canvas: FloatImage, image: Image, alpha: Image | None, src: FloatArray, dst: FloatArray
) -> tuple[tuple[int, int, int, int], FloatImage] | None:
    """Warp ``image`` (src quad) onto ``canvas`` at ``dst``; return bbox and coverage (0..1)."""
    h, w = canvas.shape[:2]
    x0, y0, x1, y1 = _bbox(dst, (w, h), 2)
    if x1 <= x0 or y1 <= y0:
        return None
    m = cv2.getPerspectiveTransform(
        np.asarray(src, np.float32), np.asarray(dst - [x0, y0], np.float32)
    )
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(image, m, size, flags=cv2.INTER_LINEAR)
    if alpha is None:
        alpha = np.full(image.shape[:2], 255, np.uint8)
    cover = cv2.warpPerspective(alpha, m, size, flags=cv2.INTER_LINEAR).astype(np.float32) / 255
    if warped.ndim == 2:
        warped = cv2.cvtColor(warped, cv2.COLOR_GRAY2BGR)
    roi = canvas[y0:y1, x0:x1]
    a = cover[..., None]
    roi *= 1 - a
    roi += warped.astype(np.float32) * a
    return (x0, y0, x1, y1), np.asarray(cover, dtype=np.float32)


def sample_perturbations(
    rng: np.random.Generator, level: Level, camera: CameraSetup
) -> Perturbations:
    """Draw one frame's perturbations for ``level``; glare spots fall on the board area."""
    p = LEVELS[level]
    corners = camera.board_corners_px()
    n_glare = int(rng.integers(p.glare_count[0], p.glare_count[1] + 1))
    glare = []
    for _ in range(n_glare):
        u, v = rng.uniform(0, 1), rng.uniform(0, 1)
        top = corners[0] + u * (corners[1] - corners[0])
        bottom = corners[3] + u * (corners[2] - corners[3])
        x, y = top + v * (bottom - top)
        sigma = rng.uniform(8, 30) * camera.px_per_mm / 3
        glare.append((float(x), float(y), float(sigma), _uniform(rng, p.glare_peak)))
    motion = rng.random() < p.motion_prob
    return Perturbations(
        gain=float(rng.uniform(0.85, 1.08)),
        tint=(float(rng.uniform(0.93, 1.07)), 1.0, float(rng.uniform(0.93, 1.07))),
        gradient=_uniform(rng, p.gradient),
        gradient_angle_deg=float(rng.uniform(0, 360)),
        vignette=_uniform(rng, p.vignette),
        glare=tuple(glare),
        blur_sigma=_uniform(rng, p.blur_sigma),
        motion_len=_uniform(rng, p.motion_len) if motion else 0.0,
        motion_angle_deg=float(rng.uniform(0, 180)),
        noise_sigma=_uniform(rng, p.noise_sigma),
        jpeg_quality=int(rng.integers(p.jpeg_quality[0], p.jpeg_quality[1] + 1)),
        shadow=_uniform(rng, p.shadow),
    )


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
        move = gap + _uniform(rng, p.overlap_mm)
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
        _shadow(img, dst, (sx, sy), pert.shadow, 0.6 * camera.px_per_mm)
        _shadow(img, dst, (0.0, 0.0), 0.5, 0.25 * camera.px_per_mm, grow=0.4 * camera.px_per_mm)
        done = _composite(img, np.ascontiguousarray(face[..., :3]), face[..., 3], src, dst)
        if done is not None:
            card_cover[pl.slot] = done
    hand_mask: Image | None = None
    if hand is not None:
        skin_polys, sleeve_polys = _hand_polygons(hand)
        skin = _hand_mask(camera, skin_polys)
        sleeve = _hand_mask(camera, sleeve_polys)
        hand_mask = np.maximum(skin, sleeve)
        _hand_shadow(img, hand_mask, (4 * sx, 4 * sy), 4 * camera.px_per_mm)
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
    image = _perturb(img, pert, rng, gloss)
    return Scene(image, truth, tuple(placements), hand, camera, pert)


def _hand_shadow(
    img: FloatImage, mask: Image, offset: tuple[float, float], sigma: float
) -> None:
    """Darken the felt under a raised hand: ``mask`` moved by ``offset``, blurred (at 1/4 size)."""
    h, w = img.shape[:2]
    small = cv2.resize(mask, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
    shift = np.array([[1, 0, offset[0] / 4], [0, 1, offset[1] / 4]], dtype=np.float32)
    moved = cv2.warpAffine(small, shift, (w // 4, h // 4)).astype(np.float32) / 255
    soft = cv2.GaussianBlur(moved, (0, 0), sigma / 4)
    shadow = cv2.resize(soft, (w, h), interpolation=cv2.INTER_LINEAR)
    img *= (1 - 0.45 * shadow)[..., None]


def _shadow(
    img: FloatImage,
    quad: FloatArray,
    offset: tuple[float, float],
    strength: float,
    sigma: float,
    grow: float = 0.0,
) -> None:
    """Darken under ``quad`` moved by ``offset`` and grown by ``grow`` px, soft edge ``sigma``."""
    if strength <= 0:
        return
    h, w = img.shape[:2]
    centre = quad.mean(axis=0)
    radial = quad - centre
    radial *= 1 + grow / np.maximum(np.linalg.norm(radial, axis=1, keepdims=True), 1.0)
    moved = centre + radial + np.asarray(offset)
    x0, y0, x1, y1 = _bbox(moved, (w, h), 3 * sigma + 2)
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    pts = np.round((moved - [x0, y0]) * 16).astype(np.int32)
    cv2.fillPoly(mask, [pts], 255, lineType=cv2.LINE_AA, shift=4)
    soft = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), sigma)
    img[y0:y1, x0:x1] *= (1 - strength * soft)[..., None]


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


def _perturb(
    img: FloatImage, pert: Perturbations, rng: np.random.Generator, gloss: FloatImage
) -> Image:
    """Apply lighting, glare (``gloss``: cards shine, felt is matte), blur, noise and JPEG."""
    h, w = img.shape[:2]
    gw, gh = w // 16, h // 16
    ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float32)
    xs = (xs + 0.5) / gw - 0.5
    ys = (ys + 0.5) / gh - 0.5
    a = np.deg2rad(pert.gradient_angle_deg)
    light = 1 + pert.gradient * 2 * (xs * np.cos(a) + ys * np.sin(a) * h / w)
    light *= 1 - pert.vignette * (xs**2 + ys**2) / 0.5
    light3 = (light * pert.gain)[..., None] * np.asarray(pert.tint, np.float32)[None, None, :]
    img *= cv2.resize(light3.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    for gx, gy, sigma, peak in pert.glare:
        x0, y0 = max(0, int(gx - 3 * sigma)), max(0, int(gy - 3 * sigma))
        x1, y1 = min(w, int(gx + 3 * sigma) + 1), min(h, int(gy + 3 * sigma) + 1)
        if x1 <= x0 or y1 <= y0:
            continue
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        g = peak * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sigma**2))
        g *= gloss[y0:y1, x0:x1]
        roi = img[y0:y1, x0:x1]
        roi += g[..., None] * (255 - np.minimum(roi, 255))
    # Everything below works on 8 bits (values are >= 0, so convertScaleAbs just saturates).
    out = np.asarray(cv2.convertScaleAbs(img), dtype=np.uint8)
    if pert.blur_sigma > 0.05:
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), pert.blur_sigma), dtype=np.uint8)
    if pert.motion_len >= 2:
        n = int(np.ceil(pert.motion_len)) | 1
        kernel = np.zeros((n, n), np.float32)
        c = n // 2
        a = np.deg2rad(pert.motion_angle_deg)
        dx, dy = np.cos(a) * pert.motion_len / 2, np.sin(a) * pert.motion_len / 2
        cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1)
        kernel /= kernel.sum()
        out = np.asarray(cv2.filter2D(out, -1, kernel), dtype=np.uint8)
    if pert.noise_sigma > 0:
        # A fresh 512x512 tile of Gaussian noise, tiled with a random offset: per-pixel noise at
        # a fraction of the cost of drawing six million normals (a card never sees a repeat).
        tile = rng.standard_normal((512, 512, 3), dtype=np.float32) * np.float32(pert.noise_sigma)
        dy, dx = (int(v) for v in rng.integers(0, 512, 2))
        reps = (-(-(h + dy) // 512), -(-(w + dx) // 512), 1)
        noise = np.tile(tile.astype(np.int16), reps)[dy : dy + h, dx : dx + w]
        out = np.asarray(cv2.add(out, noise, dtype=cv2.CV_8U), dtype=np.uint8)
    if pert.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(pert.jpeg_quality)])
        if ok:
            out = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), dtype=np.uint8)
    return out


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
