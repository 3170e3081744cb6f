"""A simulated NXP PN532 on a pty, speaking the real HSU frames (``sim://pn532``).

It behaves like the chip as far as the poller uses it: asleep until it hears the HSU wake-up
(0x55) and then a SAMConfiguration, it ACKs every well-formed command frame and then answers
SAMConfiguration, GetFirmwareVersion, RFConfiguration and InListPassiveTarget (106 kbps type A)
with the tag on the antenna (:meth:`SimPn532.present` / :meth:`SimPn532.remove`). A NACK from the
host makes it send its last response again; a damaged host frame gets no answer; an unknown
command gets the syntax-error frame.

Faults are injected on demand and apply to the next InListPassiveTarget polls, one per poll:

=================================  ========================================================
``Pn532Fault.CORRUPT_RESPONSE``    the response's DCS is wrong (host: NACK, response again)
``Pn532Fault.CORRUPT_ACK``         the ACK's bytes are damaged (host: takes the response)
``Pn532Fault.MISS``                no ACK and no response (host: timeout, resend)
``Pn532Fault.DOUBLE``              the response written twice (a card read twice)
``Pn532Fault.GARBAGE``             line noise before the ACK
=================================  ========================================================

Plus :meth:`SimPn532.send_garbage` and :meth:`SimPn532.unplug` / :meth:`SimPn532.replug`
(``reboot=True``: it lost power and must be woken again). Time: :meth:`SimPn532.pump` does one
round of work; :meth:`SimPn532.start` runs it in a thread.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Mapping
from enum import Enum
from typing import Any

from hardware.base import DeviceUrl, parse_device_url, register_scheme
from hardware.link.serial_driver import driver_options
from hardware.pn532.driver import Pn532Shoe, poller_from_url
from hardware.pn532.frames import (
    ACK_FRAME,
    ERROR_FRAME,
    TFI_HOST,
    Command,
    FrameDecoder,
    InfoFrame,
    Nack,
    TargetA,
    encode_response,
    encode_targets,
)
from hardware.sim.pty import PtyPort
from hardware.sim.pump import PumpThread
from table_controller.errors import ConfigError

#: IC 0x32 (PN532), firmware 1.6, supports ISO/IEC 14443 A, B and 18092 (UM0701-02 §7.2.2).
FIRMWARE = bytes([0x32, 0x01, 0x06, 0x07])


class Pn532Fault(Enum):
    """Faults the simulated PN532 applies to its next polls."""

    CORRUPT_RESPONSE = "corrupt-response"
    CORRUPT_ACK = "corrupt-ack"
    MISS = "miss"
    DOUBLE = "double"
    GARBAGE = "garbage"


class SimPn532(PumpThread):
    """A PN532 with one antenna.

    :param link_path: the stable port path (a temporary one when ``None``).
    """

    def __init__(self, *, link_path: str | None = None) -> None:
        self._lock = threading.RLock()
        self.port = PtyPort(link_path)
        self._decoder = FrameDecoder()
        self._faults: deque[Pn532Fault] = deque()
        self._tag: TargetA | None = None
        self._last = b""
        self._init_pump()
        self.woken = False
        self.awake = False
        self.commands: list[int] = []
        self.polls = 0
        self.nacks = 0

    @property
    def path(self) -> str:
        """The stable port path a driver opens (``pn532://<path>``)."""
        return self.port.link_path

    # -- the antenna -----------------------------------------------------------------------------

    def present(self, uid: str, *, sel_res: int = 0x00, ats: bytes = b"") -> None:
        """Put the tag ``uid`` (4, 7 or 10 bytes of hex) on the antenna.

        :raises ValueError: for a UID of another length, or not hex.
        """
        nfcid = bytes.fromhex(uid)
        if len(nfcid) not in (4, 7, 10):
            raise ValueError(f"NFCID1 {uid!r} is {len(nfcid)} bytes (expected 4, 7 or 10)")
        sens = b"\x00\x44" if len(nfcid) == 7 else b"\x00\x04"
        with self._lock:
            self._tag = TargetA(1, sens, sel_res, nfcid, ats)

    def remove(self) -> None:
        """Take the tag off the antenna."""
        with self._lock:
            self._tag = None

    @property
    def tag(self) -> str | None:
        """The UID on the antenna, or ``None``."""
        with self._lock:
            return None if self._tag is None else self._tag.uid

    # -- faults and the cable ------------------------------------------------------------------

    def inject(self, *faults: Pn532Fault) -> None:
        """Apply ``faults`` to the next polls, one per poll, in order."""
        with self._lock:
            self._faults.extend(faults)

    def send_garbage(self, data: bytes = b"\x13\x37 line noise \xfe") -> None:
        """Write bytes that are not a frame."""
        with self._lock:
            self.port.write(data)

    def unplug(self) -> None:
        """Pull the cable: the port and its stable path disappear."""
        with self._lock:
            self.port.unplug()
            self._decoder.reset()

    def replug(self, *, reboot: bool = False) -> None:
        """Plug the cable back in; ``reboot``: it lost power and sleeps until woken."""
        with self._lock:
            if reboot:
                self.woken = self.awake = False
            self.port.plug()

    # -- the pump ----------------------------------------------------------------------------------

    def pump(self) -> None:
        """Read what the host wrote and answer it."""
        with self._lock:
            if not self.port.plugged:
                return
            self.port.flush()
            data = self.port.read()
            if not data:
                return
            if not self.awake and 0x55 in data:
                self.woken = True
            for item in self._decoder.feed(data):
                if isinstance(item, Nack):
                    self.nacks += 1
                    self.port.write(self._last)
                elif isinstance(item, InfoFrame) and item.tfi == TFI_HOST and item.data:
                    self._command(item.data[0], item.data[1:])
                # An ACK from the host aborts (nothing is ever pending here); bad frames and
                # line noise (the wake-up bytes included) get no answer, as on the chip.

    def _command(self, code: int, params: bytes) -> None:
        if not self.awake:
            if not (self.woken and code == Command.SAM_CONFIGURATION):
                return  # asleep: deaf to everything but the wake-up and SAMConfiguration
            self.awake = True
        self.commands.append(code)
        fault = None
        if code == Command.IN_LIST_PASSIVE_TARGET:
            self.polls += 1
            fault = self._faults.popleft() if self._faults else None
        response = self._response(code, params)
        if response is None:
            self.port.write(ERROR_FRAME)
            return
        self._last = response
        ack = ACK_FRAME
        if fault is Pn532Fault.MISS:
            return
        if fault is Pn532Fault.GARBAGE:
            self.port.write(b"\x42\x13\x37")
        if fault is Pn532Fault.CORRUPT_ACK:
            ack = ACK_FRAME[:3] + b"\x00\xfe\x00"
        if fault is Pn532Fault.CORRUPT_RESPONSE:
            broken = bytearray(response)
            broken[-2] ^= 0x01
            response = bytes(broken)
        if fault is Pn532Fault.DOUBLE:
            response += response
        self.port.write(ack + response)

    def _response(self, code: int, params: bytes) -> bytes | None:
        if code in (Command.SAM_CONFIGURATION, Command.RF_CONFIGURATION):
            return encode_response(code)
        if code == Command.GET_FIRMWARE_VERSION:
            return encode_response(code, FIRMWARE)
        if code == Command.IN_LIST_PASSIVE_TARGET and len(params) >= 2 and params[1] == 0x00:
            tags = [self._tag] if self._tag is not None and params[0] >= 1 else []
            return encode_response(code, encode_targets(tags))
        return None

    # -- thread ------------------------------------------------------------------------------------


def open_sim_pn532(url: DeviceUrl, options: Mapping[str, Any]) -> Pn532Shoe:
    """Registry factory for ``sim://pn532``: a started :class:`SimPn532` behind the real driver.

    Takes the ``pn532://`` options plus ``link`` (the stable port path); pass ``sim=<SimPn532>``
    to use a simulator you own (it is then not started). ``driver.peer`` is the simulator.

    :raises ConfigError: for a bad option.
    """
    poller = poller_from_url(url, extra=("link",))
    opts = dict(options)
    given = opts.pop("sim", None)
    if given is not None and not isinstance(given, SimPn532):
        raise ConfigError(f"sim= for {url.url!r} must be a SimPn532")
    owned: list[SimPn532] = []
    if given is None:
        given = SimPn532(link_path=url.query.get("link"))
        given.start()
        owned.append(given)
    return Pn532Shoe(url.url, given.path, poller, kind="shoe", owned=owned, peer=given,
                     **driver_options(opts))


def open_from_url(url: str, **options: Any) -> Pn532Shoe:
    """Build the (unopened) driver for ``sim://pn532?...`` with its simulator running.

    :raises ConfigError: for a bad URL or option.
    """
    return open_sim_pn532(parse_device_url(url), options)


register_scheme("sim://pn532", open_sim_pn532, kind="shoe")
