"""A four-colour card whose felt-coloured print notches its edges is located (benchmark run 128).

The kept masks are the locator's non-felt mask (``foreground``) of a rendered hard frame and its
felt's print, in the canonical view of a poker-size board.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from hardware.camera.geometry import BoardGeometry
from hardware.camera.locator import CardLocator, CardPose
from hardware.camera.readings import Image, RecognizerParams, SlotStatus

from .helpers import kept_image

#: Any fixed homography: the locator's search works on the canonical mask alone.
_WORLD_TO_IMAGE = np.eye(3)


def _locator(params: RecognizerParams | None = None) -> CardLocator:
    """The frame's locator: a poker-size board, the felt's print (slot boxes, lines) kept."""
    geometry = replace(BoardGeometry(), card_mm=(63.0, 88.0))
    loc = CardLocator(_WORLD_TO_IMAGE, geometry, 0.5, params)
    loc.printed = _kept_mask("notched-printed")
    return loc


def _kept_mask(name: str) -> Image:
    return np.asarray(kept_image("synth-9288-poker", name)[..., 0], np.uint8)


def _poses(loc: CardLocator, fg: Image) -> tuple[list[CardPose | None], list[SlotStatus]]:
    """Every slot's pose as :meth:`BoardRecognizer.read` finds them (neighbours cut, twice)."""
    poses: list[CardPose | None] = []
    statuses: list[SlotStatus] = []
    for slot in range(loc.geometry.slots):
        pose, status = loc._find_card(fg, slot)
        poses.append(pose)
        statuses.append(status)
    for _ in range(2):
        if not loc._retry_with_neighbours_cut(fg, poses, statuses):
            break
    return poses, statuses


def test_green_clubs_notching_the_edges_located() -> None:
    # synth-9288 poker (four colours, green clubs) on a printed green felt, hard, scene seed
    # 9303920 frame 0: the 9 of clubs in slot 2 (truth centre 276.1, 100.2 px, 172.3 degrees)
    # has its green pips and indices taken for felt where they meet its edges.
    fg = _kept_mask("notched-fg-9c")
    loc = _locator()
    assert fg.shape == (loc.canon_size[1], loc.canon_size[0])
    poses, statuses = _poses(loc, fg)
    pose = poses[2]
    assert pose is not None and statuses[2] == "card"
    assert abs(pose.centre[0] - 276.1) < 1.5 and abs(pose.centre[1] - 100.2) < 1.5
    assert abs(pose.angle_deg - (172.3 - 180.0)) < 1.0
    # The other four were located as before, and without the closed try slot 2 is not.
    assert all(p is not None for p in poses)
    off, _ = _poses(_locator(RecognizerParams(ink_gap_share=0.0)), fg)
    assert off[2] is None
    assert all(a == b for a, b in zip(off[:2] + off[3:], poses[:2] + poses[3:], strict=True))


def test_closed_try_invents_no_card() -> None:
    # The same mask with the 9 of clubs' columns cleared, and with only a notched sliver of it
    # left: neither is a card.
    loc = _locator()
    fg = _kept_mask("notched-fg-9c").copy()
    sw = loc.geometry.slot_width_mm
    x0, x1 = int(loc.canon_x(2 * sw)) + 6, int(loc.canon_x(3 * sw)) - 6
    cleared = fg.copy()
    cleared[:, x0:x1] = 0
    poses, statuses = _poses(loc, cleared)
    assert poses[2] is None and statuses[2] == "empty"
    sliver = fg.copy()
    sliver[:, x0 : x0 + 25] = 0
    poses, _ = _poses(loc, sliver)
    assert poses[2] is None
