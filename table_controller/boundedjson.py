"""Bounded JSON decoding for input from outside (feeds, snapshot requests, commands).

Rules this module keeps:

1. :func:`loads` answers every input in time linear in its size, with a value or a
   :class:`JsonLimitError` (a :class:`~table_controller.errors.TableError`) whose message is one
   line. Nothing else escapes: not ``RecursionError``, ``OverflowError`` or a bare ``ValueError``.
2. Limits (keyword arguments, defaults below): at most ``max_bytes`` bytes; containers nested at
   most ``max_depth`` deep (a bare scalar is depth 0, ``{}`` depth 1); integers written with at
   most :data:`MAX_INT_DIGITS` digits and with ``|n| <= MAX_SAFE_INT`` (2**53 - 1, the integers
   every JSON peer reads exactly); floats finite; no ``NaN`` / ``Infinity`` literals.
3. The depth is checked without recursion: a count of the brackets first (most messages have
   fewer brackets than the limit and skip the walk), else an iterative walk of the decoded value.
   The C scanner of :mod:`json` nests by recursion and stops with ``RecursionError`` near the
   interpreter's limit, which is reported as too deep.

This module imports only :mod:`table_controller.errors` (a leaf: any layer may use it).
"""

from __future__ import annotations

import json
import math
from typing import Any

from table_controller.errors import TableError

#: Largest integer magnitude accepted (2**53 - 1).
MAX_SAFE_INT = 2**53 - 1
#: Most digits an integer literal may have (16 holds every ``|n| <= MAX_SAFE_INT``).
MAX_INT_DIGITS = 16
#: Default deepest nesting of arrays and objects.
MAX_DEPTH = 32
#: Default largest input, in bytes.
MAX_BYTES = 64 * 1024


class JsonLimitError(TableError):
    """Input that is not JSON, or is JSON beyond the limits (size, depth, number range)."""


def _parse_int(text: str) -> int:
    digits = len(text) - (text[0] == "-")
    if digits > MAX_INT_DIGITS:
        raise JsonLimitError(f"integer with {digits} digits (at most {MAX_INT_DIGITS})")
    n = int(text)
    if abs(n) > MAX_SAFE_INT:
        raise JsonLimitError(f"integer {n} out of range (|n| <= 2**53 - 1)")
    return n


def _parse_float(text: str) -> float:
    x = float(text)
    if not math.isfinite(x):
        raise JsonLimitError(f"number {text[:32]!r} is not a finite float")
    return x


def _parse_constant(text: str) -> float:
    raise JsonLimitError(f"{text} is not allowed")


_DECODER = json.JSONDecoder(
    parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant
)


def depth(value: Any) -> int:
    """Return how deeply ``value``'s lists and dicts nest, without recursion.

    >>> depth(1), depth([]), depth({"a": [1, {"b": []}]})
    (0, 1, 4)
    """
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            children: Any = v.values()
        elif isinstance(v, list | tuple):
            children = v
        else:
            continue
        d += 1
        deepest = max(deepest, d)
        stack.extend((c, d) for c in children)
    return deepest


def loads(
    raw: bytes | str, *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH
) -> Any:
    """Decode ``raw`` (UTF-8 JSON) within the limits of the module rules.

    >>> loads(b'{"seq": 4, "data": [1.5, "x"]}')
    {'seq': 4, 'data': [1.5, 'x']}
    >>> loads(b'[' * 40 + b']' * 40)
    Traceback (most recent call last):
    ...
    table_controller.boundedjson.JsonLimitError: nested deeper than 32

    :raises JsonLimitError: naming the first limit broken, or why the input is not JSON.
    """
    if len(raw) > max_bytes:
        raise JsonLimitError(f"{len(raw)} bytes (at most {max_bytes})")
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JsonLimitError(f"not UTF-8: {exc}") from None
    else:
        text = raw
    try:
        value = _DECODER.decode(text)
    except JsonLimitError:
        raise
    except RecursionError:
        raise JsonLimitError(f"nested deeper than {max_depth}") from None
    except ValueError as exc:  # json.JSONDecodeError and int() limits
        raise JsonLimitError(f"not JSON: {exc}") from None
    if text.count("[") + text.count("{") > max_depth and depth(value) > max_depth:
        raise JsonLimitError(f"nested deeper than {max_depth}")
    return value
