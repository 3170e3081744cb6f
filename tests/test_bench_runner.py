"""``python -m benchmarks NAME``: the names choose benchmarks, not a benchmark's own options."""

from __future__ import annotations

import argparse
import sys

import pytest

import benchmarks.bench_fuzz
from benchmarks.__main__ import run


def test_a_named_benchmark_runs_with_its_defaults(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[argparse.Namespace] = []

    def main(argv: list[str] | None = None) -> None:  # parses sys.argv, as bench_fuzz does
        ap = argparse.ArgumentParser()
        ap.add_argument("-n", type=int, default=5)
        seen.append(ap.parse_args(argv))

    monkeypatch.setattr(benchmarks.bench_fuzz, "main", main)
    monkeypatch.setattr(sys, "argv", ["benchmarks", "fuzz"])
    assert run(["fuzz"]) == 0
    assert [a.n for a in seen] == [5]
    assert sys.argv == ["benchmarks", "fuzz"]  # given back
    assert "== bench_fuzz" in capsys.readouterr().out
