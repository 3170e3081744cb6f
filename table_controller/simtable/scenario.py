"""Scenario files: a scripted table, its mistakes and faults, and what the controller must do.

A scenario (TOML, format in ``docs/scenarios.md``) gives the table (seats, stakes), the players
and stacks, the deck order and the players' actions of each hand, faults and dealer mistakes at
given prompts, and expectations: prompts that must appear, the irregularities raised (kinds, in
order), the holds, the hands played and the final stacks. :func:`run_scenario` plays it with the
simulated dealer (:class:`~.dealer.SimDealer`) on a :class:`Driver` — the daemon with simulated
devices over ptys, or the controller core in-process — and returns what failed.

Rules this module keeps:

1. A scenario file is validated whole before anything runs: an unknown key, a bad card, action,
   fault or seat is a :class:`ScenarioError` naming the file and the key.
2. Faults fire once each, at the first prompt that matches them (``when`` = the prompt's step
   kind and fields, optionally ``hand``); a fault that never fired is a failure.
3. The floor's policy after a hold is scripted too (``floor``): ``resume`` (resolve every open
   irregularity, then resume), ``fix_chips`` (put the zone right first), ``void`` or
   ``misdeal``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from table_controller.engine import Act, Card, LegalActions, parse_cards
from table_controller.errors import TableError
from table_controller.simtable.dealer import Mistakes, SimDealer, prompt_step
from table_controller.simtable.felt import Felt
from table_controller.simtable.players import ScriptedPlayers
from table_controller.simtable.scenario_file import (
    ACTIONS,
    CAMERA_LEVELS,
    FLOOR,
    SKIPPING,
    Expect,
    Fault,
    Scenario,
    ScenarioError,
    load_scenario,
    parse_scenario,
)

__all__ = [
    "ACTIONS",
    "CAMERA_LEVELS",
    "FLOOR",
    "SKIPPING",
    "CoreDriver",
    "Driver",
    "Expect",
    "Fault",
    "FaultIO",
    "Scenario",
    "ScenarioError",
    "ScenarioMistakes",
    "ScenarioResult",
    "check",
    "drive",
    "load_scenario",
    "make_dealer",
    "parse_scenario",
    "run_file",
    "run_scenario",
]

# -- running --------------------------------------------------------------------------------


class FaultIO(Protocol):
    """What faults need beyond :class:`~.dealer.TableIO`."""

    felt: Felt

    def draw(self) -> Card:
        """Draw the top card."""
        ...

    def draw_tag(self, uid: str) -> None:
        """Report any tag as drawn."""
        ...

    def lay_board(self, slot: int, card: Card | None) -> None:
        """Lay a board card."""
        ...

    def uid_of(self, card: Card) -> str:
        """Return the tag of ``card`` in the active deck."""
        ...

    async def unplug(self, device: str, seconds: float) -> None:
        """Unplug ``device`` for ``seconds`` (then plug it back)."""
        ...

    async def pause(self, seconds: float) -> None:
        """Let ``seconds`` pass (the camera and chip windows)."""
        ...


class Driver(Protocol):
    """Where the prompts come from and how time passes."""

    io: Any

    def current(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """Return the current prompt and table state."""
        ...

    async def wait(self, timeout: float) -> bool:
        """Wait for the prompt or state to change (or time to pass); False if nothing moved."""
        ...

    async def drain(self) -> None:
        """Take what has already arrived (no waiting)."""
        ...


class ScenarioMistakes(Mistakes):
    """Fires a scenario's faults at their prompts."""

    def __init__(self, faults: Sequence[Fault], io: FaultIO) -> None:
        self.faults = list(faults)
        self.fired: list[Fault] = []
        self.io = io
        self._bet_delta: dict[int, int] = {}

    async def before(self, dealer: SimDealer, prompt: Mapping[str, Any]) -> bool:
        """Fire the first unfired fault matching ``prompt``."""
        step = prompt_step(prompt)
        hand = dealer.log.hands_started
        for f in self.faults:
            if f in self.fired or not f.matches(step, hand):
                continue
            self.fired.append(f)
            await self._fire(f, dealer, prompt, step)
            if f.skips:
                return True
            # these faults did the prompt's work themselves
            return f.do in ("wrong_board_card", "wrong_slot", "wrong_bet", "hide_board_card")
        return False

    def bet_chips(self, dealer: SimDealer, seat: int, amount: int) -> int:
        """Put the wrong amount down once for a ``wrong_bet`` fault."""
        return amount + self._bet_delta.pop(seat, 0)

    async def _fire(self, f: Fault, dealer: SimDealer, prompt: Mapping[str, Any],
                    step: Mapping[str, Any]) -> None:
        io = self.io
        if f.do == "expose_card" and f.card is not None:
            io.lay_board(f.slot if f.slot is not None else 4, f.card)
            await io.pause(f.seconds)
            io.lay_board(f.slot if f.slot is not None else 4, None)
        elif f.do == "wrong_board_card" and f.card is not None:
            slot = int(step.get("slot", f.slot or 0))
            right = io.draw()
            await _until_read(dealer, io, slot, right)  # the shoe's read reaches it first
            io.lay_board(slot, f.card)
            await io.pause(f.seconds)
            io.lay_board(slot, right)
        elif f.do == "wrong_slot":
            slot = int(step.get("slot", 0))
            right = io.draw()
            await _until_read(dealer, io, slot, right)
            other = f.slot if f.slot is not None else (slot + 1) % 5
            io.lay_board(other, right)
            await io.pause(f.seconds)
            io.lay_board(other, None)
            io.lay_board(slot, right)
        elif f.do == "hide_board_card":
            slot = int(step.get("slot", f.slot or 0))
            card = io.draw()
            await io.pause(f.seconds)
            io.lay_board(slot, card)
        elif f.do == "board_early" and f.card is not None:
            io.lay_board(f.slot if f.slot is not None else 0, f.card)
            await io.pause(f.seconds)
            io.lay_board(f.slot if f.slot is not None else 0, None)
        elif f.do == "wrong_bet":
            seat = int(step.get("seat", 0))
            delta = f.amount if f.amount is not None else 100
            self._bet_delta[seat] = delta
            await dealer.handle_step(prompt, {})
            await io.pause(f.seconds)
            if delta:
                # the chip sensors' window must close and hold the table before the dealer
                # looks at the next prompt: wait for that event, not for a time budget
                await _until_held(dealer, io, HOLD_WAIT)
        elif f.do == "unknown_tag":
            io.draw_tag("04DEADBEEF0001")
        elif f.do == "second_copy" and f.card is not None:
            io.draw_tag(io.uid_of(f.card))
        elif f.do == "extra_card":
            if f.card is not None:
                io.draw_tag(io.uid_of(f.card))
            else:
                io.draw()
        elif f.do == "unplug_shoe":
            await io.unplug("shoe", f.seconds)
        elif f.do == "misdeal":
            await dealer.send({"command": "misdeal", "reason": f.reason or "misdeal"})
        elif f.do == "command":
            await dealer.send(dict(f.body))
        elif f.do in _ISSUE6:
            await _ISSUE6[f.do](io, f.body)
        await io.pause(0.0)


