"""Hostile load: the demo's daemon under 20 hostile clients and a command flood, beside a quiet run.

In one invocation, two runs of the same seeded table (the one simulation rig,
:class:`~table_controller.simtable.rig.SimRig`: the daemon as its own process on simulated
devices over real ptys, TCP endpoints on 127.0.0.1, CURVE on the command and surveillance
sockets; the one simulated dealer plays ``--hands`` hands):

- **quiet**: nothing else talks to the daemon;
- **hostile**: a separate process runs ``--clients`` unauthenticated clients at full speed for
  the whole run (each sends as fast as the daemon takes its messages), in turn: subscribers
  sending raw 64 KB subscriptions to the public and dealer feeds (and reconnecting), 64 MB
  snapshot requests, malformed and deeply nested snapshot requests, failed CURVE handshakes on
  the command endpoint; and one *allowed* console (its own key: the rate limit is per key)
  pipelines ``--commands`` ``status`` commands at once. ``--attack-nice 19`` runs that process
  below everything else (as if the attackers were on other computers), ``--daemon-nice -5``
  the daemon above (its threads and its scheduling group).

Measured in both runs: the daemon's RSS (``VmRSS`` sampled every 50 ms; ``VmHWM`` at the end),
the longest gap between two messages of the public feed as seen by a legitimate subscriber
(the feed heartbeat is 0.1 s here, so a quiet feed shows ~100 ms) and as the daemon sent them
(the messages' ``ts`` stamps: a gap the subscriber sees but the stamps do not is the
benchmark's own process late, whose loop lag is reported beside it), the reply time of a
legitimate console's ``status`` sent every 0.1 s (p50, p99, max), the flood's answers
(accepted, refused by the rate limit), and the hands: the hand histories of the two runs must
be the same hands (PHH files equal, timestamps aside) and chips before + buy-ins = after + rake.

The daemon's own account is printed beside (its ``status`` command's ``loop``): how late its
heartbeats were (or the message that came after one was due), and for the latest what its
event loop did meanwhile (turns on the CPU, waiting for a CPU, blocked; see
:mod:`table_controller.looptime`), its longest turns, its command turns and journal commits,
and the CPU and run-queue time of its threads (``/proc/PID/task/*/schedstat``).

Targets: RSS < 200 MB, longest feed gap < 500 ms, heartbeat at most 100 ms late, legitimate
reply p99 < 200 ms, same hands.
Run: ``python -m benchmarks hostile`` (``python -m benchmarks.bench_hostile --hands N``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zmq
import zmq.asyncio

from table_controller.feeds import ClientKeys, Message, create_key_pair
from table_controller.feeds.console_client import CommandClient
from table_controller.simtable.daemon_io import open_daemon_session
from table_controller.simtable.dealer import SimDealer
from table_controller.simtable.keys import rig_keys
from table_controller.simtable.players import Lobby
from table_controller.simtable.rig import RigOptions, SimRig
from table_controller.simtable.scenario import drive

#: The table: the demo's (6 seats, 5 players, 5 % rake capped at 500), board read from the
#: board file (``--fast``), a 0.1 s feed heartbeat so that a feed gap is measured finely.
TABLE = RigOptions(seats=6, rake_percent=5.0, rake_cap=500, camera_level="exact", tcp=True,
                   heartbeat=0.1, name="Hostile bench")
BUY_IN = 10_000
#: Seconds between two probes of the legitimate console.
PROBE_EVERY = 0.1
KINDS = ("subscribe", "snapshot64", "malformed", "nested", "commands")


@dataclass
class RunResult:
    """What one run measured."""

    name: str
    rss_max_mb: float = 0.0
    hwm_mb: float = 0.0
    gap_max_ms: float = 0.0
    #: the longest gap between the ``ts`` stamps of two consecutive feed messages: the gap as
    #: the daemon published it, whatever the subscriber's own process was doing
    gap_sent_max_ms: float = 0.0
    #: the benchmark process's own loop lag (a 10 ms sleep's overshoot, longest): a gap seen
    #: at the subscriber that the stamps do not show is this process being late
    own_lag_max_ms: float = 0.0
    feed_messages: int = 0
    probe_ms: list[float] = field(default_factory=list)
    #: when each probe was sent (monotonic), beside :attr:`probe_ms`
    probe_at: list[float] = field(default_factory=list)
    probe_failures: int = 0
    flood_answers: dict[str, int] = field(default_factory=dict)
    flood_seconds: float = 0.0
    #: when the flood began and ended (monotonic)
    flood_window: tuple[float, float] = (0.0, 0.0)
    hands: int = 0
    chips_agree: bool = False
    phh: dict[str, str] = field(default_factory=dict)
    attack_sent: dict[str, int] = field(default_factory=dict)
    #: the attackers' messages the daemon answered (error replies), per kind
    attack_answered: dict[str, int] = field(default_factory=dict)
    #: the daemon's own account at the end (``status`` ``loop``): its loop's turns, how late
    #: its heartbeats were and why, its command turns
    loop: dict[str, Any] = field(default_factory=dict)
    #: seconds the daemon's threads waited for a CPU during the run (``schedstat``)
    run_delay_s: float = 0.0
    #: the daemon's CPU time during the run (all its threads), seconds
    cpu_s: float = 0.0
    seconds: float = 0.0
    load: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def during_flood(self) -> str:
        """The probe's reply times while the flood was being answered (p50, p99, max)."""
        start, end = self.flood_window
        p = sorted(ms for at, ms in zip(self.probe_at, self.probe_ms, strict=True)
                   if start <= at <= end)
        if not p:
            return "no probe during the flood"
        p99 = p[min(len(p) - 1, int(len(p) * 0.99))]
        return (f"status reply during the flood p50 {statistics.median(p):.1f} p99 {p99:.1f} "
                f"max {p[-1]:.1f} ms (n={len(p)})")

    def heartbeat_late_ms(self) -> float:
        """The latest heartbeat by the stamps: the longest gap between two, less the interval."""
        return max(0.0, self.gap_sent_max_ms - 1000 * TABLE.heartbeat)

    def loop_lines(self) -> list[str]:
        """What the daemon says of its loop, heartbeats and command turns (``status``)."""
        hb = self.loop.get("heartbeats") or {}
        turns = self.loop.get("turns") or {}
        cmds = self.loop.get("commands") or {}
        worst = hb.get("worst") or {}
        longest = ", ".join(f"{t['wall_ms']:.0f}/{t['cpu_ms']:.0f}/{t.get('queued_ms', 0):.0f}"
                            for t in turns.get("longest_turns", []))
        return [
            f"{'':<8} heartbeat late: {self.heartbeat_late_ms():.0f} ms by the stamps; the "
            f"daemon's own count: {hb.get('count', 0)} heartbeats due, latest "
            f"{hb.get('late_max_ms', 0):.1f} ms late, {hb.get('late_over_100ms', 0)} over "
            f"100 ms; that one's {worst.get('span_ms', 0):.0f} ms: {worst.get('turns', 0)} "
            f"turns of {worst.get('turns_ms', 0):.1f} ms (on the CPU "
            f"{worst.get('turns_cpu_ms', 0):.1f}, waiting for a CPU "
            f"{worst.get('turns_queued_ms', 0):.1f}, blocked {worst.get('blocked_ms', 0):.1f}; "
            f"longest turn {worst.get('longest_turn_ms', 0):.1f} ms), "
            f"{worst.get('waiting_ms', 0):.1f} ms outside turns (in select, or woken late)",
            f"{'':<8} loop: {turns.get('turns', 0)} turns, {turns.get('busy_s', 0):.2f} s in "
            f"turns ({turns.get('cpu_s', 0):.2f} s on the CPU, {turns.get('queued_s', 0):.2f} s "
            f"waiting for one), turns over 20/50/100 ms: "
            f"{'/'.join(str(v) for v in (turns.get('turns_over_ms') or {}).values())}, longest "
            f"(wall/cpu/waiting for a CPU, ms) {longest}; woken late by "
            f"{turns.get('woke_late_max_ms', 0):.1f} ms at most; command turns "
            f"{cmds.get('turns', 0)} (longest "
            f"{cmds.get('longest_ms', 0):.1f} ms, {cmds.get('cut_by_budget', 0)} cut by the "
            f"budget), longest journal commit {cmds.get('longest_commit_ms', 0):.1f} ms "
            f"({cmds.get('commits_off_loop', 0)} commits off the loop, the longest on it "
            f"{cmds.get('longest_loop_commit_ms', 0):.1f} ms); heartbeats sent by the keeper "
            f"while the loop was in a journal write: {self.loop.get('kept_heartbeats', 0)}; the "
            f"daemon's threads: {self.cpu_s:.1f} s cpu, {self.run_delay_s:.1f} s waiting for "
            f"a CPU",
        ]

    def line(self) -> str:
        p = sorted(self.probe_ms)
        p50 = statistics.median(p) if p else float("nan")
        p99 = p[min(len(p) - 1, int(len(p) * 0.99))] if p else float("nan")
        mx = p[-1] if p else float("nan")
        return (f"{self.name:<8} RSS max {self.rss_max_mb:6.1f} MB (HWM {self.hwm_mb:6.1f})  "
                f"feed gap max {self.gap_max_ms:6.0f} ms at the subscriber, "
                f"{self.gap_sent_max_ms:6.0f} ms as sent ({self.feed_messages} msgs; "
                f"subscriber's own lag max {self.own_lag_max_ms:6.0f} ms)  "
                f"status reply p50 {p50:6.1f} p99 {p99:6.1f} max {mx:6.1f} ms "
                f"(n={len(p)}, failed {self.probe_failures})  hands {self.hands} "
                f"chips agree {self.chips_agree}  {self.seconds:.0f} s  machine load "
                f"{self.load[0]:.1f}")


