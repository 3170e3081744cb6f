"""The physical side the simulated dealer works on: chips on the sensor zones, the board file.

Pure helpers (:func:`chips_for`, :func:`legal_from_dict`, :func:`bet_after`) and two small
stateful pieces: :class:`Felt` (what the dealer put on each zone, written to a
:class:`~hardware.sim.chips.SimChipSensor`) and :class:`BoardFile` (the board the simulated
camera sees, written atomically as ``{"slots": [...], "occluded": [...]}``).

>>> chips_for(1_260, {1: 1, 2: 5, 3: 25, 4: 100, 5: 500})
{5: 2, 4: 2, 3: 2, 2: 2}
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from table_controller.engine import Act, ActionKind, LegalActions
from table_controller.errors import TableError


class FeltError(TableError):
    """The dealer was asked to put down chips that cannot be made (or a bad board slot)."""


def chips_for(amount: int, denominations: Mapping[int, int]) -> dict[int, int]:
    """Break ``amount`` into chips, biggest first: ``{denomination code: count}``.

    :raises FeltError: if the amount is negative or cannot be made exactly.
    """
    if amount < 0:
        raise FeltError(f"cannot put down {amount} chips")
    out: dict[int, int] = {}
    left = amount
    for code, value in sorted(denominations.items(), key=lambda kv: -kv[1]):
        n, left = divmod(left, value)
        if n:
            out[code] = n
    if left:
        raise FeltError(f"{amount} cannot be made from chips {sorted(denominations.values())}")
    return out


def legal_from_dict(d: Mapping[str, Any]) -> LegalActions:
    """Rebuild :class:`LegalActions` from its ``to_dict()`` form (a prompt's ``legal``).

    Missing fields get safe defaults (no raise allowed, nothing to call).
    """
    def num(key: str, default: int = 0) -> int:
        v = d.get(key, default)
        return v if isinstance(v, int) and not isinstance(v, bool) else default

    bet, stack = num("bet"), num("stack")
    return LegalActions(
        seat=num("seat"), can_fold=bool(d.get("can_fold", True)),
        can_check=bool(d.get("can_check", False)), can_call=bool(d.get("can_call", False)),
        call_amount=num("call_amount"), can_raise=bool(d.get("can_raise", False)),
        min_raise_to=num("min_raise_to"), max_raise_to=num("max_raise_to", bet + stack),
        to_call_total=num("to_call_total"), bet=bet, stack=stack,
        is_bet=bool(d.get("is_bet", False)),
    )


def bet_after(act: Act, legal: LegalActions) -> int:
    """Return the chips in front of the seat after ``act`` (its total bet for the round).

    >>> legal = LegalActions(2, True, False, True, 100, True, 300, 1000, 200, 100, 900, False)
    >>> [bet_after(Act(2, k, t), legal) for k, t in ((ActionKind.FOLD, 0),
    ...     (ActionKind.CALL, 0), (ActionKind.RAISE, 500), (ActionKind.ALL_IN, 0))]
    [100, 200, 500, 1000]
    """
    if act.kind in (ActionKind.FOLD, ActionKind.CHECK):
        return legal.bet
    if act.kind is ActionKind.CALL:
        return legal.bet + legal.call_amount
    if act.kind is ActionKind.ALL_IN:
        return legal.bet + legal.stack
    return act.to


def command_for(act: Act) -> dict[str, Any]:
    """Return the dealer command body for a player's action.

    >>> command_for(Act(3, ActionKind.RAISE, 400))
    {'command': 'raise', 'seat': 3, 'to': 400}
    """
    if act.kind is ActionKind.BET:
        return {"command": "bet", "seat": act.seat, "amount": act.to}
    if act.kind is ActionKind.RAISE:
        return {"command": "raise", "seat": act.seat, "to": act.to}
    return {"command": act.kind.value, "seat": act.seat}


class ChipSurface(Protocol):
    """What :class:`Felt` writes to (a :class:`~hardware.sim.chips.SimChipSensor`)."""

    def set_zone(self, zone: int, counts: Mapping[int, int], now: float | None = None) -> None:
        """Set the chips on ``zone``."""
        ...


class Felt:
    """The chips the dealer has put on each zone (value per zone), mirrored to the sensors.

    :param sensor: where zone changes go.
    :param denominations: chip values by sensor code.
    :param seat_zones: seat -> zone id.
    :param pot_zone: the pot's zone id.
    """

    def __init__(self, sensor: ChipSurface, denominations: Mapping[int, int],
                 seat_zones: Mapping[int, int], pot_zone: int) -> None:
        self.sensor = sensor
        self.denominations = dict(denominations)
        self.seat_zones = dict(seat_zones)
        self.pot_zone = pot_zone
        self.values: dict[int, int] = {}

    def set(self, zone: int, value: int) -> None:
        """Make ``zone`` hold chips worth ``value`` (written only when it changes)."""
        if self.values.get(zone, 0) == value and zone in self.values:
            return
        self.sensor.set_zone(zone, chips_for(value, self.denominations))
        self.values[zone] = value

    def seat(self, seat: int) -> int:
        """Chips in front of ``seat``."""
        return self.values.get(self.seat_zones[seat], 0)

    def set_seat(self, seat: int, value: int) -> None:
        """Make the chips in front of ``seat`` worth ``value``."""
        self.set(self.seat_zones[seat], value)

    def put(self, seat: int, amount: int) -> None:
        """Put ``amount`` more chips in front of ``seat`` (a bet, or chips added to one)."""
        self.set_seat(seat, self.seat(seat) + amount)

    @property
    def pot(self) -> int:
        """Chips in the pot zone."""
        return self.values.get(self.pot_zone, 0)

    def set_pot(self, value: int) -> None:
        """Make the pot zone hold ``value``."""
        self.set(self.pot_zone, value)

    def collect(self, pot_total: int, returned: Mapping[int, int]) -> None:
        """Move every bet into the pot (uncalled bets back to their seats' stacks)."""
        for seat in self.seat_zones:
            self.set_seat(seat, 0)
        self.set_pot(pot_total)

    def clear(self) -> None:
        """Take every chip off every zone."""
        for zone in [*self.seat_zones.values(), self.pot_zone]:
            self.set(zone, 0)


class BoardFile:
    """The board the simulated camera sees, as a JSON file written atomically.

    :param path: the file (the camera URL's ``board=`` path).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.slots: list[str | None] = [None] * 5
        self.occluded: list[int] = []
        self.write()

    def write(self) -> None:
        """Write the file (temp file, then rename: a reader never sees half a file)."""
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps({"slots": self.slots, "occluded": self.occluded}))
        os.replace(tmp, self.path)

    def lay(self, slot: int, card: str | None) -> None:
        """Put ``card`` (``"Ah"``) in ``slot`` 0..4 (``None`` takes it away).

        :raises FeltError: for a slot outside 0..4.
        """
        if not 0 <= slot < 5:
            raise FeltError(f"board slot {slot} is not 0..4")
        self.slots[slot] = card
        self.write()

    def occlude(self, slots: Sequence[int]) -> None:
        """Say a hand covers ``slots`` (the camera cannot judge them)."""
        self.occluded = sorted(set(slots))
        self.write()

    def clear(self) -> None:
        """Sweep the board."""
        self.slots = [None] * 5
        self.occluded = []
        self.write()
