"""The corners' comparison at the frame's resolution made cheaper, its values the same to the bit.

Benchmark run 109: on a one-picture design every court is a close rival of every other, and
each is compared on the corners at the frame's own resolution
(:func:`~hardware.camera.finetwins.fine_lean`: a blur search and a least-squares fit per box),
half of such a frame's CPU. The placebo leans of a box are now made as one stack
(:func:`~hardware.camera.finetwins._placebos`), shared by the box's plain and lit fits, and the
blur search filters each distinct kernel once. Each is checked here against the code it
replaced, bit for bit: on random boxes, and on the corners of synth-9263 poker's kept jack of
spades (benchmark run 106's frame, ``tests/vision/data/synth-9263-poker``) compared with the
jack of clubs.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import pytest

import hardware.camera.finetwins as ft
from hardware.camera.blurmatch import blur_kernel
from hardware.camera.facebank import FaceBank
from hardware.camera.finedecide import FineLean
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.suits import Blur
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import kept_look, with_kept_faces

DESIGN = "synth-9263-poker"
#: The card's corners in the kept frame cut (px; TL, TR, BR, BL of the card upright).
QUAD = ((29.363, 12.78), (193.078, 23.286), (176.898, 248.536), (12.122, 237.855))
CLUB, SPADE = Card.parse("Jc"), Card.parse("Js")

Cuts = list[tuple[int, F32, F32, F32]]


def _fit_before(obs: F32, mean: F32, half: F32, lit: bool = False) -> tuple[float, float, float]:
    """``finetwins._fit`` as it was before run 109: one ``np.roll`` per placebo shift."""
    m, d, o = mean.reshape(-1), half.reshape(-1), obs.reshape(-1)
    columns = [m, np.ones_like(m), d]
    if lit:
        hh, ww = half.shape
        gy, gx = np.mgrid[0:hh, 0:ww].astype(np.float32)
        gx, gy = (gx / max(ww - 1, 1) - 0.5).reshape(-1), (gy / max(hh - 1, 1) - 0.5).reshape(-1)
        columns += [m * gx, m * gy, gx, gy]
    x = np.stack(columns, axis=1).astype(np.float64)
    coef, *_ = np.linalg.lstsq(x, o.astype(np.float64), rcond=None)
    a, c = float(coef[0]), float(coef[2])
    if lit:
        weight = np.abs(d).astype(np.float64)
        total = max(float(weight.sum()), 1e-9)
        a += (float(coef[3]) * float(weight @ gx) + float(coef[4]) * float(weight @ gy)) / total
    res = o - x @ coef
    tot = max(float(((o - o.mean()) ** 2).sum()), 1e-6)
    fit = 1.0 - float(res @ res) / tot
    if abs(a) < 1e-6:
        return 0.0, np.inf, fit
    h, w = half.shape
    placebo = []
    r2 = res.reshape(h, w)
    for fy, fx in ft.PLACEBO_SHIFTS:
        shifted = np.roll(half, (round(fy * h), round(fx * w)), axis=(0, 1))
        sd = shifted - shifted.mean()
        norm = float((sd * sd).sum())
        if norm > 1e-6:
            placebo.append(float((r2 * sd).sum()) / norm / a)
    noise = float(np.sqrt(np.mean(np.square(placebo)))) if placebo else np.inf
    return c / a, noise, fit


def _blur_before(cuts: Sequence[tuple[int, F32, F32, F32]]) -> Blur:
    """``finetwins._blur`` as it was before run 109: every blur filtered, ``np.pad``."""
    chosen = sorted(cuts, key=lambda c: -float(np.abs(c[2] - c[3]).sum()))[:ft.BLUR_CORNERS]
    obs_parts, mean_parts, keep_parts = [], [], []
    height = max(c[1].shape[0] // 2 for c in chosen)
    for _k, obs, a, b in chosen:
        h, w = obs.shape
        size = (max(w // 2, 1), max(h // 2, 1))
        o = cv2.resize(obs, size, interpolation=cv2.INTER_AREA)
        ha = cv2.resize(a, size, interpolation=cv2.INTER_AREA)
        hb = cv2.resize(b, size, interpolation=cv2.INTER_AREA)
        differ = (np.abs(ha - hb) >= ft.AGREE_LEVEL).astype(np.uint8)
        keep = cv2.dilate(differ, np.ones((5, 5), np.uint8)) == 0
        pad = ((0, height - size[1]), (ft._GAP, 0))
        m = np.asarray((ha + hb) * 0.5, np.float32)
        obs_parts.append(np.pad(o, pad, mode="edge"))
        mean_parts.append(np.pad(m, pad, mode="edge"))
        keep_parts.append(np.pad(keep, pad, constant_values=False))
    mean = np.hstack(mean_parts)
    keep_all = np.hstack(keep_parts)
    ov = np.hstack(obs_parts)[keep_all].astype(np.float32)
    ov -= ov.mean()
    ov /= max(float(np.linalg.norm(ov)), 1e-6)
    fits: dict[Blur, float] = {}

    def fit(blur: Blur) -> float:
        if blur not in fits:
            bm = cv2.filter2D(mean, -1, blur_kernel(blur, 0.5),
                              borderType=cv2.BORDER_REPLICATE)[keep_all]
            bm -= bm.mean()
            fits[blur] = float(bm @ ov) / max(float(np.linalg.norm(bm)), 1e-6)
        return fits[blur]

    best = max(ft.BLUR_GRID, key=fit)
    for step in ft.BLUR_STEPS:
        best = max(ft._near(best, step), key=fit)
    return best


def _kept_cuts(kennard: Faces, monkeypatch: pytest.MonkeyPatch) -> tuple[Cuts, FineLean]:
    """The kept jack's corner boxes as ``fine_lean`` cut them against the club, and its lean."""
    bank = FaceBank.from_faces(with_kept_faces(kennard, DESIGN, (CLUB, SPADE)),
                               RecognizerParams())
    observed = kept_look(bank.fine, DESIGN, SPADE, QUAD)
    assert bank.fine is not None
    seen: list[Cuts] = []
    search = ft._blur

    def noted(cuts: Cuts) -> Blur:
        seen.append(list(cuts))
        return search(cuts)

    monkeypatch.setattr(ft, "_blur", noted)
    lean = bank.fine.lean(observed, SPADE, CLUB)
    assert lean is not None and len(seen) == 1 and len(seen[0]) >= 2
    return seen[0], lean


