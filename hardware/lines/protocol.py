r"""Line-oriented RFID reader formats, sans-IO.

Two configurable formats:

- ``reader``: ``<prefix><hex UID><CR LF>``, e.g. ``READER|04A1B2C3D4\r\n`` (prefix configurable,
  may be empty; the CR is optional). The UID is 4 to 10 bytes of hex.
- ``id12``: the ID-12/ID-20 style ``STX`` + 10 hex digits (5 bytes) + 2 hex digits of checksum
  (XOR of the 5 bytes) + ``CR LF ETX``.

These readers have no sequence numbers, no CRC worth the name and no heartbeat: a silent reader is
not a lost one, so :meth:`LineReaderProtocol.tick` reports nothing, and a reader's repeats are
left to :class:`hardware.shoe.resolver.TagResolver`.

Rules: never raises on input; every unusable line or frame becomes a
:class:`~hardware.base.BadFrame` naming it (ID-12: a run of damaged frames, each starting one
byte after the last, is one, naming the first and how many followed); buffers are bounded
(``max_line``), and an overlong run is reported once and discarded up to the next terminator.

>>> p = LineReaderProtocol("reader")
>>> p.feed(b"READER|04a1b2c3d4\r\nREAD", now=1.0)
[CardDrawn(uid='04A1B2C3D4', shoe_ms=None, at=1.0)]
>>> p.feed(b"ER|0102030405\r\n", now=2.0)
[CardDrawn(uid='0102030405', shoe_ms=None, at=2.0)]
>>> LineReaderProtocol("id12").feed(encode_id12("0102030405"), now=3.0)
[CardDrawn(uid='0102030405', shoe_ms=None, at=3.0)]
"""

from __future__ import annotations

import re
from functools import reduce

from hardware.base import BadFrame, CardDrawn, DeviceEvent
from hardware.link.protocol import LinkState
from table_controller.errors import ConfigError

FORMATS = ("reader", "id12")
STX, ETX, CR, LF = 0x02, 0x03, 0x0D, 0x0A
ID12_LEN = 16
_HEX_UID = re.compile(rb"(?:[0-9A-Fa-f]{2}){4,10}")
#: An ID-12 frame's shape (its checksum aside).
_ID12_SHAPE = re.compile(rb"\x02[0-9A-Fa-f]{12}\r\n\x03")


def encode_reader_line(uid: str, prefix: str = "READER|") -> bytes:
    """Encode one ``reader``-format line (device side)."""
    return f"{prefix}{uid.upper()}\r\n".encode("ascii")


def id12_checksum(uid: str) -> int:
    """XOR of the UID's bytes (the ID-12 checksum)."""
    return reduce(lambda a, b: a ^ b, bytes.fromhex(uid), 0)


def encode_id12(uid: str) -> bytes:
    """Encode one ID-12 frame (device side).

    :raises ValueError: unless the UID is exactly 5 bytes of hex.
    """
    if len(bytes.fromhex(uid)) != 5:
        raise ValueError(f"an ID-12 UID is 5 bytes, got {uid!r}")
    text = f"{uid.upper()}{id12_checksum(uid):02X}".encode("ascii")
    return bytes([STX]) + text + bytes([CR, LF, ETX])


