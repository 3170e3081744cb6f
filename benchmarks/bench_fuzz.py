"""Hostile input: a million inputs per parser, counting undocumented exceptions and the slowest.

Parsers: the serial devices' framed links (the shoe's and the chip tray's ``HostLink``, the
PN532 poller), the line readers (``LineReaderProtocol``, both formats), the feed message
decoder (``feeds.decode``), the snapshot endpoint's answer
(``FeedHub.answer_snapshot_request``), the command endpoint (``CommandServer.handle_raw``, with a
real journal on a temporary directory), the configuration loader (``loads_config``) and the PHH
reader (``phh.loads``, a hand read up to replay). Inputs are seeded: random bytes, valid
messages mutated (bit flips, cuts, insertions, repeats), and crafted ones (deep nesting,
integers of thousands of digits, huge floats and exponents, ``NaN``, wrong types, huge lists).

Timing (:class:`Result`): each input in wall time and in the thread's CPU time; an input
over :data:`SUSPECT_MS` of CPU time in the stream is kept (up to :data:`SUSPECTS`, with the
:data:`SLOWEST` by CPU and by wall time) and re-timed alone afterwards, :data:`RETIMES` times,
the least CPU time counting: on a shared virtual machine the thread's CPU time also counts the
other hyperthread, cache refills and the hypervisor's stolen time (``/proc/stat`` "steal",
printed), so an input is taken for slow only if it is slow again alone.

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
import gc
import json
import os
import random
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import zmq.asyncio

from hardware.base import DeviceEvent
from hardware.chips.protocol import ChipsProtocol, zone_report_payload
from hardware.lines.protocol import LineReaderProtocol, encode_id12, encode_reader_line
from hardware.link.protocol import DeviceLink, MsgType
from hardware.pn532.frames import ACK_FRAME, NACK_FRAME, encode_response
from hardware.pn532.protocol import Pn532Poller
from hardware.shoe.protocol import ShoeProtocol, card_drawn_payload
from table_controller.config import loads_config
from table_controller.errors import TableError
from table_controller.feeds import (
    Command,
    CommandReply,
    CommandServer,
    FeedEndpoints,
    FeedHub,
    Message,
    decode,
)
from table_controller.journal import Journal
from table_controller.phh import loads as phh_loads

PARSERS = ("serial", "lines", "messages", "snapshots", "commands", "config", "phh")

_VALID_MESSAGE = Message("table_state", 7, "T1", 1.7e9, {
    "hand": 3, "seats": {"1": {"player": "ann", "stack": 1000, "bet": 20}},
    "board": ["Ah", "Kd", "2c"], "hole_cards": {"1": ["??", "??"]}, "pots": [{"amount": 40}],
}).encode()
_VALID_REQUEST = Message("snapshot_request", 0, "T1", 1.7e9,
                         {"feed": "public", "request": 4}).encode()
_VALID_COMMAND = Message("command", 5, "T1", 1.7e9, {"command": "raise", "seat": 3, "to": 400},
                         "console-1").encode()
_VALID_CONFIG = """\
[table]
id = "T1"
seats = 6
[stakes]
small_blind = 5
big_blind = 10
[rake]
percent = 5.0
cap = 3
[devices]
shoe = "sim://shoe"
chips = "sim://chips"
camera = "sim://camera"
[endpoints]
public = "tcp://127.0.0.1:5550"
dealer = "tcp://127.0.0.1:5551"
surveillance = "tcp://127.0.0.1:5552"
snapshot = "tcp://127.0.0.1:5553"
surveillance_snapshot = "tcp://127.0.0.1:5554"
commands = "tcp://127.0.0.1:5555"
[keys]
security = "none"
[journal]
path = "journal.sqlite"
phh_dir = "phh"
[timing]
heartbeat_interval = 1.0
"""

_HOSTILE_VALUES: tuple[str, ...] = (
    "1" * 5000, "-" + "9" * 400, str(2**63), str(2**53), "1e400", "-1e309", "NaN", "Infinity",
    "1" + "0" * 30 + ".5", "true", "null", '""', '"' + "x" * 3000 + '"', "[]", "{}",
    "[" * 50 + "]" * 50, "0.1e-400",
)
_TOML_HOSTILE: tuple[str, ...] = (
    "1" * 5000, "1" + "0" * 400, "inf", "nan", "-inf", "1e400", "9223372036854775808",
    "[" * 3000 + "]" * 3000, "{a=" * 2000 + "1" + "}" * 2000, '"' + "x" * 1000 + '"',
    "[1, [2, [3, [4]]]]", "true", "0x7fffffffffffffffffff", "1979-05-27T07:32:00Z",
)

_VALID_PHH = """\
# a hand as PHH files write it
variant = "NT"
ante_trimming_status = true
antes = [500, 500, 500]
blinds_or_straddles = [1000, 2000, 0]
min_bet = 2000
starting_stacks = [1125600, 2000000, 553500]
actions = [
  "d dh p1 Ac2d",  # Ivey
  "d dh p2 ????",
  "d dh p3 7h6h",
  "p3 cbr 7000",
  "p1 cbr 23000",
  "p2 f",
  "p3 cc",
  "d db Jc3d5c",
  "p1 cbr 35000",
  "p3 cc",
]
finishing_stacks = [1102600, 1998000, 530500]
year = 2009
players = ["Phil Ivey", "Patrik Antonius", "Tom Dwan"]
"""
_PHH_HOSTILE: tuple[str, ...] = (
    "5e1000000", "[5e1000000, 500, 500]", "1e400", "-1e400", "1" * 5000, "1" * 4200,
    "9" * 40, "[" + "9" * 4000 + ", 1, 1]", "1e-1000000", "inf", "nan", "-inf", "[inf, 1, 1]",
    "1.5e308", "0.5", "[0.5, 1, 1]", "[" * 3000 + "]" * 3000, "[" * 40 + "1" + "]" * 40,
    "{a=" * 2000 + "1" + "}" * 2000, "[1, [2, [3, [4]]]]", '"' + "x" * 3000 + '"',
    "[" + ", ".join(["1"] * 30000) + "]", "[" + ", ".join(['"p1 f"'] * 20000) + "]",
    "[" + ", ".join(['"p1 cbr ' + "9" * 30 + '"'] * 3) + "]", '["p1 cbr 1e999999"]',
    '["p1 cbr ' + "7" * 5000 + '"]', "true", "0x7fffffffffffffffffff", "1979-05-27T07:32:00Z",
    "[" + ", ".join([str(2**63)] * 3) + "]", "[-1, -1, -1]",
)


def phh_inputs(rng: random.Random) -> Callable[[], str]:
    """A source of hostile PHH texts around a valid hand."""
    lines = _VALID_PHH.splitlines()

    def one() -> str:
        r = rng.random()
        if r < 0.05:
            return rng.randbytes(rng.randint(0, 300)).decode("latin-1")
        if r < 0.1:
            return _VALID_PHH * rng.choice([2, 50, 2000])  # duplicate keys, a huge file
        text = list(lines)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(text))
            if "=" in text[i] and rng.random() < 0.7:
                k = text[i].split("=")[0]
                text[i] = f"{k}= {rng.choice(_PHH_HOSTILE)}"
            elif text[i].startswith('  "') and rng.random() < 0.5:
                text[i] = f"  {rng.choice(_PHH_HOSTILE)},"
            else:
                text[i] = _mutate(rng, text[i].encode()).decode("utf-8", "replace")
        return "\n".join(text)

    return one


def _mutate(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(5)
        if not b:
            b.extend(rng.randbytes(rng.randint(1, 8)))
            continue
        i = rng.randrange(len(b))
        if op == 0:
            b[i] ^= 1 << rng.randrange(8)
        elif op == 1:
            del b[i:i + rng.randint(1, 16)]
        elif op == 2:
            b[i:i] = rng.randbytes(rng.randint(1, 8))
        elif op == 3:
            j = rng.randrange(len(b))
            b[i:i] = b[min(i, j):max(i, j)][:256] * rng.randint(1, 4)
        else:
            b[i:i] = rng.choice(_HOSTILE_VALUES).encode()
    return bytes(b)

def _crafted_json(rng: random.Random, valid: bytes) -> bytes:
    obj = json.loads(valid)
    key = rng.choice([*obj, "data", "extra"])
    kind = rng.randrange(4)
    if kind == 0:  # a hostile literal in a field (raw text: json.dumps cannot write it)
        text = json.dumps({**obj, key: "@@"})
        return text.replace('"@@"', rng.choice(_HOSTILE_VALUES)).encode()
    if kind == 1:  # deep nesting
        depth = rng.choice([33, 100, 999, 1000, 1001, 5000, 100_000])
        opener, closer = rng.choice([("[", "]"), ('{"a":', "}")])
        inner = opener * depth + "1" + closer * depth
        text = json.dumps({**obj, key: "@@"})
        return text.replace('"@@"', inner).encode()
    if kind == 2:  # wrong types everywhere
        bad = rng.choice([None, True, -1, 1.5, "x", [], {}, [1, 2], {"a": 1}])
        return json.dumps({**obj, key: bad}).encode()
    return json.dumps({**obj, "data": {**obj.get("data", {}),
                                       rng.choice(["seat", "to", "amount", "feed", "request",
                                                   "command"]): rng.choice(
                                           [0, -5, 2**53 - 1, "", "x" * 600, None, [1], 10.5])}}
                      ).encode()

def json_inputs(rng: random.Random, valid: bytes) -> Callable[[], bytes]:
    """A source of hostile JSON-ish inputs around ``valid``."""

    def one() -> bytes:
        r = rng.random()
        if r < 0.15:
            return rng.randbytes(rng.randint(0, 300))
        if r < 0.55:
            return _mutate(rng, valid)
        return _crafted_json(rng, valid)

    return one

def toml_inputs(rng: random.Random) -> Callable[[], str]:
    """A source of hostile configurations around a valid one."""
    lines = _VALID_CONFIG.splitlines()

    def one() -> str:
        r = rng.random()
        if r < 0.1:
            return rng.randbytes(rng.randint(0, 200)).decode("latin-1")
        cfg = list(lines)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(cfg))
            if "=" in cfg[i] and rng.random() < 0.7:
                k = cfg[i].split("=")[0]
                cfg[i] = f"{k}= {rng.choice(_TOML_HOSTILE)}"
            else:
                cfg[i] = _mutate(rng, cfg[i].encode()).decode("utf-8", "replace")
        return "\n".join(cfg)

    return one

#: The slowest inputs kept (by wall time, and by CPU time) to re-time in isolation.
SLOWEST = 8
#: Times each of the slowest inputs is re-run in isolation (the fastest run counts).
RETIMES = 5
#: An input over this much CPU time in the stream is re-timed alone too (ms) ...
SUSPECT_MS = 5.0
#: ... up to this many of them (the rest are counted, not kept).
SUSPECTS = 200
#: The target: no input over this much CPU time (ms).
TARGET_MS = 10.0

@dataclass
class Result:
    """What one parser did over ``n`` inputs.

    Each input is timed twice: wall time (``perf_counter``: includes a collection the input
    triggered, and any time the thread was not scheduled on a busy machine) and the thread's
    CPU time (``thread_time``: the work done, preemption excluded; the garbage collector's share,
    timed with ``gc.callbacks``, is told apart). The :data:`SLOWEST` inputs
    by wall time are kept and re-run :data:`RETIMES` times in isolation afterwards: an input
    that is slow again is slow parsing; one that is fast again was a pause (a scheduler
    preemption, a garbage collection).
    """

    parser: str
    n: int = 0
    answered: Counter[str] = field(default_factory=Counter)
    undocumented: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)
    max_ms: float = 0.0
    max_cpu_ms: float = 0.0
    total_s: float = 0.0
    over_10ms: int = 0
    over_10ms_cpu: int = 0
    over_10ms_in_gc: int = 0
    max_cpu_no_gc_ms: float = 0.0
    slowest: list[tuple[float, float, bytes | str]] = field(default_factory=list)
    #: the :data:`SLOWEST` inputs by CPU time in the stream
    slowest_cpu: list[tuple[float, float, bytes | str]] = field(default_factory=list)
    #: inputs over :data:`SUSPECT_MS` of CPU time in the stream (the first :data:`SUSPECTS`)
    suspects: list[tuple[float, float, bytes | str]] = field(default_factory=list)
    suspects_seen: int = 0
    retimed: list[tuple[float, float, float, str]] = field(default_factory=list)
    #: the machine's stolen CPU time during the run (``/proc/stat``, both CPUs), seconds
    steal_s: float = 0.0

    def line(self) -> str:
        return (f"{self.parser:<10} n={self.n:<8} undocumented={sum(self.undocumented.values()):<4}"
                f" max wall {self.max_ms:7.2f} ms  max cpu {self.max_cpu_ms:7.2f} ms  "
                f"mean {1e6 * self.total_s / max(self.n, 1):7.1f} us  >10 ms wall "
                f"{self.over_10ms} cpu {self.over_10ms_cpu} (of which a collection made "
                f"{self.over_10ms_in_gc}; max cpu without collections "
                f"{self.max_cpu_no_gc_ms:.2f} ms)  "
                f"answers {dict(self.answered.most_common(4))}")

    def retimed_line(self) -> str:
        """Say what the inputs re-timed alone took (the worst first)."""
        worst = sorted(self.retimed, key=lambda r: -r[2])
        over = sum(r[2] > TARGET_MS for r in self.retimed)
        top = max(self.retimed, key=lambda r: r[1], default=None)
        cpu_top = (f"; the slowest in the stream ({top[1]:.2f} ms cpu) took {top[2]:.2f} ms"
                   if top else "")
        return (f"{'':<10} re-timed alone: {len(self.retimed)} inputs (the {SLOWEST} slowest by "
                f"wall and by cpu, and {len(self.suspects)} of the {self.suspects_seen} over "
                f"{SUSPECT_MS:g} ms cpu): over {TARGET_MS:g} ms alone {over}; worst "
                f"{worst[0][2] if worst else 0.0:.2f} ms cpu{cpu_top}; machine steal "
                f"{self.steal_s:.1f} s; "
                + "; ".join(f"{w:.1f}/{c:.1f} ms -> {a:.2f} ms ({d})"
                            for w, c, a, d in worst[:3]))

    def keep(self, wall_ms: float, cpu_ms: float, raw: bytes | str) -> None:
        """Keep ``raw`` if it is among the slowest so far (wall or CPU), or a suspect."""
        if len(self.slowest) < SLOWEST or wall_ms > self.slowest[-1][0]:
            self.slowest.append((wall_ms, cpu_ms, raw))
            self.slowest.sort(key=lambda t: -t[0])
            del self.slowest[SLOWEST:]
        if len(self.slowest_cpu) < SLOWEST or cpu_ms > self.slowest_cpu[-1][1]:
            self.slowest_cpu.append((wall_ms, cpu_ms, raw))
            self.slowest_cpu.sort(key=lambda t: -t[1])
            del self.slowest_cpu[SLOWEST:]
        if cpu_ms > SUSPECT_MS:
            self.suspects_seen += 1
            if len(self.suspects) < SUSPECTS:
                self.suspects.append((wall_ms, cpu_ms, raw))

    def to_retime(self) -> list[tuple[float, float, bytes | str]]:
        """The kept inputs, each once: the slowest by wall, by CPU, and the suspects."""
        seen: set[int] = set()
        out = []
        for item in [*self.slowest, *self.slowest_cpu, *self.suspects]:
            if id(item[2]) not in seen:
                seen.add(id(item[2]))
                out.append(item)
        return out

    def retime(self, run: Callable[[bytes | str], object]) -> None:
        """Re-run the kept inputs alone; record the least CPU time of :data:`RETIMES` runs."""
        for wall_ms, cpu_ms, raw in self.to_retime():
            best = float("inf")
            for _ in range(RETIMES):
                t0 = time.thread_time()
                with contextlib.suppress(BaseException):
                    run(raw)
                best = min(best, (time.thread_time() - t0) * 1000)
            self.retimed.append((wall_ms, cpu_ms, best, _describe(raw)))

def steal_seconds() -> float:
    """The machine's stolen CPU time so far (``/proc/stat``, all CPUs; 0 where unknown)."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def _describe(raw: bytes | str) -> str:
    text = raw if isinstance(raw, str) else raw.decode("latin-1")
    return f"{len(text)} chars: {text[:40]!r}"

