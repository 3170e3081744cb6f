"""Probes of the daemon's crash safety: kills right after a card read, and kills during start.

:func:`run_crash_window` SIGKILLs the daemon just after the shoe sent a card and checks the card
was kept (journaled, or resent because never acknowledged); :func:`run_startup_kills` kills it
at random points of its start and checks the last start comes up with the same state.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import random
import time
from dataclasses import dataclass, field
from typing import Any

import zmq.asyncio

from table_controller.errors import TableError
from table_controller.simtable.devices.hands import feeder_of, hands_of
from table_controller.simtable.rig import RigError, RigOptions, SimRig
from table_controller.simtable.soak.console import (
    SECRET_STATE_KEYS,
    STATE_KEYS,
    STATUS_KEYS,
    SyncConsole,
    fetch_snapshot,
    post_blinds,
    without_devices,
)
from table_controller.simtable.soak.plan import SoakError, start_rig


@dataclass(slots=True)
class CrashWindowReport:
    """Kills right after a card read: whether each card was kept (journaled or resent) or lost."""

    attempts: int = 0
    kept: int = 0
    lost: list[dict[str, Any]] = field(default_factory=list)
    acked_at_kill: int = 0
    seconds: float = 0.0
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return dataclasses.asdict(self)


def journal_tail(rig: SimRig, n: int = 12) -> list[str]:
    """Return the texts of the journal's last ``n`` entries (for a failure message)."""
    from table_controller.journal import Journal

    try:
        with contextlib.closing(Journal.open(rig.dir / "journal.db", readonly=True)) as j:
            entries = list(j.entries())[-n:]
    except TableError as exc:
        return [f"(journal unreadable: {exc})"]
    return [f"{e.seq} {e.kind.value} hand {e.hand}: {e.payload.get('text', '')}"
            for e in entries]


def run_crash_window(attempts: int = 20, *, seed: int = 1, min_delay: float = 0.0,
                     max_delay: float = 0.004, time_budget: float = 120.0,
                     settle: float = 30.0, stop_at_first_loss: bool = False,
                     keep: bool = False) -> CrashWindowReport:
    """SIGKILL the daemon 0..``max_delay`` s after the shoe sends a card, ``attempts`` times.

    After each kill the daemon is restarted on the same journal and simulators. A card is
    *kept* when the hand moved past its step (it was journaled before the kill, or the shoe
    resent it because it was never acknowledged); it is *lost* when the shoe had it
    acknowledged but the restarted daemon still asks for the same card ``settle`` seconds
    after it is ready (the read was ACKed before it was journaled). Each loss records the
    delay and whether the frame was ACKed. ``time_budget`` only stops new attempts; ``settle``
    is generous because a loaded machine can take seconds to resend and replay, and a card
    that moves on earlier ends the wait at once.
    """
    started = time.monotonic()
    rng = random.Random(seed ^ 0xC2A5)
    rep = CrashWindowReport()
    rig = start_rig(RigOptions(seats=6, security="curve", camera_level="exact",
                               seed=seed), tcp=True, keep=keep)
    console = SyncConsole(rig, f"crash-window-{os.getpid()}")
    try:
        shoe, hands = feeder_of(rig), hands_of(rig)
        for seat in (1, 2, 3):
            console.ok({"command": "seat", "seat": seat, "player": f"p{seat}", "stack": 10_000})
        deck = [rig.uid(c) for c in rig.profile.cards.values()]
        while rep.attempts < attempts and time.monotonic() - started < time_budget:
            step = console.step()
            kind = step.get("kind")
            if kind in ("start_hand", "seat_players") or (kind == "act"):
                if kind == "act":
                    console.ok({"command": "void", "reason": "crash-window probe: next hand"})
                rng.shuffle(deck)
                shoe.load_deck(deck)
                console.ok({"command": "start"})
                post_blinds(console, rig)
                continue
            if kind != "deal_hole":
                rep.error = (f"the probe expected a hole card, the table asks for {step}; "
                             f"the journal ends with: {journal_tail(rig)}")
                break
            rep.attempts += 1
            uid = shoe.draw()
            delay = rng.uniform(min_delay, max_delay)
            time.sleep(delay)
            rig.kill()
            time.sleep(0.05)  # let the simulator read what the host had written
            acked = hands.counters("shoe").pending == 0
            rep.acked_at_kill += acked
            rig.start_daemon()
            end = time.monotonic() + settle
            moved = False
            while time.monotonic() < end:
                if console.step() != step:
                    moved = True
                    break
                time.sleep(0.05)
            if moved:
                rep.kept += 1
            else:
                rep.lost.append({"attempt": rep.attempts, "delay_ms": round(delay * 1000, 3),
                                 "acked": acked, "step": step, "uid": uid})
                if stop_at_first_loss:
                    break
    finally:
        console.close()
        rig.stop()
    rep.seconds = round(time.monotonic() - started, 2)
    return rep



