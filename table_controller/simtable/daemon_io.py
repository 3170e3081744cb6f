"""The dealer against the real daemon: simulators over ptys, the feeds and the command endpoint.

:class:`DaemonIO` is the :class:`~.dealer.TableIO` of a :class:`~.rig.SimRig`: cards come out of
the simulated shoe (``sim run``'s, through its control socket, or an in-process
:class:`~hardware.sim.shoe.SimShoe`; the daemon reads the tag over its pty), chips go on the
simulated chip sensors, faults and cables go through :attr:`DaemonIO.hands`
(:mod:`.devices.hands`), the board goes into the board file the daemon's
``sim://camera`` reads, and commands go through a
:class:`~table_controller.feeds.CommandClient` (CURVE keys made by the rig).
:class:`DaemonDriver` follows the dealer feed with a :class:`~table_controller.feeds.FeedClient`
(snapshot, gaps, lost / recovered) and keeps the current prompt and table state.

On a rig with the commodity readers (``RigOptions(shoe="pn532", chips="rfid")``) the cards go on
the simulated PN532's antenna and the chips are RFID tags on the simulated chip reader, through
the adapters of :mod:`.commodity`; the dealer does not see the difference.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import zmq
import zmq.asyncio

from table_controller.engine import Card
from table_controller.feeds import (
    CommandClient,
    CommandReply,
    Feed,
    FeedClient,
    FeedEvent,
    FeedEventKind,
)
from table_controller.simtable.devices.hands import (
    DeviceHands,
    feeder_of,
    hands_of,
    surface_of,
)
from table_controller.simtable.felt import BoardFile, Felt, FeltError
from table_controller.simtable.rig import RigOptions, SimRig


class CardFeeder(Protocol):
    """What the dealer draws cards from: a :class:`~hardware.sim.shoe.SimShoe` or a feeder.

    The feeder is a :class:`~.commodity.Pn532Feeder`.
    """

    def load_deck(self, order: Sequence[str]) -> None:
        """Put a deck in the shoe (top card first)."""
        ...

    def draw(self) -> str:
        """Draw the top card; return its tag."""
        ...

    def draw_uid(self, uid: str) -> None:
        """Report any tag as drawn."""
        ...


class DaemonIO:
    """The simulated devices of ``rig`` and a console to its daemon.

    :param pace: seconds to wait after each thing the dealer does (0 = as fast as possible).
    """

    def __init__(self, rig: SimRig, console: CommandClient, *, pace: float = 0.0) -> None:
        self.rig = rig
        self.feeder = feeder_of(rig)
        surface = surface_of(rig)
        #: one-shot faults, tags of no card, status frames, cables, counters (either kind of rig)
        self.hands: DeviceHands = hands_of(rig)
        self.console = console
        self.pace = pace
        cfg = rig.chip_config
        self.felt = Felt(surface, cfg.denominations, cfg.seat_zones, cfg.pot_zone)
        self.board = BoardFile(rig.board_path)

    def load_deck(self, cards: Sequence[Card]) -> None:
        """Load the shoe (the shoe scans the deck)."""
        self.feeder.load_deck([self.rig.uid(c) for c in cards])

    def draw(self) -> Card:
        """Draw the top card.

        :raises FeltError: if the shoe is empty.
        """
        uid = self.feeder.draw()
        card = self.rig.profile.card(uid)
        if card is None:  # pragma: no cover - the rig loads only its own deck
            raise FeltError(f"tag {uid} is not in the simulated deck")
        return card

    def draw_tag(self, uid: str) -> None:
        """Report any tag as drawn."""
        self.feeder.draw_uid(uid)

    def shoe_status(self, door_open: bool, empty: bool) -> None:
        """Make the shoe report its door and whether it is empty (dealing scenarios).

        :raises BenchError: for a shoe that reports no status (a PN532).
        """
        self.hands.shoe_status(door_open=door_open, empty=empty)

    def uid_of(self, card: Card) -> str:
        """Return the simulated tag of ``card``."""
        return self.rig.uid(card)

    def lay_board(self, slot: int, card: Card | None) -> None:
        """Lay a board card where the camera sees it."""
        self.board.lay(slot, None if card is None else card.code)

    def clear_board(self) -> None:
        """Sweep the board."""
        if any(self.board.slots):
            self.board.clear()

    async def command(self, body: Mapping[str, Any]) -> CommandReply:
        """Send a command through the console."""
        reply = await self.console.request(body)
        if self.pace:
            await asyncio.sleep(self.pace)
        return reply

    async def unplug(self, device: str, seconds: float) -> None:
        """Pull ``device``'s cable for ``seconds``."""
        self.hands.unplug(device)
        await asyncio.sleep(seconds)
        self.hands.replug(device)
        await asyncio.sleep(0.3)

    async def pause(self, seconds: float) -> None:
        """Let real time pass (the camera's and the chip sensors' windows)."""
        await asyncio.sleep(max(seconds, 0.3))


