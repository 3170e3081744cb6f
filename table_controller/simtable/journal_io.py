"""The simulated dealer on an in-process daemon's journal path, without devices or sockets.

:class:`JournaledIO` is :class:`~.core_io.CoreIO` whose inputs go the daemon's way: a device
input through :meth:`Daemon.feed <table_controller.daemon.Daemon.feed>` (core, then journal),
a dealer command decided first, journaled with its reply as the command endpoint does, then
applied and its outputs journaled (checkpoints included). Time is a counter, so a journal of
thousands of hands is written in minutes (for the restart benchmark and the recovery tests);
the daemon runs add the devices' bytes and the feeds.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from table_controller.controller.events import ControllerInput, DealerCommand, Output, Prompt, Reply
from table_controller.feeds.commands import READ_ONLY_COMMANDS
from table_controller.simtable.core_io import CoreIO
from table_controller.simtable.dealer import SimDealer
from table_controller.simtable.players import make_players

if TYPE_CHECKING:
    from table_controller.daemon import Daemon


#: A daemon configuration on simulated devices and loopback endpoints, for in-process daemons.
DAEMON_CONFIG = """
[table]
id = "{table_id}"
seats = 6
[stakes]
small_blind = 50
big_blind = 100
[devices]
shoe = "sim://shoe"
chips = "sim://chips"
camera = "sim://camera"
[endpoints]
public = "tcp://127.0.0.1:*"
dealer = "tcp://127.0.0.1:*"
surveillance = "tcp://127.0.0.1:*"
snapshot = "tcp://127.0.0.1:*"
surveillance_snapshot = "tcp://127.0.0.1:*"
commands = "tcp://127.0.0.1:*"
[keys]
security = "none"
[journal]
path = "state/journal.db"
phh_dir = "state/phh"
"""


class JournaledIO(CoreIO):
    """The simulated table on ``daemon``'s core and journal (its state opened, not started).

    :param console: the console id the commands are journaled under.
    """

    def __init__(self, daemon: Daemon, *, console: str = "sim-dealer") -> None:
        core, journal = daemon.core, daemon.journal
        assert core is not None and journal is not None and core.chips is not None
        super().__init__(seats=core.table.config.seats, small_blind=core.table.config.small_blind,
                         big_blind=core.table.config.big_blind, deck=core.resolver.cards,
                         chips=core.chips.config)
        self.daemon = daemon
        self.core = core
        self.console = console
        self.seq = (journal.last_command_seq(console) or 0)
        self.now = max(self.now, daemon.now())
        self.prompt = core.prompt.to_dict() if core.prompt else {}

    def feed(self, inp: ControllerInput) -> list[Output]:
        """Hand one input to the daemon at the current time; keep its outputs."""
        self.now += 0.01
        if isinstance(inp, DealerCommand):
            out = self._command(inp)
        else:
            out = self.daemon.feed(inp, self.now)
        self.outputs.extend(out)
        for o in out:
            if isinstance(o, Prompt):
                self.prompt = o.to_dict()
        return out

    def _command(self, cmd: DealerCommand) -> list[Output]:
        d = self.daemon
        assert d.core is not None and d.journal is not None and d.journaler is not None
        preview = next(o for o in d.core.preview(cmd, self.now) if isinstance(o, Reply))
        recorded = {"accepted": preview.accepted, "reason": preview.reason,
                    "result": dict(preview.result)}
        if cmd.name in READ_ONLY_COMMANDS:
            recorded = {**recorded, "result": {}, "read_only": True}
        self.seq += 1
        d.journal.append_command(self.console, self.seq, {"command": cmd.name, **cmd.args},
                                 recorded, wall_time=time.time(), mono_time=self.now)
        if not preview.accepted:
            return [preview]
        out = d.core.handle(cmd, self.now)
        d.journaler.outputs(out, self.now)
        return out


#: Hands a session plays before the players leave and sit down again with fresh stacks.
SESSION_HANDS = 25


def play_hands(io: CoreIO, hands: int, *, seed: int = 1,
               seats: Mapping[int, int] | None = None) -> None:
    """Let the simulated dealer start ``hands`` more hands on ``io`` (and play them out).

    The players are seated first, and every :data:`SESSION_HANDS` hands, or when too few
    have chips left, they leave and sit down again (nobody goes broke however long the run).

    :raises RuntimeError: if the table gets stuck (a prompt nobody answers).
    """
    stacks = dict(seats or {1: 10_000, 2: 5_000, 4: 2_000, 6: 8_000})
    target = io.core.hand_number + hands
    session = 0
    while io.core.hand_number < target:
        for seat in io.core.table.status().seats:
            io.feed(DealerCommand("unseat", {"seat": seat}))
        _session(io, min(SESSION_HANDS, target - io.core.hand_number), seed + session, stacks)
        session += 1


def _session(io: CoreIO, hands: int, seed: int, stacks: Mapping[int, int]) -> None:
    players = make_players(stacks, seed)
    dealer = SimDealer(io, lambda legal, pot: players[legal.seat].decide(legal, pot),
                       seats={s: (players[s].name, v) for s, v in stacks.items()},
                       hands=hands, seed=seed)

    async def run() -> None:
        idle = 0
        while not dealer.finished(io.prompt):
            if await dealer.handle(io.prompt, io.state()):
                idle = 0
                continue
            idle += 1
            if idle >= 3:
                if io.prompt.get("step", {}).get("kind") == "seat_players" and dealer.seated:
                    return  # too few players with chips left: a new session seats them again
                raise RuntimeError(f"the simulated table is stuck at {io.prompt}")
            io.advance(2.0)

    asyncio.run(run())
