"""Inputs the controller core takes and outputs it returns: plain frozen data, JSON both ways.

Rules this module keeps:

1. Every input is a frozen dataclass with ``to_dict()``; :func:`input_from_dict` rebuilds it
   exactly. The daemon journals inputs in that form and replays them through the same core.
2. Inputs are already *resolved device events* or *dealer commands*: no bytes, no clock. The time
   an input happened is passed to :meth:`TableCore.handle` beside it, never read.
3. Outputs carry plain words (``text``) and structured data (``data``). Data that must not reach
   the public or dealer feeds (burn cards, the card behind an irregularity) is kept apart in
   ``secret``; hole cards travel only under a ``hole_cards`` / ``hole_card`` key.

>>> input_from_dict(CardRead("04AABBCCDD", 120).to_dict())
CardRead(uid='04AABBCCDD', shoe_ms=120)
>>> input_from_dict({"kind": "command", "name": "call", "args": {"seat": 3}}).name
'call'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from table_controller.errors import TableError

if TYPE_CHECKING:
    from table_controller.engine import Hand


class InputError(TableError):
    """A journaled or received input cannot be rebuilt (unknown kind, missing field)."""


# --------------------------------------------------------------------------------------------
# Inputs


@dataclass(frozen=True, slots=True)
class CardRead:
    """The shoe read a tag (``uid``) as a card was drawn; ``shoe_ms`` is the shoe's clock."""

    uid: str
    shoe_ms: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"kind": "card", "uid": self.uid, "shoe_ms": self.shoe_ms}


@dataclass(frozen=True, slots=True)
class ZoneSeen:
    """A chip-sensor zone reports ``(denomination code, count)`` pairs."""

    zone: int
    counts: tuple[tuple[int, int], ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"kind": "zone", "zone": self.zone, "counts": [list(c) for c in self.counts]}


@dataclass(frozen=True, slots=True)
class ZoneTags:
    """An RFID chip reader's zone reports the chip tags it reads (each UID once)."""

    zone: int
    uids: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"kind": "zone_tags", "zone": self.zone, "uids": list(self.uids)}


@dataclass(frozen=True, slots=True)
class TraySeen:
    """The dealer's tray inventory, ``(denomination code, count)`` pairs."""

    counts: tuple[tuple[int, int], ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"kind": "tray", "counts": [list(c) for c in self.counts]}


@dataclass(frozen=True, slots=True)
class BoardSeen:
    """The camera's stable reading of the five board slots (``None`` = empty).

    :param slots: card codes (``"Ah"``) or ``None``, slot 0..4.
    :param occluded: slots the camera could not see (a hand over them): not judged.
    """

    slots: tuple[str | None, ...]
    occluded: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"kind": "board", "slots": list(self.slots), "occluded": list(self.occluded)}


@dataclass(frozen=True, slots=True)
class DeviceDown:
    """A device (``"shoe"``, ``"chips"``, ``"camera"``) was lost."""

    device: str
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"kind": "device_down", "device": self.device, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class DeviceUp:
    """A device is back."""

    device: str
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"kind": "device_up", "device": self.device, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class ReadsLost:
    """A device discarded ``count`` frames the host never received (its buffer overflowed)."""

    device: str
    count: int

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"kind": "reads_lost", "device": self.device, "count": self.count}


@dataclass(frozen=True, slots=True)
class ShoeState:
    """The shoe's status flags (``hardware.base.ShoeStatus``); judged by the dealing rules."""

    door_open: bool = False
    empty: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"kind": "shoe_state", "door_open": self.door_open, "empty": self.empty}


@dataclass(frozen=True, slots=True)
class DealerCommand:
    """A well-formed dealer command (see ``COMMANDS`` in :mod:`table_controller.feeds.messages`)."""

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"kind": "command", "name": self.name, "args": dict(self.args)}


@dataclass(frozen=True, slots=True)
class Restarted:
    """The daemon restarted and replayed the journal: the timers start again.

    Devices may have changed while it was down, and fresh reports were requested.
    """

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"kind": "restarted"}


@dataclass(frozen=True, slots=True)
class Tick:
    """Time passed: run the timers (chip settle window). Journaled only when it changed state."""

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"kind": "tick"}


ControllerInput = CardRead | ZoneSeen | ZoneTags | TraySeen | BoardSeen | DeviceDown | \
    DeviceUp | ReadsLost | ShoeState | DealerCommand | Restarted | Tick


