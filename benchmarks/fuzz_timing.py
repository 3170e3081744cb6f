"""The fuzz benchmark's timing and counting: what one parser did over its inputs (:class:`Result`).

Each input is timed in wall time and in the thread's CPU time (the garbage collector's share
told apart, :class:`_Collector`), its answer counted as documented or not (:func:`_check`), and
the slowest inputs kept and re-timed alone afterwards (:meth:`Result.retime`). Used by
:mod:`benchmarks.bench_fuzz`.
"""

from __future__ import annotations

import contextlib
import gc
import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from table_controller.errors import TableError

#: The slowest inputs kept (by wall time, and by CPU time) to re-time in isolation.
SLOWEST = 8
#: Times each of the slowest inputs is re-run in isolation (the fastest run counts).
RETIMES = 5
#: An input over this much CPU time in the stream is re-timed alone too (ms) ...
SUSPECT_MS = 5.0
#: ... up to this many of them (the rest are counted, not kept).
SUSPECTS = 200
#: The target: no input over this much CPU time (ms).
TARGET_MS = 10.0

@dataclass
class Result:
    """What one parser did over ``n`` inputs.

    Each input is timed twice: wall time (``perf_counter``: includes a collection the input
    triggered, and any time the thread was not scheduled on a busy machine) and the thread's
    CPU time (``thread_time``: the work done, preemption excluded; the garbage collector's share,
    timed with ``gc.callbacks``, is told apart). The :data:`SLOWEST` inputs
    by wall time are kept and re-run :data:`RETIMES` times in isolation afterwards: an input
    that is slow again is slow parsing; one that is fast again was a pause (a scheduler
    preemption, a garbage collection).
    """

    parser: str
    n: int = 0
    answered: Counter[str] = field(default_factory=Counter)
    undocumented: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)
    max_ms: float = 0.0
    max_cpu_ms: float = 0.0
    total_s: float = 0.0
    over_10ms: int = 0
    over_10ms_cpu: int = 0
    over_10ms_in_gc: int = 0
    max_cpu_no_gc_ms: float = 0.0
    slowest: list[tuple[float, float, bytes | str]] = field(default_factory=list)
    #: the :data:`SLOWEST` inputs by CPU time in the stream
    slowest_cpu: list[tuple[float, float, bytes | str]] = field(default_factory=list)
    #: inputs over :data:`SUSPECT_MS` of CPU time in the stream (the first :data:`SUSPECTS`)
    suspects: list[tuple[float, float, bytes | str]] = field(default_factory=list)
    suspects_seen: int = 0
    retimed: list[tuple[float, float, float, str]] = field(default_factory=list)
    #: the machine's stolen CPU time during the run (``/proc/stat``, both CPUs), seconds
    steal_s: float = 0.0

    def line(self) -> str:
        return (f"{self.parser:<10} n={self.n:<8} undocumented={sum(self.undocumented.values()):<4}"
                f" max wall {self.max_ms:7.2f} ms  max cpu {self.max_cpu_ms:7.2f} ms  "
                f"mean {1e6 * self.total_s / max(self.n, 1):7.1f} us  >10 ms wall "
                f"{self.over_10ms} cpu {self.over_10ms_cpu} (of which a collection made "
                f"{self.over_10ms_in_gc}; max cpu without collections "
                f"{self.max_cpu_no_gc_ms:.2f} ms)  "
                f"answers {dict(self.answered.most_common(4))}")

    def retimed_line(self) -> str:
        """Say what the inputs re-timed alone took (the worst first)."""
        worst = sorted(self.retimed, key=lambda r: -r[2])
        over = sum(r[2] > TARGET_MS for r in self.retimed)
        top = max(self.retimed, key=lambda r: r[1], default=None)
        cpu_top = (f"; the slowest in the stream ({top[1]:.2f} ms cpu) took {top[2]:.2f} ms"
                   if top else "")
        return (f"{'':<10} re-timed alone: {len(self.retimed)} inputs (the {SLOWEST} slowest by "
                f"wall and by cpu, and {len(self.suspects)} of the {self.suspects_seen} over "
                f"{SUSPECT_MS:g} ms cpu): over {TARGET_MS:g} ms alone {over}; worst "
                f"{worst[0][2] if worst else 0.0:.2f} ms cpu{cpu_top}; machine steal "
                f"{self.steal_s:.1f} s; "
                + "; ".join(f"{w:.1f}/{c:.1f} ms -> {a:.2f} ms ({d})"
                            for w, c, a, d in worst[:3]))

    def keep(self, wall_ms: float, cpu_ms: float, raw: bytes | str) -> None:
        """Keep ``raw`` if it is among the slowest so far (wall or CPU), or a suspect."""
        if len(self.slowest) < SLOWEST or wall_ms > self.slowest[-1][0]:
            self.slowest.append((wall_ms, cpu_ms, raw))
            self.slowest.sort(key=lambda t: -t[0])
            del self.slowest[SLOWEST:]
        if len(self.slowest_cpu) < SLOWEST or cpu_ms > self.slowest_cpu[-1][1]:
            self.slowest_cpu.append((wall_ms, cpu_ms, raw))
            self.slowest_cpu.sort(key=lambda t: -t[1])
            del self.slowest_cpu[SLOWEST:]
        if cpu_ms > SUSPECT_MS:
            self.suspects_seen += 1
            if len(self.suspects) < SUSPECTS:
                self.suspects.append((wall_ms, cpu_ms, raw))

    def to_retime(self) -> list[tuple[float, float, bytes | str]]:
        """The kept inputs, each once: the slowest by wall, by CPU, and the suspects."""
        seen: set[int] = set()
        out = []
        for item in [*self.slowest, *self.slowest_cpu, *self.suspects]:
            if id(item[2]) not in seen:
                seen.add(id(item[2]))
                out.append(item)
        return out

    def retime(self, run: Callable[[bytes | str], object]) -> None:
        """Re-run the kept inputs alone; record the least CPU time of :data:`RETIMES` runs."""
        for wall_ms, cpu_ms, raw in self.to_retime():
            best = float("inf")
            for _ in range(RETIMES):
                t0 = time.thread_time()
                with contextlib.suppress(BaseException):
                    run(raw)
                best = min(best, (time.thread_time() - t0) * 1000)
            self.retimed.append((wall_ms, cpu_ms, best, _describe(raw)))

