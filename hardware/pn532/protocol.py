"""The host side of a PN532 reader on HSU, sans-IO: wake it, poll it, turn tags into draws.

The PN532 answers commands; it never speaks first. :class:`Pn532Poller` is the host's dialog
(NXP UM0701-02 §6.2.2) as a table-driven state machine: it writes a command, waits for the ACK
frame, then for the response, and polls ``InListPassiveTarget`` (§7.3.5: ``MaxTg = 1``,
``BrTy = 00``, 106 kbps type A) every ``poll_interval`` seconds. Frames are in
:mod:`hardware.pn532.frames`.

Start-up after every (re)open of the port: the HSU wake-up bytes then ``SAMConfiguration``
normal mode (§7.2.10: the PN532 leaves its low-power start-up mode only on this command),
``GetFirmwareVersion`` (§7.2.2, reported as :class:`Pn532Firmware`) and ``RFConfiguration``
MaxRetries (§7.3.1) so that a poll with no card on the antenna answers ``NbTg = 0`` at once
instead of waiting for a card.

Rules this module keeps:

1. Nothing here does I/O, reads a clock or raises on bad input: bytes and ``now`` come in,
   events and the bytes to write go out (:meth:`Pn532Poller.take_outgoing`).
2. One command is in flight at a time. No ACK within ``ack_timeout``, or no response within
   ``response_timeout``, resends the command (after an ACK frame, which aborts whatever the PN532
   was still doing). A NACK or a syntax-error frame from the PN532 resends at once. A damaged
   response is asked for again with a NACK (at most ``max_nacks`` times, then the command is
   resent). A damaged ACK is not resent at once: the response that follows it is accepted on its
   own, and the ACK timeout covers the rest. Line noise is reported, never acted upon.
3. Responses are matched by their code (command + 1). Polls are idempotent, so a late answer
   to an earlier poll counts as a poll; a response while nothing is in flight is a duplicate,
   counted and dropped.
4. A card is drawn once per pass over the antenna: a UID seen in consecutive polls is one
   :class:`~hardware.base.CardDrawn`; the card is gone after ``absent_polls`` polls without a
   target, or when another UID answers; the same card presented again after that is a new draw.
   Timeouts and bad frames say nothing about the antenna and change nothing.
5. Health is reported once per transition: ``lost_after`` failed exchanges in a row give one
   :class:`~hardware.base.DeviceLost` (and the wake-up sequence is sent again after every
   ``rewake_after`` failures, for a PN532 that lost power); the next good frame gives one
   :class:`~hardware.base.DeviceRecovered`.
6. The state machine is :data:`TRANSITIONS`; a pair not listed there is a bug and raises
   :class:`~table_controller.errors.ProtocolError` (feeding bytes never reaches one).

>>> p = Pn532Poller()
>>> p.reset(now=0.0)
>>> p.take_outgoing()[-12:].hex(" ").upper()  # after the wake-up bytes: SAMConfiguration
'00 00 FF 05 FB D4 14 01 14 01 02 00'
>>> p.feed(ACK_FRAME + encode_response(Command.SAM_CONFIGURATION), now=0.01)
[]
>>> p.poll_state
<PollState.AWAIT_ACK: 'await-ack'>
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from enum import Enum

from hardware.base import BadFrame, CardDrawn, DeviceEvent, DeviceLost, DeviceRecovered
from hardware.link.protocol import LinkState
from hardware.pn532.frames import (
    ACK_FRAME,
    NACK_FRAME,
    TFI_PN532,
    WAKEUP,
    Ack,
    Command,
    ErrorFrame,
    FrameDecoder,
    InfoFrame,
    LineNoise,
    Nack,
    encode_command,
    encode_response,
    parse_targets,
)
from table_controller.errors import ProtocolError

__all__ = [
    "TRANSITIONS",
    "Pn532Firmware",
    "Pn532Poller",
    "PollState",
    "Trigger",
    "encode_response",
]

#: SAMConfiguration: normal mode, virtual-card timeout 0x14 (1 s), use the IRQ pin.
SAM_NORMAL = bytes([0x01, 0x14, 0x01])
#: InListPassiveTarget: one target, 106 kbps type A.
POLL_TYPE_A = bytes([0x01, 0x00])
#: RFConfiguration item 0x05 (MaxRetries): MxRtyATR, MxRtyPSL, then MxRtyPassiveActivation.
RF_MAX_RETRIES = 0x05


class PollState(Enum):
    """Where the host's dialog with the PN532 stands."""

    CLOSED = "closed"  # port not open
    IDLE = "idle"  # nothing in flight; the next command goes out when due
    AWAIT_ACK = "await-ack"  # a command was written
    AWAIT_RESPONSE = "await-response"  # its ACK came


