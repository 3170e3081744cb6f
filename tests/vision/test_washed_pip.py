"""A pip washed out on paper at the sensor's top is asked of the uncovered corner indices.

The faces are the 2 and the 3 of spades of a generated design (``synth-9181-poker``: normal
indices in four corners, four colours), and the observation is a 3 of spades as a hard gloss
scene showed it (benchmark run 77, scene seed 2603801, frame 6, slot 0; cut upright at the
stored size where the recogniser located it), all kept in ``tests/vision/data``. A gloss
streak washed the 3's middle pip out on paper within 10 grey levels of the sensor's top, where
no glare can show: the whole face read the 2 of spades at 0.73, no glare was found and no
hidden rival was asked of the index, while both corner indices leaned towards the 3.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.camera.facebank import STORED_PATCH_SIZE, face_patch
from hardware.camera.glare import HiddenRivals, glare_mask
from hardware.camera.readings import SlotReading
from hardware.camera.suits import observed_luminance
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import BareChecks, kept_checks, kept_image, with_kept_faces

TWO, THREE = Card.parse("2s"), Card.parse("3s")


@pytest.fixture(scope="module")
def checks(kennard: Faces) -> BareChecks:
    """Kennard with its 2 and 3 of spades replaced by the design's."""
    return kept_checks(kennard, "synth-9181-poker", (TWO, THREE))


def _seen() -> np.ndarray:
    return kept_image("synth-9181-poker", "observed-3s")


def _read_as(card: Card) -> SlotReading:
    return SlotReading("card", card, 0.73, None, 0.936, 0.02, 0.5, 0.169)


def test_no_glare_can_show_on_the_washed_three(checks: BareChecks) -> None:
    """The frame as it was: paper at the top, no glare found, so no hidden rival."""
    patch = _seen()
    mask, shows = glare_mask(patch, checks.bank.luminance(TWO))
    assert not shows and not mask.any()
    hidden = HiddenRivals(checks.bank.luminance)
    assert hidden.hidden(TWO, mask) == []
    assert hidden.one_blob(TWO) == [THREE]
    # Every corner tells the two apart, and together they lean to the 3.
    index = checks.bank.index.read(observed_luminance(patch))
    at = index.position(TWO, THREE)
    assert at is not None and at < 0.0


def test_the_washed_three_is_not_read_as_the_two(checks: BareChecks) -> None:
    patch = _seen()
    refused = checks._glare_confirmed(observed_luminance(patch), patch, _read_as(TWO))
    assert refused.status == "uncertain" and refused.card is None
    # Nothing over the card (no neighbour located there): the same.
    again = checks._glare_confirmed(observed_luminance(patch), patch, _read_as(TWO),
                                    lambda: None)
    assert again.status == "uncertain"


def test_the_three_itself_is_still_read(checks: BareChecks) -> None:
    """Read as the 3, the same cut has no card one washed pip would make it."""
    patch = _seen()
    assert checks._hidden_rivals().one_blob(THREE) == []
    kept = checks._glare_confirmed(observed_luminance(patch), patch, _read_as(THREE))
    assert kept.status == "card" and kept.card == THREE


def _two_at_the_top(faces: Faces, rng: np.random.Generator) -> np.ndarray:
    """The design's 2 of spades under a bright light: its white at the sensor's top."""
    patch = face_patch(faces[TWO], STORED_PATCH_SIZE)
    soft = cv2.GaussianBlur(patch.astype(np.float32), (0, 0), 1.0) * 1.12 + 6.0
    return np.asarray(np.clip(soft + rng.normal(0, 1.5, patch.shape), 0, 255), np.uint8)


def test_corners_under_a_neighbour_are_left_out(kennard: Faces, checks: BareChecks) -> None:
    """A 2 whose corners but the bottom-right show a 3's index (a neighbour's print lying
    over them) is refused when nothing is known over it, and read when those corners are
    known covered; when every corner is covered, all are asked again."""
    faces = with_kept_faces(kennard, "synth-9181-poker", (TWO, THREE))
    rng = np.random.default_rng(80)
    two = _two_at_the_top(faces, rng)
    three = _two_at_the_top({TWO: faces[THREE]}, rng)
    h, w = two.shape[:2]
    bw, bh = checks.bank.index.box
    bw, bh = bw + 4, bh + 4
    printed = two.copy()
    over = np.zeros((h, w), np.uint8)
    for ys, xs in ((slice(0, bh), slice(0, bw)), (slice(0, bh), slice(w - bw, w)),
                   (slice(h - bh, h), slice(0, bw))):
        printed[ys, xs] = three[ys, xs]
        over[ys, xs] = 255
    assert not glare_mask(printed, checks.bank.luminance(TWO))[1]
    assert checks.bank.index.covered(over).tolist() == [True, True, True, False]
    ob, read = observed_luminance(printed), _read_as(TWO)
    assert checks._glare_confirmed(observed_luminance(two), two, read).status == "card"
    assert checks._glare_confirmed(ob, printed, read).status == "uncertain"
    assert checks._glare_confirmed(ob, printed, read, lambda: over).status == "card"
    every = np.full_like(over, 255)
    assert checks._glare_confirmed(ob, printed, read, lambda: every).status == "uncertain"
