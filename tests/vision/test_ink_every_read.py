"""On a four-colour deck every read that names a card passes the ink's tone, whatever path."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from hardware.camera import recognizer as rec_module
from hardware.camera import tonechecks
from hardware.camera.facebank import Match
from hardware.camera.inkhue import F64, _suit_from_hue
from hardware.camera.readings import SlotReading
from hardware.camera.recognizer import BoardRecognizer
from table_controller.engine.cards import SUITS, Card

from .conftest import Faces
from .test_inkhue import _blurred_board
from .test_inktone import four_colour  # noqa: F401  (the fixture)

CLUBS, DIAMONDS = SUITS.index("c"), SUITS.index("d")
#: The reads a card the whole face left uncertain gets, by the names the recogniser calls.
FALLBACKS = ("read_washed_out", "read_by_difference", "indices_read")


def _uncertain(match: Match, _p: object) -> SlotReading:
    return SlotReading("uncertain", None, 0.3, match.card, match.score, match.margin,
                       match.discriminant, match.separation)


def _naming(suit: int) -> Callable[..., SlotReading]:
    """A fallback read naming the best card's rank in ``suit``, as a hard frame's lean may."""

    def read(_observed: object, match: Match, *_rest: object) -> SlotReading:
        return SlotReading("card", Card(match.card.rank, suit), 0.3, None, match.score,
                           0.0, 0.0, 0.0)

    return read


def _no_ink_named(rec: BoardRecognizer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ink's tone and hue name no suit (a washed-out or a mixed ink)."""
    monkeypatch.setattr(rec.tones, "suit_by_tone", lambda *_: None)
    monkeypatch.setattr(rec.tones, "suit_by_hue", lambda *_: None)


@pytest.mark.parametrize("tone", ["shown", "none"])
@pytest.mark.parametrize("path", FALLBACKS)
def test_a_fallback_read_of_a_diamond_as_the_club_is_refused(
    four_colour: Faces, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
    path: str, tone: str,
) -> None:
    """Blue diamonds the whole face leaves uncertain, read as the green clubs by a read that
    compares luminance only (the washed-out read did so to a jack, a queen and a king of
    diamonds on designs whose twelve courts share one picture, benchmark runs 57 and 58;
    the hue check kept them). Refused by the ink's tone, whether it names the diamond
    (``shown``) or no suit (``none``: a read of a four-colour deck must have its suit named);
    the same read naming the diamond stands where the tone names it."""
    rec, image = _blurred_board(four_colour, "Kd Jd Qd 9d", 5807)
    monkeypatch.setattr(rec_module, "decide", _uncertain)
    monkeypatch.setattr(rec_module, "twin_not_shown", lambda *a: a[-1])
    monkeypatch.setattr(tonechecks, "hue_refutes", lambda *_: False)
    monkeypatch.setattr(rec, "_tone_read", lambda *_: None)
    monkeypatch.setattr(rec, "_glare_confirmed", lambda _o, _p, reading, *_: reading)
    if tone == "none":
        _no_ink_named(rec, monkeypatch)
    for name in FALLBACKS:
        monkeypatch.setattr(rec_module, name, _naming(CLUBS) if name == path
                            else lambda *_: None)
    reading = rec.read(image)
    assert [s.status for s in reading.slots[:4]] == ["uncertain"] * 4, reading.slots
    monkeypatch.setattr(rec_module, path, _naming(DIAMONDS))
    again, _ = _blurred_board(four_colour, "Kd Jd Qd 9d", 5807)  # no reading kept
    monkeypatch.setattr(again, "_tone_read", lambda *_: None)
    monkeypatch.setattr(again, "_glare_confirmed", lambda _o, _p, reading, *_: reading)
    if tone == "none":
        _no_ink_named(again, monkeypatch)
    read = again.read(image).slots[:4]
    if tone == "shown":
        assert [s.card for s in read] == [Card.parse(c) for c in ("Kd", "Jd", "Qd", "9d")]
    else:
        assert all(s.status == "uncertain" for s in read), read


