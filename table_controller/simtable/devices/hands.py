"""One-shot device faults and device state of a rig, the same whether its devices are in-process.

The soak, the scenarios, ``demo --faults`` and the end-to-end tests inject a fault into the next
frame, draw a tag of no card, make the shoe report its status, pull a cable and read what a
device holds unacknowledged. :func:`hands_of` gives them a :class:`DeviceHands` for a
:class:`~table_controller.simtable.rig.SimRig`: :class:`RemoteHands` speaks the control verbs of
``sim run`` (``docs/protocol.md``, "The simulator's control socket") when the rig's devices are a
process of their own, :class:`InlineHands` works the simulator objects of an ``inline`` rig.

Rules this module keeps:

1. Both kinds do the same thing for the same call: a fault asked for once goes on the next data
   frame of that device, a tag drawn is read by the daemon over the port, and the counters are
   the device's own (frames unacknowledged, resent, boot id).
2. A device the rig does not have (a PN532 has no door and no link faults) raises
   :class:`~table_controller.simtable.devices.bench.BenchError`, never a silent no-op.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from hardware.link.protocol import MsgType
from hardware.shoe.protocol import shoe_status_payload
from hardware.sim.device import Fault, SimDevice
from table_controller.simtable.devices.bench import BenchError
from table_controller.simtable.devices.control import ControlClient

if TYPE_CHECKING:
    from hardware.sim.pn532 import SimPn532
    from table_controller.simtable.daemon_io import CardFeeder
    from table_controller.simtable.felt import ChipSurface
    from table_controller.simtable.rig import SimRig

#: The devices a rig has, by their control-verb names.
DEVICES = ("shoe", "chips")


@dataclass(frozen=True, slots=True)
class LinkCounters:
    """What a reference-protocol device holds and has done on its link.

    :param plugged: its cable is in.
    :param pending: data frames sent and not yet acknowledged by the host.
    :param retransmitted: frames resent so far.
    :param boot_id: the boot id its HELLO announces.
    :param overflowed: frames its resend buffer discarded, never acknowledged.
    """

    plugged: bool
    pending: int
    retransmitted: int
    boot_id: int | None
    overflowed: int


class DeviceHands(Protocol):
    """What a test or a soak does to the devices beyond dealing."""

    def inject(self, device: str, *faults: Fault) -> None:
        """Apply ``faults`` to ``device``'s next data frames, one a frame, in order."""
        ...

    def draw_unregistered(self) -> str:
        """Make the shoe read a tag of no card of the deck; return the tag."""
        ...

    def place_tags(self, zone: int, uids: list[str]) -> None:
        """Lay RFID tags, registered chips or not, on ``zone`` of RFID chip sensors."""
        ...

    def shoe_status(self, *, door_open: bool, empty: bool) -> None:
        """Make the shoe report its door and whether it is empty (a status frame)."""
        ...

    def unplug(self, device: str) -> None:
        """Pull ``device``'s cable until :meth:`replug`."""
        ...

    def replug(self, device: str, *, reboot: bool = False) -> None:
        """Plug ``device``'s cable back (``reboot``: it lost power, nothing is resent)."""
        ...

    def counters(self, device: str) -> LinkCounters:
        """Return ``device``'s link counters."""
        ...

    def stall(self, device: str, seconds: float, *, after_next: bool = False) -> None:
        """Make ``device`` go silent and deaf for ``seconds`` (a brown-out).

        :param after_next: from right after its next data frame is written (before the host's
            ACK of it can arrive), not from now.
        """
        ...

    def set_window(self, device: str, frames: int) -> None:
        """Make ``device`` keep at most ``frames`` unacknowledged frames to resend."""
        ...


def _check_device(device: str) -> None:
    if device not in DEVICES:
        raise BenchError(f"device must be shoe or chips, got {device!r}")


class RemoteHands:
    """The hands of a rig whose devices are ``sim run`` (its control socket)."""

    def __init__(self, ctl: ControlClient) -> None:
        self.ctl = ctl

    def inject(self, device: str, *faults: Fault) -> None:
        """Queue each fault once (``fault DEVICE KIND once``)."""
        _check_device(device)
        for fault in faults:
            self.ctl("fault", device, fault.value, "once")

    def draw_unregistered(self) -> str:
        """``draw unregistered``."""
        return str(self.ctl("draw", "unregistered")["uid"])

    def place_tags(self, zone: int, uids: list[str]) -> None:
        """``chiptags ZONE UID...``."""
        self.ctl("chiptags", str(zone), *uids)

    def shoe_status(self, *, door_open: bool, empty: bool) -> None:
        """``status door=... empty=...``."""
        self.ctl("status", f"door={'open' if door_open else 'closed'}",
                 f"empty={'yes' if empty else 'no'}")

    def unplug(self, device: str) -> None:
        """``unplug DEVICE`` (until ``plug``)."""
        _check_device(device)
        self.ctl("unplug", device)

    def replug(self, device: str, *, reboot: bool = False) -> None:
        """``plug DEVICE [reboot]``."""
        _check_device(device)
        self.ctl("plug", device, *(("reboot",) if reboot else ()))

    def counters(self, device: str) -> LinkCounters:
        """Read them from ``state``."""
        _check_device(device)
        state = self.ctl("state")[device]
        if "pending" not in state:
            raise BenchError(f"the {device} is not a reference-protocol device")
        return LinkCounters(bool(state["plugged"]), int(state["pending"]),
                            int(state["retransmitted"]), state.get("boot_id"),
                            int(state["overflowed"]))

    def stall(self, device: str, seconds: float, *, after_next: bool = False) -> None:
        """``stall DEVICE SECONDS [next]``."""
        _check_device(device)
        self.ctl("stall", device, seconds, *(("next",) if after_next else ()))

    def set_window(self, device: str, frames: int) -> None:
        """``window DEVICE FRAMES``."""
        _check_device(device)
        self.ctl("window", device, frames)


