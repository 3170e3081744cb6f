"""The soak run: the dealer plays while faults, unplugs and kills are injected at seeded prompts.

See the package documentation for what a run does; this module holds the loop (:class:`_Run`)
and :func:`run_soak`, which starts the table, plays, and fills the report from the checks.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Mapping
from typing import Any

import zmq
import zmq.asyncio

from hardware.sim.device import Fault
from table_controller.engine import Card
from table_controller.errors import TableError
from table_controller.feeds import CommandClient, Feed, FeedClient
from table_controller.simtable.daemon_io import DaemonDriver, DaemonIO
from table_controller.simtable.dealer import Mistakes, SimDealer, prompt_step
from table_controller.simtable.devices.hands import DeviceHands, hands_of
from table_controller.simtable.players import make_players
from table_controller.simtable.rig import RigError, RigOptions, SimRig
from table_controller.simtable.soak.console import (
    SECRET_STATE_KEYS,
    STATE_KEYS,
    STATUS_KEYS,
    fetch_snapshot,
    without_devices,
)
from table_controller.simtable.soak.facts import (
    check_histories,
    compare_cards,
    read_journal,
    step_key,
)
from table_controller.simtable.soak.leaks import FeedTaps, check_leaks
from table_controller.simtable.soak.plan import (
    CARD_WINDOW,
    CHIP_STEPS,
    LINK_FAULTS,
    SHOE_STEPS,
    SHOWN_BY,
    SoakError,
    SoakOptions,
    start_rig,
)
from table_controller.simtable.soak.report import SoakReport


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



class _Run:
    """One soak run (the state :func:`run_soak` needs between its steps)."""

    def __init__(self, opts: SoakOptions, rig: SimRig, ctx: zmq.asyncio.Context) -> None:
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
        sim = self.rig
        ep = self.rig.endpoints
        if self.console is None:
            self.console = CommandClient(
                self.ctx, ep["commands"], table_id=sim.options.table_id,
                console_id=f"soak-{os.getpid()}-{self.opts.seed}",
                keys=sim.console_keys(), timeout=5.0)
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

    @property
    def hands(self) -> DeviceHands:
        """The devices' faults, cables and counters (``sim run``'s control socket, or inline)."""
        return hands_of(self.rig)

    def maybe_link_fault(self, kind: str) -> None:
        if self.opts.link_fault_rate <= 0 or self.rng.random() >= self.opts.link_fault_rate:
            return
        device = "shoe" if kind in SHOE_STEPS else "chips" if kind in CHIP_STEPS else None
        if device is None:
            return
        fault = self.rng.choice(LINK_FAULTS)
        self.hands.inject(device, fault)
        self.injected[device][fault] += 1

    async def maybe_unplug(self) -> None:
        if self.opts.unplug_rate <= 0 or self.rng.random() >= self.opts.unplug_rate:
            return
        device = self.rng.choice(["shoe", "chips"])
        hands = self.hands
        if hands.counters(device).pending:  # frames under way would arrive after the hold
            return
        self.report.unplugs += 1
        hands.unplug(device)
        lost = await self.wait_device(device, "lost", 5.0)
        await asyncio.sleep(self.opts.unplug_seconds)
        hands.replug(device)
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
            hands.unplug(device)
            await asyncio.sleep(0.1)
            hands.replug(device)
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
                                                self.rig.options.table_id)
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
                                           self.rig.options.table_id)
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
        end = time.monotonic() + 30.0
        while time.monotonic() < end:
            if self.driver.prompt.get("id") != handled.get("id"):
                return
            await self.driver.wait(0.2)
        if self.rig.options.shoe != "ref" or self.hands.counters("shoe").pending:
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
        display = self.rig.display_keys()
        if display is None:
            return {}
        state = await fetch_snapshot(self.ctx, self.rig.endpoints["surveillance_snapshot"],
                                     self.rig.options.table_id, "surveillance",
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
                                     self.rig.options.table_id)
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
                raise SoakError(f"the daemon died on its own:\n{self.rig.daemon_log_tail()}")
            assert self.driver is not None
            prompt, state = self.driver.current()
            kind = prompt_step(prompt).get("kind", "")
            if kind in ("start_hand", "seat_players") and dealer.log.hands_started != \
                    last_hand_checked:
                last_hand_checked = dealer.log.hands_started
                await self.check_chips()
                if opts.progress:
                    r = self.report
                    print(f"soak: {dealer.log.hands_started} of {opts.hands} hands started, "
                          f"{time.monotonic() - started:.0f} s; kills {r.kills}, unplugs "
                          f"{r.unplugs}, link faults {r.link_faults_must_show}, lost cards "
                          f"{len(r.lost_cards)}, chip differences {len(r.chip_differences)}",
                          file=sys.stderr, flush=True)
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
            display = rig.display_keys()
            taps = FeedTaps(ctx, rig.endpoints, display, table=rig.options.table_id)
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
            facts = await asyncio.to_thread(read_journal, rig.config_path)
            compare_cards(report, run.io.draws, facts.assigned)
            check_histories(report, rig, facts)
            if taps is not None:
                report.leaks = dataclasses.asdict(check_leaks(taps.messages, facts))
    except TableError as exc:
        report.errors.append(f"reading the journal: {exc}")
    finally:
        await asyncio.to_thread(rig.stop)
    report.seconds = round(time.monotonic() - started, 2)
    return report
