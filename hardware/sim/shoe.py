"""A simulated RFID card shoe speaking the reference protocol over a pty (``sim://shoe``).

Script it like a dealer would: :meth:`SimShoe.load_deck` (the shoe scans it), :meth:`SimShoe.draw`
(next card). Faults beyond the link ones of :class:`~hardware.sim.device.SimDevice`:
:meth:`SimShoe.repeat_read` (the reader reports the same draw twice),
:meth:`SimShoe.draw_unregistered` (a tag no deck profile knows), :meth:`SimShoe.draw_second_copy`
(a card already drawn comes out again: a second copy or a cloned tag), and status changes (door,
jam, error).

``sim://shoe?seed=N`` loads the 52 tags of :func:`tag_uids` (seed ``N``) in
:data:`~table_controller.engine.cards.FULL_DECK` order, i.e. tag ``i`` is ``FULL_DECK[i]``; other
options: ``heartbeat``, ``retransmit`` (seconds), ``link`` (the stable port path). Pass
``sim=<SimShoe>`` to :func:`hardware.base.open_device` to use a shoe you built (you then own it);
otherwise the driver owns the simulator and ``driver.peer`` is it.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from hardware.base import DeviceDefaults, DeviceUrl, register_scheme
from hardware.link.protocol import RETRANSMIT_AFTER, Frame, MsgType
from hardware.link.serial_driver import check_query, driver_options, float_option, int_option
from hardware.shoe.driver import SerialShoe
from hardware.shoe.protocol import (
    KIND_SHOE,
    ShoeProtocol,
    card_drawn_payload,
    deck_scan_payload,
    shoe_status_payload,
)
from hardware.sim.device import SimDevice, SimulatorError
from table_controller.engine.cards import FULL_DECK, Card


def tag_uids(seed: int, n: int = 52) -> list[str]:
    """Return ``n`` distinct 7-byte tag UIDs (NTAG-like, ``04...``), reproducible from ``seed``.

    >>> tag_uids(1, 2) == tag_uids(1, 2) and tag_uids(1, 2) != tag_uids(2, 2)
    True
    """
    rng = random.Random(seed)
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < n:
        uid = "04" + rng.randbytes(6).hex().upper()
        if uid not in seen:
            seen.add(uid)
            out.append(uid)
    return out


def sim_deck_profile(seed: int) -> dict[str, Card]:
    """Return the tag-to-card map of the simulated deck ``seed`` (tag ``i`` is ``FULL_DECK[i]``)."""
    return dict(zip(tag_uids(seed), FULL_DECK, strict=True))


class SimShoe(SimDevice):
    """A simulated card shoe.

    :param deck: tag UIDs to load, top card first (nothing loaded when empty).
    :param scan_on_load: send a ``DECK_SCAN`` whenever a deck is loaded.
    :param seed: seeds the generator of unregistered tags.
    :param options: passed to :class:`~hardware.sim.device.SimDevice`.
    """

    kind_code = KIND_SHOE

    def __init__(
        self,
        deck: Sequence[str] = (),
        *,
        scan_on_load: bool = True,
        seed: int = 0,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self.scan_on_load = scan_on_load
        self._rng = random.Random(seed ^ 0x5EED)
        self._deck: deque[str] = deque()
        self._loaded: tuple[str, ...] = ()
        self.drawn: list[str] = []
        #: ``time.monotonic()`` just before the last card's frame was written to the port
        self.card_written_at: float | None = None
        self._last: tuple[str, int] | None = None
        self.door_open = False
        self.jam = False
        self.error = 0
        if deck:
            try:
                self.load_deck(deck)
            except BaseException:
                self.close()
                raise

    @property
    def remaining(self) -> tuple[str, ...]:
        """Tags still in the shoe, top first."""
        with self._lock:
            return tuple(self._deck)

    def load_deck(self, order: Sequence[str], now: float | None = None) -> None:
        """Put a deck in the shoe (top card first); scan it if ``scan_on_load``.

        :raises SimulatorError: if a tag is not hex or repeats.
        """
        uids = [u.upper() for u in order]
        if len(set(uids)) != len(uids):
            raise SimulatorError("the simulated deck repeats a tag")
        for u in uids:
            bytes.fromhex(u)
        with self._lock:
            self._deck = deque(uids)
            self._loaded = tuple(uids)
            self.drawn = []
            self._last = None
            if self.scan_on_load:
                self.scan(now)

    def draw(self, now: float | None = None) -> str:
        """Draw the top card; returns its tag UID.

        :raises SimulatorError: if the shoe is empty.
        """
        with self._lock:
            if not self._deck:
                raise SimulatorError("the simulated shoe is empty: load a deck first")
            uid = self._deck.popleft()
            self.draw_uid(uid, now)
            if not self._deck:
                self._send_status(now, empty=True)
            return uid

    def take(self, uid: str, now: float | None = None) -> None:
        """Draw the given tag out of the shoe, wherever it is in the deck (a dealer's pick).

        :raises SimulatorError: if the tag is not in the shoe.
        """
        with self._lock:
            uid = uid.upper()
            if uid not in self._deck:
                raise SimulatorError(f"tag {uid} is not in the shoe")
            self._deck.remove(uid)
            self.draw_uid(uid, now)
            if not self._deck:
                self._send_status(now, empty=True)

    def draw_uid(self, uid: str, now: float | None = None) -> None:
        """Report any tag as drawn (whether or not it is in the loaded deck)."""
        with self._lock:
            t = self.now() if now is None else now
            ms = self.uptime_ms(t)
            uid = uid.upper()
            self.drawn.append(uid)
            self._last = (uid, ms)
            self.emit(MsgType.CARD_DRAWN, card_drawn_payload(uid, ms), t)
            self.card_written_at = self.port.written_at

    def repeat_read(self, now: float | None = None) -> None:
        """Make the reader report the last draw again, with the same shoe time.

        :raises SimulatorError: if nothing was drawn yet.
        """
        with self._lock:
            if self._last is None:
                raise SimulatorError("nothing drawn yet to repeat")
            uid, ms = self._last
            self.emit(MsgType.CARD_DRAWN, card_drawn_payload(uid, ms), now)

    def draw_unregistered(self, now: float | None = None) -> str:
        """Draw a tag that is not in the loaded deck; returns it."""
        with self._lock:
            while True:
                uid = "04" + self._rng.randbytes(6).hex().upper()
                if uid not in self._loaded:
                    break
            self.draw_uid(uid, now)
            return uid

    def draw_second_copy(self, uid: str | None = None, now: float | None = None) -> str:
        """Draw again a tag already drawn (default: the first one); returns it.

        :raises SimulatorError: if nothing was drawn yet.
        """
        with self._lock:
            if uid is None:
                if not self.drawn:
                    raise SimulatorError("nothing drawn yet to copy")
                uid = self.drawn[0]
            self.draw_uid(uid, now)
            return uid

    def set_status(
        self,
        *,
        door_open: bool | None = None,
        jam: bool | None = None,
        error: int | None = None,
        now: float | None = None,
    ) -> None:
        """Change the shoe's status and report it."""
        with self._lock:
            if door_open is not None:
                self.door_open = door_open
            if jam is not None:
                self.jam = jam
            if error is not None:
                self.error = error
            self._send_status(now)

    def scan(self, now: float | None = None) -> None:
        """Report a deck scan of the tags still in the shoe."""
        with self._lock:
            self.emit(MsgType.DECK_SCAN, deck_scan_payload(tuple(self._deck)), now)

    def on_command(self, frame: Frame, now: float) -> None:
        """Answer status and scan requests."""
        if frame.type == MsgType.SHOE_REQUEST_STATUS:
            self._send_status(now)
        elif frame.type == MsgType.SHOE_REQUEST_SCAN:
            self.scan(now)

    def _send_status(self, now: float | None, empty: bool | None = None) -> None:
        is_empty = not self._deck if empty is None else empty
        payload = shoe_status_payload(self.door_open, is_empty, self.jam, self.error)
        self.emit(MsgType.SHOE_STATUS, payload, now)


def open_sim_shoe(url: DeviceUrl, options: Mapping[str, Any]) -> SerialShoe:
    """Registry factory for ``sim://shoe``: a started :class:`SimShoe` behind a real driver.

    :raises ConfigError: for a bad option.
    """
    check_query(url, ("seed", "heartbeat", "retransmit", "link"))
    opts = dict(options)
    given = opts.pop("sim", None)
    heartbeat = float_option(url, "heartbeat", 0.5, 0.01, 60.0)
    if isinstance(given, SimShoe):
        sim, owned = given, []
    else:
        sim = SimShoe(
            tag_uids(int_option(url, "seed", 1, 0, 2**31)),
            seed=int_option(url, "seed", 1, 0, 2**31),
            link_path=url.query.get("link"),
            heartbeat_interval=heartbeat,
            retransmit_after=float_option(url, "retransmit", RETRANSMIT_AFTER, 0.001, 60.0),
        )
        owned = [sim]
    sim.start()
    return SerialShoe(
        url.url,
        sim.path,
        ShoeProtocol(heartbeat_interval=sim.heartbeat_interval),
        kind="shoe",
        owned=owned,
        peer=sim,
        **driver_options(opts),
    )


def shoe_defaults(url: DeviceUrl) -> DeviceDefaults:
    """Offer the deck profile of its tags before ``sim://shoe`` is opened.

    :raises ConfigError: for a seed that is not an integer.
    """
    return DeviceDefaults(deck_profile=sim_deck_profile(int_option(url, "seed", 1, 0, 2**31)))


register_scheme("sim://shoe", open_sim_shoe, kind="shoe", defaults=shoe_defaults)
