"""``BENCH_VISION_WARM=1``: the one-off frames read by a recogniser warmed up as a board source
warms it when opened; the same readings as a fresh recogniser's (benchmark run 97)."""

from __future__ import annotations

from pathlib import Path

import pytest

import benchmarks.bench_vision as bench
from hardware.camera.recognizer import BoardRecognizer
from hardware.sim import scene as S


def _slots(monkeypatch: pytest.MonkeyPatch, log: Path, warm: bool) -> tuple[list[str], int]:
    """Every slot's reading of two one-off frames (:data:`bench.SLOT_LOG`), and warm-ups made."""
    calls: list[int] = []
    real = BoardRecognizer.warm_up

    def counted(self: BoardRecognizer) -> None:
        calls.append(1)
        real(self)

    monkeypatch.setattr(bench, "WARM", warm)
    monkeypatch.setattr(bench, "SLOT_LOG", str(log))
    monkeypatch.setattr(BoardRecognizer, "warm_up", counted)
    bench.run_config("kennard", S.Level.MEDIUM, 2, 2, 9_700_000, baseline_too=False)
    return log.read_text(encoding="utf-8").splitlines(), len(calls)


def test_warm_one_off_recogniser_reads_the_same(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    cold, cold_calls = _slots(monkeypatch, tmp_path / "cold.txt", False)
    warm, warm_calls = _slots(monkeypatch, tmp_path / "warm.txt", True)
    assert (cold_calls, warm_calls) == (0, 1)
    assert len(cold) == 10
    assert warm == cold
