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

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from table_controller.engine import FULL_DECK, Act, Card, CardError, LegalActions, parse_cards
from table_controller.errors import TableError
from table_controller.simtable.dealer import Mistakes, SimDealer, prompt_step
from table_controller.simtable.felt import Felt
from table_controller.simtable.players import ScriptedAction, ScriptedPlayers, ScriptError

#: Fault and mistake actions (``do``) and what they stand for.
ACTIONS: Mapping[str, str] = {
    "expose_card": "a hole card lands face up on the board (card, slot)",
    "wrong_board_card": "the camera sees another card than the shoe read for this board slot "
                        "(card); the dealer then puts the right card there",
    "wrong_slot": "the dealer lays this board card in another slot (slot), then moves it",
    "board_early": "a card appears on the board before the shoe drew it (card, slot)",
    "wrong_bet": "the dealer puts a different amount in front of the seat (amount)",
    "unknown_tag": "a card whose tag is not in the deck comes out of the shoe",
    "second_copy": "a second copy of a card already drawn comes out of the shoe (card)",
    "extra_card": "a card is drawn when none is due",
    "hide_board_card": "the dealer draws this board card but the camera does not see it for "
                       "`seconds` (then it is laid)",
    "unplug_shoe": "the shoe's cable is pulled (and plugged back after `seconds`)",
    "misdeal": "the dealer declares a misdeal (reason), e.g. a card dealt to the wrong seat",
    "command": "the dealer sends a command (body)",
    # issue 6 (dealing irregularities, scenarios/irregularities/):
    "draw_cards": "the dealer draws body.count cards, laying card i in board slot body.board[i] "
                  "(-1 = not on the board)",
    "set_board": "the dealer lays the board as body.slots (card codes, \"\" = empty)",
    "reshuffle": "the dealer takes board slots body.clear back, shuffles them into the stub "
                 "and the shoe holds body.deck (top first)",
    "chips": "the dealer moves chips: body.moves, e.g. [\"seat 3 300\", \"pot 0\"]",
    "shoe_status": "the shoe reports body.door_open / body.empty",
}
#: Faults after which the dealer does not carry on with the prompt (the table holds).
SKIPPING = frozenset({"unknown_tag", "second_copy", "extra_card", "unplug_shoe", "misdeal",
                      "draw_cards", "chips", "shoe_status"})
FLOOR = ("resume", "fix_chips", "void", "misdeal")
_TOP = {"name", "description", "covers", "table", "seats", "hands", "faults", "expect", "floor"}
_TABLE = {"seats", "small_blind", "big_blind", "rake_percent", "rake_cap", "camera"}
#: Simulated camera levels (``hardware/sim/camera_link.py``): ``exact`` reports the board file
#: as is; the others render a picture of the felt and read it back with the recogniser.
CAMERA_LEVELS = ("exact", "easy", "medium", "hard")
_HAND = {"deck", "actions"}
_FAULT = {"when", "hand", "do", "card", "slot", "amount", "seconds", "reason", "body", "then"}
_EXPECT = {"prompts", "irregularities", "holds", "hands", "final_stacks", "refused"}


class ScenarioError(TableError):
    """A scenario file is invalid (the message names the file and the key)."""


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault or dealer mistake, fired at the first prompt matching ``when`` (and ``hand``)."""

    when: str
    do: str
    hand: int | None = None
    card: Card | None = None
    slot: int | None = None
    amount: int | None = None
    seconds: float = 1.0
    reason: str = ""
    body: Mapping[str, Any] = field(default_factory=dict)
    then: str = ""

    @property
    def skips(self) -> bool:
        """Tell whether the dealer leaves the prompt alone after the fault.

        Faults that hold the table skip by default (the dealer deals the step again after the
        hold); ``then`` overrides.
        """
        if self.then:
            return self.then == "skip"
        return self.do in SKIPPING

    def matches(self, step: Mapping[str, Any], hand: int) -> bool:
        """Tell whether a prompt's ``step`` (during hand number ``hand``) fires this fault."""
        if self.hand is not None and self.hand != hand:
            return False
        kind, *fields = self.when.split()
        if step.get("kind") != kind:
            return False
        for f in fields:
            key, _, value = f.partition("=")
            if str(step.get(key)) != value:
                return False
        return True