class InlineHands:
    """The hands of a rig whose simulators are objects of this process."""

    def __init__(self, rig: SimRig) -> None:
        self.rig = rig
        self._tags = random.Random(rig.options.seed ^ 0x7A6)

    def _link(self, device: str) -> SimDevice:
        _check_device(device)
        sim = self.rig.shoe if device == "shoe" else (self.rig.chips or self.rig.rfid)
        if sim is None:
            raise BenchError(f"this rig's {device} is not a reference-protocol device")
        return sim

    def _any(self, device: str) -> SimDevice | SimPn532:
        _check_device(device)
        sim = (self.rig.shoe or self.rig.pn532) if device == "shoe" else (
            self.rig.chips or self.rig.rfid)
        if sim is None:
            raise BenchError("the rig is not started")
        return sim

    def inject(self, device: str, *faults: Fault) -> None:
        """:meth:`~hardware.sim.device.SimDevice.inject`."""
        self._link(device).inject(*faults)

    def draw_unregistered(self) -> str:
        """Draw a tag of no card of the deck (the PN532's antenna takes one too)."""
        known = {u.upper() for u in self.rig.profile.cards}
        while (uid := "04" + self._tags.randbytes(6).hex().upper()) in known:
            pass
        feeder = self.rig.shoe or self.rig.feeder
        if feeder is None:
            raise BenchError("the rig is not started")
        feeder.draw_uid(uid)
        return uid

    def place_tags(self, zone: int, uids: list[str]) -> None:
        """:meth:`~hardware.sim.rfidchips.SimRfidChips.place`."""
        if self.rig.rfid is None:
            raise BenchError("chiptags: the chip sensors are not RFID readers")
        self.rig.rfid.place(zone, uids)

    def shoe_status(self, *, door_open: bool, empty: bool) -> None:
        """Send a SHOE_STATUS frame."""
        shoe = self.rig.shoe
        if shoe is None:
            raise BenchError("a PN532 shoe reports no status")
        shoe.door_open = door_open
        shoe.emit(MsgType.SHOE_STATUS,
                  shoe_status_payload(door_open, empty, shoe.jam, shoe.error))

    def unplug(self, device: str) -> None:
        """Pull the cable."""
        self._any(device).unplug()

    def replug(self, device: str, *, reboot: bool = False) -> None:
        """Plug it back (stale ptys of other runs kept out of the way first)."""
        self.rig.guard.prepare()
        self._any(device).replug(reboot=reboot)

    def counters(self, device: str) -> LinkCounters:
        """Return the simulator's own."""
        sim = self._link(device)
        return LinkCounters(sim.port.plugged, sim.pending, sim.retransmitted, sim.link.boot_id,
                            sim.link.overflowed)

    def stall(self, device: str, seconds: float, *, after_next: bool = False) -> None:
        """:meth:`~hardware.sim.device.SimDevice.stall`.

        :raises BenchError: for ``after_next`` (only ``sim run``'s devices offer it).
        """
        if after_next:
            raise BenchError("a stall after the next frame needs the devices of sim run")
        self._link(device).stall(seconds)

    def set_window(self, device: str, frames: int) -> None:
        """Set the simulator's resend buffer (and its current link's)."""
        sim = self._link(device)
        sim.window = sim.link.window = frames


def hands_of(rig: SimRig) -> DeviceHands:
    """Return the hands on ``rig``'s devices (remote for ``devices="process"``).

    :raises BenchError: if the rig's devices are not started.
    """
    proc = rig.device_process
    if proc is not None:
        if proc.ctl is None:
            raise BenchError("the rig's devices are not running")
        return RemoteHands(proc.ctl)
    return InlineHands(rig)


def feeder_of(rig: SimRig) -> CardFeeder:
    """Return what the dealer draws ``rig``'s cards from (a simulator, or ``sim run``'s shoe).

    :raises BenchError: if the rig's devices are not started.
    """
    feeder: CardFeeder | None = rig.shoe or rig.feeder or rig.remote_shoe
    if feeder is None:
        raise BenchError("the rig is not started")
    return feeder


def surface_of(rig: SimRig) -> ChipSurface:
    """Return what the dealer's felt sets ``rig``'s chips on.

    :raises BenchError: if the rig's devices are not started.
    """
    surface: ChipSurface | None = rig.chips or rig.rfid_felt or rig.remote_chips
    if surface is None:
        raise BenchError("the rig is not started")
    return surface
