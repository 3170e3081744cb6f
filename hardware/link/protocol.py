"""The reference link protocol, sans-IO: COBS frames with a CRC-16, ACK/NAK, heartbeats.

Wire format (see ``docs/protocol.md`` for byte-level examples)::

    0x00 | COBS( version u8 | type u8 | flags u8 | seq u16 | length u16 | payload | crc u16 ) | 0x00

All integers are big-endian. The CRC is CRC-16/CCITT-FALSE (``binascii.crc_hqx(data, 0xFFFF)``)
over header and payload. A frame starts *and* ends with the 0x00 delimiter, so garbage on the line
before a frame is cut off by the leading delimiter instead of spoiling the frame.

Rules this module keeps:

1. Nothing here does I/O, reads a clock or raises on bad input: bytes and ``now`` come in, frames
   and events go out; bad bytes become :class:`~hardware.base.BadFrame` with a reason.
2. The receive buffer is bounded (:data:`MAX_ENCODED`); a run of bytes with no delimiter past
   the bound is reported once and discarded up to the next delimiter (resync).
3. Reliable delivery is go-back-N from device to host: every data frame carries a sequence number;
   the host accepts only the next expected one, answers with a cumulative ``ACK(seq)``, asks for
   the rest with ``NAK(expected)`` after a corrupt frame or a gap, and drops duplicates (re-ACKing
   them so the device stops resending). HEARTBEAT, HELLO, ACK and NAK are not sequenced.
   Until the host knows which sequence number comes next (after it starts or reopens the port)
   it drops data frames and answers any frame with an empty NAK; the device replies with HELLO
   (boot id, first unacknowledged sequence number) and resends what is pending. A HELLO from the
   same boot never moves the host backwards, so nothing is delivered twice across a reconnect;
   one that moves it forwards means the device dropped frames (its buffer overflowed), reported
   as :class:`~hardware.base.FramesLost`.
4. Silence is told from death by heartbeats: after ``stale_after`` seconds without any frame the
   link is *stale*, after ``lost_after`` it is *lost*; the next good frame recovers it. Each
   transition is reported once.
"""

from __future__ import annotations

import struct
from binascii import crc_hqx
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum, IntEnum
from functools import lru_cache
from typing import Protocol

from cobs import cobs

from hardware.base import (
    BadFrame,
    DeviceEvent,
    DeviceHello,
    DeviceLost,
    DeviceRecovered,
    DuplicateFrame,
    FramesLost,
    LinkStale,
    Retransmission,
    SequenceGap,
)
from table_controller.errors import ProtocolError

VERSION = 1
HEADER = struct.Struct(">BBBHH")
CRC = struct.Struct(">H")
U16 = struct.Struct(">H")
HELLO = struct.Struct(">BHIH")
HEADER_SIZE = HEADER.size
OVERHEAD = HEADER.size + CRC.size
MAX_PAYLOAD = 1024
#: Longest COBS-encoded frame (without delimiters) a decoder accepts before discarding.
MAX_ENCODED = (OVERHEAD + MAX_PAYLOAD) + (OVERHEAD + MAX_PAYLOAD) // 254 + 2
FLAG_RETRANSMIT = 0x01
DELIMITER = b"\x00"
SEQ_MOD = 0x10000
#: Seconds a device waits for an ACK before resending (the protocol's timeout, firmware and
#: simulators alike). A NAK repairs a corrupt or missing frame at once; the timeout only covers
#: a frame lost at the tail and a lost ACK, so it is long enough for a host that journals
#: before acknowledging on a busy machine (a saturated 2-core host took over 0.2 s now and
#: then), and short enough that a lost ACK costs one second.
RETRANSMIT_AFTER = 1.0
_cobs_encode: Callable[[bytes], bytes] = cobs.encode
_cobs_decode: Callable[[bytes], bytes] = cobs.decode
_CobsError: type[Exception] = cobs.DecodeError
_unpack_header = HEADER.unpack_from


class MsgType(IntEnum):
    """Message types. 0x0_ link, 0x1_ shoe, 0x2_ chip sensors; host commands at 0x_8 and up."""

    ACK = 0x01
    NAK = 0x02
    HEARTBEAT = 0x03
    HELLO = 0x04
    CARD_DRAWN = 0x10
    SHOE_STATUS = 0x11
    DECK_SCAN = 0x12
    SHOE_REQUEST_STATUS = 0x18
    SHOE_REQUEST_SCAN = 0x19
    ZONE_REPORT = 0x20
    TRAY_INVENTORY = 0x21
    SENSOR_STATUS = 0x22
    SENSOR_ERROR = 0x23
    CHIPS_REQUEST_REPORT = 0x28


