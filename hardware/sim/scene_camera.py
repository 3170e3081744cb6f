"""The static scene of a rendered board camera: the camera pose, the felt and the markers.

Rules this module keeps:

1. Everything random comes from the :class:`numpy.random.Generator` passed in.
2. :func:`make_camera` draws the pose, the felt and the markers once per table (the felt green by
   default, or blue, red or grey: the same random draws in another colour, so a seed gives the
   same scene whatever the felt).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Literal

import cv2
import numpy as np
import numpy.typing as npt

from hardware.camera.geometry import BoardGeometry, card_mm_for_aspect, face_aspect
from table_controller.engine.cards import Card
from table_controller.errors import ConfigError

Image = npt.NDArray[np.uint8]
FloatImage = npt.NDArray[np.float32]
FloatArray = npt.NDArray[np.float64]

FRAME_SIZE = (1920, 1080)
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


def uniform(rng: np.random.Generator, lo_hi: tuple[float, float]) -> float:
    """Draw from ``[lo, hi)``; ``lo`` itself when the range is empty."""
    lo, hi = lo_hi
    return float(rng.uniform(lo, hi)) if hi > lo else float(lo)



def bbox(points: FloatArray, size: tuple[int, int], pad: float) -> tuple[int, int, int, int]:
    """Integer box (x0, y0, x1, y1) around ``points`` grown by ``pad``, clipped to ``size``."""
    w, h = size
    x0 = max(0, int(np.floor(points[:, 0].min() - pad)))
    y0 = max(0, int(np.floor(points[:, 1].min() - pad)))
    x1 = min(w, int(np.ceil(points[:, 0].max() + pad)) + 1)
    y1 = min(h, int(np.ceil(points[:, 1].max() + pad)) + 1)
    return x0, y0, x1, y1


def composite(
    canvas: FloatImage, image: Image, alpha: Image | None, src: FloatArray, dst: FloatArray
) -> tuple[tuple[int, int, int, int], FloatImage] | None:
    """Warp ``image`` (src quad) onto ``canvas`` at ``dst``; return bbox and coverage (0..1)."""
    h, w = canvas.shape[:2]
    x0, y0, x1, y1 = bbox(dst, (w, h), 2)
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



def aruco_marker(marker_id: int, side: int) -> Image:
    """Return the 4x4 ArUco marker ``marker_id`` as a ``side`` x ``side`` image."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    return np.asarray(cv2.aruco.generateImageMarker(dictionary, marker_id, side), dtype=np.uint8)


def felt_texture(
    rng: np.random.Generator, size: tuple[int, int], felt: Felt = "green"
) -> FloatImage:
    """Return the empty felt of ``size`` in colour ``felt``, with its grain (float32 BGR)."""
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
    width = uniform(rng, p.board_width_px) * w / FRAME_SIZE[0]
    height = width * bh_mm / bw_mm * uniform(rng, (0.8, 1.0))
    keystone = uniform(rng, p.keystone)
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
    background = felt_texture(rng, size, felt)
    setup = CameraSetup(
        size=size, geometry=geo, homography=homography, background=background,
        shadow_offset=(0.0, 0.0), px_per_mm=width / bw_mm,
    )
    for marker_id in range(4):
        draw_marker(setup, marker_id)
    angle = rng.uniform(0, 2 * np.pi)
    offset = 1.2 * setup.px_per_mm * rng.uniform(0.6, 1.2)
    return replace(setup, shadow_offset=(offset * np.cos(angle), offset * np.sin(angle)))


def draw_marker(setup: CameraSetup, marker_id: int) -> None:
    """Draw marker ``marker_id`` with its white quiet zone on ``setup``'s background."""
    geo = setup.geometry
    cells = 6  # 4x4 bits plus the black border
    cell_px = 20
    side = cells * cell_px
    margin_px = geo.marker_margin_mm / geo.marker_mm * side
    pad = round(margin_px)
    marker = aruco_marker(marker_id, side)
    tile = np.full((side + 2 * pad, side + 2 * pad), 255, np.uint8)
    tile[pad : pad + side, pad : pad + side] = marker
    black = geo.marker_corners_mm(marker_id)
    q = geo.marker_margin_mm
    outer = black + np.array([[-q, -q], [q, -q], [q, q], [-q, q]])
    dst = setup.project(outer)
    n = float(side + 2 * pad)
    src = np.array([[0, 0], [n, 0], [n, n], [0, n]], dtype=np.float64)
    composite(setup.background, tile, None, src, dst)
