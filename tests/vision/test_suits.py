"""Suit twins (same rank and colour) decided on the region where their faces differ."""

from __future__ import annotations

import cv2
import numpy as np

from hardware.camera.facebank import STORED_PATCH_SIZE, face_patch, suit_twins
from hardware.camera.suits import (
    face_luminance,
    index_positions,
    observed_luminance,
    pair_check,
    suit_check,
)
from hardware.sim import scene as S
from table_controller.engine.cards import Card

from .conftest import Faces


def test_suit_twins() -> None:
    c = Card.parse
    assert suit_twins(c("Jc"), c("Js")) and suit_twins(c("Qh"), c("Qd"))
    assert not suit_twins(c("Jc"), c("Jh")) and not suit_twins(c("Jc"), c("Qs"))
    assert not suit_twins(c("Jc"), c("Jc"))


def test_suit_check_prefers_the_true_twin(kennard: Faces) -> None:
    rng = np.random.default_rng(5)
    for a, b in (("3c", "3s"), ("Kh", "Kd"), ("Js", "Jc")):
        pa, pb = (face_patch(kennard[Card.parse(x)], STORED_PATCH_SIZE) for x in (a, b))
        noisy = np.clip(pa.astype(np.float32) + rng.normal(0, 8, pa.shape), 0, 255)
        # One pixel of misplacement and some blur, as a camera gives.
        shifted = np.roll(np.asarray(noisy, np.uint8), (1, -1), axis=(0, 1))
        observed = np.asarray(cv2.GaussianBlur(shifted, (0, 0), 1.2), np.uint8)
        right = suit_check(observed, pa, pb)
        wrong = suit_check(observed, pb, pa)
        assert right.position > 0.6, (a, right)
        # Pips alike but for the suit: the two faces' mean fits the observation well.
        assert right.fit > 0.8 or a != "3c", (a, right)
        assert wrong.position < -0.6 and right.region_px > 100
    same = face_patch(kennard[Card.parse("2c")], STORED_PATCH_SIZE)
    assert suit_check(same, same, same).region_px == 0


def shared_courts(faces: Faces, ranks: str = "JQK") -> Faces:
    """Kennard with the court pictures shared across suits: the spade and diamond courts are
    the club and heart courts with their own corner indices pasted in (``ranks``: other
    ranks so drawn instead, twins told apart by the indices alone)."""
    out = dict(faces)
    for rank in ranks:
        for src, dst in (("c", "s"), ("h", "d")):
            picture = faces[Card.parse(rank + src)].copy()
            own = faces[Card.parse(rank + dst)]
            h, w = picture.shape[:2]
            ch, cw = int(0.24 * h), int(0.17 * w)
            picture[:ch, :cw] = own[:ch, :cw]
            picture[h - ch :, w - cw :] = own[h - ch :, w - cw :]
            out[Card.parse(rank + dst)] = picture
    return out


def test_shared_court_pictures_read_by_their_indices(kennard: Faces) -> None:
    from hardware.camera.recognizer import RecognizerParams

    from .helpers import Tally, make_rig, score

    faces = shared_courts(kennard)
    rig = make_rig(faces, seed=31, level=S.Level.MEDIUM)
    off = rig.profile.recognizer(RecognizerParams(suit_min_position=2.0, suit_blur_check=False))
    loose = rig.profile.recognizer(RecognizerParams(suit_min_position=0.5, suit_min_half=0.0))
    # The stored faces' rules alone: no comparison at the frame's own resolution after them
    # (test_finetwins.py).
    off.bank.fine = None
    loose.bank.fine = None
    rng = np.random.default_rng(3100)
    courts = [Card.parse(r + s) for r in "JQK" for s in "cdhs"]
    with_check, without, loosely = Tally(), Tally(), Tally()
    for _ in range(8):
        order = rng.permutation(len(courts))[:5]
        board = [courts[int(i)] for i in order]
        scene = S.render_board(faces, board, rng, S.Level.MEDIUM, rig.camera)
        score(scene.truth, rig.recognizer.read(scene.image), with_check)
        score(scene.truth, off.read(scene.image), without)
        score(scene.truth, loose.read(scene.image), loosely)
    assert with_check.wrong == 0 and without.wrong == 0 and loosely.wrong == 0
    # The production thresholds are conservative (docs/vision.md): kennard's small indices
    # alone seldom lean 0.7 of the way; a looser setting shows the mechanism at work.
    assert with_check.correct >= without.correct, (with_check, without)
    assert loosely.correct >= without.correct + 10, (loosely, without)


