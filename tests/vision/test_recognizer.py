"""Recognition under each perturbation, for both deck designs (real OpenCV on rendered scenes)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from hardware.camera.geometry import BoardGeometry
from hardware.sim import scene as S
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import Rig, Tally, board, make_rig, score

BOARDS = ("Ah Kd 7c 7s Qh", "2c 2s 9h 6d Td", "Jc 8h 3d 5s")
GEO = BoardGeometry()


@pytest.fixture(scope="module", params=["kennard", "svg-cards"])
def rig(request: pytest.FixtureRequest, kennard: Faces, svg_cards: Faces) -> Rig:
    faces = kennard if request.param == "kennard" else svg_cards
    return make_rig(faces, 100, S.Level.MEDIUM)


def _placed(rng: np.random.Generator, cards: list[Card | None]) -> list[S.Placement]:
    return S.place_cards(rng, cards, S.Level.EASY)


def _run(rig: Rig, seed: int, pert: S.Perturbations,
         place: Callable[[np.random.Generator, list[Card | None]], list[S.Placement]] = _placed,
         ) -> Tally:
    rng = np.random.default_rng(seed)
    tally = Tally()
    for text in BOARDS:
        scene = S.render(rig.faces, place(rng, board(text)), rig.camera, rng, pert)
        score(scene.truth, rig.recognizer.read(scene.image), tally)
    return tally


def _check(t: Tally, min_correct: float = 0.9) -> None:
    assert t.wrong == 0, t
    assert t.correct >= min_correct * t.cards, t


PERTURBATIONS = {
    "blur": S.Perturbations(blur_sigma=2.5, noise_sigma=2),
    "motion-blur": S.Perturbations(motion_len=12, motion_angle_deg=30, noise_sigma=2),
    "noise": S.Perturbations(noise_sigma=12),
    "jpeg": S.Perturbations(jpeg_quality=30, noise_sigma=4),
    "gradient-vignette": S.Perturbations(gradient=0.45, gradient_angle_deg=120, vignette=0.4,
                                         gain=0.9, tint=(0.93, 1.0, 1.07)),
    "shadow": S.Perturbations(shadow=0.55),
}


@pytest.mark.parametrize("name", sorted(PERTURBATIONS))
def test_perturbation(rig: Rig, name: str) -> None:
    _check(_run(rig, 1, PERTURBATIONS[name]))


def test_glare(rig: Rig) -> None:
    rng = np.random.default_rng(2)
    tally = Tally()
    for text in BOARDS:
        placements = _placed(rng, board(text))
        spots = []
        for pl in placements[:3]:
            x, y = rig.camera.project(np.array([pl.centre_mm]))[0]
            spots.append((float(x) + 20, float(y) - 30, 25.0, 0.7))
        pert = S.Perturbations(glare=tuple(spots), noise_sigma=3)
        scene = S.render(rig.faces, placements, rig.camera, rng, pert)
        score(scene.truth, rig.recognizer.read(scene.image), tally)
    _check(tally, 0.8)


def test_rotation_shift_upside_down(rig: Rig) -> None:
    def hard_place(rng: np.random.Generator, cards: list[Card | None]) -> list[S.Placement]:
        out = []
        for slot, card in enumerate(cards):
            if card is None:
                continue
            x, y = GEO.slot_centre_mm(slot)
            sign = 1 if slot % 2 else -1
            angle = sign * 9.0 + (180.0 if slot in (1, 3) else 0.0)
            out.append(S.Placement(card, slot, (x + sign * 10, y - sign * 8), angle))
        return out

    _check(_run(rig, 3, S.Perturbations(noise_sigma=3), hard_place), 1.0)


def test_overlap(rig: Rig) -> None:
    def overlapping(rng: np.random.Generator, cards: list[Card | None]) -> list[S.Placement]:
        out = []
        for slot, card in enumerate(cards):
            if card is None:
                continue
            x, y = GEO.slot_centre_mm(slot)
            # Slots 1 and 3 slide left over their neighbour by about 4 mm.
            shift = -(GEO.slot_width_mm - GEO.card_mm[0] + 4) if slot in (1, 3) else 0.0
            out.append(S.Placement(card, slot, (x + shift, y), 2.0 if slot == 1 else -1.0))
        return out

    t = _run(rig, 4, S.Perturbations(noise_sigma=3), overlapping)
    _check(t, 0.9)


def test_occlusion_by_hand(rig: Rig) -> None:
    rng = np.random.default_rng(5)
    placements = _placed(rng, board("Ah Kd 7c 7s Qh"))
    hand = S.Hand(centre_mm=(GEO.slot_centre_mm(2)[0], 70.0), angle_deg=5.0)
    scene = S.render(rig.faces, placements, rig.camera, rng, S.Perturbations(noise_sigma=3), hand)
    reading = rig.recognizer.read(scene.image)
    assert scene.truth[2].status == "occluded"
    assert reading.slots[2].status in ("occluded", "uncertain")
    for t, r in zip(scene.truth, reading.slots, strict=True):
        if r.status == "card":
            assert r.card == t.card
    assert reading.slots[0].card == Card.parse("Ah")
    assert reading.slots[4].card == Card.parse("Qh")


def test_empty_slots_and_empty_board(rig: Rig) -> None:
    rng = np.random.default_rng(6)
    scene = S.render(rig.faces, _placed(rng, board("Jc 8h 3d")), rig.camera, rng,
                     S.Perturbations(noise_sigma=5, jpeg_quality=70))
    reading = rig.recognizer.read(scene.image)
    assert [s.status for s in reading.slots] == ["card", "card", "card", "empty", "empty"]
    empty = S.render(rig.faces, [], rig.camera, rng, PERTURBATIONS["gradient-vignette"])
    assert [s.status for s in rig.recognizer.read(empty.image).slots] == ["empty"] * 5


def test_medium_and_hard_scenes(rig: Rig) -> None:
    rng = np.random.default_rng(7)
    tally = Tally()
    for level in (S.Level.MEDIUM, S.Level.HARD, S.Level.HARD):
        scene = S.render_board(rig.faces, S.random_board(rng), rng, level, rig.camera)
        score(scene.truth, rig.recognizer.read(scene.image), tally)
    assert tally.wrong == 0, tally


def test_wrong_deck_registered_is_mostly_uncertain(kennard: Faces, svg_cards: Faces) -> None:
    """Calibrated on kennard, shown svg-cards faces: mostly uncertain (the benchmark measures the
    rare wrong reads this misconfiguration still gives; see docs/vision.md)."""
    rig = make_rig(kennard, 101)
    rng = np.random.default_rng(8)
    wrong = uncertain = cards = 0
    for text in BOARDS:
        scene = S.render(svg_cards, _placed(rng, board(text)), rig.camera, rng,
                         S.Perturbations(noise_sigma=3))
        for t, r in zip(scene.truth, rig.recognizer.read(scene.image).slots, strict=True):
            cards += t.status == "card"
            wrong += r.status == "card" and r.card != t.card
            uncertain += r.status == "uncertain"
    assert uncertain >= 0.6 * cards
    assert wrong <= 1


def test_hand_reaching_over_a_card_from_the_next_slot(rig: Rig) -> None:
    """Regression (benchmark run 4): fingers over the right third of 8d, reaching in from the
    empty slot beside it, hid a pip; the card was read as 7d. It must be occluded."""
    rng = np.random.default_rng(12)
    placements = [S.Placement(Card.parse(c), i, GEO.slot_centre_mm(i), 0.0)
                  for i, c in enumerate(("Th", "Ks", "Qh", "8d"))]
    hand = S.Hand(centre_mm=(367.6, 139.3), angle_deg=-34.3, mirrored=True)
    pert = S.Perturbations(noise_sigma=8, blur_sigma=1.5, jpeg_quality=70)
    scene = S.render(rig.faces, placements, rig.camera, rng, pert, hand)
    assert scene.truth[3].status == "occluded"
    reading = rig.recognizer.read(scene.image)
    assert reading.slots[3].status in ("occluded", "uncertain")
    for t, r in zip(scene.truth, reading.slots, strict=True):
        if r.status == "card":
            assert r.card == t.card


def test_benchmark_run4_wrong_read_replayed(kennard: Faces) -> None:
    """The exact scene of the one wrong read found in benchmark run 4 (seed 90010, frame 30)."""
    from calibration.camera import calibrate_camera

    rng = np.random.default_rng(90010)
    frame = 0
    for _ in range(2):
        cam = S.make_camera(rng, S.Level.HARD)
        calib = S.render(kennard, [], cam, rng, S.Perturbations(noise_sigma=2.0, jpeg_quality=90))
        recognizer = calibrate_camera(calib.image, kennard).recognizer()
        for _ in range(20):
            scene = S.render_board(kennard, S.random_board(rng), rng, S.Level.HARD, cam)
            if frame == 30:
                assert scene.truth[3].card == Card.parse("8d")
                assert scene.truth[3].status == "occluded"
                slot = recognizer.read(scene.image).slots[3]
                assert slot.status in ("occluded", "uncertain"), slot
                return
            frame += 1


def test_card_beside_a_hand_is_read_on_a_clear_win_or_beside_it(
    kennard: Faces, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tuning scene (kennard medium, seed 3000, frame 57): a hand in slot 4 touches the band
    around Ts in slot 3 without covering it. The card is read when its face wins by the
    stricter near-hand thresholds; since run 48 also when those cannot be met, the hand lying
    beside its right side only (:func:`hardware.camera.sides.beside_only`); without that rule
    it is reported occluded."""
    from calibration.camera import calibrate_camera
    from hardware.camera import recognizer as rec_module
    from hardware.camera.recognizer import RecognizerParams

    rng = np.random.default_rng(3000)
    frame = 0
    for _ in range(3):
        cam = S.make_camera(rng, S.Level.MEDIUM)
        calib = S.render(kennard, [], cam, rng, S.Perturbations(noise_sigma=2.0, jpeg_quality=90))
        profile = calibrate_camera(calib.image, kennard)
        for _ in range(20):
            scene = S.render_board(kennard, S.random_board(rng), rng, S.Level.MEDIUM, cam)
            if frame == 57:
                assert scene.truth[3].status == "card"
                assert scene.truth[3].card == Card.parse("Ts")
                assert scene.truth[4].status == "occluded"
                slot = profile.recognizer().read(scene.image).slots[3]
                assert slot.status == "card" and slot.card == Card.parse("Ts"), slot
                strict = RecognizerParams(near_hand_min_score=1.01)
                slot = profile.recognizer(strict).read(scene.image).slots[3]
                assert slot.status == "card" and slot.card == Card.parse("Ts"), slot
                monkeypatch.setattr(rec_module, "beside_only", lambda *a, **k: False)
                assert profile.recognizer(strict).read(scene.image).slots[3].status == "occluded"
                return
            frame += 1


