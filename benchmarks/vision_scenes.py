"""The vision benchmark's scenes: the decks' face folders, the scene seeds, the stream's hands.

Used by :mod:`benchmarks.bench_vision` (which re-exports these names) and by the camera
process benchmark and the vision tests, which render the same hands dealt in front of a fixed
camera (:func:`stream_scenes`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

from hardware.sim import scene as S
from hardware.sim.faces import face_folder
from table_controller.engine.cards import Card

Image = npt.NDArray[np.uint8]
ROOT = Path(__file__).resolve().parents[1]


def deck_folder(design: str) -> Path:
    """Return the faces folder of a design name (kennard, a folder under examples/cards) or path."""
    if "/" in design:
        return Path(design)
    return face_folder(design) if design == "kennard" else ROOT / "examples" / "cards" / design


def stream_scenes(faces: dict[Card, Image], rng: np.random.Generator, level: S.Level,
                  cam: S.CameraSetup, frames: int, per_step: int = 10) -> list[S.Scene]:
    """Frames as a fixed camera sees hands dealt: empty, flop, turn, river, ``per_step`` each.

    What a dealer does, street by street: the first frame shows the dealer's hand laying the
    street's last card (the hand half over it, the card a few millimetres short of where it
    comes to rest, as :attr:`~hardware.sim.situations.Situation.PLACING`; the empty board's
    first frame: a hand over the felt, the cards just swept away), the second the cards at rest
    with the hand drawing back over some of the board, then the board unchanged, except one
    frame halfway where a hand passes over the board and leaves the cards as they were. The
    light is drawn once per hand (a room's light does not change between frames); the sensor
    noise and JPEG are fresh in every frame. ``per_step`` under 4 keeps only the first frames.
    """
    out: list[S.Scene] = []
    while len(out) < frames:
        placements = S.place_cards(rng, S.random_board(rng), level, cam.geometry)
        pert = S.sample_perturbations(rng, level, cam)
        for shown in (0, 3, 4, 5):
            on = [p for p in placements if p.slot < shown]
            laid = [p for p in on if p.slot == shown - 1]
            for k in range(per_step):
                hand: S.Hand | None = None
                cards = on
                if k == 0 and laid:
                    last = laid[0]
                    x, y = last.centre_mm
                    short = replace(last, centre_mm=(x + float(rng.uniform(-3, 3)),
                                                     y + float(rng.uniform(3, 12))))
                    cards = [short if p is last else p for p in on]
                    hand = replace(S.random_hand(rng, cam.geometry),
                                   centre_mm=(x + float(rng.uniform(-15, 15)),
                                              y + float(rng.uniform(80, 100))),
                                   angle_deg=float(rng.uniform(-15, 15)))
                elif k == 0 or (k == 1 and laid) or (k == per_step // 2 and per_step >= 4):
                    hand = S.random_hand(rng, cam.geometry)
                out.append(S.render(faces, cards, cam, rng, pert, hand))
    return out[:frames]


def extra_seed(seed_base: int, deck: int, level: int) -> int:
    """The scene seed of an extra design's plain scenes: ``seed_base + 1000 + 100 * deck + 10 *
    level`` for the first twenty designs (the seeds every earlier run recorded); designs past
    the twentieth go to their own block above all the others', so no two scenes share a seed."""
    if deck < 20:
        return seed_base + 1000 + 100 * deck + 10 * level
    return seed_base + 100_000 + 100 * deck + 10 * level


def situation_seed(seed_base: int, situation: int, deck: int, level: int) -> int:
    """The scene seed of a situation run: ``seed_base + 3000 + 100 * situation + 10 * deck +
    level`` for the first ten designs (the seeds every earlier run recorded); each further ten
    designs take a block of their own ``10_000`` higher, so no two scenes share a seed however
    many designs are listed."""
    block, deck_in_block = divmod(deck, 10)
    return seed_base + 3000 + 10_000 * block + 100 * situation + 10 * deck_in_block + level
