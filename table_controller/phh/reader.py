"""Reading PHH: parse one action, a file's TOML into a :class:`~.model.HandHistory`, find files.

See the package documentation for the rules (which fields, which shapes are refused). Any
text is answered with a hand or a :class:`PhhError` in bounded time (:func:`loads`: the text's
length, nesting and numbers are bounded before anything is expanded).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from decimal import Decimal
from itertools import repeat
from operator import is_
from pathlib import Path
from typing import Any, cast

from table_controller.engine.cards import FULL_DECK, Card, CardError
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


#: One token of the TOML subset PHH files use (see :func:`_fast_toml`).
_TOKEN = re.compile(
    r'[ \t]*(?:(?P<str>"[^"\\\x00-\x1f\x7f]*"|\'[^\'\x00-\x08\x0a-\x1f\x7f]*\')'
    r'|(?P<float>-?(?:0|[1-9][0-9]*)\.[0-9]+)(?![\w.:-])|(?P<int>-?(?:0|[1-9][0-9]*))(?![\w.:-])'
    r'|(?P<bool>true|false)(?!\w)|(?P<punct>[\[\],])|(?P<comment>#[^\n\x00-\x08\x0a-\x1f\x7f]*)'
    r'|(?P<nl>\r?\n)|(?P<end>\Z))')
_KEY = re.compile(r"[ \t]*([A-Za-z0-9_-]+)[ \t]*=")


_STR = r"'[^'\x00-\x08\x0a-\x1f\x7f]*'" + r'|"[^"\\\x00-\x1f\x7f]*"'
_INT = r"-?(?:0|[1-9][0-9]*)"  # ASCII digits only (``\d`` would take any script's)
_STR_ONLY = re.compile(_STR)
_INTS = rf"\[[ \t]*(?:{_INT}[ \t]*,[ \t]*)*(?:{_INT}[ \t]*,?[ \t]*)?\]"
_STRS = rf"\[[ \t]*(?:(?:{_STR})[ \t]*,[ \t]*)*(?:(?:{_STR})[ \t]*,?[ \t]*)?\]"
#: One line of :func:`_line_toml`: spaces, the key, ``=``, one value (its group tells its kind:
#: an array of integers, one of strings, a string, an integer, a boolean, a decimal), spaces.
_ONE_LINE = re.compile(rf"[ \t]*([A-Za-z0-9_-]+)[ \t]*=[ \t]*(?:({_INTS})|({_STRS})|({_STR})"
                       rf"|({_INT})|(true|false)|({_INT}\.[0-9]+))[ \t]*")
_K_INTS, _K_STRS, _K_STR, _K_INT, _K_BOOL, _K_DECIMAL = range(2, 8)
_BAD_IN_COMMENT = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_BAD_IN_LITERAL = _BAD_IN_COMMENT  # what a literal string cannot hold is what a comment cannot
_KEY_ONLY = re.compile(r"[A-Za-z0-9_-]+")


def _line_toml(text: str) -> dict[str, Any] | None:
    """Read PHH written one ``key = value`` a line (arrays on one line); ``None`` otherwise.

    The common shape of PHH files (every stored corpus hand but a few): whole lines of a key
    and an integer, a decimal, a boolean, a string without escapes, or an array of integers or
    of such strings, on one line, without a comment after the value; comment lines and blank
    lines between. Anything else returns ``None`` (the caller reads the text token by token).
    Each line is one match of :data:`_ONE_LINE` (the key, then which kind of value it is).

    What it returns is within the bounds :func:`_check_document` keeps (one level of arrays,
    integers within ``MAX_CHIPS``, decimal exponents within 30): a value beyond them returns
    ``None`` too, and the caller's slower path reports it.

    >>> _line_toml("a = [1, 2]" + chr(10) + "b = ['p1 f', 'p2 cc']")
    {'a': [1, 2], 'b': ['p1 f', 'p2 cc']}
    >>> _line_toml("a = [1, 'x']") is None, _line_toml("a = 9007199254740992") is None
    (True, True)
    """
    out: dict[str, Any] = {}
    lines, read_line = _LINES, _read_line
    crlf = "\r" in text  # the CR of a CRLF line end is dropped (any other: not this reader)
    for line in text.split("\n"):
        if crlf and line[-1:] == "\r":
            line = line[:-1]
        entry = lines.get(line)
        if entry is None:
            entry = read_line(line)
            if len(line) <= _LINE_CACHED_LENGTH:
                if len(lines) >= _LINES_MAX:
                    lines.clear()
                lines[line] = entry
        if entry is _SKIP:
            continue
        if entry is _NOT_THIS:
            return None
        key, value = cast("tuple[str, Any]", entry)
        if key in out:
            return None
        out[key] = list(value) if type(value) is tuple else value
    return out


_SKIP, _NOT_THIS = object(), object()
"""A line :func:`_line_toml` passes over (blank, a comment), one it does not read."""
_LINES: dict[str, object] = {}
"""Lines read so far (:func:`_read_line` is a function of the line alone, and its values are
immutable): hand histories repeat most of their header lines (variant, stakes, stacks)."""
_LINES_MAX = 20_000
_LINE_CACHED_LENGTH = 200
"""Longer lines (the actions, mostly: one of a kind) are read each time, not kept."""


def _read_line(line: str) -> object:
    """Read one line for :func:`_line_toml`: ``(key, value)``, ``_SKIP`` or ``_NOT_THIS``.

    Arrays come back as tuples (the caller makes them lists, as ``tomllib`` has them).

    :raises ValueError: an integer of more than 4,300 digits (as ``int`` does).
    """
    if line[-2:] == "']":  # an array of literal strings written "['a', 'b']": split, no pattern
        key, eq, body = line.partition(" = ['")
        if eq and _KEY_ONLY.fullmatch(key):
            inner = body[:-2]
            items = inner.split("', '")
            # no other quote (the items are whole strings) and nothing a literal string refuses
            if inner.count("'") == 2 * len(items) - 2 and not _BAD_IN_LITERAL.search(inner):
                return key, tuple(items)
    m = _ONE_LINE.fullmatch(line)
    if m is None:  # a blank line, a comment line, or not this reader's
        line = line.strip(" \t")
        if not line or (line[0] == "#" and not _BAD_IN_COMMENT.search(line)):
            return _SKIP
        return _NOT_THIS
    kind = cast(int, m.lastindex)  # the value's group (one always takes part in a match)
    value = m.group(kind)
    if kind == _K_INTS:
        inner = value[1:-1].rstrip(" \t")
        if inner[-1:] == ",":  # a trailing comma
            inner = inner[:-1]
        # int() takes the spaces around each item; the pattern allowed nothing else
        ints = tuple(map(int, inner.split(","))) if inner.strip(" \t") else ()
        if ints and (min(ints) < -MAX_CHIPS or max(ints) > MAX_CHIPS):
            return _NOT_THIS
        return m.group(1), ints
    if kind == _K_STRS:
        # no quote inside a string of the other kind: the items sit between the quotes
        if '"' not in value:
            return m.group(1), tuple(value.split("'")[1::2])
        if "'" not in value:
            return m.group(1), tuple(value.split('"')[1::2])
        return m.group(1), tuple(s[1:-1] for s in _STR_ONLY.findall(value))
    if kind == _K_STR:
        return m.group(1), value[1:-1]
    if kind == _K_INT:
        number = int(value)
        if not -MAX_CHIPS <= number <= MAX_CHIPS:
            return _NOT_THIS
        return m.group(1), number
    if kind == _K_BOOL:
        return m.group(1), value == "true"
    decimal = Decimal(value)  # _K_DECIMAL
    if decimal and not -30 <= decimal.adjusted() <= 30:
        return _NOT_THIS
    return m.group(1), decimal


def _fast_toml(text: str) -> dict[str, Any] | None:
    """Read the TOML subset PHH files are written in; ``None`` for anything else.

    Files written one value a line go through :func:`_line_toml` (about four times faster);
    the others are read token by token here.

    Top-level ``key = value`` lines whose values are integers, decimals (as :class:`Decimal`,
    like ``tomllib`` with ``parse_float=Decimal``), booleans, basic strings without escapes,
    literal (single-quoted) strings and arrays of those (across lines, with comments).
    Anything else (tables, dates, escapes, exponents, duplicate keys, a syntax error) returns
    ``None``: the caller then uses ``tomllib``, which also reports the errors.

    >>> _fast_toml('a = 1; b = [true, "x", 2.50,]  # c'.replace("; ", chr(10)))
    {'a': 1, 'b': [True, 'x', Decimal('2.50')]}
    >>> _fast_toml('t = 21:05:07') is None, _fast_toml('a = [1 2]') is None
    (True, True)
    """
    lines = _line_toml(text)
    return lines if lines is not None else _token_toml(text)


def _token_toml(text: str) -> dict[str, Any] | None:
    """Read the TOML subset of :func:`_fast_toml` token by token; ``None`` for anything else."""
    out: dict[str, Any] = {}
    pos = 0
    key_match, token = _KEY.match, _TOKEN.match
    while True:
        m = token(text, pos)
        if m is not None and m.lastgroup in ("nl", "comment"):
            pos = m.end()
            continue
        if m is not None and m.lastgroup == "end":
            return out
        k = key_match(text, pos)
        if k is None or k.group(1) in out:
            return None
        pos = k.end()
        stack: list[list[Any]] = []
        want_value = True  # inside an array: a value (or "]") may come next, not a comma
        while True:
            m = token(text, pos)
            if m is None:
                return None
            pos = m.end()
            kind = m.lastgroup
            if kind in ("nl", "comment"):
                if not stack:
                    return None
                continue
            if kind == "end":
                return None
            if kind == "punct":
                p = text[pos - 1]
                if p == "[":
                    if not want_value or len(stack) >= MAX_DEPTH:
                        return None  # too deep: the nesting check refuses it at once
                    stack.append([])
                    continue
                if not stack:
                    return None
                if p == ",":
                    if want_value:
                        return None
                    want_value = True
                    continue
                value: Any = stack.pop()  # "]" (after a value, a trailing comma, or "[")
                if not stack:
                    break
                stack[-1].append(value)
                want_value = False
                continue
            if not want_value:
                return None
            raw = m.group(kind or 0)
            if kind == "str":
                value = raw[1:-1]
            elif kind == "int":
                value = int(raw)
            elif kind == "float":
                value = Decimal(raw)
            else:
                value = raw == "true"
            if not stack:
                break
            stack[-1].append(value)
            want_value = False
        out[k.group(1)] = value
        m = token(text, pos)  # the rest of the line: a comment, then the newline or the end
        if m is not None and m.lastgroup == "comment":
            pos = m.end()
            m = token(text, pos)
        if m is None or m.lastgroup not in ("nl", "end"):
            return None
        pos = m.end()


#: Longest PHH text read, in characters (a hand is about a kilobyte; a long one with
#: commentary a few).
MAX_TEXT = 65_536
#: Deepest nesting of arrays and tables in a hand (PHH writes one level; ``_posts`` two).
MAX_DEPTH = 8


def _check_document(raw: Mapping[str, Any]) -> None:
    """Refuse nesting deeper than :data:`MAX_DEPTH`, integers beyond ``MAX_CHIPS``, exponents.

    A decimal's exponent must be within 30 of the point (``1e400`` is refused as it is, never
    expanded). Without recursion, on every field (the unknown ones are kept and written back).
    """
    stack: list[tuple[str, Any, int]] = [(k, v, 1) for k, v in raw.items()]
    while stack:
        key, value, depth = stack.pop()
        if isinstance(value, Mapping | list):
            if depth >= MAX_DEPTH:
                raise PhhError(key, f"nested deeper than {MAX_DEPTH}")
            items = value.values() if isinstance(value, Mapping) else value
            stack.extend((key, v, depth + 1) for v in items)
        elif type(value) is int and not -MAX_CHIPS <= value <= MAX_CHIPS:
            raise PhhError(key, "integer out of range (|n| <= 2**53 - 1)")
        elif (isinstance(value, Decimal) and value.is_finite() and value
              and not -30 <= value.adjusted() <= 30):
            raise PhhError(key, f"number out of range ({value:.3E})")


#: What is not a bracket's nesting: strings (multi-line first), comments.
_NOT_NESTING = re.compile(r'"""[\s\S]*?"""' r"|'''[\s\S]*?'''" r'|"(?:[^"\\\n]|\\.)*"'
                          r"|'[^'\n]*'" r"|#[^\n]*")
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_INNERMOST = re.compile(r"\[\]|\{\}")


def _check_nesting(text: str) -> None:
    """Refuse a text nested deeper than :data:`MAX_DEPTH` before ``tomllib`` recurses into it.

    Its brackets outside strings and comments are taken, innermost pairs first, one level a
    pass (a table header ``[[a]]`` counts two): more than ``MAX_DEPTH + 2`` passes, or more
    openers than that never closed, is too deep. A few passes of regular expressions, whatever
    the text; other unbalanced brackets are left to ``tomllib`` to report.
    """
    brackets = _NOT_BRACKET.sub("", _NOT_NESTING.sub("", text))
    for _ in range(MAX_DEPTH + 2):
        brackets, n = _INNERMOST.subn("", brackets)
        if not n:
            break
    # pairs left after that many passes, or more openers never closed than that: too deep
    if _INNERMOST.search(brackets) or \
            brackets.count("[") + brackets.count("{") > MAX_DEPTH + 2:
        raise PhhError("toml", f"nested deeper than {MAX_DEPTH}")


def loads(text: str) -> HandHistory:
    """Read one hand from PHH text.

    The TOML subset PHH files are written in is read by :func:`_fast_toml` (a quarter less
    time than ``tomllib`` on real hands); any other TOML by ``tomllib``. What the line reader
    (:func:`_line_toml`) returns is bounded already; anything else is walked by
    :func:`_check_document`.

    Bounded: a text longer than :data:`MAX_TEXT` characters, nested deeper than
    :data:`MAX_DEPTH`, or with a chip amount beyond :data:`~.model.MAX_CHIPS` (an integer of
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


