"""Board sources: what the camera stabiliser sees, as events the controller turns into inputs.

A *board source* has ``open()``, ``close()``, ``poll(now) -> list[DeviceEvent]`` and
``status()``; ``poll`` returns a :class:`BoardObserved` whenever the stable board (or the set of
slots the camera cannot see) changes. Two exist:

- :class:`FrameBoardSource` (here): frames from any :class:`~hardware.base.BoardCamera` (a real
  ``camera://`` or the in-process ``SimCamera``), read by the calibrated recognizer and settled
  by :class:`~hardware.camera.stabilizer.BoardStabilizer`;
- :class:`hardware.sim.camera_link.BoardFileCamera`: the simulated dealer's board file, for a
  daemon running in another process.

Every board source is opened through the registry, kind ``"board"``
(:func:`hardware.base.open_board_source`), with the camera profile as the ``profile`` option:
``camera:`` URLs build a :class:`FrameBoardSource` over the camera here (see
:func:`open_camera_board`), the simulators register theirs in :mod:`hardware.sim`.

``poll`` may take tens of milliseconds (recognition); the daemon calls it in a worker thread.

Deck check (:mod:`hardware.camera.deckfit`): :class:`FrameBoardSource` feeds every reading to a
:class:`~hardware.camera.deckfit.DeckFitMonitor`. When the cards on the board do not match the
registered deck design it emits :class:`DeckMismatch` once and, until :class:`DeckMatched`,
reports no card: every slot holding one is reported occluded (the camera cannot vouch for it, as
for an uncertain read), so the controller neither trusts nor misses the board; ``status()``
shows ``link="deck_mismatch"`` with the alert as ``last_error``. Before the check has seen
enough cards for a verdict, cards are also withheld (without an alert) while the few seen match
badly (:attr:`~hardware.camera.deckfit.DeckFitMonitor.suspect`).
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from typing import Any, Protocol

from hardware.base import BoardCamera, DeviceEvent, DeviceStatus, LookTimed
from hardware.camera.deckfit import DeckFitMonitor, DeckFitState

log = logging.getLogger(__name__)

#: What ``status().link`` says while the board's cards do not match the registered deck.
DECK_MISMATCH_LINK = "deck_mismatch"


@dataclass(frozen=True, slots=True)
class BoardObserved(DeviceEvent):
    """The camera's stable reading of the board: card codes or ``None`` per slot."""

    slots: tuple[str | None, ...]
    occluded: tuple[int, ...] = ()


def next_due(due: float, now: float, interval: float) -> float:
    """Return when the poll after one due at ``due`` and made at ``now`` is due.

    On a fixed grid of ``interval`` from the first poll: a poll made a little late (the caller
    looks every few tens of milliseconds) does not push the next one later, so a source read
    every 0.1 s by a loop that looks every 0.05 s reads 10 frames a second, not one every
    0.15 s. A poll late by a whole interval or more starts the grid again from ``now`` (no
    burst of polls to catch up).

    >>> next_due(1.0, 1.125, 0.25), next_due(1.0, 1.5, 0.25), next_due(0.0, 5.0, 0.25)
    (1.25, 1.75, 5.25)
    """
    nxt = due + interval
    return nxt if now < nxt else now + interval


def _design(design: str) -> str:
    return f" '{design}'" if design else ""


@dataclass(frozen=True, slots=True)
class DeckMismatch(DeviceEvent):
    """The cards on the board do not match the registered deck design (deck check alarm).

    :param median: the median match score of the last ``cards`` distinct cards.
    :param cards: how many cards the median was taken over.
    :param design: the registered design's name (from the camera profile), if known.
    """

    median: float
    cards: int
    design: str = ""

    @property
    def text(self) -> str:
        """The alert for the dealer and the floor."""
        return (f"camera: the cards on the board do not match the registered deck design"
                f"{_design(self.design)} (median match {self.median:.2f} over {self.cards} "
                f"cards); check the deck or recalibrate the faces "
                f"(table-controller calibrate camera --faces ...)")


@dataclass(frozen=True, slots=True)
class DeckMatched(DeviceEvent):
    """The cards on the board match the registered deck design again (after a mismatch)."""

    median: float
    cards: int
    design: str = ""

    @property
    def text(self) -> str:
        """The all-clear for the dealer and the floor."""
        return (f"camera: the cards on the board match the registered deck design"
                f"{_design(self.design)} again (median match {self.median:.2f} over "
                f"{self.cards} cards); the board is checked again")


class Reader(Protocol):
    """What a recognizer offers (``hardware.camera.recognizer.BoardRecognizer``)."""

    def read(self, frame: Any) -> Any:
        """Read one frame into a ``BoardReading``."""
        ...