def test_a_whole_face_read_needs_the_tone_only_with_its_rank_close(
    four_colour: Faces, kennard: Faces, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
) -> None:
    """A whole-face read whose ink names another suit is refused; one whose ink names no suit
    stands unless a card of its rank in another suit scored close (``match.close``). A
    two-colour deck's reads are never asked."""
    rec, image = _blurred_board(four_colour, "Kd", 5808)
    pose = rec.locate(image, 0)
    assert pose is not None
    kd, kc, qc = Card.parse("Kd"), Card.parse("Kc"), Card.parse("Qc")

    def read(card: Card) -> SlotReading:
        return SlotReading("card", card, 0.9, None, 0.95, 0.1, 0.9, 0.1)

    def match(card: Card, close: tuple[Card, ...]) -> Match:
        return Match(card, 0.95, 0.1, 0.9, 0.1, close=close)

    assert rec._ink_kept(image, pose, False, read(kd), match(kd, (kd, kc))) == read(kd)
    assert rec._ink_kept(image, pose, False, read(kc), match(kc, (kc, qc))) is None
    assert rec._ink_kept(image, pose, False, read(kc)) is None
    _no_ink_named(rec, monkeypatch)
    assert rec._ink_kept(image, pose, False, read(kc), match(kc, (kc, qc))) == read(kc)
    assert rec._ink_kept(image, pose, False, read(kc), match(kc, (kc, kd))) is None
    assert rec._ink_kept(image, pose, False, read(kd)) is None
    plain, shown = _blurred_board(kennard, "Kd", 5808)
    at = plain.locate(shown, 0)
    assert at is not None
    assert plain._ink_kept(shown, at, False, read(kc)) == read(kc)


def test_a_bright_light_stretches_the_tone_along_the_inks_hue(
    four_colour: Faces,  # noqa: F811
) -> None:
    """Paper clipped to the sensor's white takes darkness from the ink, not its colour: the
    tone grows along its hue; the hue names each coloured suit of a pip rank (black ink is the
    tone rule's). Faded to the paper, or where a rank's face tones lie between black and
    coloured (a court picture mixing inks), no suit."""
    rec, _ = _blurred_board(four_colour, "7c", 5809)
    tones = rec.tones
    for suit in range(4):
        face = rec.bank.patches[Card(5, suit)].astype(np.float32)
        # 30% brighter (the bright situation), clipped: the paper saturates.
        seen = np.asarray(np.clip(face * 1.3, 0, 255), np.uint8)
        got = tones.suit_by_hue(seen, 5)
        assert got == (None if SUITS[suit] == "s" else suit), SUITS[suit]
    white = np.full_like(rec.bank.patches[Card(5, 0)], 250)
    assert tones.suit_by_hue(white, 5) is None
    club, between = np.array([-0.5, -0.6]), np.array([0.2, -0.2])
    diamond, heart, black = np.array([0.7, -1.0]), np.array([0.0, 1.1]), np.array([0.1, -0.1])
    assert _suit_from_hue(1.6 * club, [0, 1, 2, 3], [club, diamond, heart, black]) == 0
    assert _suit_from_hue(1.6 * club, [0, 1, 2, 3], [club, between, heart, black]) is None
    # A green and a blue ink 59 degrees apart (synth-7 poker): a bright diamond's tone lies 5
    # degrees from the blue and 54 from the green; one halfway between names neither.
    green, blue = np.array([-0.33, -0.77]), np.array([0.76, -1.05])
    faces: list[F64 | None] = [green, blue, heart, black]
    assert _suit_from_hue(np.array([0.91, -1.5]), [0, 1, 2, 3], faces) == 1
    assert _suit_from_hue(np.array([0.1, -1.5]), [0, 1, 2, 3], faces) is None
