"""Long runs under faults: serial faults, unplugs and ``kill -9`` of the daemon, with accounting.

:func:`run_soak` plays seeded hands on a simulated table (:class:`~.rig.SimRig`: simulators over
ptys, calibration, CURVE keys) against the real daemon process, which this module starts itself
(:class:`SoakRig`) so it can kill it with SIGKILL and start it again on the same journal. While
the :class:`~.dealer.SimDealer` follows the prompts, the run injects, at seeded random prompts:

- link faults into the shoe or the chip sensors (bad CRC, split frame, cut bytes, lost frame,
  repeated frame, lost ACK: :class:`~hardware.sim.device.Fault`), each just before the device's
  next data frame is due, so every injected fault meets a frame;
- an unplug and re-plug of the shoe or the chip sensors;
- a SIGKILL of the daemon and a restart. A *quiet* kill waits until the table is idle, takes a
  snapshot and the ``status``, kills, restarts, and compares (cards, bets, pots, whose turn, the
  prompt, holds; device health left out), then resends the last accepted command with its seq:
  it must be answered from the record (``replayed``) and change nothing. An *in-flight* kill
  comes right after the dealer acted, while frames and journal writes may be under way.

At the end it compares what the shoe drew (recorded by the dealer, per step) with what the
journal assigned to each seat, burn and board slot (the journal replayed through a fresh core),
checks chip conservation to the chip, the journal's hand brackets and the hand histories, and
fills a :class:`SoakReport`.

Rules this module keeps:

1. Every random choice comes from one ``random.Random(seed)``: a run is reproducible from its
   options (real-time races aside).
2. It only starts what it stops: the daemon process, the simulators, the ZeroMQ context.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import random
import re
import signal
import socket
import subprocess
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zmq
import zmq.asyncio

from hardware.sim.device import Fault, SimDevice
from table_controller.engine import Card
from table_controller.errors import TableError
from table_controller.feeds import CommandClient, Feed, FeedClient, Message, decode
from table_controller.simtable.daemon_io import DaemonDriver, DaemonIO
from table_controller.simtable.dealer import Mistakes, SimDealer, prompt_step
from table_controller.simtable.players import make_players
from table_controller.simtable.rig import RigError, RigOptions, SimRig

#: Link faults injected by the soak (all of :class:`Fault`).
LINK_FAULTS = tuple(Fault)
#: Faults the host must notice: each leaves a trace in the device counters.
#: A split frame is reassembled and a lost ACK is covered by the next cumulative ACK: both are
#: absorbed by design and leave no trace (they are still counted as injected).
SHOWN_BY = {Fault.CORRUPT_CRC: "bad_frames", Fault.DROP_BYTES: "bad_frames",
            Fault.DUPLICATE: "duplicates", Fault.DROP_FRAME: "retransmissions"}
#: Prompt kinds after which the shoe sends a frame / the chip sensors send frames (an action may
#: move no chips, so faults are not injected before one: a fault must meet a frame).
SHOE_STEPS = frozenset({"deal_hole", "burn", "board"})
CHIP_STEPS = frozenset({"post", "collect", "award"})
#: Seconds after a card is drawn during which a SIGKILL could lose the read while the driver
#: acknowledged frames before the daemon journaled them (found here, fixed by the daemon's
#: deferred ACKs; probed by :func:`run_crash_window`). With ``spare_card_window`` on, in-flight
#: kills after a card step wait this long first.
CARD_WINDOW = 0.02
#: State fields compared across a kill (device health and link states are left out).
STATE_KEYS = ("hand", "hands_played", "rake_total", "button", "seats", "phase", "street",
              "board", "pots", "to_act", "current_bet", "hole_cards", "shown", "prompt", "held",
              "holds", "irregularities")
#: Compared on the surveillance snapshot across a kill: the cards themselves.
SECRET_STATE_KEYS = ("hand", "board", "hole_cards", "shown", "burn_cards", "seats", "pots",
                     "to_act", "prompt")
STATUS_KEYS = ("hands_played", "hand", "stacks", "chips_in_play", "rake_total", "held", "holds",
               "prompt", "irregularities")


class SoakError(TableError):
    """The soak could not run (the message says which part failed)."""


def free_tcp_ports(n: int) -> list[int]:
    """Return ``n`` free TCP ports on 127.0.0.1 (bound and released at once)."""
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [int(s.getsockname()[1]) for s in socks]
    for s in socks:
        s.close()
    return ports


class PtyGuard:
    """Keeps pty numbers that stray links in ``/tmp`` point to away from our simulators.

    A daemon orphaned by someone else's run retries its simulator's dangling link (say
    ``/tmp/table-sim-x/shoe.tty -> /dev/pts/1``) and grabs whatever pty next gets that number.
    :meth:`prepare` opens ptys until every free number such a link names is taken, keeps those
    (the stray process may have them) and gives the others back, so the next ptys our simulators
    make get numbers nobody else is waiting for. :meth:`close` releases what it kept.
    """

    def __init__(self, own_dir: Path | None = None) -> None:
        self.own_dir = own_dir
        self.held: list[tuple[int, int]] = []

    def poisoned(self) -> set[str]:
        """Return the ``/dev/pts/N`` targets of links under ``/tmp`` (not in our own dir)."""
        out: set[str] = set()
        with contextlib.suppress(OSError):
            for top in os.scandir("/tmp"):
                if not top.is_dir(follow_symlinks=False):
                    continue
                if self.own_dir is not None and Path(top.path) == self.own_dir:
                    continue
                with contextlib.suppress(OSError):
                    for f in os.scandir(top.path):
                        if f.is_symlink():
                            with contextlib.suppress(OSError):
                                target = os.readlink(f.path)
                                if target.startswith("/dev/pts/"):
                                    out.add(target)
        return out

    def prepare(self) -> None:
        """Take every free pty number a stray link points to (see the class docstring)."""
        bad = self.poisoned()
        numbers = [int(b.rsplit("/", 1)[1]) for b in bad if b.rsplit("/", 1)[1].isdigit()]
        if not numbers:
            return
        top = max(numbers)
        spare: list[tuple[int, int]] = []
        try:
            for _ in range(top + 2):
                m, sl = os.openpty()
                name = os.ttyname(sl)
                if name in bad:
                    self.held.append((m, sl))
                else:
                    spare.append((m, sl))
                if int(name.rsplit("/", 1)[1]) >= top:
                    break
        finally:
            for m, sl in spare:
                os.close(m)
                os.close(sl)

    def close(self) -> None:
        """Release the ptys kept."""
        for m, sl in self.held:
            with contextlib.suppress(OSError):
                os.close(m)
            with contextlib.suppress(OSError):
                os.close(sl)
        self.held.clear()


class SoakRig:
    """A :class:`~.rig.SimRig` whose daemon process is started, killed and restarted here.

    :param options: the simulated table.
    :param tcp: put every endpoint on ``tcp://127.0.0.1`` (else the rig's ``ipc://`` sockets).
    :param settle: the daemon's chip settle window (``--settle``).
    """

    def __init__(self, options: RigOptions, *, tcp: bool = True, settle: float = 1.0,
                 workdir: Path | None = None, keep: bool = False) -> None:
        self.sim = SimRig(options, workdir=workdir, keep=keep)
        self.guard = PtyGuard(self.sim.dir)
        self.tcp = tcp
        self.settle = settle
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.kills = 0
        self.unexpected_exits: list[int] = []
        self.ready: dict[str, Any] = {}

    @property
    def dir(self) -> Path:
        """The work directory."""
        return self.sim.dir

    @property
    def endpoints(self) -> dict[str, str]:
        """The daemon's endpoints by name."""
        return self.sim.endpoints

    def start(self) -> None:
        """Start the simulators, write the files (endpoints moved to TCP), start the daemon.

        :raises SoakError: if the daemon does not become ready.
        """
        try:
            self.guard.prepare()
            self.sim.start(daemon=False)
            if self.tcp:
                text = self.sim.config_path.read_text()
                ports = free_tcp_ports(len(self.sim.endpoints))
                for (name, old), port in zip(list(self.sim.endpoints.items()), ports,
                                             strict=True):
                    new = f"tcp://127.0.0.1:{port}"
                    text = text.replace(f'"{old}"', f'"{new}"')
                    self.sim.endpoints[name] = new
                self.sim.config_path.write_text(text)
            self.start_daemon()
        except BaseException:
            self.stop()
            raise

    def spawn_daemon(self) -> Path:
        """Start ``table-controller run`` without waiting; return the ready file's path."""
        ready = self.dir / "ready.json"
        ready.unlink(missing_ok=True)
        cmd = [*self.sim.daemon_command(), "--ready-file", str(ready),
               "--settle", str(self.settle)]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        with (self.dir / "daemon.log").open("ab") as err:
            self.process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err,
                                            cwd=str(self.dir), env=env, start_new_session=True)
        self.starts += 1
        return ready

    def start_daemon(self, timeout: float = 30.0) -> dict[str, Any]:
        """Start ``table-controller run`` and wait for its ready file.

        :raises SoakError: if it exits or is not ready within ``timeout`` seconds.
        """
        ready = self.spawn_daemon()
        assert self.process is not None
        deadline = time.monotonic() + timeout
        while not ready.exists():
            code = self.process.poll()
            if code is not None:
                raise SoakError(f"the daemon exited with status {code} at start:\n"
                                f"{self.log_tail()}")
            if time.monotonic() > deadline:
                raise SoakError(f"the daemon was not ready after {timeout:g} s:\n"
                                f"{self.log_tail()}")
            time.sleep(0.02)
        self.ready = json.loads(ready.read_text())
        return self.ready

    def alive(self) -> bool:
        """Tell whether the daemon runs; record an exit nobody asked for."""
        if self.process is None:
            return False
        code = self.process.poll()
        if code is None:
            return True
        self.unexpected_exits.append(code)
        self.process = None
        return False

    def kill(self) -> None:
        """SIGKILL the daemon and reap it."""
        proc, self.process = self.process, None
        if proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        self.kills += 1

    def terminate(self, grace: float = 15.0) -> int | None:
        """Stop the daemon with SIGTERM (SIGKILL after ``grace``); return its exit status."""
        proc, self.process = self.process, None
        if proc is None:
            return None
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(grace)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    proc.send_signal(signal.SIGKILL)
                proc.wait(5)
        return proc.returncode

    def stop(self) -> int | None:
        """Stop the daemon, then the simulators (and remove the work directory)."""
        status = self.terminate()
        self.sim.stop()
        self.guard.close()
        return status

    def log_tail(self, lines: int = 30) -> str:
        """Return the end of the daemon's stderr log."""
        with contextlib.suppress(OSError):
            text = (self.dir / "daemon.log").read_text(errors="replace").splitlines()
            return "\n".join(text[-lines:])
        return ""