@pytest.mark.parametrize("pair", [("3c", "3s"), ("Kh", "Kd"), ("8d", "7d")])
def test_separation_is_the_margin_in_units_of_the_faces_distance(
    kennard: Faces, pair: tuple[str, str]
) -> None:
    """The registered face itself: margin = 1 - c and separation = sqrt((1 - c) / 2), where c is
    the correlation of the two faces. Halfway between the two faces: separation ~0, uncertain,
    even with a score above min_score."""
    from hardware.camera.recognizer import FaceBank, RecognizerParams, decide

    params = RecognizerParams()
    bank = FaceBank.from_faces(kennard, params)
    a, b = (Card.parse(c) for c in pair)
    t_a, t_b = bank.matrix[2 * a.index], bank.matrix[2 * b.index]
    m = bank.match(t_a, params)
    assert m.card == a and m.score == pytest.approx(1.0, abs=1e-5)
    second = max((float(t_a @ bank.matrix[2 * i + k]), i) for i in range(52) if i != a.index
                 for k in (0, 1))
    c = second[0]
    assert m.margin == pytest.approx(1 - c, abs=1e-4)
    assert m.separation == pytest.approx(np.sqrt((1 - c) / 2), abs=1e-4)
    assert decide(m, params).status == "card"
    mid = (t_a + t_b) / np.linalg.norm(t_a + t_b)
    m_mid = bank.match(mid.astype(np.float32), params)
    assert m_mid.card in (a, b) and m_mid.separation < 0.01 and m_mid.score > 0.8
    assert decide(m_mid, params).status == "uncertain"