#: Types that carry no sequence number semantics (never ACKed, never retransmitted).
UNSEQUENCED = frozenset({MsgType.ACK, MsgType.NAK, MsgType.HEARTBEAT, MsgType.HELLO})
# plain ints for the per-frame path (an IntEnum attribute lookup costs more than a global)
_HELLO, _HEARTBEAT = int(MsgType.HELLO), int(MsgType.HEARTBEAT)


@dataclass(frozen=True, slots=True)
class Frame:
    """One decoded, CRC-checked frame."""

    type: int
    seq: int
    payload: bytes
    flags: int = 0

    @property
    def retransmitted(self) -> bool:
        """True if the sender marked this frame as a retransmission."""
        return bool(self.flags & FLAG_RETRANSMIT)


def encode_frame(msg_type: int, seq: int, payload: bytes = b"", flags: int = 0) -> bytes:
    """Encode one frame with both delimiters.

    >>> encode_frame(MsgType.ACK, 0, bytes([0x00, 0x07])).hex(" ")
    '00 03 01 01 01 01 01 02 02 04 07 aa 05 00'

    :raises ProtocolError: if the payload exceeds :data:`MAX_PAYLOAD`.
    """
    if len(payload) > MAX_PAYLOAD:
        raise ProtocolError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    body = HEADER.pack(VERSION, msg_type, flags, seq % SEQ_MOD, len(payload)) + payload
    return b"\x00" + _cobs_encode(body + CRC.pack(crc_hqx(body, 0xFFFF))) + b"\x00"


@lru_cache(maxsize=256)
def _ack_frame(seq: int) -> bytes:
    """Return the ``ACK(seq)`` frame (cached: the host sends one per data frame)."""
    return encode_frame(MsgType.ACK, 0, U16.pack(seq))


def decode_body(chunk: bytes) -> Frame | BadFrame:
    """Decode one COBS chunk (delimiters removed) into a frame, or say why it is bad."""
    try:
        body = _cobs_decode(chunk)
    except _CobsError as exc:
        return BadFrame(f"COBS decoding failed: {exc}", chunk[:32])
    size = len(body)
    if size < OVERHEAD:
        return BadFrame(f"frame too short: {size} bytes, minimum {OVERHEAD}", chunk[:32])
    # CRC-16/CCITT-FALSE (no reflection, no final XOR) over a body followed by its own CRC,
    # big-endian, is 0: one pass, no copy of the body without its CRC
    if crc_hqx(body, 0xFFFF):
        got = (body[-2] << 8) | body[-1]
        calc = crc_hqx(body[:-2], 0xFFFF)
        return BadFrame(f"CRC mismatch: frame says 0x{got:04X}, computed 0x{calc:04X}", chunk[:32])
    version, msg_type, flags, seq, length = _unpack_header(body)
    if version != VERSION:
        return BadFrame(f"unsupported protocol version {version} (expected {VERSION})", chunk[:32])
    if length != size - OVERHEAD:
        return BadFrame(
            f"length field says {length} bytes but the payload has {size - OVERHEAD}",
            chunk[:32],
        )
    return Frame(msg_type, seq, body[HEADER_SIZE:-2], flags)


