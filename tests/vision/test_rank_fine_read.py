"""A one-central-symbol card the corner-index read refuses, read where the fine faces decide it.

The faces are the 8, 9 and 6 of hearts of a generated design printing one central symbol on
every number card (``synth-9251-poker``: normal indices in two corners, two colours), and the
observation the 8 of hearts on a hard plain frame (scene seed 6590000, frame 7, slot 0;
benchmark run 100): the card cut upright at the stored size where the recogniser located it,
and the frame's pixels around it with the card's corners there, all kept in
``tests/vision/data``. Every heart pip card scored 0.985; the corner-index read
(:func:`~hardware.camera.fallback.indices_read`) leans to the 8 against the 9 (0.63 and 0.61)
but cannot compare it with the 6 at all: at the stored size the two faces differ nowhere by
the difference level (a short stroke of the index), so no index box is kept, and the card was
left ``uncertain``. The fine faces, at the frame's own resolution, decide the 8 against both
on the rank veto's bounds: read (``RecognizerParams.fine_rank_read``). The 9 is decided against
by the 8, and is not read.
"""

from __future__ import annotations

from hardware.camera.facebank import Match
from hardware.camera.fallback import fine_ranks_read, indices_read
from hardware.camera.finedecide import RANK_MIN_MEAN, RANK_NOISE_RATIO
from hardware.camera.readings import F32, RecognizerParams
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import BareChecks, kept_checks, kept_look, kept_observation

DESIGN = "synth-9251-poker"
#: The card's corners in the kept frame cut (px; TL, TR, BR, BL of the card upright).
QUAD = ((97.161, 12.584), (262.585, 29.042), (197.083, 273.225), (12.814, 253.918))
EIGHT, NINE, SIX = Card.parse("8h"), Card.parse("9h"), Card.parse("6h")


def _seen(kennard: Faces, params: RecognizerParams) -> tuple[BareChecks, F32]:
    """The checks on kennard's bank with the three faces replaced, and the observation."""
    checks = kept_checks(kennard, DESIGN, (EIGHT, NINE, SIX), params)
    return checks, kept_look(checks.bank.fine, DESIGN, EIGHT, QUAD)


def _match(best: Card, second: Card, third: Card) -> Match:
    return Match(card=best, score=0.985, margin=0.0, discriminant=0.2, separation=0.011,
                 second=second, flipped=False, close=(best, second, third),
                 close_scores=(0.985, 0.985, 0.985))


def test_the_eight_is_read_by_its_fine_corners(kennard: Faces) -> None:
    params = RecognizerParams()
    checks, observed = _seen(kennard, params)
    bank, fine = checks.bank, checks.bank.fine
    assert fine is not None
    # The 8 and the 6 differ nowhere at the stored size: not a pair the index boxes compare.
    assert not bank.index_only.pair(EIGHT, SIX) and bank.index_only.alike_but_corners(EIGHT, SIX)
    assert bank.index_only.pair(EIGHT, NINE)
    for other in (NINE, SIX):
        assert fine.decide(observed, EIGHT, other, RANK_NOISE_RATIO, RANK_MIN_MEAN)[0] == 1
    read = indices_read(observed, _match(EIGHT, NINE, SIX), bank, params)
    assert read is not None and read.status == "card" and read.card == EIGHT
    assert 0.0 < read.confidence <= 0.5
    # Whichever of the two lies best, the 8 is the card read.
    again = indices_read(observed, _match(NINE, EIGHT, SIX), bank, params)
    assert again is not None and again.card == EIGHT


def test_not_read_when_turned_off_or_undecided(kennard: Faces) -> None:
    checks, observed = _seen(kennard, RecognizerParams(fine_rank_read=False))
    assert indices_read(observed, _match(EIGHT, NINE, SIX), checks.bank, checks.params) is None
    checks, observed = _seen(kennard, RecognizerParams())
    # A close card of the same rank (another suit) is not this read's to decide.
    other_suit = Card.parse("8d")
    far = Match(card=EIGHT, score=0.985, margin=0.0, discriminant=0.2, separation=0.011,
                second=NINE, flipped=False, close=(EIGHT, NINE, other_suit),
                close_scores=(0.985, 0.985, 0.985))
    assert fine_ranks_read(observed, far, checks.bank, checks.params) is None
    # No view noted for the observation: nothing decided, nothing read.
    bare = kept_observation(DESIGN, "observed-8h")
    assert fine_ranks_read(bare, _match(EIGHT, NINE, SIX), checks.bank, checks.params) is None