def test_pair_check_finds_a_shifted_observation(kennard: Faces) -> None:
    """A card cut 1-2 px off is still placed on the right face by its corner indices."""
    pa, pb = (face_patch(kennard[Card.parse(x)], STORED_PATCH_SIZE) for x in ("6s", "4s"))
    for dy, dx in ((1, -2), (-2, 1), (0, 0)):
        observed = np.roll(pa, (dy, dx), axis=(0, 1))
        ob, fa, fb = observed_luminance(observed), face_luminance(pa), face_luminance(pb)
        right, wrong = pair_check(ob, fa, fb), pair_check(ob, fb, fa)
        assert right.position > 0 and right.fit > 0.9, (dy, dx, right)
        assert wrong.position < 0, (dy, dx, wrong)
        right_index, wrong_index = index_positions(ob, fa, fb), index_positions(ob, fb, fa)
        assert len(right_index) == 2 and min(right_index) > 0.6, (dy, dx, right_index)
        assert len(wrong_index) == 2 and max(wrong_index) < -0.6, (dy, dx, wrong_index)


def test_washed_out_pips_leave_the_index(kennard: Faces) -> None:
    """A six whose middle pips a glare washes out: the pips say four, the corner indices six."""
    six, four = (face_patch(kennard[Card.parse(x)], STORED_PATCH_SIZE) for x in ("6s", "4s"))
    h = six.shape[0]
    ink = six.astype(np.int16).mean(axis=2) < four.astype(np.int16).mean(axis=2) - 60
    ink[: int(0.3 * h)] = False
    ink[int(0.7 * h) :] = False
    washed = six.copy()
    washed[ink] = 255
    ob, f4, f6 = observed_luminance(washed), face_luminance(four), face_luminance(six)
    assert pair_check(ob, f4, f6).position > -0.5  # the whole region does not refuse the four,
    corners = index_positions(ob, f4, f6)
    assert len(corners) == 2 and max(corners) < -0.6  # its indices do


def _moving(patch: np.ndarray, length: int, angle: float, sigma: float,
            rng: np.random.Generator) -> np.ndarray:
    """``patch`` as a moving card out of focus gives it: a streak, a Gaussian, sensor noise."""
    from hardware.camera.blurmatch import blur_kernel

    streaked = cv2.filter2D(patch.astype(np.float32), -1, blur_kernel((0.0, length, int(angle))),
                            borderType=cv2.BORDER_REPLICATE)
    soft = cv2.GaussianBlur(streaked, (0, 0), sigma)
    return np.asarray(np.clip(soft + rng.normal(0, 4, patch.shape), 0, 255), np.uint8)


def test_blurred_pair_check_reads_a_moving_club(kennard: Faces) -> None:
    """A club streaked by motion sits near halfway against the sharp faces, not the blurred."""
    from hardware.camera.blurmatch import blurred_pair_check, matched_blur

    rng = np.random.default_rng(14)
    for a, b, angle in (("3c", "3s", 30), ("8s", "8c", 100), ("Tc", "Ts", 160), ("5h", "5d", 0)):
        pa, pb = (face_patch(kennard[Card.parse(x)], STORED_PATCH_SIZE) for x in (a, b))
        ob = observed_luminance(_moving(pa, 14, angle, 1.5, rng))
        fa, fb = face_luminance(pa), face_luminance(pb)
        (_, length, found), _, fit = matched_blur(ob, fa, fb)
        assert fit > 0.9 and abs(length - 14) <= 6, (a, length, fit)
        assert min(abs(found - angle), 180 - abs(found - angle)) <= 20, (a, found)
        right, wrong = blurred_pair_check(ob, fa, fb), blurred_pair_check(ob, fb, fa)
        assert right.position > 0.5 and right.worst_half > 0.3, (a, right)
        assert wrong.position < -0.5 and wrong.best_half < -0.3, (a, wrong)
        assert right.position > pair_check(ob, fa, fb).position, a


