"""Poker Hand History (PHH) files: read, write, and replay through our rules engine.

PHH (phh.readthedocs.io) is a TOML file per hand. This module reads the no-limit Texas hold'em
(``variant = "NT"``) subset, maps it onto our engine and replays it, and writes any hand our engine
played back out as PHH that pokerkit (and other PHH readers) load.

Rules this module keeps:

1. Players ``p1..pN`` are in table order starting left of the button; ``pN`` holds the button.
   Heads-up, the ``antes`` and ``blinds_or_straddles`` arrays are reverse-assigned by the spec
   (the button, ``p2``, posts the small blind; ``p1`` the big blind).
2. Our seats are the file's ``seats`` when present (they must go clockwise, i.e. ascending modulo
   the table), else ``1..N``. The button is ``pN``'s seat.
3. Blinds are ``[S, B, 0, ...]``; with three or more players ``[B, 0, ...]`` (``p1`` posts the
   big blind) and ``[0, B, ...]`` (``p1`` posts nothing) are hands without a small blind (TDA
   dead small blind). Antes equal for everyone are a per-player ante; an ante in the big blind's
   position only is a big-blind ante. Other ante shapes, straddles, ``min_bet`` other than the
   big blind, unknown (``inf``) stacks and non-integral chip amounts are refused with
   :class:`PhhError`, naming the field.
4. Replay is driven by the engine: it says what comes next (post, deal, burn, act, collect, show,
   push) and the file supplies the cards and decisions. Burns are implicit in PHH (fed as unknown
   cards). ``sm`` may come before the rest of the board (all-in run-outs); it is used whenever the
   engine asks that seat to show. Cards shown at showdown but dealt face down (``????``) are fed at
   the deal, since they were those cards all along.
5. Rake has no PHH field: it is written as the user-defined field ``_rake = {percent_bp, cap,
   no_flop_no_drop}`` (underscore fields are allowed by the spec), which this reader applies.
   ``finishing_stacks`` are after rake; pokerkit ignores the field (its stacks differ by the rake).
6. Missed-blind and new-player posts (a live big blind out of position, a dead small blind
   besides the blinds) have no PHH form either (a live big blind out of position would read as
   a straddle): they are written as the user-defined field ``_posts = [{player = "p3", kind =
   "missed_big", amount = 100, live = true}, ...]`` in the order posted, which this reader
   applies; pokerkit ignores it (its stacks then differ by those posts).
7. Nothing here rounds chips: a stack that the file records with a fraction (the Pluribus logs
   split ties into half chips) is compared as is and reported as an odd-chip difference when our
   whole-chip split explains it, never hidden.

>>> hh = loads('''
... variant = "NT"
... antes = [0, 0, 0]
... blinds_or_straddles = [1, 2, 0]
... min_bet = 2
... starting_stacks = [100, 100, 100]
... actions = ["d dh p1 AsAd", "d dh p2 ????", "d dh p3 KcKd", "p3 f", "p1 cc", "p2 f"]
... finishing_stacks = [102, 98, 100]
... ''')
>>> hh.player_count, hh.actions[4].verb, hh.actions[1].cards
(3, 'cc', (None, None))
"""

from __future__ import annotations

import datetime
import math
import tomllib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path
from typing import Any

from table_controller.engine import (
    Act,
    ActionKind,
    ActStep,
    AwardStep,
    BoardStep,
    BurnStep,
    Collect,
    CollectStep,
    Deal,
    DealHoleStep,
    ExtraPost,
    Hand,
    HandConfig,
    HandOverStep,
    Input,
    LegalActions,
    Muck,
    Post,
    PostKind,
    PostStep,
    Push,
    RakeRule,
    Record,
    Show,
    ShowStep,
)
from table_controller.engine.cards import Card, CardError
from table_controller.errors import DuplicateCardError, IntegrityError, RuleError, TableError

#: Chip amounts as written in a file: whole chips, or a fraction (Pluribus ties).
Number = int | Decimal

#: Fields this reader understands (others are kept verbatim in :attr:`HandHistory.extra`).
_KNOWN_FIELDS = frozenset(
    {
        "variant", "ante_trimming_status", "antes", "blinds_or_straddles", "min_bet",
        "starting_stacks", "actions", "finishing_stacks", "players", "seats",
    }
)
#: User-defined field (PHH: underscore prefix) carrying the house rake rule of the hand.
RAKE_FIELD = "_rake"
#: User-defined field carrying missed-blind and new-player posts (no PHH form: module rule 6).
POSTS_FIELD = "_posts"
#: Posts written in :data:`POSTS_FIELD`, and whether each is live (part of the player's bet).
_EXTRA_POST_LIVE = {PostKind.DEAD_SMALL: False, PostKind.NEW_PLAYER: True,
                    PostKind.MISSED_BIG: True}
_VERBS_PLAYER = frozenset({"f", "cc", "cbr", "sm"})
_VERBS_DEALER = frozenset({"dh", "db"})