def test_placebos_as_each_roll_made_them() -> None:
    rng = np.random.default_rng(109)
    for _ in range(300):
        h, w = (int(v) for v in rng.integers(3, 130, 2))
        half = (rng.standard_normal((h, w)) * rng.uniform(0.1, 80)).astype(np.float32)
        res = rng.standard_normal(h * w) * rng.uniform(0.1, 50)
        sd, norms = ft._placebos(half)
        dots = (sd * res).sum(axis=1)
        for i, (fy, fx) in enumerate(ft.PLACEBO_SHIFTS):
            shifted = np.roll(half, (round(fy * h), round(fx * w)), axis=(0, 1))
            before = shifted - shifted.mean()
            assert before.reshape(-1).tobytes() == sd[i].tobytes()
            assert float((before * before).sum()) == float(norms[i])
            assert float((res.reshape(h, w) * before).sum()) == float(dots[i])


def test_fits_as_before_on_random_boxes() -> None:
    rng = np.random.default_rng(1090)
    for _ in range(60):
        h, w = (int(v) for v in rng.integers(8, 90, 2))
        mean = rng.uniform(20, 240, (h, w)).astype(np.float32)
        half = (rng.standard_normal((h, w)) * 30).astype(np.float32)
        obs = (0.8 * mean + 10 + rng.uniform(-1, 1) * half
               + rng.normal(0, 4, (h, w))).astype(np.float32)
        for lit in (False, True):
            assert ft._fit(obs, mean, half, lit) == _fit_before(obs, mean, half, lit)


def test_the_kept_jack_compared_as_before(kennard: Faces,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    cuts, lean = _kept_cuts(kennard, monkeypatch)
    assert ft._blur(cuts) == _blur_before(cuts) == lean.blur
    kernel = blur_kernel(lean.blur)
    for (k, obs, a, b), corner in zip(cuts, lean.corners, strict=True):
        mean = np.asarray(cv2.filter2D((a + b) * 0.5, -1, kernel,
                                       borderType=cv2.BORDER_REPLICATE), np.float32)
        half = np.asarray(cv2.filter2D((a - b) * 0.5, -1, kernel,
                                       borderType=cv2.BORDER_REPLICATE), np.float32)
        plain = _fit_before(obs, mean, half)
        assert corner.corner == k
        assert (corner.lean, corner.noise, corner.fit) == plain
        assert ft._fit(obs, mean, half, lit=True) == _fit_before(obs, mean, half, lit=True)


def _streaked_cuts() -> Cuts:
    """The kept jacks' corner boxes at 180 x 250 px, the spade's streaked (0.6, 4, 90) and noisy.

    The blur search there visits blurs whose kernels are the same to the bit (short streaks
    at neighbouring angles).
    """
    kept = with_kept_faces({}, DESIGN, (CLUB, SPADE))
    a, b = ft.fine_grey(kept[CLUB]), ft.fine_grey(kept[SPADE])
    size = (180, 250)
    fa, fb = (np.asarray(cv2.resize(f.astype(np.float32), size, interpolation=cv2.INTER_AREA),
                         np.float32) for f in (a, b))
    kernel = blur_kernel((0.6, 4, 90))
    rng = np.random.default_rng(109)
    out: Cuts = []
    for k, (x, y, w, h) in enumerate(ft._boxes(size)):
        ca, cb = fa[y:y + h, x:x + w], fb[y:y + h, x:x + w]
        seen = cv2.filter2D(cb, -1, kernel, borderType=cv2.BORDER_REPLICATE)
        out.append((k, np.asarray(seen + rng.normal(0, 2, cb.shape), np.float32), ca, cb))
    return out


def test_each_kernel_filtered_once(monkeypatch: pytest.MonkeyPatch) -> None:
    cuts = _streaked_cuts()
    kernels: list[bytes] = []
    filter2d = cv2.filter2D

    class Counted:
        """``cv2`` as ``finetwins`` sees it, its ``filter2D`` noting each kernel."""

        def __getattr__(self, name: str) -> object:
            return getattr(cv2, name)

        @staticmethod
        def filter2D(src: F32, ddepth: int, kernel: F32, borderType: int) -> F32:
            kernels.append(repr(kernel.shape).encode() + kernel.tobytes())
            return np.asarray(filter2d(src, ddepth, kernel, borderType=borderType), np.float32)

    monkeypatch.setattr(ft, "cv2", Counted())
    assert ft._blur(cuts) == _blur_before(cuts)
    assert len(kernels) > 30
    assert len(kernels) == len(set(kernels))
