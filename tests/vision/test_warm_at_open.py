"""A board source warms its recogniser up when opened (benchmark run 86): the same readings."""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from benchmarks.bench_vision import stream_scenes
from hardware.base import DeviceStatus
from hardware.camera.glare import HiddenRivals
from hardware.camera.source import FrameBoardSource
from hardware.camera.stabilizer import BoardStabilizer
from hardware.sim import scene as S
from table_controller.engine.cards import FULL_DECK

from .conftest import Faces
from .helpers import make_rig


class _Camera:
    """A camera that opens and has no frame to give."""

    url = "camera://fake"

    def __init__(self) -> None:
        self.opened = False

    def open(self) -> None:
        self.opened = True

    def close(self) -> None:
        pass

    def read_frame(self, now: float) -> np.ndarray | None:
        return None

    def status(self) -> DeviceStatus:
        return DeviceStatus(url=self.url, kind="camera", connected=True, link="ok",
                            last_frame_at=None, frames=0, bad_frames=0,
                            retransmissions=0, duplicates=0, reconnects=0)


def test_a_source_opened_has_its_recognisers_warm_up_done(kennard: Faces) -> None:
    """Every unit (the tones', the twins', the close rivals', the glare check's) is done by
    ``open()``, before the first frame; on main the frames not read again did them."""
    rig = make_rig(kennard, 861)
    recognizer = rig.recognizer
    assert not recognizer.warmer.done
    camera = _Camera()
    source = FrameBoardSource(camera, recognizer, BoardStabilizer(), interval=0.1)
    source.open()
    assert camera.opened and recognizer.warmer.done
    hidden = recognizer._hidden_rivals()
    assert set(hidden._totals) == set(FULL_DECK)


def test_the_glare_checks_totals_warmed_equal_those_asked_first_in_a_read(kennard: Faces) -> None:
    """Each card's differences from every face over the face, made by the warm-up's units,
    are the arrays a glare check makes when it first asks them."""
    rig = make_rig(kennard, 862)
    warmed = rig.recognizer._hidden_rivals()
    for unit in warmed.units():
        unit()
    fresh = HiddenRivals(rig.profile.recognizer().bank.luminance)
    for card in FULL_DECK:
        a, b = warmed._totals[card], fresh._total(card)
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]), card


def test_a_stream_reads_the_same_warmed_up_as_cold(kennard: Faces) -> None:
    """A recogniser warmed up in full before its first frame reads every slot of a dealt
    stream as one that never warms up (its own caches filled on first use), field for field."""
    rig = make_rig(kennard, 863, S.Level.HARD)
    rng = np.random.default_rng(8630)
    scenes = stream_scenes(kennard, rng, S.Level.HARD, rig.camera, 40)
    warm, cold = rig.profile.recognizer(), rig.profile.recognizer()
    warm.warm_up()
    cold.warmer.work(time.thread_time())
    cold.warmer._todo.clear()
    assert warm.warmer.done and cold.warmer.units == 0
    for sc in scenes:
        a, b = warm.read(sc.image), cold.read(sc.image)
        for x, y in zip(a.slots, b.slots, strict=True):
            assert dataclasses.astuple(x) == dataclasses.astuple(y)
    assert warm.identified == cold.identified > 0