def start_rig(options: RigOptions, *, attempts: int = 3, **kw: Any) -> SoakRig:
    """Start a :class:`SoakRig` (keyword options as for it), on fresh ptys if need be.

    On a shared machine a stray process (a daemon orphaned by someone else's run) may still
    retry a dangling link to a ``/dev/pts/N`` that a new simulator then reuses, and lock our
    port first. A new rig gets new pty numbers, so a start refused with "could not exclusively
    lock" is tried again, up to ``attempts`` times.

    :raises SoakError: if it cannot start.
    """
    held: list[int] = []
    try:
        for attempt in range(attempts):
            rig = SoakRig(options, **kw)
            try:
                rig.start()
                return rig
            except SoakError as exc:
                if "exclusively lock" not in str(exc) or attempt == attempts - 1:
                    raise
            # the freed pty numbers would be reused at once: hold a few while trying again
            for _ in range(4):
                held.extend(os.openpty())
        raise SoakError("unreachable")  # pragma: no cover
    finally:
        for fd in held:
            with contextlib.suppress(OSError):
                os.close(fd)


class RecordingIO(DaemonIO):
    """The rig's devices and console; remembers which card the dealer drew for which step."""

    def __init__(self, rig: SimRig, console: CommandClient) -> None:
        super().__init__(rig, console)
        self.prompt: Mapping[str, Any] = {}
        self.hand = 0
        self.draws: list[tuple[int, tuple[Any, ...], str]] = []

    def draw(self) -> Card:
        """Draw the top card and record it against the prompt's step."""
        card = super().draw()
        self.draws.append((self.hand, step_key(prompt_step(self.prompt)), card.code))
        return card


class _Recorder(Mistakes):
    """Makes no mistakes; tells the IO which prompt the dealer is handling."""

    def __init__(self, io: RecordingIO) -> None:
        self.io = io

    async def before(self, dealer: SimDealer, prompt: Mapping[str, Any]) -> bool:
        self.io.prompt = prompt
        self.io.hand = dealer.log.hands_started
        return False


def step_key(step: Mapping[str, Any]) -> tuple[Any, ...]:
    """Where a card goes: ``("hole", seat, round)``, ``("burn", street)``, ``("board", slot)``."""
    kind = step.get("kind")
    if kind == "deal_hole":
        return ("hole", int(step["seat"]), int(step["round"]))
    if kind == "burn":
        return ("burn", str(step["street"]))
    if kind == "board":
        return ("board", int(step["slot"]))
    return ("not-a-card-step", str(kind))


@dataclass(slots=True)
class JournalFacts:
    """What the journal says happened, read by replaying it through a fresh core."""

    assigned: list[tuple[int, tuple[Any, ...], str]] = field(default_factory=list)
    holes: dict[int, dict[int, list[str]]] = field(default_factory=dict)
    shown: dict[int, set[int]] = field(default_factory=dict)
    burns: dict[int, list[str]] = field(default_factory=dict)
    hand_starts: Counter[int] = field(default_factory=Counter)
    hand_ends: Counter[int] = field(default_factory=Counter)
    voided: set[int] = field(default_factory=set)
    commands: Counter[tuple[str, int]] = field(default_factory=Counter)
    entries: int = 0
    refused_on_replay: int = 0
    link_faults: int = 0


