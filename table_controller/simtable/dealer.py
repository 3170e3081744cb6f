"""The simulated dealer: follows the controller's prompts with the simulated devices.

The dealer reads the current prompt (``{"id", "text", "step": {"kind", ...}}``, see
``docs/messages.md``) and does what a dealer does at a real table, through a :class:`TableIO`:
draws cards from the shoe, puts chips on the sensor zones (:class:`~.felt.Felt`), lays board
cards where the camera sees them, enters the players' actions as dealer commands, confirms the
showdown, and starts the next hand. Posts, the collection and the pushes complete by themselves
when the chip sensors show them done (the controller's rule 3), so the dealer just moves chips.

Two :class:`TableIO` s exist: :class:`~.daemon_io.DaemonIO` (simulators over ptys, the daemon's
feeds and command endpoint) and :class:`~.core_io.CoreIO` (the controller core in-process, for
fast tests). The dealer is the same code on both.

Rules this module keeps:

1. The dealer acts once per prompt id, and only on what the prompt says; it never reads the
   engine. A :class:`Mistakes` hook lets a scenario make it err on purpose.
2. While the table is held the dealer does nothing but what its :attr:`SimDealer.floor` policy
   says (by default: resolve every open irregularity and resume, like a floor supervisor who
   checked everything).
3. Seats change only between hands, at a ``start_hand`` or ``seat_players`` prompt, and only
   as the :class:`SeatFloor` says (re-buys, a player leaving for a new one); the chips brought
   from the cage are counted in :attr:`DealerLog.buy_ins` once the controller accepted them.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from table_controller.engine import FULL_DECK, Act, Card, LegalActions
from table_controller.engine import LIVE_POSTS as ENGINE_LIVE_POSTS
from table_controller.engine.showdown import strength
from table_controller.feeds import CommandReply
from table_controller.simtable.felt import Felt, bet_after, command_for, legal_from_dict
from table_controller.simtable.players import SeatChange

#: Prompts after which a paced dealer pauses (so a person can follow the demo).
PACED = frozenset({"deal_hole", "board", "act", "collect", "award"})
#: Post kinds that stay in front of the seat (the others go into the pot zone).
LIVE_POSTS = frozenset(kind.value for kind in ENGINE_LIVE_POSTS)

Decider = Callable[[LegalActions, int], Act]
#: Whether the player in a seat mucks a hand beaten by one already shown.
MuckPolicy = Callable[[int], bool]


class TableIO(Protocol):
    """What the dealer's hands reach: the shoe, the felt, the board and the console."""

    felt: Felt

    def load_deck(self, cards: Sequence[Card]) -> None:
        """Put a deck in the shoe, top card first."""
        ...

    def draw(self) -> Card:
        """Draw the top card from the shoe (the shoe reads its tag)."""
        ...

    def lay_board(self, slot: int, card: Card | None) -> None:
        """Put a card in a board slot where the camera sees it (``None`` takes it away)."""
        ...

    def clear_board(self) -> None:
        """Sweep the board."""
        ...

    async def command(self, body: Mapping[str, Any]) -> CommandReply:
        """Send a dealer command and return the reply."""
        ...


class SeatFloor(Protocol):
    """Who plays on between hands (:class:`~.players.Lobby`): re-buys and new players."""

    def changes(self, stacks: Mapping[int, int]) -> Sequence[SeatChange]:
        """Return the seat changes for the seated stacks (seat -> chips)."""
        ...

    def sat(self, change: SeatChange) -> None:
        """Record that the controller accepted ``change``."""
        ...


