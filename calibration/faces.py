"""Deck design faces: the 52 card face images of the deck in use.

Rules this module keeps:

1. A face folder holds exactly one ``<rank><suit>.png`` per card (``Ah.png``, ``Td.png``); other
   files are ignored, but a PNG whose name is not a card, a missing card or an unreadable image is
   refused with a :class:`~table_controller.errors.CalibrationError` naming the file.
2. Faces are BGRA ``uint8`` arrays; an image without alpha is taken as fully opaque.
3. Faces registered from the camera (:class:`FaceRegistration`) are captured one card at a time,
   each only after it has lain still and the slot was empty since the one before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from calibration.capturepose import fitted_pose
from calibration.twinfaces import consolidate_twins
from hardware.camera.finetwins import FINE_MIN_PX, fine_grey, quad_size
from hardware.camera.geometry import BoardGeometry
from hardware.camera.recognizer import (
    CANON_PX_PER_MM,
    STORED_PATCH_SIZE,
    CardLocator,
    CardPose,
    FeltChannel,
)
from table_controller.engine.cards import FULL_DECK, Card, CardError
from table_controller.errors import CalibrationError

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]

#: Accepted width / height of a face image (poker cards are 63 / 88 = 0.716).
ASPECT_RANGE = (0.6, 0.8)
MIN_FACE_HEIGHT = 100
#: Frames of a card lying still that :class:`FaceRegistration` waits for and averages into its
#: registered face, each cut along its own pose fitted to the card's edges (benchmark run 76):
#: one frame more than the three it waited for before (a thirtieth of a second at 30 fps).
CAPTURE_FRAMES = 4


def _to_bgra(image: Image, name: str) -> Image:
    import cv2

    if image.ndim == 2:
        image = np.asarray(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR), dtype=np.uint8)
    if image.ndim != 3 or image.shape[2] not in (3, 4):
        raise CalibrationError(f"face {name}: expected a colour image, got shape {image.shape}")
    if image.shape[2] == 3:
        alpha = np.full((*image.shape[:2], 1), 255, np.uint8)
        image = np.concatenate([image, alpha], axis=2)
    h, w = image.shape[:2]
    if h < MIN_FACE_HEIGHT or not ASPECT_RANGE[0] <= w / h <= ASPECT_RANGE[1]:
        raise CalibrationError(
            f"face {name}: {w}x{h} px is not a card face (need at least {MIN_FACE_HEIGHT} px "
            f"tall, width/height between {ASPECT_RANGE[0]} and {ASPECT_RANGE[1]})"
        )
    return np.ascontiguousarray(image)


def load_face_folder(folder: str | Path) -> dict[Card, Image]:
    """Load the 52 faces ``<rank><suit>.png`` of one deck design.

    :raises CalibrationError: if the folder is missing, a card is missing, a PNG name is not a
        card, or an image cannot be read.
    """
    import cv2

    path = Path(folder)
    if not path.is_dir():
        raise CalibrationError(f"face folder {str(path)!r} does not exist or is not a folder")
    faces: dict[Card, Image] = {}
    for file in sorted(path.iterdir()):
        if file.suffix.lower() != ".png":
            continue
        try:
            card = Card.parse(file.stem)
        except CardError as exc:
            raise CalibrationError(
                f"face folder {str(path)!r}: {file.name!r} is not named <rank><suit>.png ({exc})"
            ) from None
        if card.code != file.stem:
            raise CalibrationError(
                f"face folder {str(path)!r}: {file.name!r} should be named {card.code}.png"
            )
        raw = cv2.imread(str(file), cv2.IMREAD_UNCHANGED)
        if raw is None:
            raise CalibrationError(f"face {file}: cannot be read as an image")
        faces[card] = _to_bgra(np.asarray(raw, dtype=np.uint8), str(file))
    missing = [c.code for c in FULL_DECK if c not in faces]
    if missing:
        raise CalibrationError(
            f"face folder {str(path)!r} lacks {len(missing)} of 52 faces: {' '.join(missing)}"
        )
    return faces




def _mean_image(images: Sequence[Image]) -> Image:
    """Return the pixelwise mean of same-shaped ``uint8`` images, rounded (one: itself)."""
    if len(images) == 1:
        return images[0]
    total = np.zeros(images[0].shape, np.float32)
    for image in images:
        total += image
    return np.asarray(np.clip(total / len(images) + 0.5, 0, 255), np.uint8)


class FaceCapture:
    """Register a deck's faces from the camera, one card at a time, in one slot.

    Show each card face up in ``slot`` (any way up) and call :meth:`add`. ``felt_ratio`` and
    ``felt_channel`` are the calibrated felt's (:meth:`CameraProfile.face_capture` passes them).
    """

    def __init__(
        self, world_to_image: FloatArray, geometry: BoardGeometry, felt_ratio: float,
        slot: int = 2, *, felt_channel: FeltChannel = "green",
        board_reference: Image | None = None,
    ) -> None:
        if not 0 <= slot < geometry.slots:
            raise CalibrationError(f"capture slot {slot} is not 0..{geometry.slots - 1}")
        self._locator = CardLocator(world_to_image, geometry, felt_ratio,
                                    felt_channel=felt_channel, reference=board_reference)
        self.slot = slot
        self.card_mm = geometry.card_mm
        self._patches: dict[Card, Image] = {}
        self._fine: dict[Card, Image] = {}

    def locate(self, frame: Image) -> CardPose | None:
        """Return the clean card lying in the capture slot of ``frame``, or None."""
        return self._locator.locate(frame, self.slot)

    def measure_mm(self, frame: Image) -> tuple[float, float] | None:
        """Return the size (mm, width <= height) of the biggest non-felt blob in the slot, or None.

        Tells an installer what card lies there when it is not the profile's card size.
        """
        loc = self._locator
        fg = loc.foreground(loc.warp_board(frame))
        x0 = int(loc.canon_x(self.slot * loc.geometry.slot_width_mm))
        x1 = int(np.ceil(loc.canon_x((self.slot + 1) * loc.geometry.slot_width_mm)))
        part = np.zeros_like(fg)
        part[:, x0:x1] = fg[:, x0:x1]
        contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if not contours:
            return None
        biggest = max(contours, key=cv2.contourArea)
        if cv2.contourArea(biggest) < 0.2 * loc.card_px[0] * loc.card_px[1]:
            return None
        # The blob's whole extent: the slot's columns may cut the card, so measure on fg.
        mask = np.zeros_like(fg)
        cv2.drawContours(mask, [biggest], -1, 255, -1)
        ys, xs = np.nonzero(mask)
        cx = int(np.clip(np.mean(xs), 0, fg.shape[1] - 1))
        cy = int(np.clip(np.mean(ys), 0, fg.shape[0] - 1))
        whole, _ = cv2.findContours(fg, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for contour in whole:
            if cv2.pointPolygonTest(contour, (cx, cy), False) >= 0:
                biggest = contour
                break
        (_, _), (w, h), _ = cv2.minAreaRect(biggest)
        s = CANON_PX_PER_MM
        small, large = sorted((float(w) / s, float(h) / s))
        return (round(small, 1), round(large, 1))

    def add(self, card: Card, frame: Image, *more: Image) -> Image:
        """Cut ``card``'s face from ``frame`` (and each of ``more``) and register it.

        With several frames of the card lying still (:class:`FaceRegistration` passes those it
        waited for), each is cut along its own located pose and the cuts are averaged, stored
        patch and fine face alike: the capture's sensor noise and the locator's jitter, which a
        single frame leaves in the stored face and which a comparison of two captured suit
        twins otherwise takes for a difference of design, shrink by the square root of the
        number of frames. Returns the stored patch.

        :raises CalibrationError: if no clean card lies in the capture slot of a frame.
        """
        frames = (frame, *more)
        poses: list[CardPose] = []
        for one in frames:
            pose = self._locator.locate(one, self.slot)
            if pose is None:
                raise CalibrationError(
                    f"no clean card found in slot {self.slot + 1} for {card.code}; place it "
                    "alone in the slot, face up, with nothing over it"
                )
            poses.append(self._fitted(one, pose))
        patch = _mean_image([self._locator.card_patch(one, pose, STORED_PATCH_SIZE)
                             for one, pose in zip(frames, poses, strict=True)])
        size = quad_size(self._locator.quad_px(poses[0]))
        if min(size) >= FINE_MIN_PX:
            self._fine[card] = _mean_image(
                [fine_grey(self._locator.card_patch(one, pose, size))
                 for one, pose in zip(frames, poses, strict=True)])
        else:
            self._fine.pop(card, None)
        self._patches[card] = patch
        return patch

    def _fitted(self, frame: Image, pose: CardPose) -> CardPose:
        """Return ``pose`` fitted to the card's edges in ``frame`` (as located: fit refused).

        :func:`calibration.capturepose.fitted_pose`.
        """
        fit = fitted_pose(frame, self._locator.quad_px(pose), self._locator.image_to_canon,
                          pose.centre, pose.angle_deg)
        if fit is None:
            return pose
        return replace(pose, centre=fit[0], angle_deg=fit[1])

    def missing(self) -> list[Card]:
        """Cards not registered yet."""
        return [c for c in FULL_DECK if c not in self._patches]

    def patches(self) -> dict[Card, Image]:
        """All 52 patches.

        :raises CalibrationError: if any card is missing.
        """
        missing = self.missing()
        if missing:
            raise CalibrationError(
                f"{len(missing)} cards not captured yet: {' '.join(c.code for c in missing)}"
            )
        return dict(self._patches)

    def fine_faces(self) -> dict[Card, Image] | None:
        """Each captured face's luminance at the size the card has in the frame, or None.

        Kept for the comparison of court suit twins at the frame's own resolution
        (:class:`~hardware.camera.finetwins.FineFaces`): None unless all 52 were captured at
        least :data:`~hardware.camera.finetwins.FINE_MIN_PX` px a side. Brought to one size,
        each pair of suit twins aligned and sharing what it prints alike
        (:func:`calibration.twinfaces.consolidate_twins`).
        """
        if any(c not in self._fine for c in FULL_DECK):
            return None
        return consolidate_twins(self._fine)


@dataclass(frozen=True, slots=True)
class RegistrationStep:
    """What face registration from the camera asks for after one frame.

    :param next_card: the card to show now (None when all 52 are captured).
    :param captured: the card captured from this frame, if one was.
    :param message: one line for the installer (which card, where, progress, or what is wrong).
    """

    next_card: Card | None
    done: int
    total: int
    message: str
    captured: Card | None = None


class FaceRegistration:
    """Register a deck's faces from the camera: says which card to show next, shows progress.

    Feed it frames (:meth:`feed`): when a clean card has lain still in the capture slot for
    ``settle_frames`` frames it is captured as the card asked for, from those frames averaged
    (:meth:`FaceCapture.add`), and the next card is asked for once the slot is empty again (so
    one card is never captured twice). A card of another
    size than the profile's is named with the size measured.

    :param capture: :meth:`calibration.camera.CameraProfile.face_capture`.
    :param order: the order cards are asked for (default 2c 2d 2h 2s 3c ... As).
    """

    def __init__(self, capture: FaceCapture, order: Sequence[Card] = FULL_DECK,
                 settle_frames: int = CAPTURE_FRAMES) -> None:
        if sorted(c.index for c in order) != list(range(52)):
            raise CalibrationError("face registration order must hold each of the 52 cards once")
        if settle_frames < 1:
            raise CalibrationError(f"settle_frames must be at least 1, got {settle_frames}")
        self.capture = capture
        self.order = list(order)
        self.settle_frames = settle_frames
        self._done = 0
        self._await_empty = False
        self._still: list[tuple[tuple[float, float], float]] = []
        self._still_frames: list[Image] = []

    @property
    def next_card(self) -> Card | None:
        """The card to show now, None when all are captured."""
        return self.order[self._done] if self._done < len(self.order) else None

    def prompt(self) -> str:
        """Return what to do now, with the progress."""
        card = self.next_card
        slot = self.capture.slot + 1
        if card is None:
            return f"all {len(self.order)} faces captured"
        if self._await_empty:
            return f"take the card out of slot {slot} ({self._done}/{len(self.order)} captured)"
        return (f"show {card.code} face up, alone, in slot {slot} "
                f"({self._done}/{len(self.order)} captured)")

    def feed(self, frame: Image) -> RegistrationStep:
        """Look at one frame; capture the card asked for once it lies still."""
        card = self.next_card
        total = len(self.order)
        if card is None:
            return RegistrationStep(None, self._done, total, self.prompt())
        pose = self.capture.locate(frame)
        if self._await_empty:
            if pose is None and self.capture.measure_mm(frame) is None:
                self._await_empty = False
            return RegistrationStep(card, self._done, total, self.prompt())
        if pose is None:
            self._still.clear()
            self._still_frames.clear()
            message = self.prompt()
            size = self.capture.measure_mm(frame)
            expected = self.capture.card_mm
            if size is not None and max(abs(size[0] / expected[0] - 1),
                                        abs(size[1] / expected[1] - 1)) > 0.07:
                message = (f"the card in slot {self.capture.slot + 1} measures about "
                           f"{size[0]:.0f} x {size[1]:.0f} mm, not {expected[0]:g} x "
                           f"{expected[1]:g} mm as calibrated (recalibrate with --card-mm), or "
                           "something else lies there; " + message)
            return RegistrationStep(card, self._done, total, message)
        if self._still:
            (x, y), angle = self._still[-1]
            if abs(pose.centre[0] - x) > 1.5 or abs(pose.centre[1] - y) > 1.5 or abs(
                    pose.angle_deg - angle) > 1.0:
                self._still.clear()
                self._still_frames.clear()
        self._still.append((pose.centre, pose.angle_deg))
        self._still_frames.append(frame)
        if len(self._still) < self.settle_frames:
            return RegistrationStep(card, self._done, total, self.prompt())
        self.capture.add(card, *self._still_frames)
        self._done += 1
        self._still.clear()
        self._still_frames.clear()
        self._await_empty = True
        return RegistrationStep(self.next_card, self._done, total,
                                f"captured {card.code}; " + self.prompt(), captured=card)