def read_journal(config_path: Path) -> JournalFacts:
    """Replay the journal of ``config_path``'s table through a new core (read-only).

    :raises JournalError: if the journal does not verify.
    """
    from table_controller.config import load_config
    from table_controller.controller.events import (
        Applied,
        DealerCommand,
        HandEnded,
        HandStarted,
        Reply,
        input_from_dict,
    )
    from table_controller.daemon import build_core
    from table_controller.journal import EntryKind, Journal, thaw

    config = load_config(config_path)
    core = build_core(config)
    facts = JournalFacts()
    hand = 0
    with contextlib.closing(Journal.open(config.journal.path, readonly=True)) as journal:
        journal.verify()
        for entry in journal.entries():
            facts.entries += 1
            if entry.kind is EntryKind.HAND_START:
                facts.hand_starts[int(entry.hand or 0)] += 1
                continue
            if entry.kind is EntryKind.HAND_END:
                facts.hand_ends[int(entry.hand or 0)] += 1
                continue
            if entry.kind is EntryKind.DECISION and "link_fault" in entry.payload:
                facts.link_faults += 1
                continue
            if entry.kind is EntryKind.DEVICE_EVENT:
                inp = input_from_dict(entry.payload["input"])
            elif entry.kind is EntryKind.DEALER_COMMAND:
                body = dict(thaw(entry.payload["command"]))
                console = str(entry.payload.get("console", ""))
                seq = int(entry.payload.get("seq", 0))
                facts.commands[(console, seq)] += 1
                if not entry.payload.get("reply", {}).get("accepted"):
                    continue
                inp = DealerCommand(str(body.pop("command")), body)
            else:
                continue
            for o in core.handle(inp, entry.mono_time):
                if isinstance(o, HandStarted):
                    hand = o.number
                elif isinstance(o, HandEnded) and o.voided:
                    facts.voided.add(o.number)
                elif isinstance(o, Reply) and not o.accepted:
                    facts.refused_on_replay += 1
                elif isinstance(o, Applied):
                    _take_applied(facts, hand, o.data, o.secret)
    return facts


def _take_applied(facts: JournalFacts, hand: int, data: Mapping[str, Any],
                  secret: Mapping[str, Any]) -> None:
    ev = data.get("event")
    if ev == "hole_card" and data.get("hole_card"):
        seat, card = int(data["seat"]), str(data["hole_card"])
        facts.assigned.append((hand, ("hole", seat, int(data["round"])), card))
        facts.holes.setdefault(hand, {}).setdefault(seat, []).append(card)
    elif ev == "burn" and secret.get("burn"):
        facts.assigned.append((hand, ("burn", str(data["street"])), str(secret["burn"])))
        facts.burns.setdefault(hand, []).append(str(secret["burn"]))
    elif ev == "board" and data.get("card"):
        facts.assigned.append((hand, ("board", int(data["slot"])), str(data["card"])))
    elif ev == "show":
        facts.shown.setdefault(hand, set()).add(int(data["seat"]))


@dataclass(slots=True)
class SoakOptions:
    """What to run.

    :param hands: hands to play (fewer if ``time_budget`` runs out first).
    :param link_fault_rate: chance per prompt of one link fault, on the device the prompt uses.
    :param unplug_rate: chance per prompt of pulling the shoe's or the chip sensors' cable.
    :param kill_rate: chance per prompt of a SIGKILL of the daemon (then a restart).
    :param quiet_kill_share: share of kills taken at an idle table with a snapshot comparison.
    :param spare_card_window: an in-flight kill after a card step waits :data:`CARD_WINDOW`
        first (to measure the rest while a loss right after a card read is being fixed;
        :func:`run_crash_window` probes that window on its own). Off by default.
    :param time_budget: seconds after which no new hand is started.
    :param taps: listen on the public side with subscribers of every kind (:class:`FeedTaps`)
        and check that none of them got a secret card (runs without kills: the hand of each
        message is told from the stream's order).
    :param camera_level: the simulated camera (``exact`` reads the board file as written; the
        rendered levels cost about 0.4 s a frame and lag behind a fast dealer).
    """

    hands: int = 10
    seed: int = 1
    seats: int = 6
    players: int = 5
    buy_in: int = 10_000
    link_fault_rate: float = 0.0
    unplug_rate: float = 0.0
    unplug_seconds: float = 0.3
    kill_rate: float = 0.0
    quiet_kill_share: float = 0.5
    spare_card_window: bool = False
    time_budget: float = 300.0
    tcp: bool = True
    rake_percent: float = 0.0
    settle: float = 1.0
    camera_level: str = "exact"
    taps: bool = False
    keep: bool = False


@dataclass(slots=True)
class SoakReport:
    """What a soak did and found (``ok`` is the verdict)."""

    options: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    hands_played: int = 0
    prompts: int = 0
    cards_drawn: int = 0
    cards_assigned: int = 0
    misassigned: list[str] = field(default_factory=list)
    lost_cards: list[str] = field(default_factory=list)
    link_faults: dict[str, int] = field(default_factory=dict)
    link_faults_must_show: int = 0
    link_faults_shown: int = 0
    link_faults_journaled: int = 0
    device_counters: dict[str, dict[str, int]] = field(default_factory=dict)
    unplugs: int = 0
    unplugs_shown: int = 0
    replugs_stolen: int = 0
    kills: int = 0
    quiet_kills: int = 0
    restarts_ok: int = 0
    state_mismatches: list[str] = field(default_factory=list)
    cards_compared: int = 0
    replays_checked: int = 0
    replays_answered_from_record: int = 0
    duplicate_command_records: int = 0
    refused_on_replay: int = 0
    chips_before: int = 0
    chips_after: int = 0
    rake: int = 0
    chip_checks: int = 0
    rebuys: int = 0
    chip_differences: list[str] = field(default_factory=list)
    crashes: int = 0
    irregularities: dict[str, int] = field(default_factory=dict)
    holds: int = 0
    hands_in_journal: int = 0
    incomplete_hands: list[int] = field(default_factory=list)
    hand_history_files: int = 0
    hand_histories_missing: dict[str, int] = field(default_factory=dict)
    journal_entries: int = 0
    leaks: dict[str, Any] = field(default_factory=dict)
    daemon_exit: int | None = None
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing was lost, misassigned, duplicated or crashed, and chips agree."""
        return (not self.misassigned and not self.lost_cards and not self.state_mismatches
                and not self.chip_differences
                and not self.errors and self.crashes == 0 and self.duplicate_command_records == 0
                and self.refused_on_replay == 0 and not self.incomplete_hands
                and self.link_faults_shown >= self.link_faults_must_show
                and self.unplugs_shown == self.unplugs
                and self.replays_answered_from_record == self.replays_checked
                and self.restarts_ok == self.kills and self.daemon_exit in (0, None)
                and not self.leaks.get("leaks")
                and (not self.leaks or self.leaks.get("surveillance_hole_cards", 0) > 0))

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form (with ``ok``)."""
        return {**dataclasses.asdict(self), "ok": self.ok}

    def lines(self) -> list[str]:
        """Return the report in plain words."""
        return [
            f"hands {self.hands_played}, prompts {self.prompts}, {self.seconds:.1f} s",
            f"cards drawn {self.cards_drawn}, assigned {self.cards_assigned}, "
            f"misassigned {len(self.misassigned)}, lost at a kill {len(self.lost_cards)}",
            f"link faults injected {sum(self.link_faults.values())} {self.link_faults}; "
            f"that must show {self.link_faults_must_show}, shown {self.link_faults_shown}; "
            f"link-fault entries in the journal {self.link_faults_journaled}",
            f"unplugs {self.unplugs}, shown {self.unplugs_shown} (plugged in again because "
            f"another process had locked the new pty: {self.replugs_stolen})",
            f"kills {self.kills} (quiet {self.quiet_kills}), restarts that resumed "
            f"{self.restarts_ok}, state mismatches {len(self.state_mismatches)} (hole cards "
            f"compared across quiet kills {self.cards_compared})",
            f"resent commands {self.replays_checked}, answered from the record "
            f"{self.replays_answered_from_record}; duplicate command records "
            f"{self.duplicate_command_records}",
            f"chips bought in {self.chips_before:,} ({self.rebuys} rebuys), after "
            f"{self.chips_after:,} + rake {self.rake:,}; checks {self.chip_checks}, "
            f"differences {len(self.chip_differences)}",
            f"crashes {self.crashes}; irregularities {self.irregularities}; holds {self.holds}",
            f"hands in the journal {self.hands_in_journal}, incomplete {self.incomplete_hands}; "
            f"hand histories {self.hand_history_files}, missing {self.hand_histories_missing}",
            *([f"public-side subscribers: messages {self.leaks.get('messages')}, showdowns "
               f"{self.leaks.get('showdowns')}, all-ins {self.leaks.get('all_ins')}, leaks "
               f"{len(self.leaks.get('leaks', []))}, surveillance hole cards (control) "
               f"{self.leaks.get('surveillance_hole_cards')}"] if self.leaks else []),
            *(f"leak: {m}" for m in self.leaks.get("leaks", [])[:10]),
            *(f"error: {e}" for e in self.errors),
            *(f"misassigned: {m}" for m in self.misassigned[:10]),
            *(f"lost card: {m}" for m in self.lost_cards[:10]),
            *(f"state mismatch: {m}" for m in self.state_mismatches[:10]),
            *(f"chip difference: {m}" for m in self.chip_differences[:10]),
        ]


