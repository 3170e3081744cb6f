"""The per-frame light and optics of a rendered board camera: shadows, lighting, glare, blur.

Rules this module keeps:

1. Everything random comes from the :class:`numpy.random.Generator` passed in.
2. :func:`sample_perturbations` draws one frame's degradations for a level;
   :func:`apply_perturbations` applies them (lighting gradient, vignetting, glare, blur, motion
   blur, noise, JPEG) to a rendered frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from hardware.sim.scene_camera import (
    LEVELS,
    CameraSetup,
    FloatArray,
    FloatImage,
    Image,
    Level,
    bbox,
    uniform,
)


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
        glare.append((float(x), float(y), float(sigma), uniform(rng, p.glare_peak)))
    motion = rng.random() < p.motion_prob
    return Perturbations(
        gain=float(rng.uniform(0.85, 1.08)),
        tint=(float(rng.uniform(0.93, 1.07)), 1.0, float(rng.uniform(0.93, 1.07))),
        gradient=uniform(rng, p.gradient),
        gradient_angle_deg=float(rng.uniform(0, 360)),
        vignette=uniform(rng, p.vignette),
        glare=tuple(glare),
        blur_sigma=uniform(rng, p.blur_sigma),
        motion_len=uniform(rng, p.motion_len) if motion else 0.0,
        motion_angle_deg=float(rng.uniform(0, 180)),
        noise_sigma=uniform(rng, p.noise_sigma),
        jpeg_quality=int(rng.integers(p.jpeg_quality[0], p.jpeg_quality[1] + 1)),
        shadow=uniform(rng, p.shadow),
    )



def hand_shadow(
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


def card_shadow(
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
    x0, y0, x1, y1 = bbox(moved, (w, h), 3 * sigma + 2)
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    pts = np.round((moved - [x0, y0]) * 16).astype(np.int32)
    cv2.fillPoly(mask, [pts], 255, lineType=cv2.LINE_AA, shift=4)
    soft = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), sigma)
    img[y0:y1, x0:x1] *= (1 - strength * soft)[..., None]



def apply_perturbations(
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
