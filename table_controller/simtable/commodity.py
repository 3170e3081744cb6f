"""Commodity readers under the simulated dealer: a PN532 as the shoe, RFID chips on the felt.

The dealer works on a shoe (``load_deck`` / ``draw`` / ``draw_uid``) and a
:class:`~.felt.ChipSurface` (``set_zone``); these adapters give it the same on the
commodity simulators, so the dealer, the scenarios and the demo run unchanged:

* :class:`Pn532Feeder`: each card drawn is put on the :class:`~hardware.sim.pn532.SimPn532`'s
  antenna in place of the previous one, and the feeder waits until the daemon's poller has
  polled with it there (so it is read once, and a card is never swapped out unread).
* :class:`RfidFelt`: counts per denomination become tag UIDs from a bank of registered tags
  (:func:`chip_bank`); lifting chips off a zone keeps their tags in the dealer's hand, and the
  next zone that grows gets those tags first, so real tags move from the bets to the pot.

>>> bank = chip_bank({1: 1, 4: 100}, per_code=2)
>>> bank
{1: ['C1010000', 'C1010001'], 4: ['C1040000', 'C1040001']}
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from calibration.chip_registry import ChipRecord, ChipRegistry
from hardware.sim.pn532 import SimPn532
from hardware.sim.rfidchips import SimRfidChips
from table_controller.simtable.felt import FeltError

#: Tags per denomination code in the bank of a simulated table.
TAGS_PER_CODE = 300
#: The chip set of the simulated table's registry.
CHIP_SET = "sim-house"
#: Seconds the feeder waits at most for the poller to see a card (no daemon polling: go on).
READ_WAIT = 2.0


def chip_bank(denominations: Mapping[int, int], per_code: int = TAGS_PER_CODE
              ) -> dict[int, list[str]]:
    """Return ``per_code`` tag UIDs (4 bytes, upper-case hex) per denomination code.

    :raises FeltError: for a code outside 1..255 or more than 65,536 tags per code.
    """
    if not 0 < per_code <= 0x10000:
        raise FeltError(f"{per_code} tags per code is not 1..65536")
    out: dict[int, list[str]] = {}
    for code in sorted(denominations):
        if not 1 <= code <= 255:
            raise FeltError(f"denomination code {code} is not 1..255")
        out[code] = [f"C1{code:02X}{i:04X}" for i in range(per_code)]
    return out


def bank_registry(bank: Mapping[int, Sequence[str]]) -> ChipRegistry:
    """Return the chip registry that knows every tag of ``bank``."""
    return ChipRegistry(ChipRecord(uid, code, CHIP_SET)
                        for code, uids in bank.items() for uid in uids)


class RfidFelt:
    """A :class:`~.felt.ChipSurface` on a :class:`~hardware.sim.rfidchips.SimRfidChips`.

    :param sim: the simulated reader (its zones are the chip layout's).
    :param bank: tag UIDs per denomination code (:func:`chip_bank`).
    """

    def __init__(self, sim: SimRfidChips, bank: Mapping[int, Sequence[str]]) -> None:
        self.sim = sim
        #: tags in the dealer's hand (lifted last first), then the bank, by code
        self._free: dict[int, list[str]] = {c: list(reversed(u)) for c, u in bank.items()}
        #: zone -> code -> the tags lying there
        self._zones: dict[int, dict[int, list[str]]] = {}

    def counts(self, zone: int) -> dict[int, int]:
        """Return the chips this felt put on ``zone``, per denomination code."""
        return {c: len(u) for c, u in self._zones.get(zone, {}).items() if u}

    def tags(self, zone: int) -> list[str]:
        """Return the tags this felt put on ``zone``."""
        return sorted(u for uids in self._zones.get(zone, {}).values() for u in uids)

    def set_zone(self, zone: int, counts: Mapping[int, int], now: float | None = None) -> None:
        """Make ``zone`` hold ``counts`` chips per code: lift the extra ones, lay the missing.

        :raises FeltError: for a code with no tags left (or none in the bank).
        """
        held = self._zones.setdefault(zone, {})
        lifted: list[str] = []
        laid: list[str] = []
        for code in sorted(set(held) | set(counts)):
            want = counts.get(code, 0)
            here = held.setdefault(code, [])
            free = self._free.get(code)
            if free is None:
                raise FeltError(f"no tags for denomination code {code} in the chip bank")
            while len(here) > want:
                uid = here.pop()
                free.append(uid)
                lifted.append(uid)
            while len(here) < want:
                if not free:
                    raise FeltError(f"the chip bank has no more tags of code {code}")
                uid = free.pop()
                here.append(uid)
                laid.append(uid)
        if lifted:
            self.sim.take(zone, lifted, now)
        if laid:
            self.sim.place(zone, laid, now)


class Pn532Feeder:
    """A shoe for the dealer on a :class:`~hardware.sim.pn532.SimPn532`: a card on the antenna.

    :param sim: the simulated PN532 (running: :meth:`~hardware.sim.pn532.SimPn532.start`).
    :param read_wait: seconds to wait at most for a poll to see each card.
    """

    def __init__(self, sim: SimPn532, read_wait: float = READ_WAIT) -> None:
        self.sim = sim
        self.read_wait = read_wait
        self._deck: list[str] = []
        #: every tag put on the antenna, in order
        self.drawn: list[str] = []

    def load_deck(self, order: Sequence[str]) -> None:
        """Put a deck in the shoe (top card first); a PN532 does not scan it."""
        self._deck = [u.upper() for u in reversed(order)]

    @property
    def left(self) -> int:
        """Cards still in the shoe."""
        return len(self._deck)

    @property
    def remaining(self) -> list[str]:
        """The tags still in the shoe, top card first."""
        return list(reversed(self._deck))

    def take(self, uid: str) -> None:
        """Draw the card ``uid`` out of the shoe (wherever it lies in it).

        :raises FeltError: if it is not in the shoe.
        """
        uid = uid.upper()
        if uid not in self._deck:
            raise FeltError(f"tag {uid} is not in the shoe")
        self._deck.remove(uid)
        self.draw_uid(uid)

    def draw(self) -> str:
        """Put the top card on the antenna; return its tag.

        :raises FeltError: if the shoe is empty.
        """
        if not self._deck:
            raise FeltError("the simulated shoe is empty: load a deck first")
        uid = self._deck.pop()
        self.draw_uid(uid)
        return uid

    def draw_uid(self, uid: str) -> None:
        """Put ``uid`` on the antenna in place of the previous card, once the poller saw it."""
        uid = uid.upper()
        if self.sim.tag == uid:  # the same tag again: it must leave the field first
            self.sim.remove()
            self._wait_poll()
        self.sim.present(uid)
        self.drawn.append(uid)
        self._wait_poll()

    def _wait_poll(self) -> None:
        # the simulator counts a poll when it answers it: one counted after the change
        # answered with the antenna as it is now
        target = self.sim.polls + 1
        deadline = time.monotonic() + self.read_wait
        while self.sim.polls < target and time.monotonic() < deadline:
            time.sleep(0.002)