class LineReaderProtocol:
    """Host side of a line-printing RFID reader (implements the driver's stream protocol).

    :param fmt: ``"reader"`` or ``"id12"``.
    :param prefix: for ``reader``: the text before the UID.
    :param max_line: longest line kept before it is reported and discarded.
    :raises ConfigError: for an unknown format.
    """

    def __init__(self, fmt: str = "reader", *, prefix: str = "READER|", max_line: int = 80) -> None:
        if fmt not in FORMATS:
            raise ConfigError(f"unknown line-reader format {fmt!r} (known: {', '.join(FORMATS)})")
        self.fmt = fmt
        self.prefix = prefix.encode("ascii")
        self.max_line = max_line
        self._buf = b""
        self._discarding = False
        self.state = LinkState.WAITING
        self.last_frame_at: float | None = None
        self.frames = 0
        self.bad_frames = 0
        self.retransmissions = 0
        self.duplicates = 0
        self.lost_frames = 0

    def reset(self, now: float) -> None:
        """Forget a partial line after the port was reopened."""
        self._buf = b""
        self._discarding = False
        self.state = LinkState.WAITING

    def mark_lost(self) -> None:
        """Record that the port failed."""
        self.state = LinkState.LOST

    def take_outgoing(self) -> bytes:
        """Return nothing: these readers take no acknowledgements."""
        return b""

    def tick(self, now: float) -> list[DeviceEvent]:
        """Return nothing: a silent reader is normal."""
        return []

    def next_deadline(self) -> float | None:
        """Return ``None``: these readers have no timers."""
        return None

    def feed(self, data: bytes, now: float) -> list[DeviceEvent]:
        """Parse bytes received at ``now`` into :class:`CardDrawn` or :class:`BadFrame` events."""
        feed = self._feed_lines if self.fmt == "reader" else self._feed_id12
        events = feed(data, now)
        for e in events:
            if isinstance(e, BadFrame):
                self.bad_frames += 1
            else:
                self.frames += 1
                self.last_frame_at = now
                self.state = LinkState.OK
        return events

    def _feed_lines(self, data: bytes, now: float) -> list[DeviceEvent]:
        out: list[DeviceEvent] = []
        buf = self._buf + data
        lines = buf.split(b"\n")
        self._buf = lines.pop()
        for line in lines:
            if self._discarding:
                self._discarding = False
                continue
            line = line.rstrip(b"\r")
            if not line.strip():
                continue
            out.append(self._parse_line(line, now))
        if len(self._buf) > self.max_line:
            out.append(BadFrame(f"no line end within {len(self._buf)} bytes; discarded",
                                self._buf[:32]))
            self._buf = b""
            self._discarding = True
        return out

    def _parse_line(self, line: bytes, now: float) -> DeviceEvent:
        if not line.startswith(self.prefix):
            return BadFrame(f"line does not start with {self.prefix.decode()!r}", line[:32])
        body = line[len(self.prefix) :].strip()
        if not _HEX_UID.fullmatch(body):
            return BadFrame(f"not a tag UID (4 to 10 bytes of hex): {body[:32]!r}", line[:32])
        return CardDrawn(body.decode("ascii").upper(), None, now)

    def _feed_id12(self, data: bytes, now: float) -> list[DeviceEvent]:
        out: list[DeviceEvent] = []
        buf = self._buf + data
        at = 0  # scanned up to here (an index, not a copy per byte: a run of STX stays linear)
        damaged, first_bad = 0, BadFrame("")  # a run of damaged frames is one bad frame
        while True:
            start = buf.find(STX, at)
            if start < 0:
                rest = buf[at:]
                if rest.strip(b"\r\n\x03"):
                    out.append(BadFrame(f"{len(rest)} bytes outside an STX frame", rest[:32]))
                at = len(buf)
                break
            junk = buf[at:start]
            if junk.strip(b"\r\n\x03"):
                self._end_run(out, damaged, first_bad)
                damaged = 0
                out.append(BadFrame(f"{start - at} bytes outside an STX frame", junk[:32]))
            at = start
            if len(buf) - at < ID12_LEN:
                break
            frame = buf[at:at + ID12_LEN]
            if damaged and not _ID12_SHAPE.fullmatch(frame):  # the run goes on (cheap check)
                damaged += 1
                at += 1
                continue
            reason = self._check_id12(frame)
            if reason is None:
                self._end_run(out, damaged, first_bad)
                damaged = 0
                out.append(CardDrawn(frame[1:11].decode("ascii").upper(), None, now))
                at += ID12_LEN
            else:
                if not damaged:
                    first_bad = BadFrame(reason, frame)
                damaged += 1
                at += 1
        self._end_run(out, damaged, first_bad)
        buf = buf[at:]
        self._buf = buf[-self.max_line :] if len(buf) > self.max_line else buf
        return out

    @staticmethod
    def _end_run(out: list[DeviceEvent], damaged: int, first: BadFrame) -> None:
        """Report a run of ``damaged`` consecutive damaged frames, the first being ``first``."""
        if damaged == 1:
            out.append(first)
        elif damaged:
            out.append(BadFrame(f"{first.reason} (and {damaged - 1} more damaged frames "
                                "starting in the next bytes)", first.raw))

    @staticmethod
    def _check_id12(frame: bytes) -> str | None:
        text = frame[1:13]
        if not _HEX_UID.fullmatch(text[:10]) or not re.fullmatch(rb"[0-9A-Fa-f]{2}", text[10:]):
            return f"ID-12 frame is not hex: {text!r}"
        if frame[13:16] != bytes([CR, LF, ETX]):
            return f"ID-12 frame does not end in CR LF ETX: {frame[13:16]!r}"
        uid = text[:10].decode("ascii")
        want = id12_checksum(uid)
        got = int(text[10:], 16)
        if got != want:
            return f"ID-12 checksum mismatch: frame says {got:02X}, computed {want:02X}"
        return None
