"""End-to-end rig: simulated devices on real ptys, the daemon as a separate process, a dealer.

The test process owns the simulators (``SimShoe``, ``SimChipSensor`` on ``os.openpty`` pairs) and
the board file; the daemon (``python -m table_controller run``) opens them as
``serial://<pty link>`` like real ports. A small scripted dealer follows the prompts on the dealer
feed, moves chips on the simulated felt, draws cards and sends dealer commands over CURVE.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import zmq.asyncio

from calibration.chips import default_chip_config
from calibration.deck import DeckProfile, DeckStore
from hardware.sim.camera_link import BoardRenderer, write_board
from hardware.sim.chips import TRAY, SimChipSensor
from hardware.sim.pty import PtyGuard
from hardware.sim.shoe import SimShoe, sim_deck_profile
from table_controller.engine import Card
from table_controller.feeds import (
    ClientKeys,
    CommandClient,
    CommandReply,
    Feed,
    FeedClient,
    FeedEventKind,
    Message,
    create_key_pair,
)
from table_controller.simtable.rig import free_tcp_ports, pot_zone

T = TypeVar("T")
REPO = Path(__file__).resolve().parents[2]
DECK = sim_deck_profile(1)
UID = {card.code: uid for uid, card in DECK.items()}
SEATS = 6
POT_ZONE = pot_zone(SEATS)
#: Denomination code 1 is worth 1 chip in the default chip calibration.
ONE = 1


class Rig:
    """Simulators, configuration files and the daemon process of one table."""

    def __init__(self, tmp: Path, deck: list[str], *, settle: float = 1.0,
                 camera_level: str = "exact") -> None:
        self.tmp = tmp
        self.settle = settle
        self._guard = PtyGuard(tmp)
        # the deck goes in once the daemon listens (a frame sent before would be resent: a
        # retransmission on a clean link)
        self.shoe = self._unpoisoned(lambda: SimShoe(heartbeat_interval=0.2))
        self._deck: list[str] | None = [UID[c] for c in deck]
        self.chips = self._unpoisoned(lambda: SimChipSensor(range(1, 13), tray={ONE: 60_000},
                                                            heartbeat_interval=0.2))
        self.shoe.start()
        self.chips.start()
        self.board_path = tmp / "board.json"
        self.board: list[str | None] = [None] * 5
        write_board(self.board_path, self.board)
        # a rendering camera renders here, in the dealer's process; the daemon reads the frames
        self.renderer: BoardRenderer | None = None
        camera = f"sim://camera?board={self.board_path}"
        profile = ""
        if camera_level != "exact":
            self.renderer = BoardRenderer(self.board_path, tmp / "board.png", level=camera_level)
            self.renderer.calibrate(tmp / "camera_profile.json")
            self.renderer.start()
            camera = f"sim://camera?frames={tmp / 'board.png'}"
            profile = f'camera_profile = "{tmp / "camera_profile.json"}"'
        decks = tmp / "decks"
        store = DeckStore(decks)
        store.save(DeckProfile.build("sim-1", DECK))
        store.activate("sim-1")
        (tmp / "chip_zones.toml").write_text(default_chip_config(SEATS).to_toml())
        keys = tmp / "keys"
        create_key_pair(keys, "server")
        create_key_pair(keys / "displays", "display")
        create_key_pair(keys / "consoles", "console")
        self.console_keys = ClientKeys.from_files(keys / "consoles" / "console.key_secret",
                                                  keys / "server.key")
        self.display_keys = ClientKeys.from_files(keys / "displays" / "display.key_secret",
                                                  keys / "server.key")
        ports = free_tcp_ports(6)
        names = ("public", "dealer", "surveillance", "snapshot", "surveillance_snapshot",
                 "commands")
        self.endpoints = {n: f"tcp://127.0.0.1:{p}" for n, p in zip(names, ports, strict=True)}
        eps = "\n".join(f'{n} = "{e}"' for n, e in self.endpoints.items())
        self.config = tmp / "table.toml"
        self.config.write_text(f"""
[table]
id = "T1"
seats = {SEATS}

[stakes]
small_blind = 50
big_blind = 100

