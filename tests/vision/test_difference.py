"""Cards told apart by their corner index alone: read where the close faces differ."""

from __future__ import annotations

import cv2
import numpy as np

from hardware.camera.difference import read_by_difference
from hardware.camera.facebank import (
    PATCH_SIZE,
    STORED_PATCH_SIZE,
    FaceBank,
    decide,
    face_features,
    face_patch,
)
from hardware.camera.readings import RecognizerParams
from hardware.camera.rivalrules import region_washed_out
from hardware.camera.suits import observed_luminance
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import make_rig, with_and_without


def shared_pictures(faces: Faces) -> Faces:
    """Kennard with one picture per suit: every card of a suit is its ace, with the card's own
    corner indices pasted in (top-left and bottom-right), as some designs print them."""
    out = dict(faces)
    for card, own in faces.items():
        picture = faces[Card(12, card.suit)].copy()
        h, w = picture.shape[:2]
        ch, cw = int(0.24 * h), int(0.17 * w)
        picture[:ch, :cw] = own[:ch, :cw]
        picture[h - ch :, w - cw :] = own[h - ch :, w - cw :]
        out[card] = picture
    return out


def _camera(patch: np.ndarray, rng: np.random.Generator, sigma: float,
            noise: float = 8.0) -> np.ndarray:
    soft = cv2.GaussianBlur(patch.astype(np.float32), (0, 0), sigma)
    return np.asarray(np.clip(soft * 0.9 + rng.normal(0, noise, patch.shape), 0, 255), np.uint8)


def test_close_faces_differ_only_in_the_index(kennard: Faces) -> None:
    """The whole face cannot separate them; the difference region reads them, never wrongly."""
    faces = shared_pictures(kennard)
    params = RecognizerParams()
    bank = FaceBank.from_faces(faces, params)
    rng = np.random.default_rng(47)
    whole = by_difference = 0
    for code in ("2c", "5c", "8s", "Th", "4d", "9d", "Qs", "Kh", "3h", "7s"):
        card = Card.parse(code)
        big = _camera(face_patch(faces[card], STORED_PATCH_SIZE), rng, 2.5)
        small = np.asarray(cv2.resize(big, PATCH_SIZE, interpolation=cv2.INTER_AREA), np.uint8)
        match = bank.match(face_features(small, params.red_weight), params)
        # Every card of the suit lies within a hair of the best: all of them are close.
        assert len(match.close) >= 13, (code, match.close)
        if decide(match, params).status == "card":
            whole += 1
            continue
        got = read_by_difference(observed_luminance(big), match, bank, params)
        assert got is None or got.card == card, (code, match, got)
        if got is not None:
            by_difference += 1
            assert got.status == "card" and got.confidence <= 0.5
            # Never read beside a hand this way (the near-hand rule needs a separation).
            assert got.separation == 0.0 and got.discriminant == 0.0
    # Blurred and noisy: the whole face reads almost none of them.
    assert whole <= 2 and by_difference >= 4, (whole, by_difference)


def test_a_rival_s_index_is_never_read_as_the_card(kennard: Faces) -> None:
    """An observation showing X's index is not read as any other close card.

    :func:`read_by_difference` starts from the whole face's best card; with X's own face taken
    out of the bank (as if X were not registered), whatever is best now must not be read.
    """
    faces = shared_pictures(kennard)
    params = RecognizerParams()
    bank = FaceBank.from_faces(faces, params)
    rng = np.random.default_rng(48)
    for code in ("2c", "6h", "9s", "Jd", "Ac"):
        card = Card.parse(code)
        big = _camera(face_patch(faces[card], STORED_PATCH_SIZE), rng, 1.2)
        small = np.asarray(cv2.resize(big, PATCH_SIZE, interpolation=cv2.INTER_AREA), np.uint8)
        match = bank.match(face_features(small, params.red_weight), params, exclude=card)
        assert match.card != card
        got = read_by_difference(observed_luminance(big), match, bank, params)
        assert got is None or got.card == card, (code, match.card, got)


def test_shared_pictures_read_on_rendered_boards(kennard: Faces) -> None:
    """Rendered hard boards of a one-picture-per-suit deck: more read, none wrong."""
    faces = shared_pictures(kennard)
    off = RecognizerParams(difference_check=False)
    with_rule, without = with_and_without(faces, off, seed=4700, frames=10)
    assert with_rule.wrong == 0 and without.wrong == 0, (with_rule, without)
    assert with_rule.correct >= without.correct + 2, (with_rule, without)