def _settled() -> None:
    """Freeze what set-up made out of the collector's reach, as the daemon does after its start.

    A full collection then walks only what the inputs made, not every module and fixture.
    """
    gc.collect()
    gc.freeze()

def _as_bytes(raw: bytes | str) -> bytes:
    return raw.encode() if isinstance(raw, str) else raw

class _Collector:
    """Seconds spent in the garbage collector so far (``gc.callbacks``), and collections."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.collections = 0
        self._began = 0.0
        gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._began
            self.collections += 1

_GC = _Collector()

def _start() -> tuple[float, float, float]:
    return time.perf_counter(), time.thread_time(), _GC.seconds

def _check(res: Result, exc: BaseException | None, answer: str,
           t0: tuple[float, float, float], raw: bytes | str = b"") -> None:
    dt = time.perf_counter() - t0[0]
    cpu = time.thread_time() - t0[1]
    in_gc = _GC.seconds - t0[2]
    res.max_cpu_no_gc_ms = max(res.max_cpu_no_gc_ms, (cpu - in_gc) * 1000)
    res.over_10ms_in_gc += cpu > 0.010 and cpu - in_gc <= 0.010
    res.n += 1
    res.total_s += dt
    res.max_ms = max(res.max_ms, dt * 1000)
    res.max_cpu_ms = max(res.max_cpu_ms, cpu * 1000)
    res.over_10ms += dt > 0.010
    res.over_10ms_cpu += cpu > 0.010
    res.keep(dt * 1000, cpu * 1000, raw)
    if exc is None:
        res.answered[answer] += 1
    elif isinstance(exc, TableError) and "\n" not in str(exc):
        res.answered[type(exc).__name__] += 1
    else:
        res.undocumented[type(exc).__name__] += 1
        if len(res.examples) < 5:
            res.examples.append(f"{type(exc).__name__}: {str(exc)[:200]}")

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