class DaemonDriver:
    """Follows the dealer feed; keeps the current prompt and table state."""

    def __init__(self, io: DaemonIO, client: FeedClient, *,
                 on_event: Callable[[FeedEvent], None] | None = None) -> None:
        self.io = io
        self.client = client
        self.prompt: dict[str, Any] = {}
        self.state: dict[str, Any] = {}
        self.on_event = on_event
        self.events: list[FeedEvent] = []

    def current(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """Return the current prompt and state."""
        return self.prompt, self.state

    def _take(self, ev: FeedEvent) -> bool:
        before = self.prompt.get("id")
        if ev.kind in (FeedEventKind.SNAPSHOT, FeedEventKind.RECOVERED) and ev.state:
            self.state = dict(ev.state)
            p = self.state.get("prompt")
            if isinstance(p, Mapping):
                self.prompt = dict(p)
        elif ev.kind is FeedEventKind.UPDATE and ev.message is not None:
            m = ev.message
            if m.type == "prompt":
                self.prompt = dict(m.data)
            elif m.type == "table_state":
                self.state = dict(m.data)
                p = self.state.get("prompt")
                if isinstance(p, Mapping) and p.get("id") != self.prompt.get("id"):
                    self.prompt = dict(p)
        if self.on_event is not None:
            self.on_event(ev)
        return self.prompt.get("id") != before

    async def wait(self, timeout: float) -> bool:
        """Take feed events until the prompt changes or ``timeout`` passes."""
        end = time.monotonic() + timeout
        changed = False
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return changed
            ev = await self.client.next_event(timeout=min(left, 0.002 if changed else left))
            if ev is None:
                if changed:
                    return True
                continue
            changed = self._take(ev) or changed

    async def pump(self, timeout: float) -> bool:
        """Take at most one feed event, waiting up to ``timeout``; return True if one came."""
        ev = await self.client.next_event(timeout=timeout)
        if ev is None:
            return False
        self._take(ev)
        return True

    async def drain(self) -> None:
        """Take the events already queued (no waiting), so the newest prompt is current."""
        for _ in range(10_000):
            ev = await self.client.next_event(timeout=0.001)
            if ev is None:
                return
            self._take(ev)

    async def settle(self, seconds: float = 0.05) -> None:
        """Take whatever events are queued now (without waiting for a change)."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            ev = await self.client.next_event(timeout=left)
            if ev is None:
                return
            self._take(ev)


async def open_daemon_session(
    rig: SimRig, ctx: zmq.asyncio.Context, *, pace: float = 0.0,
    on_event: Callable[[FeedEvent], None] | None = None, console_id: str | None = None,
    first_seq: int = 1,
) -> tuple[DaemonIO, DaemonDriver, CommandClient, FeedClient]:
    """Connect a console and a dealer-feed client to ``rig``'s daemon; wait for the snapshot.

    :param console_id: the console's id (default: one per process and rig); a console that
        reconnects with the same id and ``first_seq`` has its resent commands answered from
        the journal.
    :param first_seq: the sequence number of the console's first command.
    """
    ep = rig.endpoints
    cid = console_id or f"simdealer-{os.getpid()}-{id(rig) & 0xFFFF:x}"
    console = CommandClient(ctx, ep["commands"], table_id=rig.options.table_id,
                            console_id=cid, keys=rig.console_keys(), timeout=5.0,
                            first_seq=first_seq)
    client = FeedClient(ctx, feed=Feed.DEALER, feed_endpoint=ep["dealer"],
                        snapshot_endpoint=ep["snapshot"], table_id=rig.options.table_id,
                        heartbeat_timeout=rig.options.heartbeat_timeout)
    await client.start()
    io = DaemonIO(rig, console, pace=pace)
    driver = DaemonDriver(io, client, on_event=on_event)
    deadline = time.monotonic() + 30
    while not driver.prompt and time.monotonic() < deadline:
        await driver.wait(0.5)
    return io, driver, console, client


async def run_scenario_on_daemon(scn: Any, *, keep: bool = False) -> Any:
    """Run a scenario against a daemon started for it (see :mod:`.scenario`)."""
    from table_controller.simtable.scenario import ScenarioResult, run_scenario

    options = RigOptions(seats=scn.seats, small_blind=scn.small_blind,
                         big_blind=scn.big_blind, rake_percent=scn.rake_percent,
                         rake_cap=scn.rake_cap, camera_level=scn.camera)
    rig = SimRig(options, keep=keep)
    try:
        await asyncio.to_thread(rig.start)
    except Exception as exc:
        return ScenarioResult(scn.name, [f"the simulated table did not start: {exc}"], {}, [])
    ctx = zmq.asyncio.Context()
    try:
        _io, driver, console, client = await open_daemon_session(rig, ctx)
        try:
            result = await run_scenario(scn, driver, wait=3.0)
            if keep:
                result.workdir = str(rig.dir)
        finally:
            await client.close()
            await console.close()
        return result
    finally:
        ctx.destroy(linger=0)
        status = await asyncio.to_thread(rig.stop)
        if status not in (0, None):
            print(f"  (the daemon exited with status {status}; log: {rig.log_path})")
