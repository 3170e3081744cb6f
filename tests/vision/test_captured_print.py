"""Faces captured by the camera: a pip card's suit sign is its own, not shared with its twin
(:func:`calibration.twinfaces.consolidate_twins`, benchmark run 96)."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.twinfaces import consolidate_twins
from table_controller.engine.cards import FULL_DECK, Card

SIZE = (157, 211)  # w, h: a bridge card as the camera of run 96 captured it
FINE = 4  # the face is drawn this many times finer, then reduced (area) as a camera samples


def _capture(rng: np.random.Generator, shift: tuple[float, float],
             sign: str | None = None) -> np.ndarray:
    """A face: paper, a thin frame line 5 px inside the edge, a dark index of its own.

    ``shift``: where this capture's pixel grid fell on the print (px): each capture samples
    the frame line at its own fraction of a pixel. ``sign``: a small suit sign of 49 ink
    pixels in the top-left corner, a disc (``club``) or a square (``spade``).
    """
    w, h = SIZE[0] * FINE, SIZE[1] * FINE
    face = np.full((h, w), 230, np.float32)
    dx, dy = (round(v * FINE) for v in shift)
    cv2.rectangle(face, (5 * FINE + dx, 5 * FINE + dy), (w - 6 * FINE + dx, h - 6 * FINE + dy),
                  90.0, FINE)
    index = rng.uniform(0, 255, (6, 4)).astype(np.float32)
    face[40 * FINE:100 * FINE, 50 * FINE:90 * FINE] = cv2.resize(
        index, (40 * FINE, 60 * FINE), interpolation=cv2.INTER_NEAREST)
    small = cv2.resize(face, SIZE, interpolation=cv2.INTER_AREA)
    if sign == "club":
        cv2.circle(small, (16, 30), 4, 20.0, -1)
    elif sign == "spade":
        small[27:34, 13:20] = 20.0
    noisy = small + rng.normal(0, 1.0, small.shape)
    return np.asarray(np.clip(noisy + 0.5, 0, 255), np.uint8)


def _deck(rng: np.random.Generator) -> dict[Card, np.ndarray]:
    return {c: _capture(rng, (float(rng.uniform(-0.5, 0.5)), float(rng.uniform(-0.5, 0.5))))
            for c in FULL_DECK}


def test_a_pip_cards_suit_sign_is_not_shared_with_its_twin() -> None:
    # A disc and a square of as many ink pixels at one place: their signed difference
    # blurred by 2 px stays under 5 grey levels, as a club's and a spade's small signs at the
    # frame's resolution do (16-20 at most, run 96). Shared, both took one blended sign.
    rng = np.random.default_rng(97)
    faces = _deck(rng)
    club, spade = Card.parse("8c"), Card.parse("8s")
    faces[club] = _capture(rng, (0.0, 0.0), "club")
    faces[spade] = _capture(rng, (0.0, 0.0), "spade")
    sign = (slice(25, 36), slice(11, 22))
    out = consolidate_twins(faces)
    assert np.array_equal(out[club][sign], faces[club][sign])
    assert np.array_equal(out[spade][sign], faces[spade][sign])
    assert np.abs(out[club][sign].astype(float) - out[spade][sign].astype(float)).max() > 150
