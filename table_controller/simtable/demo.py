"""The one-command demo: the daemon on simulated devices, players, a dealer and a live display.

:func:`run_demo` starts a :class:`~.rig.SimRig` (simulators over ptys, calibration, keys, the
daemon process), seats seeded :class:`~.players.Player` s, and lets a :class:`~.dealer.SimDealer`
follow the daemon's prompts for ``hands`` hands, while the dealer feed is shown live (or as
plain progress lines when the output is not a terminal). ``faults`` is the chance, at each
prompt, that one link fault (bad CRC, split or dropped bytes, lost frame, duplicate, lost ACK) is
injected into the shoe or the chip sensors: the daemon's link layer catches and repairs them,
visible in the device counters of the summary; and, at an eighth of that rate, that a card whose
tag is not in the deck comes out of the shoe while dealing (``unknown_card``), at a
twenty-fourth that the shoe is unplugged for a second (``device_lost``): the controller holds
the table, the simulated floor resolves it and play resumes.
Runs are as long as asked: between hands a player who cannot cover a big blind buys back in, or
leaves and a new player sits down (:class:`~.players.Lobby`), with chips from the cage; the
summary checks chips before + buy-ins = after + rake.
Everything started is stopped at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import zmq
import zmq.asyncio
from rich.console import Console, Group
from rich.text import Text

from hardware.sim.device import Fault
from table_controller.displays.live import DisplayModel
from table_controller.displays.render import render_dealer
from table_controller.feeds import FeedEvent
from table_controller.simtable.daemon_io import open_daemon_session
from table_controller.simtable.dealer import Mistakes, SimDealer, prompt_step
from table_controller.simtable.devices.hands import hands_of
from table_controller.simtable.players import Lobby
from table_controller.simtable.rig import RigOptions, SimRig
from table_controller.simtable.scenario import drive

#: The demo's rake: 5 % of each pot, at most 500 (five big blinds), none without a flop.
DEMO_RAKE_PERCENT = 5.0
DEMO_RAKE_CAP = 500
#: The camera of the paced demo: rendered frames read back by the recognizer (``--fast``: exact).
CAMERA_LEVEL = "easy"
#: Seconds the paced dealer waits at most for the controller to confirm the camera's board.
CAMERA_WAIT = 5.0
LINK_FAULTS = (Fault.CORRUPT_CRC, Fault.SPLIT, Fault.DROP_BYTES, Fault.DROP_FRAME,
               Fault.DUPLICATE, Fault.LOSE_ACK)


@dataclass(slots=True)
class DemoSummary:
    """What the demo did (printed at the end; ``--summary-json`` writes it)."""

    started: bool = False
    hands_played: int = 0
    hands_requested: int = 0
    seed: int = 0
    seconds: float = 0.0
    startup_seconds: float = 0.0
    chips_before: int = 0
    buy_ins: int = 0
    rebuys: int = 0
    newcomers: int = 0
    chips_after: int = 0
    rake: int = 0
    chips_agree: bool = False
    stacks_before: dict[str, int] = field(default_factory=dict)
    stacks_after: dict[str, int] = field(default_factory=dict)
    irregularities: list[dict[str, Any]] = field(default_factory=list)
    holds: int = 0
    mucked: int = 0
    camera: str = ""
    camera_timeouts: int = 0
    faults_injected: int = 0
    card_faults_injected: int = 0
    unplugs: int = 0
    device_health: dict[str, Any] = field(default_factory=dict)
    hand_histories: str = ""
    hand_history_files: int = 0
    journal: str = ""
    workdir_kept: bool = False
    saved_to: str = ""
    daemon_exit: int | None = None
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return asdict(self)


class DemoFaults(Mistakes):
    """Card and device faults while dealing: an unknown tag, or the shoe unplugged for a second.

    The controller holds the table (``unknown_card``, ``device_lost``); the simulated floor
    resolves it and resumes, and the dealer deals the step again.
    """

    def __init__(self, rig: SimRig, rate: float, rng: random.Random,
                 link_faults: Callable[[], None] | None = None) -> None:
        self.rig, self.rate, self.rng = rig, rate, rng
        self.link_faults = link_faults
        self.injected = 0
        self.unplugs = 0

    async def before(self, dealer: SimDealer, prompt: Any) -> bool:
        """Maybe draw an unregistered tag, or unplug the shoe, instead of dealing a hole card.

        The prompt is then skipped: after the hold the controller asks for the card again.
        """
        if self.link_faults is not None:
            self.link_faults()
        if (self.rate <= 0 or self.rig.options.shoe != "ref"
                or prompt_step(prompt).get("kind") != "deal_hole"):
            return False
        hands = hands_of(self.rig)
        roll = self.rng.random()
        if roll < self.rate / 8:
            hands.draw_unregistered()
            self.injected += 1
            return True
        devices = dealer.last_state.get("devices")
        shoe_ok = isinstance(devices, dict) and devices.get("shoe") == "ok"
        if roll < self.rate / 8 + self.rate / 24 and shoe_ok:
            # only a shoe the controller sees as connected: a second unplug before it noticed
            # the first one back would raise nothing, and the skipped card would never come
            hands.unplug("shoe")
            await asyncio.sleep(1.0)
            hands.replug("shoe")
            self.unplugs += 1
            return True
        return False


def _faulty(rig: SimRig, rate: float, rng: random.Random, counter: list[int]
            ) -> Callable[[], None]:
    def maybe() -> None:
        if rate > 0 and rng.random() < rate:
            # the link faults of the reference link (a PN532 has its own, not injected here)
            device = "shoe" if rng.random() < 0.5 else "chips"
            if device == "chips" or rig.options.shoe == "ref":
                hands_of(rig).inject(device, rng.choice(LINK_FAULTS))
                counter[0] += 1
    return maybe


async def run_demo(
    *,
    hands: int = 10,
    seed: int = 1,
    fast: bool = False,
    faults: float = 0.0,
    keep: bool = False,
    out: str | os.PathLike[str] | None = None,
    table_id: str = "T1",
    console: Console | None = None,
    live: bool | None = None,
    seats: int = 6,
    players: int = 5,
    buy_in: int = 10_000,
    central: str | None = None,
    shoe: str = "ref",
    chips: str = "ref",
    devices: str | None = None,
) -> DemoSummary:
    """Play ``hands`` hands on the simulated table; return the summary.

    :param shoe: ``"ref"`` or ``"pn532"`` (:class:`~.rig.RigOptions`).
    :param chips: ``"ref"`` or ``"rfid"`` (:class:`~.rig.RigOptions`).
    :param devices: ``"process"`` (``sim run`` as a child process, worked through its control
        socket, faults included) or ``"inline"`` (:class:`~.rig.RigOptions`); ``None``:
        ``"process"``.
    """
    from rich.live import Live

    console = console or Console()
    use_live = console.is_terminal if live is None else live
    summary = DemoSummary(hands_requested=hands, seed=seed)
    started = time.monotonic()
    # A typical rake (DEMO_RAKE_PERCENT of each pot, capped): the hand histories carry it (PHH
    # user field ``_rake``) and the summary shows chips before = after + rake.
    # --fast: the simulated camera reports the board file as is; paced: it renders a picture of
    # the felt and reads the cards back with the recogniser (slower, as a camera is)
    level = "exact" if fast else CAMERA_LEVEL
    summary.camera = camera_mode(level)
    rig = SimRig(RigOptions(seats=seats, seed=seed, rake_percent=DEMO_RAKE_PERCENT,
                            rake_cap=DEMO_RAKE_CAP, camera_level=level,
                            table_id=table_id, name=f"Demo table {table_id}",
                            central_url=central, shoe=shoe, chips=chips,
                            devices=devices or "process"),
                 keep=keep)
    summary.hand_histories = str(rig.phh_dir)
    summary.journal = str(rig.journal_path)
    summary.workdir_kept = keep
    if not use_live:
        console.print(f"starting the simulated table in {rig.dir} ...")
    try:
        await asyncio.to_thread(rig.start)
        summary.startup_seconds = round(time.monotonic() - started, 2)
        summary.started = True
    except Exception as exc:
        summary.error = f"the simulated table did not start: {exc}"
        await asyncio.to_thread(rig.stop)
        return summary
    ep = rig.endpoints
    table = rig.options.table_id
    console.print(f"daemon ready (table {table}); watch it from another terminal with:\n"
                  f"  table-controller display --role public --connect {ep['public']} "
                  f"--snapshot {ep['snapshot']} --table {table}\n"
                  f"  table-controller display --role dealer --connect {ep['dealer']} "
                  f"--snapshot {ep['snapshot']} --table {table}", highlight=False,
                  soft_wrap=True)
    ctx = zmq.asyncio.Context()
    model = DisplayModel([rig.options.table_id])
    lines: list[str] = []

    def on_event(ev: FeedEvent) -> None:
        model.on_event(rig.options.table_id, ev)
        m = ev.message
        if m is None or use_live:
            return
        text = str(m.data.get("text", ""))
        if m.type == "announcement" and m.data.get("kind") in ("hand_start", "payouts"):
            lines.append(text)
        elif m.type in ("irregularity", "hold", "resume"):
            lines.append(f"{m.type}: {text or m.data.get('reason') or m.data.get('note', '')}")

    seat_numbers = list(range(1, min(players, seats) + 1))
    lobby = Lobby(seat_numbers, seed, buy_in, big_blind=rig.options.big_blind)
    people = lobby.players
    summary.stacks_before = {str(s): buy_in for s in seat_numbers}
    summary.chips_before = buy_in * len(seat_numbers)
    counter = [0]
    inject = _faulty(rig, faults, random.Random(seed ^ 0xFA17), counter)
    card_faults = DemoFaults(rig, faults, random.Random(seed ^ 0xCA4D), link_faults=inject)
    pace = 0.0 if fast else 0.05
    try:
        io, driver, cmd_client, feed_client = await open_daemon_session(
            rig, ctx, pace=pace, on_event=on_event)
        dealer = SimDealer(io, lobby.decide,
                           seats={s: (people[s].name, buy_in) for s in seat_numbers},
                           hands=hands, seed=seed, mistakes=card_faults,
                           board_settle=0.15 if fast else 1.5, pace=pace,
                           mucks=lobby.mucks, camera_wait=0.0 if fast else CAMERA_WAIT,
                           lobby=lobby)
        def screen() -> Group:
            injected = counter[0] + card_faults.injected + card_faults.unplugs
            progress = Text(f"demo: hand {max(dealer.log.hands_started, 1)} of {hands} · seed "
                            f"{seed} · {'fast' if fast else 'paced'} · faults injected "
                            f"{injected} · Ctrl-C stops", style="dim")
            return Group(progress, render_dealer(model.ordered()[0]))

        async def show() -> None:
            if use_live:
                with Live(screen(), console=console, refresh_per_second=8) as lv:
                    while True:
                        lv.update(screen())
                        await asyncio.sleep(0.125)
            else:
                while True:
                    while lines:
                        console.print(lines.pop(0))
                    await asyncio.sleep(0.2)

        shower = asyncio.create_task(show())
        try:
            await drive(dealer, driver, wait=5.0, stuck_after=3)
            await driver.settle(0.3)
        except Exception as exc:
            summary.error = f"{type(exc).__name__}: {exc}"
        finally:
            shower.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await shower
            while lines:
                console.print(lines.pop(0))
        status = (await cmd_client.send("status")).result
        summary.hands_played = int(status.get("hands_played", 0))
        summary.stacks_after = {str(k): int(v) for k, v in status.get("stacks", {}).items()}
        summary.rake = int(status.get("rake_total", 0))
        summary.chips_after = int(status.get("chips_in_play", 0))
        summary.irregularities = [
            {k: i.get(k) for k in ("id", "kind", "text", "resolved")}
            for i in status.get("irregularities", [])]
        summary.buy_ins = dealer.log.buy_ins
        summary.rebuys = dealer.log.rebuys
        summary.newcomers = dealer.log.newcomers
        summary.holds = dealer.log.holds_handled
        summary.mucked = dealer.log.mucked
        summary.camera_timeouts = dealer.log.camera_timeouts
        summary.device_health = {
            n: {k: h.get(k) for k in ("link", "frames", "bad_frames", "retransmissions",
                                      "duplicates", "reconnects")}
            for n, h in status.get("device_health", {}).items()}
        await feed_client.close()
        await cmd_client.close()
    except Exception as exc:
        summary.error = summary.error or f"{type(exc).__name__}: {exc}"
    finally:
        ctx.destroy(linger=0)
        summary.daemon_exit = await asyncio.to_thread(rig.terminate)
        summary.hand_history_files = len(list(rig.phh_dir.glob("*"))) if rig.phh_dir.exists() \
            else 0
        if out is not None:
            saved = rig.save_records(out)
            summary.saved_to = str(saved)
            summary.hand_histories = str(saved / "phh")
            summary.journal = str(saved / "journal.db")
        await asyncio.to_thread(rig.stop)
    summary.faults_injected = counter[0]
    summary.card_faults_injected = card_faults.injected
    summary.unplugs = card_faults.unplugs
    summary.chips_agree = (summary.chips_after + summary.rake
                           == summary.chips_before + summary.buy_ins)
    summary.seconds = round(time.monotonic() - started, 2)
    return summary


def camera_mode(level: str) -> str:
    """Say how the simulated camera ran (``level`` of ``sim://camera``)."""
    if level == "exact":
        return "board file read as is (level exact, --fast)"
    return (f"rendered frames (level {level}) read back by the recognizer and the stabiliser, "
            "as a real camera")


def summary_lines(s: DemoSummary) -> list[str]:
    """Return the summary in plain words."""
    agree = "agree" if s.chips_agree else "DO NOT AGREE"
    out = [
        f"hands played: {s.hands_played} of {s.hands_requested} (seed {s.seed}, "
        f"{s.seconds:.1f} s)",
        f"chips in play: before {s.chips_before:,} + buy-ins {s.buy_ins:,} = "
        f"{s.chips_before + s.buy_ins:,}; after {s.chips_after:,} + rake {s.rake:,} = "
        f"{s.chips_after + s.rake:,} ({agree})",
        f"players: {s.rebuys} bought back in, {s.newcomers} new players sat down",
        "stacks after: " + ", ".join(f"seat {k} {v:,}" for k, v in s.stacks_after.items()),
        f"camera: {s.camera}" + (f" (the dealer waited in vain {s.camera_timeouts} times)"
                                 if s.camera_timeouts else ""),
        f"hands mucked at the showdown: {s.mucked}",
        f"irregularities: {len(s.irregularities)}"
        + "".join(f"\n  - {i['kind']}: {i['text']}" for i in s.irregularities),
        f"holds: {s.holds}; faults injected: {s.faults_injected} on the serial links, "
        f"{s.card_faults_injected} unknown cards from the shoe, {s.unplugs} shoe unplugged",
    ]
    for name, h in s.device_health.items():
        out.append(f"  {name}: link {h.get('link')}, frames {h.get('frames')}, bad frames "
                   f"{h.get('bad_frames')}, retransmissions {h.get('retransmissions')}, "
                   f"duplicates {h.get('duplicates')}")
    kept = s.workdir_kept or bool(s.saved_to)
    where = s.hand_histories if kept else f"{s.hand_histories} (removed; --keep keeps it)"
    out.append(f"hand histories (PHH): {s.hand_history_files} files in {where}")
    out.append(f"journal: {s.journal}" + ("" if kept else " (removed)"))
    if s.saved_to:
        out.append(f"records saved in {s.saved_to} (journal, hand histories, daemon log; "
                   f"table-controller recall / replay read them)")
    if s.daemon_exit not in (0, None):
        out.append(f"the daemon exited with status {s.daemon_exit}")
    if s.error:
        out.append(f"error: {s.error}")
    return out