#: The longest a fault waits for the hold it causes (seconds of the driver's time); generous,
#: so a loaded machine is only slower, never wrong.
HOLD_WAIT = 60.0


async def _until_held(dealer: SimDealer, io: FaultIO, limit: float) -> None:
    """Let time pass until the table is held (or ``limit`` seconds went by)."""
    waited = 0.0
    while waited < limit:
        if (await dealer.send({"command": "status"})).result.get("held"):
            return
        await io.pause(0.1)
        waited += 0.1


async def _until_read(dealer: SimDealer, io: FaultIO, slot: int, card: Card) -> None:
    """Let time pass until the controller has the shoe's read of ``card`` for board ``slot``.

    Also stops when the table is held, or after :data:`HOLD_WAIT` seconds.
    """
    waited = 0.0
    while waited < HOLD_WAIT:
        status = (await dealer.send({"command": "status"})).result
        board = status.get("board") or []
        if status.get("held") or (slot < len(board) and board[slot] == card.code):
            return
        await io.pause(0.1)
        waited += 0.1


async def _draw_cards(io: Any, body: Mapping[str, Any]) -> None:
    board = list(body.get("board", []))
    for i in range(int(body.get("count", 1))):
        card = io.draw()
        if i < len(board) and int(board[i]) >= 0:
            await io.pause(0.05)  # the shoe's read reaches the controller first
            io.lay_board(int(board[i]), card)
    await io.pause(0.3)  # every read is in before the dealer looks at the prompt again


