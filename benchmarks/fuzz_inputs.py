"""The fuzz benchmark's hostile inputs: seeded sources of inputs around a valid one, per parser.

Random bytes, valid inputs mutated (bit flips, cuts, insertions, repeats: :func:`_mutate`) and
crafted ones (deep nesting, integers of thousands of digits, huge floats and exponents,
``NaN``, wrong types, huge lists), for the JSON parsers (:func:`json_inputs`), the
configuration loader (:func:`toml_inputs`) and the PHH reader (:func:`phh_inputs`). Used by
:mod:`benchmarks.bench_fuzz`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from table_controller.feeds import Message

_VALID_MESSAGE = Message("table_state", 7, "T1", 1.7e9, {
    "hand": 3, "seats": {"1": {"player": "ann", "stack": 1000, "bet": 20}},
    "board": ["Ah", "Kd", "2c"], "hole_cards": {"1": ["??", "??"]}, "pots": [{"amount": 40}],
}).encode()
_VALID_REQUEST = Message("snapshot_request", 0, "T1", 1.7e9,
                         {"feed": "public", "request": 4}).encode()
_VALID_COMMAND = Message("command", 5, "T1", 1.7e9, {"command": "raise", "seat": 3, "to": 400},
                         "console-1").encode()
_VALID_CONFIG = """\
[table]
id = "T1"
seats = 6
[stakes]
small_blind = 5
big_blind = 10
[rake]
percent = 5.0
cap = 3
[devices]
shoe = "sim://shoe"
chips = "sim://chips"
camera = "sim://camera"
[endpoints]
public = "tcp://127.0.0.1:5550"
dealer = "tcp://127.0.0.1:5551"
surveillance = "tcp://127.0.0.1:5552"
snapshot = "tcp://127.0.0.1:5553"
surveillance_snapshot = "tcp://127.0.0.1:5554"
commands = "tcp://127.0.0.1:5555"
[keys]
security = "none"
[journal]
path = "journal.sqlite"
phh_dir = "phh"
[timing]
heartbeat_interval = 1.0
"""

_HOSTILE_VALUES: tuple[str, ...] = (
    "1" * 5000, "-" + "9" * 400, str(2**63), str(2**53), "1e400", "-1e309", "NaN", "Infinity",
    "1" + "0" * 30 + ".5", "true", "null", '""', '"' + "x" * 3000 + '"', "[]", "{}",
    "[" * 50 + "]" * 50, "0.1e-400",
)
_TOML_HOSTILE: tuple[str, ...] = (
    "1" * 5000, "1" + "0" * 400, "inf", "nan", "-inf", "1e400", "9223372036854775808",
    "[" * 3000 + "]" * 3000, "{a=" * 2000 + "1" + "}" * 2000, '"' + "x" * 1000 + '"',
    "[1, [2, [3, [4]]]]", "true", "0x7fffffffffffffffffff", "1979-05-27T07:32:00Z",
)

_VALID_PHH = """\
# a hand as PHH files write it
variant = "NT"
ante_trimming_status = true
antes = [500, 500, 500]
blinds_or_straddles = [1000, 2000, 0]
min_bet = 2000
starting_stacks = [1125600, 2000000, 553500]
actions = [
  "d dh p1 Ac2d",  # Ivey
  "d dh p2 ????",
  "d dh p3 7h6h",
  "p3 cbr 7000",
  "p1 cbr 23000",
  "p2 f",
  "p3 cc",
  "d db Jc3d5c",
  "p1 cbr 35000",
  "p3 cc",
]
finishing_stacks = [1102600, 1998000, 530500]
year = 2009
players = ["Phil Ivey", "Patrik Antonius", "Tom Dwan"]
"""
_PHH_HOSTILE: tuple[str, ...] = (
    "5e1000000", "[5e1000000, 500, 500]", "1e400", "-1e400", "1" * 5000, "1" * 4200,
    "9" * 40, "[" + "9" * 4000 + ", 1, 1]", "1e-1000000", "inf", "nan", "-inf", "[inf, 1, 1]",
    "1.5e308", "0.5", "[0.5, 1, 1]", "[" * 3000 + "]" * 3000, "[" * 40 + "1" + "]" * 40,
    "{a=" * 2000 + "1" + "}" * 2000, "[1, [2, [3, [4]]]]", '"' + "x" * 3000 + '"',
    "[" + ", ".join(["1"] * 30000) + "]", "[" + ", ".join(['"p1 f"'] * 20000) + "]",
    "[" + ", ".join(['"p1 cbr ' + "9" * 30 + '"'] * 3) + "]", '["p1 cbr 1e999999"]',
    '["p1 cbr ' + "7" * 5000 + '"]', "true", "0x7fffffffffffffffffff", "1979-05-27T07:32:00Z",
    "[" + ", ".join([str(2**63)] * 3) + "]", "[-1, -1, -1]",
)


def phh_inputs(rng: random.Random) -> Callable[[], str]:
    """A source of hostile PHH texts around a valid hand."""
    lines = _VALID_PHH.splitlines()

    def one() -> str:
        r = rng.random()
        if r < 0.05:
            return rng.randbytes(rng.randint(0, 300)).decode("latin-1")
        if r < 0.1:
            return _VALID_PHH * rng.choice([2, 50, 2000])  # duplicate keys, a huge file
        text = list(lines)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(text))
            if "=" in text[i] and rng.random() < 0.7:
                k = text[i].split("=")[0]
                text[i] = f"{k}= {rng.choice(_PHH_HOSTILE)}"
            elif text[i].startswith('  "') and rng.random() < 0.5:
                text[i] = f"  {rng.choice(_PHH_HOSTILE)},"
            else:
                text[i] = _mutate(rng, text[i].encode()).decode("utf-8", "replace")
        return "\n".join(text)

    return one


def _mutate(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(5)
        if not b:
            b.extend(rng.randbytes(rng.randint(1, 8)))
            continue
        i = rng.randrange(len(b))
        if op == 0:
            b[i] ^= 1 << rng.randrange(8)
        elif op == 1:
            del b[i:i + rng.randint(1, 16)]
        elif op == 2:
            b[i:i] = rng.randbytes(rng.randint(1, 8))
        elif op == 3:
            j = rng.randrange(len(b))
            b[i:i] = b[min(i, j):max(i, j)][:256] * rng.randint(1, 4)
        else:
            b[i:i] = rng.choice(_HOSTILE_VALUES).encode()
    return bytes(b)

def _crafted_json(rng: random.Random, valid: bytes) -> bytes:
    obj = json.loads(valid)
    key = rng.choice([*obj, "data", "extra"])
    kind = rng.randrange(4)
    if kind == 0:  # a hostile literal in a field (raw text: json.dumps cannot write it)
        text = json.dumps({**obj, key: "@@"})
        return text.replace('"@@"', rng.choice(_HOSTILE_VALUES)).encode()
    if kind == 1:  # deep nesting
        depth = rng.choice([33, 100, 999, 1000, 1001, 5000, 100_000])
        opener, closer = rng.choice([("[", "]"), ('{"a":', "}")])
        inner = opener * depth + "1" + closer * depth
        text = json.dumps({**obj, key: "@@"})
        return text.replace('"@@"', inner).encode()
    if kind == 2:  # wrong types everywhere
        bad = rng.choice([None, True, -1, 1.5, "x", [], {}, [1, 2], {"a": 1}])
        return json.dumps({**obj, key: bad}).encode()
    return json.dumps({**obj, "data": {**obj.get("data", {}),
                                       rng.choice(["seat", "to", "amount", "feed", "request",
                                                   "command"]): rng.choice(
                                           [0, -5, 2**53 - 1, "", "x" * 600, None, [1], 10.5])}}
                      ).encode()

def json_inputs(rng: random.Random, valid: bytes) -> Callable[[], bytes]:
    """A source of hostile JSON-ish inputs around ``valid``."""

    def one() -> bytes:
        r = rng.random()
        if r < 0.15:
            return rng.randbytes(rng.randint(0, 300))
        if r < 0.55:
            return _mutate(rng, valid)
        return _crafted_json(rng, valid)

    return one

def toml_inputs(rng: random.Random) -> Callable[[], str]:
    """A source of hostile configurations around a valid one."""
    lines = _VALID_CONFIG.splitlines()

    def one() -> str:
        r = rng.random()
        if r < 0.1:
            return rng.randbytes(rng.randint(0, 200)).decode("latin-1")
        cfg = list(lines)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(cfg))
            if "=" in cfg[i] and rng.random() < 0.7:
                k = cfg[i].split("=")[0]
                cfg[i] = f"{k}= {rng.choice(_TOML_HOSTILE)}"
            else:
                cfg[i] = _mutate(rng, cfg[i].encode()).decode("utf-8", "replace")
        return "\n".join(cfg)

    return one
