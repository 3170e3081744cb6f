"""PN532 host-link frames (NXP UM0701-02 §6.2.1), sans-IO: encode, decode, resynchronise.

Wire format, both directions (all lengths count TFI plus data; checksums are two's complement,
so ``LEN + LCS`` and ``TFI + data + DCS`` are 0 modulo 256)::

    normal    00 | 00 FF | LEN | LCS | TFI | data | DCS | 00             (§6.2.1.1)
    extended  00 | 00 FF | FF FF | LENM LENL | LCS | TFI | data | DCS | 00  (§6.2.1.2)
    ACK       00 00 FF 00 FF 00                                         (§6.2.1.3)
    NACK      00 00 FF FF 00 00                                         (§6.2.1.4)
    error     00 00 FF 01 FF 7F 81 00   (syntax error, one byte 7F)     (§6.2.1.5)

``TFI`` is ``D4`` host to PN532 and ``D5`` PN532 to host; the first data byte is the command
code, and a response's code is the command's plus one.

Rules this module keeps:

1. Nothing here does I/O, reads a clock or raises on bad input: :meth:`FrameDecoder.feed`
   returns frames and :class:`~hardware.base.BadFrame` items with a reason.
2. Three outcomes for every start code: need more bytes, invalid (report, skip the start code,
   search for the next ``00 FF``), or a frame. The preamble and postamble bytes are optional on
   input (a lost one must not cost a frame).
3. The buffer is bounded: at most one maximal frame (:data:`MAX_FRAME`) is held; a run of bytes
   without a start code keeps only its last byte (a possible ``00`` of the next start code).

>>> encode_command(Command.GET_FIRMWARE_VERSION).hex(" ").upper()
'00 00 FF 02 FE D4 02 2A 00'
>>> ack, info = FrameDecoder().feed(bytes.fromhex("0000FF00FF00 0000FF06FAD50332010607E800"))
>>> ack, hex(info.tfi), info.data.hex(" ")
(Ack(), '0xd5', '03 32 01 06 07')
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from hardware.base import BadFrame

PREAMBLE = 0x00
START = b"\x00\xff"
POSTAMBLE = 0x00
TFI_HOST = 0xD4
TFI_PN532 = 0xD5
TFI_ERROR = 0x7F
ACK_FRAME = bytes.fromhex("0000FF00FF00")
NACK_FRAME = bytes.fromhex("0000FFFF0000")
ERROR_FRAME = bytes.fromhex("0000FF01FF7F8100")
#: Longest TFI + data a decoder accepts (the PN532 buffer holds 264 bytes plus TFI).
MAX_INFO = 265
#: Longest frame on the wire (extended header, TFI + data, DCS, postamble).
MAX_FRAME = 2 + 2 + 2 + 1 + MAX_INFO + 2
#: The HSU wake-up: 0x55 0x55 and a long run of zeros (§6.2.3), sent before SAMConfiguration.
WAKEUP = b"\x55\x55" + bytes(14)


class Command(IntEnum):
    """PN532 command codes used here (UM0701-02 §7)."""

    GET_FIRMWARE_VERSION = 0x02  # §7.2.2
    SAM_CONFIGURATION = 0x14  # §7.2.10
    RF_CONFIGURATION = 0x32  # §7.3.1
    IN_LIST_PASSIVE_TARGET = 0x4A  # §7.3.5


@dataclass(frozen=True, slots=True)
class Ack:
    """The ACK frame: the command was received and will be executed."""


@dataclass(frozen=True, slots=True)
class Nack:
    """The NACK frame: the receiver asks for the last frame again."""


@dataclass(frozen=True, slots=True)
class ErrorFrame:
    """The PN532's syntax-error frame (the command frame it got made no sense)."""


@dataclass(frozen=True, slots=True)
class InfoFrame:
    """A checksum-verified information frame (normal or extended).

    :param tfi: ``0xD4`` (host to PN532) or ``0xD5`` (PN532 to host).
    :param data: command or response code followed by its parameters.
    """

    tfi: int
    data: bytes

    @property
    def code(self) -> int | None:
        """The command or response code, or ``None`` for an empty frame."""
        return self.data[0] if self.data else None


@dataclass(frozen=True, slots=True)
class LineNoise(BadFrame):
    """Bytes outside any frame (line noise, a half frame from before a reconnect).

    A :class:`~hardware.base.BadFrame`, but not a damaged frame: the poller reports it and does
    not resend because of it.
    """


Item = Ack | Nack | ErrorFrame | InfoFrame | BadFrame


def checksum(data: bytes) -> int:
    """Return the byte that makes ``sum(data) + checksum`` 0 modulo 256.

    >>> hex(checksum(bytes([0xD4, 0x02])))
    '0x2a'
    """
    return (-sum(data)) & 0xFF