class PhhError(TableError):
    """A PHH file is malformed, or uses something our table does not play (straddles, ...).

    :param field: the field or action the problem is in (for example ``"antes"``).
    :param message: plain words naming what was wrong.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True, slots=True)
class PhhAction:
    """One parsed entry of ``actions``.

    :param actor: ``0`` for the dealer, else the player number (``1`` for ``p1``).
    :param player: the player the action concerns: the actor, or the one dealt to by ``dh``.
    :param verb: ``"dh"``, ``"db"``, ``"f"``, ``"cc"``, ``"cbr"`` or ``"sm"``.
    :param cards: cards of ``dh`` / ``db`` / ``sm`` (``None`` = unknown ``??``).
    :param amount: the ``cbr`` total ("raise to"), else ``None``.
    :param muck: for ``sm``: true when no cards are given (the hand is mucked).
    :param dash: for ``sm``: true for ``-`` (show the cards dealt earlier).
    :param text: the action as written, without commentary.
    """

    actor: int
    player: int
    verb: str
    cards: tuple[Card | None, ...] = ()
    amount: int | None = None
    muck: bool = False
    dash: bool = False
    text: str = ""


@dataclass(frozen=True, slots=True)
class HandHistory:
    """One no-limit hold'em hand in PHH terms (player order ``p1..pN``, see the module rules)."""

    antes: tuple[int, ...]
    blinds_or_straddles: tuple[int, ...]
    min_bet: int
    starting_stacks: tuple[int, ...]
    actions: tuple[PhhAction, ...]
    variant: str = "NT"
    ante_trimming_status: bool = False
    finishing_stacks: tuple[Number, ...] | None = None
    players: tuple[str, ...] | None = None
    seats: tuple[int, ...] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def player_count(self) -> int:
        """Number of players dealt in (``N``)."""
        return len(self.starting_stacks)


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


def _parse_cards(text: str, where: str) -> tuple[Card | None, ...]:
    if len(text) % 2:
        raise PhhError(where, f"not a list of cards: {text!r}")
    out: list[Card | None] = []
    for i in range(0, len(text), 2):
        pair = text[i : i + 2]
        if pair == "??":
            out.append(None)
            continue
        try:
            out.append(Card.parse(pair))
        except CardError as exc:
            raise PhhError(where, f"not a card: {pair!r} in {text!r}") from exc
    return tuple(out)


def _player(word: str, count: int, where: str) -> int:
    if len(word) < 2 or word[0] != "p" or not word[1:].isdigit():
        raise PhhError(where, f"{word!r} is not a player (p1..p{count})")
    number = int(word[1:])
    if not 1 <= number <= count:
        raise PhhError(where, f"{word!r} is not a player of this hand (p1..p{count})")
    return number


