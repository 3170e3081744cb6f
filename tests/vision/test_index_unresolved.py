"""Two ranks no corner template tells apart: read at the frame's blur only where it is resolved.

The faces are the 6 and 8 of clubs of a generated design printing one large central symbol on
every number card (``synth-9228-bridge``: four colours, the clubs' small index green; ranks
2-10 and the ace of a suit share one picture), and the observation an 8 of clubs as a hard
plain scene showed it (scene seed 5602510, frame 2, slot 1 from 0; benchmark run 91): the
card cut upright at the stored size where the recogniser located it, and the frame's pixels
around it with the card's corners there, all kept in ``tests/vision/data``. Its green index
is smeared to a few grey pixels; the whole face left the number cards of clubs within 0.001
of each other.

No corner template tells a 6 from an 8 of this design
(:meth:`~hardware.camera.index.IndexRead.position` None), and both indices at the frame's
blur leaned 1.38 towards the 6 (:func:`~hardware.camera.difference.index_only_lean`) where
the camera resolved the pair at 0.87 only
(:meth:`~hardware.camera.indexonly.IndexOnly.resolved`: the two faces, blurred so, differ by
less than the fit leaves unexplained). The
difference read took that lean and read the 6 of clubs; it now asks
:data:`~hardware.camera.difference.INDEX_RESOLVED` of such a pair too, as of a pair whose
templates lean neither way, and the 8 is left uncertain.
"""

from __future__ import annotations

import numpy as np

from hardware.camera.difference import INDEX_RESOLVED, index_only_lean, read_by_difference
from hardware.camera.facebank import FaceBank, Match
from hardware.camera.finetwins import FineView
from hardware.camera.readings import RecognizerParams
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import kept_image, kept_observation, with_kept_faces

DESIGN = "synth-9228-bridge"
#: The card's corners in the kept frame cut (px; TL, TR, BR, BL of the card upright).
QUAD = ((174.223, 248.746), (12.215, 239.407), (39.312, 12.888), (193.307, 21.914))
EIGHT, SIX = Card.parse("8c"), Card.parse("6c")


def _seen(kennard: Faces) -> tuple[FaceBank, np.ndarray]:
    """The bank (kennard with the pair's faces replaced) and the observation, its view noted."""
    faces = with_kept_faces(kennard, DESIGN, (EIGHT, SIX))
    bank = FaceBank.from_faces(faces, RecognizerParams())
    observed = kept_observation(DESIGN, f"observed-{EIGHT}")
    assert bank.fine is not None
    bank.fine.look(observed, FineView(kept_image(DESIGN, f"frame-{EIGHT}"),
                                      np.array(QUAD, np.float64)))
    return bank, observed


def test_the_pair_is_unresolved_and_leans_the_wrong_way(kennard: Faces) -> None:
    """What the read must not take: a lean at the frame's blur the camera does not resolve."""
    params = RecognizerParams()
    bank, observed = _seen(kennard)
    assert bank.index_only.pair(SIX, EIGHT)
    assert bank.index.read(observed).position(SIX, EIGHT) is None
    assert bank.index_only.resolved(observed, SIX, EIGHT) < INDEX_RESOLVED
    lean = index_only_lean(observed, SIX, EIGHT, bank, params)
    assert lean is not None and lean > 1.0


def test_the_difference_read_does_not_read_the_six(kennard: Faces) -> None:
    """Whichever of the two the whole face put first, the 6 of clubs is never read."""
    params = RecognizerParams()
    bank, observed = _seen(kennard)
    for best, second in ((SIX, EIGHT), (EIGHT, SIX)):
        match = Match(card=best, score=0.954, margin=0.0, discriminant=0.1, second=second,
                      close=(best, second), close_scores=(0.954, 0.954),
                      ranked=(best, second), ranked_scores=(0.954, 0.954))
        read = read_by_difference(observed, match, bank, params)
        assert read is None or read.card == EIGHT, (best, read)
