"""A four-colour diamond read in the suit its ink's hue names where its tone names none.

``synth-9288`` prints its suits in four inks, its diamonds and clubs in two colours the
whole face, which weighs colour only as redness, hardly tells apart. A hard frame under a
bright light (benchmark run 124: poker, hard ``bright``, scene seed 9001000 of the run's
trace, frame 3, slot 2) showed a 6 of diamonds the whole face put 0.005 over the 6 of clubs:
not separated, so left to the tone read
(:meth:`~hardware.camera.tonechecks.ToneChecks._tone_read`). The light clipped the paper,
the ink's tone grew along its hue past the tone rule's reach and the tone named no suit; the
hue named the diamond, as the ink check every
read passes (``_ink_kept``) lets it. The tone read asked the tone alone and read nothing;
since ``tone_read_hue`` it takes the hue's suit as the ink check does, and the whole face
with the rank's other suits left out reads the 6 of diamonds on every threshold. Kept in
``tests/vision/data``: the four sixes' stored patches and the card cut upright as the
recogniser cut it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from hardware.camera.facebank import Match
from hardware.camera.inkhue import FaceTones
from hardware.camera.locator import CardPose
from hardware.camera.readings import F32, Image, RecognizerParams, SlotReading
from hardware.camera.tonechecks import ToneChecks
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import kept_image
from .test_inktone import (
    _patches,
    four_colour,  # noqa: F401  (the fixture)
)

DESIGN = "synth-9288-poker"
SIX_D, SIX_C, SIX_H, SIX_S = (Card.parse(c) for c in ("6d", "6c", "6h", "6s"))
#: The whole face's match on the frame (the diamond 0.005 over the club: not separated).
WHOLE = Match(SIX_D, 0.95955, 0.00541, 0.10233, 0.01664, SIX_C, False, 0.10233, 0.01664, SIX_C,
              close=(SIX_D, SIX_C, SIX_S), close_scores=(0.95955, 0.95414, 0.88117))
#: The whole face's match with the sixes of the other suits left out.
TONED = Match(SIX_D, 0.95955, 0.08160, 0.63673, 0.19222, Card.parse("7d"), False, 0.63673,
              0.19222, Card.parse("7d"))
POSE = CardPose((0.0, 0.0), 0.0, 2)


class _Bank:
    """The whole face's matches on the frame, as the recogniser's bank gave them."""

    def match(self, vec: F32, params: RecognizerParams,
              among: Sequence[Card] | None = None) -> Match:
        assert among is not None and SIX_D not in among
        assert {SIX_C, SIX_H, SIX_S} == set(among)
        return TONED


class _Checks(ToneChecks):
    """The tone read on a deck's tones alone, the card cut given; the rival checks kept out."""

    def __init__(self, tones: FaceTones, cut: Image, params: RecognizerParams) -> None:
        self.tones = tones
        self.params = params
        self.bank = _Bank()  # type: ignore[assignment]
        self._cut = cut

    def _upright(self, frame: Image, pose: CardPose, flipped: bool) -> Image:
        return self._cut

    def _verify(self, observed: Callable[[], F32], match: Match, reading: SlotReading,
                twin_decided: bool, neighbours: Callable[[], Image | None] | None = None,
                patch: Callable[[], Image] | None = None) -> SlotReading:
        return reading

    def _check_index(self, observed: F32, match: Match, reading: SlotReading,
                     neighbours: Callable[[], Image | None] | None = None) -> SlotReading:
        return reading


def _checks(four_colour: Faces, params: RecognizerParams) -> _Checks:  # noqa: F811
    patches = _patches(four_colour)
    for six in (SIX_D, SIX_C, SIX_H, SIX_S):
        patches[(six.rank, six.suit)] = kept_image(DESIGN, f"patch-{six}")
    return _Checks(FaceTones(patches), kept_image(DESIGN, f"upright-{SIX_D}"), params)


def _read(checks: _Checks) -> SlotReading | None:
    cut = checks._cut
    observed = np.zeros((1, 1), np.float32)
    return checks._tone_read(cut, POSE, observed, WHOLE, lambda: observed)


def test_the_sixs_tone_names_no_suit_and_its_hue_the_diamond(
    four_colour: Faces,  # noqa: F811
) -> None:
    checks = _checks(four_colour, RecognizerParams())
    assert checks._many_inks()
    cut = kept_image(DESIGN, f"upright-{SIX_D}")
    assert checks.tones.suit_by_tone(cut, SIX_D.rank) is None
    assert checks.tones.suit_by_hue(cut, SIX_D.rank) == SIX_D.suit


def test_the_tone_read_reads_the_suit_the_hue_names(four_colour: Faces) -> None:  # noqa: F811
    checks = _checks(four_colour, RecognizerParams())
    read = _read(checks)
    assert read is not None and read.status == "card" and read.card == SIX_D
    # The ink check every read passes keeps it (the hue names the diamond there too).
    assert checks._ink_kept(checks._cut, POSE, False, read) == read


def test_without_the_hue_the_tone_read_reads_nothing(four_colour: Faces) -> None:  # noqa: F811
    checks = _checks(four_colour, replace(RecognizerParams(), tone_read_hue=False))
    assert _read(checks) is None
