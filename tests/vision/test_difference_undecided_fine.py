"""A difference read the corner templates leave undecided needs the fine corners.

The faces are the 8 and 9 of diamonds of a generated design printing one central symbol on
every number card (``synth-9211-poker``: normal indices in two corners), and the observation
a 9 of diamonds as a hard plain scene showed it (scene seed 6511010, frame 7, slot 2 from 0;
benchmark run 102): the card cut upright at the stored size where the recogniser located it,
and the frame's pixels around it with the card's corners there, all kept in
``tests/vision/data``. Its indices are blobs a few pixels high; every diamond pip card scored
within 0.007 of the best (the 8).

The corner templates lean neither way between the 8 and the 9 (-0.006), and the two faces
blurred as the observation is leaned 0.73 towards the 8 over both indices (0.61 on the
weaker half, resolved 1.58): :func:`~hardware.camera.difference.index_only_lean` alone
decided, and the difference read named the 8 (confidence 0.28). Both index corners lay
beside a neighbour a few millimetres away, so the corners at the frame's own resolution
were not compared. With ``difference_undecided_fine`` that lean must be confirmed by those
corners (:func:`~hardware.camera.difference.fine_rank_lean`), and nothing is read.
"""

from __future__ import annotations

from hardware.camera.difference import INDEX_RESOLVED, index_only_lean, read_by_difference
from hardware.camera.facebank import FaceBank, Match
from hardware.camera.readings import F32, RecognizerParams
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import kept_bank

DESIGN = "synth-9211-poker"
#: The card's corners in the kept frame cut (px; TL, TR, BR, BL of the card upright).
QUAD = ((17.269, 14.127), (153.101, 12.087), (162.396, 190.243), (12.905, 192.749))
#: The corner boxes a neighbour may lie over (TL, TR, BL, BR), as the recogniser found them.
HIDDEN = (True, True, False, True)
EIGHT, NINE = Card.parse("8d"), Card.parse("9d")


def _seen(kennard: Faces, params: RecognizerParams) -> tuple[FaceBank, F32]:
    """The bank (kennard with the pair's faces replaced) and the observation, its view noted."""
    return kept_bank(kennard, DESIGN, (EIGHT, NINE), NINE, QUAD, params, HIDDEN)


def _match(best: Card, second: Card) -> Match:
    return Match(card=best, score=0.983, margin=0.0, discriminant=0.1, second=second,
                 separation=0.003, close=(best, second), close_scores=(0.9833, 0.9830),
                 ranked=(best, second), ranked_scores=(0.9833, 0.9830))


def test_only_the_blurred_comparison_leans_and_it_leans_to_the_eight(kennard: Faces) -> None:
    """What the read rested on: templates undecided, the frame's blur 0.73 towards the 8."""
    params = RecognizerParams()
    bank, observed = _seen(kennard, params)
    assert bank.index_only.pair(EIGHT, NINE)
    at = bank.index.read(observed).position(EIGHT, NINE)
    assert at is not None and abs(at) < params.difference_min_index
    assert bank.index_only.resolved(observed, EIGHT, NINE) >= INDEX_RESOLVED
    lean = index_only_lean(observed, EIGHT, NINE, bank, params)
    assert lean is not None and lean >= params.index_only_min_position
    assert bank.fine is not None
    assert bank.fine.decide(observed, EIGHT, NINE) == (0, 0.0)


def test_the_eight_is_not_read(kennard: Faces) -> None:
    """Whichever of the two the whole face put first, the 8 of diamonds is never read."""
    params = RecognizerParams()
    bank, observed = _seen(kennard, params)
    for best, second in ((EIGHT, NINE), (NINE, EIGHT)):
        read = read_by_difference(observed, _match(best, second), bank, params)
        assert read is None or read.card == NINE, (best, read)


def test_without_the_rule_the_eight_is_read(kennard: Faces) -> None:
    """Turned off, the blurred comparison alone reads the 8 (the wrong read of run 102)."""
    params = RecognizerParams(difference_undecided_fine=False)
    bank, observed = _seen(kennard, params)
    read = read_by_difference(observed, _match(EIGHT, NINE), bank, params)
    assert read is not None and read.card == EIGHT