def _pairs(raw: Any) -> tuple[tuple[int, int], ...]:
    return tuple((int(a), int(b)) for a, b in raw)


def input_from_dict(d: Mapping[str, Any]) -> ControllerInput:
    """Rebuild an input from its :meth:`to_dict` form.

    :raises InputError: for an unknown kind or a missing or malformed field.
    """
    kind = d.get("kind")
    try:
        if kind == "card":
            ms = d.get("shoe_ms")
            return CardRead(str(d["uid"]), None if ms is None else int(ms))
        if kind == "zone":
            return ZoneSeen(int(d["zone"]), _pairs(d["counts"]))
        if kind == "zone_tags":
            return ZoneTags(int(d["zone"]), tuple(str(u) for u in d["uids"]))
        if kind == "tray":
            return TraySeen(_pairs(d["counts"]))
        if kind == "board":
            return BoardSeen(tuple(None if s is None else str(s) for s in d["slots"]),
                             tuple(int(x) for x in d.get("occluded", ())))
        if kind == "device_down":
            return DeviceDown(str(d["device"]), str(d.get("reason", "")))
        if kind == "device_up":
            return DeviceUp(str(d["device"]), str(d.get("reason", "")))
        if kind == "reads_lost":
            return ReadsLost(str(d["device"]), int(d["count"]))
        if kind == "shoe_state":
            return ShoeState(bool(d["door_open"]), bool(d["empty"]))
        if kind == "command":
            return DealerCommand(str(d["name"]), dict(d.get("args", {})))
        if kind == "tick":
            return Tick()
        if kind == "restarted":
            return Restarted()
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"{kind} input: bad or missing field: {exc}") from None
    raise InputError(f"unknown input kind {kind!r}")


# --------------------------------------------------------------------------------------------
# Outputs


@dataclass(frozen=True, slots=True)
class Prompt:
    """What the dealer must do now. ``step`` is the structured form (see ``step_to_dict``)."""

    id: int
    text: str
    step: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """JSON form (the ``prompt`` message body)."""
        return {"id": self.id, "text": self.text, "step": dict(self.step)}


@dataclass(frozen=True, slots=True)
class Announcement:
    """Something the dealer says aloud (a raise, an all-in, the payouts, the button...)."""

    kind: str
    text: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"kind": self.kind, "text": self.text, **dict(self.data)}


@dataclass(frozen=True, slots=True)
class Applied:
    """An engine input was applied (a card dealt, an action, a post, a collection, a push).

    :param secret: surveillance-only details (the burn card, for example).
    """

    text: str
    data: Mapping[str, Any] = field(default_factory=dict)
    secret: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class IrregularityRaised:
    """An irregularity was found (see :mod:`table_controller.controller.irregularities`)."""

    id: int
    kind: str
    text: str
    remedy: str
    hold: bool
    data: Mapping[str, Any] = field(default_factory=dict)
    secret: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON form for the public and dealer feeds (``secret`` left out)."""
        return {"id": self.id, "kind": self.kind, "text": self.text, "remedy": self.remedy,
                "hold": self.hold, **dict(self.data)}


@dataclass(frozen=True, slots=True)
class HoldEntered:
    """The table is held (through the one ``enter_hold`` path)."""

    reason: str
    irregularity: int | None = None


@dataclass(frozen=True, slots=True)
class HoldLifted:
    """The table resumed after a hold."""

    note: str


@dataclass(frozen=True, slots=True)
class Resolved:
    """An irregularity was resolved by the dealer or the floor (recorded)."""

    irregularity: int
    note: str


@dataclass(frozen=True, slots=True)
class HandStarted:
    """A hand started: its number and engine configuration."""

    number: int
    config: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class HandEnded:
    """A hand is over (pots pushed) or voided; ``hand`` is the engine hand (for PHH export)."""

    number: int
    voided: bool
    final_stacks: Mapping[int, int]
    hand: Hand = field(compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Reply:
    """The answer to a dealer command: accepted, or refused with the reason (nothing changed)."""

    accepted: bool
    reason: str = ""
    result: Mapping[str, Any] = field(default_factory=dict)


Output = (Prompt | Announcement | Applied | IrregularityRaised | HoldEntered | HoldLifted
          | Resolved | HandStarted | HandEnded | Reply)