def encode_info(tfi: int, data: bytes) -> bytes:
    """Encode an information frame: normal up to 255 bytes of TFI + data, extended above.

    :raises ValueError: if TFI + data exceeds :data:`MAX_INFO` bytes.
    """
    body = bytes([tfi]) + data
    n = len(body)
    if n > MAX_INFO:
        raise ValueError(f"PN532 frame of {n} bytes exceeds {MAX_INFO}")
    if n <= 0xFF:
        head = bytes([PREAMBLE]) + START + bytes([n, checksum(bytes([n]))])
    else:
        lenm, lenl = n >> 8, n & 0xFF
        head = bytes([PREAMBLE]) + START + b"\xff\xff" + bytes(
            [lenm, lenl, checksum(bytes([lenm, lenl]))])
    return head + body + bytes([checksum(body), POSTAMBLE])


def encode_command(command: int, params: bytes = b"") -> bytes:
    """Encode a host command (TFI ``D4``).

    >>> encode_command(Command.IN_LIST_PASSIVE_TARGET, bytes([1, 0])).hex(" ").upper()
    '00 00 FF 04 FC D4 4A 01 00 E1 00'

    :raises ValueError: if the frame would be too long.
    """
    return encode_info(TFI_HOST, bytes([command]) + params)


def encode_response(command: int, params: bytes = b"") -> bytes:
    """Encode the PN532's response to ``command`` (TFI ``D5``, code ``command + 1``).

    :raises ValueError: if the frame would be too long.
    """
    return encode_info(TFI_PN532, bytes([(command + 1) & 0xFF]) + params)


class FrameDecoder:
    """Find frames in a byte stream; bounded, resynchronising on the next start code.

    >>> d = FrameDecoder()
    >>> d.feed(b"?!" + ACK_FRAME[:4])
    [LineNoise(reason='2 bytes before a start code', raw=b'?!')]
    >>> d.feed(ACK_FRAME[4:] + NACK_FRAME + ERROR_FRAME)
    [Ack(), Nack(), ErrorFrame()]
    """

    def __init__(self) -> None:
        self._buf = b""
        self._quiet = False  # the bytes after a bad frame belong to it: not reported again

    @property
    def buffered(self) -> int:
        """Bytes held waiting for the rest of a frame."""
        return len(self._buf)

    def reset(self) -> None:
        """Forget any partial frame (after a reconnect)."""
        self._buf = b""
        self._quiet = False

    def feed(self, data: bytes) -> list[Item]:
        """Add bytes; return every frame (or bad frame) they complete, in order."""
        out: list[Item] = []
        buf = self._buf + data
        while True:
            start = buf.find(START)
            if start < 0:
                keep = 1 if buf.endswith(b"\x00") else 0
                self._skipped(buf[: len(buf) - keep], out)
                buf = buf[len(buf) - keep :]
                break
            self._skipped(buf[:start], out)
            buf = buf[start:]
            used, item = _decode_at(buf)
            if used == 0:  # need more bytes
                break
            if item is not None:
                out.append(item)
                self._quiet = isinstance(item, BadFrame)
            buf = buf[used:]
            if buf[:1] == b"\x00" and buf[1:2] != b"\xff":
                buf = buf[1:]  # the postamble (keep a 00 that starts a start code)
        self._buf = buf
        return out

    def _skipped(self, junk: bytes, out: list[Item]) -> None:
        junk = junk.strip(b"\x00")
        if junk and not self._quiet:
            out.append(LineNoise(f"{len(junk)} bytes before a start code", junk[:32]))


