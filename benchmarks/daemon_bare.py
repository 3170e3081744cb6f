"""The daemon benchmark's bare costs: what a card costs apart from the daemon's own work.

Sampled between the cards by :mod:`benchmarks.bench_daemon` (:class:`Bare`): a 16-byte frame
across processes over an ``os.openpty`` pair, one journal commit of a like entry on the same
disk (its anchor timed apart), one ZeroMQ PUB -> SUB hop to a blocking SUB socket in another
process (:data:`_SUB_CHILD`, also the daemon benchmark's subscriber of the dealer feed), and the
same hop on a PUB with the dealer feed's connections, :data:`HOP_PAUSE` after the first.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import zmq
import zmq.asyncio

from hardware.sim.pty import raw_pty
from table_controller.journal import Journal

#: Seconds between the bare hop and the same hop to the dealer feed's connections (sampled
#: right after it, the subscriber process would still be awake: measured 0.1 ms instead of 0.25).
HOP_PAUSE = 0.01


_PTY_CHILD = r"""
import os, select, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)
out = sys.stdout.buffer
while True:
    r, _, _ = select.select([fd], [], [], 60.0)
    if not r:
        break
    data = os.read(fd, 64)
    t = time.monotonic()
    if data == b"q":
        break
    out.write(repr(t).encode() + b"\n")
    out.flush()
"""

#: A subscriber process: a blocking SUB socket on ``argv[1:]`` stamping each message as it
#: arrives (``time.monotonic()``, one clock for the machine's processes), then one line
#: ``STAMP TYPE ID`` (the message's type and ``data.id``, 0 when it has none) on stdout.
_SUB_CHILD = r"""
import json, sys, time
import zmq
ctx = zmq.Context()
sock = ctx.socket(zmq.SUB)
sock.linger = 0
sock.rcvtimeo = 30000
sock.setsockopt(zmq.SUBSCRIBE, b"")
for endpoint in sys.argv[1:]:
    sock.connect(endpoint)
out = sys.stdout.buffer
while True:
    try:
        frames = sock.recv_multipart()
    except zmq.Again:
        break
    t = time.monotonic()
    if frames[0] == b"quit":
        break
    try:
        msg = json.loads(frames[-1])
        kind = str(msg.get("type", "?"))
        data = msg.get("data")
        ident = data.get("id", 0) if isinstance(data, dict) else 0
    except ValueError:
        kind, ident = "?", 0
    out.write(f"{t!r} {kind} {ident if isinstance(ident, int) else 0}\n".encode())
    out.flush()
