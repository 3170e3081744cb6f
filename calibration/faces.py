"""Deck design faces: the 52 card face images of the deck in use.

Rules this module keeps:

1. A face folder holds exactly one ``<rank><suit>.png`` per card (``Ah.png``, ``Td.png``); other
   files are ignored, but a PNG whose name is not a card, a missing card or an unreadable image is
   refused with a :class:`~table_controller.errors.CalibrationError` naming the file.
2. Faces are BGRA ``uint8`` arrays; an image without alpha is taken as fully opaque.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

from table_controller.engine.cards import FULL_DECK, Card, CardError
from table_controller.errors import CalibrationError

Image = npt.NDArray[np.uint8]

#: Accepted width / height of a face image (poker cards are 63 / 88 = 0.716).
ASPECT_RANGE = (0.6, 0.8)
MIN_FACE_HEIGHT = 100


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