def _schedstat(pid: int) -> tuple[float, float]:
    """The CPU time and the time waiting for a CPU of all of ``pid``'s threads, seconds."""
    run = wait = 0
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = (task / "schedstat").read_text().split()
            run += int(fields[0])
            wait += int(fields[1])
    return run / 1e9, wait / 1e9


def _rss_kb(pid: int, key: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


async def _sample_rss(pid: int, res: RunResult) -> None:
    while True:
        res.rss_max_mb = max(res.rss_max_mb, _rss_kb(pid, "VmRSS") / 1024)
        await asyncio.sleep(0.05)


async def _watch_feed(ctx: zmq.asyncio.Context, endpoint: str, res: RunResult,
                      started: asyncio.Event) -> None:
    sock = ctx.socket(zmq.SUB)
    sock.linger = 0
    sock.subscribe(b"")
    sock.connect(endpoint)
    last: float | None = None
    last_ts: float | None = None
    try:
        while True:
            frames = await sock.recv_multipart()
            now = time.monotonic()
            res.feed_messages += 1
            try:
                ts = float(json.loads(frames[-1])["ts"])
            except (ValueError, KeyError, TypeError):
                ts = None
            if last is not None and started.is_set():
                res.gap_max_ms = max(res.gap_max_ms, (now - last) * 1000)
                if ts is not None and last_ts is not None:
                    res.gap_sent_max_ms = max(res.gap_sent_max_ms, (ts - last_ts) * 1000)
            last = now
            if ts is not None:
                last_ts = ts
    finally:
        sock.close(linger=0)


async def _own_lag(res: RunResult, started: asyncio.Event) -> None:
    """Measure this process's loop lag: how late a 10 ms sleep wakes up."""
    while True:
        t0 = time.monotonic()
        await asyncio.sleep(0.01)
        if started.is_set():
            res.own_lag_max_ms = max(res.own_lag_max_ms,
                                     (time.monotonic() - t0 - 0.01) * 1000)


async def _probe(rig: SimRig, ctx: zmq.asyncio.Context, res: RunResult) -> None:
    client = CommandClient(ctx, rig.endpoints["commands"], table_id=rig.options.table_id,
                           console_id=f"probe-{os.getpid()}", keys=rig.console_keys(),
                           timeout=5.0)
    try:
        while True:
            t0 = time.monotonic()
            try:
                await client.send("status")
                res.probe_ms.append((time.monotonic() - t0) * 1000)
                res.probe_at.append(t0)
            except Exception:  # a timeout is a failed probe, counted
                res.probe_failures += 1
            await asyncio.sleep(max(0.0, PROBE_EVERY - (time.monotonic() - t0)))
    finally:
        await client.close()


def _flood_keys(rig: SimRig) -> None:
    """Give the flood its own allowed console key (before the daemon starts).

    The rate limit is per console key: a flood on the dealer's own key would be the dealer
    flooding itself (its commands refused by the limit its flood used up).
    """
    kdir = rig.dir / "keys"
    rig_keys(kdir)  # the rig's keys, which its start then finds and keeps
    create_key_pair(kdir, "flood")
    shutil.copy(kdir / "flood.key", kdir / "consoles" / "flood.key")


def _flood_client_keys(rig: SimRig) -> ClientKeys | None:
    if rig.console_keys() is None:
        return None
    kdir = rig.dir / "keys"
    return ClientKeys.from_files(kdir / "flood.key_secret", kdir / "server.key")


async def _flood(rig: SimRig, ctx: zmq.asyncio.Context, n: int, res: RunResult) -> None:
    """An allowed console (its own key) pipelining ``n`` status commands; count its answers."""
    sock = ctx.socket(zmq.DEALER)
    sock.linger = 0
    keys = _flood_client_keys(rig)
    if keys is not None:
        keys.apply(sock)
    sock.connect(rig.endpoints["commands"])
    t0 = time.monotonic()
    answers = res.flood_answers
    try:
        for seq in range(1, n + 1):
            body = Message("command", seq, rig.options.table_id, time.time(),
                           {"command": "status"}, "flood-console").encode()
            await sock.send_multipart([b"", body])
        got = 0
        while got < n:
            if not await sock.poll(10_000):
                answers["no answer"] = n - got
                break
            frames = await sock.recv_multipart()
            got += 1
            data = json.loads(frames[-1]).get("data", {})
            key = "accepted" if data.get("accepted") else str(data.get("reason", "refused"))[:40]
            answers[key] = answers.get(key, 0) + 1
    finally:
        sock.close(linger=0)
        res.flood_seconds = time.monotonic() - t0
        res.flood_window = (t0, time.monotonic())


# -- the attackers (their own process) ---------------------------------------------------------

#: One 64 MB snapshot request, made once (the attackers send the same bytes, not copies).
_BODY_64MB = b"{" + b" " * (64 << 20) + b"}"
#: A subscription to a 64 KB topic, as a subscriber's socket sends it.
_SUBSCRIPTION_64KB = b"\x01" + random.Random(5).randbytes(64 << 10)


async def _send(sock: zmq.asyncio.Socket, body: bytes, kind: str, sent: dict[str, int]) -> bool:
    """Send ``body`` as fast as the daemon takes it (waits on a full queue; 1 s at most)."""
    try:
        async with asyncio.timeout(1.0):
            await sock.send_multipart([b"", body], copy=False)
    except TimeoutError:  # the daemon stopped reading this peer: a new connection
        return False
    sent[kind] += 1
    return True


async def _drain(sock: zmq.asyncio.Socket, kind: str, answered: dict[str, int]) -> None:
    """Read the answers that came (errors), so the daemon's replies are not what waits."""
    while await sock.poll(0):
        await sock.recv_multipart()
        answered[kind] += 1


async def _attacker(kind: str, ep: dict[str, str], rng: random.Random,
                    sent: dict[str, int], answered: dict[str, int]) -> None:
    ctx = zmq.asyncio.Context.instance()
    while True:
        if kind == "subscribe":
            # raw subscription messages (an XSUB socket); 64 KB, 64 times the daemon's limit: a
            # SUB socket builds a trie of each topic it subscribes to (a quarter of a second of
            # the attackers' CPU for 1 MB, which throttled every attacker of the process), and
            # libzmq's XSUB crashes (recursion) on closing with a 1 MB topic
            sock = ctx.socket(zmq.XSUB)
            sock.linger = 0
            sock.connect(ep[rng.choice(["public", "dealer"])])
            for _ in range(10):
                try:
                    async with asyncio.timeout(1.0):
                        await sock.send(_SUBSCRIPTION_64KB, copy=False)
                except TimeoutError:
                    break
                sent[kind] += 1
            await asyncio.sleep(0.01)  # time to leave before the socket closes
            sock.close(linger=0)
            continue
        sock = ctx.socket(zmq.DEALER)
        sock.linger = 0
        sock.sndhwm = 16
        target = "commands" if kind == "commands" else rng.choice(
            ["snapshot", "surveillance_snapshot"])
        if kind == "commands":  # an unknown CURVE key: the handshake fails
            pub, sec = zmq.curve_keypair()
            sock.curve_publickey, sock.curve_secretkey = pub, sec
            sock.curve_serverkey = zmq.curve_keypair()[0]
        sock.connect(ep[target])
        if kind == "snapshot64":  # the daemon cuts the peer off at the frame's size
            await _send(sock, _BODY_64MB, kind, sent)
            await asyncio.sleep(0.05)  # time for the frame's header to leave
            sock.close(linger=0)
            continue
        for _ in range(1 if kind == "commands" else 2000):
            if kind == "nested":
                depth = rng.choice([1000, 10_000, 100_000])
                body = (b'{"type":"snapshot_request","seq":0,"table":"T1","ts":1,"data":'
                        + b"[" * depth + b"]" * depth + b"}")
            else:
                body = rng.choice([rng.randbytes(rng.randint(0, 600)),
                                   b'{"type":"snapshot_request","ts":1e999999,"data":{}}',
                                   b'{"type":"snapshot_request","seq":' + b"9" * 5000 + b"}",
                                   b'{"type":"snapshot_request","seq":0,"table":"T1",'
                                   b'"ts":1,"data":{"feed":"public","request":'
                                   + b"1" * 400 + b"}}"])
            if not await _send(sock, body, kind, sent):
                break
            await _drain(sock, kind, answered)
        if kind == "commands":
            await asyncio.sleep(0.05)  # the handshake is tried, and fails
        sock.close(linger=0)


async def _attack(ep: dict[str, str], clients: int, out: Path) -> None:
    sent = dict.fromkeys(KINDS, 0)
    answered = dict.fromkeys(KINDS, 0)
    tasks = [asyncio.create_task(_attacker(KINDS[i % len(KINDS)], ep, random.Random(i), sent,
                                           answered))
             for i in range(clients)]
    try:
        while True:
            await asyncio.sleep(0.5)
            tmp = out.with_suffix(".tmp")
            tmp.write_text(json.dumps({"sent": sent, "answered": answered}))
            tmp.replace(out)
    finally:
        for t in tasks:
            t.cancel()


# -- one run --------------------------------------------------------------------------------

def _renice(pid: int, nice: int) -> None:
    """Set ``pid``'s threads and its scheduling group to niceness ``nice``.

    The daemon is started in a session of its own, so with Linux's autogroups its threads' nice
    only orders them among themselves: the group's own nice (``/proc/PID/autogroup``) sets its
    share against the machine's other sessions, as a service unit's ``CPUWeight=`` would for
    its cgroup.
    """
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError, ValueError):
            os.setpriority(os.PRIO_PROCESS, int(task.name), nice)
    with contextlib.suppress(OSError):
        Path(f"/proc/{pid}/autogroup").write_text(str(nice))