class Trigger(Enum):
    """What moves the state machine."""

    OPENED = "opened"
    SEND = "send"
    ACK = "ack"
    NACK = "nack"
    RESPONSE = "response"
    DAMAGED = "damaged"
    ERROR = "error"
    TIMEOUT = "timeout"
    LOST = "lost"


_S, _T = PollState, Trigger
#: ``(state, trigger) -> next state``; the action for each trigger is the poller's handler.
TRANSITIONS: dict[tuple[PollState, Trigger], PollState] = {
    (_S.CLOSED, _T.OPENED): _S.AWAIT_ACK,
    (_S.CLOSED, _T.LOST): _S.CLOSED,
    # bytes read while the port is closed (before its loss was noticed, or before it opened):
    # ignored, nothing is in flight
    (_S.CLOSED, _T.ACK): _S.CLOSED,
    (_S.CLOSED, _T.NACK): _S.CLOSED,
    (_S.CLOSED, _T.RESPONSE): _S.CLOSED,
    (_S.CLOSED, _T.DAMAGED): _S.CLOSED,
    (_S.CLOSED, _T.ERROR): _S.CLOSED,
    (_S.IDLE, _T.SEND): _S.AWAIT_ACK,
    (_S.IDLE, _T.ACK): _S.IDLE,  # stray, ignored
    (_S.IDLE, _T.NACK): _S.IDLE,
    (_S.IDLE, _T.RESPONSE): _S.IDLE,  # duplicate, dropped
    (_S.IDLE, _T.DAMAGED): _S.IDLE,
    (_S.IDLE, _T.ERROR): _S.IDLE,
    (_S.AWAIT_ACK, _T.ACK): _S.AWAIT_RESPONSE,
    (_S.AWAIT_ACK, _T.RESPONSE): _S.IDLE,  # the ACK was damaged or lost
    (_S.AWAIT_ACK, _T.NACK): _S.AWAIT_ACK,  # resent
    (_S.AWAIT_ACK, _T.ERROR): _S.AWAIT_ACK,  # resent
    (_S.AWAIT_ACK, _T.DAMAGED): _S.AWAIT_ACK,  # wait: a response may follow
    (_S.AWAIT_ACK, _T.TIMEOUT): _S.AWAIT_ACK,  # resent
    (_S.AWAIT_RESPONSE, _T.RESPONSE): _S.IDLE,
    (_S.AWAIT_RESPONSE, _T.ACK): _S.AWAIT_RESPONSE,  # a repeated ACK
    (_S.AWAIT_RESPONSE, _T.DAMAGED): _S.AWAIT_RESPONSE,  # NACK sent, or resent
    (_S.AWAIT_RESPONSE, _T.NACK): _S.AWAIT_ACK,  # resent
    (_S.AWAIT_RESPONSE, _T.ERROR): _S.AWAIT_ACK,  # resent
    (_S.AWAIT_RESPONSE, _T.TIMEOUT): _S.AWAIT_ACK,  # aborted and resent
}
for _state in (_S.IDLE, _S.AWAIT_ACK, _S.AWAIT_RESPONSE):
    TRANSITIONS[(_state, _T.LOST)] = _S.CLOSED
    TRANSITIONS[(_state, _T.OPENED)] = _S.AWAIT_ACK