class FrameDecoder:
    """Split a byte stream on 0x00 and decode each chunk; bounded, resynchronising.

    >>> d = FrameDecoder()
    >>> wire = encode_frame(MsgType.HEARTBEAT, 0, bytes(4))
    >>> [bad.reason for bad in d.feed(b"junk" + wire[:5])]
    ['COBS decoding failed: not enough input bytes for length code']
    >>> [frame.type == MsgType.HEARTBEAT for frame in d.feed(wire[5:])]
    [True]
    """

    def __init__(self, max_encoded: int = MAX_ENCODED) -> None:
        self._buf = b""
        self._max = max_encoded
        self._discarding = False

    @property
    def buffered(self) -> int:
        """Bytes held waiting for a delimiter."""
        return len(self._buf)

    def reset(self) -> None:
        """Forget any partial frame (after a reconnect)."""
        self._buf = b""
        self._discarding = False

    def feed(self, data: bytes) -> list[Frame | BadFrame]:
        """Add bytes; return every frame (or bad frame) completed by them."""
        if (
            not self._buf
            and data[:1] == DELIMITER
            and data[-1:] == DELIMITER
            and data.count(0) == 2
            and len(data) <= self._max + 2
        ):
            # the common read: one whole frame, nothing buffered (the general path below
            # gives the same answer)
            self._discarding = False
            return [decode_body(data[1:-1])] if len(data) > 2 else []
        out: list[Frame | BadFrame] = []
        if 0 not in data:
            if self._discarding:
                return out
            self._buf += data
            if len(self._buf) > self._max:
                out.append(self._overflow())
            return out
        chunks = (self._buf + data).split(b"\x00")
        self._buf = chunks.pop()
        if self._discarding:
            self._discarding = False
            chunks[0] = b""
        for chunk in chunks:
            if chunk:
                if len(chunk) > self._max:
                    out.append(BadFrame(f"frame of {len(chunk)} bytes exceeds {self._max}"))
                else:
                    out.append(decode_body(chunk))
        if len(self._buf) > self._max:
            out.append(self._overflow())
        return out

    def _overflow(self) -> BadFrame:
        size = len(self._buf)
        head = self._buf[:32]
        self._buf = b""
        self._discarding = True
        return BadFrame(f"no delimiter within {size} bytes; discarded up to the next one", head)


class LinkState(Enum):
    """Host-side view of the link."""

    WAITING = "waiting"
    OK = "ok"
    STALE = "stale"
    LOST = "lost"


PayloadDecoder = Callable[[Frame, float], list[DeviceEvent]]


