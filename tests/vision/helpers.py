from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from calibration.camera import CameraProfile, calibrate_camera
from hardware.camera.blurmatch import blur_kernel
from hardware.camera.facebank import FaceBank, Match
from hardware.camera.finetwins import FineFaces, FineView
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.recognizer import BoardReading, BoardRecognizer
from hardware.camera.rivals import RivalChecks
from hardware.camera.suits import Blur, observed_luminance
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


def kept_image(design: str, name: str) -> Image:
    """An image kept in ``tests/vision/data/<design>/<name>.png``, BGR."""
    image = cv2.imread(str(ROOT / "tests" / "vision" / "data" / design / f"{name}.png"),
                       cv2.IMREAD_COLOR)
    assert image is not None
    return np.asarray(image, np.uint8)


def kept_observation(design: str, name: str) -> F32:
    """A kept cut of a card as a frame showed it (:func:`kept_image`), as observed luminance."""
    return observed_luminance(kept_image(design, name))


def kept_look(fine: FineFaces | None, design: str, card: Card,
              quad: Sequence[tuple[float, float]],
              hidden: tuple[bool, bool, bool, bool] = (False, False, False, False)) -> F32:
    """The kept cut ``observed-<card>``, its place in the kept ``frame-<card>`` noted on ``fine``.

    ``quad`` is the card's corners in that frame (px; TL, TR, BR, BL upright), ``hidden`` the
    corner boxes a neighbour may lie over (:class:`FineView`).
    """
    observed = kept_observation(design, f"observed-{card}")
    assert fine is not None
    fine.look(observed, FineView(kept_image(design, f"frame-{card}"),
                                 np.array(quad, np.float64), hidden))
    return observed


def twin_match(card: Card, twin: Card, other: Card, scores: tuple[float, float, float],
               margin: float, discriminant: float, separation: float,
               discriminant_others: float, separation_others: float) -> Match:
    """A whole face's match as a frame gave it: ``card`` first, its suit twin second and the
    best card of another rank third (``scores`` in that order)."""
    ranked = (card, twin, other)
    return Match(card, scores[0], margin, discriminant, separation, twin,
                 discriminant_others=discriminant_others, separation_others=separation_others,
                 other=other, ranked=ranked, ranked_scores=scores, close=ranked,
                 close_scores=scores)


def with_kept_bank(faces: dict[Card, Image], design: str, cards: Sequence[Card],
                   params: RecognizerParams) -> FaceBank:
    """The face bank of ``faces`` with ``cards`` replaced by a design's kept ones."""
    return FaceBank.from_faces(with_kept_faces(faces, design, cards), params)


def kept_bank(faces: dict[Card, Image], design: str, cards: Sequence[Card], card: Card,
              quad: Sequence[tuple[float, float]], params: RecognizerParams,
              hidden: tuple[bool, bool, bool, bool] = (False, False, False, False),
              ) -> tuple[FaceBank, F32]:
    """The bank of ``faces`` with ``cards`` kept, and :func:`kept_look` of ``card`` on it."""
    bank = with_kept_bank(faces, design, cards, params)
    return bank, kept_look(bank.fine, design, card, quad, hidden)


def streaked(patch: Image, blur: Blur, rng: np.random.Generator, noise: float = 2.0,
             quality: int = 90) -> Image:
    """``patch`` through a camera: blurred by ``blur``, sensor noise, a JPEG of ``quality``."""
    soft = cv2.filter2D(patch.astype(np.float32), -1, blur_kernel(blur),
                        borderType=cv2.BORDER_REPLICATE)
    noisy = np.asarray(np.clip(soft + rng.normal(0, noise, patch.shape), 0, 255), np.uint8)
    ok, jpeg = cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return np.asarray(cv2.imdecode(jpeg, cv2.IMREAD_COLOR), np.uint8)


class BareChecks(RivalChecks):
    """The recogniser's rival checks on a face bank alone (no frame, no located cards)."""

    def __init__(self, bank: FaceBank, params: RecognizerParams) -> None:
        self.bank = bank
        self.params = params


def kept_checks(faces: dict[Card, Image], design: str, cards: Sequence[Card],
                params: RecognizerParams | None = None) -> BareChecks:
    """:class:`BareChecks` on ``faces`` with ``cards`` replaced by a design's kept faces."""
    params = RecognizerParams() if params is None else params
    return BareChecks(FaceBank.from_faces(with_kept_faces(faces, design, cards), params),
                      params)
