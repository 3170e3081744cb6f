"""Work a frame with a card laid did twice or for nothing, done once: the same answers."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.camera import glare, inkhue
from hardware.camera.edges import run_ends
from hardware.camera.facebank import STORED_PATCH_SIZE, FaceBank, face_patch
from hardware.camera.glare import glare_mask
from hardware.camera.indexonly import IndexOnly
from hardware.camera.inkhue import ink_colours
from hardware.camera.readings import RecognizerParams
from hardware.camera.suits import face_luminance, observed_luminance
from hardware.sim import scene as S
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import board, make_rig
from .test_difference import _camera, shared_pictures


def _run_ends_reference(band: np.ndarray, seed: int) -> tuple[np.ndarray, ...]:
    """The run ends as they were computed before (the mask's foreground, negated twice)."""
    rows = np.nonzero(band[:, seed] > 0)[0]
    if rows.size == 0:
        empty = np.zeros(0)
        return empty, empty, empty
    sub = band[rows] > 0
    left = sub[:, : seed + 1][:, ::-1]
    to_left = np.where((~left).any(axis=1), np.argmax(~left, axis=1), left.shape[1])
    right = sub[:, seed:]
    to_right = np.where((~right).any(axis=1), np.argmax(~right, axis=1), right.shape[1])
    return (rows.astype(np.float64), (seed - to_left + 1).astype(np.float64),
            (seed + to_right).astype(np.float64))


def test_run_ends_on_the_felt_directly_are_the_same() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        band = np.zeros((int(rng.integers(1, 80)), int(rng.integers(1, 200))), np.uint8)
        for _ in range(3):
            y0, x0 = int(rng.integers(0, band.shape[0])), int(rng.integers(0, band.shape[1]))
            band[y0 : y0 + int(rng.integers(1, 60)), x0 : x0 + int(rng.integers(1, 120))] = 255
        band[rng.random(band.shape) < 0.03] = 255
        seed = int(rng.integers(0, band.shape[1]))
        for got, want in zip(run_ends(band, seed), _run_ends_reference(band, seed), strict=True):
            assert got.dtype == want.dtype and np.array_equal(got, want)


def _dimmed_camera(patch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    soft = cv2.GaussianBlur(patch.astype(np.float32) * 0.6, (0, 0), 1.0)
    return np.asarray(np.clip(soft + rng.normal(0, 3, patch.shape), 0, 255), np.uint8)


def _glossed(patch: np.ndarray) -> np.ndarray:
    """A glossy spot (white added, as the renderer does) over the card's middle."""
    h, w = patch.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    g = 0.85 * np.exp(-((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / (2 * 12.0**2))
    img = patch.astype(np.float32)
    img += g[..., None] * (255 - img)
    return np.asarray(np.clip(img, 0, 255), np.uint8)


def test_a_glare_mask_without_its_blurs_where_no_lift_reaches_the_floor(
    kennard: Faces, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A card with no glare: no paper pixel lifted to the floor, the blurs not made, the same
    (empty) mask; a glare spot: the blurs made, the mask as ever."""
    rng = np.random.default_rng(11)
    blurs = 0
    real_blur = cv2.GaussianBlur

    def counted(*args: object, **kwargs: object) -> np.ndarray:
        nonlocal blurs
        blurs += 1
        return real_blur(*args, **kwargs)  # type: ignore[call-overload, no-any-return]

    monkeypatch.setattr(cv2, "GaussianBlur", counted)
    for code in ("3d", "7c", "5s"):
        face = face_patch(kennard[Card.parse(code)], STORED_PATCH_SIZE)
        lum = face_luminance(face)
        clean, glossy = _dimmed_camera(face, rng), _glossed(_dimmed_camera(face, rng))
        blurs = 0
        fast = glare_mask(clean, lum)
        assert blurs == 0 and not fast[0].any() and fast[1]
        spot = glare_mask(glossy, lum)
        assert blurs == 2 and spot[0].any()
        with monkeypatch.context() as m:
            m.setattr(glare, "SPREAD_ROUNDING", float("inf"))  # never skip
            full = glare_mask(clean, lum)
            assert blurs == 4
            assert np.array_equal(full[0], fast[0]) and full[1] == fast[1]
            assert np.array_equal(glare_mask(glossy, lum)[0], spot[0])


def test_a_frame_s_upright_cuts_and_neighbour_masks_are_made_once(kennard: Faces) -> None:
    """Within a read each pose is cut upright once (read-only, the pixels a fresh cut gives);
    after the read nothing is kept, and reading the frame again reads the same."""
    rig = make_rig(kennard, seed=4101)
    rec = rig.recognizer
    rng = np.random.default_rng(4102)
    placed = S.place_cards(rng, board("Ah Kd 7c 2s"), S.Level.MEDIUM, rig.camera.geometry)
    image = S.render(kennard, placed, rig.camera, rng).image
    cuts = 0
    real = rec.card_patch

    def counted(frame: np.ndarray, pose: object, size: tuple[int, int] = (60, 84)) -> np.ndarray:
        nonlocal cuts
        cuts += size == STORED_PATCH_SIZE
        return real(frame, pose, size)  # type: ignore[arg-type]

    rec.card_patch = counted  # type: ignore[method-assign]
    seen: list[tuple[object, bool]] = []
    upright = rec._upright

    def kept(frame: np.ndarray, pose: object, flipped: bool) -> np.ndarray:
        cut = upright(frame, pose, flipped)  # type: ignore[arg-type]
        seen.append((pose, flipped))
        again = upright(frame, pose, flipped)  # type: ignore[arg-type]
        assert again is cut and not cut.flags.writeable
        fresh = real(frame, pose, STORED_PATCH_SIZE)  # type: ignore[arg-type]
        fresh = np.asarray(cv2.rotate(fresh, cv2.ROTATE_180)) if flipped else fresh
        assert np.array_equal(cut, fresh)
        return cut

    rec._upright = kept  # type: ignore[method-assign]
    first = rec.read(image)
    assert [s.card for s in first.slots] == board("Ah Kd 7c 2s")
    assert seen and cuts == len(set(seen))
    assert rec._cuts == {} and rec._cut_from is None and rec._overs == {}
    rec._last.clear()
    rec._board = None
    assert rec.read(image) == first


def test_an_observation_s_index_only_fits_are_kept_and_the_same(kennard: Faces) -> None:
    """Asked again for the same read-only observation and pair: the same fit, not made again;
    a fresh bank (nothing kept) finds the same."""
    faces = shared_pictures(kennard)
    bank = FaceBank.from_faces(faces, RecognizerParams())
    rng = np.random.default_rng(61)
    six, eight = Card.parse("6h"), Card.parse("8h")
    ob = observed_luminance(_camera(face_patch(faces[six], STORED_PATCH_SIZE), rng, 1.5))
    first = bank.index_only.check(ob, six, eight)
    ratio = bank.index_only.resolved(ob, six, eight)
    assert (six.index, eight.index) in bank.index_only._fits
    back = bank.index_only.check(ob, eight, six)
    assert bank.index_only.check(ob, six, eight) is first
    fresh = IndexOnly({c: bank.luminance(c) for c in faces})
    assert fresh.check(ob, six, eight) == first
    assert fresh.resolved(ob, six, eight) == ratio
    assert fresh.check(ob, eight, six) == back
    # Another observation: the fits kept are dropped with the blur.
    other = observed_luminance(_camera(face_patch(faces[eight], STORED_PATCH_SIZE), rng, 1.5))
    bank.index_only.check(other, eight, six)
    assert (six.index, eight.index) not in bank.index_only._fits


def test_two_faces_ink_and_colours_are_kept_per_pair_and_the_same(kennard: Faces) -> None:
    """The registered faces are read-only views: what two of them give is kept, and equal to
    what writable copies of the same faces give (computed afresh)."""
    bank = FaceBank.from_faces(kennard, RecognizerParams())
    read, rival = bank.patches[Card.parse("9h")], bank.patches[Card.parse("9d")]
    assert not read.flags.writeable and not rival.flags.writeable
    rng = np.random.default_rng(71)
    seen = _camera(face_patch(kennard[Card.parse("9h")], STORED_PATCH_SIZE), rng, 1.0)
    inkhue._FACE_PAIRS.clear()
    kept = ink_colours(seen, read, rival)
    assert len(inkhue._FACE_PAIRS) == 1
    again = ink_colours(seen, read, rival)
    fresh = ink_colours(seen, read.copy(), rival.copy())
    assert len(inkhue._FACE_PAIRS) == 1  # writable faces are not kept
    for a, b, c in zip(kept, again, fresh, strict=True):
        assert np.array_equal(a, b) and np.array_equal(a, c)