class HostLink:
    """Host side of the reference link: frames in, typed events out, ACK/NAK bytes to send back.

    :param decode: turns an accepted data frame into events (device specific); it must not raise.
    :param heartbeat_interval: the device's heartbeat period in seconds.
    :param stale_after_missed: heartbeats missed before the link is stale.
    :param lost_after_missed: heartbeats missed before the device is reported lost.
    :param nak_interval: minimum seconds between two NAKs for the same missing frame.
    """

    def __init__(
        self,
        decode: PayloadDecoder,
        *,
        heartbeat_interval: float = 0.5,
        stale_after_missed: int = 2,
        lost_after_missed: int = 6,
        nak_interval: float = 0.05,
    ) -> None:
        self._decode = decode
        self._decoder = FrameDecoder()
        self.heartbeat_interval = heartbeat_interval
        self.stale_after = heartbeat_interval * (stale_after_missed + 1)
        self.lost_after = heartbeat_interval * (lost_after_missed + 1)
        self._nak_interval = nak_interval
        self._expected: int | None = None
        self._known: int | None = None
        self._boot_id: int | None = None
        self._nak_for: int | None = None
        self._nak_at = float("-inf")
        self._out: list[bytes] = []
        self._host_seq = 0
        self._since = 0.0
        self.state = LinkState.WAITING
        self.last_frame_at: float | None = None
        self.frames = 0
        self.bad_frames = 0
        self.retransmissions = 0
        self.duplicates = 0
        self.lost_frames = 0

    def reset(self, now: float) -> None:
        """Start over after (re)opening the port: no partial frame, no sequence sync yet."""
        self._decoder.reset()
        if self._expected is not None:
            self._known = self._expected
        self._expected = None
        self._nak_for = None
        self._nak_at = float("-inf")
        self._out.clear()
        self._since = now
        self.state = LinkState.WAITING

    def take_outgoing(self) -> bytes:
        """Bytes the host should write to the device now (ACK/NAK/commands)."""
        if not self._out:
            return b""
        data = b"".join(self._out)
        self._out.clear()
        return data

    def command(self, msg_type: int, payload: bytes = b"") -> bytes:
        """Encode a host command (unacknowledged, idempotent request)."""
        self._host_seq = (self._host_seq + 1) % SEQ_MOD
        return encode_frame(msg_type, self._host_seq, payload)

    def feed(self, data: bytes, now: float) -> list[DeviceEvent]:
        """Parse bytes received at ``now``; queue ACK/NAK; return events in arrival order."""
        items = self._decoder.feed(data)
        if not items:
            return []
        events: list[DeviceEvent] = []
        ack: int | None = None
        nak = False
        for item in items:
            if isinstance(item, BadFrame):
                self.bad_frames += 1
                events.append(item)
                nak = True
                continue
            self.frames += 1
            self.last_frame_at = self._since = now
            if self.state is not LinkState.OK:
                self._heard(events)
            t = item.type
            if t in UNSEQUENCED:
                if t == _HELLO:
                    self._hello(item, events)
                elif t != _HEARTBEAT:
                    self.bad_frames += 1
                    events.append(BadFrame(f"unexpected {MsgType(t).name} from the device"))
                elif self._expected is None:
                    nak = True
                continue
            if self._expected is None:
                nak = True
                continue
            seq = item.seq
            diff = (seq - self._expected) % SEQ_MOD
            if diff == 0:
                if item.flags & FLAG_RETRANSMIT:
                    self.retransmissions += 1
                    events.append(Retransmission(seq, dropped=False))
                self._expected = (seq + 1) % SEQ_MOD
                self._nak_for = None
                ack = seq
                events.extend(self._decode(item, now))
            elif diff < SEQ_MOD // 2:
                events.append(SequenceGap(self._expected, seq))
                nak = True
            else:
                self.duplicates += 1
                if item.flags & FLAG_RETRANSMIT:
                    self.retransmissions += 1
                    events.append(Retransmission(seq, dropped=True))
                else:
                    events.append(DuplicateFrame(seq))
                ack = (self._expected - 1) % SEQ_MOD
        if nak and self._may_nak(now):
            self._out.append(self._nak())
        elif ack is not None:
            self._out.append(_ack_frame(ack))
        return events

    def tick(self, now: float) -> list[DeviceEvent]:
        """Check heartbeats at ``now``; report a stale or lost link once per transition."""
        silent = now - self._since
        if silent >= self.lost_after and self.state is not LinkState.LOST:
            self.state = LinkState.LOST
            return [DeviceLost(f"no frame or heartbeat for {silent:.2f} s")]
        if silent >= self.stale_after and self.state in (LinkState.OK, LinkState.WAITING):
            self.state = LinkState.STALE
            return [LinkStale(round(silent, 3))]
        return []

    def next_deadline(self) -> float | None:
        """Return when :meth:`tick` next has something to report (``None``: never).

        The link goes stale ``stale_after`` seconds after the last frame and lost
        ``lost_after`` seconds after it; a frame heard since moves both later.
        """
        if self.state is LinkState.LOST:
            return None
        if self.state is LinkState.STALE:
            return self._since + self.lost_after
        return self._since + self.stale_after

    def mark_lost(self) -> None:
        """Record that the port failed (the driver reports the loss itself)."""
        self.state = LinkState.LOST

    def _heard(self, events: list[DeviceEvent]) -> None:
        """Mark the link OK after silence or before sync (recovered, if it was stale or lost)."""
        if self.state in (LinkState.STALE, LinkState.LOST):
            events.append(DeviceRecovered(f"frames again after {self.state.value} link"))
        self.state = LinkState.OK

    def _hello(self, frame: Frame, events: list[DeviceEvent]) -> None:
        if len(frame.payload) != HELLO.size:
            self.bad_frames += 1
            events.append(BadFrame(f"HELLO payload of {len(frame.payload)} bytes, want 9"))
            return
        kind, firmware, boot_id, first = HELLO.unpack(frame.payload)
        ref = self._expected if self._expected is not None else self._known
        if boot_id == self._boot_id and ref is not None:
            if 0 < (first - ref) % SEQ_MOD < SEQ_MOD // 2:
                self.lost_frames += (first - ref) % SEQ_MOD
                events.append(FramesLost(ref, first))
                self._expected = first
            else:
                self._expected = ref
        else:
            self._expected = first
        self._boot_id = boot_id
        self._nak_for = None
        events.append(DeviceHello(kind, firmware, boot_id))

    def _may_nak(self, now: float) -> bool:
        if self._nak_for == self._expected and now - self._nak_at < self._nak_interval:
            return False
        self._nak_for = self._expected
        self._nak_at = now
        return True

    def _nak(self) -> bytes:
        payload = b"" if self._expected is None else U16.pack(self._expected)
        return encode_frame(MsgType.NAK, 0, payload)


@dataclass(slots=True)
class _Pending:
    seq: int
    msg_type: int
    payload: bytes
    sent_at: float


