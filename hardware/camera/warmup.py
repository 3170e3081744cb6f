"""What the registered faces alone decide, computed ahead in frames that have time to spare.

Rules this module keeps:

1. Only caches are filled: what :func:`~hardware.camera.twindecide.decide_twin` and
   :func:`~hardware.camera.twindecide.twin_refuted` compute from two registered faces alone (the
   pair's difference region; the blur search's mean face and its coarse grid of blurs,
   :func:`~hardware.camera.blurmatch.warm_blurs`; the frame noise's placebo offsets,
   :func:`~hardware.camera.blurmatch.warm_placebo`) is kept per pair of faces by
   :mod:`hardware.camera.suits` and :mod:`hardware.camera.blurmatch`, and is the same array
   whenever it is computed. A reading does not change; the first card of a suit-twin pair
   checked in a frame no longer pays for it there. The same for the tone reads' parts
   (:class:`~hardware.camera.inkhue.FaceTones`: whether the deck prints its suits in more than
   two inks, which the first card read in a frame asks on every deck, and each rank's tones).
2. Small units (about 1-3 ms each): first the tones' (:meth:`.FaceTones.units`); then a pair's
   region, then its coarse blurs a few at a time, then its placebo offsets; every card of the
   deck with its suit twin, in that order (as the two checks pass them); a pair's blurs made
   the other way round are the same arrays (:mod:`.blurmatch`): those units find them made.
   Last, each card's pairs with its closest faces of another rank or colour
   (:func:`close_rivals`): what the close-rival checks of a read of it take from the two faces
   alone (:func:`close_rival_units`). Then what its owner adds (:meth:`FaceWarmer.extend`): the
   recogniser adds each card's difference from every face over the face, which the glare
   check asks (:meth:`~hardware.camera.glare.HiddenRivals.units`).
3. :meth:`FaceWarmer.work` stops starting units at a deadline of the caller's thread CPU time.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from functools import partial

import numpy as np

from hardware.camera.blurmatch import COARSE_GRID, warm_blurs, warm_placebo
from hardware.camera.facebank import STORED_PATCH_SIZE, FaceBank, suit_twins
from hardware.camera.inkhue import FaceTones
from hardware.camera.suits import F32, index_leans, ink_check, pair_check
from table_controller.engine.cards import FULL_DECK, Card

#: Coarse blurs made per unit (the grid has 52; a blurred mean face costs about 0.15 ms).
BLURS_PER_UNIT = 13
#: Faces of another rank or colour warmed per card (:func:`close_rivals`): a read's close
#: rival of another kind (:meth:`~hardware.camera.rivals.RivalChecks._verify`) is the best
#: such face, most often one of the card's nearest registered faces.
CLOSE_RIVALS = 2


def close_rivals(bank: FaceBank, card: Card, count: int = CLOSE_RIVALS) -> list[Card]:
    """Return the ``count`` registered faces nearest ``card``'s that are not its suit twin.

    Nearest by the whole-face match (:attr:`FaceBank.matrix`, upright and turned rows: the
    higher of the two correlations), as a read of the card would rank them.
    """
    rows = bank.matrix
    own = rows[2 * card.index]
    scores = np.maximum(np.vecdot(rows[0::2], own), np.vecdot(rows[1::2], own))
    order = [int(i) for i in np.argsort(-scores, kind="stable")]
    return [FULL_DECK[i] for i in order
            if FULL_DECK[i] != card and not suit_twins(card, FULL_DECK[i])][:count]


def close_rival_units(fb: F32, fr: F32) -> list[Callable[[], object]]:
    """Return units making what the close-rival checks take from two faces alone.

    :func:`~hardware.camera.suits.pair_check`'s region, :func:`~.suits.ink_check`'s blobs
    and :func:`~.suits.index_leans`' boxes (a unit each, about 1-1.5 ms), kept per pair of
    read-only faces: the same arrays whichever observation first asks (here the face ``fb``).
    """
    return [partial(pair_check, fb, fb, fr), partial(ink_check, fb, fb, fr),
            partial(index_leans, fb, fb, fr)]


class FaceWarmer:
    """Fills the twin and close-rival caches of ``bank``'s faces (and ``tones``), unit by unit."""

    def __init__(self, bank: FaceBank, tones: FaceTones | None = None) -> None:
        shape = (STORED_PATCH_SIZE[1], STORED_PATCH_SIZE[0])
        self._todo: deque[Callable[[], object]] = deque(tones.units() if tones else ())
        for card in FULL_DECK:
            for twin in FULL_DECK:
                if not suit_twins(card, twin):
                    continue
                fb, fr = bank.luminance(card), bank.luminance(twin)
                # The observation is the card's own face: the region does not depend on it.
                self._todo.append(partial(pair_check, fb, fb, fr))
                for i in range(0, len(COARSE_GRID), BLURS_PER_UNIT):
                    blurs = COARSE_GRID[i : i + BLURS_PER_UNIT]
                    self._todo.append(partial(warm_blurs, fb, fr, shape, blurs))
                # The frame's noise against the pair (``lean_noise``'s placebo): the twin
                # checks of a read ask it whenever the sharp comparison reads the card.
                self._todo.append(partial(warm_placebo, fb, fr))
        # Then each card's close rivals (fewer reads ask them first in a frame than the
        # twin pairs' blurs cost there: last, after the twins' units as they always were).
        for card in FULL_DECK:
            for rival in close_rivals(bank, card):
                self._todo.extend(close_rival_units(bank.luminance(card),
                                                    bank.luminance(rival)))
        #: Units done.
        self.units = 0

    def extend(self, units: list[Callable[[], object]]) -> None:
        """Add ``units`` after those already queued (caches of other checks, filled alike)."""
        self._todo.extend(units)

    @property
    def done(self) -> bool:
        """Whether every unit has been computed."""
        return not self._todo

    def work(self, deadline: float) -> None:
        """Compute units until none is left or this thread's CPU time reaches ``deadline``."""
        while self._todo and time.thread_time() < deadline:
            self._todo.popleft()()
            self.units += 1
