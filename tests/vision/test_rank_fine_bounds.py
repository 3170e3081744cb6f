"""Ranks told apart by the corners alone, shown at the frame's own resolution on ranks' bounds.

The faces are the 3 and 5 of hearts and the ace and 4 of diamonds of a generated design
printing one large central symbol on every number card (``synth-9211-poker``: normal indices
in two corners, two colours; ranks 2-10 and the ace of a suit share one picture), and each
observation a card as a hard plain scene showed it (scene seed 5101010, frames 11 and 13;
benchmark run 84): the card cut upright at the stored size where the recogniser located it,
and the frame's pixels around it with the card's corners there, all kept in
``tests/vision/data``. The whole face cannot tell the ranks apart (scores within 0.001);
the indices at the stored faces' blur lean too little towards the truth, and the corners at
the frame's own resolution show it:

- the 3 of hearts against the 5, each index corner 0.65 / 0.56 towards the 3 at a noise of
  0.21 / 0.22 (2.5-3.1 times): under the suit twins' 3 times, refused on the starting code;
  on the bounds of two ranks (:data:`~hardware.camera.finedecide.RANK_NOISE_RATIO`) shown;
- the ace of diamonds against the 4, whose sharp region leaned 0.23 (under 0.3) and both
  indices at the frame's blur 0.53: the difference read asked the fine corners only where
  the sharp region leaned 0.3 with the corner templates, so the corners (0.74 / 0.74 at a
  noise of 0.14 / 0.19) were never asked.
"""

from __future__ import annotations

import numpy as np

from hardware.camera.difference import fine_shows, index_only_lean, read_by_difference
from hardware.camera.facebank import FaceBank, Match
from hardware.camera.finetwins import FineView
from hardware.camera.readings import RecognizerParams
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import kept_image, kept_observation, with_kept_faces

DESIGN = "synth-9211-poker"
#: The card's corners in the kept frame cut (px; TL, TR, BR, BL of the card upright).
QUADS = {
    "3h": ((36.718, 19.197), (189.602, 16.477), (180.470, 204.130), (16.246, 206.710)),
    "Ad": ((16.942, 26.074), (169.300, 16.324), (189.027, 200.662), (25.401, 211.356)),
}
CASES = (("3h", "5h"), ("Ad", "4d"))


def _seen(kennard: Faces, card: Card, rival: Card) -> tuple[FaceBank, np.ndarray]:
    """The bank (kennard with the pair's faces replaced) and the observation, its view noted."""
    faces = with_kept_faces(kennard, DESIGN, (card, rival))
    bank = FaceBank.from_faces(faces, RecognizerParams())
    observed = kept_observation(DESIGN, f"observed-{card}")
    quad = np.array(QUADS[str(card)], np.float64)
    assert bank.fine is not None
    bank.fine.look(observed, FineView(kept_image(DESIGN, f"frame-{card}"), quad))
    return bank, observed


def test_the_corners_show_each_truth_and_never_its_rival(kennard: Faces) -> None:
    params = RecognizerParams()
    for truth, other in CASES:
        card, rival = Card.parse(truth), Card.parse(other)
        bank, observed = _seen(kennard, card, rival)
        assert bank.index_only.pair(card, rival)
        assert index_only_lean(observed, card, rival, bank, params) is None
        assert fine_shows(observed, card, rival, bank), truth
        assert not fine_shows(observed, rival, card, bank), truth


def test_the_difference_read_reads_each_truth(kennard: Faces) -> None:
    """The whole face left the two within a hair: the difference read names the truth."""
    params = RecognizerParams()
    for truth, other in CASES:
        card, rival = Card.parse(truth), Card.parse(other)
        bank, observed = _seen(kennard, card, rival)
        for best, second in ((card, rival), (rival, card)):
            match = Match(card=best, score=0.99, margin=0.0, discriminant=0.3, second=second,
                          close=(best, second), close_scores=(0.99, 0.99),
                          ranked=(best, second), ranked_scores=(0.99, 0.99))
            read = read_by_difference(observed, match, bank, params)
            assert read is not None and read.card == card, (truth, best)