def _chips(value: object, where: str, *, allow_fraction: bool = False) -> Number:
    if isinstance(value, bool):
        raise PhhError(where, f"expected a number of chips, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise PhhError(where, f"unknown amount {value} is not supported")
        if value == value.to_integral_value():
            return int(value)
        if allow_fraction:
            return value
        raise PhhError(where, f"{value} is not a whole number of chips")
    if isinstance(value, str):
        try:
            return _chips(Decimal(value), where, allow_fraction=allow_fraction)
        except ArithmeticError as exc:
            raise PhhError(where, f"not a number: {value!r}") from exc
    raise PhhError(where, f"expected a number of chips, got {value!r}")


def _whole(value: object, where: str) -> int:
    amount = _chips(value, where)
    assert isinstance(amount, int)
    return amount


def parse_action(text: str, player_count: int, where: str = "actions") -> PhhAction | None:
    """Parse one action string; ``None`` for a no-op (empty or commentary only).

    >>> parse_action("p2 cbr 300", 3)
    PhhAction(actor=2, player=2, verb='cbr', cards=(), amount=300, muck=False, dash=False, \
text='p2 cbr 300')
    >>> parse_action("d db Jc3d5c", 3).cards
    (Card('Jc'), Card('3d'), Card('5c'))

    :raises PhhError: if the action is not valid PHH for no-limit hold'em.
    """
    body = text.split("#", 1)[0]
    words = body.split()
    if not words:
        return None
    clean = " ".join(words)
    where = f"{where} {clean!r}"
    if words[0] == "d":
        if len(words) == 4 and words[1] == "dh":
            dealt = _player(words[2], player_count, where)
            cards = _parse_cards(words[3], where)
            return PhhAction(0, dealt, "dh", cards, text=clean)
        if len(words) == 3 and words[1] == "db":
            cards = _parse_cards(words[2], where)
            if None in cards:
                raise PhhError(where, "board cards must be known")
            return PhhAction(0, 0, "db", cards, text=clean)
        raise PhhError(where, "dealer actions are 'd dh pN CARDS' and 'd db CARDS'")
    actor = _player(words[0], player_count, where)
    verb = words[1] if len(words) > 1 else ""
    if verb not in _VERBS_PLAYER:
        if verb in _VERBS_DEALER:
            raise PhhError(where, "deals are written 'd dh pN CARDS' / 'd db CARDS'")
        raise PhhError(where, f"unknown or unsupported action {verb!r} (f, cc, cbr, sm)")
    args = words[2:]
    if verb in ("f", "cc"):
        if args:
            raise PhhError(where, f"'{verb}' takes no argument")
        return PhhAction(actor, actor, verb, text=clean)
    if verb == "cbr":
        if len(args) != 1:
            raise PhhError(where, "'cbr' takes one amount (the total bet)")
        amount = _whole(args[0], where)
        if amount <= 0:
            raise PhhError(where, "the 'cbr' amount must be positive")
        return PhhAction(actor, actor, "cbr", amount=amount, text=clean)
    if not args:
        return PhhAction(actor, actor, "sm", muck=True, text=clean)
    if len(args) != 1:
        raise PhhError(where, "'sm' takes at most one argument (cards or '-')")
    if args[0] == "-":
        return PhhAction(actor, actor, "sm", dash=True, text=clean)
    return PhhAction(actor, actor, "sm", _parse_cards(args[0], where), text=clean)


def _int_list(raw: Mapping[str, Any], name: str, count: int | None) -> tuple[int, ...]:
    value = raw.get(name)
    if not isinstance(value, list):
        raise PhhError(name, "missing or not an array")
    if count is not None and len(value) != count:
        raise PhhError(name, f"has {len(value)} entries, expected {count} (one per player)")
    return tuple(_whole(v, f"{name}[{i}]") for i, v in enumerate(value))


def from_mapping(raw: Mapping[str, Any]) -> HandHistory:
    """Build a :class:`HandHistory` from already-parsed TOML.

    :raises PhhError: naming the field that is missing, malformed or unsupported.
    """
    variant = raw.get("variant")
    if variant != "NT":
        raise PhhError("variant", f"{variant!r} is not supported (only 'NT', no-limit hold'em)")
    stacks_raw = raw.get("starting_stacks")
    if not isinstance(stacks_raw, list):
        raise PhhError("starting_stacks", "missing or not an array")
    count = len(stacks_raw)
    if not 2 <= count <= 10:
        raise PhhError("starting_stacks", f"{count} players; a table has 2 to 10")
    stacks = _int_list(raw, "starting_stacks", count)
    if any(s <= 0 for s in stacks):
        raise PhhError("starting_stacks", "every starting stack must be positive")
    antes = _int_list(raw, "antes", count)
    blinds = _int_list(raw, "blinds_or_straddles", count)
    if any(a < 0 for a in antes) or any(b < 0 for b in blinds):
        raise PhhError("antes", "antes and blinds must not be negative")
    if "min_bet" not in raw:
        raise PhhError("min_bet", "missing")
    min_bet = _whole(raw["min_bet"], "min_bet")
    trimming = raw.get("ante_trimming_status", False)
    if not isinstance(trimming, bool):
        raise PhhError("ante_trimming_status", f"expected true or false, got {trimming!r}")
    actions_raw = raw.get("actions")
    if not isinstance(actions_raw, list) or not all(isinstance(a, str) for a in actions_raw):
        raise PhhError("actions", "missing or not an array of strings")
    actions = tuple(
        a
        for i, text in enumerate(actions_raw)
        if (a := parse_action(text, count, f"actions[{i}]")) is not None
    )
    finishing: tuple[Number, ...] | None = None
    if "finishing_stacks" in raw:
        fin = raw["finishing_stacks"]
        if not isinstance(fin, list) or len(fin) != count:
            raise PhhError("finishing_stacks", f"expected an array of {count} numbers")
        finishing = tuple(
            _chips(v, f"finishing_stacks[{i}]", allow_fraction=True) for i, v in enumerate(fin)
        )
    players: tuple[str, ...] | None = None
    if "players" in raw:
        names = raw["players"]
        if not isinstance(names, list) or len(names) != count:
            raise PhhError("players", f"expected an array of {count} names")
        players = tuple(str(n) for n in names)
    seats: tuple[int, ...] | None = None
    if "seats" in raw:
        seats = _int_list(raw, "seats", count)
    extra = {k: v for k, v in raw.items() if k not in _KNOWN_FIELDS}
    return HandHistory(
        antes=antes,
        blinds_or_straddles=blinds,
        min_bet=min_bet,
        starting_stacks=stacks,
        actions=actions,
        variant="NT",
        ante_trimming_status=trimming,
        finishing_stacks=finishing,
        players=players,
        seats=seats,
        extra=extra,
    )


def loads(text: str) -> HandHistory:
    """Read one hand from PHH text.

    :raises PhhError: if the text is not TOML, or not a PHH hand we can play.
    """
    try:
        raw = tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError as exc:
        raise PhhError("toml", str(exc)) from exc
    return from_mapping(raw)


def load(path: str | Path) -> HandHistory:
    """Read one hand from a ``.phh`` file.

    :raises PhhError: if the file is not a PHH hand we can play.
    :raises OSError: if the file cannot be read.
    """
    with open(path, "rb") as fp:
        data = fp.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PhhError("file", f"not UTF-8 text: {exc}") from exc
    return loads(text)


def iter_paths(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Yield the ``.phh`` files among ``paths``, walking folders recursively in sorted order.

    A path named explicitly is yielded whatever its suffix.

    :raises FileNotFoundError: if a path does not exist.
    """
    for item in paths:
        path = Path(item)
        if path.is_dir():
            yield from sorted(
                (p for p in path.rglob("*.phh") if p.is_file()), key=_natural_key
            )
        elif path.exists():
            yield path
        else:
            raise FileNotFoundError(f"no such file or folder: {path}")


def _natural_key(path: Path) -> tuple[tuple[int, int | str], ...]:
    parts: list[tuple[int, int | str]] = []
    for part in path.parts:
        stem = part.removesuffix(".phh")
        parts.append((0, int(stem)) if stem.isdigit() else (1, stem))
    return tuple(parts)


# --------------------------------------------------------------------------------------------
# Mapping onto our engine and replaying


def engine_seats(hh: HandHistory) -> tuple[int, ...]:
    """Return our seat number for each player ``p1..pN`` (rule 2).

    :raises PhhError: if ``seats`` is not N distinct seats 1..10 going clockwise from ``p1``.
    """
    n = hh.player_count
    if hh.seats is None:
        return tuple(range(1, n + 1))
    seats = hh.seats
    if len(set(seats)) != n or not all(1 <= s <= 10 for s in seats):
        raise PhhError("seats", f"{list(seats)} are not {n} distinct seats in 1..10")
    descents = sum(1 for a, b in zip(seats, seats[1:] + seats[:1], strict=True) if b < a)
    if descents != 1:
        raise PhhError("seats", f"{list(seats)} do not go clockwise (ascending, wrapping once)")
    return seats


def hand_config(hh: HandHistory) -> tuple[HandConfig, tuple[int, ...]]:
    """Map a hand history onto our engine: its :class:`HandConfig` and the seat of each player.

    ``blinds_or_straddles`` index 0 is the small blind and index 1 the big blind (heads-up the
    arrays are reverse-assigned, and ``p1`` is then the big blind). With three or more players,
    ``[B, 0, ...]`` is a hand without a small blind (dead small blind), ``p1`` posting the big
    blind; ``[0, B, ...]`` one where ``p1`` is skipped and ``p2`` posts the big blind. The
    big-blind ante sits at the big blind's index of ``antes``.

    Missed-blind and new-player posts come from the user-defined field ``_posts`` (module
    rule 6), the house rake from ``_rake`` (rule 5).

    :raises PhhError: for straddles, other ante shapes, a ``min_bet`` that is not the big blind,
        an ante larger than a stack with ``ante_trimming_status = false``, or a malformed
        ``_rake`` / ``_posts``.
    """
    n = hh.player_count
    seats = engine_seats(hh)
    blinds = hh.blinds_or_straddles
    if any(blinds[2:]):
        raise PhhError("blinds_or_straddles", f"straddles are not played here: {list(blinds)}")
    if blinds[1] > 0 and (blinds[0] > 0 or n > 2):
        small, big, bb_index = blinds[0], blinds[1], 1
    elif blinds[0] > 0 and blinds[1] == 0 and n > 2:
        small, big, bb_index = 0, blinds[0], 0
    else:
        raise PhhError("blinds_or_straddles", f"no small and big blind in {list(blinds)}")
    if small > big:
        raise PhhError("blinds_or_straddles", f"small blind {small} is above the big blind {big}")
    if hh.min_bet != big:
        raise PhhError("min_bet", f"{hh.min_bet} differs from the big blind {big}")
    antes = hh.antes
    others = [a for i, a in enumerate(antes) if i != bb_index]
    if len(set(others)) != 1 or antes[bb_index] < others[0]:
        raise PhhError("antes", f"only equal antes and a big-blind ante are played: {list(antes)}")
    ante, bb_ante = others[0], antes[bb_index] - others[0]
    for i, (a, stack) in enumerate(zip(antes, hh.starting_stacks, strict=True)):
        if a > stack and not hh.ante_trimming_status and len(set(antes)) == 1:
            raise PhhError(
                "ante_trimming_status",
                f"p{i + 1} cannot pay the ante {a} from {stack} and antes are not trimmed",
            )
    no_small = small == 0
    config = HandConfig(
        seats=seats,
        stacks=dict(zip(seats, hh.starting_stacks, strict=True)),
        button=seats[n - 1],
        small_blind=small,
        big_blind=big,
        ante=ante,
        bb_ante=bb_ante,
        bb_seat=seats[bb_index] if no_small else None,
        no_small_blind=no_small,
        extra_posts=_extra_posts(hh, seats),
        rake=_rake_rule(hh),
    )
    return config, seats


class ReplayError(TableError):
    """The engine refused an action of the file, or the file does not fit the hand.

    :param action: the PHH action (as written) that could not be applied, or ``None``.
    :param rule: the rule broken (the engine's rule name, ``"phh"`` for a file problem).
    :param message: plain words.
    """

    def __init__(self, action: str | None, rule: str, message: str) -> None:
        where = f"{action!r}: " if action else ""
        super().__init__(f"{where}[{rule}] {message}")
        self.action = action
        self.rule = rule
        self.message = message

    def to_dict(self) -> dict[str, str | None]:
        """JSON-friendly form: ``action``, ``rule``, ``message``."""
        return {"action": self.action, "rule": self.rule, "message": self.message}


@dataclass(slots=True)
class _Script:
    """The file's actions sorted by what the engine will ask for."""

    holes: dict[int, list[Card | None]]
    board: list[tuple[Card, PhhAction]]
    bets: list[tuple[PhhAction, int]]
    shows: dict[int, PhhAction]
    show_board: dict[int, int]
    """Player -> board cards out when the file lists its ``sm`` (all-in: before the run-out)."""


def _script(hh: HandHistory) -> _Script:
    holes: dict[int, list[Card | None]] = {}
    board: list[tuple[Card, PhhAction]] = []
    bets: list[tuple[PhhAction, int]] = []
    shows: dict[int, PhhAction] = {}
    show_board: dict[int, int] = {}
    for action in hh.actions:
        if action.verb == "dh":
            holes.setdefault(action.player, []).extend(action.cards)
        elif action.verb == "db":
            board.extend((c, action) for c in action.cards if c is not None)
        elif action.verb == "sm":
            if action.player in shows:
                raise ReplayError(action.text, "phh", f"p{action.player} shows twice")
            shows[action.player] = action
            show_board[action.player] = len(board)
        else:
            bets.append((action, len(board)))
    for player, cards in holes.items():
        if len(cards) != 2:
            texts = [a.text for a in hh.actions if a.verb == "dh" and a.player == player]
            raise ReplayError(texts[0], "phh", f"p{player} is dealt {len(cards)} hole cards, "
                              "not 2")
    # Face-down cards shown later were those cards all along (rule 4).
    for player, show in shows.items():
        dealt = holes.get(player)
        if dealt is not None and show.cards and len(show.cards) == len(dealt):
            holes[player] = [d if d is not None else c for d, c in zip(dealt, show.cards,
                                                                       strict=True)]
    return _Script(holes, board, bets, shows, show_board)


def _act_input(seat: int, action: PhhAction, legal: LegalActions) -> Act:
    if action.verb == "f":
        return Act(seat, ActionKind.FOLD)
    if action.verb == "cc":
        return Act(seat, ActionKind.CHECK if legal.can_check else ActionKind.CALL)
    assert action.amount is not None
    if action.amount == legal.max_raise_to:
        return Act(seat, ActionKind.ALL_IN, action.amount)
    return Act(seat, ActionKind.BET if legal.is_bet else ActionKind.RAISE, action.amount)


def play(hh: HandHistory) -> Hand:
    """Replay a hand history through our engine and return the finished :class:`Hand`.

    :raises PhhError: if the file uses something our table does not play.
    :raises ReplayError: if the engine refuses an action, or the file ends early or has extra
        actions.
    :raises IntegrityError: on a duplicate card (or a chip conservation failure).
    """
    config, seats = hand_config(hh)
    player_of = {seat: i + 1 for i, seat in enumerate(seats)}
    script = _script(hh)
    hand = Hand(config)
    bet_i = 0

    def apply(inp: Input, action: PhhAction | None) -> None:
        try:
            hand.apply(inp)
        except RuleError as exc:
            raise ReplayError(action.text if action else None, exc.rule, exc.message) from exc

    def show_input(seat: int) -> tuple[Input, PhhAction | None]:
        player = player_of[seat]
        show = script.shows.get(player)
        known = None not in script.holes.get(player, (None,))
        if show is None and not known:
            return Muck(seat), None  # a hand nobody saw cannot win
        if show is None or show.dash:
            return Show(seat), show
        if show.muck or None in show.cards:
            return Muck(seat), show
        return Show(seat, tuple(c for c in show.cards if c is not None)), show

    tabled: set[int] = set()
    while True:
        step = hand.expected()
        if isinstance(step, BurnStep | BoardStep):
            # An all-in: the file may table (or concede) hands before the run-out.
            out = len(hand_board(hand))
            early = [p for p, at in script.show_board.items() if at <= out and p not in tabled]
            fed = False
            for player in early:
                tabled.add(player)
                inp, show = show_input(seats[player - 1])
                if hand.check(inp) is None:
                    apply(inp, show)
                    fed = True
            if fed:
                continue
        if isinstance(step, PostStep):
            apply(Post(step.seat), None)
        elif isinstance(step, DealHoleStep):
            cards = script.holes.get(player_of[step.seat], ())
            apply(Deal(cards[step.round - 1] if step.round <= len(cards) else None), None)
        elif isinstance(step, BurnStep):
            apply(Deal(None), None)
        elif isinstance(step, BoardStep):
            if step.slot >= len(script.board):
                raise ReplayError(None, "phh", f"the file ends before board card {step.slot + 1}")
            card, action = script.board[step.slot]
            apply(Deal(card), action)
        elif isinstance(step, ActStep):
            if bet_i >= len(script.bets):
                raise ReplayError(None, "phh", f"the file ends before p{player_of[step.seat]} acts")
            action, board_len = script.bets[bet_i]
            bet_i += 1
            if action.player != player_of[step.seat]:
                raise ReplayError(
                    action.text, "turn",
                    f"p{action.player} acts out of turn: p{player_of[step.seat]} is to act",
                )
            if board_len != len(hand_board(hand)):
                raise ReplayError(
                    action.text, "phh",
                    f"acts after {board_len} board cards, but {len(hand_board(hand))} are out",
                )
            apply(_act_input(step.seat, action, step.legal), action)
        elif isinstance(step, CollectStep):
            apply(Collect(), None)
        elif isinstance(step, ShowStep):
            apply(*show_input(step.seat))
        elif isinstance(step, AwardStep):
            apply(Push(step.pot_index), None)
        elif isinstance(step, HandOverStep):
            break
        else:  # pragma: no cover - the engine's Step union is closed
            raise ReplayError(None, "phh", f"unexpected step {step!r}")
    if bet_i < len(script.bets):
        extra = script.bets[bet_i][0]
        raise ReplayError(extra.text, "phh", "action after the hand is over")
    if len(script.board) > len(hand_board(hand)):
        raise ReplayError(script.board[len(hand_board(hand))][1].text, "phh",
                          "board card dealt after the hand is over")
    return hand


def hand_board(hand: Hand) -> tuple[Card | None, ...]:
    """Board cards dealt so far in ``hand``."""
    return hand.status().board


#: Outcome of comparing our finishing stacks with the file's.
MATCHED, ODD_CHIP, MISMATCHED, NO_EXPECTED, ERROR = (
    "matched", "odd_chip", "mismatched", "no_expected", "error"
)


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """One hand replayed: our stacks (``p1..pN``), the file's, and how they compare.

    ``differences`` maps player number to ours minus the file's, for players that differ.
    """

    status: str
    finishing_stacks: tuple[int, ...] | None
    expected: tuple[Number, ...] | None
    differences: Mapping[int, Number] = field(default_factory=dict)
    error: ReplayError | PhhError | None = None

    @property
    def match(self) -> bool | None:
        """True / False when the file has ``finishing_stacks``, None when not (or on error)."""
        if self.status in (MATCHED, ODD_CHIP, MISMATCHED):
            return self.status == MATCHED
        return None


def _split_tolerance(hand: Hand) -> dict[int, int]:
    """Per seat: the number of split pots it shared (each can shift it by one odd chip)."""
    tolerance: dict[int, int] = {}
    for record in hand.log:
        step = record.step
        if isinstance(step, AwardStep) and len(step.payouts) > 1:
            for seat in step.payouts:
                tolerance[seat] = tolerance.get(seat, 0) + 1
    return tolerance


def compare(hh: HandHistory, hand: Hand) -> ReplayResult:
    """Compare a replayed hand's finishing stacks with the file's (module rule 7).

    Differences are odd-chip differences when chips add up to the same total and every player's
    difference is within the number of split pots it shared; otherwise a mismatch.
    """
    seats = engine_seats(hh)
    final = hand.status().stacks
    ours = tuple(final[s] for s in seats)
    expected = hh.finishing_stacks
    if expected is None:
        return ReplayResult(NO_EXPECTED, ours, None)
    diffs: dict[int, Number] = {
        i + 1: o - e for i, (o, e) in enumerate(zip(ours, expected, strict=True)) if o != e
    }
    if not diffs:
        return ReplayResult(MATCHED, ours, expected)
    tolerance = _split_tolerance(hand)
    total: Number = sum(expected, Decimal(0))
    explained = sum(ours) == total and all(
        -tolerance.get(seats[p - 1], 0) <= d <= tolerance.get(seats[p - 1], 0)
        for p, d in diffs.items()
    )
    return ReplayResult(ODD_CHIP if explained else MISMATCHED, ours, expected, diffs)


def replay(hh: HandHistory) -> ReplayResult:
    """Replay ``hh`` and compare; errors are returned in the result, never raised."""
    try:
        hand = play(hh)
    except (ReplayError, PhhError) as exc:
        return ReplayResult(ERROR, None, hh.finishing_stacks, error=exc)
    except IntegrityError as exc:
        rule = "duplicate-card" if isinstance(exc, DuplicateCardError) else "chip-conservation"
        return ReplayResult(ERROR, None, hh.finishing_stacks,
                            error=ReplayError(None, rule, str(exc)))
    return compare(hh, hand)


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------


def _toml_string(text: str) -> str:
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal):
        return str(value) if value.is_finite() else ("inf" if value > 0 else "-inf")
    if isinstance(value, float):
        if math.isfinite(value):
            return repr(value)
        return "inf" if value > 0 else ("-inf" if value < 0 else "nan")
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    raise PhhError("extra", f"cannot write {value!r} ({type(value).__name__}) in TOML")


def _toml_key(key: str) -> str:
    bare = key and all(ch.isascii() and (ch.isalnum() or ch in "_-") for ch in key)
    return key if bare else _toml_string(key)


def _cards_text(cards: Sequence[Card | None]) -> str:
    return "".join("??" if c is None else c.code for c in cards)


def format_action(action: PhhAction) -> str:
    """Write one action in PHH notation.

    >>> format_action(PhhAction(3, 3, "cbr", amount=600))
    'p3 cbr 600'
    >>> format_action(PhhAction(0, 2, "dh", (Card.parse("Ah"), None)))
    'd dh p2 Ah??'
    """
    if action.verb == "db":
        return f"d db {_cards_text(action.cards)}"
    if action.verb == "dh":
        return f"d dh p{action.player} {_cards_text(action.cards)}"
    if action.verb == "f" or action.verb == "cc":
        return f"p{action.actor} {action.verb}"
    if action.verb == "cbr":
        return f"p{action.actor} cbr {action.amount}"
    if action.verb == "sm":
        if action.muck:
            return f"p{action.actor} sm"
        if action.dash:
            return f"p{action.actor} sm -"
        return f"p{action.actor} sm {_cards_text(action.cards)}"
    raise PhhError("actions", f"cannot write action {action!r}")


def player_order(config: HandConfig) -> tuple[int, ...]:
    """Our dealt seats as PHH players ``p1..pN``: clockwise from the first seat left of the button.

    >>> player_order(HandConfig((2, 5, 9), {2: 100, 5: 100, 9: 100}, button=5,
    ...                         small_blind=1, big_blind=2))
    (9, 2, 5)
    """
    seats = sorted(config.seats)
    start = next((i for i, s in enumerate(seats) if s > config.button), 0)
    return tuple(seats[start:] + seats[:start])


def history_from_hand(
    hand: Hand,
    *,
    players: Mapping[int, str] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> HandHistory:
    """Write a hand our engine played (finished or not) as a :class:`HandHistory`.

    Hole cards are listed per player once dealt, board cards per street, burns are left out, and
    when the hand was tabled before the board was out (all-in), the ``sm`` actions come right
    after the last betting action, as PHH and pokerkit expect (unless a hand was mucked: then
    after the board, where pokerkit also reads them). ``seats`` holds our seat numbers.

    :param players: optional names by seat.
    :param extra: optional further fields (``event``, ``hand``, ...).
    Missed-blind and new-player posts are written in the user-defined field ``_posts`` (module
    rule 6), the rake rule in ``_rake`` (rule 5).

    :raises PhhError: for what PHH cannot say: blinds out of the PHH positions, ``extra`` fields
        that clash with the hand's own.
    """
    clash = sorted(set(extra or {}) & (_KNOWN_FIELDS | {POSTS_FIELD}))
    if clash:
        raise PhhError("extra", f"{clash} are written from the hand itself")
    config = hand.config
    order = player_order(config)
    n = len(order)
    number = {seat: i + 1 for i, seat in enumerate(order)}
    sb_at, bb_at = _blind_seats(config, order)
    slot = {seat: (1 - i if n == 2 else i) for i, seat in enumerate(order)}
    if not ((sb_at, bb_at) in ((order[0], order[1]), (None, order[0]), (None, order[1]))
            if n > 2 else (sb_at, bb_at) == (order[1], order[0])):
        raise PhhError("blinds_or_straddles", f"blinds on seats {sb_at} / {bb_at} are not in "
                       "PHH positions (p1 small blind, p2 big blind; heads-up reversed)")
    posts: list[tuple[int, PostKind]] = []
    actions: list[PhhAction] = []
    holes: dict[int, list[Card | None]] = {}
    street_cards: list[Card | None] = []
    board_actions: list[int] = []  # indexes in `actions` of db actions after the last bet
    shows: list[PhhAction] = []

    def flush_holes() -> None:
        for seat in order:
            if seat in holes:
                actions.append(PhhAction(0, number[seat], "dh", tuple(holes.pop(seat))))

    # Cards as they stand now: a card corrected after the deal (a misread) is written corrected.
    now = hand.status()
    for record in hand.log:
        step = record.step
        if isinstance(step, PostStep):
            posts.append((step.seat, step.kind))
            continue
        if isinstance(step, DealHoleStep):
            holes.setdefault(step.seat, []).append(now.hole_cards[step.seat][step.round - 1])
            continue
        flush_holes()
        if isinstance(step, BoardStep):
            street_cards.append(now.board[step.slot])
            if len(street_cards) == len(step.street.board_slots):
                board_actions.append(len(actions))
                actions.append(PhhAction(0, 0, "db", tuple(street_cards)))
                street_cards = []
        elif isinstance(step, ActStep):
            board_actions = []
            actions.append(_act_action(record, number[step.seat]))
        elif isinstance(step, ShowStep) or isinstance(record.input, Show | Muck):
            shows.append(_show_action(hand, record, number))
    flush_holes()
    for seat, kind in posts:
        wanted = {PostKind.SMALL_BLIND: sb_at, PostKind.BIG_BLIND: bb_at}.get(kind, seat)
        if kind in _EXTRA_POST_LIVE:
            continue  # written in the user-defined field _posts (module rule 6)
        if seat != wanted:
            raise PhhError("blinds_or_straddles", f"the {kind.value} of seat {seat} is not in a "
                           "PHH position (p1 small blind, p2 big blind; heads-up reversed)")
        if kind not in (PostKind.ANTE, PostKind.BB_ANTE, PostKind.SMALL_BLIND,
                        PostKind.BIG_BLIND):
            raise PhhError("blinds_or_straddles", f"a {kind.value} post cannot be written")
    if shows:
        # PHH tables the hands of an all-in before the run-out; a conceding muck stays after it
        # (pokerkit cannot deal a board to a single hand).
        early = board_actions and not any(a.muck for a in shows)
        at = board_actions[0] if early else len(actions)
        actions[at:at] = shows
    actions = [replace(a, text=format_action(a)) for a in actions]
    antes = [config.ante] * n
    antes[slot[bb_at]] += config.bb_ante
    blinds = [0] * n
    blinds[slot[bb_at]] = config.big_blind
    if sb_at is not None:
        blinds[slot[sb_at]] = config.small_blind
    finished = isinstance(hand.expected(), HandOverStep)
    stacks = hand.status().stacks
    return HandHistory(
        antes=tuple(antes),
        blinds_or_straddles=tuple(blinds),
        min_bet=config.big_blind,
        starting_stacks=tuple(config.stacks[s] for s in order),
        actions=tuple(actions),
        # Equal antes: a short ante plays for what it put in (trimmed); a big-blind ante is
        # dead money in the main pot (not trimmed), as the PHH spec says.
        ante_trimming_status=config.bb_ante == 0,
        finishing_stacks=tuple(stacks[s] for s in order) if finished else None,
        players=None if players is None else tuple(players.get(s, "") for s in order),
        seats=order,
        extra=_rake_fields(config.rake) | _posts_fields(config.extra_posts, number)
        | {k: v for k, v in (extra or {}).items() if v is not None},
    )


def _rake_fields(rule: RakeRule | None) -> dict[str, Any]:
    if rule is None:
        return {}
    return {RAKE_FIELD: {"percent_bp": rule.percent_bp, "cap": rule.cap,
                         "no_flop_no_drop": rule.no_flop_no_drop}}


def _posts_fields(posts: Sequence[ExtraPost], number: Mapping[int, int]) -> dict[str, Any]:
    if not posts:
        return {}
    for post in posts:
        if post.kind not in _EXTRA_POST_LIVE or post.seat not in number:
            raise PhhError(POSTS_FIELD, f"cannot write a {post.kind.value} post for seat "
                           f"{post.seat}")
    return {POSTS_FIELD: [{"player": f"p{number[p.seat]}", "kind": p.kind.value,
                           "amount": p.amount, "live": _EXTRA_POST_LIVE[p.kind]}
                          for p in posts]}


def _extra_posts(hh: HandHistory, seats: Sequence[int]) -> tuple[ExtraPost, ...]:
    """Read ``_posts`` (module rule 6): the missed-blind and new-player posts, in order."""
    raw = hh.extra.get(POSTS_FIELD)
    if raw is None:
        return ()
    shape = '[{player = "pN", kind = "missed_big", amount = N, live = true}, ...]'
    if not isinstance(raw, list):
        raise PhhError(POSTS_FIELD, f"expected an array {shape}")
    kinds = {k.value: k for k in _EXTRA_POST_LIVE}
    out: list[ExtraPost] = []
    for i, item in enumerate(raw):
        where = f"{POSTS_FIELD}[{i}]"
        if not isinstance(item, Mapping) or not {"player", "kind", "amount"} <= set(item) \
                or not set(item) <= {"player", "kind", "amount", "live"}:
            raise PhhError(where, f"expected {{player, kind, amount, live}} as in {shape}")
        player = item["player"]
        if not isinstance(player, str):
            raise PhhError(where, f"player {player!r} is not a player (p1..p{len(seats)})")
        number = _player(player, len(seats), where)
        kind = kinds.get(item["kind"]) if isinstance(item["kind"], str) else None
        if kind is None:
            raise PhhError(where, f"kind {item['kind']!r} is not one of {sorted(kinds)}")
        amount = _whole(item["amount"], f"{where}.amount")
        if amount <= 0:
            raise PhhError(where, f"amount {amount} must be positive")
        live = item.get("live", _EXTRA_POST_LIVE[kind])
        if live is not _EXTRA_POST_LIVE[kind]:
            raise PhhError(where, f"live = {live!r}, but a {kind.value} post is "
                           f"{'live' if _EXTRA_POST_LIVE[kind] else 'dead'}")
        out.append(ExtraPost(seats[number - 1], kind, amount))
    return tuple(out)


def _rake_rule(hh: HandHistory) -> RakeRule | None:
    raw = hh.extra.get(RAKE_FIELD)
    if raw is None:
        return None
    if not isinstance(raw, Mapping) or set(raw) != {"percent_bp", "cap", "no_flop_no_drop"}:
        raise PhhError(RAKE_FIELD, "expected {percent_bp = N, cap = N, no_flop_no_drop = B}")
    percent, cap, nfnd = raw["percent_bp"], raw["cap"], raw["no_flop_no_drop"]
    if not isinstance(percent, int) or not isinstance(cap, int) or not isinstance(nfnd, bool):
        raise PhhError(RAKE_FIELD, f"bad values: {dict(raw)!r}")
    try:
        return RakeRule(percent, cap, nfnd)
    except ValueError as exc:
        raise PhhError(RAKE_FIELD, str(exc)) from exc


def _blind_seats(config: HandConfig, order: tuple[int, ...]) -> tuple[int | None, int]:
    """Return the small- and big-blind seats of a hand (as the engine places them)."""
    if len(order) == 2:
        sb = config.sb_seat if config.sb_seat is not None else order[1]
        return sb, config.bb_seat if config.bb_seat is not None else order[0]
    if config.no_small_blind:
        return None, config.bb_seat if config.bb_seat is not None else order[0]
    sb = config.sb_seat if config.sb_seat is not None else order[0]
    return sb, config.bb_seat if config.bb_seat is not None else order[1]


def _act_action(record: Record, player: int) -> PhhAction:
    kind = record.kind
    if kind is ActionKind.FOLD:
        return PhhAction(player, player, "f")
    if kind in (ActionKind.CHECK, ActionKind.CALL):
        return PhhAction(player, player, "cc")
    if kind in (ActionKind.BET, ActionKind.RAISE):
        return PhhAction(player, player, "cbr", amount=record.to)
    raise PhhError("actions", f"cannot write action record {record!r}")


def _show_action(hand: Hand, record: Record, number: Mapping[int, int]) -> PhhAction:
    inp = record.input
    if isinstance(inp, Muck):
        return PhhAction(number[inp.seat], number[inp.seat], "sm", muck=True)
    assert isinstance(inp, Show)
    cards: tuple[Card | None, ...] = inp.cards or hand.status().hole_cards[inp.seat]
    return PhhAction(number[inp.seat], number[inp.seat], "sm", cards)


def dumps(hh: HandHistory) -> str:
    """Write a hand as PHH text (TOML) that :func:`loads` and pokerkit read back."""
    lines = [
        f"variant = {_toml_value(hh.variant)}",
        f"ante_trimming_status = {_toml_value(hh.ante_trimming_status)}",
        f"antes = {_toml_value(hh.antes)}",
        f"blinds_or_straddles = {_toml_value(hh.blinds_or_straddles)}",
        f"min_bet = {hh.min_bet}",
        f"starting_stacks = {_toml_value(hh.starting_stacks)}",
        "actions = [",
    ]
    for action in hh.actions:
        lines.append(f"  {_toml_string(format_action(action))},")
    lines.append("]")
    if hh.players is not None:
        lines.append(f"players = {_toml_value(hh.players)}")
    if hh.seats is not None:
        lines.append(f"seats = {_toml_value(hh.seats)}")
    if hh.finishing_stacks is not None:
        lines.append(f"finishing_stacks = {_toml_value(hh.finishing_stacks)}")
    for key, value in hh.extra.items():
        lines.append(f"{_toml_key(key)} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"
