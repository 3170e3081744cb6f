"""Serial devices: latency added by the driver over a bare pty read, and parser throughput.

Latency: one run interleaves, frame by frame, a bare read (``select`` + ``os.read`` on the slave
of one ``os.openpty`` pair) with the real driver on a second pair (pyserial port, reference
protocol, ACK written back, typed ``CardDrawn`` event returned), in three ways: the blocking
``read_events``, the asyncio adapter in ``reader`` mode (``loop.add_reader``) and in ``thread``
mode (reader thread + ``call_soon_threadsafe``). The clock starts just before the frame is
written to the master and stops when the bytes (bare) or the event (driver) are in hand.

Gaps: cards come 20-200 ms apart at a table, and an idle process wakes more slowly than a busy
one. The ``gap`` rows sleep the given time before every frame, bare and driver alike (the
bare read also after a sleep of the same length), so both wake from idle.

Throughput: CARD_DRAWN frames through ``ShoeProtocol.feed`` (framing, CRC, sequence check, ACK
encoding, payload decoding, event creation), fed in 4 KiB chunks and one frame per call, and
through the bare ``FrameDecoder``.

Run: ``python -m benchmarks serial`` (or ``make bench``).
"""

from __future__ import annotations

import asyncio
import functools
import os
import select
import time
from collections.abc import Callable

from hardware.base import CardDrawn, DeviceEvent
from hardware.link.aio import AsyncDevice
from hardware.link.protocol import HELLO, FrameDecoder, MsgType, encode_frame
from hardware.shoe.driver import SerialShoe
from hardware.shoe.protocol import ShoeProtocol, card_drawn_payload
from hardware.sim.pty import PtyPort, raw_pty

UID = "04A1B2C3D4E5F6"
SAMPLES = 2000
WARMUP = 200
#: Gap between cards (seconds) -> samples at that gap (a 200 ms gap costs 0.4 s a sample pair).
GAPS = {0.02: 600, 0.05: 400, 0.2: 150}


def _frame(seq: int) -> bytes:
    return encode_frame(MsgType.CARD_DRAWN, seq, card_drawn_payload(UID, seq * 7))


def _hello(first: int) -> bytes:
    return encode_frame(MsgType.HELLO, 0, HELLO.pack(1, 1, 1, first))


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def _bare_pair() -> tuple[int, int]:
    return raw_pty()


def _bare_once(master: int, slave: int, frame: bytes) -> float:
    t0 = time.perf_counter()
    os.write(master, frame)
    got = b""
    while len(got) < len(frame):
        select.select([slave], [], [], 1.0)
        got += os.read(slave, 4096)
    return time.perf_counter() - t0


class _DriverRig:
    """A real SerialShoe on a pty whose master we write frames to and drain ACKs from."""

    def __init__(self) -> None:
        self.port = PtyPort()
        self.dev = SerialShoe(
            f"serial://{self.port.link_path}", self.port.link_path, ShoeProtocol(), kind="shoe"
        )
        self.dev.open()
        self.seq = 1
        master = self.port.fileno()
        if master is None:
            raise RuntimeError("pty not plugged")
        self.master: int = master
        os.write(self.master, _hello(1))
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline and not self.dev.read_events(0.05):
            pass

    def next_frame(self) -> bytes:
        frame = _frame(self.seq)
        self.seq += 1
        return frame

    def drain(self) -> None:
        self.port.read()

    def close(self) -> None:
        self.dev.close()
        self.port.close()


def _blocking_once(rig: _DriverRig) -> float:
    frame = rig.next_frame()
    t0 = time.perf_counter()
    os.write(rig.master, frame)
    while True:
        events = rig.dev.read_events(1.0)
        if any(isinstance(e, CardDrawn) for e in events):
            break
    dt = time.perf_counter() - t0
    rig.drain()
    return dt


def _measure_blocking() -> tuple[list[float], list[float]]:
    master, slave = _bare_pair()
    rig = _DriverRig()
    bare: list[float] = []
    drv: list[float] = []
    try:
        for i in range(WARMUP + SAMPLES):
            b = _bare_once(master, slave, _frame(i + 1))
            d = _blocking_once(rig)
            if i >= WARMUP:
                bare.append(b)
                drv.append(d)
    finally:
        rig.close()
        os.close(master)
        os.close(slave)
    return bare, drv


