"""Hostile input on every parser that takes outside input: only documented errors, one line each.

The regular run gives each parser a few thousand seeded inputs (``benchmarks/bench_fuzz.py``:
random bytes, mutated valid inputs, deep nesting, integers of thousands of digits, huge floats,
``NaN``, wrong types); the slow run gives each a million. Time per input is reported by the
benchmark, not asserted here (no wall-clock budgets in tests).
"""

from __future__ import annotations

import os

import pytest

from benchmarks.bench_fuzz import FUZZERS, PARSERS

#: Inputs per parser in the regular run (``RELIABILITY_FUZZ_EXAMPLES`` raises it).
EXAMPLES = int(os.environ.get("RELIABILITY_FUZZ_EXAMPLES", "3000"))


@pytest.mark.parametrize("parser", PARSERS)
def test_hostile_inputs_get_documented_answers(parser: str) -> None:
    res = FUZZERS[parser](EXAMPLES, 20240)
    assert res.n == EXAMPLES
    assert not res.undocumented, res.examples
    assert len(res.answered) >= 2, res.answered  # both accepted and refused inputs were made


@pytest.mark.slow
@pytest.mark.parametrize("parser", PARSERS)
def test_a_million_hostile_inputs(parser: str) -> None:
    res = FUZZERS[parser](1_000_000, 1)
    assert not res.undocumented, res.examples
