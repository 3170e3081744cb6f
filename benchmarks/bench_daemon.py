"""Controller daemon: shoe frame -> prompt latency beside the bare costs it cannot avoid, and RSS.

In one run, with the daemon as its own process on simulated devices over real ptys (the one
simulation rig, :class:`~table_controller.simtable.rig.SimRig`, with the end-to-end tests'
settings: TCP endpoints, CURVE, no rake; the one simulated dealer,
:class:`~table_controller.simtable.session.DealerSession`, stepped between the timed cards):

- **card -> prompt**: from the moment the simulated shoe (``sim run``, its own process) writes a
  ``CARD_DRAWN`` frame to its pty (its ``time.monotonic()`` just before the write, given in the
  control reply) until a subscriber process of the dealer feed receives the next ``prompt``
  (a blocking SUB socket, its own process, stamping each message as it arrives: pty read,
  parse, core, one journal commit, publish, ZeroMQ hop). With ``--tap`` (the old method) the
  old measure, from before the dealer's draw request (the control socket's round trip to
  ``sim run`` included) until an asyncio SUB socket in the dealer's process (the *tap*) has the
  prompt, is printed beside it; without it there is no tap: the tap, a subscriber only the
  old measure needs, woke this process on every prompt while the subscriber process was
  receiving it, and slowed the measured hop (about 0.17 ms at p50, ``docs/benchmarks.md``);
- **bare costs**, sampled between the cards, apart from the daemon's own work (after the
  daemon's ``table_state`` following the prompt arrived, and a pause): a 16-byte frame across
  processes over an ``os.openpty`` pair, one journal commit (SQLite WAL, synchronous=FULL) of a
  like entry on the same disk, as the daemon commits a card (its anchor deferred: the daemon
  writes the anchor after the prompt, so the anchor's write is timed apart and not in the sum),
  one ZeroMQ PUB -> SUB hop on 127.0.0.1 to a blocking SUB socket in another process, stamped
  as it arrives, as the prompt is (the dealer feed has no CURVE, so neither has the hop; the
  old hop, both sockets in this process, is printed beside it). The three are added *per
  sample* (the bare cost of one card), and the daemon's p99 is compared with the p99 of those
  sums (a sum of per-component p99s would overstate the bare cost). Printed beside them, not
  the verdict: the same hop on a PUB with the dealer feed's connections in this benchmark (the
  subscriber process and the dealer's console, a SUB of this process's asyncio context),
  sampled :data:`~benchmarks.daemon_bare.HOP_PAUSE` after the first hop, and the sums and
  ratios with it (the bare costs: :mod:`benchmarks.daemon_bare`; the report:
  :mod:`benchmarks.daemon_report`);
- cards are drawn :data:`GAP` seconds after the daemon went quiet (a dealer takes longer), and
  hands are played until at least ``--samples`` cards (default 2,000) were timed;
- the daemon's RSS (``VmRSS``, ``VmHWM``) on a running table after the hands.

Run: ``python -m benchmarks daemon`` (``--hands N`` with ``python -m benchmarks.bench_daemon``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import zmq
import zmq.asyncio

from benchmarks.daemon_bare import Bare, _subscriber
from benchmarks.daemon_report import camera_report, report
from table_controller.engine import FULL_DECK, Card
from table_controller.feeds import decode, topic
from table_controller.simtable.rig import RigOptions, SimRig
from table_controller.simtable.session import DealerSession, dealer_session

#: Seconds between the daemon going quiet and the bare sample, and again before the next card.
GAP = 0.02
#: How long ``sim run`` holds back its reply to a timed draw (seconds): the reply would wake this
#: process while the card's frame crosses to the daemon, which no real shoe's client does (it
#: slowed the daemon's wake-up on the frame: ``docs/benchmarks.md``); ``--draw-reply-after 0``
#: answers at once, as before.
DRAW_REPLY_AFTER = 0.010
#: The table: 6 seats (3 players), no rake, TCP endpoints (the bare hop is on TCP too), a 1.5 s
#: chip settle window, devices heartbeating every 0.2 s.
TABLE = RigOptions(seats=6, rake_percent=0.0, camera_level="exact", tcp=True, settle=1.5,
                   heartbeat=0.25, device_heartbeat=0.2, link_heartbeat=0.2)


def rss(pid: int) -> dict[str, int]:
    """Return ``VmRSS`` and ``VmHWM`` of ``pid`` in kB."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0])
    return out