def _measure_async(mode: str, gap: float = 0.0,
                   samples: int | None = None, *,
                   listener: bool = False) -> tuple[list[float], list[float]]:
    """Time a frame from the write to its event: awaited from the queue, or (``listener``)
    seen by a subscriber, which is how the daemon takes its events (no hand-off to a task)."""
    n = SAMPLES if samples is None else samples
    warmup = WARMUP if not gap else min(WARMUP, 10)

    async def run() -> tuple[list[float], list[float]]:
        master, slave = _bare_pair()
        rig = _DriverRig()
        adev = AsyncDevice(rig.dev, mode="reader" if mode == "reader" else "thread")
        bare: list[float] = []
        drv: list[float] = []
        seen: list[float] = []
        arrived = asyncio.Event()

        def listen(event: DeviceEvent) -> None:
            if isinstance(event, CardDrawn):
                seen.append(time.perf_counter())
                arrived.set()

        if listener:
            adev.subscribe(listen)
        try:
            async with adev:
                for i in range(warmup + n):
                    if gap:
                        time.sleep(gap)
                    b = _bare_once(master, slave, _frame(i + 1))
                    if gap:
                        await asyncio.sleep(gap)
                    frame = rig.next_frame()
                    arrived.clear()
                    t0 = time.perf_counter()
                    os.write(rig.master, frame)
                    if listener:
                        await arrived.wait()
                        d = seen[-1] - t0
                    else:
                        while True:
                            event: DeviceEvent = await adev.get()
                            if isinstance(event, CardDrawn):
                                break
                        d = time.perf_counter() - t0
                    rig.drain()
                    if i >= warmup:
                        bare.append(b)
                        drv.append(d)
        finally:
            rig.close()
            os.close(master)
            os.close(slave)
        return bare, drv

    return asyncio.run(run())


def _throughput(n: int = 100_000) -> dict[str, float]:
    frames = [_frame(i + 1) for i in range(n)]
    stream = _hello(1) + b"".join(frames)
    out: dict[str, float] = {}

    p = ShoeProtocol()
    t0 = time.perf_counter()
    count = 0
    for i in range(0, len(stream), 4096):
        count += len(p.feed(stream[i : i + 4096], 0.0))
        p.take_outgoing()
    dt = time.perf_counter() - t0
    assert count == n + 1, count
    out["ShoeProtocol.feed, 4 KiB chunks"] = n / dt

    p = ShoeProtocol()
    p.feed(_hello(1), 0.0)
    t0 = time.perf_counter()
    for f in frames:
        p.feed(f, 0.0)
        p.take_outgoing()
    out["ShoeProtocol.feed, one frame per call"] = n / (time.perf_counter() - t0)

    d = FrameDecoder()
    t0 = time.perf_counter()
    for i in range(0, len(stream), 4096):
        d.feed(stream[i : i + 4096])
    out["FrameDecoder.feed (framing + CRC only), 4 KiB chunks"] = n / (time.perf_counter() - t0)
    return out


def _row(name: str, bare: list[float], drv: list[float]) -> str:
    bp50, bp99 = _pct(bare, 0.5) * 1e6, _pct(bare, 0.99) * 1e6
    dp50, dp99 = _pct(drv, 0.5) * 1e6, _pct(drv, 0.99) * 1e6
    return (
        f"| {name} | {bp50:.1f} | {bp99:.1f} | {dp50:.1f} | {dp99:.1f} | "
        f"{dp50 / bp50:.2f} | {dp50 - bp50:+.1f} |"
    )


def main() -> None:
    """Run the serial benchmark and print a Markdown report."""
    frame_len = len(_frame(1))
    runs: list[tuple[str, Callable[[], tuple[list[float], list[float]]]]] = [
        ("blocking `read_events`", _measure_blocking),
        ("asyncio `reader` (add_reader)", lambda: _measure_async("reader")),
        ("asyncio `thread` (call_soon_threadsafe)", lambda: _measure_async("thread")),
    ]
    print(f"CARD_DRAWN frame: {frame_len} bytes on the wire; {SAMPLES} samples per row, "
          f"bare and driver interleaved frame by frame.\n")
    print("| driver path | bare p50 us | bare p99 us | driver p50 us | driver p99 us | "
          "p50 ratio | added at p50 us |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for gap, n in GAPS.items():
        runs.append((f"asyncio `reader`, {gap * 1e3:.0f} ms between cards ({n} samples)",
                     functools.partial(_measure_async, "reader", gap, n)))
    for gap, n in GAPS.items():
        runs.append((f"asyncio `reader`, listener (the daemon's path), {gap * 1e3:.0f} ms "
                     f"between cards ({n} samples)",
                     functools.partial(_measure_async, "reader", gap, n, listener=True)))
    for name, fn in runs:
        bare, drv = fn()
        print(_row(name, bare, drv), flush=True)
    print()
    print("| parser | frames/s |")
    print("| --- | --- |")
    for name, rate in _throughput().items():
        print(f"| {name} | {rate:,.0f} |")


if __name__ == "__main__":
    main()