def without_devices(state: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """Return the fields of ``state`` compared across a restart."""
    return {k: state.get(k) for k in keys}


async def fetch_snapshot(ctx: zmq.asyncio.Context, endpoint: str, table: str,
                         feed: str = "dealer", timeout: float = 5.0,
                         keys: Any = None) -> dict[str, Any]:
    """Ask the snapshot endpoint for ``feed``'s state.

    :param keys: CURVE client keys (:class:`~table_controller.feeds.ClientKeys`), for the
        surveillance snapshot endpoint.
    :raises SoakError: if no snapshot comes within ``timeout``.
    """
    sock = ctx.socket(zmq.DEALER)
    sock.linger = 0
    if keys is not None:
        keys.apply(sock)
    sock.connect(endpoint)
    try:
        req = Message("snapshot_request", 0, table, time.time(), {"feed": feed, "request": 1})
        await sock.send_multipart([b"", req.encode()])
        if not await sock.poll(int(timeout * 1000)):
            raise SoakError(f"no snapshot from {endpoint} in {timeout:g} s")
        frames = await sock.recv_multipart()
        msg = decode(frames[-1])
        return dict(msg.data.get("state") or {})
    finally:
        sock.close(linger=0)


# -- subscribers on the public side ------------------------------------------------------------

#: Topic prefixes the prefix subscribers use (a display may pick any: topics give no secrecy).
TAP_PREFIXES = (b"event", b"table_state", b"prompt", b"announcement", b"hand", b"irregularity",
                b"h", b"e", b"t", b"card", b"hole", b"show")
_CARD_CODE = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][cdhs])(?![A-Za-z0-9])")
#: Keys whose values are hole or burn cards (masked on the public and dealer feeds).
SECRET_KEYS = frozenset({"hole_cards", "hole_card", "hole", "holes", "burn_card", "burn_cards",
                         "burns", "burn"})


def card_codes(value: Any, path: str = "data") -> list[tuple[str, str]]:
    """Every card code named anywhere in ``value`` (keys and strings), with its path."""
    out: list[tuple[str, str]] = []
    if isinstance(value, Mapping):
        for k, v in value.items():
            out += [(f"{path} key", m) for m in _CARD_CODE.findall(str(k))]
            out += card_codes(v, f"{path}.{k}")
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            out += card_codes(v, f"{path}[{i}]")
    elif isinstance(value, str):
        out += [(path, m) for m in _CARD_CODE.findall(value)]
    return out


def unmasked_secrets(value: Any, path: str = "data") -> list[str]:
    """Paths of values under a secret-card key that are not masked (``"??"`` or null)."""
    out: list[str] = []
    if isinstance(value, Mapping):
        for k, v in value.items():
            if str(k) in SECRET_KEYS:
                out += [f"{path}.{k}: {c}" for _, c in card_codes(v, f"{path}.{k}")]
            else:
                out += unmasked_secrets(v, f"{path}.{k}")
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            out += unmasked_secrets(v, f"{path}[{i}]")
    return out


class FeedTaps:
    """Raw subscribers of every kind on the public side of a table, recording what they get.

    - ``public:all``: SUB on the public feed, subscribed to everything (``""``);
    - ``public:<prefix>``: one SUB per topic prefix in :data:`TAP_PREFIXES`;
    - ``dealer:all``: SUB on the dealer feed (also redacted);
    - ``floor:sub`` and ``floor:xsub``: a SUB and a raw XSUB (subscription sent by hand) on a
      :class:`~table_controller.feeds.proxy.FloorProxy` in front of the public feed;
    - ``surveillance``: the CURVE surveillance feed with a display key (the control: it must see
      the hole cards, or the check would prove nothing).
    """

    def __init__(self, ctx: zmq.asyncio.Context, endpoints: Mapping[str, str],
                 display_keys: Any = None) -> None:
        from table_controller.feeds.proxy import FloorProxy

        self.ctx = ctx
        self.messages: dict[str, list[Message]] = {}
        self._socks: list[zmq.asyncio.Socket] = []
        self._tasks: list[asyncio.Task[None]] = []
        self.proxy = FloorProxy([endpoints["public"]], "tcp://127.0.0.1:*")
        self.proxy.start()
        self._sub("public:all", endpoints["public"], [b""])
        for prefix in TAP_PREFIXES:
            self._sub(f"public:{prefix.decode()}", endpoints["public"], [prefix])
        self._sub("dealer:all", endpoints["dealer"], [b""])
        self._sub("floor:sub", self.proxy.bound, [b""])
        xsub = ctx.socket(zmq.XSUB)
        xsub.linger = 0
        xsub.connect(self.proxy.bound)
        self._start("floor:xsub", xsub)
        self._xsub = xsub
        if display_keys is not None:
            sock = ctx.socket(zmq.SUB)
            sock.linger = 0
            display_keys.apply(sock)
            sock.setsockopt(zmq.SUBSCRIBE, b"")
            sock.connect(endpoints["surveillance"])
            self._start("surveillance", sock)

    async def subscribe_xsub(self) -> None:
        """Send the XSUB's subscription (``0x01`` + empty prefix: everything)."""
        await self._xsub.send(b"\x01")

    def _sub(self, name: str, endpoint: str, prefixes: Sequence[bytes]) -> None:
        sock = self.ctx.socket(zmq.SUB)
        sock.linger = 0
        for p in prefixes:
            sock.setsockopt(zmq.SUBSCRIBE, p)
        sock.connect(endpoint)
        self._start(name, sock)

    def _start(self, name: str, sock: zmq.asyncio.Socket) -> None:
        self._socks.append(sock)
        self.messages[name] = []
        self._tasks.append(asyncio.create_task(self._read(name, sock)))

    async def _read(self, name: str, sock: zmq.asyncio.Socket) -> None:
        got = self.messages[name]
        while True:
            frames = await sock.recv_multipart()
            try:
                got.append(decode(frames[-1]))
            except TableError:
                got.append(Message("undecodable", 0, "", 0.0, {"raw": frames[-1][:200].hex()}))

    async def close(self) -> None:
        """Stop reading and close every socket and the proxy."""
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await t
        for sock in self._socks:
            sock.close(linger=0)
        self.proxy.stop()


@dataclass(slots=True)
class LeakReport:
    """What the public-side subscribers received and whether any of it named a secret card."""

    messages: dict[str, int] = field(default_factory=dict)
    leaks: list[str] = field(default_factory=list)
    unattributed: int = 0
    showdowns: int = 0
    all_ins: int = 0
    surveillance_hole_cards: int = 0


