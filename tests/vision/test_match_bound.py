"""A camera's frame matches no card afresh past its CPU bound beyond its first: the rest are
matched in the next frame read in full (:attr:`BoardRecognizer.match_until_s`)."""

from __future__ import annotations

import numpy as np

from hardware.camera.recognizer import MATCH_UNTIL_S
from hardware.camera.stabilizer import BoardStabilizer
from hardware.sim import scene as S

from .conftest import Faces
from .helpers import board, make_rig


def test_a_flop_laid_at_once_is_read_over_two_frames_under_a_spent_bound(kennard: Faces) -> None:
    """With the bound spent from the start (0 s), the first frame of a flop matches one card
    and leaves the two others uncertain (never another card); the next frame matches those two
    (put off before, so matched whatever the bound) and reads the board as a recogniser with no
    bound reads it. The stabiliser reports only cards read."""
    rig = make_rig(kennard, 140, S.Level.MEDIUM)
    rng = np.random.default_rng(1400)
    placements = S.place_cards(rng, board("Jc 8h 3d"), S.Level.EASY)
    frames = [S.render(kennard, placements, rig.camera, rng, S.Perturbations(noise_sigma=3))
              for _ in range(3)]
    bound, free = rig.profile.recognizer(), rig.profile.recognizer()
    assert bound.match_until_s is None and MATCH_UNTIL_S is not None
    bound.match_until_s = 0.0
    stable = BoardStabilizer(frames=1)
    first = bound.read(frames[0].image)
    assert [s.status for s in first.slots[:3]].count("card") == 1
    assert [s.status for s in first.slots[:3]].count("uncertain") == 2
    assert bound.identified == 1 and bound.put_off == 2
    shown = stable.update(first, 0.0).cards
    assert sum(c is not None for c in shown) == 1
    for sc in frames[1:]:
        got, want = bound.read(sc.image), free.read(sc.image)
        assert [(s.status, s.card) for s in got.slots] == [(s.status, s.card) for s in want.slots]
    assert [s.card for s in got.slots] == board("Jc 8h 3d")
    assert bound.identified == 3 and bound.put_off == 2
    assert stable.update(got, 0.1).cards == tuple(board("Jc 8h 3d"))


def test_without_a_bound_every_card_is_matched_in_its_frame(kennard: Faces) -> None:
    """A recogniser made alone has no bound: the flop is read in its first frame."""
    rig = make_rig(kennard, 141, S.Level.MEDIUM)
    rng = np.random.default_rng(1410)
    sc = S.render(kennard, S.place_cards(rng, board("Ah Kd 2s"), S.Level.EASY), rig.camera, rng,
                  S.Perturbations(noise_sigma=3))
    rec = rig.profile.recognizer()
    assert [s.card for s in rec.read(sc.image).slots] == board("Ah Kd 2s")
    assert rec.put_off == 0
