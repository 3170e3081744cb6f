"""The dealer's devices wired straight into the controller core, in-process (no daemon).

:class:`CoreIO` turns what the simulated dealer does into the controller core's inputs: a drawn
card is a :class:`~table_controller.controller.events.CardRead` of its simulated tag, chips on a
zone a :class:`~table_controller.controller.events.ZoneSeen`, the board a
:class:`~table_controller.controller.events.BoardSeen`, a command a
:class:`~table_controller.controller.events.DealerCommand`. Time is a counter advanced by
:meth:`CoreIO.advance` (no sleeping). The same dealer and scenarios run here and against the
daemon, so the whole flow can be checked in milliseconds; the daemon runs add the devices'
bytes, the journal and the feeds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from calibration.chips import ChipConfig
from table_controller.controller.core import TableCore
from table_controller.controller.events import (
    BoardSeen,
    CardRead,
    ControllerInput,
    DealerCommand,
    IrregularityRaised,
    Output,
    Prompt,
    Reply,
    Tick,
    ZoneSeen,
)
from table_controller.engine import Card, RakeRule, TableConfig
from table_controller.feeds import CommandReply
from table_controller.simtable.felt import Felt, FeltError


class _CoreSensor:
    def __init__(self, io: CoreIO) -> None:
        self.io = io

    def set_zone(self, zone: int, counts: Mapping[int, int], now: float | None = None) -> None:
        self.io.feed(ZoneSeen(zone, tuple(sorted((d, c) for d, c in counts.items() if c))))


class CoreIO:
    """The controller core plus simulated devices, in one process.

    :param deck: tag -> card of the active deck.
    :param chips: chip calibration (seat zones, pot zone, denominations).
    """

    def __init__(
        self,
        *,
        seats: int,
        small_blind: int,
        big_blind: int,
        deck: Mapping[str, Card],
        chips: ChipConfig,
        rake: RakeRule | None = None,
        settle: float = 1.5,
        camera_window: float | None = 3.0,
    ) -> None:
        self.core = TableCore(TableConfig(seats=seats, small_blind=small_blind,
                                          big_blind=big_blind, rake=rake), deck, chips,
                              settle=settle, camera_window=camera_window)
        self.now = 0.0
        self.uids = {card: uid for uid, card in deck.items()}
        self.outputs: list[Output] = []
        self.prompt: dict[str, Any] = {}
        self._shoe: list[Card] = []
        self.board: list[str | None] = [None] * 5
        self.felt = Felt(_CoreSensor(self), chips.denominations, chips.seat_zones,
                         chips.pot_zone)
        self.prompt = self.core.prompt.to_dict() if self.core.prompt else {}

    # -- the core ----------------------------------------------------------------------------

    def feed(self, inp: ControllerInput) -> list[Output]:
        """Hand one input to the core at the current time; keep its outputs."""
        self.now += 0.01
        out = self.core.handle(inp, self.now)
        self.outputs.extend(out)
        for o in out:
            if isinstance(o, Prompt):
                self.prompt = o.to_dict()
        return out

    def advance(self, seconds: float) -> list[Output]:
        """Let ``seconds`` pass (the chip settle window) and run the core's timers."""
        self.now += seconds
        return self.feed(Tick())

    def state(self) -> dict[str, Any]:
        """Return the table state (what the dealer feed's snapshot holds)."""
        return self.core.view()

    @property
    def irregularities(self) -> list[IrregularityRaised]:
        """Every irregularity raised so far."""
        return [o for o in self.outputs if isinstance(o, IrregularityRaised)]

    # -- TableIO -----------------------------------------------------------------------------

    def load_deck(self, cards: Sequence[Card]) -> None:
        """Put a deck in the (simulated) shoe."""
        self._shoe = list(cards)

    def draw(self) -> Card:
        """Draw the top card: the core sees its tag.

        :raises FeltError: if the shoe is empty.
        """
        if not self._shoe:
            raise FeltError("the simulated shoe is empty")
        card = self._shoe.pop(0)
        self.feed(CardRead(self.uids[card]))
        return card

    def draw_tag(self, uid: str) -> None:
        """Report any tag as drawn (unknown tags, second copies)."""
        self.feed(CardRead(uid))

    def lay_board(self, slot: int, card: Card | None) -> None:
        """Put a card in a board slot: the camera's stable reading goes to the core."""
        self.board[slot] = None if card is None else card.code
        self.feed(BoardSeen(tuple(self.board)))

    def clear_board(self) -> None:
        """Sweep the board."""
        if any(self.board):
            self.board = [None] * 5
            self.feed(BoardSeen(tuple(self.board)))

    async def command(self, body: Mapping[str, Any]) -> CommandReply:
        """Send a dealer command to the core; return its reply."""
        args = {k: v for k, v in body.items() if k != "command"}
        out = self.feed(DealerCommand(str(body["command"]), args))
        reply = next(o for o in out if isinstance(o, Reply))
        return CommandReply(reply.accepted, reply.reason, dict(reply.result))