[devices]
shoe = "serial://{self.shoe.path}?heartbeat=0.2"
chips = "serial://{self.chips.path}?heartbeat=0.2"
camera = "{camera}"

[calibration]
decks_dir = "{decks}"
active_deck = "sim-1"
chip_zones = "{tmp / 'chip_zones.toml'}"
{profile}

[endpoints]
{eps}

[keys]
security = "curve"
server_secret_key = "{keys / 'server.key_secret'}"
displays_dir = "{keys / 'displays'}"
consoles_dir = "{keys / 'consoles'}"

[journal]
path = "{tmp / 'state' / 'journal.db'}"
phh_dir = "{tmp / 'state' / 'phh'}"

[timing]
heartbeat_interval = 0.25
""")
        self.proc: subprocess.Popen[bytes] | None = None
        self.ready: dict[str, Any] = {}

    def _unpoisoned(self, make: Callable[[], T]) -> T:
        """Build a simulator after the rig's guard took the pty numbers stale links point to.

        A leftover daemon (another run's, killed without its simulators cleaning up) keeps
        reopening its stale pty links; a recycled ``/dev/pts/N`` would be stolen from us. The
        :class:`~hardware.sim.pty.PtyGuard` keeps such numbers allocated until the rig closes.
        """
        self._guard.prepare()
        return make()

    def start_daemon(self, timeout: float = 20.0) -> dict[str, Any]:
        ready = self.tmp / "ready.json"
        ready.unlink(missing_ok=True)
        env = dict(os.environ, PYTHONPATH=str(REPO))
        with open(self.tmp / "daemon.log", "ab") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "table_controller", "run", "--config", str(self.config),
                 "--ready-file", str(ready), "--settle", str(self.settle), "--die-with-parent"],
                stdout=subprocess.DEVNULL, stderr=err, env=env, cwd=REPO)
        deadline = time.monotonic() + timeout
        while not ready.exists():
            if self.proc.poll() is not None:
                raise AssertionError(f"daemon exited {self.proc.returncode}: "
                                     f"{(self.tmp / 'daemon.log').read_text()}")
            if time.monotonic() > deadline:
                raise AssertionError("daemon not ready in time")
            time.sleep(0.02)
        self.ready = json.loads(ready.read_text())
        if self._deck is not None:
            self.shoe.load_deck(self._deck)
            self._deck = None
        return self.ready

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def terminate(self) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(15)

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        if self.renderer is not None:
            self.renderer.close()
        self.shoe.close()
        self.chips.close()
        self._guard.close()

    # -- the felt ---------------------------------------------------------------------------

    def put(self, zone: int, amount: int) -> None:
        self.chips.move(TRAY, zone, {ONE: amount})

    def collect(self) -> None:
        for z in range(1, SEATS + 1):
            held = self.chips.zone(z).get(ONE, 0)
            if held:
                self.chips.move(z, POT_ZONE, {ONE: held})

    def push(self, amount: int) -> None:
        self.chips.move(POT_ZONE, TRAY, {ONE: amount})

    def clear_board(self) -> None:
        self.board = [None] * 5
        write_board(self.board_path, self.board)

    def place_board(self, slot: int, uid: str) -> None:
        self.board[slot] = DECK[uid].code
        write_board(self.board_path, self.board)


Policy = Callable[[Mapping[str, Any]], tuple[str, dict[str, Any]]]


def passive(step: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """Check when possible, else call."""
    legal = step["legal"]
    return ("check" if legal["can_check"] else "call"), {"seat": step["seat"]}


class Dealer:
    """Follows the dealer feed's prompts and plays them out on the rig."""

    def __init__(self, rig: Rig, ctx: zmq.asyncio.Context, console: str = "dealer-1") -> None:
        self.rig = rig
        self.ctx = ctx
        self.console = console
        self.client: CommandClient | None = None
        self.feed: FeedClient | None = None
        self.prompt: dict[str, Any] = {}
        self.state: dict[str, Any] = {}
        self.messages: list[Message] = []

    async def connect(self, first_seq: int = 1) -> None:
        eps = self.rig.endpoints
        self.client = CommandClient(self.ctx, eps["commands"], table_id="T1",
                                    console_id=self.console, keys=self.rig.console_keys,
                                    timeout=3.0, first_seq=first_seq)
        self.feed = FeedClient(self.ctx, feed=Feed.DEALER, feed_endpoint=eps["dealer"],
                               snapshot_endpoint=eps["snapshot"], table_id="T1",
                               heartbeat_timeout=3.0)
        await self.feed.start()
        await self.wait(lambda: bool(self.prompt))

    async def close(self) -> None:
        if self.client is not None:
            await self.client.close()
        if self.feed is not None:
            await self.feed.close()

    async def pump(self, timeout: float = 0.2) -> None:
        assert self.feed is not None
        ev = await self.feed.next_event(timeout=timeout)
        if ev is None:
            return
        if ev.kind in (FeedEventKind.SNAPSHOT, FeedEventKind.RECOVERED) and ev.state:
            self.state = dict(ev.state)
            if self.state.get("prompt"):
                self._set_prompt(self.state["prompt"])
        elif ev.kind is FeedEventKind.UPDATE and ev.message is not None:
            msg = ev.message
            self.messages.append(msg)
            if msg.type == "table_state":
                self.state = dict(msg.data)
                if self.state.get("prompt"):
                    self._set_prompt(self.state["prompt"])
            elif msg.type == "prompt":
                self._set_prompt(dict(msg.data))

    def _set_prompt(self, p: Mapping[str, Any]) -> None:
        if not self.prompt or p["id"] >= self.prompt["id"]:
            self.prompt = dict(p)

    async def wait(self, cond: Callable[[], bool], timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not cond():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out; prompt {self.prompt}")
            await self.pump()

    async def cmd(self, name: str, **args: Any) -> CommandReply:
        assert self.client is not None
        return await self.client.send(name, **args)

    async def ok(self, name: str, **args: Any) -> CommandReply:
        reply = await self.cmd(name, **args)
        assert reply.accepted, f"{name} {args}: {reply.reason}"
        return reply

    async def step_once(self, policy: Policy = passive) -> str:
        """Do what the current prompt asks; wait for the next prompt; return the step's kind."""
        p = self.prompt
        step = p["step"]
        kind = step["kind"]
        rig = self.rig
        if kind == "post":
            zone = step["seat"] if step["post_kind"] in ("small_blind", "big_blind") else POT_ZONE
            rig.put(zone, step["amount"])
        elif kind in ("deal_hole", "burn"):
            rig.shoe.draw()
        elif kind == "board":
            uid = rig.shoe.draw()
            await asyncio.sleep(0.01)
            rig.place_board(step["slot"], uid)
        elif kind == "act":
            name, args = policy(step)
            reply = await self.ok(name, **args)
            added = reply.result["amount"]
            if added:
                rig.put(step["seat"], added)
        elif kind == "collect":
            rig.collect()
        elif kind == "show":
            await self.ok("confirm", prompt=p["id"])
        elif kind == "award":
            rig.push(step["amount"])
        elif kind == "start_hand":
            rig.clear_board()
            await self.ok("start")
        else:
            raise AssertionError(f"the dealer cannot do {step}")
        await self.wait(lambda: self.prompt["id"] > p["id"])
        return str(kind)

    async def play_until(self, stop: Callable[[Mapping[str, Any]], bool],
                         policy: Policy = passive, limit: int = 200) -> None:
        for _ in range(limit):
            if stop(self.prompt["step"]):
                return
            await self.step_once(policy)
        raise AssertionError("too many steps")


def board_cards(deck: list[str]) -> list[Card]:
    return [Card.parse(c) for c in deck]


@contextlib.asynccontextmanager
async def dealer_session(rig: Rig, console: str = "dealer-1") -> AsyncIterator[Dealer]:
    """A connected :class:`Dealer` on its own ZeroMQ context, closed and destroyed on exit."""
    ctx = zmq.asyncio.Context()
    d = Dealer(rig, ctx, console=console)
    try:
        await d.connect()
        yield d
    finally:
        await d.close()
        ctx.destroy(linger=0)
