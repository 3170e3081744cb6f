"""The fine rank read's reach: every close card tried, the ace compared, one corner alone.

On a one-central-symbol design every number card of a suit scores within a few ten-thousandths
of the others, and the ace (its symbol drawn a little larger) scores close too. Two hard plain
frames of the four-colour such design ``synth-9265`` (benchmark run 108), each card cut upright
at the stored size where the recogniser located it, and the frame's pixels around it with the
card's corners there, kept in ``tests/vision/data``:

- a 9 of hearts (poker, scene seed 7631000, frame 0, slot 3) that scored third behind the 6
  and the 8, the ace of hearts among the close cards: the read tried the best two only, and
  any close card differing from the read outside the corners (the ace) left it to the other
  rules, so it stayed ``uncertain``; its corners decide it against the 6, the 8 and the ace;
- a 6 of clubs (bridge, 7630000, frame 4, slot 0) with a neighbour lying near its bottom-right
  index, so one index corner only is compared: the fine decision asks two corners, and
  that one leans to the 6 against the 8 by over three times its noise.
"""

from __future__ import annotations

from dataclasses import replace

from hardware.camera.facebank import Match
from hardware.camera.fallback import fine_ranks_read
from hardware.camera.finedecide import RANK_MIN_MEAN, RANK_NOISE_RATIO
from hardware.camera.readings import F32, RecognizerParams
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import BareChecks, kept_checks, kept_look

NINE, SIX_H, EIGHT_H, ACE_H = (Card.parse(c) for c in ("9h", "6h", "8h", "Ah"))
#: The 9's corners in the kept frame cut (px; TL, TR, BR, BL of the card upright).
NINE_QUAD = ((214.745, 251.922), (21.625, 249.682), (12.002, 12.470), (188.197, 13.819))
SIX_C, EIGHT_C, FIVE_C, ACE_C = (Card.parse(c) for c in ("6c", "8c", "5c", "Ac"))
SIX_QUAD = ((90.065, 12.387), (218.795, 25.593), (157.137, 239.116), (12.887, 223.083))
#: The corner boxes a neighbour may lie over (TL, TR, BL, BR upright): the 6's bottom right.
SIX_HIDDEN = (False, False, False, True)


def _match(close: tuple[Card, ...]) -> Match:
    return Match(card=close[0], score=0.993, margin=0.0, discriminant=0.06, separation=0.0005,
                 second=close[1], flipped=False, close=close,
                 close_scores=tuple(0.993 - 0.0001 * k for k in range(len(close))))


def _nine(kennard: Faces, params: RecognizerParams) -> tuple[BareChecks, F32]:
    checks = kept_checks(kennard, "synth-9265-poker", (NINE, SIX_H, EIGHT_H, ACE_H), params)
    return checks, kept_look(checks.bank.fine, "synth-9265-poker", NINE, NINE_QUAD)


def _six(kennard: Faces, params: RecognizerParams) -> tuple[BareChecks, F32]:
    checks = kept_checks(kennard, "synth-9265-bridge", (SIX_C, EIGHT_C, FIVE_C, ACE_C), params)
    return checks, kept_look(checks.bank.fine, "synth-9265-bridge", SIX_C, SIX_QUAD,
                             SIX_HIDDEN)


def test_a_third_card_is_read_against_its_ranks_and_the_ace(kennard: Faces) -> None:
    checks, observed = _nine(kennard, RecognizerParams())
    bank = checks.bank
    # The ace's face differs from the 9's outside the corners: not one of its alike ranks.
    assert bank.index_only.alike_ranks(NINE) == {SIX_H, EIGHT_H}
    assert not bank.index_only.alike_but_corners(NINE, ACE_H)
    close = (SIX_H, EIGHT_H, NINE, ACE_H)
    read = fine_ranks_read(observed, _match(close), bank, checks.params)
    assert read is not None and read.card == NINE and read.status == "card"
    # Each part alone: the 9 not tried (third), or the ace not compared, leaves it uncertain.
    for params in (replace(checks.params, fine_rank_read_every_close=False),
                   replace(checks.params, fine_rank_read_elsewhere=False)):
        assert fine_ranks_read(observed, _match(close), bank, params) is None


def test_no_other_close_card_is_read(kennard: Faces) -> None:
    checks, observed = _nine(kennard, RecognizerParams())
    fine = checks.bank.fine
    assert fine is not None
    # Each rival is decided against by the 9 (so none of them can be read) ...
    for rival in (SIX_H, EIGHT_H, ACE_H):
        assert fine.decide(observed, NINE, rival, RANK_NOISE_RATIO, RANK_MIN_MEAN)[0] == 1
    # ... and without the 9 among the close cards, nothing is read.
    for close in ((SIX_H, EIGHT_H, ACE_H), (EIGHT_H, SIX_H)):
        assert fine_ranks_read(observed, _match(close), checks.bank, checks.params) is None


def test_one_index_corner_beside_a_neighbour_decides_alone(kennard: Faces) -> None:
    checks, observed = _six(kennard, RecognizerParams())
    fine = checks.bank.fine
    assert fine is not None
    seen = fine.lean(observed, SIX_C, EIGHT_C)
    assert seen is not None and len(seen.corners) == 1 and seen.differing == 2
    # Two corners asked: undecided; the one corner leans to the 6 past three times its noise.
    assert fine.decide(observed, SIX_C, EIGHT_C, RANK_NOISE_RATIO, RANK_MIN_MEAN)[0] == 0
    corner = seen.corners[0]
    assert corner.lean >= 3.0 * corner.noise and corner.lean >= RANK_MIN_MEAN
    close = (SIX_C, EIGHT_C, FIVE_C, ACE_C)
    read = fine_ranks_read(observed, _match(close), checks.bank, checks.params)
    assert read is not None and read.card == SIX_C
    never_alone = replace(checks.params, fine_rank_read_alone_ratio=float("inf"))
    assert fine_ranks_read(observed, _match(close), checks.bank, never_alone) is None
