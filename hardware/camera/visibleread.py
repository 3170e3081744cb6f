"""A card read on the part of its face its located neighbours leave (:class:`VisibleRead`).

Part of :class:`~hardware.camera.recognizer.BoardRecognizer`, kept here by job: a card half
under a neighbour matched on its visible part alone (:mod:`.partial`), then held to the checks
of any read.
"""

from __future__ import annotations

from collections.abc import Sequence

from hardware.camera.facebank import PATCH_SIZE, decide, face_features
from hardware.camera.locator import CardPose
from hardware.camera.partial import (
    MIN_HIDDEN,
    MIN_VISIBLE,
    hidden_in_patch,
    hidden_share,
    restrict,
    visible_bank,
    visible_keep,
)
from hardware.camera.readings import FloatArray, Image, SlotReading
from hardware.camera.suits import observed_luminance
from hardware.camera.tonechecks import ToneChecks


class VisibleRead(ToneChecks):
    """The visible-part read of :class:`~hardware.camera.recognizer.BoardRecognizer`."""

    def _quad(self, pose: CardPose, grow: float = 0.0) -> FloatArray:
        """Return the card's corners in the canonical view (the locator's)."""
        raise NotImplementedError

    def card_patch(
        self, frame: Image, pose: CardPose, size: tuple[int, int] = PATCH_SIZE
    ) -> Image:
        """Cut the card at ``pose`` from the frame as a BGR patch (the locator's)."""
        raise NotImplementedError

    def _read_visible(
        self, frame: Image, pose: CardPose, over: Sequence[FloatArray]
    ) -> SlotReading | None:
        """Read the card on the part of its face no neighbour in ``over`` covers, or None.

        Only when the neighbours hide at least ``MIN_HIDDEN`` and leave ``MIN_VISIBLE`` of the
        face, on the thresholds of any read (the hidden part is the located neighbours' known
        geometry, both sides compared on the same pixels) and the close rivals' checks
        (:meth:`_verify`, :meth:`_check_index`) not refusing it (:mod:`.partial`).
        """
        p = self.params
        hidden = hidden_in_patch(self._quad(pose), over)
        share = hidden_share(hidden)
        if not MIN_HIDDEN <= share <= 1.0 - MIN_VISIBLE:
            return None
        keep = visible_keep(hidden)
        vec = restrict(face_features(self.card_patch(frame, pose), p.red_weight), keep)
        match = visible_bank(self.bank, keep).match(vec, p)
        reading = decide(match, p)
        if reading.status != "card":
            return None
        patch = self._upright(frame, pose, match.flipped)
        seen = observed_luminance(patch)
        overlying = lambda: self._neighbours_over(pose, match.flipped)  # noqa: E731
        reading = self._verify(lambda: seen, match, reading, False, overlying)
        if reading.status == "card" and p.index_check:
            reading = self._check_index(seen, match, reading, overlying)
        return self._ink_kept(frame, pose, match.flipped,
                              reading if reading.status == "card" else None)
