"""A glare over part of a face: which rivals it may hide, and what the face still rules out."""

from __future__ import annotations

import numpy as np
import pytest

from hardware.camera.facebank import STORED_PATCH_SIZE, FaceBank, face_patch
from hardware.camera.glare import HiddenRivals, glare_mask
from hardware.camera.readings import RecognizerParams, SlotReading
from hardware.camera.suits import face_luminance, observed_luminance
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import BareChecks
from .test_glare import _camera, _glare, _own_pip


@pytest.fixture(scope="module")
def checks(kennard: Faces) -> BareChecks:
    params = RecognizerParams()
    return BareChecks(FaceBank.from_faces(kennard, params), params)


def _patch(kennard: Faces, card: str) -> np.ndarray:
    return face_patch(kennard[Card.parse(card)], STORED_PATCH_SIZE)


def _dimmed(patch: np.ndarray) -> np.ndarray:
    """The card under a table's light: its white well under the sensor's top."""
    return np.asarray(patch.astype(np.float32) * 0.78, np.uint8)


def _streak(patch: np.ndarray, centre: tuple[float, float]) -> np.ndarray:
    """A glossy streak across the card through ``centre`` (spots on a line, as rendered)."""
    w = patch.shape[1]
    for x in np.linspace(0.0, w, 8):
        patch = _glare(patch, (float(x), centre[1]), 9.0, 0.85)
    return patch


def _three_as_two(kennard: Faces) -> np.ndarray:
    """A 3 of diamonds whose middle pip (the one the 2 lacks) a glare streak washed out."""
    rng = np.random.default_rng(47)
    three, two = _patch(kennard, "3d"), _patch(kennard, "2d")
    return _camera(_streak(_dimmed(three), _own_pip(three, two)), rng)


def test_the_glare_is_found_on_the_paper_and_nowhere_else(kennard: Faces) -> None:
    rng = np.random.default_rng(5)
    three = _patch(kennard, "3d")
    face = face_luminance(three)
    clean, seen = glare_mask(_camera(_dimmed(three), rng), face)
    assert seen and not clean.any()
    glared, seen = glare_mask(_three_as_two(kennard), face)
    x, y = _own_pip(three, _patch(kennard, "2d"))
    assert seen and glared[round(y), round(x)]
    assert glared.mean() < 0.4
    # Paper at the sensor's top: a glare there could not be seen, and none is claimed.
    top, seen = glare_mask(np.full_like(three, 252), face)
    assert not seen and not top.any()


def test_the_card_whose_pip_the_glare_hides_is_a_hidden_rival(kennard: Faces,
                                                               checks: BareChecks) -> None:
    hidden = HiddenRivals(checks.bank.luminance)
    two = Card.parse("2d")
    glare, _ = glare_mask(_three_as_two(kennard), checks.bank.luminance(two))
    rivals = hidden.hidden(two, glare)
    assert Card.parse("3d") in rivals
    # The ace lacks the 2's own pips, seen outside the glare: the face rules it out.
    assert Card.parse("Ad") not in rivals
    assert hidden.hidden(two, np.zeros_like(glare)) == []


def test_a_read_of_the_card_the_glare_leaves_needs_its_index(kennard: Faces,
                                                             checks: BareChecks) -> None:
    """The 3 read as the 2 is refused (its index shows a 3); the 2 itself, glared alike, not."""
    patch = _three_as_two(kennard)
    ob = observed_luminance(patch)
    read = SlotReading("card", Card.parse("2d"), 0.9, None, 0.9, 0.1, 0.5, 0.1)
    assert checks._glare_confirmed(ob, patch, read).status == "uncertain"
    rng = np.random.default_rng(48)
    two = _patch(kennard, "2d")
    glared_two = _camera(_streak(_dimmed(two), _own_pip(_patch(kennard, "3d"), two)), rng)
    kept = checks._glare_confirmed(observed_luminance(glared_two), glared_two, read)
    assert kept.status == "card"