def check_leaks(messages: Mapping[str, Sequence[Message]], facts: JournalFacts) -> LeakReport:
    """Check every public-side message against the secret cards of its hand (from the journal).

    The ``public:all`` stream gives the order: a message belongs to the hand of the last
    ``hand_start`` (or ``table_state`` naming a hand); a seat's hole cards stay secret until its
    ``show`` event; burn cards stay secret. Other subscribers' messages are matched to it by
    type and seq. Independently of hands, nothing under a secret-card key may be a card.
    """
    rep = LeakReport({k: len(v) for k, v in messages.items()})
    where: dict[tuple[str, str, int], set[str]] = {}
    for feed, name in (("public", "public:all"), ("dealer", "dealer:all")):
        hand: int | None = None
        shown: set[int] = set()
        last_hand: int | None = None
        for m in messages.get(name, []):
            d = m.data
            named = d.get("hand") if m.type in ("hand_start", "table_state") else None
            if isinstance(named, int) and named != hand:
                hand, shown = named, set()
            if m.type == "event" and d.get("event") == "show":
                shown.add(int(d["seat"]))
                rep.showdowns += feed == "public"
            if m.type == "event" and d.get("event") == "action" and d.get("all_in"):
                rep.all_ins += feed == "public"
            h = hand if hand is not None else last_hand
            secret: set[str] = set()
            if h is not None:
                secret |= {c for s, cs in facts.holes.get(h, {}).items() if s not in shown
                           for c in cs}
                secret |= set(facts.burns.get(h, []))
            where[(feed, m.type, m.seq)] = secret
            if m.type == "hand_end":
                last_hand, hand = hand, None
    for name, msgs in messages.items():
        if name == "surveillance":
            rep.surveillance_hole_cards = sum(
                1 for m in msgs if m.type == "event" and m.data.get("event") == "hole_card"
                and isinstance(m.data.get("hole_card"), str) and m.data["hole_card"] != "??")
            continue
        feed = "dealer" if name.startswith("dealer") else "public"
        for m in msgs:
            what = f"{name} {m.type} #{m.seq}"
            rep.leaks += [f"{what}: unmasked {p}" for p in unmasked_secrets(m.data)]
            found = where.get((feed, m.type, m.seq))
            if found is None:
                rep.unattributed += 1
                continue
            rep.leaks += [f"{what}: secret card {c} at {p}" for p, c in card_codes(m.data)
                          if c in found]
    return rep