@dataclass(slots=True)
class DealerLog:
    """What the dealer did, for summaries and scenario checks."""

    prompts: list[dict[str, Any]] = field(default_factory=list)
    commands: list[tuple[dict[str, Any], CommandReply]] = field(default_factory=list)
    refused: list[tuple[dict[str, Any], str]] = field(default_factory=list)
    #: actions refused because the table was held after their prompt was read (the feed and
    #: the command socket race): not the dealer's mistake, so not in :attr:`refused`
    stale: list[tuple[dict[str, Any], str]] = field(default_factory=list)
    hands_started: int = 0
    holds_handled: int = 0
    mucked: int = 0
    camera_timeouts: int = 0
    #: chips brought from the cage after the first seating (re-buys and new players' stacks)
    buy_ins: int = 0
    rebuys: int = 0
    newcomers: int = 0


class Mistakes:
    """Hooks a scenario overrides to make the dealer err; the default dealer makes none."""

    async def before(self, dealer: SimDealer, prompt: Mapping[str, Any]) -> bool:
        """Run before the dealer handles ``prompt``; return True if the prompt was handled."""
        return False

    def bet_chips(self, dealer: SimDealer, seat: int, amount: int) -> int:
        """Return the chips the dealer actually puts in front of ``seat`` for a bet."""
        return amount


def prompt_step(prompt: Mapping[str, Any] | None) -> dict[str, Any]:
    """Return the prompt's ``step`` (empty when there is none)."""
    if not prompt:
        return {}
    step = prompt.get("step")
    return dict(step) if isinstance(step, Mapping) else {}


