"""PHH reading's TOML: the fast readers of the subset PHH files use, and the bounds on a text."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from benchmarks.bench_engine import random_spec
from table_controller.engine import Hand
from table_controller.phh import (
    PhhError,
    dumps,
    history_from_hand,
    loads,
    parse_action,
)
from tests.test_phh import DATA
from tests.test_phh_writer import _play_config


@pytest.mark.parametrize("text", [
    'a = 1\nb = -2\nc = 0.50\nd = [true, false]\n', "s = 'lit' # c\n", 'e = []\nf = [[1], [2,],]\n',
    'a = [\n  # x\n  "p1 f",  # y\n\n  "p2 cc",\n]\n', 'x = "tab\there"\n', 'x = "esc\\"q"\n',
    't = 21:05:07\n', 'd = 2026-12-01\n', '[table]\na = 1\n', 'a.b = 1\n', 'a = 1_000\n',
    'a = 1e3\n', 'a = inf\n', 'a = +1\n', 'a = 01\n', 'a = [1 2]\n', 'a = [,]\n', 'a = 1\na = 2\n',
    'a = \n', 'a = [1\n', 'a = 1 b = 2\n', 'a = "x"y\n', '"q" = 1\n', 'a = 1\r\nb = 2\r\n',
    # one value a line (the line reader): strings of both kinds, mixed arrays, odd spacing
    "a = ['p1 f', \"p2 cc\"]\n", "a = [1, 'x']\n", "a=1\n  b = [ ]\n", "a = [1,]\nb = [-0]\n",
    "a = ['x'] # c\n", "# c\n\na = 'it''s'\n", "a = 'x\\y'\n", 'a = "x\\y"\n', "a = [1,\n2]\n",
    "a = 0.5\nb = -1.25\nc = true\n", "a = [0.5]\n", "a = 1\rb = 2\n",
    # digits of other scripts are not TOML; values beyond the bounds leave the line reader
    "a = 1\u0661\n", "a = [1\u0661]\n", "a = 1.\u0661\n", "a = [ 1 , -2 ,]\n",
    "a = 9007199254740992\n", "a = [1, -9007199254740992]\n", "a = [9007199254740991]\n",
    "a = 0.00000000000000000000000000000000001\n", "a = ['x\"y', 'z']\n", "a = [\"x'y\"]\n",
    # arrays of literal strings as PHH writes them (split at the separators, no pattern)
    "a = ['x', 'y']\n", "a = ['x''y']\n", "a = ['x',  'y']\n", "a = ['x', 'y''z']\n",
    "a = ['']\n", "a = ['', '']\n", "a = [', ']\n", "a = [" + "'" * 3 + "]\n",
    "a = ['x', \"y']\n", "a = ['x\x01']\n", "a = ['x\ty']\n", "a b = ['x']\n",
    "a  = ['x']\n", "= ['x']\n", "b = 1\r\na = ['x']\r\n",
])
def test_the_fast_toml_reader_agrees_with_tomllib_or_steps_aside(text: str) -> None:
    """The PHH TOML subset reads exactly as ``tomllib``; anything else falls back to it.

    What the line reader returns is within the bounds (``loads`` walks only the others).
    """
    import tomllib
    from decimal import Decimal

    from table_controller.phh.reader import _check_document, _fast_toml, _line_toml

    fast = _fast_toml(text)
    try:
        slow: object = tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError:
        slow = None
    assert fast is None or fast == slow
    lines = _line_toml(text)
    assert lines is None or lines == slow
    if lines is not None:
        _check_document(lines)


def test_the_line_reader_reads_a_line_it_has_met_before_the_same() -> None:
    """Lines are kept once read (their values are immutable): a repeated line reads the same,
    and each reading gets its own arrays."""
    from table_controller.phh.reader import _line_toml, clear_action_cache

    clear_action_cache()
    text = "a = [1, 2]\nb = ['p1 f', 'p2 cc']\nc = 'x'\nd = 2.50\ne = true\n# c\n"
    first = _line_toml(text)
    assert first is not None
    first["a"].append(3)
    first["b"].append("p3 f")
    second = _line_toml(text)
    assert second == {"a": [1, 2], "b": ["p1 f", "p2 cc"], "c": "x", "d": Decimal("2.50"),
                      "e": True}
    assert type(second["a"]) is list and type(second["b"]) is list
    assert _line_toml(text + "a = 1\n") is None  # a key twice, even from lines met before
    assert _line_toml(text) == second


def test_the_fast_toml_reader_reads_every_written_and_stored_hand() -> None:
    import tomllib
    from decimal import Decimal

    from table_controller.phh.reader import _fast_toml

    texts = [p.read_text(encoding="utf-8") for p in sorted(DATA.glob("*.phh"))]
    rng = random.Random(8)
    for _ in range(60):
        spec = random_spec(rng)
        texts.append(dumps(history_from_hand(_play_config(Hand(spec.config()), spec),
                                             players={s: f"n'{s}" for s in spec.seats})))
    for text in texts:
        fast = _fast_toml(text)
        assert fast is not None and fast == tomllib.loads(text, parse_float=Decimal)


_BOUNDED_BASE = """\
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 100, 100]
actions = ["d dh p1 AsAd", "d dh p2 ????", "d dh p3 KcKd", "p3 f", "p1 cc", "p2 f"]
"""


@pytest.mark.parametrize(("field", "value", "message"), [
    ("antes", "[5e1000000, 500, 500]", "out of range"),  # refused as written, not expanded
    ("antes", "[" + "9" * 4000 + ", 1, 1]", "out of range"),
    ("min_bet", "1" * 5000, "toml"),  # past the 4,300 digits an int converts
    ("min_bet", "1e400", "out of range"),
    ("starting_stacks", f"[{2**63}, 100, 100]", "out of range"),
    ("year", "5e1000000", "out of range"),  # an unknown field is bounded too
    ("year", "[" * 40 + "1" + "]" * 40, "nested deeper than 8"),
    ("year", "[" * 3000 + "]" * 3000, "nested deeper than 8"),
    ("event", "{a=" * 2000 + "1" + "}" * 2000, "nested deeper than 8"),
    ("year", "[ " * 3000, "nested deeper than 8"),  # never closed: refused before tomllib
    ("actions", '["p1 cbr 1e999999"]', "out of range"),
    ("actions", '["p1 cbr ' + "7" * 5000 + '"]', "not a number"),
])
def test_numbers_and_nesting_are_bounded_with_a_phh_error(field: str, value: str,
                                                           message: str) -> None:
    lines = [ln for ln in _BOUNDED_BASE.splitlines() if not ln.startswith(f"{field} =")]
    with pytest.raises(PhhError, match=message):
        loads("\n".join([*lines, f"{field} = {value}"]))


def test_brackets_in_strings_and_comments_are_not_nesting() -> None:
    """The quick nesting check before ``tomllib`` looks at brackets outside strings only."""
    from table_controller.phh.reader import _check_nesting

    deep = "[" * 30
    text = (_BOUNDED_BASE + f'event = "{deep}"\n' + f"venue = '{deep}'\n"
            + f'city = """\n{deep}\n"""\n' + f"# {deep}\n" + "year = [[1, [2]], [3]]\n")
    _check_nesting(text)  # what tomllib would be given
    assert loads(text).player_count == 3


def test_the_token_reader_leaves_a_deep_array_to_the_nesting_check() -> None:
    """A deep array the token reader could read is not built: refused by the bracket count."""
    from table_controller.phh.reader import MAX_DEPTH, _token_toml

    deep = "[" * 3000 + "]" * 3000
    text = _BOUNDED_BASE.replace('"p2 f"]', f'"p2 f", {deep}]')
    assert _token_toml(text) is None
    assert _token_toml("a = " + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "\n") is not None
    with pytest.raises(PhhError, match="toml: nested deeper than 8"):
        loads(text)


def test_a_text_longer_than_a_hand_is_refused_unread() -> None:
    from table_controller.phh.reader import MAX_TEXT

    huge = _BOUNDED_BASE + "# " + "x" * MAX_TEXT
    with pytest.raises(PhhError, match="characters"):
        loads(huge)
    assert loads(_BOUNDED_BASE).player_count == 3


def test_a_player_of_thousands_of_digits_and_a_huge_exponent_are_phh_errors() -> None:
    with pytest.raises(PhhError, match="is not a player"):
        parse_action("p" + "1" * 5000 + " f", 3)
    with pytest.raises(PhhError, match="toml"):
        loads(_BOUNDED_BASE + "year = 1e9999999999999999999\n")
