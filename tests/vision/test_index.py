"""The corner indices read on their own, against every registered card."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.camera.facebank import STORED_PATCH_SIZE, FaceBank, face_patch
from hardware.camera.index import IndexBank
from hardware.camera.readings import RecognizerParams
from hardware.camera.suits import face_luminance, observed_luminance
from table_controller.engine.cards import FULL_DECK, Card

from .conftest import Faces


def _bank(faces: Faces) -> IndexBank:
    return FaceBank.from_faces(faces, RecognizerParams()).index


def _observed(face: np.ndarray, rng: np.random.Generator, shift: tuple[int, int]) -> np.ndarray:
    patch = face_patch(face, STORED_PATCH_SIZE)
    noisy = np.clip(patch.astype(np.float32) + rng.normal(0, 6, patch.shape), 0, 255)
    moved = np.roll(np.asarray(noisy, np.uint8), shift, axis=(0, 1))
    return observed_luminance(np.asarray(cv2.GaussianBlur(moved, (0, 0), 1.0), np.uint8))


def test_every_card_is_told_from_every_other_rank(kennard: Faces) -> None:
    bank = _bank(kennard)
    rng = np.random.default_rng(12)
    leans: list[float] = []
    for i, card in enumerate(FULL_DECK):
        read = bank.read(_observed(kennard[card], rng, ((i % 3) - 1, (i % 5) - 2)))
        pos = read.positions(card).reshape(13, 4)
        others = np.delete(pos, card.rank, axis=0)
        assert np.nanmin(others) > -0.3, (card, np.nanmin(others))
        # Read as another rank, the true card's index refuses it.
        wrong = FULL_DECK[(i + 4) % 52]
        pos_wrong = read.position(wrong, card)
        assert pos_wrong is not None and pos_wrong < 0.0, (card, wrong)
        leans.append(pos_wrong)
    # Kennard's small indices tell 2, 3 and 4 apart only weakly; most ranks clearly.
    assert float(np.median(leans)) < -0.5, sorted(leans)


def test_the_index_may_sit_in_any_corner(kennard: Faces) -> None:
    """A design printing its index top-right only (the other corners blank) is read there."""
    moved: Faces = {}
    for card, face in kennard.items():
        h, w = face.shape[:2]
        ch, cw = int(0.28 * h), int(0.2 * w)
        out = face.copy()
        out[:ch, w - cw :] = face[:ch, :cw]
        out[:ch, :cw] = 255
        out[h - ch :, w - cw :] = 255
        moved[card] = out
    bank = _bank(moved)
    rng = np.random.default_rng(3)
    four, five = Card.parse("4d"), Card.parse("5d")
    read = bank.read(_observed(moved[four], rng, (1, 0)))
    pos = read.position(five, four)
    assert pos is not None and pos < -0.3
    assert (read.position(four, five) or 0.0) > 0.3


def test_the_templates_are_the_faces_own_corners(kennard: Faces) -> None:
    bank = _bank(kennard)
    lum = face_luminance(face_patch(kennard[Card.parse("Ah")], STORED_PATCH_SIZE))
    read = bank.read(lum)
    assert float(read.scores[:, Card.parse("Ah").index].max()) > 0.99


def test_each_card_is_scored_at_its_own_best_shift(kennard: Faces) -> None:
    """The scores are each template's best correlation over every cut within the search.

    A reference computed the plain way (one cut at a time, ``np.einsum``): the strided cuts and
    the BLAS product give the same scores (to float32 rounding).
    """
    from hardware.camera.index import BORDER, SHIFT_PX, _znorm

    bank = _bank(kennard)
    rng = np.random.default_rng(31)
    th, tw = bank.shape
    bw, bh = bank.box
    for i, card in enumerate(FULL_DECK[::7]):
        obs = _observed(kennard[card], rng, ((i % 3) - 1, (i % 5) - 2))
        read = bank._read(obs)
        h, w = obs.shape
        m = SHIFT_PX
        windows = [obs[BORDER - m : bh + m, BORDER - m : bw + m],
                   obs[BORDER - m : bh + m, w - bw - m : w - BORDER + m],
                   obs[h - bh - m : h - BORDER + m, BORDER - m : bw + m],
                   obs[h - bh - m : h - BORDER + m, w - bw - m : w - BORDER + m]]
        for k, window in enumerate(windows):
            window = np.ascontiguousarray(window, np.float32)
            cuts = [window[y : y + th, x : x + tw].reshape(-1)
                    for y in range(2 * m + 1) for x in range(2 * m + 1)]
            ref = np.einsum("ij,kj->ik", bank.templates[k], _znorm(np.stack(cuts))).max(axis=1)
            np.testing.assert_allclose(read.scores[k], ref, rtol=0, atol=1e-5)


@pytest.mark.parametrize("shift", [(0, 0), (2, -3), (-3, 1)])
def test_a_face_fits_its_own_corners_wherever_it_lies_within_the_search(
    kennard: Faces, shift: tuple[int, int]
) -> None:
    """Every card's own face, shifted within the search, scores its own corners at 1.

    Aligning each corner once on the mean of all templates left some cards' own templates a
    few pixels off where a corner holds a pip of some cards only (scored 0.75-0.8 there).
    """
    bank = _bank(kennard)
    for card in FULL_DECK:
        lum = face_luminance(face_patch(kennard[card], STORED_PATCH_SIZE))
        moved = np.roll(lum, shift, axis=(0, 1))
        read = bank.read(np.ascontiguousarray(moved))
        assert float(read.scores[:, card.index].min()) > 0.99, card


def test_two_blank_corners_tell_nothing(kennard: Faces) -> None:
    """A design printing two indices leaves two corners blank: faint marks there are no index.

    Every card's top-right and bottom-left boxes are made blank paper with a faint mark of its
    suit (the blur tail of a pip just outside the box, 1% of the ink's contrast): the marks'
    z-normalised shapes differ, but no pair of cards is told apart there, and a card showing
    another suit's faint mark is read by its two inked corners alone.
    """
    lum = {c: face_luminance(face_patch(kennard[c], STORED_PATCH_SIZE)).copy()
           for c in FULL_DECK}
    h, w = lum[FULL_DECK[0]].shape
    bw, bh = round(0.22 * w), round(0.3 * h)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)

    def mark(suit: int) -> np.ndarray:
        cx, cy = (w - 4 - 3 * suit, 10 + 8 * suit)
        return np.asarray(np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * (2.0 + suit) ** 2)))

    def blanked(face: np.ndarray, suit: int) -> np.ndarray:
        out = face.copy()
        paper = float(np.percentile(face, 95))
        tr, bl = (slice(0, bh), slice(w - bw, w)), (slice(h - bh, h), slice(0, bw))
        for box in (tr, bl):
            out[box] = paper
        m = 0.01 * mark(suit)
        out[tr] -= m[tr]
        out[bl] -= m[::-1, ::-1][bl]
        return out

    bank = IndexBank({c: blanked(lum[c], c.suit) for c in FULL_DECK})
    assert float(bank.gaps[1].max()) == 0.0 and float(bank.gaps[2].max()) == 0.0
    assert float(bank.gaps[0].max()) > 0.1 and float(bank.gaps[3].max()) > 0.1
    for i, card in enumerate(FULL_DECK[::5]):
        other_suit = (card.suit + 1 + i % 3) % 4
        obs = np.ascontiguousarray(blanked(lum[card], other_suit), np.float32)
        pos = bank.read(obs).positions(card).reshape(13, 4)
        others = np.delete(pos, card.rank, axis=0)
        assert np.nanmin(others) > -0.3, (card, np.nanmin(others))


def test_a_corner_a_neighbour_may_lie_over_is_left_out(kennard: Faces) -> None:
    """A neighbour's index over one corner names the neighbour's rank there; with the corner
    the neighbour may cover left out (as the located neighbours say), the others decide."""
    bank = _bank(kennard)
    rng = np.random.default_rng(7)
    card, neighbour = Card.parse("6d"), Card.parse("9c")
    face = face_patch(kennard[card], STORED_PATCH_SIZE).copy()
    other = face_patch(kennard[neighbour], STORED_PATCH_SIZE)
    h, w = face.shape[:2]
    bh, bw = int(0.34 * h), int(0.3 * w)
    face[:bh, w - bw :] = other[:bh, w - bw :]  # the neighbour's corner over the top right
    face[h - bh :, :bw] = other[h - bh :, :bw]  # and over the bottom left (the same print)
    noisy = np.clip(face.astype(np.float32) + rng.normal(0, 6, face.shape), 0, 255)
    seen = observed_luminance(np.asarray(noisy, np.uint8))
    read = bank.read(seen)
    assert (read.position(card, neighbour) or 0.0) < 0.5  # the covered corners mislead
    mask = np.zeros((h, w), np.uint8)
    mask[:bh, w - bw :] = 1
    mask[h - bh :, :bw] = 1
    skip = bank.covered(mask)
    assert skip.tolist() == [False, True, True, False]
    pos = read.positions(card, skip).reshape(13, 4)
    others = np.delete(pos, card.rank, axis=0)
    assert np.nanmin(others) > -0.3, np.nanmin(others)
    assert (read.positions(card, skip)[neighbour.index]) > 0.5
    assert np.isnan(read.positions(card, np.ones(4, bool))).all()