class Stabilizer(Protocol):
    """What a stabiliser offers (``hardware.camera.stabilizer.BoardStabilizer``)."""

    def update(self, reading: Any, now: float) -> Any:
        """Feed one reading; return a ``StableBoard``."""
        ...


class FrameBoardSource:
    """Camera frames -> recognizer -> stabiliser -> :class:`BoardObserved` on change.

    :param camera: an unopened camera.
    :param recognizer: reads a frame into a board reading.
    :param stabilizer: settles readings over frames.
    :param interval: seconds between frames read (the recognizer costs tens of ms a frame),
        on a fixed grid (:func:`next_due`).
    :param deckfit: the deck check (default: a :class:`~hardware.camera.deckfit.DeckFitMonitor`
        with its measured defaults).
    :param design: the registered deck design's name, for the alert.
    """

    def __init__(self, camera: BoardCamera, recognizer: Reader, stabilizer: Stabilizer, *,
                 interval: float = 0.2, deckfit: DeckFitMonitor | None = None,
                 design: str = "") -> None:
        self.camera = camera
        self.url = camera.url
        self.recognizer = recognizer
        self.stabilizer = stabilizer
        self.interval = interval
        self.deckfit = deckfit if deckfit is not None else DeckFitMonitor()
        self.design = design
        self._next = 0.0
        self._last: BoardObserved | None = None
        self._mismatch: DeckMismatch | None = None

    def open(self) -> None:
        """Open the camera, then do the recognizer's warm-up before the first frame.

        The warm-up (:meth:`~hardware.camera.recognizer.BoardRecognizer.warm_up`: what the
        registered faces alone decide, 0.4-0.8 s of CPU once) fills the same caches the frames
        would fill on first use: the readings are the same, and no frame where a card is laid
        pays for it (the first card read paid 80-200 ms for the deck's inks).
        """
        self.camera.open()
        warm_up = getattr(self.recognizer, "warm_up", None)
        if callable(warm_up):
            warm_up()

    def close(self) -> None:
        """Release the camera."""
        self.camera.close()

    def next_poll_at(self) -> float:
        """Return when the next frame is due (:class:`~hardware.base.Paced`)."""
        return self._next

    def poll(self, now: float) -> list[DeviceEvent]:
        """Read one frame if one is due; return what changed.

        :returns: a :class:`DeckMismatch` or :class:`DeckMatched` when the deck check changes
            its verdict (first), and a :class:`BoardObserved` when the board changed.
        """
        if now < self._next:
            return []
        self._next = next_due(self._next, now, self.interval)
        frame = self.camera.read_frame(now)
        if frame is None:
            return []
        reading = self.recognizer.read(frame)
        events: list[DeviceEvent] = []
        change = self.deckfit.update(reading, now)
        if change is not None and change.state is DeckFitState.MISMATCH:
            self._mismatch = DeckMismatch(round(change.median, 3), change.cards, self.design)
            log.warning("%s", self._mismatch.text)
            events.append(self._mismatch)
        elif change is not None:
            self._mismatch = None
            matched = DeckMatched(round(change.median, 3), change.cards, self.design)
            log.warning("%s", matched.text)
            events.append(matched)
        stable = self.stabilizer.update(reading, now)
        slots = tuple(None if c is None else c.code for c in stable.cards)
        occluded = tuple(stable.occluded)
        if self._mismatch is not None or self.deckfit.suspect:
            # fail-safe: no card read while the deck does not match (or, before the check has
            # seen enough cards, while the few seen match badly); a slot holding one is one the
            # camera cannot vouch for (as for an uncertain read)
            occluded = tuple(sorted(set(occluded) | {i for i, c in enumerate(slots) if c}))
            slots = (None,) * len(slots)
        board = BoardObserved(slots, occluded)
        if board != self._last:
            self._last = board
            events.append(board)
        return events

    def looked_at(self) -> float | None:
        """When the camera's producer last looked at the board, if the camera knows (else None).

        See :class:`hardware.base.LookTimed`.
        """
        camera = self.camera
        return camera.looked_at() if isinstance(camera, LookTimed) else None

    @property
    def mismatch(self) -> DeckMismatch | None:
        """The deck check's alarm while it lasts, else None."""
        return self._mismatch

    def status(self) -> DeviceStatus:
        """Return the camera's health (``link="deck_mismatch"`` while the deck does not match)."""
        st = self.camera.status()
        if self._mismatch is None:
            return st
        return dataclasses.replace(st, link=DECK_MISMATCH_LINK if st.link == "ok" else st.link,
                                   last_error=self._mismatch.text)