class _Run:
    """One soak run (the state :func:`run_soak` needs between its steps)."""

    def __init__(self, opts: SoakOptions, rig: SoakRig, ctx: zmq.asyncio.Context) -> None:
        self.opts = opts
        self.rig = rig
        self.ctx = ctx
        self.rng = random.Random(opts.seed ^ 0x50A4)
        self.report = SoakReport(options=dataclasses.asdict(opts))
        self.counters: dict[str, Counter[str]] = {"shoe": Counter(), "chips": Counter()}
        self.injected: dict[str, Counter[Fault]] = {"shoe": Counter(), "chips": Counter()}
        self.console: CommandClient | None = None
        self.client: FeedClient | None = None
        self.io: RecordingIO | None = None
        self.driver: DaemonDriver | None = None
        self.last_accepted: tuple[int, dict[str, Any]] | None = None
        self.dealer: SimDealer | None = None

    # -- sessions ----------------------------------------------------------------------------

    async def connect(self) -> None:
        sim = self.rig.sim
        ep = self.rig.endpoints
        if self.console is None:
            self.console = CommandClient(
                self.ctx, ep["commands"], table_id=sim.options.table_id,
                console_id=f"soak-{os.getpid()}-{self.opts.seed}",
                keys=sim.console_keys(), timeout=5.0)  # type: ignore[arg-type]
            self.io = RecordingIO(sim, self.console)
        self.client = FeedClient(self.ctx, feed=Feed.DEALER, feed_endpoint=ep["dealer"],
                                 snapshot_endpoint=ep["snapshot"], table_id=sim.options.table_id,
                                 heartbeat_timeout=sim.options.heartbeat_timeout)
        await self.client.start()
        assert self.io is not None
        self.driver = DaemonDriver(self.io, self.client)
        deadline = time.monotonic() + 15
        while not self.driver.prompt and time.monotonic() < deadline:
            await self.driver.wait(0.5)
        if not self.driver.prompt:
            raise SoakError("no prompt from the daemon after connecting")

    async def disconnect_feed(self) -> None:
        if self.client is not None:
            await self.client.close()
            self.client = None

    async def command(self, body: Mapping[str, Any]) -> Any:
        assert self.console is not None
        return await self.console.request(body)

    async def status(self) -> dict[str, Any]:
        reply = await self.command({"command": "status"})
        return dict(reply.result)

    async def wait_quiet(self, seconds: float = 0.4) -> None:
        """Let the feed settle: no new prompt for ``seconds``."""
        assert self.driver is not None
        for _ in range(20):
            if not await self.driver.wait(seconds):
                return

    # -- faults ------------------------------------------------------------------------------

    def sims(self) -> dict[str, SimDevice]:
        sim = self.rig.sim
        assert sim.shoe is not None and sim.chips is not None
        return {"shoe": sim.shoe, "chips": sim.chips}

    def maybe_link_fault(self, kind: str) -> None:
        if self.opts.link_fault_rate <= 0 or self.rng.random() >= self.opts.link_fault_rate:
            return
        device = "shoe" if kind in SHOE_STEPS else "chips" if kind in CHIP_STEPS else None
        if device is None:
            return
        fault = self.rng.choice(LINK_FAULTS)
        self.sims()[device].inject(fault)
        self.injected[device][fault] += 1

    async def maybe_unplug(self) -> None:
        if self.opts.unplug_rate <= 0 or self.rng.random() >= self.opts.unplug_rate:
            return
        device = self.rng.choice(["shoe", "chips"])
        sim = self.sims()[device]
        if sim.pending:  # frames under way would arrive after the hold: not this time
            return
        self.report.unplugs += 1
        sim.unplug()
        lost = await self.wait_device(device, "lost", 5.0)
        await asyncio.sleep(self.opts.unplug_seconds)
        self.rig.guard.prepare()
        sim.replug()
        back = await self.wait_device(device, "ok", 8.0)
        for _ in range(3):
            if back:
                break
            # On a shared machine a stray process retrying a dangling link may have opened
            # and locked the new pty first (the driver says so): plug in again (a new pty).
            why = await self.device_error(device)
            if "exclusively lock" not in why:
                break
            self.report.replugs_stolen += 1
            sim.unplug()
            await asyncio.sleep(0.1)
            self.rig.guard.prepare()
            sim.replug()
            back = await self.wait_device(device, "ok", 8.0)
        if lost and back:
            self.report.unplugs_shown += 1
        else:
            why = await self.device_error(device)
            self.report.errors.append(f"unplug {self.report.unplugs} of the {device}: lost "
                                      f"shown {lost}, back shown {back}; last error: {why}")

    async def device_error(self, device: str) -> str:
        """Return the daemon's last error for ``device`` (from ``status``)."""
        health = (await self.status()).get("device_health", {})
        return str(health.get(device, {}).get("last_error") or "")

    async def wait_device(self, device: str, link: str, timeout: float) -> bool:
        assert self.driver is not None
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            devices = self.driver.state.get("devices")
            if isinstance(devices, Mapping) and devices.get(device) == link:
                return True
            await self.driver.wait(0.1)
        return False

    def bank_counters(self) -> None:
        for c in self.counters.values():
            for key in [k for k in c if k.startswith("now:")]:
                c[key[4:]] += c.pop(key)

    # -- kills -------------------------------------------------------------------------------

    async def kill_and_restart(self, quiet: bool) -> None:
        r = self.report
        before_state: dict[str, Any] = {}
        before_status: dict[str, Any] = {}
        before_secret: dict[str, Any] = {}
        if quiet:
            await self.wait_quiet()
            before_status = await self.status()
            before_state = await fetch_snapshot(self.ctx, self.rig.endpoints["snapshot"],
                                                self.rig.sim.options.table_id)
            before_secret = await self.surveillance_state()
            self.save_health(before_status)
        self.bank_counters()
        self.rig.kill()
        r.kills += 1
        r.quiet_kills += quiet
        await self.disconnect_feed()
        await asyncio.to_thread(self.rig.start_daemon)
        await self.connect()
        after_state = await fetch_snapshot(self.ctx, self.rig.endpoints["snapshot"],
                                           self.rig.sim.options.table_id)
        if quiet:
            after_status = await self.status()
            self.save_health(after_status)
            a, b = (without_devices(before_state, STATE_KEYS),
                    without_devices(after_state, STATE_KEYS))
            if a != b:
                diff = [k for k in STATE_KEYS if a.get(k) != b.get(k)]
                r.state_mismatches.append(f"kill {r.kills}: snapshot differs in {diff}: "
                                          f"{[(a.get(k), b.get(k)) for k in diff][:3]}")
            after_secret = await self.surveillance_state()
            if before_secret != after_secret:
                diff = [k for k in SECRET_STATE_KEYS
                        if before_secret.get(k) != after_secret.get(k)]
                r.state_mismatches.append(f"kill {r.kills}: surveillance snapshot (hole and "
                                          f"burn cards) differs in {diff}")
            r.cards_compared += sum(len(v or []) for v in
                                    (after_secret.get("hole_cards") or {}).values())
            s1, s2 = (without_devices(before_status, STATUS_KEYS),
                      without_devices(after_status, STATUS_KEYS))
            if s1 != s2:
                diff = [k for k in STATUS_KEYS if s1.get(k) != s2.get(k)]
                r.state_mismatches.append(f"kill {r.kills}: status differs in {diff}")
            await self.check_resend(after_state)
        r.restarts_ok += 1

    async def check_lost_card(self, dealer: SimDealer, handled: Mapping[str, Any]) -> None:
        """After an in-flight kill: a card drawn for ``handled`` that never reached the journal.

        If the restarted daemon still shows the prompt the dealer drew a card for, and the shoe
        holds nothing unacknowledged (so nothing will be resent), the read was acknowledged but
        not journaled: the card is lost. It is recorded, taken off the dealer's record, and the
        dealer draws again so the run goes on.
        """
        assert self.driver is not None and self.io is not None
        if str(prompt_step(handled).get("kind")) not in SHOE_STEPS:
            return
        end = time.monotonic() + 2.0
        while time.monotonic() < end:
            if self.driver.prompt.get("id") != handled.get("id"):
                return
            await self.driver.wait(0.2)
        shoe = self.rig.sim.shoe
        if shoe is None or shoe.pending:
            return
        if self.io.draws and self.io.draws[-1][1] == step_key(prompt_step(handled)):
            hand, key, code = self.io.draws.pop()
            self.report.lost_cards.append(f"hand {hand} {key}: {code} acknowledged by the host "
                                          "but not in the journal after kill -9")
            dealer.last_prompt_id = None

    def save_health(self, status: Mapping[str, Any]) -> None:
        health = status.get("device_health", {})
        for name in ("shoe", "chips"):
            h = health.get(name, {})
            for key in ("bad_frames", "retransmissions", "duplicates", "reconnects", "frames"):
                self.counters[name][f"now:{key}"] = int(h.get(key, 0))

    async def surveillance_state(self) -> dict[str, Any]:
        """Return the surveillance snapshot's state (hole and burn cards in the clear)."""
        from table_controller.feeds import ClientKeys

        keys = self.rig.sim.keys
        if not keys:
            return {}
        display = ClientKeys.from_files(keys["display_secret"], keys["server_public"])
        state = await fetch_snapshot(self.ctx, self.rig.endpoints["surveillance_snapshot"],
                                     self.rig.sim.options.table_id, "surveillance",
                                     keys=display)
        return without_devices(state, SECRET_STATE_KEYS)

    async def check_resend(self, state: Mapping[str, Any]) -> None:
        """Resend the last accepted command with its seq: from the record, nothing changes."""
        if self.last_accepted is None or self.console is None:
            return
        seq, body = self.last_accepted
        self.report.replays_checked += 1
        reply = await self.console.resend(seq, body)
        after = await fetch_snapshot(self.ctx, self.rig.endpoints["snapshot"],
                                     self.rig.sim.options.table_id)
        if reply.accepted and reply.replayed and (without_devices(after, STATE_KEYS)
                                                  == without_devices(state, STATE_KEYS)):
            self.report.replays_answered_from_record += 1
        else:
            self.report.state_mismatches.append(
                f"resent command {seq} {body}: accepted {reply.accepted}, replayed "
                f"{reply.replayed}, state unchanged "
                f"{without_devices(after, STATE_KEYS) == without_devices(state, STATE_KEYS)}")

    # -- the loop ----------------------------------------------------------------------------

    async def play(self) -> SimDealer:
        opts = self.opts
        assert self.io is not None
        people = make_players(range(1, opts.players + 1), opts.seed)
        dealer = SimDealer(self.io, lambda legal, pot: people[legal.seat].decide(legal, pot),
                           seats={s: (people[s].name, opts.buy_in) for s in people},
                           hands=opts.hands, seed=opts.seed, mistakes=_Recorder(self.io))
        self.dealer = dealer
        original_send = dealer.send

        async def send(body: Mapping[str, Any]) -> Any:
            assert self.console is not None
            seq = self.console.next_seq
            reply = await original_send(body)
            if reply.accepted and body.get("command") != "status":
                self.last_accepted = (seq, dict(body))
            return reply

        dealer.send = send  # type: ignore[method-assign]
        started = time.monotonic()
        idle = 0
        last_hand_checked = -1
        while True:
            if not self.rig.alive():
                raise SoakError(f"the daemon died on its own:\n{self.rig.log_tail()}")
            assert self.driver is not None
            prompt, state = self.driver.current()
            kind = prompt_step(prompt).get("kind", "")
            if kind in ("start_hand", "seat_players") and dealer.log.hands_started != \
                    last_hand_checked:
                last_hand_checked = dealer.log.hands_started
                await self.check_chips()
                if dealer.seated and await self.rebuy():
                    continue
                if time.monotonic() - started > opts.time_budget:
                    dealer.hands = dealer.log.hands_started
            if dealer.finished(prompt):
                return dealer
            fresh = prompt.get("id") != dealer.last_prompt_id
            kill: bool | None = None  # None: no kill at this prompt; True: quiet; False: not
            if fresh:
                self.report.prompts += 1
                await self.maybe_unplug()
                prompt, state = self.driver.current()
                if opts.kill_rate > 0 and self.rng.random() < opts.kill_rate:
                    kill = self.rng.random() < opts.quiet_kill_share
                if kill is None:
                    self.maybe_link_fault(str(prompt_step(prompt).get("kind", "")))
                elif kill is False and opts.link_fault_rate > 0:
                    # the device counters die with the daemon: take them before it acts
                    # (no fault is injected at this prompt, so none is missed)
                    self.save_health(await self.status())
            if await dealer.handle(prompt, state):
                idle = 0
                if kill is not None:
                    quiet = kill
                    if not quiet:
                        delay = self.rng.random() * 0.05
                        card = str(prompt_step(prompt).get("kind")) in SHOE_STEPS
                        if card and opts.spare_card_window:
                            delay = CARD_WINDOW + delay  # see CARD_WINDOW
                        await asyncio.sleep(delay)
                    await self.kill_and_restart(quiet)
                    await self.check_lost_card(dealer, prompt)
                continue
            if not await self.driver.wait(5.0):
                idle += 1
                if idle >= 4:
                    raise SoakError(f"stuck at prompt {prompt.get('id')}: "
                                    f"{prompt.get('text')!r}")

    async def rebuy(self) -> int:
        """Buy busted players back in (between hands), so long runs keep going."""
        status = await self.status()
        n = 0
        for seat, stack in status.get("stacks", {}).items():
            if int(stack) == 0:
                reply = await self.command({"command": "buy_in", "seat": int(seat),
                                            "amount": self.opts.buy_in})
                if reply.accepted:
                    n += 1
                    self.report.rebuys += 1
                else:
                    self.report.errors.append(f"rebuy of seat {seat} refused: {reply.reason}")
        if n:
            assert self.driver is not None
            await self.driver.wait(1.0)
        return n

    async def check_chips(self) -> None:
        status = await self.status()
        if not status.get("stacks"):
            return  # nobody seated yet
        self.report.chip_checks += 1
        total = (self.opts.players + self.report.rebuys) * self.opts.buy_in
        in_play = int(status.get("chips_in_play", 0))
        rake = int(status.get("rake_total", 0))
        if in_play + rake != total:
            self.report.chip_differences.append(
                f"after {status.get('hands_played')} hands: {in_play:,} in play + {rake:,} "
                f"rake != {total:,}")

    async def finish(self, dealer: SimDealer) -> None:
        r = self.report
        if self.driver is not None:
            await self.driver.settle(0.3)
        status = await self.status()
        self.save_health(status)
        self.bank_counters()
        r.hands_played = int(status.get("hands_played", 0))
        r.chips_before = (self.opts.players + r.rebuys) * self.opts.buy_in
        r.chips_after = int(status.get("chips_in_play", 0))
        r.rake = int(status.get("rake_total", 0))
        if r.chips_after + r.rake != r.chips_before:
            r.chip_differences.append(f"at the end: {r.chips_after:,} + rake {r.rake:,} != "
                                      f"{r.chips_before:,}")
        r.irregularities = dict(Counter(str(i.get("kind"))
                                        for i in status.get("irregularities", [])))
        r.holds = dealer.log.holds_handled
        for name, c in self.counters.items():
            r.device_counters[name] = dict(c)
        must = shown = 0
        for name, faults in self.injected.items():
            for fault, n in faults.items():
                r.link_faults[f"{name}:{fault.value}"] = n
            by_counter: Counter[str] = Counter()
            for fault, n in faults.items():
                if fault in SHOWN_BY:
                    by_counter[SHOWN_BY[fault]] += n
            for counter, n in by_counter.items():
                must += n
                shown += min(n, self.counters[name][counter])
        r.link_faults_must_show, r.link_faults_shown = must, shown


