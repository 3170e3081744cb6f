"""A face's own pale print is no glare: what the registered face shows on itself is left out.

synth-9260 poker (jumbo indices in two corners, four colours, one court picture for all
twelve courts, the picture on a pale blue fill): the glare mask took the fill, most of the
face's paper, for the paper's level and the white around it for a glare, on the clean
registered face as on every frame. The other courts then differed from the read "only under
the glare", and a king of clubs the whole face read at 0.995 on a plain medium frame was
refused (benchmark run 105). The faces kept are the twelve courts at the stored size.
"""

from __future__ import annotations

import numpy as np
import pytest

from hardware.camera.facebank import STORED_PATCH_SIZE, face_patch
from hardware.camera.glare import glare_mask
from hardware.camera.readings import SlotReading
from hardware.camera.suits import observed_luminance
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import BareChecks, kept_checks
from .test_glare import _camera, _glare

DESIGN = "synth-9260-poker"
COURTS = [Card.parse(r + s) for r in "JQK" for s in "cdhs"]
KING = Card.parse("Kc")


@pytest.fixture(scope="module")
def checks(kennard: Faces) -> BareChecks:
    return kept_checks(kennard, DESIGN, COURTS)


def _dimmed(patch: np.ndarray) -> np.ndarray:
    """The card under a table's light: its white well under the sensor's top."""
    return np.asarray(patch.astype(np.float32) * 0.85, np.uint8)


def _king(checks: BareChecks) -> np.ndarray:
    return face_patch(np.asarray(checks.bank.patches[KING]), STORED_PATCH_SIZE)


def test_the_registered_face_shows_a_glare_on_itself(checks: BareChecks) -> None:
    """The plain mask's own answer on the clean face: why it is left out (not a fix's test)."""
    own, shows = glare_mask(_king(checks), checks.bank.luminance(KING))
    assert shows and own.mean() > 0.3


def test_no_glare_on_a_clean_view_of_a_pale_filled_court(checks: BareChecks) -> None:
    view = _camera(_dimmed(_king(checks)), np.random.default_rng(11))
    glare, shows = checks._glare_on(view, KING)
    assert shows and not glare.any()


def test_a_clean_court_read_is_kept_by_the_glare_check(checks: BareChecks) -> None:
    view = _camera(_dimmed(_king(checks)), np.random.default_rng(11))
    read = SlotReading("card", KING, 0.9, None, 0.99, 0.05, 0.8, 0.05)
    kept = checks._glare_confirmed(observed_luminance(view), view, read)
    assert kept.status == "card" and kept.card == KING


def test_a_glare_over_the_pale_fill_is_still_found(checks: BareChecks) -> None:
    """Leaving out the face's own print leaves a glare lifting the fill itself seen."""
    king = _king(checks)
    h, w = king.shape[:2]
    spot = (0.5 * w, 0.5 * h)  # the picture's middle: its pale fill
    own = checks._own_glare(KING)
    assert not own[round(spot[1]), round(spot[0])]
    view = _camera(_glare(_dimmed(king), spot, 9.0, 0.8), np.random.default_rng(12))
    glare, shows = checks._glare_on(view, KING)
    assert shows and glare[round(spot[1]), round(spot[0])]


def test_a_face_whose_white_has_no_plane_shows_no_own_glare(kennard: Faces) -> None:
    """synth-8119 poker's queen of diamonds: its noiseless paper leaves the plane singular."""
    queen = Card.parse("Qd")
    checks = kept_checks(kennard, "synth-8119-poker", [queen])
    assert not checks._own_glare(queen).any()
    view = _camera(_dimmed(face_patch(np.asarray(checks.bank.patches[queen]),
                                      STORED_PATCH_SIZE)), np.random.default_rng(13))
    glare, _ = checks._glare_on(view, queen)
    assert glare.shape == view.shape[:2]
