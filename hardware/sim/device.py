"""Base of the simulated reference-protocol devices: link, heartbeats, faults, pump, thread.

A simulated device behaves like the firmware: it numbers its frames, keeps them until the host
ACKs them, resends on NAK or after a timeout, answers an empty NAK with HELLO, sends a heartbeat
every ``heartbeat_interval`` seconds, and writes the exact wire bytes to a :class:`PtyPort`.

Faults are injected on demand and apply to the next data frames sent (retransmissions and
heartbeats go out clean, so every fault is recoverable unless you stack more):

========================  ==========================================================
``Fault.CORRUPT_CRC``     one bit of the CRC flipped (host: ``BadFrame``, NAK, resend)
``Fault.SPLIT``           the frame written in two writes ``split_delay`` apart
``Fault.DROP_BYTES``      three bytes cut out of the middle (host: ``BadFrame``, NAK)
``Fault.DROP_FRAME``      the frame not written at all (host: gap or timeout, resend)
``Fault.DUPLICATE``       the frame written twice (host: drops the copy)
``Fault.LOSE_ACK``        the host's next ACK is ignored (device resends; host drops)
========================  ==========================================================

Plus :meth:`SimDevice.send_garbage`, :meth:`SimDevice.stall` (silent, deaf), and
:meth:`SimDevice.unplug` / :meth:`SimDevice.replug`.

Time: :meth:`SimDevice.pump` and the emitting methods take ``now`` (defaulting to the injected
clock), so a test can step time; :meth:`SimDevice.start` runs the pump in a thread for demos.
"""

from __future__ import annotations

import struct
import threading
import time
from collections import deque
from collections.abc import Callable
from enum import Enum

from hardware.link.protocol import (
    RETRANSMIT_AFTER,
    DeviceLink,
    Frame,
    FrameDecoder,
    MsgType,
    encode_frame,
)
from hardware.sim.pty import PtyPort
from hardware.sim.pump import PumpThread
from table_controller.errors import DeviceError

_U32 = struct.Struct(">I")


class SimulatorError(DeviceError):
    """A simulated device was asked for something impossible (drawing from an empty shoe...)."""


class Fault(Enum):
    """Faults a simulated device can inject into its next data frames."""

    CORRUPT_CRC = "corrupt-crc"
    SPLIT = "split"
    DROP_BYTES = "drop-bytes"
    DROP_FRAME = "drop-frame"
    DUPLICATE = "duplicate"
    LOSE_ACK = "lose-ack"


