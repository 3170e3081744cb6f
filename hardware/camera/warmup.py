"""What the registered faces alone decide, computed ahead in frames that have time to spare.

Rules this module keeps:

1. Only caches are filled: what :func:`~hardware.camera.facebank.decide_twin` and
   :func:`~hardware.camera.facebank.twin_refuted` compute from two registered faces alone (the
   pair's difference region; the blur search's mean face and its coarse grid of blurs,
   :func:`~hardware.camera.blurmatch.warm_blurs`) is kept per pair of faces by
   :mod:`hardware.camera.suits` and :mod:`hardware.camera.blurmatch`, and is the same array
   whenever it is computed. A reading does not change; the first card of a suit-twin pair
   checked in a frame no longer pays for it there. The same for the tone reads' parts
   (:class:`~hardware.camera.inkhue.FaceTones`: whether the deck prints its suits in more than
   two inks, which the first card read in a frame asks on every deck, and each rank's tones).
2. Small units (about 1-3 ms each): first the tones' (:meth:`.FaceTones.units`); then a pair's
   region, then its coarse blurs a few at a time; every card of the deck with its suit twin,
   in that order (as the two checks pass them).
3. :meth:`FaceWarmer.work` stops starting units at a deadline of the caller's thread CPU time.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from functools import partial

from hardware.camera.blurmatch import COARSE_GRID, warm_blurs
from hardware.camera.facebank import STORED_PATCH_SIZE, FaceBank, suit_twins
from hardware.camera.inkhue import FaceTones
from hardware.camera.suits import pair_check
from table_controller.engine.cards import FULL_DECK

#: Coarse blurs made per unit (the grid has 52; a blurred mean face costs about 0.15 ms).
BLURS_PER_UNIT = 13


class FaceWarmer:
    """Fills the suit-twin caches of ``bank``'s faces (and ``tones``), a unit at a time."""

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
        #: Units done.
        self.units = 0

    @property
    def done(self) -> bool:
        """Whether every unit has been computed."""
        return not self._todo

    def work(self, deadline: float) -> None:
        """Compute units until none is left or this thread's CPU time reaches ``deadline``."""
        while self._todo and time.thread_time() < deadline:
            self._todo.popleft()()
            self.units += 1
