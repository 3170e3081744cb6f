"""Hostile input: a million inputs per parser, counting undocumented exceptions and the slowest.

Parsers: the serial devices' framed links (the shoe's and the chip tray's ``HostLink``, the
PN532 poller), the line readers (``LineReaderProtocol``, both formats), the feed message
decoder (``feeds.decode``), the snapshot endpoint's answer
(``FeedHub.answer_snapshot_request``), the command endpoint (``CommandServer.handle_raw``, with a
real journal on a temporary directory), the configuration loader (``loads_config``) and the PHH
reader (``phh.loads``, a hand read up to replay). Inputs are seeded
(:mod:`benchmarks.fuzz_inputs`): random bytes, valid messages mutated (bit flips, cuts,
insertions, repeats), and crafted ones (deep nesting, integers of thousands of digits, huge
floats and exponents, ``NaN``, wrong types, huge lists).

Timing (:mod:`benchmarks.fuzz_timing`, :class:`Result`): each input in wall time and in the
thread's CPU time; an input over :data:`SUSPECT_MS` of CPU time in the stream is kept (up to
:data:`SUSPECTS`, with the :data:`SLOWEST` by CPU and by wall time) and re-timed alone
afterwards, :data:`RETIMES` times, the least CPU time counting: on a shared virtual machine
the thread's CPU time also counts the other hyperthread, cache refills and the hypervisor's
stolen time (``/proc/stat`` "steal", printed), so an input is taken for slow only if it is
slow again alone.

An input's answer is *documented* when it is a value or the parser's documented error (a
``TableError`` subclass with a one-line message; for the serial parsers, which never raise on
input, a list of ``DeviceEvent`` s, a bad frame being one); anything else is counted and the
first few are printed. A serial input is a stream cut into random reads, fed to a protocol
that lives across inputs (as a port's does), its timers run after each.
``python -m benchmarks.bench_fuzz [-n N] [--parser NAME]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import zmq.asyncio

from benchmarks.fuzz_inputs import (
    _VALID_COMMAND,
    _VALID_MESSAGE,
    _VALID_REQUEST,
    _mutate,
    json_inputs,
    phh_inputs,
    toml_inputs,
)
from benchmarks.fuzz_timing import (
    RETIMES,
    Result,
    _as_bytes,
    _check,
    _describe,
    _settled,
    _start,
    steal_seconds,
)
from hardware.base import DeviceEvent
from hardware.chips.protocol import ChipsProtocol, zone_report_payload
from hardware.lines.protocol import LineReaderProtocol, encode_id12, encode_reader_line
from hardware.link.protocol import DeviceLink, MsgType
from hardware.pn532.frames import ACK_FRAME, NACK_FRAME, encode_response
from hardware.pn532.protocol import Pn532Poller
from hardware.shoe.protocol import ShoeProtocol, card_drawn_payload
from table_controller.config import loads_config
from table_controller.feeds import (
    Command,
    CommandReply,
    CommandServer,
    FeedEndpoints,
    FeedHub,
    decode,
)
from table_controller.journal import Journal
from table_controller.phh import loads as phh_loads

PARSERS = ("serial", "lines", "messages", "snapshots", "commands", "config", "phh")


def fuzz_messages(n: int, seed: int) -> Result:
    """``feeds.decode`` on ``n`` inputs."""
    res, src = Result("messages"), json_inputs(random.Random(seed), _VALID_MESSAGE)
    _settled()
    for _ in range(n):
        raw = src()
        t0 = _start()
        try:
            decode(raw)
        except BaseException as exc:  # counted, not raised
            _check(res, exc, "", t0, raw)
        else:
            _check(res, None, "message", t0, raw)
    res.retime(lambda raw: decode(_as_bytes(raw)))
    return res

def fuzz_snapshots(n: int, seed: int) -> Result:
    """``FeedHub.answer_snapshot_request`` on ``n`` inputs (error replies must be one line)."""
    res, src = Result("snapshots"), json_inputs(random.Random(seed), _VALID_REQUEST)
    hub = FeedHub(zmq.asyncio.Context.instance(), table_id="T1",
                  endpoints=FeedEndpoints.loopback())
    _settled()
    for _ in range(n):
        raw = src()
        t0 = _start()
        try:
            answer = hub.answer_snapshot_request(raw)
            answer.encode()
            if answer.type == "error" and "\n" in str(answer.data.get("reason")):
                raise AssertionError(f"multi-line reason {answer.data['reason']!r}")
        except BaseException as exc:  # counted, not raised
            _check(res, exc, "", t0, raw)
        else:
            _check(res, None, answer.type, t0, raw)
    res.retime(lambda raw: hub.answer_snapshot_request(_as_bytes(raw)).encode())
    return res

def fuzz_commands(n: int, seed: int) -> Result:
    """``CommandServer.handle_raw`` on ``n`` inputs, with a real journal."""
    res, src = Result("commands"), json_inputs(random.Random(seed), _VALID_COMMAND)

    async def handler(cmd: Command) -> CommandReply:  # journaled either way
        return CommandReply(cmd.name == "raise", "" if cmd.name == "raise" else "refused")

    async def body(directory: Path) -> None:
        ctx = zmq.asyncio.Context()
        journal = Journal.open(directory / "journal.sqlite")
        server = CommandServer(ctx, "tcp://127.0.0.1:*", table_id="T1", journal=journal,
                               handler=handler, rate=1e9, burst=10**9)
        _settled()
        try:
            for _ in range(n):
                raw = src()
                t0 = _start()
                try:
                    reply = await server.handle_raw(raw, None)
                    reply.encode()
                except BaseException as exc:  # counted, not raised
                    _check(res, exc, "", t0, raw)
                else:
                    _check(res, None, "accepted" if reply.data["accepted"] else "refused", t0,
                           raw)
            for wall_ms, cpu_ms, slow in res.to_retime():  # re-timed alone (in the loop)
                best = float("inf")
                for _ in range(RETIMES):
                    started = time.thread_time()
                    with contextlib.suppress(BaseException):
                        (await server.handle_raw(_as_bytes(slow), None)).encode()
                    best = min(best, (time.thread_time() - started) * 1000)
                res.retimed.append((wall_ms, cpu_ms, best, _describe(slow)))
        finally:
            journal.close()
            ctx.destroy(linger=0)

    with tempfile.TemporaryDirectory(dir="/dev/shm" if Path("/dev/shm").is_dir() else None) as d:
        asyncio.run(body(Path(d)))
    return res

def fuzz_config(n: int, seed: int) -> Result:
    """``loads_config`` on ``n`` inputs."""
    res, src = Result("config"), toml_inputs(random.Random(seed))
    base = Path(tempfile.gettempdir())
    _settled()
    for _ in range(n):
        text = src()
        t0 = _start()
        try:
            loads_config(text, base_dir=base)
        except BaseException as exc:  # counted, not raised
            _check(res, exc, "", t0, text)
        else:
            _check(res, None, "config", t0, text)
    res.retime(lambda raw: loads_config(str(raw), base_dir=base))
    return res

def fuzz_phh(n: int, seed: int) -> Result:
    """``phh.loads`` on ``n`` inputs (``PhhError``, one line, is the documented error)."""
    res, src = Result("phh"), phh_inputs(random.Random(seed))
    _settled()
    for _ in range(n):
        text = src()
        t0 = _start()
        try:
            phh_loads(text)
        except BaseException as exc:  # counted, not raised
            _check(res, exc, "", t0, text)
        else:
            _check(res, None, "hand", t0, text)
    res.retime(lambda raw: phh_loads(str(raw)))
    return res

class _Port:
    """A serial protocol on one port: ``feed(data, now)`` and ``take_outgoing()``."""

    def __init__(self, name: str, proto: ShoeProtocol | ChipsProtocol | Pn532Poller
                 | LineReaderProtocol, streams: list[bytes]) -> None:
        self.name, self.streams = name, streams
        self.feed, self.tick, self.take_outgoing = proto.feed, proto.tick, proto.take_outgoing


def _link_streams(rng: random.Random, kind: int) -> list[bytes]:
    """Valid device streams (a HELLO, then a few sequenced frames) of a shoe or a chip tray."""
    out = []
    for boot in range(200):
        dev = DeviceLink(kind=kind, boot_id=boot + 1)
        wire = [dev.hello()]
        for i in range(rng.randint(1, 5)):
            if kind == 1:
                wire.append(dev.send(MsgType.CARD_DRAWN, card_drawn_payload(
                    rng.randbytes(rng.choice([4, 7, 10])).hex().upper(), i), 0.0))
            else:
                wire.append(dev.send(MsgType.ZONE_REPORT, zone_report_payload(
                    rng.randrange(255), {rng.randrange(256): rng.randint(1, 65535)}), 0.0))
        out.append(b"".join(wire))
    return out


def _serial_ports(rng: random.Random, lines: bool) -> list[_Port]:
    if lines:
        reader, id12 = LineReaderProtocol("reader"), LineReaderProtocol("id12")
        uids = [rng.randbytes(5).hex().upper() for _ in range(100)]
        return [_Port("reader", reader,
                      [b"".join(encode_reader_line(u) for u in uids[i:i + 3]) for i in range(98)]),
                _Port("id12", id12,
                      [b"".join(encode_id12(u) for u in uids[i:i + 3]) for i in range(98)])]
    shoe, chips, pn532 = ShoeProtocol(), ChipsProtocol(), Pn532Poller()
    pn532.reset(0.0)  # the port opened: the poller wakes and configures the PN532
    answers = [ACK_FRAME + encode_response(0x4A, b"\x00"), ACK_FRAME + encode_response(
        0x4A, b"\x01\x01\x00\x04\x08\x04" + rng.randbytes(4)), NACK_FRAME,
               ACK_FRAME + encode_response(0x02, b"\x32\x01\x06\x07")]
    return [_Port("shoe", shoe, _link_streams(rng, 1)),
            _Port("chips", chips, _link_streams(rng, 2)), _Port("pn532", pn532, answers)]


def _stream_input(rng: random.Random, port: _Port) -> bytes:
    r = rng.random()
    if r < 0.2:
        return rng.randbytes(rng.randint(0, 600))
    valid = rng.choice(port.streams)
    if r < 0.8:
        return _mutate(rng, valid)
    if r < 0.9:  # a long run without a delimiter, then a valid stream
        return rng.choice([b"\x01", b"\xff", b"A", b"\x02"]) * rng.choice([81, 300, 5000]) + valid
    return rng.randbytes(rng.randint(1, 40)) + valid + rng.randbytes(rng.randint(1, 40))


def _fuzz_serial(name: str, n: int, seed: int, lines: bool) -> Result:
    rng = random.Random(seed)
    res, ports, now = Result(name), _serial_ports(rng, lines), 0.0
    _settled()
    for i in range(n):
        port = ports[i % len(ports)]
        raw = _stream_input(rng, port)
        reads, at = [], 0
        while at < len(raw):
            step = rng.choice([1, 3, 16, 64, 256, 4096])
            reads.append(raw[at:at + step])
            at += step
        now += 0.01
        t0 = _start()
        try:
            got = 0
            for chunk in reads:
                events = port.feed(chunk, now)
                if not isinstance(events, list) or not all(
                        isinstance(e, DeviceEvent) for e in events):
                    raise TypeError(f"{port.name} answered {events!r:.200}")
                got += len(events)
            got += len(port.tick(now))
            port.take_outgoing()
        except BaseException as exc:  # counted, not raised
            _check(res, exc, "", t0, raw)
        else:
            _check(res, None, "events" if got else "nothing", t0, raw)
    retime_ports = _serial_ports(random.Random(seed), lines)
    res.retime(lambda raw: [p.feed(_as_bytes(raw), now) for p in retime_ports])
    return res


def fuzz_serial(n: int, seed: int) -> Result:
    """The serial devices' framed links (shoe, chip tray) and the PN532 poller on ``n`` inputs."""
    return _fuzz_serial("serial", n, seed, lines=False)


def fuzz_lines(n: int, seed: int) -> Result:
    """The line readers (``reader`` and ``id12`` formats) on ``n`` inputs."""
    return _fuzz_serial("lines", n, seed, lines=True)


FUZZERS: dict[str, Callable[[int, int], Result]] = {
    "serial": fuzz_serial, "lines": fuzz_lines, "messages": fuzz_messages,
    "snapshots": fuzz_snapshots, "commands": fuzz_commands,
    "config": fuzz_config, "phh": fuzz_phh,
}

def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=1_000_000, help="inputs per parser")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--parser", choices=PARSERS, action="append")
    args = ap.parse_args(argv)
    for name in args.parser or PARSERS:
        t0, stolen = time.perf_counter(), steal_seconds()
        res = FUZZERS[name](args.n, args.seed)
        res.steal_s = steal_seconds() - stolen
        print(f"{res.line()}   ({time.perf_counter() - t0:.0f} s)", flush=True)
        print(res.retimed_line(), flush=True)
        for ex in res.examples:
            print(f"    {ex}")

if __name__ == "__main__":
    main()