"""


def _subscriber(*endpoints: str) -> subprocess.Popen[bytes]:
    """Start a :data:`_SUB_CHILD` on ``endpoints``."""
    return subprocess.Popen([sys.executable, "-c", _SUB_CHILD, *endpoints],
                            stdout=subprocess.PIPE)


class Bare:
    """Samples of the unavoidable costs, taken between cards."""

    def __init__(self, tmp: Path) -> None:
        master, slave = raw_pty()
        self.master = master
        self.slave = slave
        self.child = subprocess.Popen([sys.executable, "-c", _PTY_CHILD, os.ttyname(slave)],
                                      stdout=subprocess.PIPE)
        assert self.child.stdout is not None
        self.child_out = self.child.stdout
        self.journal = Journal.open(tmp / "bare.db")
        self.ctx = zmq.Context()
        self.pub = self.ctx.socket(zmq.PUB)
        self.pub.linger = 0
        port = self.pub.bind_to_random_port("tcp://127.0.0.1")
        self.sub = self.ctx.socket(zmq.SUB)
        self.sub.linger = 0
        self.sub.setsockopt(zmq.SUBSCRIBE, b"")
        self.sub.connect(f"tcp://127.0.0.1:{port}")
        # the hop as the prompt makes it: to a blocking SUB socket in another process (the old
        # bare hop: that subscriber its only connection)
        self.xpub = self.ctx.socket(zmq.PUB)
        self.xpub.linger = 0
        xport = self.xpub.bind_to_random_port("tcp://127.0.0.1")
        # the same, on a PUB with the dealer feed's connections in this benchmark: that
        # subscriber and the dealer's console, a SUB of this process's asyncio context (joined
        # by :meth:`join_console`; its messages are taken between the samples, as the console's)
        self.xpub2 = self.ctx.socket(zmq.PUB)
        self.xpub2.linger = 0
        self.xport2 = self.xpub2.bind_to_random_port("tcp://127.0.0.1")
        self.console: zmq.Socket[bytes] | None = None
        self.hop_child = _subscriber(f"tcp://127.0.0.1:{xport}",
                                     f"tcp://127.0.0.1:{self.xport2}")
        assert self.hop_child.stdout is not None
        self.hop_out = self.hop_child.stdout
        for pub in (self.xpub, self.xpub2):
            while True:  # slow joiner: publish until the subscriber has one
                pub.send_multipart([b"warmup", b"{}"])
                if select.select([self.hop_out], [], [], 0.05)[0]:
                    break
        time.sleep(0.3)
        while select.select([self.hop_out], [], [], 0)[0]:
            os.read(self.hop_out.fileno(), 65536)  # the warm-up lines (the pipe is not buffered)
        self.pty: list[float] = []
        self.commit: list[float] = []
        self.hop: list[float] = []
        self.hop_local: list[float] = []
        #: the hop on a PUB with the dealer feed's connections (see :meth:`join_console`)
        self.hop_feed: list[float] = []
        self.total_feed: list[float] = []
        self.anchor: list[float] = []
        self.total: list[float] = []
        self.total_local: list[float] = []

    def join_console(self, ctx: zmq.asyncio.Context) -> None:
        """Connect the dealer console's stand-in: a SUB of ``ctx`` (the dealer client's)."""
        sync: zmq.Context[zmq.Socket[bytes]] = zmq.Context.shadow(ctx.underlying)
        sock: zmq.Socket[bytes] = sync.socket(zmq.SUB)
        sock.linger = 0
        sock.setsockopt(zmq.SUBSCRIBE, b"")
        sock.connect(f"tcp://127.0.0.1:{self.xport2}")
        while True:  # slow joiner: until the console has one, then the subscriber's lines
            self.xpub2.send_multipart([b"warmup", b"{}"])
            if sock.poll(50):
                break
        time.sleep(0.3)
        while sock.poll(0):
            sock.recv_multipart()
        while select.select([self.hop_out], [], [], 0)[0]:
            os.read(self.hop_out.fileno(), 65536)
        self.console = sock

    def leave_console(self) -> None:
        """Close the console's stand-in (before its context is destroyed)."""
        if self.console is not None:
            self.console.close(linger=0)
            self.console = None

    def sample(self) -> None:
        frame = bytes(range(15)) + b"\x00"
        t0 = time.monotonic()
        os.write(self.master, frame)
        line = self.child_out.readline()
        self.pty.append(float(line) - t0)
        payload = {"input": {"kind": "card", "uid": "04A1B2C3D4E5F6", "shoe_ms": 123456},
                   "text": "Hole card 1 dealt to seat 3"}
        t0 = time.perf_counter()
        self.journal.append("device_event", payload, wall_time=time.time(),
                            mono_time=time.monotonic(), anchor=False)
        self.commit.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        self.journal.sync_anchor()  # off the daemon's path (after its prompt): not in the sum
        self.anchor.append(time.perf_counter() - t0)
        body = (b'{"v":1,"type":"prompt","seq":1,"table":"T1","ts":0,"data":{"id":1,'
                b'"text":"Deal the second hole card to seat 3","step":{"kind":"deal_hole"}}}')
        t0 = time.monotonic()
        self.xpub.send_multipart([b"T1/prompt", body])
        line = self.hop_out.readline()
        self.hop.append(float(line.split()[0]) - t0)
        t0 = time.perf_counter()
        self.pub.send_multipart([b"T1/prompt", body])
        self.sub.recv_multipart()
        self.hop_local.append(time.perf_counter() - t0)
        if self.console is not None:
            time.sleep(HOP_PAUSE)  # not on the heels of the hop above (the subscriber awake)
            t0 = time.monotonic()
            self.xpub2.send_multipart([b"T1/prompt", body])
            line = self.hop_out.readline()
            self.hop_feed.append(float(line.split()[0]) - t0)
            while self.console.poll(0):  # the console's copy, read after the hop
                self.console.recv_multipart()
            self.total_feed.append(self.pty[-1] + self.commit[-1] + self.hop_feed[-1])
        self.total.append(self.pty[-1] + self.commit[-1] + self.hop[-1])
        self.total_local.append(self.pty[-1] + self.commit[-1] + self.hop_local[-1])

    def close(self) -> None:
        os.write(self.master, b"q")
        self.child.wait(5)
        self.xpub.send_multipart([b"quit", b""])
        try:
            self.hop_child.wait(5)
        except subprocess.TimeoutExpired:  # pragma: no cover - the quit was lost
            self.hop_child.kill()
        self.leave_console()
        for fd in (self.master, self.slave):
            os.close(fd)
        self.journal.close()
        self.ctx.destroy(linger=0)