@dataclass(frozen=True, slots=True)
class Expect:
    """What must have happened."""

    prompts: tuple[str, ...] = ()
    irregularities: tuple[str, ...] | None = None
    holds: int | None = None
    hands: int | None = None
    final_stacks: Mapping[int, int] | None = None
    refused: int | None = 0


@dataclass(frozen=True, slots=True)
class Scenario:
    """A parsed, validated scenario."""

    name: str
    path: Path | None
    description: str
    covers: tuple[str, ...]
    seats: int
    small_blind: int
    big_blind: int
    rake_percent: float
    rake_cap: int
    camera: str
    players: Mapping[int, tuple[str, int]]
    decks: tuple[tuple[Card, ...], ...]
    actions: tuple[ScriptedAction, ...]
    faults: tuple[Fault, ...]
    expect: Expect
    floor: str = "resume"

    @property
    def hands(self) -> int:
        """Hands the dealer starts."""
        return len(self.decks)


def _full_deck(top: Sequence[Card], where: str) -> tuple[Card, ...]:
    if len(set(top)) != len(top):
        raise ScenarioError(f"{where}: the deck repeats a card")
    rest = [c for c in FULL_DECK if c not in set(top)]
    return (*top, *rest)


def _keys(d: Mapping[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(d) - allowed)
    if unknown:
        raise ScenarioError(f"{where}: unknown key {unknown[0]!r} (known: "
                            f"{', '.join(sorted(allowed))})")


def _int(v: Any, where: str, lo: int = 0) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < lo:
        raise ScenarioError(f"{where}: must be an integer >= {lo}, got {v!r}")
    return v


def _camera(v: Any, where: str) -> str:
    if v not in CAMERA_LEVELS:
        raise ScenarioError(f"{where}: one of {', '.join(CAMERA_LEVELS)}, got {v!r}")
    return str(v)


def parse_scenario(text: str, name: str = "scenario", path: Path | None = None) -> Scenario:
    """Parse and validate a scenario.

    :raises ScenarioError: naming the first thing wrong.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{name}: not valid TOML: {exc}") from None
    _keys(data, _TOP, name)
    table = data.get("table", {})
    if not isinstance(table, dict):
        raise ScenarioError(f"{name}: [table] must be a table")
    _keys(table, _TABLE, f"{name}: table")
    seats_n = _int(table.get("seats", 6), f"{name}: table.seats", 2)
    if seats_n > 10:
        raise ScenarioError(f"{name}: table.seats: at most 10, got {seats_n}")
    players: dict[int, tuple[str, int]] = {}
    raw_seats = data.get("seats")
    if not isinstance(raw_seats, dict) or len(raw_seats) < 2:
        raise ScenarioError(f"{name}: [seats] needs at least two 'N = [\"player\", stack]'")
    for k, v in raw_seats.items():
        where = f"{name}: seats.{k}"
        if not k.isdigit() or not 1 <= int(k) <= seats_n:
            raise ScenarioError(f"{where}: seat must be 1..{seats_n}")
        if (not isinstance(v, list) or len(v) != 2 or not isinstance(v[0], str)
                or not v[0]):
            raise ScenarioError(f"{where}: must be [\"player\", stack]")
        players[int(k)] = (v[0], _int(v[1], where, 1))
    hands = data.get("hands")
    if not isinstance(hands, list) or not hands:
        raise ScenarioError(f"{name}: at least one [[hands]] is needed")
    decks: list[tuple[Card, ...]] = []
    actions: list[ScriptedAction] = []
    for i, h in enumerate(hands, 1):
        where = f"{name}: hands[{i}]"
        if not isinstance(h, dict):
            raise ScenarioError(f"{where}: must be a table")
        _keys(h, _HAND, where)
        try:
            top = parse_cards(str(h.get("deck", "")))
        except CardError as exc:
            raise ScenarioError(f"{where}.deck: {exc}") from None
        decks.append(_full_deck(top, f"{where}.deck"))
        raw_actions = h.get("actions", [])
        if not isinstance(raw_actions, list):
            raise ScenarioError(f"{where}.actions: must be a list of '<seat> <action> [amount]'")
        for a in raw_actions:
            try:
                actions.append(ScriptedAction.parse(str(a)))
            except ScriptError as exc:
                raise ScenarioError(f"{where}.actions: {exc}") from None
    faults = []
    raw_faults = data.get("faults", [])
    if not isinstance(raw_faults, list):
        raise ScenarioError(f"{name}: faults must be [[faults]] tables")
    for i, f in enumerate(raw_faults, 1):
        where = f"{name}: faults[{i}]"
        if not isinstance(f, dict):
            raise ScenarioError(f"{where}: must be a table")
        _keys(f, _FAULT, where)
        do = f.get("do")
        if do not in ACTIONS:
            raise ScenarioError(f"{where}.do: one of {', '.join(ACTIONS)}, got {do!r}")
        when = f.get("when")
        if not isinstance(when, str) or not when.strip():
            raise ScenarioError(f"{where}.when: a prompt kind and fields, e.g. 'board slot=0'")
        card = None
        if "card" in f:
            try:
                card = Card.parse(str(f["card"]))
            except CardError as exc:
                raise ScenarioError(f"{where}.card: {exc}") from None
        body = f.get("body", {})
        if not isinstance(body, dict) or (do == "command" and "command" not in body):
            raise ScenarioError(f"{where}.body: a command body {{command = ..., ...}}")
        faults.append(Fault(
            when=when.strip(), do=str(do),
            hand=_int(f["hand"], f"{where}.hand", 1) if "hand" in f else None,
            card=card,
            slot=_int(f["slot"], f"{where}.slot") if "slot" in f else None,
            amount=_int(f["amount"], f"{where}.amount") if "amount" in f else None,
            seconds=float(f.get("seconds", 1.0)), reason=str(f.get("reason", "")),
            body=body, then=str(f.get("then", ""))))
        if faults[-1].then not in ("", "continue", "skip"):
            raise ScenarioError(f"{where}.then: 'continue' or 'skip'")
    exp = data.get("expect", {})
    if not isinstance(exp, dict):
        raise ScenarioError(f"{name}: [expect] must be a table")
    _keys(exp, _EXPECT, f"{name}: expect")
    stacks = exp.get("final_stacks")
    if stacks is not None and not isinstance(stacks, dict):
        raise ScenarioError(f"{name}: expect.final_stacks must be a table seat = chips")
    irr = exp.get("irregularities")
    floor = data.get("floor", "resume")
    if floor not in FLOOR:
        raise ScenarioError(f"{name}: floor: one of {', '.join(FLOOR)}, got {floor!r}")
    covers = data.get("covers", [])
    return Scenario(
        name=str(data.get("name", name)), path=path,
        description=str(data.get("description", "")),
        covers=tuple(covers) if isinstance(covers, list) else (str(covers),),
        seats=seats_n,
        small_blind=_int(table.get("small_blind", 50), f"{name}: table.small_blind", 1),
        big_blind=_int(table.get("big_blind", 100), f"{name}: table.big_blind", 1),
        rake_percent=float(table.get("rake_percent", 0.0)),
        rake_cap=_int(table.get("rake_cap", 0), f"{name}: table.rake_cap"),
        camera=_camera(table.get("camera", "exact"), f"{name}: table.camera"),
        players=players, decks=tuple(decks), actions=tuple(actions), faults=tuple(faults),
        expect=Expect(
            prompts=tuple(str(p) for p in exp.get("prompts", [])),
            irregularities=None if irr is None else tuple(str(k) for k in irr),
            holds=_int(exp["holds"], f"{name}: expect.holds") if "holds" in exp else None,
            hands=_int(exp["hands"], f"{name}: expect.hands") if "hands" in exp else None,
            final_stacks=None if stacks is None else {
                int(k): _int(v, f"{name}: expect.final_stacks.{k}") for k, v in stacks.items()},
            refused=_int(exp["refused"], f"{name}: expect.refused") if "refused" in exp
            else 0),
        floor=str(floor),
    )


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file.

    :raises ScenarioError: if it cannot be read or is invalid.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"cannot read scenario {str(p)!r}: {exc.strerror}") from None
    return parse_scenario(text, p.stem, p)


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
            await io.pause(0.3)  # the shoe's read reaches the controller first
            io.lay_board(slot, f.card)
            await io.pause(f.seconds)
            io.lay_board(slot, right)
        elif f.do == "wrong_slot":
            slot = int(step.get("slot", 0))
            right = io.draw()
            await io.pause(0.3)
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
            self._bet_delta[seat] = f.amount if f.amount is not None else 100
            await dealer.handle_step(prompt, {})
            await io.pause(max(f.seconds, 3.0))
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
