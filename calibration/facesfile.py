"""The faces file beside a camera profile: the stored patches and what goes with them.

An ``.npz`` of the 52 face patches (keys: card codes), the empty board's canonical view
(:data:`BOARD_REFERENCE_KEY`) and the faces at their registered resolution
(:data:`FINE_PREFIX` + card code), each of the last two when the profile has them.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

import numpy as np

from hardware.camera.finetwins import FINE_MAX_PX, FINE_MIN_PX
from hardware.camera.readings import Image
from hardware.camera.recognizer import STORED_PATCH_SIZE
from table_controller.engine.cards import FULL_DECK, Card, CardError
from table_controller.errors import CalibrationError

#: Key of the empty board's canonical view in the faces file (beside the 52 card codes).
BOARD_REFERENCE_KEY = "board_reference"
#: Prefix of the keys of the faces at their registered resolution (``fine_`` + card code).
FINE_PREFIX = "fine_"


def patches_bytes(patches: Mapping[Card, Image], reference: Image | None = None,
                   fine: Mapping[Card, Image] | None = None) -> bytes:
    """Return the faces file's bytes: the 52 patches, the board reference, the fine faces."""
    buf = io.BytesIO()
    arrays: dict[str, Any] = {c.code: np.ascontiguousarray(patches[c]) for c in FULL_DECK}
    if reference is not None:
        arrays[BOARD_REFERENCE_KEY] = np.ascontiguousarray(reference)
    for card, grey in (fine or {}).items():
        arrays[FINE_PREFIX + card.code] = np.ascontiguousarray(grey)
    np.savez_compressed(buf, **arrays)
    return buf.getvalue()


def load_patches(
    data: bytes, name: str
) -> tuple[dict[Card, Image], Image | None, dict[Card, Image] | None]:
    """Return a faces file's 52 patches, board reference and fine faces (each if any)."""
    shape = (STORED_PATCH_SIZE[1], STORED_PATCH_SIZE[0], 3)
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            arrays = {k: np.asarray(npz[k]) for k in npz.files}
    except (OSError, ValueError) as exc:
        raise CalibrationError(f"faces file {name!r} is not a valid .npz: {exc}") from None
    patches: dict[Card, Image] = {}
    reference = arrays.pop(BOARD_REFERENCE_KEY, None)
    if reference is not None and (reference.ndim != 3 or reference.dtype != np.uint8):
        raise CalibrationError(
            f"faces file {name!r}: {BOARD_REFERENCE_KEY} has shape {reference.shape} "
            f"{reference.dtype}, expected a BGR uint8 image"
        )
    fine = _load_fine(arrays, name)
    for key, arr in arrays.items():
        card = _card_of(key, key, name)
        if arr.shape != shape or arr.dtype != np.uint8:
            raise CalibrationError(
                f"faces file {name!r}: {key} has shape {arr.shape} {arr.dtype}, "
                f"expected {shape} uint8"
            )
        patches[card] = arr
    missing = [c.code for c in FULL_DECK if c not in patches]
    if missing:
        raise CalibrationError(f"faces file {name!r} lacks {' '.join(missing)}")
    return patches, reference, fine


def _card_of(code: str, key: str, name: str) -> Card:
    """Return the card ``code`` names; a key naming no card is refused as the file's error."""
    try:
        return Card.parse(code)
    except CardError:
        raise CalibrationError(f"faces file {name!r}: {key!r} is not a card") from None


def _load_fine(arrays: dict[str, Image], name: str) -> dict[Card, Image] | None:
    """Take the ``fine_<code>`` arrays out of ``arrays``: all 52 grey faces, or None if none."""
    keys = [k for k in arrays if k.startswith(FINE_PREFIX)]
    if not keys:
        return None
    fine: dict[Card, Image] = {}
    for key in keys:
        arr = arrays.pop(key)
        card = _card_of(key[len(FINE_PREFIX):], key, name)
        if arr.ndim != 2 or arr.dtype != np.uint8:
            raise CalibrationError(
                f"faces file {name!r}: {key} has shape {arr.shape} {arr.dtype}, "
                "expected a grey uint8 image"
            )
        if not (min(arr.shape) >= FINE_MIN_PX and max(arr.shape) <= FINE_MAX_PX):
            raise CalibrationError(
                f"faces file {name!r}: {key} is {arr.shape[1]} x {arr.shape[0]} px, expected "
                f"{FINE_MIN_PX} to {FINE_MAX_PX} px a side"
            )
        fine[card] = arr
    missing = [c.code for c in FULL_DECK if c not in fine]
    if missing:
        raise CalibrationError(f"faces file {name!r} lacks fine faces {' '.join(missing)}")
    return fine
