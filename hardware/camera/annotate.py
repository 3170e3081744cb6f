"""A frame with what the recogniser read drawn on it (``vision read --annotate``).

Each slot's box (orange), the card found in it (green when read, yellow when uncertain, red when
occluded) and a label: the card and its confidence, or the status (with the best candidate of an
uncertain read, marked ``?``).
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from hardware.camera.recognizer import BoardReading, BoardRecognizer, SlotReading

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]

COLOURS = {
    "card": (60, 220, 60), "uncertain": (0, 220, 255), "occluded": (40, 40, 255),
    "empty": (200, 200, 200),
}


def label(slot: SlotReading) -> str:
    """Short text for one slot: ``Qh 0.97``, ``uncertain (Qh?)``, ``occluded``, ``empty``.

    >>> label(SlotReading("empty", confidence=0.9))
    'empty'
    """
    if slot.status == "card" and slot.card is not None:
        return f"{slot.card.code} {slot.confidence:.2f}"
    if slot.status == "uncertain" and slot.candidate is not None:
        return f"uncertain ({slot.candidate.code}?)"
    return slot.status


def annotate(frame: Image, recognizer: BoardRecognizer, reading: BoardReading) -> Image:
    """Return a copy of ``frame`` with the slots, the cards found and the reading drawn."""
    out = frame.copy()
    geo = recognizer.geometry
    sw, bh = geo.slot_width_mm, geo.board_mm[1]

    def poly(points: FloatArray, colour: tuple[int, int, int], width: int) -> None:
        pts = np.round(points * 16).astype(np.int32)
        cv2.polylines(out, [pts], True, colour, width, cv2.LINE_AA, shift=4)

    h = recognizer.world_to_image
    for i, slot in enumerate(reading.slots):
        world = np.array([[i * sw, 0], [(i + 1) * sw, 0], [(i + 1) * sw, bh], [i * sw, bh]],
                         np.float64)
        box = np.asarray(cv2.perspectiveTransform(world.reshape(-1, 1, 2), h).reshape(-1, 2),
                         np.float64)
        poly(box, (0, 160, 255), 2)
        colour = COLOURS.get(slot.status, (255, 255, 255))
        pose = recognizer.locate(frame, i) if slot.status != "empty" else None
        if pose is not None:
            poly(recognizer.quad_px(pose), colour, 3)
        text = label(slot)
        x = int(box[:, 0].min()) + 6
        y = int(box[:, 1].max()) + 34
        cv2.putText(out, f"{i + 1}: {text}", (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 0),
                    5, cv2.LINE_AA)
        cv2.putText(out, f"{i + 1}: {text}", (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.9, colour, 2,
                    cv2.LINE_AA)
    return out