async def one_run(name: str, hands: int, seed: int, hostile: bool, clients: int,
                  commands: int, daemon_nice: int | None = None,
                  attack_nice: int = 0) -> RunResult:
    """Play ``hands`` hands on a fresh simulated table, hostile or quiet; measure."""
    res = RunResult(name)
    rig = SimRig(dataclasses.replace(TABLE, seed=seed))
    if rig.options.security == "curve":
        _flood_keys(rig)  # in both runs: the same keys, the same table
    started_at = time.monotonic()
    await asyncio.to_thread(rig.start)
    assert rig.process is not None
    pid = rig.process.pid
    if daemon_nice is not None:
        _renice(pid, daemon_nice)
    ctx = zmq.asyncio.Context()
    attack: subprocess.Popen[bytes] | None = None
    counts = rig.dir / "attack.json"
    background: list[asyncio.Task[None]] = []
    try:
        running = asyncio.Event()
        background.append(asyncio.create_task(_sample_rss(pid, res)))
        background.append(asyncio.create_task(
            _watch_feed(ctx, rig.endpoints["public"], res, running)))
        background.append(asyncio.create_task(_own_lag(res, running)))
        await asyncio.sleep(0.5)
        io, driver, cmd, feed = await open_daemon_session(rig, ctx)
        seats = list(range(1, 6))
        lobby = Lobby(seats, seed, BUY_IN, big_blind=rig.options.big_blind)
        dealer = SimDealer(io, lobby.decide, seats={s: (lobby.players[s].name, BUY_IN)
                                                    for s in seats},
                           hands=hands, seed=seed, board_settle=0.15, mucks=lobby.mucks,
                           camera_wait=0.0, lobby=lobby)
        if hostile:
            attack = subprocess.Popen(
                [sys.executable, "-m", "benchmarks.bench_hostile", "--attack",
                 json.dumps(rig.endpoints), "--clients", str(clients), "--counts", str(counts)],
                preexec_fn=(lambda: os.nice(attack_nice)) if attack_nice else None)
            await asyncio.sleep(1.0)  # the attackers at full speed before the first hand
        running.set()
        cpu0, wait0 = _schedstat(pid)
        background.append(asyncio.create_task(_probe(rig, ctx, res)))
        flood = asyncio.create_task(_flood(rig, ctx, commands, res)) if hostile else None
        await drive(dealer, driver, wait=10.0, stuck_after=3)
        await driver.settle(0.3)
        if flood is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(30.0):
                    await flood
        status = (await cmd.send("status")).result
        cpu1, wait1 = _schedstat(pid)
        res.cpu_s, res.run_delay_s = cpu1 - cpu0, wait1 - wait0
        res.loop = dict(status.get("loop") or {})
        res.hands = int(status.get("hands_played", 0))
        res.chips_agree = (int(status.get("chips_in_play", 0)) + int(status.get("rake_total", 0))
                           == BUY_IN * len(seats) + dealer.log.buy_ins)
        res.hwm_mb = _rss_kb(pid, "VmHWM") / 1024
        await feed.close()
        await cmd.close()
    finally:
        for t in background:
            t.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        if attack is not None:
            attack.terminate()
            attack.wait(10)
            with contextlib.suppress(OSError, ValueError):
                counted = json.loads(counts.read_text())
                res.attack_sent, res.attack_answered = counted["sent"], counted["answered"]
        ctx.destroy(linger=0)
        await asyncio.to_thread(rig.terminate)
        for p in sorted(rig.phh_dir.glob("*.phh")):
            res.phh[p.name.split("_", 1)[-1]] = "\n".join(
                ln for ln in p.read_text().splitlines() if not ln.startswith(
                    ("time", "day", "month", "year", "time_zone")))
        await asyncio.to_thread(rig.stop)
    res.seconds = time.monotonic() - started_at
    res.load = os.getloadavg()
    return res


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=10)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--commands", type=int, default=3000)
    ap.add_argument("--daemon-nice", type=int, default=None,
                    help="run the daemon at this niceness (negative: before the machine's "
                         "other work; needs the right to)")
    ap.add_argument("--attack-nice", type=int, default=0,
                    help="run the attackers' process at this niceness (19: the daemon's "
                         "machine left to it first, as if the attackers were on other "
                         "computers; 0, the default: they share the CPUs as equals)")
    ap.add_argument("--attack", help=argparse.SUPPRESS)
    ap.add_argument("--counts", help=argparse.SUPPRESS)
    if argv is None:  # run by ``python -m benchmarks``: its own defaults
        argv = sys.argv[1:] if __name__ == "__main__" else []
    args = ap.parse_args(argv)
    if args.attack:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(_attack(json.loads(args.attack), args.clients, Path(args.counts)))
        return
    if args.daemon_nice is not None:
        print(f"the daemon at niceness {args.daemon_nice}", flush=True)
    quiet = asyncio.run(one_run("quiet", args.hands, args.seed, False, 0, 0, args.daemon_nice))
    print(quiet.line(), flush=True)
    print("\n".join(quiet.loop_lines()), flush=True)
    if args.attack_nice:
        print(f"the attackers at niceness {args.attack_nice}", flush=True)
    hostile = asyncio.run(one_run("hostile", args.hands, args.seed, True, args.clients,
                                  args.commands, args.daemon_nice, args.attack_nice))
    print(hostile.line(), flush=True)
    print("\n".join(hostile.loop_lines()), flush=True)
    print(f"  flood of {args.commands} status commands from an allowed console: "
          f"{hostile.flood_answers} in {hostile.flood_seconds:.1f} s; "
          f"{hostile.during_flood()}")
    print(f"  attackers ({args.clients} clients) sent: {hostile.attack_sent}; answered: "
          f"{hostile.attack_answered}")
    same = quiet.phh == hostile.phh and len(quiet.phh) == args.hands
    print(f"  hands: quiet {quiet.hands}, hostile {hostile.hands}; hand histories "
          f"{'the same' if same else 'DIFFER'} ({len(hostile.phh)} files)")
    targets = [("RSS < 200 MB", hostile.hwm_mb < 200), ("feed gap < 500 ms",
               hostile.gap_max_ms < 500),
               ("feed gap as sent < 500 ms", hostile.gap_sent_max_ms < 500),
               ("heartbeat at most 100 ms late", hostile.heartbeat_late_ms() <= 100),
               ("reply p99 < 200 ms", bool(hostile.probe_ms) and sorted(hostile.probe_ms)[
                   min(len(hostile.probe_ms) - 1, int(len(hostile.probe_ms) * 0.99))] < 200),
               ("same hands, chips agree", same and hostile.chips_agree and quiet.chips_agree)]
    print("  targets: " + ", ".join(f"{n}: {'met' if ok else 'MISSED'}" for n, ok in targets))


if __name__ == "__main__":
    main()
