"""A four-colour deck whose twelve courts share one picture: the suit from the index's ink."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.camera import recognizer as rec_module
from hardware.camera.facebank import face_patch
from hardware.camera.inkhue import FaceTones
from hardware.sim import scene as S
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import Tally, make_rig, score
from .test_inkhue import BLUE, GREEN, _recoloured

COURTS = (9, 10, 11)  # J, Q, K


@pytest.fixture(scope="module")
def shared_courts(kennard: Faces) -> Faces:
    """Kennard in four inks (clubs green, diamonds blue) with one picture for all twelve
    courts: the king of spades', each court's own corner indices pasted in."""
    colours = {"c": GREEN, "d": BLUE}
    four = {card: (_recoloured(face, colours[card.code[1]]) if card.code[1] in colours
                   else face) for card, face in kennard.items()}
    picture = kennard[Card.parse("Ks")]
    out = dict(four)
    for card, own in four.items():
        if card.rank not in COURTS:
            continue
        face = picture.copy()
        h, w = face.shape[:2]
        ch, cw = int(0.24 * h), int(0.17 * w)
        face[:ch, :cw] = own[:ch, :cw]
        face[h - ch :, w - cw :] = own[h - ch :, w - cw :]
        out[card] = face
    return out


def test_a_shared_court_picture_leaves_the_suit_to_the_index_ink(shared_courts: Faces) -> None:
    """The picture all courts share shows no suit's ink; over the indices alone the tone names
    each court's suit, blurred as a hard frame blurs it."""
    patches = {(c.rank, c.suit): face_patch(f) for c, f in shared_courts.items()}
    tones = FaceTones(patches)
    assert tones.suit_inks().many
    for rank in COURTS:
        for suit in range(4):
            seen = np.asarray(cv2.GaussianBlur(patches[(rank, suit)], (0, 0), 1.2), np.uint8)
            assert tones.suit_by_tone(seen, rank) == suit, (rank, suit)


def test_shared_courts_read_on_rendered_hard_boards(shared_courts: Faces,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Rendered hard boards: with the suit the ink names, more cards read, and none wrong.

    Only the corner indices tell a jack, a queen and a king of a suit apart here: a rank
    those do not show at the frame's blur is refused (``rank_unshown``). Before that rule
    4 of these 69 courts read wrong with or without the suit rule, all of rank (two kings
    of diamonds, a king and a queen of hearts read as the jacks)."""
    rig = make_rig(shared_courts, seed=5310, level=S.Level.HARD)
    other = rig.profile.recognizer()
    rng = np.random.default_rng(5311)
    with_rule, without = Tally(), Tally()
    courts = [Card(r, s) for r in COURTS for s in range(4)]
    for _ in range(16):
        cards = [courts[int(i)] for i in rng.choice(len(courts), 5, replace=False)]
        scene = S.render_board(shared_courts, list(cards), rng, S.Level.HARD, rig.camera)
        score(scene.truth, rig.recognizer.read(scene.image), with_rule)
        with monkeypatch.context() as m:
            m.setattr(rec_module, "in_suit", lambda match, *_: match)
            score(scene.truth, other.read(scene.image), without)
    assert with_rule.wrong == 0 and without.wrong == 0, (with_rule, without)
    assert with_rule.correct >= without.correct + 3, (with_rule, without)