def _shuffled(rng: random.Random) -> list[Any]:
    order = list(FULL_DECK)
    rng.shuffle(order)
    return order


class Timed:
    """The card -> prompt samples of one run (seconds)."""

    def __init__(self) -> None:
        #: frame written -> the subscriber process has the prompt (the measure)
        self.latency: list[float] = []
        #: the old measure: draw request -> the dealer's asyncio socket has the prompt
        self.latency_old: list[float] = []
        #: draw request -> frame written (the control socket's round trip, in the old measure)
        self.request: list[float] = []
        #: when each timed card's frame was written (``time.monotonic()``, the machine's clock)
        self.written: list[float] = []


class _Stamps:
    """The lines of a :data:`~benchmarks.daemon_bare._SUB_CHILD`, read in the event loop.

    Lines of messages sent before a card (the dealer's other steps) are skipped by the card's
    wait: it takes the first prompt newer than the one before the card, then the next table
    state (the daemon sends it last).
    """

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader

    async def next(self) -> tuple[float, str, int]:
        line = await asyncio.wait_for(self.reader.readline(), 30.0)
        if not line:
            raise RuntimeError("the subscriber process stopped")
        t, kind, ident = line.split()
        return float(t), kind.decode(), int(ident)


async def _play(rig: SimRig, d: DealerSession, ctx: zmq.asyncio.Context, bare: Bare | None,
                hands: int, seed: int, samples: int = 0, *, tap: bool = False,
                reply_after: float = DRAW_REPLY_AFTER) -> Timed:
    """Play ``hands`` hands, and more until ``samples`` cards were timed.

    ``tap``: the old method, an asyncio SUB socket of the dealer feed in this process for the
    old measure (see :func:`_play_cards`).
    """
    sock: zmq.asyncio.Socket | None = None
    if tap:
        sock = ctx.socket(zmq.SUB)
        sock.linger = 0
        sock.setsockopt(zmq.SUBSCRIBE, topic(rig.options.table_id, "prompt"))
        sock.setsockopt(zmq.SUBSCRIBE, topic(rig.options.table_id, "table_state"))
        sock.connect(rig.endpoints["dealer"])
    child = _subscriber(rig.endpoints["dealer"])
    assert child.stdout is not None
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), child.stdout)
    stamps = _Stamps(reader)
    await asyncio.sleep(0.3)
    try:
        return await _play_cards(rig, d, sock, stamps, bare, hands, seed, samples,
                                 reply_after)
    finally:
        if sock is not None:
            sock.close(linger=0)
        transport.close()
        child.kill()
        child.wait(5)


