from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from calibration.faces import load_face_folder
from hardware.sim.faces import face_folder
from table_controller.engine.cards import Card

ROOT = Path(__file__).resolve().parents[2]
FACES = {"kennard": face_folder("kennard"), "svg-cards": ROOT / "examples" / "cards" / "svg-cards"}

Faces = dict[Card, npt.NDArray[np.uint8]]


@pytest.fixture(scope="session")
def kennard() -> Faces:
    return load_face_folder(FACES["kennard"])


@pytest.fixture(scope="session")
def svg_cards() -> Faces:
    return load_face_folder(FACES["svg-cards"])