async def _set_board(io: Any, body: Mapping[str, Any]) -> None:
    for slot, code in enumerate(body.get("slots", [])):
        io.lay_board(slot, Card.parse(code) if code else None)


async def _reshuffle(io: Any, body: Mapping[str, Any]) -> None:
    for slot in body.get("clear", []):
        io.lay_board(int(slot), None)
    io.load_deck(parse_cards(str(body.get("deck", ""))))


async def _chips(io: Any, body: Mapping[str, Any]) -> None:
    for move in body.get("moves", []):
        where, *rest = str(move).split()
        if where == "pot":
            io.felt.set_pot(int(rest[0]))
        else:
            io.felt.set_seat(int(rest[0]), int(rest[1]))
        await io.pause(0.05)


async def _shoe_status(io: Any, body: Mapping[str, Any]) -> None:
    io.shoe_status(bool(body.get("door_open", False)), bool(body.get("empty", False)))


_ISSUE6 = {"draw_cards": _draw_cards, "set_board": _set_board, "reshuffle": _reshuffle,
           "chips": _chips, "shoe_status": _shoe_status}


@dataclass(slots=True)
class ScenarioResult:
    """The outcome of one scenario run."""

    name: str
    failures: list[str]
    status: dict[str, Any]
    prompts: list[str]
    workdir: str = ""

    @property
    def passed(self) -> bool:
        """True when every expectation held."""
        return not self.failures


def make_dealer(scn: Scenario, io: Any) -> tuple[SimDealer, ScenarioMistakes]:
    """Build the scripted dealer of ``scn`` on ``io``."""
    script = ScriptedPlayers(scn.actions)

    def decide(legal: LegalActions, pot: int) -> Act:
        return script.decide(legal, pot)

    mistakes = ScenarioMistakes(scn.faults, io)
    dealer = SimDealer(io, decide, seats=scn.players, hands=scn.hands, decks=scn.decks,
                       mistakes=mistakes)
    dealer.floor = _floor(scn.floor, io)
    dealer.act_refused = script.take_back
    return dealer, mistakes


def _floor(policy: str, io: Any) -> Any:
    async def floor(dealer: SimDealer, prompt: Mapping[str, Any]) -> None:
        step = prompt_step(prompt)
        note = "checked by the floor (scenario)"
        if policy in ("void", "misdeal"):
            await dealer.send({"command": policy, "reason": "floor decision after a hold"})
            io.felt.clear()
            return
        if policy == "fix_chips":
            status = (await dealer.send({"command": "status"})).result
            for irr in status.get("irregularities", []):
                if irr.get("kind") == "chip_difference" and not irr.get("resolved"):
                    io.felt.set(int(irr["zone"]), int(irr["expected"]))
        await dealer.resolve_and_resume(step, note)

    return floor


async def drive(dealer: SimDealer, driver: Driver, *, stuck_after: int = 4,
                wait: float = 2.0) -> None:
    """Let ``dealer`` follow ``driver``'s prompts until its hands are played.

    :raises ScenarioError: if nothing moves for ``stuck_after`` waits in a row.
    """
    idle = 0
    while True:
        await driver.drain()
        prompt, state = driver.current()
        if dealer.finished(prompt):
            return
        if await dealer.handle(prompt, state):
            idle = 0
            continue
        if not await driver.wait(wait):
            idle += 1
            if idle >= stuck_after:
                raise ScenarioError(f"stuck at prompt {prompt.get('id')}: {prompt.get('text')!r}")


