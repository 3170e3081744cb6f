"""The corner indices read on their own: the rank (and suit) printed in the card's corners.

Rules this module keeps:

1. The templates are the registered faces' own four corners (a box of :data:`INDEX_BOX` at
   each), cut from their luminance at the stored size once, at registration
   (:class:`IndexBank`), with each pair of cards' correlation per corner. Which corners hold
   the index is not assumed: a design may print the rank top-right and the suit bottom-left.
2. An observed card, turned upright, is cut at the same four corners, each grown by the
   locating error (:data:`SHIFT_PX`); every card's template is correlated with it at every
   shift and keeps its best (the search favours no card). Aligning the corner once on the mean
   of all templates, as before, put a card's own template a few pixels off wherever the corner
   holds a pip of some cards and not of others (the mean is a blur there), and a rival whose
   pip is of another shape then fitted better: synth-9111's spades were refused against clubs
   of another rank, their own corners correlating 0.75-0.8 with their own faces.
3. Against a rival, only the corners where the two cards' templates differ
   (``1 - correlation >= MIN_GAP``), not both blank (:data:`BLANK_FRACTION`), count, taken
   together: where the observation lies on the line from the rival's templates (-1) to the
   read's (+1) (:meth:`IndexRead.position`).
4. Pure: luminance in, positions out; the recogniser decides.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import as_strided

from table_controller.engine.cards import FULL_DECK, Card

F32 = npt.NDArray[np.float32]

#: The corner box (fraction of the width, of the height).
INDEX_BOX = (0.22, 0.3)
#: The card's own border (stored-patch pixels) left out of each box: felt may show there.
BORDER = 4
#: Largest shift (stored-patch pixels) searched when aligning a corner.
SHIFT_PX = 3
#: A card's corner whose luminance spreads less than this fraction of its most inked corner's
#: is blank paper (a design printing two indices: the other two corners): z-normalised, its
#: template is the blur tails of pips beside the box and rounding, and no evidence.
BLANK_FRACTION = 0.1
#: A corner tells two cards apart when their templates there correlate at most 1 - MIN_GAP.
MIN_GAP = 0.01


def _znorm(rows: F32) -> F32:
    rows = rows - rows.mean(axis=-1, keepdims=True)
    norm = np.linalg.norm(rows, axis=-1, keepdims=True)
    return np.asarray(rows / np.maximum(norm, 1e-6), np.float32)


def _corners(lum: F32, box: tuple[int, int], margin: int) -> list[F32]:
    """Cut the four corner boxes (TL, TR, BL, BR) less the border, each grown by ``margin``."""
    h, w = lum.shape
    bw, bh = box
    m = margin
    return [np.ascontiguousarray(lum[BORDER - m : bh + m, BORDER - m : bw + m]),
            np.ascontiguousarray(lum[BORDER - m : bh + m, w - bw - m : w - BORDER + m]),
            np.ascontiguousarray(lum[h - bh - m : h - BORDER + m, BORDER - m : bw + m]),
            np.ascontiguousarray(lum[h - bh - m : h - BORDER + m, w - bw - m : w - BORDER + m])]


@dataclass(frozen=True, slots=True)
class IndexRead:
    """Each corner's correlation with every card's template (rows: corners; columns: FULL_DECK).

    :param gaps: ``1 - correlation`` between each pair of cards' templates, per corner.
    """

    scores: F32
    gaps: F32

    def position(self, card: Card, rival: Card) -> float | None:
        """Where the corners put the observation between ``rival`` (-1) and ``card`` (+1).

        Over the corners that tell the two apart taken together (each weighs by how much the
        two templates differ there); None when none does.
        """
        pos = float(self.positions(card)[rival.index])
        return None if np.isnan(pos) else pos

    def positions(self, card: Card, skip: npt.NDArray[np.bool_] | None = None) -> F32:
        """:meth:`position` against every card at once (NaN where no corner tells them apart).

        :param skip: corners (TL, TR, BL, BR) left out: no evidence either way (a neighbour
            may lie over them, :meth:`IndexBank.covered`).
        """
        a = card.index
        gap = self.gaps[:, a, :]
        used = gap >= MIN_GAP
        if skip is not None:
            used = used & ~skip[:, None]
        lead = np.where(used, self.scores[:, a : a + 1] - self.scores, 0.0).sum(axis=0)
        total = np.where(used, gap, 0.0).sum(axis=0)
        return np.asarray(np.where(total > 0, lead / np.maximum(total, 1e-6), np.nan),
                          np.float32)


class IndexBank:
    """The registered faces' corners, ready to be compared with an observed card.

    :param luminances: each card's face luminance at the stored size
        (:func:`hardware.camera.suits.face_luminance`).
    """

    def __init__(self, luminances: Mapping[Card, F32]) -> None:
        h, w = luminances[FULL_DECK[0]].shape
        self.box = (round(INDEX_BOX[0] * w), round(INDEX_BOX[1] * h))
        per_card = [_corners(luminances[c], self.box, 0) for c in FULL_DECK]
        self.shape = per_card[0][0].shape
        # Each card's ink per corner (the luminance's spread), against its most inked corner.
        spread = np.array([[float(np.std(c)) for c in cs] for cs in per_card], np.float64)
        inked = spread >= BLANK_FRACTION * spread.max(axis=1, keepdims=True)
        #: Per corner: one z-normalised row per card, and the pairwise gaps.
        self.templates: list[F32] = []
        gaps = []
        for k in range(4):
            stack = np.stack([cs[k] for cs in per_card]).astype(np.float32)
            rows = _znorm(stack.reshape(52, -1))
            self.templates.append(rows)
            gap = 1.0 - np.einsum("ij,kj->ik", rows, rows)
            # Two blank corners tell nothing: their gap is the tails' and rounding's. (One
            # blank against ink is evidence: the observation shows ink there or not.)
            gaps.append(np.where(inked[:, k, None] | inked[None, :, k], gap, 0.0))
        self.gaps: F32 = np.asarray(np.stack(gaps), np.float32)
        #: The last observation read and its reading (the checks of one card share it).
        self._last: tuple[F32, IndexRead] | None = None

    def covered(self, mask: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
        """Which corner boxes (TL, TR, BL, BR; as searched) ``mask`` touches.

        :param mask: stored size, upright; nonzero where something else may lie over the card
            (a located neighbour: its print, not the card's, may be seen there).
        """
        cut = _corners(mask.astype(np.float32), self.box, SHIFT_PX)
        return np.array([bool(c.any()) for c in cut])

    def read(self, observed: F32) -> IndexRead:
        """Compare the four corners of an upright observed luminance with every card's.

        The last reading is kept: the same observation (the same array, not written to
        since: read-only, :func:`hardware.camera.suits.read_only`) is not read twice.
        """
        last = self._last
        if last is not None and last[0] is observed and not observed.flags.writeable:
            return last[1]
        reading = self._read(observed)
        self._last = (observed, reading)
        return reading

    def _read(self, observed: F32) -> IndexRead:
        th, tw = self.shape
        rows: list[F32] = []
        for k, window in enumerate(_corners(observed, self.box, SHIFT_PX)):
            window = np.ascontiguousarray(window, np.float32)
            # Every cut within the search (the window's own bounds), as one strided view (one
            # copy when normalised).
            fh, fw = window.shape[0] - th + 1, window.shape[1] - tw + 1
            if fh < 1 or fw < 1:
                raise ValueError(f"observation {observed.shape} smaller than the stored faces")
            s0, s1 = window.strides
            views = as_strided(window, (fh, fw, th, tw), (s0, s1, s0, s1), writeable=False)
            obs = _znorm(views.reshape(-1, th * tw))
            # A BLAS product, not einsum (one thread; its CPU time is the thread's).
            rows.append((self.templates[k] @ obs.T).max(axis=1))
        return IndexRead(np.stack(rows), self.gaps)
