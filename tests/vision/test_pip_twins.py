"""Suit twins told apart by large pips: the placebo lean takes its own brightness.

The two faces are the 7 of clubs and the 7 of spades of a generated tuning design
(``var/synth/synth-9149-poker``: pips 0.117 of the card's height, a club of three round lobes
against a spade of one point, small corner suit marks), kept in ``tests/vision/data``.
"""

from __future__ import annotations

import numpy as np
import pytest

from hardware.camera import blurmatch
from hardware.camera.blurmatch import (
    PIP_SHARE,
    blurred_lean_noise,
    blurred_pair_check,
    pip_share,
)
from hardware.camera.facebank import STORED_PATCH_SIZE, FaceBank, Match, face_patch
from hardware.camera.readings import RecognizerParams
from hardware.camera.suits import _pair, _region, face_luminance, observed_luminance, read_only
from hardware.camera.twindecide import decide_twin
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import streaked, with_kept_faces
from .test_suits import shared_courts

CLUB, SPADE = Card.parse("7c"), Card.parse("7s")


def _pip_faces(kennard: Faces) -> Faces:
    """Kennard with its 7 of clubs and 7 of spades replaced by the large-pip design's."""
    return with_kept_faces(kennard, "synth-9149-poker", (CLUB, SPADE))


def _streaked(patch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``patch`` through a camera: an 8 px motion streak, sensor noise, JPEG q90."""
    return streaked(patch, (0.0, 8, 112), rng)


def _decide(faces: Faces, first: Card, second: Card) -> tuple[Card | None, float, float | None]:
    """decide_twin on the 7 of spades through the camera, ``first`` as the whole face's best."""
    params = RecognizerParams()
    bank = FaceBank.from_faces(faces, params)
    ob = observed_luminance(_streaked(face_patch(faces[SPADE], STORED_PATCH_SIZE),
                                      np.random.default_rng(59)))
    match = Match(first, 0.97, 0.002, 0.1, 0.01, second, discriminant_others=0.9,
                  separation_others=0.3)
    decided = decide_twin(ob, match, bank, params)
    spade, club = bank.luminance(SPADE), bank.luminance(CLUB)
    return (None if decided is None else decided[0].card,
            blurred_pair_check(ob, spade, club).position, blurred_lean_noise(ob, spade, club))


def test_pips_tell_these_twins_apart(kennard: Faces) -> None:
    """The two faces differ in their pips, not their corners; shared-court kings do not."""
    faces = _pip_faces(kennard)
    fc, fs = (read_only(face_luminance(face_patch(faces[c], STORED_PATCH_SIZE)))
              for c in (CLUB, SPADE))
    assert pip_share(_region(_pair(fc, fs)), fc.shape) >= PIP_SHARE
    shared = shared_courts(kennard)
    kc, ks = (read_only(face_luminance(face_patch(shared[Card.parse(x)], STORED_PATCH_SIZE)))
              for x in ("Kc", "Ks"))
    assert pip_share(_region(_pair(kc, ks)), kc.shape) < PIP_SHARE


def test_a_streaked_spade_is_read_over_its_club(kennard: Faces) -> None:
    """The 7 of spades streaked by motion: it leans to the spade far above the placebo lean,
    whichever twin the whole face put first."""
    faces = _pip_faces(kennard)
    for first, second in ((SPADE, CLUB), (CLUB, SPADE)):
        card, position, noise = _decide(faces, first, second)
        assert card == SPADE, (first, card)
        assert noise is not None and position > 4 * noise, (position, noise)


def test_without_its_own_brightness_the_placebo_refuses(kennard: Faces,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """With each placebo on the region's brightness (as before, and still for index-only
    twins), the same spade's placebo lean is more than twice as large and neither twin is
    read."""
    faces = _pip_faces(kennard)
    read, _, own = _decide(faces, SPADE, CLUB)
    monkeypatch.setattr(blurmatch, "PIP_SHARE", 2.0)
    refused, _, shared = _decide(faces, SPADE, CLUB)
    assert read == SPADE and refused is None
    assert own is not None and shared is not None and shared > 2 * own, (own, shared)