def steal_seconds() -> float:
    """The machine's stolen CPU time so far (``/proc/stat``, all CPUs; 0 where unknown)."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def _describe(raw: bytes | str) -> str:
    text = raw if isinstance(raw, str) else raw.decode("latin-1")
    return f"{len(text)} chars: {text[:40]!r}"

def _settled() -> None:
    """Freeze what set-up made out of the collector's reach, as the daemon does after its start.

    A full collection then walks only what the inputs made, not every module and fixture.
    """
    gc.collect()
    gc.freeze()

def _as_bytes(raw: bytes | str) -> bytes:
    return raw.encode() if isinstance(raw, str) else raw

class _Collector:
    """Seconds spent in the garbage collector so far (``gc.callbacks``), and collections."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.collections = 0
        self._began = 0.0
        gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._began
            self.collections += 1

_GC = _Collector()

def _start() -> tuple[float, float, float]:
    return time.perf_counter(), time.thread_time(), _GC.seconds

def _check(res: Result, exc: BaseException | None, answer: str,
           t0: tuple[float, float, float], raw: bytes | str = b"") -> None:
    dt = time.perf_counter() - t0[0]
    cpu = time.thread_time() - t0[1]
    in_gc = _GC.seconds - t0[2]
    res.max_cpu_no_gc_ms = max(res.max_cpu_no_gc_ms, (cpu - in_gc) * 1000)
    res.over_10ms_in_gc += cpu > 0.010 and cpu - in_gc <= 0.010
    res.n += 1
    res.total_s += dt
    res.max_ms = max(res.max_ms, dt * 1000)
    res.max_cpu_ms = max(res.max_cpu_ms, cpu * 1000)
    res.over_10ms += dt > 0.010
    res.over_10ms_cpu += cpu > 0.010
    res.keep(dt * 1000, cpu * 1000, raw)
    if exc is None:
        res.answered[answer] += 1
    elif isinstance(exc, TableError) and "\n" not in str(exc):
        res.answered[type(exc).__name__] += 1
    else:
        res.undocumented[type(exc).__name__] += 1
        if len(res.examples) < 5:
            res.examples.append(f"{type(exc).__name__}: {str(exc)[:200]}")