class SimDealer:
    """A dealer that follows prompts.

    :param io: the table's devices and console.
    :param decide: the players' decisions (seat's legal actions, pot -> action).
    :param seats: seat -> (player name, buy-in), seated when the controller asks for players.
    :param hands: how many hands to start.
    :param seed: seeds the deck shuffles.
    :param decks: explicit deck orders, one per hand (scenarios); shuffled decks after them.
    :param mucks: seat -> whether its player mucks a hand beaten by one already shown (the
        dealer knows the cards it dealt); ``None``: every hand is shown.
    :param camera_wait: at most this many seconds, after laying board cards (or sweeping the
        board before a new hand), the dealer waits for the controller's ``status`` to show the
        camera sees them, as a dealer waits for the prompt (a rendering camera is slow).
    :param lobby: re-buys and new players between hands (``None``: the seats never change,
        and a run ends when fewer than two players have chips).
    """

    def __init__(
        self,
        io: TableIO,
        decide: Decider,
        *,
        seats: Mapping[int, tuple[str, int]],
        hands: int,
        seed: int = 1,
        decks: Sequence[Sequence[Card]] = (),
        mistakes: Mistakes | None = None,
        board_settle: float = 0.0,
        pace: float = 0.0,
        mucks: MuckPolicy | None = None,
        camera_wait: float = 0.0,
        lobby: SeatFloor | None = None,
    ) -> None:
        self.io = io
        self.decide = decide
        self.seats = dict(seats)
        self.hands = hands
        self.rng = random.Random(seed ^ 0xDEC)
        self.decks = [list(d) for d in decks]
        self.mistakes = mistakes or Mistakes()
        self.log = DealerLog()
        self.last_prompt_id: int | None = None
        #: the table state that came with the last prompt handled
        self.last_state: Mapping[str, Any] = {}
        self.seated = False
        self.floor: Callable[[SimDealer, Mapping[str, Any]], Any] | None = None
        #: told when the controller refused an action :attr:`decide` chose (the prompt had
        #: gone stale, e.g. the table was held in between): that action did not happen
        self.act_refused: Callable[[Act], None] | None = None
        self._start_prompt: int | None = None
        self._to_lay: list[tuple[int, Card]] = []
        self._last_kind = ""
        self._prev_kind = ""
        #: seconds the camera needs to see a swept board before the next hand starts
        self.board_settle = board_settle
        #: seconds to wait after dealing a card, entering an action, moving chips (demo pacing)
        self.pace = pace
        self._board_used = False
        self._swept_at: float | None = None
        self.mucks = mucks
        #: seconds the dealer waits for the controller to confirm the camera sees the board it
        #: laid (or the empty board before a new hand); 0 = it does not wait (exact camera)
        self.camera_wait = camera_wait
        self.lobby = lobby
        self._holes: dict[int, list[Card]] = {}
        self._board: list[Card] = []
        self._shown: list[int] = []

    @property
    def done(self) -> bool:
        """True once every hand was started (see :meth:`finished` for the last one's end)."""
        return self.log.hands_started >= self.hands

    def finished(self, prompt: Mapping[str, Any]) -> bool:
        """Tell whether every hand was played: all started, and ``prompt`` asks for a new one."""
        kind = prompt_step(prompt).get("kind")
        return (self.done and kind in ("start_hand", "seat_players")
                and prompt.get("id") != self._start_prompt)

    def next_deck(self) -> list[Card]:
        """Return the deck for the next hand (scripted first, then shuffled)."""
        if self.decks:
            return self.decks.pop(0)
        deck = list(FULL_DECK)
        self.rng.shuffle(deck)
        return deck

    async def send(self, body: Mapping[str, Any]) -> CommandReply:
        """Send a command and log it (refusals too)."""
        reply = await self.io.command(body)
        self.log.commands.append((dict(body), reply))
        if not reply.accepted:
            self.log.refused.append((dict(body), reply.reason))
        return reply

    async def handle(self, prompt: Mapping[str, Any], state: Mapping[str, Any] | None = None
                     ) -> bool:
        """Act on ``prompt`` if it is new; return True if the dealer did something.

        :param state: the table state (dealer feed snapshot) for the pot size players see.
        """
        pid = prompt.get("id")
        if not isinstance(pid, int) or pid == self.last_prompt_id:
            return False
        self.last_state = state or {}
        self.last_prompt_id = pid
        self.log.prompts.append(dict(prompt))
        laid = bool(self._to_lay)
        self.lay_drawn_board_cards()
        if laid and self.camera_wait > 0:
            await self.wait_for_camera(empty=False)
        if await self.mistakes.before(self, prompt):
            return True
        await self.handle_step(prompt, state or {})
        if self.pace and prompt_step(prompt).get("kind") in PACED:
            await asyncio.sleep(self.pace)
        return True

    async def wait_for_camera(self, *, empty: bool) -> bool:
        """Wait until the controller says its camera sees the board laid (or an empty board).

        Returns False if :attr:`camera_wait` passed first (counted in the log).
        """
        deadline = time.monotonic() + self.camera_wait
        while True:
            status = (await self.io.command({"command": "status"})).result
            cam, board = status.get("camera_board"), status.get("board")
            if not isinstance(cam, list):
                return True  # no camera report at all: nothing to wait for
            if empty:
                seen = all(c is None for c in cam)
            else:
                dealt = board if isinstance(board, list) else []
                seen = all(c is None or (i < len(cam) and cam[i] == c)
                           for i, c in enumerate(dealt))
            if seen:
                return True
            if time.monotonic() >= deadline:
                self.log.camera_timeouts += 1
                return False
            await asyncio.sleep(0.05)

    def lay_drawn_board_cards(self) -> None:
        """Lay the board cards drawn for earlier prompts.

        A board card reaches the felt after the shoe has read it: the dealer lays it once the
        controller moved on to the next prompt (the card was registered), never before.
        """
        while self._to_lay:
            slot, card = self._to_lay.pop(0)
            self.io.lay_board(slot, card)
            self._board_used = True

    def sweep_board(self) -> None:
        """Take the board cards away (remembering when, for :attr:`board_settle`)."""
        self._to_lay.clear()
        self.io.clear_board()
        if self._board_used:
            self._board_used = False
            self._swept_at = time.monotonic()

    async def handle_step(self, prompt: Mapping[str, Any], state: Mapping[str, Any]) -> None:
        """Do what ``prompt`` asks (without the new-prompt check and the mistakes hook)."""
        step = prompt_step(prompt)
        kind = step.get("kind", "")
        self._prev_kind, self._last_kind = self._last_kind, kind
        handler = getattr(self, f"_on_{kind}", None)
        if handler is not None:
            await handler(step, prompt, state)

    # -- prompts -----------------------------------------------------------------------------

    async def _on_seat_players(self, step: Mapping[str, Any], prompt: Mapping[str, Any],
                               state: Mapping[str, Any]) -> None:
        if self.seated:
            if self.lobby is not None:
                # too few players with chips: the floor changes seats, then the hand starts
                await self._on_start_hand(step, prompt, state)
            return
        self.seated = True
        for seat, (name, stack) in sorted(self.seats.items()):
            await self.send({"command": "seat", "seat": seat, "player": name, "stack": stack})

    async def change_seats(self) -> None:
        """Between hands: make the :attr:`lobby`'s re-buys and seat its new players."""
        if self.lobby is None:
            return
        status = (await self.send({"command": "status"})).result
        raw = status.get("stacks")
        stacks = {int(k): int(v) for k, v in raw.items()} if isinstance(raw, Mapping) else {}
        for change in self.lobby.changes(stacks):
            if change.player is None:
                done = (await self.send({"command": "buy_in", "seat": change.seat,
                                         "amount": change.amount})).accepted
            else:
                done = ((await self.send({"command": "unseat", "seat": change.seat})).accepted
                        and (await self.send({"command": "seat", "seat": change.seat,
                                              "player": change.player,
                                              "stack": change.amount})).accepted)
            if done:
                self.lobby.sat(change)
                self.log.buy_ins += change.amount
                if change.player is None:
                    self.log.rebuys += 1
                else:
                    self.log.newcomers += 1

    async def _on_start_hand(self, step: Mapping[str, Any], prompt: Mapping[str, Any],
                             state: Mapping[str, Any]) -> None:
        if self.done:
            return
        await self.change_seats()
        self.sweep_board()  # normally swept already, at the awards
        if self.camera_wait > 0:
            await self.wait_for_camera(empty=True)
        elif self._swept_at is not None and self.board_settle > 0:
            # the camera must see the empty board before the next hand's cards matter
            left = self._swept_at + self.board_settle - time.monotonic()
            if left > 0:
                await asyncio.sleep(left)
        self._swept_at = None
        self.io.load_deck(self.next_deck())
        self._holes, self._board, self._shown = {}, [], []
        reply = await self.send({"command": "start"})
        if reply.accepted:
            self.log.hands_started += 1
            self._start_prompt = prompt.get("id")

    async def _on_post(self, step: Mapping[str, Any], prompt: Mapping[str, Any],
                       state: Mapping[str, Any]) -> None:
        seat, amount = int(step["seat"]), int(step["amount"])
        felt = self.io.felt
        if step.get("post_kind") in LIVE_POSTS:
            felt.set_seat(seat, felt.seat(seat) + self.mistakes.bet_chips(self, seat, amount))
        else:
            felt.set_pot(felt.pot + amount)

    async def _on_deal_hole(self, step: Mapping[str, Any], prompt: Mapping[str, Any],
                            state: Mapping[str, Any]) -> None:
        card = self.io.draw()
        self._holes.setdefault(int(step["seat"]), []).append(card)

    async def _on_burn(self, step: Mapping[str, Any], prompt: Mapping[str, Any],
                       state: Mapping[str, Any]) -> None:
        self.io.draw()

    async def _on_board(self, step: Mapping[str, Any], prompt: Mapping[str, Any],
                        state: Mapping[str, Any]) -> None:
        card = self.io.draw()
        self._board.append(card)
        self._to_lay.append((int(step["slot"]), card))

    async def _on_act(self, step: Mapping[str, Any], prompt: Mapping[str, Any],
                      state: Mapping[str, Any]) -> None:
        raw = step.get("legal")
        legal = legal_from_dict({**(raw if isinstance(raw, Mapping) else {}),
                                 "seat": step.get("seat")})
        pots = state.get("pots")
        pot = sum(int(p.get("amount", 0)) for p in pots if isinstance(p, Mapping)) \
            if isinstance(pots, list) else 0
        act = self.decide(legal, pot)
        reply = await self.send(command_for(act))
        if reply.accepted:
            total = bet_after(act, legal)
            self.io.felt.set_seat(legal.seat, self.mistakes.bet_chips(self, legal.seat, total))
        elif (await self.io.command({"command": "status"})).result.get("held"):
            # the prompt went stale (a hold came first): the action did not happen
            self.log.stale.append(self.log.refused.pop())
            if self.act_refused is not None:
                self.act_refused(act)

    async def _on_collect(self, step: Mapping[str, Any], prompt: Mapping[str, Any],
                          state: Mapping[str, Any]) -> None:
        pots = step.get("pots")
        total = sum(int(p.get("amount", 0)) for p in pots if isinstance(p, Mapping)) \
            if isinstance(pots, list) else 0
        self.io.felt.collect(total, {})

    async def _on_show(self, step: Mapping[str, Any], prompt: Mapping[str, Any],
                       state: Mapping[str, Any]) -> None:
        seat = int(step["seat"])
        if self.mucks is None:
            await self.send({"command": "confirm", "prompt": int(prompt["id"])})
            return
        pots = state.get("pots")
        one_pot = isinstance(pots, list) and len(pots) == 1  # side pots: always show
        if one_pot and self._beaten(seat) and self.mucks(seat):
            reply = await self.send({"command": "muck", "seat": seat})
            if reply.accepted:
                self.log.mucked += 1
                return
        await self.send({"command": "show", "seat": seat})
        self._shown.append(seat)

    def _beaten(self, seat: int) -> bool:
        """Tell whether ``seat``'s hand loses to one already shown (the dealer dealt them all)."""
        mine = self._holes.get(seat, [])
        if not self._shown or len(mine) != 2 or len(self._board) != 5:
            return False
        best = max(strength(self._holes[s], self._board) for s in self._shown)
        return strength(mine, self._board) < best

    async def _on_award(self, step: Mapping[str, Any], prompt: Mapping[str, Any],
                        state: Mapping[str, Any]) -> None:
        felt = self.io.felt
        felt.set_pot(max(0, felt.pot - int(step["amount"])))
        self.sweep_board()  # the hand is decided: sweep the board while the pots are pushed

    async def _on_hold(self, step: Mapping[str, Any], prompt: Mapping[str, Any],
                       state: Mapping[str, Any]) -> None:
        if self._prev_kind != "hold":  # one hold, however often its prompt is reworded
            self.log.holds_handled += 1
        if self.floor is not None:
            await self.floor(self, prompt)
            return
        await self.resolve_and_resume(step, "checked by the floor (simulated)")

    async def resolve_and_resume(self, step: Mapping[str, Any], note: str) -> None:
        """Correct the chips of any chip difference, resolve each irregularity, then resume.

        Like a floor supervisor: the chips on a zone the controller disputes are recounted and
        put right (to the value the hand implies) before the irregularity is resolved.
        """
        status = (await self.send({"command": "status"})).result
        if not status.get("held"):
            return  # an older hold prompt: the table already resumed
        open_holds = []
        for irr in status.get("irregularities", []):
            if not isinstance(irr, Mapping) or irr.get("resolved"):
                continue
            if (irr.get("kind") == "chip_difference" and isinstance(irr.get("zone"), int)
                    and isinstance(irr.get("expected"), int) and irr["expected"] >= 0):
                self.io.felt.set(irr["zone"], irr["expected"])
            if irr.get("hold") and isinstance(irr.get("id"), int):
                open_holds.append(irr["id"])
        for irr_id in open_holds:
            await self.send({"command": "resolve", "irregularity": irr_id, "note": note})
        await self.send({"command": "resume", "note": note})