class DeviceLink:
    """Device side of the reference link (firmware behaviour, used by the simulators).

    Sequenced frames are kept until ACKed; ``NAK(n)`` acknowledges everything before ``n`` and
    resends the rest at once; anything unacknowledged after ``retransmit_after`` seconds is resent
    (go-back-N). Resent frames carry :data:`FLAG_RETRANSMIT`. At most ``window`` frames wait for
    an acknowledgement; past that the oldest is discarded (counted in ``overflowed``) and the host
    learns of it from the next HELLO.
    """

    def __init__(
        self,
        *,
        kind: int = 0,
        firmware: int = 1,
        boot_id: int = 1,
        retransmit_after: float = RETRANSMIT_AFTER,
        window: int = 1024,
    ) -> None:
        self.kind = kind
        self.firmware = firmware
        self.boot_id = boot_id
        self.retransmit_after = retransmit_after
        self.window = window
        self.next_seq = 1
        self.pending: list[_Pending] = []
        self._decoder = FrameDecoder()
        self.retransmitted = 0
        self.overflowed = 0

    def hello(self) -> bytes:
        """Encode the HELLO frame naming the first sequence number the host should expect."""
        first = self.pending[0].seq if self.pending else self.next_seq
        payload = HELLO.pack(self.kind, self.firmware, self.boot_id, first)
        return encode_frame(MsgType.HELLO, 0, payload)

    def send(self, msg_type: int, payload: bytes, now: float) -> bytes:
        """Encode a sequenced frame and keep it until acknowledged."""
        seq = self.next_seq
        self.next_seq = (seq + 1) % SEQ_MOD
        self.pending.append(_Pending(seq, msg_type, payload, now))
        if len(self.pending) > self.window:
            self.pending.pop(0)
            self.overflowed += 1
        return encode_frame(msg_type, seq, payload)

    def unsequenced(self, msg_type: int, payload: bytes = b"") -> bytes:
        """Encode a frame that is never acknowledged (heartbeat)."""
        return encode_frame(msg_type, 0, payload)

    def feed(self, data: bytes, now: float) -> tuple[list[Frame], list[bytes]]:
        """Handle host bytes: apply ACK/NAK; return (host commands, frames to resend now)."""
        commands: list[Frame] = []
        resend: list[bytes] = []
        for item in self._decoder.feed(data):
            if isinstance(item, BadFrame):
                continue
            if item.type == MsgType.ACK and len(item.payload) == 2:
                self._ack_through(U16.unpack(item.payload)[0])
            elif item.type == MsgType.NAK:
                if len(item.payload) == 2:
                    self._ack_through((U16.unpack(item.payload)[0] - 1) % SEQ_MOD)
                else:
                    resend.append(self.hello())
                resend.extend(self._resend_all(now))
            else:
                commands.append(item)
        return commands, resend

    def poll(self, now: float) -> list[bytes]:
        """Frames whose acknowledgement timed out, resent (go-back-N)."""
        if self.pending and now - self.pending[0].sent_at >= self.retransmit_after:
            return self._resend_all(now)
        return []

    def _ack_through(self, seq: int) -> None:
        keep = [p for p in self.pending if (seq - p.seq) % SEQ_MOD >= SEQ_MOD // 2]
        self.pending = keep

    def _resend_all(self, now: float) -> list[bytes]:
        out = []
        for p in self.pending:
            p.sent_at = now
            self.retransmitted += 1
            out.append(encode_frame(p.msg_type, p.seq, p.payload, FLAG_RETRANSMIT))
        return out


class StreamProtocol(Protocol):
    """What a serial driver needs from a sans-IO protocol (reference link or line reader)."""

    state: LinkState
    last_frame_at: float | None
    frames: int
    bad_frames: int
    retransmissions: int
    duplicates: int
    lost_frames: int

    def feed(self, data: bytes, now: float) -> list[DeviceEvent]:
        """Parse bytes received at ``now``."""
        ...

    def tick(self, now: float) -> list[DeviceEvent]:
        """Run timers at ``now``."""
        ...

    def next_deadline(self) -> float | None:
        """Return when :meth:`tick` next has something to do (``None``: never)."""
        ...

    def take_outgoing(self) -> bytes:
        """Return the bytes to write to the device now."""
        ...

    def reset(self, now: float) -> None:
        """Start over after the port was (re)opened at ``now``."""
        ...

    def mark_lost(self) -> None:
        """Record that the port failed."""
        ...
