"""The corner indices' region matched quarter by quarter: the whole box's alignment, cheaper.

:class:`~hardware.camera.suits._Template` with ``quarters`` (what
:meth:`~hardware.camera.indexonly.IndexOnly.check` and :func:`~hardware.camera.suits.pair_check`
align with) adds the correlations of the card's four quarters instead of matching one
template the size of the card, most of it 0, where the region is sparse.
"""

from __future__ import annotations

import numpy as np
import pytest

from hardware.camera.facebank import FaceBank
from hardware.camera.readings import RecognizerParams
from hardware.camera.suits import _Region, _Template
from table_controller.engine.cards import Card

from .conftest import Faces
from .test_finetwins import _frame, _quad
from .test_rank_fine import EIGHT, SIX, _central_faces, _observed


@pytest.mark.parametrize(("pair", "sigma", "grow"),
                         [((EIGHT, SIX), 1.4, 1.02), ((SIX, EIGHT), 1.8, 1.0),
                          ((EIGHT, SIX), 1.2, 1.035), ((Card.parse("Kh"), Card.parse("Qh")),
                                                       1.4, 1.01)])
def test_quarters_align_as_the_whole_box(kennard: Faces, pair: tuple[Card, Card],
                                         sigma: float, grow: float) -> None:
    faces = _central_faces(kennard)
    bank = FaceBank.from_faces(faces, RecognizerParams())
    x, y = pair
    frame = _frame(faces[x], _quad(), np.random.default_rng(75), sigma, 0, 4.0, 80)
    observed = _observed(frame, _quad(), grow)
    lx, ly = bank.luminance(x), bank.luminance(y)
    region = np.abs(lx - ly) >= 0.1
    if bank.index_only.pair(x, y):
        region = bank.index_only._region(x, y)[0]
    mean = np.asarray((lx + ly) / 2, np.float32)
    whole, quarters = _Template(mean, region), _Template(mean, region, quarters=True)
    assert not whole.parts
    y0, y1, x0, x1 = whole.box
    # Matched by quarters where their boxes cover under half the whole box.
    assert bool(quarters.parts) == bank.index_only.pair(x, y)
    assert sum(t.size for _, t, _ in quarters.parts) < 0.5 * (y1 - y0) * (x1 - x0)
    for shift in ((0, 0), (2, -1), (-3, 3)):
        obs = np.asarray(np.roll(observed, shift, axis=(0, 1)), np.float32)
        vw, fw = whole._aligned(obs)
        vq, fq = quarters._aligned(obs)
        assert quarters.shift == whole.shift
        assert np.array_equal(vw, vq)
        assert fq == pytest.approx(fw, abs=2e-5)


def test_the_index_pairs_quarters_are_a_small_part_of_the_box(kennard: Faces) -> None:
    """Where the faces differ in their corner indices alone, the four quarters' boxes are a
    small part of the region's bounding box (the matches' cost)."""
    bank = FaceBank.from_faces(_central_faces(kennard), RecognizerParams())
    region = bank.index_only._region(EIGHT, SIX)[0]
    t = _Template(np.zeros(region.shape, np.float32), region, quarters=True)
    y0, y1, x0, x1 = t.box
    assert len(t.parts) == 4
    assert sum(w.size for _, _, w in t.parts) < 0.1 * (y1 - y0) * (x1 - x0)


def test_pair_check_matches_a_sparse_pair_by_quarters_and_a_dense_one_whole(
        kennard: Faces) -> None:
    faces = _central_faces(kennard)
    bank = FaceBank.from_faces(faces, RecognizerParams())
    sparse = _Region(bank.luminance(EIGHT), bank.luminance(SIX))
    dense = _Region(bank.luminance(Card.parse("7c")), bank.luminance(Card.parse("6c")))
    assert sparse.template is not None and sparse.template.parts
    assert dense.template is not None and not dense.template.parts
