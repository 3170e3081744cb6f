"""The difference read asks the corner indices more where the rival's ink may be washed out.

The faces are the 2 and 3 of hearts and of diamonds of a generated design
(``synth-9286-poker``: normal indices in two corners, two colours, standard pips), and the
observation is a 3 of hearts as a hard ``placing`` scene showed it, its middle pip washed out by
a glare (cut upright at the stored size where the recogniser located it; benchmark run 119, an
unseen measurement), all kept in ``tests/vision/data``. The whole face put the 2 first; the
difference read compared the 2 with the 3: the difference region leaned 0.35 towards the 2 and
the blurred corner indices 0.24, each just past its bound (``difference_min_position`` 0.3,
``difference_min_index`` 0.2), and the card was read as the 2 of hearts. On that frame
``paper_shown(2h, 3h)`` did not hold (the white where the 3 has its middle pip was not shown to
be the 2's paper: :meth:`~hardware.camera.rivals.RivalChecks._paper_shown`, which needs the
frame's glare; passed here as the answer the frame gave). Where it does not hold the indices
must now lean ``difference_unpapered_index`` (0.4) towards the read.
"""

from __future__ import annotations

from dataclasses import replace

from hardware.camera import difference
from hardware.camera.facebank import FaceBank, Match
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.suits import pair_check
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import kept_observation, with_kept_faces

DESIGN = "synth-9286-poker"
TWO, THREE = Card.parse("2h"), Card.parse("3h")
TWO_D, THREE_D = Card.parse("2d"), Card.parse("3d")


def _bank(kennard: Faces, params: RecognizerParams) -> FaceBank:
    return FaceBank.from_faces(with_kept_faces(kennard, DESIGN, (TWO, THREE, TWO_D, THREE_D)),
                               params)


def _seen() -> F32:
    return kept_observation(DESIGN, "observed-3h")


def _match() -> Match:
    """The whole face's match as the frame gave it (the 2 of hearts first)."""
    close = (TWO, THREE, TWO_D, THREE_D)
    scores = (0.9652, 0.9236, 0.9094, 0.8768)
    return Match(TWO, 0.9652, 0.0416, 0.290, 0.0778, THREE, discriminant_others=0.290,
                 separation_others=0.0778, other=THREE, ranked=close, ranked_scores=scores,
                 close=close, close_scores=scores)


def _unpapered(_x: Card, _y: Card) -> bool:
    return False


def test_the_region_and_the_indices_lean_to_the_two_just_past_their_bounds(
        kennard: Faces) -> None:
    params = RecognizerParams()
    bank = _bank(kennard, params)
    ob = _seen()
    check = pair_check(ob, bank.luminance(TWO), bank.luminance(THREE))
    assert params.difference_min_position <= check.position < 0.45
    at = bank.index.read(ob).position(TWO, THREE)
    assert at is not None and params.difference_min_index <= at < 0.3


def test_the_two_is_not_read_where_its_paper_is_not_shown(kennard: Faces) -> None:
    params = RecognizerParams()
    read = difference.read_by_difference(_seen(), _match(), _bank(kennard, params), params,
                                         _unpapered)
    assert read is None or read.card != TWO


def test_with_the_old_bound_the_two_was_read(kennard: Faces) -> None:
    params = replace(RecognizerParams(), difference_unpapered_index=0.0)
    read = difference.read_by_difference(_seen(), _match(), _bank(kennard, params), params,
                                         _unpapered)
    assert read is not None and read.card == TWO
