"""Reading PHH: parse one action, a file's TOML into a :class:`~.model.HandHistory`, find files.

See the package documentation for the rules (which fields, which shapes are refused). Any
text is answered with a hand or a :class:`PhhError` in bounded time (:func:`loads`: the text's
length, nesting and numbers are bounded before anything is expanded, :mod:`.bounds`). The
TOML subset PHH files are written in is read by :mod:`.tomlsubset`, any other by ``tomllib``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Iterator, Mapping
from decimal import Decimal
from itertools import repeat
from operator import is_
from pathlib import Path
from typing import Any, cast

from table_controller.engine.cards import FULL_DECK, Card, CardError
from table_controller.phh.bounds import MAX_DEPTH as MAX_DEPTH
from table_controller.phh.bounds import MAX_TEXT as MAX_TEXT
from table_controller.phh.bounds import _check_document as _check_document
from table_controller.phh.bounds import _check_nesting as _check_nesting
from table_controller.phh.model import (
    KNOWN_FIELDS,
    MAX_CHIPS,
    HandHistory,
    Number,
    PhhAction,
    PhhError,
    parse_chips,
    whole_chips,
)
from table_controller.phh.tomlsubset import _LINES as _LINES
from table_controller.phh.tomlsubset import _fast_toml as _fast_toml
from table_controller.phh.tomlsubset import _line_toml as _line_toml
from table_controller.phh.tomlsubset import _token_toml as _token_toml

#: Verbs of a player's action and of the dealer's.
_VERBS_PLAYER = frozenset({"f", "cc", "cbr", "sm"})
_VERBS_DEALER = frozenset({"dh", "db"})
#: Player number by its word, ``p1`` to ``p10`` (others go through :func:`player_number`).
_PLAYER_OF = {f"p{i}": i for i in range(1, 11)}
#: Card by its two characters, as PHH writes them ("??" = unknown).
_CARD_OF: dict[str, Card | None] = {c.code: c for c in FULL_DECK} | {"??": None}
#: Two cards by their four characters (hole cards, shows), and a flop's first two.
_PAIR_OF: dict[str, tuple[Card | None, Card | None]] = {
    a + b: (card_a, card_b) for a, card_a in _CARD_OF.items() for b, card_b in _CARD_OF.items()}
_NOT_A_CARD = object()


def _parse_cards(text: str, where: str) -> tuple[Card | None, ...]:
    two = _PAIR_OF.get(text)
    if two is not None:  # hole cards, shows
        return two
    if len(text) == 6:  # a flop
        two = _PAIR_OF.get(text[:4])
        third = _CARD_OF.get(text[4:], _NOT_A_CARD)
        if two is not None and third is not _NOT_A_CARD:
            return (*two, cast("Card | None", third))
    if len(text) % 2:
        raise PhhError(where, f"not a list of cards: {text!r}")
    out: list[Card | None] = []
    for i in range(0, len(text), 2):
        pair = text[i : i + 2]
        if pair in _CARD_OF:
            out.append(_CARD_OF[pair])
            continue
        try:
            out.append(Card.parse(pair))
        except CardError as exc:
            raise PhhError(where, f"not a card: {pair!r} in {text!r}") from exc
    return tuple(out)


def player_number(word: str, count: int, where: str) -> int:
    """Return the number of player ``word`` (``"p3"`` -> 3) of a hand of ``count`` players.

    :raises PhhError: naming ``where`` if it is not one of ``p1..p<count>``.
    """
    if not 2 <= len(word) <= 4 or word[0] != "p" or not word[1:].isdigit():
        raise PhhError(where, f"{word!r} is not a player (p1..p{count})")
    number = int(word[1:])
    if not 1 <= number <= count:
        raise PhhError(where, f"{word!r} is not a player of this hand (p1..p{count})")
    return number


def parse_action(text: str, player_count: int, where: str = "actions") -> PhhAction | None:
    """Parse one action string; ``None`` for a no-op (empty or commentary only).

    >>> parse_action("p2 cbr 300", 3)
    PhhAction(actor=2, player=2, verb='cbr', cards=(), amount=300, muck=False, dash=False, \
text='p2 cbr 300')
    >>> parse_action("d db Jc3d5c", 3).cards
    (Card('Jc'), Card('3d'), Card('5c'))

    :raises PhhError: if the action is not valid PHH for no-limit hold'em (its field names
        ``where`` and the action).
    """
    parsed = _PARSED.get(player_count)
    if parsed is None:
        if len(_PARSED) >= 16:  # (2 to 10 players in a hand read from a file)
            _PARSED.clear()
        parsed = _PARSED[player_count] = {}
    hit = parsed.get(text, _MISS)
    if hit is not _MISS:
        return hit  # type: ignore[return-value]
    try:
        action = _parse_action(text, player_count)
    except PhhError as exc:  # name the action only when it is wrong (the common path is fast)
        clean = " ".join(text.split("#", 1)[0].split())
        raise PhhError(f"{where} {clean!r}", exc.message) from None
    if len(parsed) >= _PARSED_MAX:
        parsed.clear()
    parsed[text] = action
    return action


_PARSED: dict[int, dict[str, PhhAction | None]] = {}
"""Actions already parsed, by player count and text: :class:`PhhAction` is immutable, and real
hand histories repeat most of their actions (``p3 f``, ``p1 cc``, the same deals)."""
_PARSED_MAX = 200_000
_MISS = object()


def clear_action_cache() -> None:
    """Forget the actions and lines parsed so far (a benchmark's cold start; memory)."""
    _PARSED.clear()
    _LINES.clear()


def _parse_action(text: str, player_count: int) -> PhhAction | None:
    if len(text) == 12 and text[:6] == "d dh p" and text[7] == " ":  # "d dh p3 AhKd", the commonest
        hole = _PAIR_OF.get(text[8:])  # (four characters of cards: no space, no comment)
        to = _PLAYER_OF.get(text[5:7], 0)
        if hole is not None and 0 < to <= player_count:
            return PhhAction(0, to, "dh", hole, None, False, False, text)
    body = text.split("#", 1)[0] if "#" in text else text
    words = body.split()
    if not words:
        return None
    clean = " ".join(words)
    where = ""  # parse_action names the action in the error
    if words[0] == "d":
        if len(words) == 4 and words[1] == "dh":
            dealt = _PLAYER_OF.get(words[2], 0)
            if not 0 < dealt <= player_count:
                dealt = player_number(words[2], player_count, where)
            cards = _parse_cards(words[3], where)
            return PhhAction(0, dealt, "dh", cards, None, False, False, clean)
        if len(words) == 3 and words[1] == "db":
            cards = _parse_cards(words[2], where)
            if None in cards:
                raise PhhError(where, "board cards must be known")
            return PhhAction(0, 0, "db", cards, None, False, False, clean)
        raise PhhError(where, "dealer actions are 'd dh pN CARDS' and 'd db CARDS'")
    actor = _PLAYER_OF.get(words[0], 0)
    if not 0 < actor <= player_count:
        actor = player_number(words[0], player_count, where)
    verb = words[1] if len(words) > 1 else ""
    if verb not in _VERBS_PLAYER:
        if verb in _VERBS_DEALER:
            raise PhhError(where, "deals are written 'd dh pN CARDS' / 'd db CARDS'")
        raise PhhError(where, f"unknown or unsupported action {verb!r} (f, cc, cbr, sm)")
    args = words[2:]
    if verb in ("f", "cc"):
        if args:
            raise PhhError(where, f"'{verb}' takes no argument")
        return PhhAction(actor, actor, verb, (), None, False, False, clean)
    if verb == "cbr":
        if len(args) != 1:
            raise PhhError(where, "'cbr' takes one amount (the total bet)")
        word = args[0]
        # ASCII digits (15 at most: within MAX_CHIPS) read as whole_chips reads them
        amount = int(word) if len(word) <= 15 and word.isascii() and word.isdigit() \
            else whole_chips(word, where)
        if amount <= 0:
            raise PhhError(where, "the 'cbr' amount must be positive")
        return PhhAction(actor, actor, "cbr", (), amount, False, False, clean)
    if not args:
        return PhhAction(actor, actor, "sm", (), None, True, False, clean)
    if len(args) != 1:
        raise PhhError(where, "'sm' takes at most one argument (cards or '-')")
    if args[0] == "-":
        return PhhAction(actor, actor, "sm", (), None, False, True, clean)
    return PhhAction(actor, actor, "sm", _parse_cards(args[0], where), None, False, False, clean)


def _int_list(raw: Mapping[str, Any], name: str, count: int | None) -> tuple[int, ...]:
    value = raw.get(name)
    if not isinstance(value, list):
        raise PhhError(name, "missing or not an array")
    if count is not None and len(value) != count:
        raise PhhError(name, f"has {len(value)} entries, expected {count} (one per player)")
    if set(map(type, value)) <= _INT_TYPE and (  # the common case: plain integers already
            not value or (min(value) >= -MAX_CHIPS and max(value) <= MAX_CHIPS)):
        return tuple(value)
    return tuple(whole_chips(v, f"{name}[{i}]") for i, v in enumerate(value))


_INT_TYPE = frozenset({int})
_STR_TYPE = frozenset({str})


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
    if min(stacks) <= 0:  # (2 to 10 of them)
        raise PhhError("starting_stacks", "every starting stack must be positive")
    antes = _int_list(raw, "antes", count)
    blinds = _int_list(raw, "blinds_or_straddles", count)
    if min(antes) < 0 or min(blinds) < 0:
        raise PhhError("antes", "antes and blinds must not be negative")
    if "min_bet" not in raw:
        raise PhhError("min_bet", "missing")
    min_bet = whole_chips(raw["min_bet"], "min_bet")
    trimming = raw.get("ante_trimming_status", False)
    if not isinstance(trimming, bool):
        raise PhhError("ante_trimming_status", f"expected true or false, got {trimming!r}")
    actions_raw = raw.get("actions")
    if not isinstance(actions_raw, list) or not (
            set(map(type, actions_raw)) <= _STR_TYPE
            or all(isinstance(a, str) for a in actions_raw)):
        raise PhhError("actions", "missing or not an array of strings")
    # parse_action's cache asked first for every action at once (no "where", no Python loop)
    parsed = _PARSED.get(count)
    found: list[object] = (list(map(parsed.get, actions_raw, repeat(_MISS))) if parsed
                           else [_MISS] * len(actions_raw))
    if any(map(is_, found, repeat(_MISS))):
        for i, text in enumerate(actions_raw):  # in order: the first bad action is named
            if found[i] is _MISS:
                found[i] = parse_action(text, count, f"actions[{i}]")
    if any(map(is_, found, repeat(None))):  # no-ops (commentary only) are left out
        found = [a for a in found if a is not None]
    actions = cast("tuple[PhhAction, ...]", tuple(found))
    finishing: tuple[Number, ...] | None = None
    if "finishing_stacks" in raw:
        fin = raw["finishing_stacks"]
        if not isinstance(fin, list) or len(fin) != count:
            raise PhhError("finishing_stacks", f"expected an array of {count} numbers")
        finishing = tuple(fin) if set(map(type, fin)) <= _INT_TYPE and (
            min(fin) >= -MAX_CHIPS and max(fin) <= MAX_CHIPS) else tuple(
            parse_chips(v, f"finishing_stacks[{i}]", allow_fraction=True) for i, v in enumerate(fin)
        )
    players: tuple[str, ...] | None = None
    if "players" in raw:
        names = raw["players"]
        if not isinstance(names, list) or len(names) != count:
            raise PhhError("players", f"expected an array of {count} names")
        players = tuple(map(str, names))
    seats: tuple[int, ...] | None = None
    if "seats" in raw:
        seats = _int_list(raw, "seats", count)
    extra = {k: v for k, v in raw.items() if k not in KNOWN_FIELDS}
    # positional, in the order of HandHistory's fields (faster than keywords)
    return HandHistory(antes, blinds, min_bet, stacks, actions, "NT", trimming, finishing, players,
                       seats, extra)


def loads(text: str) -> HandHistory:
    """Read one hand from PHH text.

    The TOML subset PHH files are written in is read by :func:`.tomlsubset._fast_toml` (a
    quarter less time than ``tomllib`` on real hands); any other TOML by ``tomllib``. What the
    line reader (:func:`.tomlsubset._line_toml`) returns is bounded already; anything else is
    walked by :func:`.bounds._check_document`.

    Bounded: a text longer than :data:`.bounds.MAX_TEXT` characters, nested deeper than
    :data:`.bounds.MAX_DEPTH`, or with a chip amount beyond :data:`~.model.MAX_CHIPS` (an integer of
    thousands of digits, ``5e1000000``) is refused with :class:`PhhError` before it is
    expanded: every text is answered in time bounded by its (bounded) length.

    :raises PhhError: if the text is not TOML, or not a PHH hand we can play.
    """
    if len(text) > MAX_TEXT:
        raise PhhError("file", f"{len(text):,} characters (a hand has at most {MAX_TEXT:,})")
    try:
        raw = _line_toml(text)
        bounded = raw is not None  # the line reader keeps the bounds itself: no second walk
        if raw is None:
            raw = _token_toml(text)
            if raw is None:
                _check_nesting(text)
                raw = tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError as exc:
        raise PhhError("toml", str(exc)) from exc
    except RecursionError:
        raise PhhError("toml", f"nested deeper than {MAX_DEPTH}") from None
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise PhhError("toml", str(exc).splitlines()[0]) from None
    except ArithmeticError:  # a decimal whose exponent the decimal context cannot hold
        raise PhhError("toml", "a number out of range") from None
    if not bounded:
        _check_document(raw)
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
