from __future__ import annotations

import pytest

from benchmarks import bench_serial


def test_benchmark_runs_small(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_serial, "SAMPLES", 20)
    monkeypatch.setattr(bench_serial, "WARMUP", 2)
    bare, drv = bench_serial._measure_blocking()
    assert len(bare) == len(drv) == 20
    bare, drv = bench_serial._measure_async("reader")
    assert len(drv) == 20
    bare, drv = bench_serial._measure_async("reader", 0.001, 5)
    assert len(bare) == len(drv) == 5
    rates = bench_serial._throughput(2000)
    assert all(r > 0 for r in rates.values())
