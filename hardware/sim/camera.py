"""A simulated board camera: serves rendered frames of a board a simulated dealer changes.

It sits behind the same interface as the real camera (:class:`hardware.camera.capture.CvCamera`):
``open()``, ``close()``, ``read_frame(now)``, ``status()``; open it with
``open_camera("sim://camera?faces=DIR&level=medium&seed=3")`` (``&felt=blue`` for another felt).

Rules this module keeps:

1. The camera is fixed: its pose, felt, lighting and blur are drawn once from the seed; each frame
   only draws new sensor noise. A card keeps the placement error drawn when it was placed.
2. The dealer's actions are checked: a slot outside 0..4, a card already on the board or an
   occupied slot raises and changes nothing.
3. With ``fps`` set, a new frame is available every ``1 / fps`` seconds of the ``now`` passed in;
   otherwise every call renders one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from hardware.base import DeviceStatus
from hardware.sim import scene as S
from hardware.sim.faces import face_folder
from table_controller.engine.cards import Card
from table_controller.errors import ConfigError, DuplicateCardError, RuleError

Image = npt.NDArray[np.uint8]

#: Face folder used when none is given (the kennard deck shipped in :mod:`hardware.sim.faces`).
DEFAULT_FACES = face_folder()


class SimCamera:
    """A simulated :class:`hardware.base.BoardCamera` rendering :mod:`hardware.sim.scene` frames.

    :param faces: BGRA faces by card (``calibration.faces.load_face_folder``).
    :param level: how hard the camera's conditions are.
    :param seed: seeds the camera pose, the lighting and every placement.
    :param felt: the felt's colour (:data:`hardware.sim.scene.FELTS`; the draws do not depend
        on it).
    """

    def __init__(
        self,
        faces: Mapping[Card, Image],
        *,
        url: str = "sim://camera",
        level: S.Level = S.Level.MEDIUM,
        seed: int = 0,
        fps: float | None = None,
        felt: S.Felt = "green",
    ) -> None:
        if fps is not None and not fps > 0:
            raise ConfigError(f"sim camera fps must be positive, got {fps}")
        self.url = url
        self.faces = dict(faces)
        self.level = level
        self.fps = fps
        self._rng = np.random.default_rng(seed)
        self.camera = S.make_camera(self._rng, level, S.geometry_for_faces(self.faces),
                                    felt=felt)
        self._pert = replace(S.sample_perturbations(self._rng, level, self.camera), glare=())
        self._placements: dict[int, S.Placement] = {}
        self._hand: S.Hand | None = None
        self._open = False
        self._frames = 0
        self._last_frame_at: float | None = None
        self.last_scene: S.Scene | None = None

    # The simulated dealer -----------------------------------------------------------------

    def place(self, slot: int, card: Card) -> None:
        """Lay ``card`` face up in ``slot`` (with the level's placement error).

        :raises RuleError: if the slot does not exist or holds a card.
        :raises DuplicateCardError: if the card is already on the board.
        """
        slots = self.camera.geometry.slots
        if not 0 <= slot < slots:
            raise RuleError("board-slot", f"slot {slot} does not exist (0..{slots - 1})")
        if slot in self._placements:
            raise RuleError("board-slot", f"slot {slot} already holds "
                            f"{self._placements[slot].card.code}")
        if any(p.card == card for p in self._placements.values()):
            raise DuplicateCardError(f"{card.code} is already on the board")
        board: list[Card | None] = [None] * slots
        board[slot] = card
        (placement,) = S.place_cards(self._rng, board, self.level, self.camera.geometry)
        self._placements[slot] = placement

    def remove(self, slot: int) -> None:
        """Take the card out of ``slot`` (nothing if it is empty)."""
        self._placements.pop(slot, None)

    def clear(self) -> None:
        """Clear the board and withdraw the hand."""
        self._placements.clear()
        self._hand = None

    def occlude(self, slot: int | None = None, hand: S.Hand | None = None) -> S.Hand:
        """Hold the dealer's hand over ``slot`` (or a random place, or exactly ``hand``)."""
        if hand is None:
            hand = S.random_hand(self._rng, self.camera.geometry)
            if slot is not None:
                x, _ = self.camera.geometry.slot_centre_mm(slot)
                hand = replace(hand, centre_mm=(x, hand.centre_mm[1]))
        self._hand = hand
        return hand

    def uncover(self) -> None:
        """Withdraw the dealer's hand."""
        self._hand = None

    def board(self) -> tuple[Card | None, ...]:
        """Return the cards on the board, slot by slot."""
        return tuple(
            self._placements[i].card if i in self._placements else None
            for i in range(self.camera.geometry.slots)
        )

    # The camera interface -------------------------------------------------------------------

    def open(self) -> None:
        """Start serving frames."""
        self._open = True

    def close(self) -> None:
        """Stop serving frames."""
        self._open = False

    def read_frame(self, now: float) -> Image | None:
        """Render the current board, or None when closed or (with ``fps``) too early."""
        if not self._open:
            return None
        if (self.fps is not None and self._last_frame_at is not None
                and now - self._last_frame_at < 1.0 / self.fps):
            return None
        placements = [self._placements[i] for i in sorted(self._placements)]
        scene = S.render(self.faces, placements, self.camera, self._rng, self._pert, self._hand)
        self.last_scene = scene
        self._frames += 1
        self._last_frame_at = now
        return scene.image

    def status(self) -> DeviceStatus:
        """Return a snapshot of the simulated camera's health."""
        return DeviceStatus(
            url=self.url, kind="camera", connected=self._open,
            link="ok" if self._frames and self._open else ("waiting" if self._open else "closed"),
            last_frame_at=self._last_frame_at, frames=self._frames, bad_frames=0,
            retransmissions=0, duplicates=0, reconnects=0,
        )


def sim_camera_from_options(url: str, options: Mapping[str, Any]) -> SimCamera:
    """Build a :class:`SimCamera` from URL query / keyword options.

    Options: ``faces`` (folder or a mapping of faces; default the shipped kennard deck),
    ``level`` (easy, medium, hard), ``seed`` (int), ``fps`` (float), ``felt`` (green, blue,
    red, grey; default green).

    :raises ConfigError: for unknown options or bad values.
    """
    from calibration.faces import load_face_folder

    known = {"faces", "level", "seed", "fps", "device", "felt"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ConfigError(f"sim camera {url!r}: unknown options {unknown}")
    faces_opt = options.get("faces", DEFAULT_FACES)
    faces = faces_opt if isinstance(faces_opt, Mapping) else load_face_folder(str(faces_opt))
    try:
        level = S.Level(str(options.get("level", "medium")))
    except ValueError:
        raise ConfigError(
            f"sim camera level {options.get('level')!r} is not easy, medium or hard"
        ) from None
    try:
        seed = int(options.get("seed", 0))
        fps = float(options["fps"]) if "fps" in options else None
    except (TypeError, ValueError):
        raise ConfigError(f"sim camera {url!r}: seed must be an integer and fps a number") from None
    felt = str(options.get("felt", "green"))
    for choice in S.FELTS:
        if felt == choice:
            return SimCamera(faces, url=url, level=level, seed=seed, fps=fps, felt=choice)
    raise ConfigError(f"sim camera {url!r}: felt {felt!r} is not one of {', '.join(S.FELTS)}")