def check(scn: Scenario, dealer: SimDealer, mistakes: ScenarioMistakes,
          status: Mapping[str, Any]) -> list[str]:
    """Compare what happened with ``scn.expect``; return the failures (empty = pass)."""
    exp = scn.expect
    failures = []
    texts = [str(p.get("text", "")) for p in dealer.log.prompts]
    i = 0
    for want in exp.prompts:
        while i < len(texts) and want.lower() not in texts[i].lower():
            i += 1
        if i == len(texts):
            failures.append(f"no prompt containing {want!r} (in order)")
            break
        i += 1
    kinds = tuple(str(r.get("kind")) for r in status.get("irregularities", []))
    if exp.irregularities is not None and kinds != exp.irregularities:
        failures.append(f"irregularities {list(kinds)}, expected {list(exp.irregularities)}")
    if exp.holds is not None and dealer.log.holds_handled != exp.holds:
        failures.append(f"{dealer.log.holds_handled} holds, expected {exp.holds}")
    if exp.hands is not None and status.get("hands_played") != exp.hands:
        failures.append(f"{status.get('hands_played')} hands played, expected {exp.hands}")
    if exp.final_stacks is not None:
        got = {int(k): int(v) for k, v in status.get("stacks", {}).items()}
        if got != dict(exp.final_stacks):
            failures.append(f"final stacks {got}, expected {dict(exp.final_stacks)}")
    refused = [f"{b.get('command')}: {why}" for b, why in dealer.log.refused]
    if exp.refused is not None and len(refused) != exp.refused:
        failures.append(f"{len(refused)} commands refused, expected {exp.refused}: {refused}")
    for f in mistakes.faults:
        if f not in mistakes.fired:
            failures.append(f"fault {f.do!r} at {f.when!r} never fired")
    return failures


async def run_scenario(scn: Scenario, driver: Driver, *, wait: float = 2.0) -> ScenarioResult:
    """Play ``scn`` on ``driver`` and check its expectations."""
    dealer, mistakes = make_dealer(scn, driver.io)
    failures: list[str] = []
    try:
        await drive(dealer, driver, wait=wait)
    except (TimeoutError, TableError) as exc:
        failures.append(f"{type(exc).__name__}: {exc}")
    status = dict((await dealer.io.command({"command": "status"})).result)
    failures += check(scn, dealer, mistakes, status)
    return ScenarioResult(scn.name, failures, status,
                          [str(p.get("text", "")) for p in dealer.log.prompts])


class CoreDriver:
    """Scenarios on the controller core in-process (:class:`~.core_io.CoreIO`)."""

    def __init__(self, scn: Scenario) -> None:
        from calibration.chips import default_chip_config
        from hardware.sim.shoe import sim_deck_profile
        from table_controller.engine import RakeRule

        rake = None
        if scn.rake_percent:
            rake = RakeRule(round(scn.rake_percent * 100), scn.rake_cap)
        self.io = _CoreFaultIO(seats=scn.seats, small_blind=scn.small_blind,
                               big_blind=scn.big_blind, deck=sim_deck_profile(1),
                               chips=default_chip_config(scn.seats), rake=rake)
        self._seen = (-1, -1)

    def current(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """Return the core's prompt and state."""
        return self.io.prompt, self.io.state()

    async def wait(self, timeout: float) -> bool:
        """Let time pass (the settle window); False if the prompt did not change."""
        before = self.io.prompt.get("id")
        self.io.advance(timeout)
        return bool(self.io.prompt.get("id") != before)

    async def drain(self) -> None:
        """Nothing to take: the core answers at once."""


def _core_fault_io_class() -> type:
    from table_controller.controller.events import DeviceDown, DeviceUp
    from table_controller.simtable.core_io import CoreIO

    class CoreFaultIO(CoreIO):
        def uid_of(self, card: Card) -> str:
            return self.uids[card]

        async def unplug(self, device: str, seconds: float) -> None:
            self.feed(DeviceDown(device, "unplugged"))
            self.now += seconds
            self.feed(DeviceUp(device, "plugged back in"))

        async def pause(self, seconds: float) -> None:
            if seconds > 0:
                self.advance(seconds)

        def shoe_status(self, door_open: bool, empty: bool) -> None:
            from table_controller.controller.dealing import ShoeState

            self.feed(ShoeState(door_open, empty))

    return CoreFaultIO


def _CoreFaultIO(**kwargs: Any) -> Any:
    return _core_fault_io_class()(**kwargs)


async def run_file(scn: Scenario, *, in_process: bool = False, keep: bool = False,
                   fast: bool = True) -> ScenarioResult:
    """Run ``scn`` in-process (the core) or against the daemon with simulated devices."""
    if in_process:
        return await run_scenario(scn, CoreDriver(scn))
    from table_controller.simtable.daemon_io import run_scenario_on_daemon

    result: ScenarioResult = await run_scenario_on_daemon(scn, keep=keep)
    return result