def test_separation_may_be_smaller_when_the_face_matches_closely() -> None:
    """Two faces that differ only in a corner index (c = 0.999): the separation cannot reach
    0.05, but an observation that matches the best face closely (small residual) and sits
    clearly on its side is read; the same separation with a large residual is not."""
    from hardware.camera.recognizer import Match, RecognizerParams, decide

    p = RecognizerParams()
    card = Card.parse("Jc")
    close = Match(card, score=0.995, margin=0.0012, discriminant=0.9, separation=0.03)
    assert decide(close, p).status == "card"          # 0.03 >= 0.2 * sqrt(1 - 0.995^2) = 0.020
    loose = Match(card, score=0.95, margin=0.0012, discriminant=0.9, separation=0.03)
    assert decide(loose, p).status == "uncertain"     # 0.03 < 0.2 * sqrt(1 - 0.95^2) = 0.062
    assert decide(close, RecognizerParams(min_separation_residual=1.0)).status == "uncertain"


def test_an_unchanged_card_keeps_its_reading_a_changed_one_is_matched_again(
    kennard: Faces,
) -> None:
    """A camera's next frame of the same board: the cards are not matched again.

    Fresh sensor noise leaves each card's pixels where they were; a card put in another's
    place (same pose, other face) changes them and is matched afresh.
    """
    rig = make_rig(kennard, 120, S.Level.MEDIUM)
    rng = np.random.default_rng(1200)
    placements = S.place_cards(rng, board("Ah Kd 7c"), S.Level.MEDIUM, rig.camera.geometry)
    pert = S.Perturbations(noise_sigma=5.0, jpeg_quality=80)
    rec = rig.profile.recognizer()
    first = rec.read(S.render(kennard, placements, rig.camera, rng, pert).image)
    assert first.cards()[:3] == tuple(board("Ah Kd 7c")[:3])
    assert (rec.identified, rec.reused) == (3, 0)
    again = rec.read(S.render(kennard, placements, rig.camera, rng, pert).image)
    assert again.cards() == first.cards()
    # The whole board unchanged: the frame is not read again at all.
    assert (rec.identified, rec.reused, rec.unchanged_frames) == (3, 0, 1)
    # A hand over the empty slots: the frame is read, the cards are not matched again ...
    hand = S.Hand(centre_mm=(rig.camera.geometry.slot_centre_mm(4)[0], 150.0), angle_deg=0.0)
    fourth_slot = rec.read(S.render(kennard, placements, rig.camera, rng, pert, hand).image)
    assert fourth_slot.cards()[:3] == first.cards()[:3]
    assert (rec.identified, rec.reused, rec.unchanged_frames) == (3, 3, 1)
    # ... nor located again (their boxes' pixels did not change).
    assert rec.not_located == 3
    # The 7 of clubs replaced by the 7 of spades where it lay: matched again, read right.
    swapped = [*placements[:2], S.Placement(Card.parse("7s"), placements[2].slot,
                                            placements[2].centre_mm, placements[2].angle_deg)]
    third = rec.read(S.render(kennard, swapped, rig.camera, rng, pert).image)
    assert third.cards()[:3] == tuple(board("Ah Kd 7s")[:3])
    assert (rec.identified, rec.reused) == (4, 5)
    assert rec.not_located == 5
    # A card taken away: its slot reads empty, and nothing is kept for it.
    fourth = rec.read(S.render(kennard, placements[:2], rig.camera, rng, pert).image)
    assert fourth.slots[2].status == "empty"


