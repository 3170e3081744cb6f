"""The fine comparison's least-squares fit of one corner box, and its placebo noise.

Split from :mod:`hardware.camera.finetwins` (:func:`~hardware.camera.finetwins.fine_lean`
fits each corner box here): ``obs = a mean + b + c half`` and the same difference laid where
it is not (:data:`PLACEBO_SHIFTS`), on the observation's residual. Pure: arrays in, floats out.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]

#: Where the difference is laid for the placebo leans (fractions of the box: down, right).
PLACEBO_SHIFTS = tuple((fy, fx) for fy in (-1 / 3, -1 / 6, 0.0, 1 / 6, 1 / 3)
                       for fx in (-1 / 3, 0.0, 1 / 3) if (fy, fx) != (0.0, 0.0))

@lru_cache(maxsize=64)
def _placebo_index(h: int, w: int) -> npt.NDArray[np.intp]:
    """Flat indices laying an ``h`` x ``w`` box at each of :data:`PLACEBO_SHIFTS` (one row each).

    Row ``i`` gathers what ``np.roll`` by shift ``i`` (rows, columns; wrapping round) gives.
    """
    rows = np.arange(h)[:, None]
    cols = np.arange(w)[None, :]
    out = np.empty((len(PLACEBO_SHIFTS), h * w), np.intp)
    for i, (fy, fx) in enumerate(PLACEBO_SHIFTS):
        sy, sx = round(fy * h), round(fx * w)
        out[i] = (((rows - sy) % h) * w + (cols - sx) % w).reshape(-1)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=64)
def _plane(h: int, w: int) -> tuple[F32, F32]:
    """Return the box's column and row coordinates, -0.5..0.5, flat (float32): the lit planes."""
    gy, gx = np.mgrid[0:h, 0:w].astype(np.float32)
    px, py = (gx / max(w - 1, 1) - 0.5).reshape(-1), (gy / max(h - 1, 1) - 0.5).reshape(-1)
    px.setflags(write=False)
    py.setflags(write=False)
    return px, py


def _placebos(half: F32) -> tuple[F32, F32]:
    """Return the difference laid where it is not (:data:`PLACEBO_SHIFTS`), centred; energies.

    One row per shift: what ``np.roll`` of ``half`` less its mean gives, and that row's sum of
    squares (float32 as :func:`_fit` computed them one shift at a time; reductions along rows
    of the contiguous stack add in the same order as on each row alone).
    """
    h, w = half.shape
    shifted = np.ascontiguousarray(half).reshape(-1)[_placebo_index(h, w)]
    sd = shifted - shifted.mean(axis=1, keepdims=True)
    return sd, (sd * sd).sum(axis=1)


def _fit(obs: F32, mean: F32, half: F32, lit: bool = False,
         placebos: tuple[F32, F32] | None = None) -> tuple[float, float, float]:
    """Fit ``obs = a mean + b + c half``: the lean ``c / a``, its placebo noise and the fit.

    The noise: the same difference, laid where it is not (shifted by a third of the box
    either way and a sixth or a third down or up, wrapping round), is fitted on what the
    model leaves unexplained; the root mean square of those leans is what misfit and the
    frame's noise make of a difference of that shape here (:data:`PLACEBO_SHIFTS`).

    ``lit``: ``a`` and ``b`` are planes over the box (``a + ax x + ay y``): a glare lifts the
    paper and flattens the ink by a gain and an offset that vary across the box
    (``ink (1 - g) + 255 g``), which a constant ``a`` and ``b`` leave as misfit. The lean is
    then ``c`` over the gain where the twins differ (``a`` at the centroid of ``|half|``).

    ``placebos``: :func:`_placebos` of ``half`` where the caller made them already (the plain
    and the lit fit of one box share them); None: made here.
    """
    m, d, o = mean.reshape(-1), half.reshape(-1), obs.reshape(-1)
    columns = [m, np.ones_like(m), d]
    if lit:
        gx, gy = _plane(*half.shape)
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
    sd, norms = _placebos(half) if placebos is None else placebos
    dots = (sd * res).sum(axis=1)
    placebo = [float(dot) / float(norm) / a
               for dot, norm in zip(dots.tolist(), norms.tolist(), strict=True)
               if float(norm) > 1e-6]
    noise = float(np.sqrt(np.mean(np.square(placebo)))) if placebo else np.inf
    return c / a, noise, fit