async def _play_cards(rig: SimRig, d: DealerSession, tap: zmq.asyncio.Socket | None,
                      stamps: _Stamps, bare: Bare | None, hands: int, seed: int,
                      samples: int, reply_after: float = DRAW_REPLY_AFTER) -> Timed:
    """Deal the hands; time each card (see the module's documentation).

    With ``tap`` (the old method) the old measure is taken too: the tap, a second subscriber
    of the dealer feed in this process, is awaited while the prompt crosses, so this process
    (the dealer's, the shoe's control socket's) wakes and runs its Python on the prompt at the
    moment the subscriber process should have the cores; without it this process sleeps on
    the subscriber process's pipe until that has the prompt (the dealer's own feed client is
    read between the cards, as a dealer's console would be, on its own machine).
    """
    rng = random.Random(seed)
    timed = Timed()
    latencies = timed.latency
    for seat in (1, 2, 3):
        await d.ok("seat", seat=seat, player=f"p{seat}", stack=10_000)
    played = 0
    while played < hands or len(latencies) < samples:
        played += 1
        await d.wait(lambda: d.step_now.get("kind") == "start_hand")
        d.dealer.decks = [_shuffled(rng)]
        await d.step()  # the dealer loads the deck and starts the hand
        while (step := d.step_now)["kind"] != "start_hand":
            if step["kind"] not in ("deal_hole", "burn", "board"):
                await d.step()
                continue
            before = d.prompt["id"]
            await asyncio.sleep(GAP)
            if tap is not None:
                while await tap.poll(0):
                    await tap.recv_multipart()
            t0 = time.monotonic()
            card, written = _draw(rig, d, reply_after)
            if tap is not None:
                while True:
                    frames = await tap.recv_multipart()
                    t1 = time.monotonic()
                    msg = decode(frames[-1])
                    if msg.type == "prompt" and int(msg.data["id"]) > before:
                        break
                timed.latency_old.append(t1 - t0)
            while True:  # (lines of what was sent before the card are skipped here)
                t2, kind, ident = await stamps.next()
                if kind == "prompt" and ident > before:
                    break
            written = t0 if written is None else written
            timed.request.append(written - t0)
            timed.written.append(written)
            latencies.append(t2 - written)
            if tap is not None:
                while decode((await tap.recv_multipart())[-1]).type != "table_state":
                    pass
            while (await stamps.next())[1] != "table_state":
                pass  # the daemon's work for this card ends with the table state
            if step["kind"] == "board":
                d.io.lay_board(int(step["slot"]), card)
            await d.wait_after(int(before))
            if bare is not None:
                await asyncio.sleep(GAP)
                bare.sample()
    return timed


def _draw(rig: SimRig, d: DealerSession, reply_after: float = DRAW_REPLY_AFTER
          ) -> tuple[Card | None, float | None]:
    """Draw the top card; return it and when the shoe wrote its frame (``None``: not known)."""
    if rig.remote_shoe is None:
        return d.io.draw(), None
    uid, written = rig.remote_shoe.draw_timed(reply_after)
    return rig.profile.card(uid), written


def run(hands: int = 12, seed: int = 7, samples: int = 2000, *, tap: bool = False,
        reply_after: float = DRAW_REPLY_AFTER) -> dict[str, Any]:
    """Run the benchmark; return the figures (seconds, kB).

    ``tap``: the old method (a second subscriber of the dealer feed in this process, for the
    old measure; it slows the measured hop, see :func:`_play_cards`).
    """
    with tempfile.TemporaryDirectory(prefix="bench-daemon-") as tmpdir:
        tmp = Path(tmpdir)
        rig = SimRig(TABLE, workdir=tmp / "table")
        bare = Bare(tmp)
        played = 0
        try:
            rig.start()
            assert rig.process is not None
            pid = rig.process.pid

            async def main() -> tuple[Timed, dict[str, int]]:
                ctx = zmq.asyncio.Context()
                try:
                    async with dealer_session(rig, console="bench", ctx=ctx) as d:
                        bare.join_console(ctx)
                        lat = await _play(rig, d, ctx, bare, hands, seed, samples, tap=tap,
                                          reply_after=reply_after)
                        mem = rss(pid)
                        status = (await d.ok("status")).result
                        assert status["chips_in_play"] == 30_000, status
                        nonlocal played
                        played = int(status["hands_played"])
                        assert not status["irregularities"], status["irregularities"]
                        return lat, mem
                finally:
                    bare.leave_console()
                    ctx.destroy(linger=0)

            timed, mem = asyncio.run(main())
            code = rig.terminate()
        finally:
            rig.stop()
            bare.close()
    return {"latency": timed.latency, "latency_old": timed.latency_old, "written": timed.written,
            "request": timed.request, "pty": bare.pty, "commit": bare.commit, "hop": bare.hop,
            "hop_local": bare.hop_local, "hop_feed": bare.hop_feed,
            "total_feed": bare.total_feed, "anchor": bare.anchor, "total": bare.total,
            "total_local": bare.total_local, "rss": mem, "exit": code, "hands": played,
            "tap": tap, "reply_after": reply_after}