def _decode_at(buf: bytes) -> tuple[int, Item | None]:
    """Decode the frame whose start code opens ``buf``.

    Return ``(0, None)`` when more bytes are needed, ``(n, item)`` to consume ``n`` bytes. A bad
    length consumes only the start code's first byte, so the search resumes just after it; a bad
    data checksum (under a good length checksum) consumes the frame.
    """
    if len(buf) < 4:
        return 0, None
    a, b = buf[2], buf[3]
    if (a, b) == (0x00, 0xFF):
        return 4, Ack()
    if (a, b) == (0xFF, 0x00):
        return 4, Nack()
    if (a, b) == (0xFF, 0xFF):
        if len(buf) < 7:
            return 0, None
        lenm, lenl, lcs = buf[4], buf[5], buf[6]
        if (lenm + lenl + lcs) & 0xFF:
            return 1, BadFrame("extended frame length checksum mismatch", buf[:8])
        n, head = (lenm << 8) | lenl, 7
    else:
        if (a + b) & 0xFF:
            return 1, BadFrame(f"length checksum mismatch (LEN {a:02X}, LCS {b:02X})", buf[:8])
        n, head = a, 4
    if n > MAX_INFO:
        return 1, BadFrame(f"frame of {n} bytes exceeds {MAX_INFO}", buf[:8])
    if len(buf) < head + n + 1:
        return 0, None
    body, dcs = buf[head : head + n], buf[head + n]
    if (sum(body) + dcs) & 0xFF:
        # LCS held, so the length is trusted: the whole frame is dropped
        return head + n + 1, BadFrame(f"data checksum mismatch (DCS {dcs:02X})", buf[:32])
    used = head + n + 1
    if body == bytes([TFI_ERROR]):
        return used, ErrorFrame()
    if not body:  # LEN 0 with good checksums: no frame identifier
        return used, BadFrame("empty frame (no frame identifier)", buf[:8])
    if body[0] not in (TFI_HOST, TFI_PN532):
        return used, BadFrame(f"unknown frame identifier {body[0]:02X}", body[:32])
    return used, InfoFrame(body[0], bytes(body[1:]))


@dataclass(frozen=True, slots=True)
class TargetA:
    """One ISO/IEC 14443 type A target of an InListPassiveTarget response (§7.3.5).

    :param tg: the logical target number the PN532 gave it.
    :param sens_res: SENS_RES (ATQA), two bytes as sent.
    :param sel_res: SEL_RES (SAK).
    :param nfcid: NFCID1 (the UID), 4, 7 or 10 bytes.
    :param ats: the ATS (starting with its length byte) for ISO/IEC 14443-4 cards, else empty.
    """

    tg: int
    sens_res: bytes
    sel_res: int
    nfcid: bytes
    ats: bytes = b""

    @property
    def uid(self) -> str:
        """The UID as upper-case hex."""
        return self.nfcid.hex().upper()


def encode_targets(targets: list[TargetA]) -> bytes:
    """Encode InListPassiveTarget response parameters (``NbTg`` then each target; device side).

    :raises ValueError: for an NFCID1 that is not 4, 7 or 10 bytes.
    """
    out = bytearray([len(targets)])
    for t in targets:
        if len(t.nfcid) not in (4, 7, 10):
            raise ValueError(f"NFCID1 of {len(t.nfcid)} bytes (expected 4, 7 or 10)")
        out += bytes([t.tg]) + t.sens_res[:2].rjust(2, b"\x00") + bytes([t.sel_res])
        out += bytes([len(t.nfcid)]) + t.nfcid + t.ats
    return bytes(out)


def parse_targets(params: bytes) -> list[TargetA] | str:
    """Parse InListPassiveTarget response parameters for 106 kbps type A; never raises.

    The ATS is present when SEL_RES bit 6 (0x20, ISO/IEC 14443-4 compliant) is set; its first
    byte is its own length.

    >>> [(t.tg, t.sens_res.hex(), t.sel_res, t.uid, t.ats)
    ...  for t in parse_targets(bytes.fromhex("01 01 0044 00 07 04A1B2C3D4E5F6"))]
    [(1, '0044', 0, '04A1B2C3D4E5F6', b'')]
    >>> parse_targets(bytes.fromhex("01 01 0044 00 05 0102"))
    'target 1: NFCID1 of 5 bytes (expected 4, 7 or 10)'

    :returns: the targets, or a string saying what is wrong.
    """
    if not params:
        return "no NbTg byte"
    nb, pos, out = params[0], 1, []
    if nb > 2:
        return f"NbTg {nb} (at most 2)"
    for i in range(1, nb + 1):
        if len(params) < pos + 5:
            return f"target {i}: {len(params) - pos} bytes, need at least 5"
        tg, sens, sel, n = params[pos], params[pos + 1 : pos + 3], params[pos + 3], params[pos + 4]
        pos += 5
        if n not in (4, 7, 10):
            return f"target {i}: NFCID1 of {n} bytes (expected 4, 7 or 10)"
        if len(params) < pos + n:
            return f"target {i}: NFCID1 cut short ({len(params) - pos} of {n} bytes)"
        nfcid = params[pos : pos + n]
        pos += n
        ats = b""
        if sel & 0x20 and pos < len(params):
            tl = params[pos]
            if tl < 1 or len(params) < pos + tl:
                return f"target {i}: ATS length {tl} but {len(params) - pos} bytes left"
            ats = params[pos : pos + tl]
            pos += tl
        out.append(TargetA(tg, bytes(sens), sel, bytes(nfcid), bytes(ats)))
    if pos != len(params):
        return f"{len(params) - pos} bytes after the last target"
    return out