def test_decide_twin_reads_the_twin_the_blurred_pips_show(kennard: Faces) -> None:
    """The whole face put the spade first; the pips, compared as blurred, show the club."""
    from dataclasses import replace

    from hardware.camera.facebank import FaceBank, Match
    from hardware.camera.readings import RecognizerParams
    from hardware.camera.twindecide import decide_twin

    params = RecognizerParams()
    bank = FaceBank.from_faces(kennard, params)
    rng = np.random.default_rng(15)
    club = face_patch(kennard[Card.parse("4c")], STORED_PATCH_SIZE)
    ob = observed_luminance(_moving(club, 16, 60, 2.0, rng))
    match = Match(Card.parse("4s"), 0.95, 0.005, 0.1, 0.01, Card.parse("4c"),
                  discriminant_others=0.9, separation_others=0.3, other=Card.parse("5s"))
    decided = decide_twin(ob, match, bank, params)
    assert decided is not None
    read, lean = decided
    assert read.card == Card.parse("4c") and read.second == Card.parse("4s") and lean > 0.25
    assert decide_twin(ob, match, bank, replace(params, suit_blur_check=False)) is None
    # The other way round, the club first: read as itself.
    as_club = replace(match, card=Card.parse("4c"), second=Card.parse("4s"))
    decided = decide_twin(ob, as_club, bank, params)
    assert decided is not None and decided[0].card == Card.parse("4c")


def test_twin_refuted_by_the_blurred_pips(kennard: Faces) -> None:
    """A read of the spade whose pips, compared as blurred, show the club is refused."""
    from hardware.camera.facebank import FaceBank
    from hardware.camera.readings import RecognizerParams
    from hardware.camera.twindecide import twin_refuted

    params = RecognizerParams()
    bank = FaceBank.from_faces(kennard, params)
    rng = np.random.default_rng(16)
    c = Card.parse
    for club, spade, angle in (("4c", "4s", 60), ("9c", "9s", 120)):
        ob = observed_luminance(_moving(face_patch(kennard[c(club)], STORED_PATCH_SIZE),
                                        16, angle, 2.0, rng))
        assert twin_refuted(ob, c(spade), c(club), bank, params), club
        assert not twin_refuted(ob, c(club), c(spade), bank, params), club


def test_cached_pair_checks_equal_fresh_ones(kennard: Faces) -> None:
    """Read-only faces (the bank's) give the same checks, first call and later, as writable."""
    from hardware.camera.blurmatch import blurred_pair_check
    from hardware.camera.suits import read_only

    rng = np.random.default_rng(17)
    for a, b, angle in (("3c", "3s", 30), ("Kh", "Kd", 90), ("6h", "4h", 0)):
        pa, pb = (face_patch(kennard[Card.parse(x)], STORED_PATCH_SIZE) for x in (a, b))
        fa, fb = face_luminance(pa), face_luminance(pb)
        ra, rb = read_only(fa.copy()), read_only(fb.copy())
        for _ in range(2):
            ob = observed_luminance(_moving(pa, 10, angle, 1.0, rng))
            for joint in (False, True):
                assert pair_check(ob, ra, rb, joint) == pair_check(ob, fa, fb, joint), a
            assert blurred_pair_check(ob, ra, rb) == blurred_pair_check(ob, fa, fb), a
            assert index_positions(ob, ra, rb) == index_positions(ob, fa, fb), a


