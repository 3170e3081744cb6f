"""Reading the TOML subset PHH files are written in, fast; ``None`` for anything else.

:func:`_fast_toml` reads files written one value a line with :func:`_line_toml` (each line
read once and kept: :data:`_LINES`), the others token by token (:func:`_token_toml`).
Anything outside the subset returns ``None``, and :func:`.reader.loads` then uses
``tomllib``, which also reports the errors. What the line reader returns is within the bounds
of :mod:`.bounds` already.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any, cast

from table_controller.phh.bounds import MAX_DEPTH
from table_controller.phh.model import MAX_CHIPS

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

    What it returns is within the bounds :func:`.bounds._check_document` keeps (one level of
    arrays, integers within ``MAX_CHIPS``, decimal exponents within 30): a value beyond them
    returns ``None`` too, and the caller's slower path reports it.

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
