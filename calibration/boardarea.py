"""The board area in a calibration image: ArUco markers or four corner points, and the homography.

The board area comes from the four ArUco markers (DICT_4X4_50, ids 0..3 clockwise from top-left,
see :mod:`hardware.camera.geometry`) or from four corner points given by the installer; the result
is a homography from board millimetres to image pixels. Every check raises
:class:`~table_controller.errors.CalibrationError` naming what was wrong.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt

from hardware.camera.geometry import BoardGeometry
from table_controller.errors import CalibrationError

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]

#: The markers' worst reprojection error (px) under which they fit the board layout.
MAX_REPROJECTION_PX = 3.0


def project(homography: FloatArray, points: FloatArray) -> FloatArray:
    """Board millimetres ``points`` (N, 2) through ``homography`` into image pixels (N, 2)."""
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(pts, homography).reshape(-1, 2), np.float64)


def detect_markers(image: Image) -> dict[int, FloatArray]:
    """ArUco DICT_4X4_50 markers in ``image``: id -> corners (4, 2) in ArUco order.

    :raises CalibrationError: if a board marker id appears more than once.
    """
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    # A marker whose white quiet zone the frame edge cuts is still whole: accept candidates up to
    # the border (default 3 px). Its corners are checked by the homography's reprojection error.
    params.minDistanceToBorder = 0
    detector = cv2.aruco.ArucoDetector(dictionary, params)
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = detector.detectMarkers(gray)
    found: dict[int, FloatArray] = {}
    if ids is None:
        return found
    for c, i in zip(corners, ids.reshape(-1), strict=True):
        mid = int(i)
        if mid in found and mid in (0, 1, 2, 3):
            raise CalibrationError(f"board marker id {mid} appears twice in the image")
        found[mid] = np.asarray(c, np.float64).reshape(4, 2)
    return found


def homography_from_markers(image: Image, geometry: BoardGeometry) -> FloatArray:
    """Homography (board mm -> image px) from the four corner markers.

    :raises CalibrationError: naming the missing marker ids, or if the fit is poor.
    """
    found = detect_markers(image)
    missing = [i for i in range(4) if i not in found]
    if missing:
        raise CalibrationError(
            f"board markers {missing} (DICT_4X4_50) not found in the calibration image; found "
            f"{sorted(found) or 'none'}. Give the corners with --corners instead."
        )
    world = np.concatenate([geometry.marker_corners_mm(i) for i in range(4)])
    img = np.concatenate([found[i] for i in range(4)])
    h, _ = cv2.findHomography(world, img, 0)
    if h is None:
        raise CalibrationError("the four markers do not give a homography (degenerate layout)")
    homography = np.asarray(h, np.float64)
    err = float(np.abs(project(homography, world) - img).max())
    if err > MAX_REPROJECTION_PX:
        raise CalibrationError(
            f"markers do not fit the board layout (reprojection error {err:.1f} px > "
            f"{MAX_REPROJECTION_PX}); check marker_mm / marker_margin_mm / board_mm"
        )
    return homography


def parse_corners(text: str) -> FloatArray:
    """Parse ``"x1,y1,x2,y2,x3,y3,x4,y4"`` (clockwise from top-left) into a (4, 2) array.

    >>> parse_corners("0,0,10,0,10,5,0,5").tolist()
    [[0.0, 0.0], [10.0, 0.0], [10.0, 5.0], [0.0, 5.0]]

    :raises CalibrationError: if it is not eight numbers.
    """
    parts = [p for p in text.replace(" ", "").split(",") if p]
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise CalibrationError(
            f"--corners: {text!r} is not eight comma-separated numbers"
        ) from None
    if len(values) != 8 or not all(math.isfinite(v) for v in values):
        raise CalibrationError(
            f"--corners: expected 8 numbers x1,y1,...,x4,y4, got {len(values)} in {text!r}"
        )
    return np.array(values, np.float64).reshape(4, 2)


def check_corners(corners: FloatArray, image_size: tuple[int, int], what: str) -> None:
    """Check a board quad: 4 finite points inside the image, convex, clockwise, not tiny.

    :raises CalibrationError: naming ``what`` and the problem.
    """
    c = np.asarray(corners, np.float64)
    if c.shape != (4, 2) or not np.all(np.isfinite(c)):
        raise CalibrationError(f"{what}: expected 4 finite (x, y) points, got {c.tolist()}")
    w, h = image_size
    if np.any(c[:, 0] < 0) or np.any(c[:, 0] > w) or np.any(c[:, 1] < 0) or np.any(c[:, 1] > h):
        raise CalibrationError(f"{what}: corners {c.round(1).tolist()} leave the {w}x{h} image")
    crosses = []
    for i in range(4):
        a, b, d = c[i], c[(i + 1) % 4], c[(i + 2) % 4]
        crosses.append((b[0] - a[0]) * (d[1] - b[1]) - (b[1] - a[1]) * (d[0] - b[0]))
    if not all(x > 0 for x in crosses):
        raise CalibrationError(
            f"{what}: corners {c.round(1).tolist()} are not a convex quad clockwise from "
            "top-left (top-left, top-right, bottom-right, bottom-left)"
        )
    d1, d2 = c[2] - c[0], c[3] - c[1]
    area = 0.5 * abs(float(d1[0] * d2[1] - d1[1] * d2[0]))
    if area < 0.01 * w * h:
        raise CalibrationError(f"{what}: the board area covers only {area:.0f} px^2; too small")


def homography_from_corners(corners: FloatArray, geometry: BoardGeometry) -> FloatArray:
    """Homography (board mm -> image px) from the board area's four image corners."""
    m = cv2.getPerspectiveTransform(
        geometry.board_corners_mm().astype(np.float32), np.asarray(corners, np.float32)
    )
    return np.asarray(m, np.float64)
