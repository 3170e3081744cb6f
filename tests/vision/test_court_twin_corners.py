"""A one-picture court and its suit twin decided on the corners at the frame's resolution.

The kept frame is a king of clubs of a generated tuning design (``synth-6132-poker``: normal
indices in four corners, two colours, one picture for all twelve courts) as a medium plain
scene showed it (benchmark run 85, scene seed 5221400, frame 1 slot 1), cut round the card with
its located corners; the fine faces are the king of clubs' and of spades' registered faces
(their luminance at the resolution :func:`~hardware.camera.finetwins.fine_grey` keeps), all in
``tests/vision/data/synth-6132-poker``. The whole face and the stored faces left the two kings
undecided; the four corners leaned 0.94, 1.05, 0.52 and 0.65 towards the club at 5.5, 6.6, 2.6
and 4.3 times their noise, and the weakest one kept the pair from being decided (every corner
at 3 times): the king was left ``uncertain`` where every corner leans to the club.
"""

from __future__ import annotations

import numpy as np
import pytest

from hardware.camera.finedecide import (
    MIN_CORNERS,
    NOISE_RATIO,
    TWIN_WEAKEST_RATIO,
    CornerLean,
    FineLean,
    decide_fine,
)
from hardware.camera.finetwins import (
    FineFaces,
    FineView,
    fine_lean,
)
from table_controller.engine.cards import Card

from .helpers import kept_image

DESIGN = "synth-6132-poker"
KC, KS, QC = Card.parse("Kc"), Card.parse("Ks"), Card.parse("Qc")
#: The king's corners in the kept cut (TL, TR, BR, BL of the card upright), as located.
QUAD = np.array([[221.831, 261.273], [19.506, 265.685], [12.237, 17.191], [213.749, 12.827]])


def _grey(name: str) -> np.ndarray:
    return np.asarray(kept_image(DESIGN, name)[:, :, 0])


@pytest.fixture(scope="module")
def fine() -> tuple[FineFaces, np.ndarray]:
    faces = FineFaces({KC: _grey("fine-Kc"), KS: _grey("fine-Ks"), QC: _grey("fine-Kc")})
    observed = np.zeros((4, 4), np.float32)
    observed.setflags(write=False)
    faces.look(observed, FineView(kept_image(DESIGN, "frame-Kc"), QUAD))
    return faces, observed


def test_every_corner_leans_to_the_club_one_under_three_times_its_noise(
        fine: tuple[FineFaces, np.ndarray]) -> None:
    faces, _ = fine
    lean = fine_lean(kept_image(DESIGN, "frame-Kc"), QUAD, KC, KS, faces)
    assert lean is not None and len(lean.corners) == 4
    ratios = sorted(c.lean / c.noise for c in lean.corners)
    assert all(c.lean >= 0.3 and c.fit >= 0.8 for c in lean.corners)
    assert TWIN_WEAKEST_RATIO <= ratios[0] < NOISE_RATIO <= ratios[1]
    # At 3 times for every corner (before): undecided.
    assert decide_fine(lean) == 0
    assert decide_fine(lean, weakest=TWIN_WEAKEST_RATIO) == 1


def test_the_king_of_clubs_is_decided_against_the_spade(
        fine: tuple[FineFaces, np.ndarray]) -> None:
    faces, observed = fine
    sign, weakest = faces.decide(observed, KC, KS)
    assert sign == 1 and weakest >= 0.5
    assert faces.decide(observed, KS, KC)[0] == -1


def test_the_weakest_corner_bound_is_for_court_twins_alone(
        fine: tuple[FineFaces, np.ndarray]) -> None:
    """Another pair (here two ranks, the queen given the king's face) keeps 3 times."""
    faces, observed = fine
    lean = fine_lean(kept_image(DESIGN, "frame-Kc"), QUAD, QC, KS, faces)
    assert lean is not None and decide_fine(lean) == 0
    assert faces.decide(observed, QC, KS) == (0, 0.0)


def test_two_corners_must_lean_clearly_at_three_times() -> None:
    """Corners at 2.5-3 times alone decide nothing, however many."""
    weak = FineLean(tuple(CornerLean(k, 0.8, 0.3, 0.95) for k in range(4)), (1.0, 0, 0), 4)
    assert MIN_CORNERS == 2
    assert decide_fine(weak, weakest=TWIN_WEAKEST_RATIO) == 0
    one = FineLean((CornerLean(0, 1.2, 0.3, 0.95), *weak.corners[1:]), (1.0, 0, 0), 4)
    assert decide_fine(one, weakest=TWIN_WEAKEST_RATIO) == 0
    two = FineLean((*one.corners[:1], CornerLean(1, 1.2, 0.3, 0.95), *weak.corners[2:]),
                   (1.0, 0, 0), 4)
    assert decide_fine(two, weakest=TWIN_WEAKEST_RATIO) == 1
    assert decide_fine(two) == 0