del _state


@dataclass(frozen=True, slots=True)
class Pn532Firmware(DeviceEvent):
    """The GetFirmwareVersion answer (§7.2.2): IC ``0x32``, version, revision, support flags."""

    ic: int
    version: int
    revision: int
    support: int


@dataclass(slots=True)
class _Exchange:
    command: int
    params: bytes
    sent_at: float = 0.0
    deadline: float = 0.0
    nacks: int = 0


class Pn532Poller:
    """Host side of a PN532 on HSU (implements the serial driver's stream protocol).

    :param poll_interval: seconds from one poll's response to the next poll.
    :param ack_timeout: seconds to wait for the ACK frame.
    :param response_timeout: seconds to wait for the response after the ACK.
    :param absent_polls: polls without a target after which the card counts as removed.
    :param passive_retries: MxRtyPassiveActivation, activation attempts per poll (0..254).
    :param max_nacks: NACKs sent for one damaged response before the command is resent.
    :param rewake_after: failed exchanges in a row after which the wake-up is sent again.
    :param lost_after: failed exchanges in a row after which the reader is reported lost.
    :param stamp_ms: give each :class:`CardDrawn` the host's clock in ms as ``shoe_ms``
        (``None`` otherwise: the PN532 has no clock of its own).
    """

    def __init__(
        self,
        *,
        poll_interval: float = 0.05,
        ack_timeout: float = 0.1,
        response_timeout: float = 1.0,
        absent_polls: int = 1,
        passive_retries: int = 1,
        max_nacks: int = 2,
        rewake_after: int = 3,
        lost_after: int = 5,
        stamp_ms: bool = False,
    ) -> None:
        if absent_polls < 1 or not 0 <= passive_retries <= 0xFE:
            raise ValueError("absent_polls must be >= 1 and passive_retries 0..254")
        self.poll_interval = poll_interval
        self.ack_timeout = ack_timeout
        self.response_timeout = response_timeout
        self.absent_polls = absent_polls
        self.passive_retries = passive_retries
        self.max_nacks = max_nacks
        self.rewake_after = rewake_after
        self.lost_after = lost_after
        self.stamp_ms = stamp_ms
        self._decoder = FrameDecoder()
        self._queue: deque[_Exchange] = deque()
        self._current: _Exchange | None = None
        self._out: list[bytes] = []
        self._next_poll = 0.0
        self._failures = 0
        self._absent = 0
        self._silent_reported = False
        self.poll_state = PollState.CLOSED
        self.present: str | None = None
        self.firmware: Pn532Firmware | None = None
        self.polls = 0
        # StreamProtocol health counters
        self.state = LinkState.WAITING
        self.last_frame_at: float | None = None
        self.frames = 0
        self.bad_frames = 0
        self.retransmissions = 0
        self.duplicates = 0
        self.lost_frames = 0

    # -- StreamProtocol ------------------------------------------------------------------------

    def reset(self, now: float) -> None:
        """Start over after the port was (re)opened: wake the PN532 and configure it."""
        self._decoder.reset()
        self._out.clear()
        self._fire(Trigger.OPENED)
        self._start_up(now)
        if self.state is not LinkState.LOST:
            self.state = LinkState.WAITING

    def mark_lost(self) -> None:
        """Record that the port failed (the driver reports the loss itself)."""
        self._fire(Trigger.LOST)
        self._current = None
        self._queue.clear()
        self.state = LinkState.LOST

    def take_outgoing(self) -> bytes:
        """Return the bytes to write to the PN532 now."""
        data = b"".join(self._out)
        self._out.clear()
        return data

    def feed(self, data: bytes, now: float) -> list[DeviceEvent]:
        """Parse bytes received at ``now``; return events in arrival order."""
        events: list[DeviceEvent] = []
        for item in self._decoder.feed(data):
            if isinstance(item, LineNoise):
                self.bad_frames += 1
                events.append(item)
            elif isinstance(item, BadFrame):
                self.bad_frames += 1
                events.append(item)
                self._damaged(now)
            else:
                self.frames += 1
                self._heard(now, events)
                if isinstance(item, Ack):
                    self._ack(now)
                elif isinstance(item, Nack):
                    self._resend_on(Trigger.NACK, now)
                elif isinstance(item, ErrorFrame):
                    events.append(BadFrame("the PN532 reported a syntax error in a command"))
                    self._resend_on(Trigger.ERROR, now)
                else:
                    self._info(item, now, events)
        return events

    def next_deadline(self) -> float | None:
        """Return when :meth:`tick` next has something to do (``None``: never).

        The current exchange's timeout while one is under way, else the next poll (or now,
        when commands are queued); ``None`` while the port is closed or lost.
        """
        if self.poll_state in (PollState.AWAIT_ACK, PollState.AWAIT_RESPONSE):
            return self._current.deadline if self._current is not None else None
        if self.poll_state is PollState.IDLE:
            return 0.0 if self._queue else self._next_poll
        return None

    def tick(self, now: float) -> list[DeviceEvent]:
        """Run timers at ``now``: resend after a timeout, send the next command when due."""
        events: list[DeviceEvent] = []
        ex = self._current
        if self.poll_state in (PollState.AWAIT_ACK, PollState.AWAIT_RESPONSE):
            if ex is not None and now >= ex.deadline:
                self._timeout(ex, now, events)
        elif self.poll_state is PollState.IDLE and (self._queue or now >= self._next_poll):
            self._send_next(now)
        return events

    # -- state machine -------------------------------------------------------------------------

    def _fire(self, trigger: Trigger) -> PollState:
        key = (self.poll_state, trigger)
        if key not in TRANSITIONS:
            raise ProtocolError(f"PN532 poller: no transition for {trigger.value} in "
                                f"{self.poll_state.value}")
        self.poll_state = TRANSITIONS[key]
        return self.poll_state

    def _start_up(self, now: float) -> None:
        self._queue.clear()
        retries = bytes([RF_MAX_RETRIES, 0xFF, 0x01, self.passive_retries])
        self._queue.extend([
            _Exchange(Command.SAM_CONFIGURATION, SAM_NORMAL),
            _Exchange(Command.GET_FIRMWARE_VERSION, b""),
            _Exchange(Command.RF_CONFIGURATION, retries),
        ])
        self._current = self._queue.popleft()
        self._write(self._current, now, wake=True)

    def _send_next(self, now: float) -> None:
        self._fire(Trigger.SEND)
        ex = self._queue.popleft() if self._queue else _Exchange(
            Command.IN_LIST_PASSIVE_TARGET, POLL_TYPE_A)
        self._current = ex
        self._write(ex, now)

    def _write(self, ex: _Exchange, now: float, *, wake: bool = False) -> None:
        ex.sent_at = now
        ex.deadline = now + self.ack_timeout
        ex.nacks = 0
        if ex.command == Command.IN_LIST_PASSIVE_TARGET:
            self.polls += 1
        self._out.append((WAKEUP if wake else b"") + encode_command(ex.command, ex.params))

    def _resend(self, now: float, *, abort: bool = False) -> None:
        ex = self._current
        if ex is None:
            return
        self.retransmissions += 1
        if abort:
            self._out.append(ACK_FRAME)  # §6.2.2: an ACK from the host aborts the command
        wake = ex.command == Command.SAM_CONFIGURATION
        self._write(ex, now, wake=wake)

    def _ack(self, now: float) -> None:
        was = self.poll_state
        self._fire(Trigger.ACK)
        if was is PollState.AWAIT_ACK and self._current is not None:
            self._current.deadline = now + self.response_timeout
        elif was is PollState.IDLE:
            self.duplicates += 1

    def _resend_on(self, trigger: Trigger, now: float) -> None:
        was = self.poll_state
        self._fire(trigger)
        if was is not PollState.IDLE:
            self._resend(now)

    def _damaged(self, now: float) -> None:
        was = self.poll_state
        self._fire(Trigger.DAMAGED)
        ex = self._current
        if was is not PollState.AWAIT_RESPONSE or ex is None:
            return
        if ex.nacks < self.max_nacks:
            ex.nacks += 1
            ex.deadline = now + self.response_timeout
            self._out.append(NACK_FRAME)  # §6.2.2: the PN532 sends its response again
        else:
            self._resend(now)

    def _timeout(self, ex: _Exchange, now: float, events: list[DeviceEvent]) -> None:
        aborting = self.poll_state is PollState.AWAIT_RESPONSE
        self._fire(Trigger.TIMEOUT)
        self._failures += 1
        if self._failures >= self.lost_after and not self._silent_reported:
            self._silent_reported = True
            self.state = LinkState.LOST
            events.append(DeviceLost(
                f"PN532 did not answer {self._failures} commands in a row "
                f"(last: 0x{ex.command:02X})"))
        if self._failures % self.rewake_after == 0 and ex.command != Command.SAM_CONFIGURATION:
            self.retransmissions += 1
            if aborting:
                self._out.append(ACK_FRAME)
            self._start_up(now)  # it may have lost power: wake and configure it again
            return
        self._resend(now, abort=aborting)

    def _heard(self, now: float, events: list[DeviceEvent]) -> None:
        self.last_frame_at = now
        if self._silent_reported:  # a port loss is the driver's to report, and to recover
            self._silent_reported = False
            events.append(DeviceRecovered("the PN532 answers again"))
        self.state = LinkState.OK

    def _info(self, frame: InfoFrame, now: float, events: list[DeviceEvent]) -> None:
        ex = self._current
        if frame.tfi != TFI_PN532:
            self.bad_frames += 1
            events.append(BadFrame("a host frame (TFI D4) came from the reader", frame.data[:32]))
            return
        if ex is None or self.poll_state is PollState.IDLE or frame.code != ex.command + 1:
            self.duplicates += 1  # a repeat, or a late answer to an aborted command
            return
        self._fire(Trigger.RESPONSE)
        self._current = None
        self._failures = 0
        self._handle_response(ex.command, frame.data[1:], now, events)
        if self._queue:
            self._send_next(now)
        else:
            self._next_poll = now + self.poll_interval

    def _handle_response(
        self, command: int, params: bytes, now: float, events: list[DeviceEvent]
    ) -> None:
        if command == Command.GET_FIRMWARE_VERSION:
            if len(params) != 4:
                events.append(BadFrame(f"GetFirmwareVersion answer of {len(params)} bytes, "
                                       f"expected 4", params))
                return
            self.firmware = Pn532Firmware(*params)
            events.append(self.firmware)
        elif command == Command.IN_LIST_PASSIVE_TARGET:
            targets = parse_targets(params)
            if isinstance(targets, str):
                self.bad_frames += 1
                events.append(BadFrame(f"InListPassiveTarget answer: {targets}", params[:32]))
                return
            self._observe(targets[0].uid if targets else None, now, events)

    def _observe(self, uid: str | None, now: float, events: list[DeviceEvent]) -> None:
        if uid is None:
            self._absent += 1
            if self._absent >= self.absent_polls:
                self.present = None
            return
        self._absent = 0
        if uid != self.present:
            self.present = uid
            shoe_ms = int(now * 1000) if self.stamp_ms else None
            events.append(CardDrawn(uid, shoe_ms, now))