def run_camera_rss(level: str = "medium", hands: int = 6, seed: int = 7) -> dict[str, Any]:
    """Play ``hands`` with the camera on rendered frames at ``level``; return the daemon's RSS.

    Every board change is rendered (1920x1080) in *this* process, the dealer's
    (:class:`hardware.sim.camera_link.BoardRenderer`), into a PNG file the daemon reads as
    ``sim://camera?frames=...`` with the calibrated profile: the daemon only decodes the frame
    and runs the recognizer and the stabiliser, as on a real table. RSS is sampled after every
    hand and at the end (kB); ``hands_played`` may fall short if the camera misread a card and
    the table was held (the RSS figures stand).
    """
    from dataclasses import replace

    from table_controller.simtable.session import SessionError

    with tempfile.TemporaryDirectory(prefix="bench-daemon-cam-") as tmpdir:
        rig = SimRig(replace(TABLE, camera_level=level, ready_timeout=60.0),
                     workdir=Path(tmpdir) / "table")
        samples: list[int] = []
        error = ""
        try:
            rig.start()
            assert rig.process is not None
            pid = rig.process.pid
            start = rss(pid)

            async def main() -> dict[str, Any]:
                nonlocal error
                ctx = zmq.asyncio.Context()
                try:
                    async with dealer_session(rig, console="bench-cam", ctx=ctx) as d:
                        for n in range(hands):
                            try:
                                await _play(rig, d, ctx, None, 1, seed + n) if n == 0 else \
                                    await _more(d, seed + n)
                            except (SessionError, AssertionError, TimeoutError) as exc:
                                error = f"hand {n + 1}: {exc}"[:200]
                                break
                            samples.append(rss(pid)["VmRSS"])
                        await asyncio.sleep(2.0)  # the last boards rendered and read
                        status = (await d.ok("status")).result
                        return {"hands_played": status["hands_played"],
                                "camera_frames": status["device_health"]["camera"]["frames"]}
                finally:
                    ctx.destroy(linger=0)

            played = asyncio.run(main())
            end = rss(pid)
            renderer = rig.renderer
            code = rig.terminate()
        finally:
            rig.stop()
    return {"level": level, "start": start, "end": end, "samples": samples, "exit": code,
            "error": error, "dealer": rss(os.getpid()),
            "rendered": renderer.rendered if renderer is not None else 0, **played}


async def _more(d: DealerSession, seed: int) -> None:
    """One more hand with the players already seated (see :func:`_play`)."""
    await d.wait(lambda: d.step_now.get("kind") == "start_hand")
    d.dealer.decks = [_shuffled(random.Random(seed))]
    await d.step()
    while d.step_now["kind"] != "start_hand":
        await d.step()


def main(argv: list[str] | None = None) -> None:
    """Run and print the benchmark."""
    parser = argparse.ArgumentParser(prog="bench_daemon")
    parser.add_argument("--hands", type=int, default=12, help="at least this many hands")
    parser.add_argument("--samples", type=int, default=2000,
                        help="play on until this many cards were timed")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--tap", action="store_true",
                        help="the old method: a second subscriber of the dealer feed in this "
                             "process, for the old measure (it slows the measured hop)")
    parser.add_argument("--draw-reply-after", type=float, default=DRAW_REPLY_AFTER * 1e3,
                        metavar="MS", help="how long sim run holds back its reply to a timed "
                        "draw, so that it does not wake this process while the frame crosses "
                        "(0: at once, as before)")
    parser.add_argument("--camera-level", default="medium",
                        help="rendered camera level for the RSS run (easy, medium, hard; "
                             "'none' skips it)")
    parser.add_argument("--camera-hands", type=int, default=6)
    args = parser.parse_args(argv if argv is not None else [])
    r = run(args.hands, args.seed, args.samples, tap=args.tap,
            reply_after=args.draw_reply_after / 1e3)
    print(report(r), flush=True)
    if args.camera_level != "none":
        c = run_camera_rss(args.camera_level, args.camera_hands, args.seed)
        print(camera_report(c, r["rss"].get("VmRSS", 0)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
