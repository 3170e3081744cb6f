from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from calibration.camera import CameraProfile, calibrate_camera
from hardware.camera.readings import RecognizerParams
from hardware.camera.recognizer import BoardReading, BoardRecognizer
from hardware.sim import scene as S
from table_controller.engine.cards import Card

from .conftest import ROOT

Image = npt.NDArray[np.uint8]


@dataclass
class Rig:
    """A fixed simulated camera, calibrated from its markers, with the deck's faces."""

    faces: dict[Card, Image]
    camera: S.CameraSetup
    profile: CameraProfile
    recognizer: BoardRecognizer


def make_rig(faces: dict[Card, Image], seed: int, level: S.Level = S.Level.MEDIUM) -> Rig:
    rng = np.random.default_rng(seed)
    cam = S.make_camera(rng, level, S.geometry_for_faces(faces))
    empty = S.render(faces, [], cam, rng, S.Perturbations(noise_sigma=2.0, jpeg_quality=90))
    profile = calibrate_camera(empty.image, faces, design="test")
    return Rig(faces, cam, profile, profile.recognizer())


def board(text: str) -> list[Card | None]:
    cards: list[Card | None] = [Card.parse(c) for c in text.split()]
    return cards + [None] * (5 - len(cards))


@dataclass
class Tally:
    cards: int = 0
    correct: int = 0
    uncertain: int = 0
    wrong: int = 0


def score(truth: Sequence[S.SlotTruth], reading: BoardReading, tally: Tally) -> None:
    for t, r in zip(truth, reading.slots, strict=True):
        if t.status == "card":
            tally.cards += 1
            if r.status == "card" and r.card == t.card:
                tally.correct += 1
            elif r.status == "card":
                tally.wrong += 1
            else:
                tally.uncertain += 1
        elif t.status == "empty":
            if r.status == "card":
                tally.wrong += 1
        elif r.status == "card" and r.card != t.card:
            tally.wrong += 1


def with_and_without(faces: dict[Card, Image], off: RecognizerParams, seed: int,
                     frames: int = 16, level: S.Level = S.Level.HARD) -> tuple[Tally, Tally]:
    """Score rendered boards read by a rig's recogniser and by one with ``off``'s parameters.

    The rig's camera comes from ``seed``, the boards from ``seed + 1``.
    """
    rig = make_rig(faces, seed=seed, level=level)
    other = rig.profile.recognizer(off)
    rng = np.random.default_rng(seed + 1)
    with_rule, without = Tally(), Tally()
    for _ in range(frames):
        scene = S.render_board(faces, S.random_board(rng), rng, level, rig.camera)
        score(scene.truth, rig.recognizer.read(scene.image), with_rule)
        score(scene.truth, other.read(scene.image), without)
    return with_rule, without


def with_kept_faces(faces: dict[Card, Image], design: str,
                    cards: Sequence[Card]) -> dict[Card, Image]:
    """``faces`` with ``cards`` replaced by a design's kept in ``tests/vision/data/<design>``."""
    out = dict(faces)
    for card in cards:
        face = cv2.imread(str(ROOT / "tests" / "vision" / "data" / design / f"{card}.png"),
                          cv2.IMREAD_UNCHANGED)
        assert face is not None
        out[card] = np.asarray(face, np.uint8)
    return out