class SimDevice(PumpThread):
    """A simulated reference-protocol device on a pty.

    :param link_path: the stable port path to publish (a temporary one when ``None``).
    :param heartbeat_interval: seconds between heartbeats.
    :param retransmit_after: seconds before an unacknowledged frame is resent (the protocol's
        :data:`~hardware.link.protocol.RETRANSMIT_AFTER`).
    :param boot_id: the boot id announced in HELLO (incremented by a rebooting re-plug).
    :param clock: monotonic clock used when ``now`` is not given.
    :param split_delay: seconds between the two halves of a split frame.
    :param window: frames kept for resending; past it the oldest is discarded (a firmware
        buffer overflow, reported to the host as ``FramesLost``).
    """

    kind_code = 0
    firmware = 1

    def __init__(
        self,
        *,
        link_path: str | None = None,
        heartbeat_interval: float = 0.5,
        retransmit_after: float = RETRANSMIT_AFTER,
        boot_id: int = 1,
        clock: Callable[[], float] = time.monotonic,
        split_delay: float = 0.003,
        window: int = 1024,
    ) -> None:
        self._lock = threading.RLock()
        self.window = window
        self._clock = clock
        self.heartbeat_interval = heartbeat_interval
        self.retransmit_after = retransmit_after
        self.split_delay = split_delay
        self.port = PtyPort(link_path)
        self.link = self._new_link(boot_id)
        self.t0 = clock()
        self._faults: deque[Fault] = deque()
        self._later: deque[tuple[float, bytes]] = deque()
        self._lose_acks = 0
        self._stalled_until: float | None = None
        self._next_heartbeat = self.t0
        self.commands: list[int] = []
        self._init_pump()
        self.port.write(self.link.hello())

    # -- properties ------------------------------------------------------------------------------

    @property
    def path(self) -> str:
        """The stable port path a driver opens (``serial://<path>``)."""
        return self.port.link_path

    @property
    def pending(self) -> int:
        """Data frames sent but not yet acknowledged by the host."""
        with self._lock:
            return len(self.link.pending)

    @property
    def retransmitted(self) -> int:
        """Frames resent so far."""
        return self.link.retransmitted

    def now(self) -> float:
        """Return the device clock's current time."""
        return self._clock()

    # -- faults ----------------------------------------------------------------------------------

    def inject(self, *faults: Fault) -> None:
        """Apply ``faults`` to the next data frames, one fault per frame, in order."""
        with self._lock:
            for fault in faults:
                if fault is Fault.LOSE_ACK:
                    self._lose_acks += 1
                else:
                    self._faults.append(fault)

    def send_garbage(self, data: bytes = b"\x13\x37 line noise \xfe\xff") -> None:
        """Write bytes that are not a frame."""
        with self._lock:
            self._write(data, self._clock())

    def stall(self, seconds: float, now: float | None = None) -> None:
        """Go silent and deaf for ``seconds`` (no frames, no heartbeats, host bytes lost)."""
        with self._lock:
            self._stalled_until = (self._clock() if now is None else now) + seconds

    def unplug(self) -> None:
        """Pull the cable: the port and its stable path disappear."""
        with self._lock:
            self._later.clear()
            self.port.unplug()

    def replug(self, *, reboot: bool = False, now: float | None = None) -> None:
        """Plug the cable back in (a new pty behind the same path).

        :param reboot: the device lost power: a new boot id, nothing pending is resent.
        """
        with self._lock:
            if reboot:
                self.link = self._new_link(self.link.boot_id + 1)
            self.port.plug()
            self._next_heartbeat = self._clock() if now is None else now

    # -- sending ---------------------------------------------------------------------------------

    def emit(self, msg_type: int, payload: bytes, now: float | None = None) -> None:
        """Send one sequenced data frame (through any pending fault)."""
        with self._lock:
            t = self._clock() if now is None else now
            wire = self.link.send(msg_type, payload, t)
            if self._stalled(t):
                return
            fault = self._faults.popleft() if self._faults else None
            if fault is None:
                self._write(wire, t)
            elif fault is Fault.CORRUPT_CRC:
                broken = bytearray(wire)
                broken[-2] ^= 0x01 if broken[-2] != 0x01 else 0x02
                self._write(bytes(broken), t)
            elif fault is Fault.SPLIT:
                cut = len(wire) // 2
                self._write(wire[:cut], t)
                self._later.append((t + self.split_delay, wire[cut:]))
            elif fault is Fault.DROP_BYTES:
                mid = len(wire) // 2
                self._write(wire[: mid - 1] + wire[mid + 2 :], t)
            elif fault is Fault.DUPLICATE:
                self._write(wire + wire, t)
            # Fault.DROP_FRAME: nothing is written; the frame stays pending and is resent.

    def heartbeat_payload(self, now: float) -> bytes:
        """Uptime in milliseconds (u32)."""
        return _U32.pack(self.uptime_ms(now))

    def uptime_ms(self, now: float) -> int:
        """Milliseconds since the simulator started (wraps at 2**32)."""
        return int((now - self.t0) * 1000) & 0xFFFFFFFF

    # -- the pump --------------------------------------------------------------------------------

    def pump(self, now: float | None = None) -> None:
        """Do one round of device work at ``now``: host bytes, resends, heartbeats."""
        with self._lock:
            t = self._clock() if now is None else now
            if not self.port.plugged:
                return
            self.port.flush()
            data = self.port.read()
            if self._stalled(t):
                return
            while self._later and self._later[0][0] <= t:
                self.port.write(self._later.popleft()[1])
            if data:
                if self._lose_acks and b"\x00" in data:
                    data = self._drop_one_ack(data)
                commands, resend = self.link.feed(data, t)
                for wire in resend:
                    self._write(wire, t)
                for command in commands:
                    self.commands.append(command.type)
                    self.on_command(command, t)
            for wire in self.link.poll(t):
                self._write(wire, t)
            if t >= self._next_heartbeat:
                self._write(self.link.unsequenced(MsgType.HEARTBEAT, self.heartbeat_payload(t)), t)
                self._next_heartbeat = t + self.heartbeat_interval

    def on_command(self, frame: Frame, now: float) -> None:
        """Answer a host command (device specific)."""

    def __enter__(self) -> SimDevice:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals -------------------------------------------------------------------------------

    def _new_link(self, boot_id: int) -> DeviceLink:
        return DeviceLink(
            kind=self.kind_code,
            firmware=self.firmware,
            boot_id=boot_id,
            retransmit_after=self.retransmit_after,
            window=self.window,
        )

    def _stalled(self, now: float) -> bool:
        if self._stalled_until is None:
            return False
        if now < self._stalled_until:
            return True
        self._stalled_until = None
        return False

    def _write(self, data: bytes, now: float) -> None:
        if self._later:
            self._later.append((self._later[-1][0], data))
        else:
            self.port.write(data)

    def _drop_one_ack(self, data: bytes) -> bytes:
        kept = []
        for item in FrameDecoder().feed(data):
            if isinstance(item, Frame):
                if item.type == MsgType.ACK and self._lose_acks:
                    self._lose_acks -= 1
                    continue
                kept.append(encode_frame(item.type, item.seq, item.payload, item.flags))
        return b"".join(kept)