def test_a_glare_over_the_index_washes_the_difference_region_out(kennard: Faces) -> None:
    """Where two close faces differ only in their indices, a glare there leaves no evidence."""
    from .test_glare import _glare

    faces = shared_pictures(kennard)
    params = RecognizerParams()
    bank = FaceBank.from_faces(faces, params)
    rng = np.random.default_rng(49)
    for code, rival in (("2c", "7c"), ("9h", "6h"), ("Qs", "Ks")):
        shown = face_patch(faces[Card.parse(code)], STORED_PATCH_SIZE)
        h, w = shown.shape[:2]
        clean = observed_luminance(_camera(shown, rng, 1.0, 3.0))
        assert not region_washed_out(clean, Card.parse(code), Card.parse(rival), bank, params)
        # Both corner indices under a strong highlight, the picture left as it is.
        glared = _glare(_glare(shown, (0.1 * w, 0.1 * h), 12.0, 0.85), (0.9 * w, 0.9 * h), 12.0,
                        0.85)
        washed = observed_luminance(_camera(glared, rng, 1.0, 3.0))
        for a, b in ((code, rival), (rival, code)):
            assert region_washed_out(washed, Card.parse(a), Card.parse(b), bank, params), (a, b)


def test_a_region_white_on_the_card_itself_is_no_washed_out_index(kennard: Faces) -> None:
    """A 6 against a 7: the 7's own pip is white on the 6 with no glare at all. Its clear
    corner indices keep the read; a glare over them, or the 7 read instead, does not."""
    from .test_glare import _glare

    recognizer = make_rig(kennard, seed=5702).recognizer
    rng = np.random.default_rng(51)
    for code, rival in (("6h", "7h"), ("6s", "7s"), ("7d", "8d")):
        card, other = Card.parse(code), Card.parse(rival)
        shown = face_patch(kennard[card], STORED_PATCH_SIZE)
        clean = observed_luminance(_camera(shown, rng, 1.0, 3.0))
        assert recognizer._indices_clear(clean, card, other), code
        # The rival read instead: its indices do not name it.
        assert not recognizer._indices_clear(clean, other, card), code
        h, w = shown.shape[:2]
        glared = _glare(_glare(shown, (0.1 * w, 0.1 * h), 12.0, 0.85), (0.9 * w, 0.9 * h), 12.0,
                        0.85)
        washed = observed_luminance(_camera(glared, rng, 1.0, 3.0))
        assert not recognizer._indices_clear(washed, card, other), code


def test_paper_shown_only_adds_reads_and_never_a_wrong_one(kennard: Faces) -> None:
    """Undecided corner indices, the rival's ink not under a glare: the face decides the pair.

    With the glare test answering no, the read is as without it; answering yes for every
    pair (the most it can allow), no card is read wrongly, the blurred cards read include
    every one read without it, and with X's face taken out of the bank nothing is read that
    was not read without it.
    """
    faces = shared_pictures(kennard)
    params = RecognizerParams()
    bank = FaceBank.from_faces(faces, params)
    rng = np.random.default_rng(52)
    plain = allowed = 0
    for code in ("2c", "5c", "8s", "Th", "4d", "9d", "Qs", "Kh", "3h", "7s", "6h", "Jd"):
        card = Card.parse(code)
        big = _camera(face_patch(faces[card], STORED_PATCH_SIZE), rng, 2.5)
        small = np.asarray(cv2.resize(big, PATCH_SIZE, interpolation=cv2.INTER_AREA), np.uint8)
        seen = observed_luminance(big)
        match = bank.match(face_features(small, params.red_weight), params)
        without = read_by_difference(seen, match, bank, params)
        refused = read_by_difference(seen, match, bank, params, lambda x, y: False)
        assert (refused is None) == (without is None)
        assert refused is None or without is None or refused.card == without.card
        shown = read_by_difference(seen, match, bank, params, lambda x, y: True)
        assert shown is None or shown.card == card, (code, shown)
        assert without is None or shown is not None
        plain += without is not None
        allowed += shown is not None
        # X not registered: nothing read that the rule without the glare test would not.
        other = bank.match(face_features(small, params.red_weight), params, exclude=card)
        got = read_by_difference(seen, other, bank, params, lambda x, y: True)
        before = read_by_difference(seen, other, bank, params)
        assert got is None or (before is not None and got.card == before.card), (code, got)
    assert allowed >= plain, (plain, allowed)