def test_white_where_the_rival_has_ink_is_paper_unless_a_glare_lies_there(
        kennard: Faces, checks: BareChecks) -> None:
    rng = np.random.default_rng(9)
    seven, eight = _patch(kennard, "7h"), _patch(kennard, "8h")
    card, rival = Card.parse("7h"), Card.parse("8h")
    clean = _camera(_dimmed(seven), rng)
    assert checks._paper_shown(lambda: clean, card, rival)
    glared = _camera(_streak(_dimmed(seven), _own_pip(eight, seven)), rng)
    assert not checks._paper_shown(lambda: glared, card, rival)
    # At the sensor's top a glare would not show: no claim either way.
    top = np.asarray(np.maximum(_camera(seven, rng), 250), np.uint8)
    assert not checks._paper_shown(lambda: top, card, rival)


def test_the_face_rules_out_a_rank_it_plainly_is_not(kennard: Faces, checks: BareChecks) -> None:
    rng = np.random.default_rng(11)
    six, eight = Card.parse("6s"), Card.parse("8c")
    ob = observed_luminance(_camera(_patch(kennard, "6s"), rng))
    assert checks._face_rules_out(ob, six, eight)
    other = observed_luminance(_camera(_patch(kennard, "8c"), rng))
    assert not checks._face_rules_out(other, six, eight)


def test_the_paper_s_plane_is_the_least_squares_fit_over_the_paper_kept() -> None:
    """The white's plane from the rows' and columns' sums equals a least-squares fit over the
    kept pixels themselves (a tilted white, noise, a random half of the card kept)."""
    from hardware.camera.glare import _plane

    rng = np.random.default_rng(49)
    h, w = 168, 120
    ys, xs = np.mgrid[0:h, 0:w]
    for _ in range(20):
        a, b, c = rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3), rng.uniform(150, 240)
        grey = np.asarray(a * xs + b * ys + c + rng.normal(0, 4, (h, w)), np.float32)
        keep = rng.random((h, w)) < 0.5
        design = np.stack([xs[keep], ys[keep], np.ones(np.count_nonzero(keep))], axis=1)
        expected = np.linalg.lstsq(design, grey[keep].astype(np.float64), rcond=None)[0]
        np.testing.assert_allclose(_plane(keep, grey), expected, rtol=1e-7, atol=1e-7)


def _at_the_top(patch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The card under a bright light: its white at the sensor's top (no headroom to show glare)."""
    bright = np.clip(patch.astype(np.float32) * 1.12 + 6.0, 0, 255)
    return np.asarray(np.clip(bright + rng.normal(0, 1.5, patch.shape), 0, 255), np.uint8)


def test_one_blob_rivals_are_the_same_suit_s_card_with_one_more_pip(checks: BareChecks) -> None:
    """A pip a glare may wash out: the 3 behind a 2, the 8 behind a 7; never a court, or a
    card of another suit (a glare whitens ink, it does not change its colour or shape)."""
    hidden = HiddenRivals(checks.bank.luminance)
    assert hidden.one_blob(Card.parse("2d")) == [Card.parse("3d")]
    assert hidden.one_blob(Card.parse("7s")) == [Card.parse("8s")]
    assert hidden.one_blob(Card.parse("8s")) == []
    for card in (Card.parse(c) for c in ("Ad", "2h", "4c", "6s", "7h", "Js", "Kd")):
        assert all(r.suit == card.suit and r.code[0] not in "JQK"
                   for r in hidden.one_blob(card))


def test_a_glare_the_paper_cannot_show_still_asks_the_index(kennard: Faces,
                                                            checks: BareChecks) -> None:
    """Paper at the top: a 3 whose middle pip a streak washed out finds no glare, and is
    still refused as the 2 (its index shows a 3); a 2 in the same light and streak is kept."""
    rng = np.random.default_rng(77)
    three, two = _patch(kennard, "3d"), _patch(kennard, "2d")
    washed = _at_the_top(_streak(three, _own_pip(three, two)), rng)
    mask, shows = glare_mask(washed, checks.bank.luminance(Card.parse("2d")))
    assert not shows and not mask.any()
    read = SlotReading("card", Card.parse("2d"), 0.9, None, 0.9, 0.1, 0.5, 0.1)
    assert checks._glare_confirmed(observed_luminance(washed), washed, read).status == (
        "uncertain")
    glared_two = _at_the_top(_streak(two, _own_pip(three, two)), rng)
    kept = checks._glare_confirmed(observed_luminance(glared_two), glared_two, read)
    assert kept.status == "card"