@dataclass(slots=True)
class StartupKillReport:
    """Kills during the daemon's start (journal replay, devices, feeds) and the state after."""

    kills: int = 0
    ready_before_kill: int = 0
    mismatches: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return dataclasses.asdict(self)


def run_startup_kills(kills: int = 10, *, seed: int = 1, max_delay: float = 2.0
                      ) -> StartupKillReport:
    """SIGKILL the daemon at random points of its start (0..``max_delay`` s), ``kills`` times.

    A table is left mid-hand first (seated, blinds in, two hole cards out); its status, dealer
    snapshot and surveillance snapshot are taken, then the daemon is killed and, ``kills``
    times, started and killed again after a random delay (during the journal replay, the device
    sync, the feeds' start, or after it is ready). The last start must come up with the same
    state, and the journal must verify.
    """
    import asyncio

    from table_controller.journal import Journal

    started = time.monotonic()
    rng = random.Random(seed ^ 0x57A7)
    rep = StartupKillReport()
    rig = start_rig(RigOptions(seats=6, security="curve", camera_level="exact", seed=seed),
                    tcp=True)
    console = SyncConsole(rig, f"startup-kills-{os.getpid()}")

    def states() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        status = without_devices(console.status(), STATUS_KEYS)
        snap = without_devices(console.snapshot(), STATE_KEYS)
        display = rig.display_keys()

        async def secret() -> dict[str, Any]:
            ctx = zmq.asyncio.Context()
            try:
                return await fetch_snapshot(ctx, rig.endpoints["surveillance_snapshot"],
                                            rig.options.table_id, "surveillance",
                                            keys=display)
            finally:
                ctx.destroy(linger=0)

        return status, snap, without_devices(asyncio.run(secret()), SECRET_STATE_KEYS)

    try:
        for seat in (1, 2, 3):
            console.ok({"command": "seat", "seat": seat, "player": f"p{seat}", "stack": 10_000})
        shoe = feeder_of(rig)
        shoe.load_deck([rig.uid(c) for c in rig.profile.cards.values()])
        console.ok({"command": "start"})
        post_blinds(console, rig)
        for _ in range(2):
            before = console.step()
            shoe.draw()
            deadline = time.monotonic() + 30
            while console.step() == before:
                if time.monotonic() > deadline:
                    raise SoakError("a hole card was not dealt")
                time.sleep(0.05)
        time.sleep(0.5)
        first = states()
        rig.kill()
        for _ in range(kills):
            ready = rig.spawn_daemon()
            time.sleep(rng.uniform(0.0, max_delay))
            rep.ready_before_kill += ready.exists()
            rig.kill()
            rep.kills += 1
        try:
            rig.start_daemon()
        except RigError as exc:
            rep.mismatches.append(f"the last start failed: {exc}\n{rig.daemon_log_tail(80)}")
            return rep
        time.sleep(0.5)
        last = states()
        for name, a, b in zip(("status", "dealer snapshot", "surveillance snapshot"), first,
                              last, strict=True):
            if a != b:
                diff = [k for k in a if a.get(k) != b.get(k)]
                rep.mismatches.append(f"{name} differs in {diff}")
        with contextlib.closing(Journal.open(rig.dir / "journal.db", readonly=True)) as j:
            j.verify()
    finally:
        console.close()
        rig.stop()
    rep.seconds = round(time.monotonic() - started, 2)
    return rep
