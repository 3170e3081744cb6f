"""A captured card's pose fitted to its edges in the frame, to a fraction of a pixel.

A deck registered from the camera (:class:`calibration.faces.FaceCapture`) cuts each face
along the pose the locator found, and the locator fits the card's edges on the canonical view's
foreground mask (whole canonical pixels): at the rendered cameras that pose is off the card's
own by up to a fifth of a degree and a fraction of a pixel, differently for every card (benchmark
run 76). Two captured suit twins then differ by their pose besides their design, and a
comparison of the two (the stored faces' separation, the fine faces' corner leans) takes that
difference for one the design prints. Here, in the frame itself, each of the card's four sides
is found where the luminance crosses halfway from the paper to the felt, along many short
profiles across it, and a line fitted to each: the pose is the one of the four lines.

Rules this module keeps:

1. Only the straight middle of each side is sampled (:data:`SIDE_SPAN`), clear of the rounded
   corners; a profile whose paper and felt differ by less than :data:`MIN_STEP` grey levels, or
   that crosses the halfway level more than once, is not used.
2. A side needs :data:`MIN_PROFILES` profiles left after those lying more than
   :data:`OUTLIER_PX` from their median are dropped; the fit is refused (None) otherwise, and
   when the fitted pose moves the located one by more than :data:`MAX_MOVE_PX` canonical px or
   :data:`MAX_TURN_DEG`: the caller keeps the located pose.
3. Pure: the frame, the located corners and the view's mapping in, a centre and angle out.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]

#: Fraction of each side sampled, centred on its middle (the corners' rounding stays outside).
SIDE_SPAN = 0.6
#: Profiles across each side.
PROFILES = 24
#: A profile runs this far (frame px) either side of the located edge, in steps of
#: :data:`PROFILE_STEP`; its paper level is read at its inner end, its felt level at its outer.
PROFILE_REACH_PX = 4.0
PROFILE_STEP = 0.25
#: Paper and felt must differ by this (grey levels) along a profile used.
MIN_STEP = 25.0
#: A profile's crossing further than this (px) from the side's median crossing is dropped.
OUTLIER_PX = 1.0
#: Profiles a side needs after the outliers are dropped.
MIN_PROFILES = 8
#: The fitted pose may move the located one by this much at most (canonical px; degrees).
MAX_MOVE_PX = 2.0
MAX_TURN_DEG = 1.0


def _crossing(profile: FloatArray) -> float | None:
    """Return where (in samples) ``profile`` (paper first, felt last) crosses halfway, or None."""
    n = max(1, round(1.0 / PROFILE_STEP))
    paper, felt = float(profile[:n].mean()), float(profile[-n:].mean())
    if abs(paper - felt) < MIN_STEP:
        return None
    above = (profile - 0.5 * (paper + felt)) * np.sign(paper - felt) > 0
    changes = np.flatnonzero(above[:-1] != above[1:])
    if changes.size != 1:
        return None
    i = int(changes[0])
    a, b = profile[i] - 0.5 * (paper + felt), profile[i + 1] - 0.5 * (paper + felt)
    return i + float(a / (a - b)) if a != b else i + 0.5


def _side_line(grey: npt.NDArray[np.float32], p0: FloatArray, p1: FloatArray,
               outward: FloatArray) -> tuple[FloatArray, FloatArray] | None:
    """Fit the side from ``p0`` to ``p1``: a point on it and its direction, or None."""
    along = p1 - p0
    ts = 0.5 + SIDE_SPAN * (np.arange(PROFILES) / (PROFILES - 1) - 0.5)
    offsets = np.arange(-PROFILE_REACH_PX, PROFILE_REACH_PX + 1e-9, PROFILE_STEP)
    starts = p0[None, :] + ts[:, None] * along[None, :]
    pts = starts[:, None, :] + offsets[None, :, None] * outward[None, None, :]
    samples = cv2.remap(grey, pts[..., 0].astype(np.float32), pts[..., 1].astype(np.float32),
                        cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    found_t, found_d = [], []
    for t, row in zip(ts, np.asarray(samples, np.float64), strict=True):
        c = _crossing(row)
        if c is not None:
            found_t.append(float(t))
            found_d.append(-PROFILE_REACH_PX + c * PROFILE_STEP)
    if len(found_t) < MIN_PROFILES:
        return None
    t_arr, d_arr = np.asarray(found_t), np.asarray(found_d)
    keep = np.abs(d_arr - np.median(d_arr)) <= OUTLIER_PX
    if np.count_nonzero(keep) < MIN_PROFILES:
        return None
    slope, intercept = np.polyfit(t_arr[keep], d_arr[keep], 1)
    q0 = p0 + intercept * outward
    q1 = p0 + along + (intercept + slope) * outward
    return q0, q1 - q0


def _meet(a: tuple[FloatArray, FloatArray], b: tuple[FloatArray, FloatArray]) -> FloatArray:
    """Return where two lines (point, direction) meet."""
    m = np.array([a[1], -b[1]]).T
    s = np.linalg.solve(m, b[0] - a[0])
    return np.asarray(a[0] + s[0] * a[1], np.float64)


def fitted_pose(frame: Image, quad_px: FloatArray, image_to_canon: FloatArray,
                centre: tuple[float, float], angle_deg: float
                ) -> tuple[tuple[float, float], float] | None:
    """Return the card's centre (canonical px) and angle fitted to its edges, or None.

    :param frame: the full-resolution frame (BGR or grey) the card was located in.
    :param quad_px: the located card's corners in the frame (TL, TR, BR, BL).
    :param image_to_canon: the homography from the frame to the canonical view.
    :param centre: the located centre (canonical px), ``angle_deg`` its angle: the fit is
        refused when it moves them by more than :data:`MAX_MOVE_PX` or :data:`MAX_TURN_DEG`.
    """
    grey = (frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    g = np.asarray(grey, np.float32)
    mid = quad_px.mean(axis=0)
    lines = []
    for i in range(4):
        p0, p1 = quad_px[i], quad_px[(i + 1) % 4]
        d = (p1 - p0) / max(float(np.hypot(*(p1 - p0))), 1e-9)
        normal = np.array([d[1], -d[0]])
        if float(np.dot(normal, 0.5 * (p0 + p1) - mid)) < 0:
            normal = -normal
        line = _side_line(g, p0, p1, normal)
        if line is None:
            return None
        lines.append(line)
    corners = np.array([_meet(lines[i - 1], lines[i]) for i in range(4)], np.float64)
    canon = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), image_to_canon).reshape(-1, 2)
    top, bottom = canon[1] - canon[0], canon[2] - canon[3]
    left, right = canon[3] - canon[0], canon[2] - canon[1]
    angles = [np.arctan2(top[1], top[0]), np.arctan2(bottom[1], bottom[0]),
              np.arctan2(-left[0], left[1]), np.arctan2(-right[0], right[1])]
    angle = float(np.rad2deg(np.mean(angles)))
    cx, cy = (float(v) for v in canon.mean(axis=0))
    if (np.hypot(cx - centre[0], cy - centre[1]) > MAX_MOVE_PX
            or abs(angle - angle_deg) > MAX_TURN_DEG):
        return None
    return (cx, cy), angle
