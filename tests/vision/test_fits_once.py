"""Work a frame with a card laid repeated, done once: the span tries' fits, a pair either way."""

from __future__ import annotations

import dataclasses

import numpy as np

from benchmarks.bench_vision import stream_scenes
from hardware.camera.blurmatch import _blur_setup, _blurred_mean, blurred_faces
from hardware.camera.facebank import STORED_PATCH_SIZE, FaceBank
from hardware.camera.framecuts import FrameCuts
from hardware.camera.locator import CardLocator
from hardware.camera.readings import RecognizerParams
from hardware.sim import scene as S
from table_controller.engine.cards import Card

from .conftest import Faces
from .helpers import make_rig


def test_a_pair_either_way_shares_its_mean_face_and_blurred_faces(kennard: Faces) -> None:
    """The blur search's mean face, pixels fitted and blurred means, and the blurred faces, of
    (b, a) are (a, b)'s, bit for bit what two faces never cached give."""
    bank = FaceBank.from_faces(kennard, RecognizerParams())
    size = (STORED_PATCH_SIZE[0] // 2, STORED_PATCH_SIZE[1] // 2)
    for a, b in (("3s", "3c"), ("Kd", "Kh"), ("7h", "7d")):
        fa, fb = bank.luminance(Card.parse(a)), bank.luminance(Card.parse(b))
        there = _blur_setup(fa, fb, size)
        back = _blur_setup(fb, fa, size)
        assert back is there
        # Faces never cached (writable copies) the other way round: computed afresh.
        fresh = _blur_setup(np.array(fb), np.array(fa), size)
        assert fresh is not there
        assert np.array_equal(fresh[1], there[1])
        assert np.array_equal(fresh[0].spectrum, there[0].spectrum)
        blur = (1.0, 8, 45)
        faces = blurred_faces(fa, fb, blur)
        swapped = blurred_faces(fb, fa, blur)
        assert swapped[0] is faces[1] and swapped[1] is faces[0]
        anew = blurred_faces(np.array(fb), np.array(fa), blur)
        assert all(np.array_equal(x, y) for x, y in zip(anew, swapped, strict=True))


def test_blurs_made_one_way_are_the_other_ways(kennard: Faces) -> None:
    """A blurred mean made for (a, b) is (b, a)'s, equal to one made on faces never cached."""
    bank = FaceBank.from_faces(kennard, RecognizerParams())
    size = (STORED_PATCH_SIZE[0] // 2, STORED_PATCH_SIZE[1] // 2)
    fa, fb = bank.luminance(Card.parse("9s")), bank.luminance(Card.parse("9c"))
    for blur in ((0.5, 12, 90), (1.5, 0, 0)):
        made = _blurred_mean(_blur_setup(fa, fb, size), blur)
        shared = _blurred_mean(_blur_setup(fb, fa, size), blur)
        fresh = _blurred_mean(_blur_setup(np.array(fb), np.array(fa), size), blur)
        assert shared[0] is made[0]
        assert np.array_equal(shared[0], fresh[0]) and shared[1] == fresh[1]


def test_span_tries_repeat_no_fit_and_read_the_same(kennard: Faces,
                                                     monkeypatch: object) -> None:
    """Stream frames (hands over slots, cards laid under them): the straight fits a span try
    would repeat are not made again, and every reading equals, field for field, that of a
    recogniser that keeps no fit."""
    rig = make_rig(kennard, 7, S.Level.MEDIUM)
    scenes = stream_scenes(kennard, np.random.default_rng(70), S.Level.MEDIUM, rig.camera, 40)
    kept, fresh = rig.profile.recognizer(), rig.profile.recognizer()
    fresh.fits_kept_on = lambda fg: None  # type: ignore[method-assign]
    made: dict[int, int] = {id(kept): 0, id(fresh): 0}
    span_made: dict[int, int] = {id(kept): 0, id(fresh): 0}
    fitted = CardLocator._pose

    def counting(self: CardLocator, *args: object, **kwargs: object) -> object:
        made[id(self)] += 1
        span_made[id(self)] += bool(kwargs.get("span", args[8] if len(args) > 8 else False))
        return fitted(self, *args, **kwargs)  # type: ignore[arg-type]

    setattr(CardLocator, "_pose", counting)  # noqa: B010
    try:
        for sc in scenes:
            a, b = kept.read(sc.image), fresh.read(sc.image)
            for x, y in zip(a.slots, b.slots, strict=True):
                assert dataclasses.astuple(x) == dataclasses.astuple(y)
    finally:
        setattr(CardLocator, "_pose", fitted)  # noqa: B010
    assert kept.identified == fresh.identified > 0
    assert span_made[id(fresh)] > 0
    assert span_made[id(kept)] < span_made[id(fresh)]
    assert made[id(kept)] < made[id(fresh)]
    assert kept._fits is None            # nothing kept past a frame's read
    assert isinstance(kept, FrameCuts)
