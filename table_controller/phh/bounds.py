"""The bounds a PHH text is held to before anything in it is expanded.

Any text is answered with a hand or a :class:`~.model.PhhError` in bounded time: its length
(:data:`MAX_TEXT`, checked by :func:`.reader.loads`), its nesting (:func:`_check_nesting`,
before ``tomllib`` recurses into it) and its numbers (:func:`_check_document`, on what
``tomllib`` or the token reader of :mod:`.tomlsubset` returned) are bounded first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from table_controller.phh.model import MAX_CHIPS, PhhError

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