def test_a_board_unchanged_is_not_read_again_until_its_pixels_drift(kennard: Faces) -> None:
    """Frames of an unchanged board return the last full read's reading; the frame compared
    with is not updated by the frames skipped, so light that brightens by 1% a frame is
    noticed once it adds up (a white card's pixels move by more than UNCHANGED_LEVEL)."""
    from dataclasses import replace

    rig = make_rig(kennard, 121, S.Level.MEDIUM)
    rng = np.random.default_rng(1210)
    placements = S.place_cards(rng, board("Qs 9h 2d 5c"), S.Level.MEDIUM, rig.camera.geometry)
    pert = S.Perturbations(noise_sigma=5.0, jpeg_quality=80)
    rec = rig.profile.recognizer()
    first = rec.read(S.render(kennard, placements, rig.camera, rng, pert).image)
    assert first.cards()[:4] == tuple(board("Qs 9h 2d 5c")[:4])
    for k in range(1, 4):
        gain = replace(pert, gain=1.0 + 0.01 * k)
        assert rec.read(S.render(kennard, placements, rig.camera, rng, gain).image) is first
    assert rec.unchanged_frames == 3
    later = [rec.read(S.render(kennard, placements, rig.camera, rng,
                               replace(pert, gain=1.0 + 0.01 * k)).image) for k in range(4, 16)]
    assert rec.unchanged_frames < 15        # read in full again at some point ...
    assert all(r.cards() == first.cards() for r in later)   # ... and still the same board
