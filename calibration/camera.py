"""Camera calibration profiles: board area, homography, slots, felt and the registered faces.

Rules this module keeps:

1. The board area comes from the four ArUco markers (DICT_4X4_50, ids 0..3 clockwise from
   top-left, see :mod:`hardware.camera.geometry`) or from four corner points given by the
   installer (:mod:`calibration.boardarea`); the result is a homography from board millimetres
   to image pixels.
2. A profile is a JSON file plus a ``<name>.faces.npz`` beside it holding the 52 registered face
   patches; the JSON records the patches' SHA-256.
3. Loading validates everything: unknown or missing keys, types, ranges, the corner quad, the
   homography against the corners, the faces file and its hash. Any problem raises
   :class:`~table_controller.errors.CalibrationError` naming the key or file.
4. The felt's colour is calibrated: its dominant channel (blue, green or red) and that channel's
   ratio ``(P - max(other two)) / P``, median over the board area. Version 1 profiles (green
   felt only, ``felt_greenness``) still load, as channel green.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.boardarea import MAX_REPROJECTION_PX as MAX_REPROJECTION_PX  # re-exported
from calibration.boardarea import check_corners as check_corners  # re-exported
from calibration.boardarea import detect_markers as detect_markers  # re-exported
from calibration.boardarea import homography_from_corners, homography_from_markers, project
from calibration.boardarea import parse_corners as parse_corners  # re-exported
from calibration.faces import FaceCapture as FaceCapture  # re-exported: its old home
from calibration.facesfile import BOARD_REFERENCE_KEY as BOARD_REFERENCE_KEY  # re-exported
from calibration.facesfile import FINE_PREFIX as FINE_PREFIX  # re-exported
from calibration.facesfile import load_patches, patches_bytes
from hardware.camera.finetwins import FineFaces, fine_grey
from hardware.camera.geometry import (
    BoardGeometry,
    card_mm_for_aspect,
    card_size_name,
    face_aspect,
)
from hardware.camera.recognizer import (
    FELT_CHANNELS,
    BoardRecognizer,
    CardLocator,
    FaceBank,
    FeltChannel,
    RecognizerParams,
    face_patch,
)
from table_controller.engine.cards import FULL_DECK, Card
from table_controller.errors import CalibrationError

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]

PROFILE_FORMAT = "table-controller/camera-profile"
PROFILE_VERSION = 2
#: Felt ratio ``(P - max(other two)) / P`` (P the felt's dominant channel) below which the board
#: area is not felt we can work with (grey, black, two-colour).
MIN_FELT_RATIO = 0.15
#: A card size given by hand may differ from the faces' proportions by this much (relative).
CARD_ASPECT_TOLERANCE = 0.04
#: Free space across a slot (mm) under which neighbouring cards will often touch or overlap.
TIGHT_SLOT_MM = 6.0

_COMMON_KEYS = {
    "format", "version", "design", "source", "image_size", "board_corners_px", "homography",
    "board_mm", "card_mm", "slots", "marker_mm", "marker_margin_mm", "faces_file", "faces_sha256",
}
#: Keys by profile version (version 1: green felt only, its ratio called ``felt_greenness``).
_KEYS = {
    1: _COMMON_KEYS | {"felt_greenness"},
    2: _COMMON_KEYS | {"felt_channel", "felt_ratio"},
}
#: Keys a version-2 profile may hold or leave out (``faces_captured``: written, true, only for
#: faces captured by the camera).
_OPTIONAL_KEYS = {1: set[str](), 2: {"faces_captured"}}


@dataclass(frozen=True, eq=False)
class CameraProfile:
    """A calibrated board camera and the deck design registered with it.

    :param world_to_image: homography, board millimetres to image pixels.
    :param felt_ratio: the felt's ``(P - max(other two)) / P``, ``P`` its ``felt_channel``.
    :param patches: card -> BGR face patch of ``STORED_PATCH_SIZE``.
    :param source: ``"markers"`` or ``"corners"``.
    :param board_reference: the empty board at calibration, in the recogniser's canonical view
        (BGR): a felt's print (slot boxes, lines, a logo) is told from cards against it. None
        for profiles written before it was kept (the felt is then taken as plain).
    :param fine_faces: card -> the registered face's luminance at the resolution it was
        registered at (:class:`~hardware.camera.finetwins.FineFaces`; stored in the faces
        file as ``fine_<code>``); for faces captured by the camera, each at the card's size in
        the frame (:meth:`FaceCapture.fine_faces`). None for profiles written before they were
        kept: suit twins are then decided on the stored patches alone.
    :param faces_captured: the faces were captured by the camera (``vision capture-faces``),
        not registered from face images (saved as ``faces_captured``; absent: False).
    """

    image_size: tuple[int, int]
    geometry: BoardGeometry
    board_corners_px: FloatArray
    world_to_image: FloatArray
    felt_ratio: float
    design: str
    patches: Mapping[Card, Image]
    source: str
    felt_channel: FeltChannel = "green"
    board_reference: Image | None = None
    fine_faces: Mapping[Card, Image] | None = None
    faces_captured: bool = False

    def recognizer(self, params: RecognizerParams | None = None) -> BoardRecognizer:
        """Build a :class:`BoardRecognizer` for this camera and deck."""
        p = params or RecognizerParams()
        fine = (None if self.fine_faces is None
                else FineFaces(self.fine_faces, captured=self.faces_captured))
        return BoardRecognizer(
            self.world_to_image, self.geometry, FaceBank(self.patches, p, fine),
            self.felt_ratio, p, self.felt_channel, self.board_reference,
        )

    def face_capture(self, slot: int = 2) -> FaceCapture:
        """Return a :class:`FaceCapture` for this camera and felt."""
        return FaceCapture(self.world_to_image, self.geometry, self.felt_ratio, slot,
                           felt_channel=self.felt_channel, board_reference=self.board_reference)

    def slot_quads_px(self) -> list[FloatArray]:
        """Image quads of the slots (clockwise from top-left), left to right."""
        _w, h = self.geometry.board_mm
        sw = self.geometry.slot_width_mm
        out = []
        for i in range(self.geometry.slots):
            world = np.array([[i * sw, 0], [(i + 1) * sw, 0], [(i + 1) * sw, h], [i * sw, h]])
            out.append(project(self.world_to_image, world))
        return out


def measure_felt(
    image: Image, world_to_image: FloatArray, geometry: BoardGeometry
) -> tuple[FeltChannel, float]:
    """Measure the felt's dominant channel and its median ratio ``(P - max(other two)) / P``.

    The channel is the largest of the median B, G, R over the board area (with its margin, the
    marker corners left out, as the recogniser sees it); for green felt the ratio is the
    greenness ``(G - max(R, B)) / G`` measured before felt colour was calibrated.

    :raises CalibrationError: naming the median colour and ratio if the board area is not
        coloured felt (grey, black, two-colour).
    """
    locator = CardLocator(world_to_image, geometry, 0.5)
    canon = locator.warp_board(image).astype(np.float32)
    inside = locator._ignore > 0
    median_bgr = [float(np.median(canon[..., i][inside])) for i in range(3)]
    channel = FELT_CHANNELS[int(np.argmax(median_bgr))]
    value = float(np.median(CardLocator.felt_ratio(canon, channel)[inside]))
    if value < MIN_FELT_RATIO:
        bgr = ", ".join(f"{v:.0f}" for v in median_bgr)
        raise CalibrationError(
            f"the board area does not look like coloured felt: median BGR ({bgr}), "
            f"{channel} ratio {value:.2f} < {MIN_FELT_RATIO}; grey, black or two-colour felts "
            "are not supported (check the corners or markers)"
        )
    return channel, value


def calibrate_camera(
    image: Image,
    faces: Mapping[Card, Image],
    *,
    corners: FloatArray | None = None,
    geometry: BoardGeometry | None = None,
    design: str = "",
    card_mm: tuple[float, float] | None = None,
) -> CameraProfile:
    """Calibrate from one image of the (preferably empty) board and a deck's faces.

    :param faces: full-resolution BGRA faces (``calibration.faces.load_face_folder``).
    :param corners: board corners in the image, clockwise from top-left; None = use markers.
    :param geometry: the board layout; its ``card_mm`` is replaced by :func:`card_size`'s.
    :param card_mm: the card size measured by hand; None = from the faces' proportions.
    :raises CalibrationError: if the markers or corners or faces are not usable, the card size
        given does not match the faces' proportions, or the card does not fit a slot.
    """
    missing = [c.code for c in FULL_DECK if c not in faces]
    if missing:
        raise CalibrationError(f"faces lack {len(missing)} of 52 cards: {' '.join(missing)}")
    geo = with_card_size(geometry or BoardGeometry(), card_size(faces, card_mm))
    if image.ndim != 3 or image.shape[2] != 3:
        raise CalibrationError(f"calibration image must be BGR, got shape {image.shape}")
    size = (int(image.shape[1]), int(image.shape[0]))
    if corners is None:
        homography = homography_from_markers(image, geo)
        source = "markers"
    else:
        check_corners(corners, size, "--corners")
        homography = homography_from_corners(corners, geo)
        source = "corners"
    board = project(homography, geo.board_corners_mm())
    check_corners(board, size, "board area")
    patches = {c: face_patch(faces[c]) for c in FULL_DECK}
    channel, ratio = measure_felt(image, homography, geo)
    reference = CardLocator(homography, geo, ratio, felt_channel=channel).warp_board(image)
    return CameraProfile(
        image_size=size, geometry=geo, board_corners_px=board, world_to_image=homography,
        felt_ratio=ratio, felt_channel=channel, design=design, patches=patches, source=source,
        board_reference=reference, fine_faces={c: fine_grey(faces[c]) for c in FULL_DECK},
    )


def card_size(
    faces: Mapping[Card, Image], card_mm: tuple[float, float] | None = None
) -> tuple[float, float]:
    """Return the card size (mm) of a deck: ``card_mm`` if given, else from the faces.

    The faces' width / height (median over the deck) gives a standard size
    (:func:`hardware.camera.geometry.card_mm_for_aspect`: poker 63 x 88, bridge 57 x 89) or a
    card 88 mm tall of those proportions.

    :raises CalibrationError: if ``card_mm`` is not positive or its proportions differ from the
        faces' by more than :data:`CARD_ASPECT_TOLERANCE`.
    """
    aspect = face_aspect(f.shape for f in faces.values())
    if card_mm is None:
        return card_mm_for_aspect(aspect)
    w, h = card_mm
    if not (w > 0 and h > 0):
        raise CalibrationError(f"card size {w:g} x {h:g} mm must be positive")
    if abs((w / h) / aspect - 1) > CARD_ASPECT_TOLERANCE:
        raise CalibrationError(
            f"the card size given, {w:g} x {h:g} mm (width / height {w / h:.3f}), does not "
            f"match the faces, whose width / height is {aspect:.3f} (a "
            f"{card_size_name(card_mm_for_aspect(aspect))} card); measure a card of the deck "
            "in use, or register that deck's faces"
        )
    return (float(w), float(h))


def with_card_size(geometry: BoardGeometry, card_mm: tuple[float, float]) -> BoardGeometry:
    """``geometry`` with another card size (checked to fit a slot).

    :raises CalibrationError: if the card does not fit a slot of the board area.
    """
    return BoardGeometry(board_mm=geometry.board_mm, card_mm=card_mm, slots=geometry.slots,
                         marker_mm=geometry.marker_mm,
                         marker_margin_mm=geometry.marker_margin_mm)


def layout_report(geometry: BoardGeometry, source: str = "") -> list[str]:
    """Plain lines on how the cards fit the slots (printed by ``calibrate camera``).

    :param source: where the card size came from, said in the first line.
    """
    cw, ch = geometry.card_mm
    sw, sh = geometry.slot_width_mm, geometry.board_mm[1]
    lines = [
        f"cards {cw:g} x {ch:g} mm ({card_size_name(geometry.card_mm)}"
        f"{', ' + source if source else ''}); "
        f"{geometry.slots} slots of {sw:.1f} x {sh:.1f} mm: {sw - cw:.1f} mm free across a "
        f"slot, {sh - ch:.1f} mm along it"
    ]
    if sw - cw < TIGHT_SLOT_MM:
        lines.append(
            f"warning: only {sw - cw:.1f} mm between cards laid in the middle of their slots; "
            "neighbours will often touch or overlap (a wider board area reads better)"
        )
    return lines


def faces_path(profile_path: Path) -> Path:
    """Where the face patches of the profile at ``profile_path`` are stored."""
    return profile_path.with_name(profile_path.stem + ".faces.npz")


def save_profile(profile: CameraProfile, path: str | Path) -> Path:
    """Write the profile JSON at ``path`` and its faces beside it; returns the faces path."""
    p = Path(path)
    data = patches_bytes(profile.patches, profile.board_reference, profile.fine_faces)
    fp = faces_path(p)
    fp.write_bytes(data)
    geo = profile.geometry
    doc = {
        "format": PROFILE_FORMAT,
        "version": PROFILE_VERSION,
        "design": profile.design,
        "source": profile.source,
        "image_size": list(profile.image_size),
        "board_corners_px": np.round(profile.board_corners_px, 3).tolist(),
        "homography": profile.world_to_image.tolist(),
        "board_mm": list(geo.board_mm),
        "card_mm": list(geo.card_mm),
        "slots": geo.slots,
        "marker_mm": geo.marker_mm,
        "marker_margin_mm": geo.marker_margin_mm,
        "felt_channel": profile.felt_channel,
        "felt_ratio": round(profile.felt_ratio, 5),
        "faces_file": fp.name,
        "faces_sha256": hashlib.sha256(data).hexdigest(),
    }
    if profile.faces_captured:
        doc["faces_captured"] = True
    p.write_text(json.dumps(doc, indent=2) + "\n")
    return fp


def _number(doc: Mapping[str, Any], key: str, lo: float, hi: float) -> float:
    v = doc[key]
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise CalibrationError(f"camera profile: {key} must be a number, got {v!r}")
    if not lo <= v <= hi:
        raise CalibrationError(f"camera profile: {key} = {v} is outside [{lo}, {hi}]")
    return float(v)


def _pair(doc: Mapping[str, Any], key: str, lo: float, hi: float) -> tuple[float, float]:
    v = doc[key]
    if not isinstance(v, list) or len(v) != 2:
        raise CalibrationError(f"camera profile: {key} must be [width, height], got {v!r}")
    a = _number({key: v[0]}, key, lo, hi)
    b = _number({key: v[1]}, key, lo, hi)
    return a, b


def _matrix(doc: Mapping[str, Any], key: str, shape: tuple[int, int]) -> FloatArray:
    try:
        m = np.array(doc[key], dtype=np.float64)
    except (TypeError, ValueError):
        raise CalibrationError(f"camera profile: {key} is not a {shape} number array") from None
    if m.shape != shape or not np.all(np.isfinite(m)):
        raise CalibrationError(f"camera profile: {key} must be {shape} finite numbers")
    return m


def load_profile(path: str | Path) -> CameraProfile:
    """Load and validate a camera profile written by :func:`save_profile`.

    :raises CalibrationError: naming the file and the first thing that is wrong.
    """
    p = Path(path)
    try:
        doc = json.loads(p.read_text())
    except FileNotFoundError:
        raise CalibrationError(f"camera profile {str(p)!r} does not exist") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CalibrationError(f"camera profile {str(p)!r} is not readable JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise CalibrationError(f"camera profile {str(p)!r}: top level must be an object")
    try:
        return _parse(doc, p)
    except CalibrationError as exc:
        raise CalibrationError(f"{p}: {exc}") from None


def _parse(doc: dict[str, Any], p: Path) -> CameraProfile:
    version = doc.get("version")
    if isinstance(version, bool) or version not in _KEYS:
        supported = ", ".join(str(v) for v in sorted(_KEYS))
        raise CalibrationError(
            f"camera profile: version {version!r} is not supported ({supported})"
        )
    keys = _KEYS[version]
    unknown = sorted(set(doc) - keys - _OPTIONAL_KEYS[version])
    if unknown:
        raise CalibrationError(f"camera profile: unknown keys {unknown} (version {version})")
    missing = sorted(keys - set(doc))
    if missing:
        raise CalibrationError(f"camera profile: missing keys {missing} (version {version})")
    if doc["format"] != PROFILE_FORMAT:
        raise CalibrationError(f"camera profile: format must be {PROFILE_FORMAT!r}")
    for key in ("design", "source", "faces_file", "faces_sha256"):
        if not isinstance(doc[key], str):
            raise CalibrationError(f"camera profile: {key} must be a string")
    if doc["source"] not in ("markers", "corners"):
        raise CalibrationError("camera profile: source must be 'markers' or 'corners'")
    captured = doc.get("faces_captured", False)
    if not isinstance(captured, bool):
        raise CalibrationError(f"camera profile: faces_captured must be true or false, got "
                               f"{captured!r}")
    w, h = _pair(doc, "image_size", 16, 100_000)
    if w != int(w) or h != int(h):
        raise CalibrationError("camera profile: image_size must be whole pixels")
    size = (int(w), int(h))
    slots = doc["slots"]
    if isinstance(slots, bool) or not isinstance(slots, int):
        raise CalibrationError(f"camera profile: slots must be an integer, got {slots!r}")
    geometry = BoardGeometry(
        board_mm=_pair(doc, "board_mm", 1, 10_000),
        card_mm=_pair(doc, "card_mm", 1, 1_000),
        slots=slots,
        marker_mm=_number(doc, "marker_mm", 1, 1_000),
        marker_margin_mm=_number(doc, "marker_margin_mm", 0, 1_000),
    )
    corners = _matrix(doc, "board_corners_px", (4, 2))
    check_corners(corners, size, "board_corners_px")
    homography = _matrix(doc, "homography", (3, 3))
    err = float(np.abs(project(homography, geometry.board_corners_mm()) - corners).max())
    if err > 2.0:
        raise CalibrationError(
            f"camera profile: homography does not map the board to board_corners_px "
            f"(off by {err:.1f} px)"
        )
    channel: FeltChannel
    if version == 1:
        channel, felt = "green", _number(doc, "felt_greenness", MIN_FELT_RATIO, 1.0)
    else:
        channel = _felt_channel(doc["felt_channel"])
        felt = _number(doc, "felt_ratio", MIN_FELT_RATIO, 1.0)
    fp = p.with_name(doc["faces_file"])
    if fp.name != doc["faces_file"] or not fp.is_file():
        raise CalibrationError(f"camera profile: faces file {doc['faces_file']!r} not found")
    data = fp.read_bytes()
    if hashlib.sha256(data).hexdigest() != doc["faces_sha256"]:
        raise CalibrationError(f"faces file {fp.name!r} does not match faces_sha256 (changed?)")
    patches, reference, fine = load_patches(data, fp.name)
    profile = CameraProfile(
        image_size=size, geometry=geometry, board_corners_px=corners, world_to_image=homography,
        felt_ratio=felt, felt_channel=channel, design=doc["design"], patches=patches,
        source=doc["source"], board_reference=reference, fine_faces=fine,
        faces_captured=captured,
    )
    if reference is not None:
        try:
            CardLocator(homography, geometry, felt, felt_channel=channel, reference=reference)
        except CalibrationError as exc:
            raise CalibrationError(f"faces file {fp.name!r}: {exc}") from None
    return profile


def _felt_channel(value: object) -> FeltChannel:
    for channel in FELT_CHANNELS:
        if value == channel:
            return channel
    raise CalibrationError(
        f"camera profile: felt_channel must be one of {', '.join(FELT_CHANNELS)}, got {value!r}"
    )


def draw_preview(image: Image, profile: CameraProfile) -> Image:
    """Draw the board area, the slots and nominal card outlines on the calibration image."""
    out = image.copy()
    geo = profile.geometry
    scale = 16

    def poly(points: FloatArray, colour: tuple[int, int, int], width: int) -> None:
        pts = np.round(points * scale).astype(np.int32)
        cv2.polylines(out, [pts], True, colour, width, cv2.LINE_AA, shift=4)

    for i, quad in enumerate(profile.slot_quads_px()):
        poly(quad, (0, 200, 255), 2)
        card = project(profile.world_to_image,
                        geo.card_corners_mm(geo.slot_centre_mm(i), 0.0))
        poly(card, (255, 200, 0), 1)
        cx, cy = quad.mean(axis=0)
        cv2.putText(out, str(i + 1), (int(cx) - 10, int(cy) + 12), cv2.FONT_HERSHEY_SIMPLEX,
                    1.2, (0, 0, 255), 3, cv2.LINE_AA)
    poly(profile.board_corners_px, (0, 0, 255), 3)
    label = f"{profile.source}; design {profile.design or '?'}"
    cv2.putText(out, label, (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (255, 255, 255), 2,
                cv2.LINE_AA)
    return out


def profile_with_patches(profile: CameraProfile, patches: Mapping[Card, Image],
                         fine_faces: Mapping[Card, Image] | None = None,
                         captured: bool = False) -> CameraProfile:
    """Return the same camera calibration with other face patches (e.g. captured ones).

    ``fine_faces``: the same cards' faces at their registered resolution
    (:meth:`calibration.faces.FaceCapture.fine_faces`), all 52 or None; the profile's own are
    dropped (another deck's). ``captured``: the faces were captured by the camera
    (:attr:`CameraProfile.faces_captured`).
    """
    FaceBank(patches, RecognizerParams())  # validates
    if fine_faces is not None:
        missing = [c.code for c in FULL_DECK if c not in fine_faces]
        if missing:
            raise CalibrationError(f"fine faces lack {' '.join(missing)}")
        fine_faces = {c: fine_grey(fine_faces[c]) for c in FULL_DECK}
    return CameraProfile(
        image_size=profile.image_size, geometry=profile.geometry,
        board_corners_px=profile.board_corners_px, world_to_image=profile.world_to_image,
        felt_ratio=profile.felt_ratio, felt_channel=profile.felt_channel, design=profile.design,
        patches=dict(patches), source=profile.source, board_reference=profile.board_reference,
        fine_faces=fine_faces, faces_captured=captured,
    )