def _compare_cards(report: SoakReport, drawn: Sequence[tuple[int, tuple[Any, ...], str]],
                   assigned: Sequence[tuple[int, tuple[Any, ...], str]]) -> None:
    report.cards_drawn, report.cards_assigned = len(drawn), len(assigned)
    for i in range(max(len(drawn), len(assigned))):
        d = drawn[i] if i < len(drawn) else None
        a = assigned[i] if i < len(assigned) else None
        if d != a:
            report.misassigned.append(f"card {i + 1}: the shoe drew {d}, the journal has {a}")


_NO_PHH = re.compile(r"hand (\d+): no PHH file: (\w+)")


def _check_histories(report: SoakReport, rig: SoakRig, facts: JournalFacts) -> None:
    report.journal_entries = facts.entries
    report.link_faults_journaled = facts.link_faults
    report.refused_on_replay = facts.refused_on_replay
    report.duplicate_command_records = sum(n - 1 for n in facts.commands.values() if n > 1)
    hands = sorted(set(facts.hand_starts) | set(facts.hand_ends))
    report.hands_in_journal = len(hands)
    report.incomplete_hands = [h for h in hands
                               if facts.hand_starts[h] != 1 or facts.hand_ends[h] != 1]
    phh = rig.sim.phh_dir
    files = {p.name for p in phh.glob("hand-*.phh")} if phh.exists() else set()
    report.hand_history_files = len(files)
    reasons: dict[int, str] = {}
    with contextlib.suppress(OSError):
        for m in _NO_PHH.finditer((rig.dir / "daemon.log").read_text(errors="replace")):
            reasons[int(m[1])] = m[2]
    missing: Counter[str] = Counter()
    for h in hands:
        if h in facts.voided or f"hand-{h:06d}.phh" in files:
            continue
        missing[f"PHH refused: {reasons[h]}" if h in reasons else "no file, no reason"] += 1
    report.hand_histories_missing = dict(missing)
    if missing.get("no file, no reason"):
        report.errors.append(f"{missing['no file, no reason']} hands without a hand history "
                             "and without a logged reason")


async def run_soak(opts: SoakOptions) -> SoakReport:
    """Run one soak (see the module docstring); everything started is stopped at the end."""
    started = time.monotonic()
    options = RigOptions(seats=opts.seats, seed=opts.seed, rake_percent=opts.rake_percent,
                         heartbeat=0.25, heartbeat_timeout=2.0, camera_level=opts.camera_level)
    report = SoakReport(options=dataclasses.asdict(opts))
    try:
        rig = await asyncio.to_thread(start_rig, options, tcp=opts.tcp, settle=opts.settle,
                                      keep=opts.keep)
    except (RigError, SoakError, OSError) as exc:
        report.errors.append(f"the simulated table did not start: {exc}")
        return report
    ctx = zmq.asyncio.Context()
    run = _Run(opts, rig, ctx)
    report = run.report
    taps: FeedTaps | None = None
    try:
        await run.connect()
        if opts.taps:
            from table_controller.feeds import ClientKeys

            keys = rig.sim.keys
            display = (ClientKeys.from_files(keys["display_secret"], keys["server_public"])
                       if keys else None)
            taps = FeedTaps(ctx, rig.endpoints, display)
            await asyncio.sleep(0.5)  # subscriptions in place (slow joiner)
            await taps.subscribe_xsub()
            await asyncio.sleep(0.3)
        try:
            await run.play()
        except (TableError, TimeoutError, OSError) as exc:
            report.errors.append(f"{type(exc).__name__}: {exc}")
        if run.dealer is not None and rig.alive():
            await run.finish(run.dealer)
        if taps is not None:
            await asyncio.sleep(0.3)
    except (TableError, TimeoutError, OSError) as exc:
        report.errors.append(f"{type(exc).__name__}: {exc}")
    finally:
        if taps is not None:
            await taps.close()
        if run.client is not None:
            await run.client.close()
        if run.console is not None:
            await run.console.close()
        ctx.destroy(linger=0)
        report.crashes = len(rig.unexpected_exits)
        report.daemon_exit = await asyncio.to_thread(rig.terminate)
    try:
        if run.io is not None:
            facts = await asyncio.to_thread(read_journal, rig.sim.config_path)
            _compare_cards(report, run.io.draws, facts.assigned)
            _check_histories(report, rig, facts)
            if taps is not None:
                report.leaks = dataclasses.asdict(check_leaks(taps.messages, facts))
    except TableError as exc:
        report.errors.append(f"reading the journal: {exc}")
    finally:
        await asyncio.to_thread(rig.stop)
    report.seconds = round(time.monotonic() - started, 2)
    return report