def test_line_fit_is_polyfit() -> None:
    """The closed-form line fit agrees with ``np.polyfit`` to float64 rounding."""
    from hardware.camera.suits import line_fit

    rng = np.random.default_rng(18)
    for _ in range(20):
        x = rng.uniform(0.2, 1.1, 500).astype(np.float32)
        y = np.asarray(0.8 * x + 0.1 + rng.normal(0, 0.05, x.size), np.float32)
        a, b = line_fit(x, y)
        pa, pb = np.polyfit(x, y, 1)
        assert abs(a - pa) <= 1e-12 and abs(b - pb) <= 1e-12


def test_one_alignment_per_observation_and_pair(kennard: Faces) -> None:
    """The alignment kept for an observation serves it alone: never another frame or card."""
    from hardware.camera.suits import ink_check, read_only

    rng = np.random.default_rng(23)
    pa, pb, pc = (face_patch(kennard[Card.parse(x)], STORED_PATCH_SIZE)
                  for x in ("6h", "4h", "9s"))
    fa, fb = (read_only(face_luminance(p)) for p in (pa, pb))
    fresh_a, fresh_b = face_luminance(pa), face_luminance(pb)  # writable: nothing kept
    observations = [observed_luminance(_moving(p, 8, 45, 1.0, rng)) for p in (pa, pb, pc, pa)]
    for ob in observations:
        # ink_check aligns first, pair_check then takes the kept alignment: the same as fresh.
        assert ink_check(ob, fa, fb) == ink_check(ob, fresh_a, fresh_b)
        for joint in (False, True):
            assert pair_check(ob, fa, fb, joint) == pair_check(ob, fresh_a, fresh_b, joint)
    # A copy (another array, the same pixels) is aligned afresh, and so is a writable array
    # written to after it was aligned once.
    ob = observations[0]
    assert pair_check(read_only(ob.copy()), fa, fb) == pair_check(ob, fa, fb)
    writable = np.array(observations[1])
    first = pair_check(writable, fa, fb)
    writable[:] = observations[2]
    assert pair_check(writable, fa, fb) == pair_check(observations[2], fresh_a, fresh_b)
    assert first == pair_check(observations[1], fresh_a, fresh_b)


def test_dot_on_one_thread_equals_blas() -> None:
    """:func:`~hardware.camera.suits.dot` sums what ``@`` does, to the last bits or nearly."""
    from hardware.camera.suits import dot

    rng = np.random.default_rng(29)
    for n in (10, 9_999, 10_000, 10_001, 14_960, 17_920, 31_000):
        a, b = rng.standard_normal(n), rng.standard_normal(n)
        assert abs(float(dot(a, b)) - float(a @ b)) <= 1e-12 * float(np.abs(a) @ np.abs(b)), n
        if n <= 10_000:
            assert dot(a, b) == np.dot(a, b), n


def test_reversed_pair_shares_the_region_and_checks_the_same(kennard: Faces) -> None:
    """The pair the other way round (its region turned from the first's) checks as if fresh."""
    from hardware.camera.blurmatch import blurred_pair_check
    from hardware.camera.suits import ink_check, read_only

    rng = np.random.default_rng(31)
    for a, b in (("6h", "4h"), ("3c", "3s"), ("Kd", "2d")):
        pa, pb = (face_patch(kennard[Card.parse(x)], STORED_PATCH_SIZE) for x in (a, b))
        fa, fb = (read_only(face_luminance(p)) for p in (pa, pb))
        wa, wb = face_luminance(pa), face_luminance(pb)
        for p in (pa, pb):
            ob = observed_luminance(_moving(p, 6, 60, 1.0, rng))
            for joint in (False, True):
                assert pair_check(ob, fa, fb, joint) == pair_check(ob, wa, wb, joint), a
                assert pair_check(ob, fb, fa, joint) == pair_check(ob, wb, wa, joint), a
            assert ink_check(ob, fb, fa) == ink_check(ob, wb, wa), a
            assert blurred_pair_check(ob, fb, fa) == blurred_pair_check(ob, wb, wa), a
