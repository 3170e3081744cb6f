"""A conformance check of a reference-protocol device, for firmware makers (``check-device``).

It talks to the device frame by frame (its own :class:`~hardware.link.protocol.FrameDecoder`
and :func:`~hardware.link.protocol.encode_frame`, no host link that would hide a fault) and
runs the sequences of ``docs/protocol.md`` in order:

1. heartbeats arrive (u32 uptime) and keep coming;
2. the handshake: an empty NAK is answered with HELLO of the right kind;
3. data frames resume at HELLO's ``first_seq``; a request gets a new frame at the next seq;
4. a NAK is answered with the frame again, marked *retransmitted*, the same payload;
5. an unacknowledged frame is resent without being asked;
6. an ACK stops the resending;
7. a duplicate ACK and a repeated request neither reuse nor skip a seq;
8. after the host reopens the port, HELLO keeps the boot id and resumes at the next seq;
9. every frame received was well formed (COBS, CRC, length, version).

Each step yields a :class:`Check`; a step that cannot run because an earlier one failed says so.
The time limits are the protocol's (``timeout`` seconds for an answer), not a test's budget.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

from hardware.events import BadFrame
from hardware.link.protocol import (
    FLAG_RETRANSMIT,
    HELLO,
    UNSEQUENCED,
    Frame,
    FrameDecoder,
    MsgType,
    encode_frame,
)

#: Device kind codes of HELLO, by the ``--kind`` names.
KINDS = {"shoe": 1, "chips": 2}
#: The request each kind answers with a data frame.
REQUESTS = {"shoe": MsgType.SHOE_REQUEST_STATUS, "chips": MsgType.CHIPS_REQUEST_REPORT}


@dataclass(frozen=True, slots=True)
class Check:
    """One conformance check: its name, whether the device passed, and what was seen."""

    name: str
    ok: bool
    detail: str


class Port(Protocol):
    """What the checker needs of a serial port (pyserial's ``Serial`` has it)."""

    def read(self, size: int = 1) -> bytes:
        """Read up to ``size`` bytes (returning after the port's timeout)."""
        ...

    def write(self, data: bytes, /) -> int | None:
        """Write bytes."""
        ...


class Probe:
    """Frames to and from one device port.

    :param opener: opens the port (again after :meth:`reopen`).
    :param timeout: seconds to wait for an answer.
    """

    def __init__(self, opener: Callable[[], Port], timeout: float = 3.0) -> None:
        self.opener = opener
        self.port = opener()
        self.timeout = timeout
        self.decoder = FrameDecoder()
        self.bad: list[str] = []
        self.seq = 0
        #: the highest data seq received so far (``None``: none yet)
        self.top: int | None = None

    def send(self, msg_type: int, payload: bytes = b"") -> None:
        """Send a host frame (host frames carry the host's own counter)."""
        self.seq = (self.seq + 1) & 0xFFFF
        self.port.write(encode_frame(msg_type, self.seq, payload))

    def ack(self, seq: int) -> None:
        """Acknowledge everything through ``seq``."""
        self.send(MsgType.ACK, seq.to_bytes(2, "big"))

    def frames(self, seconds: float) -> Iterator[Frame]:
        """Yield the frames received for ``seconds`` (bad ones are recorded)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for item in self.decoder.feed(self.port.read(4096)):
                if isinstance(item, BadFrame):
                    self.bad.append(item.reason)
                else:
                    if _data(item) and (self.top is None or item.seq > self.top):
                        self.top = item.seq
                    yield item

    def wait(self, match: Callable[[Frame], bool], seconds: float | None = None) -> Frame | None:
        """Return the first frame received that ``match`` es, or ``None`` after the timeout."""
        for frame in self.frames(self.timeout if seconds is None else seconds):
            if match(frame):
                return frame
        return None

    def reopen(self) -> None:
        """Close the port and open it again (a host restart)."""
        close = getattr(self.port, "close", None)
        if close is not None:
            close()
        self.decoder = FrameDecoder()
        self.port = self.opener()


def _data(frame: Frame) -> bool:
    return frame.type not in UNSEQUENCED


def run_checks(probe: Probe, kind: str) -> Iterator[Check]:
    """Run the conformance sequence against the device behind ``probe``; yield each check."""
    hb = probe.wait(lambda f: f.type == MsgType.HEARTBEAT)
    hb2 = probe.wait(lambda f: f.type == MsgType.HEARTBEAT) if hb else None
    yield Check(
        "heartbeats",
        hb is not None and hb2 is not None and len(hb.payload) == 4,
        "two heartbeats with a u32 uptime"
        if hb and hb2 and len(hb.payload) == 4
        else f"heartbeat: {hb}, then {hb2}",
    )

    probe.send(MsgType.NAK)
    hello = probe.wait(lambda f: f.type == MsgType.HELLO)
    ok = hello is not None and len(hello.payload) == HELLO.size
    got_kind = boot = first = -1
    if hello is not None and ok:
        got_kind, _fw, boot, first = HELLO.unpack(hello.payload)
        ok = got_kind == KINDS[kind]
    yield Check(
        "handshake: an empty NAK is answered with HELLO",
        ok,
        f"HELLO kind {got_kind}, boot id {boot}, first seq {first}"
        if hello
        else f"no HELLO within {probe.timeout:g} s",
    )
    if not ok:
        return

    # what was pending comes first, from first_seq on; ACK it all
    pending = [f for f in probe.frames(0.5) if _data(f)]
    seqs = sorted({f.seq for f in pending})
    resumed = not seqs or seqs[0] == first
    last = seqs[-1] if seqs else (first - 1) & 0xFFFF
    if seqs:
        probe.ack(last)
    probe.send(REQUESTS[kind])
    fresh = probe.wait(lambda f: _data(f) and f.seq == (last + 1) & 0xFFFF)
    yield Check(
        "data frames resume at first_seq; a request gets the next seq",
        resumed and fresh is not None,
        f"pending {seqs[:5]}, answer {fresh.seq if fresh else None} "
        f"(expected {(last + 1) & 0xFFFF})",
    )
    if fresh is None:
        return
    s = fresh.seq

    probe.send(MsgType.NAK, s.to_bytes(2, "big"))
    again = probe.wait(lambda f: f.seq == s and _data(f))
    yield Check(
        "NAK: the frame is resent, marked retransmitted, unchanged",
        again is not None
        and bool(again.flags & FLAG_RETRANSMIT)
        and again.payload == fresh.payload
        and again.type == fresh.type,
        "resent" if again else f"no resend of seq {s} within {probe.timeout:g} s",
    )

    unasked = probe.wait(lambda f: f.seq == s and _data(f))
    yield Check(
        "an unacknowledged frame is resent without being asked",
        unasked is not None,
        "resent" if unasked else f"seq {s} not resent within {probe.timeout:g} s",
    )

    probe.ack(s)
    late = probe.wait(lambda f: f.seq == s and _data(f), 1.0)
    yield Check(
        "an ACK stops the resending",
        late is None,
        "quiet" if late is None else f"seq {s} still resent after its ACK",
    )

    top = probe.top if probe.top is not None else s
    probe.ack(s)
    probe.send(REQUESTS[kind])
    probe.send(REQUESTS[kind])
    got: list[int] = []
    for frame in probe.frames(probe.timeout):
        if _data(frame) and not frame.flags & FLAG_RETRANSMIT:
            got.append(frame.seq)
    want = [(top + 1 + i) & 0xFFFF for i in range(len(got))]
    yield Check(
        "a duplicate ACK and a repeated request neither reuse nor skip a seq",
        len(got) >= 2 and got == want,
        f"new frames at seq {got[:6]}{'...' if len(got) > 6 else ''}, "
        f"expected consecutive from {(top + 1) & 0xFFFF}",
    )
    nxt = (probe.top + 1) & 0xFFFF if probe.top is not None else (s + 1) & 0xFFFF
    if probe.top is not None:
        probe.ack(probe.top)
    for _ in probe.frames(0.3):
        pass

    probe.reopen()
    probe.send(MsgType.NAK)
    hello2 = probe.wait(lambda f: f.type == MsgType.HELLO)
    if hello2 is not None and len(hello2.payload) == HELLO.size:
        _k, _fw, boot2, first2 = HELLO.unpack(hello2.payload)
        yield Check(
            "reopened port: HELLO keeps the boot id and resumes at the next seq",
            boot2 == boot and first2 == nxt,
            f"boot id {boot2} (was {boot}), first seq {first2} (expected {nxt})",
        )
    else:
        yield Check(
            "reopened port: HELLO keeps the boot id and resumes at the next seq",
            False,
            f"no HELLO within {probe.timeout:g} s after reopening",
        )

    yield Check(
        "every frame was well formed (COBS, CRC, length, version)",
        not probe.bad,
        "; ".join(sorted(set(probe.bad))[:3]) or "no bad frame",
    )