# -- a synchronous console, and the crash window after a card read ------------------------------


class SyncConsole:
    """A blocking console (DEALER socket, CURVE when the rig has keys) and a snapshot socket.

    Sends any JSON as a command (even what :meth:`Message.encode` would refuse), so fuzzers and
    probes can use it; the DEALER socket reconnects by itself after a daemon restart.
    """

    def __init__(self, rig: SoakRig, name: str = "sync-console", first_seq: int = 1) -> None:
        from table_controller.feeds import ClientKeys

        self.ctx = zmq.Context()
        self.rig = rig
        self.name = name
        self.table = rig.sim.options.table_id
        self.sock = self.ctx.socket(zmq.DEALER)
        self.sock.linger = 0
        keys = rig.sim.console_keys()
        if isinstance(keys, ClientKeys):
            keys.apply(self.sock)
        self.sock.connect(rig.endpoints["commands"])
        self.snap = self.ctx.socket(zmq.DEALER)
        self.snap.linger = 0
        self.snap.connect(rig.endpoints["snapshot"])
        self.seq = first_seq - 1

    def close(self) -> None:
        """Close the sockets."""
        self.ctx.destroy(linger=0)

    def raw(self, frames: list[bytes], timeout: float = 5.0) -> Message:
        """Send ``frames`` (after the empty delimiter the caller includes) and decode the reply.

        :raises SoakError: if no reply comes within ``timeout``.
        """
        self.sock.send_multipart(frames)
        if not self.sock.poll(int(timeout * 1000)):
            raise SoakError(f"no reply from the command endpoint in {timeout:g} s")
        return decode(self.sock.recv_multipart()[-1])

    def command(self, body: Mapping[str, Any], timeout: float = 5.0) -> Message:
        """Send ``body`` as the next command of this console."""
        self.seq += 1
        msg = {"v": 1, "type": "command", "seq": self.seq, "table": self.table,
               "ts": time.time(), "data": dict(body), "console": self.name}
        return self.raw([b"", json.dumps(msg).encode()], timeout)

    def ok(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """Send a command that must be accepted; return its result.

        :raises SoakError: if it is refused.
        """
        reply = self.command(body)
        if not reply.data.get("accepted"):
            raise SoakError(f"{dict(body)} refused: {reply.data.get('reason')}")
        return dict(reply.data.get("result") or {})

    def status(self) -> dict[str, Any]:
        """Return the ``status`` result."""
        return self.ok({"command": "status"})

    def step(self) -> dict[str, Any]:
        """Return the current prompt's step."""
        return prompt_step(self.status().get("prompt"))

    def snapshot(self, feed: str = "dealer") -> dict[str, Any]:
        """Return the snapshot endpoint's state of ``feed``.

        :raises SoakError: if none comes within 5 s.
        """
        req = Message("snapshot_request", 0, self.table, time.time(),
                      {"feed": feed, "request": 1})
        self.snap.send_multipart([b"", req.encode()])
        if not self.snap.poll(5000):
            raise SoakError("no snapshot in 5 s")
        return dict(decode(self.snap.recv_multipart()[-1]).data.get("state") or {})


def post_blinds(console: SyncConsole, rig: SoakRig, timeout: float = 10.0) -> dict[str, Any]:
    """Put the chips of every post the table asks for on the felt; return the next step.

    :raises SoakError: if the posts do not complete within ``timeout`` seconds.
    """
    from table_controller.simtable.dealer import LIVE_POSTS
    from table_controller.simtable.felt import Felt

    cfg = rig.sim.chip_config
    assert rig.sim.chips is not None
    felt = Felt(rig.sim.chips, cfg.denominations, cfg.seat_zones, cfg.pot_zone)
    deadline = time.monotonic() + timeout
    last: tuple[Any, ...] = ()
    while True:
        step = console.step()
        if step.get("kind") != "post":
            return step
        if time.monotonic() > deadline:
            raise SoakError(f"the posts did not complete: {step}")
        key = (step.get("seat"), step.get("post_kind"), step.get("amount"))
        if key != last:
            last = key
            seat, amount = int(step["seat"]), int(step["amount"])
            if step.get("post_kind") in LIVE_POSTS:
                felt.set_seat(seat, felt.seat(seat) + amount)
            else:
                felt.set_pot(felt.pot + amount)
        time.sleep(0.05)  # the sensors report over the pty (real I/O)


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


def journal_tail(rig: SoakRig, n: int = 12) -> list[str]:
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
                     stop_at_first_loss: bool = False, keep: bool = False) -> CrashWindowReport:
    """SIGKILL the daemon 0..``max_delay`` s after the shoe sends a card, ``attempts`` times.

    After each kill the daemon is restarted on the same journal and simulators. A card is
    *kept* when the hand moved past its step (it was journaled before the kill, or the shoe
    resent it because it was never acknowledged); it is *lost* when the shoe had it
    acknowledged but the restarted daemon still asks for the same card (the read was ACKed
    before it was journaled). Each loss records the delay and whether the frame was ACKed.
    """
    started = time.monotonic()
    rng = random.Random(seed ^ 0xC2A5)
    rep = CrashWindowReport()
    rig = start_rig(RigOptions(seats=6, security="curve", camera_level="exact",
                               seed=seed), tcp=True, keep=keep)
    console = SyncConsole(rig, f"crash-window-{os.getpid()}")
    try:
        shoe = rig.sim.shoe
        assert shoe is not None
        for seat in (1, 2, 3):
            console.ok({"command": "seat", "seat": seat, "player": f"p{seat}", "stack": 10_000})
        deck = [rig.sim.uid(c) for c in rig.sim.profile.cards.values()]
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
            acked = shoe.pending == 0
            rep.acked_at_kill += acked
            rig.start_daemon()
            end = time.monotonic() + 3.0
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
        from table_controller.feeds import ClientKeys

        status = without_devices(console.status(), STATUS_KEYS)
        snap = without_devices(console.snapshot(), STATE_KEYS)
        keys = rig.sim.keys
        display = ClientKeys.from_files(keys["display_secret"], keys["server_public"])

        async def secret() -> dict[str, Any]:
            ctx = zmq.asyncio.Context()
            try:
                return await fetch_snapshot(ctx, rig.endpoints["surveillance_snapshot"],
                                            rig.sim.options.table_id, "surveillance",
                                            keys=display)
            finally:
                ctx.destroy(linger=0)

        return status, snap, without_devices(asyncio.run(secret()), SECRET_STATE_KEYS)

    try:
        for seat in (1, 2, 3):
            console.ok({"command": "seat", "seat": seat, "player": f"p{seat}", "stack": 10_000})
        shoe = rig.sim.shoe
        assert shoe is not None
        shoe.load_deck([rig.sim.uid(c) for c in rig.sim.profile.cards.values()])
        console.ok({"command": "start"})
        post_blinds(console, rig)
        for _ in range(2):
            before = console.step()
            shoe.draw()
            deadline = time.monotonic() + 5
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
        except SoakError as exc:
            rep.mismatches.append(f"the last start failed: {exc}\n{rig.log_tail(80)}")
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
