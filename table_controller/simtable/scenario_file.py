"""Scenario files: the format, read and validated whole before anything runs.

A scenario (TOML, format in ``docs/scenarios.md``) gives the table (seats, stakes), the players
and stacks, the deck order and the players' actions of each hand, faults and dealer mistakes at
given prompts, and expectations: prompts that must appear, the irregularities raised (kinds, in
order), the holds, the hands played and the final stacks. :mod:`.scenario` runs it.

Rules this module keeps:

1. A scenario file is validated whole before anything runs: an unknown key, a bad card, action,
   fault or seat is a :class:`ScenarioError` naming the file and the key.
2. The floor's policy after a hold is scripted too (``floor``): ``resume`` (resolve every open
   irregularity, then resume), ``fix_chips`` (put the zone right first), ``void`` or
   ``misdeal``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table_controller.engine import FULL_DECK, Card, CardError, parse_cards
from table_controller.errors import TableError
from table_controller.simtable.players import ScriptedAction, ScriptError

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
    # dealing irregularities (scenarios/irregularities/):
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


