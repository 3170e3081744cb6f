"""A test harness around the sans-IO core: a fake clock, cards by code, chips by amount."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from calibration.chips import build_chip_config
from hardware.sim.shoe import sim_deck_profile
from table_controller.controller.core import TableCore
from table_controller.controller.events import (
    BoardSeen,
    CardRead,
    ControllerInput,
    DealerCommand,
    Output,
    Reply,
    Tick,
    ZoneSeen,
)
from table_controller.engine import LIVE_POSTS, Card, TableConfig
from table_controller.simtable.journal_io import DAEMON_CONFIG
from table_controller.simtable.rig import pot_zone

if TYPE_CHECKING:
    from table_controller.daemon import Daemon
    from table_controller.journal import Journal

DECK = sim_deck_profile(1)
UID = {card.code: uid for uid, card in DECK.items()}
#: The pot zone of the default chip layout for ten seats (the zones of :func:`chip_config`).
POT_ZONE = pot_zone(10)


def inprocess_daemon(tmp: Path, table_id: str = "T1") -> Daemon:
    """A daemon with its core and journal (under ``tmp``) but no devices, sockets or loop."""
    from table_controller.config import loads_config
    from table_controller.daemon import Daemon

    cfg = loads_config(DAEMON_CONFIG.format(table_id=table_id), base_dir=tmp)
    d = Daemon(cfg, print_ready=False)
    d.open_state()
    return d


def journal_of(d: Daemon) -> Journal:
    """The in-process daemon's open journal."""
    assert d.journal is not None
    return d.journal


def chip_config(seats: int = 10) -> Any:
    """Zones 1..seats are the seats, 11 the pot; one denomination worth 1 chip."""
    zones = {s: f"seat {s}" for s in range(1, seats + 1)}
    zones[POT_ZONE] = "pot"
    return build_chip_config({1: 1, 9: 100}, zones)


LIVE_POST_NAMES = frozenset(kind.value for kind in LIVE_POSTS)
"""Posts that go in front of the seat (blinds, new players' and missed big blinds, straddles)."""


class Harness:
    """Drive a :class:`TableCore` and keep every input with its time (for replay checks)."""

    def __init__(self, *, seats: int = 6, chips: bool = True, sb: int = 50, bb: int = 100,
                 ante: int = 0, settle: float = 1.0, straddle: str = "off") -> None:
        self.config = TableConfig(seats=seats, small_blind=sb, big_blind=bb, ante=ante,
                                  straddle=straddle)
        self.chips = chips
        self.settle = settle
        self.core = TableCore(self.config, DECK, chip_config() if chips else None,
                              settle=settle)
        self.now = 100.0
        self.log: list[tuple[ControllerInput, float]] = []
        self.outputs: list[Output] = []
        self.zones: dict[int, int] = {}

    def feed(self, inp: ControllerInput, dt: float = 0.01) -> list[Output]:
        self.now += dt
        self.log.append((inp, self.now))
        out = self.core.handle(inp, self.now)
        self.outputs.extend(out)
        return out

    def cmd(self, name: str, **args: Any) -> Reply:
        out = self.feed(DealerCommand(name, args))
        replies = [o for o in out if isinstance(o, Reply)]
        assert len(replies) == 1
        return replies[0]

    def ok(self, name: str, **args: Any) -> Reply:
        reply = self.cmd(name, **args)
        assert reply.accepted, reply.reason
        return reply

    def card(self, code: str) -> list[Output]:
        return self.feed(CardRead(UID[code], None))

    def tag(self, uid: str) -> list[Output]:
        return self.feed(CardRead(uid, None))

    def zone(self, zone: int, amount: int, dt: float = 0.01) -> list[Output]:
        self.zones[zone] = amount
        counts = ((1, amount),) if amount else ()
        return self.feed(ZoneSeen(zone, counts), dt)

    def add(self, zone: int, amount: int) -> list[Output]:
        return self.zone(zone, self.zones.get(zone, 0) + amount)

    def tick(self, dt: float) -> list[Output]:
        return self.feed(Tick(), dt)

    def board(self, *slots: str | None, occluded: tuple[int, ...] = ()) -> list[Output]:
        full = list(slots) + [None] * (5 - len(slots))
        return self.feed(BoardSeen(tuple(full), occluded))

    def step(self) -> dict[str, Any]:
        assert self.core.prompt is not None
        return dict(self.core.prompt.step)

    def seat_players(self, n: int, stack: int = 10_000) -> None:
        for s in range(1, n + 1):
            self.ok("seat", seat=s, player=f"p{s}", stack=stack)
        if self.chips:
            for z in [*range(1, 11), POT_ZONE]:
                self.zone(z, 0)

    def post_blinds(self) -> None:
        """Put every forced post on the felt (chips), or confirm each one without sensors."""
        while self.step()["kind"] == "post":
            st = self.step()
            if self.chips:
                if st["post_kind"] in LIVE_POST_NAMES:
                    self.add(st["seat"], st["amount"])
                else:
                    self.add(POT_ZONE, st["amount"])
            else:
                self.ok("confirm")

    def deal(self, *codes: str) -> None:
        for code in codes:
            kind = self.step()["kind"]
            assert kind in ("deal_hole", "burn", "board"), self.step()
            self.card(code)

    def collect(self) -> None:
        """Move the bets into the pot (chips) or confirm."""
        assert self.step()["kind"] == "collect", self.step()
        if not self.chips:
            self.ok("confirm")
            return
        pots = sum(p["amount"] for p in self.step()["pots"])
        for z in range(1, 11):
            if self.zones.get(z):
                self.zone(z, 0)
        self.zone(POT_ZONE, pots)

    def push_all(self) -> None:
        while self.core.prompt is not None and self.step()["kind"] in ("award", "show"):
            st = self.step()
            if st["kind"] == "show":
                self.ok("confirm")
            elif self.chips:
                self.zone(POT_ZONE, self.zones[POT_ZONE] - st["amount"])
            else:
                self.ok("confirm")

    def kinds(self, since: int = 0) -> list[str]:
        return [type(o).__name__ for o in self.outputs[since:]]


def card(code: str) -> Card:
    return Card.parse(code)
