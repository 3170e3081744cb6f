"""The event loop's turns, timed: how long it worked between two waits, in wall and CPU time.

A *turn* is what an asyncio loop does between two ``select`` calls: the callbacks and task
steps that were ready. A heartbeat, a feed message or a command reply that is due waits for the
turn in progress (and, if the loop was asleep, for the process to be woken). A long turn is
the process's own work when its CPU time is about its wall time; otherwise the thread was
runnable but waiting for a CPU (the machine's other processes: Linux counts it in
``/proc/thread-self/schedstat``), or blocked in a system call (a disk flush): the rest.

:class:`TimedSelector` times each turn (two clock reads and, where Linux tells, two reads of
the thread's run-queue time at each ``select``: a few microseconds) and how late each wait ended
(past its timeout: the scheduler), into :class:`LoopStats`; :func:`new_event_loop`
makes a loop with one, and :func:`loop_stats` finds them on the running loop. The last
:data:`HISTORY` turns are kept, so what ran between two instants (:meth:`LoopStats.between`:
a late heartbeat's due time and its send) can be told apart: turns (wall, CPU) and waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import selectors
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

__all__ = ["HISTORY", "LONG_TURNS_MS", "Between", "Lateness", "LoopStats", "TimedSelector",
           "loop_stats", "new_event_loop"]

#: Turns at least this long (wall, ms) are counted apart.
LONG_TURNS_MS = (20, 50, 100)
#: The longest turns kept.
KEPT = 5
#: The last turns kept for :meth:`LoopStats.between`.
HISTORY = 512


@dataclass(frozen=True)
class Between:
    """What the loop did between two instants: turns (their wall and CPU time), and the rest.

    ``waiting_ms`` is the time no turn ran: the loop was in ``select`` (asleep, or woken late by
    a busy machine). Inside the turns: ``turns_cpu_ms`` on the CPU (the daemon's own work),
    ``turns_queued_ms`` runnable but waiting for a CPU (the machine), and ``blocked_ms`` the
    rest (a blocking call: a disk flush).
    """

    span_ms: float
    turns: int
    turns_ms: float
    turns_cpu_ms: float
    longest_turn_ms: float
    longest_turn_cpu_ms: float
    turns_queued_ms: float = 0.0

    @property
    def waiting_ms(self) -> float:
        """Time outside any turn (in ``select``)."""
        return max(0.0, self.span_ms - self.turns_ms)

    @property
    def blocked_ms(self) -> float:
        """Time inside the turns neither on the CPU nor waiting for one."""
        return max(0.0, self.turns_ms - self.turns_cpu_ms - self.turns_queued_ms)

    def to_data(self) -> dict[str, float]:
        """Plain JSON data, milliseconds rounded to 0.1."""
        return {"span_ms": round(self.span_ms, 1), "turns": self.turns,
                "turns_ms": round(self.turns_ms, 1), "turns_cpu_ms": round(self.turns_cpu_ms, 1),
                "turns_queued_ms": round(self.turns_queued_ms, 1),
                "blocked_ms": round(self.blocked_ms, 1),
                "waiting_ms": round(self.waiting_ms, 1),
                "longest_turn_ms": round(self.longest_turn_ms, 1),
                "longest_turn_cpu_ms": round(self.longest_turn_cpu_ms, 1)}


@dataclass
class LoopStats:
    """What :class:`TimedSelector` measured: turns, the longest, how late the waits ended."""

    turns: int = 0
    #: wall, CPU and run-queue seconds spent in turns
    busy_s: float = 0.0
    cpu_s: float = 0.0
    queued_s: float = 0.0
    #: turns at least :data:`LONG_TURNS_MS` long
    over: dict[int, int] = field(default_factory=lambda: dict.fromkeys(LONG_TURNS_MS, 0))
    #: the :data:`KEPT` longest turns: (wall ms, CPU ms, run-queue ms, monotonic end)
    longest: list[tuple[float, float, float, float]] = field(default_factory=list)
    #: the latest a ``select`` returned past its timeout (ms): the process woken late
    woke_late_max_ms: float = 0.0
    #: the last :data:`HISTORY` turns: (monotonic start, end, CPU seconds, run-queue seconds)
    history: deque[tuple[float, float, float, float]] = field(
        default_factory=lambda: deque(maxlen=HISTORY))
    #: the turn in progress: when it began (monotonic) and the thread's CPU time then
    current: tuple[float, float] | None = None

    def clear(self) -> None:
        """Forget what was measured so far (the daemon's start-up, say)."""
        fresh = LoopStats()
        self.turns, self.busy_s, self.cpu_s, self.queued_s = 0, 0.0, 0.0, 0.0
        self.over, self.longest, self.woke_late_max_ms = fresh.over, [], 0.0
        self.history.clear()
        self.current = None

    def record(self, start: float, end: float, cpu: float, queued: float = 0.0) -> None:
        """Count one turn from ``start`` to ``end`` (monotonic seconds).

        :param cpu: seconds the thread ran on a CPU meanwhile.
        :param queued: seconds it was runnable, waiting for a CPU (0 where unknown).
        """
        wall = end - start
        self.turns += 1
        self.busy_s += wall
        self.cpu_s += cpu
        self.queued_s += queued
        self.history.append((start, end, cpu, queued))
        ms = wall * 1000
        if ms >= LONG_TURNS_MS[0]:
            for limit in LONG_TURNS_MS:
                if ms >= limit:
                    self.over[limit] += 1
        if len(self.longest) < KEPT or ms > self.longest[-1][0]:
            self.longest.append((ms, cpu * 1000, queued * 1000, end))
            self.longest.sort(key=lambda t: -t[0])
            del self.longest[KEPT:]

    def between(self, start: float, end: float) -> Between:
        """Say what the kept turns did between ``start`` and ``end`` (monotonic seconds).

        A turn cut by the span counts for its part inside it (its CPU time pro rata); the turn
        in progress counts up to ``end`` (called from the loop's thread: its CPU time so far).
        """
        n, wall, cpu, queued, top, top_cpu = 0, 0.0, 0.0, 0.0, 0.0, 0.0
        turns = list(self.history)
        if self.current is not None and self.current[0] < end:  # its run-queue time unknown
            turns.append((self.current[0], end, time.thread_time() - self.current[1], 0.0))
        for t0, t1, c, q in reversed(turns):
            if t1 <= start:
                break
            lo, hi = max(t0, start), min(t1, end)
            if hi <= lo:
                continue
            part = (hi - lo) / (t1 - t0) if t1 > t0 else 1.0
            n += 1
            wall += hi - lo
            cpu += c * part
            queued += q * part
            if (t1 - t0) * 1000 > top:
                top, top_cpu = (t1 - t0) * 1000, c * 1000
        return Between((end - start) * 1000, n, wall * 1000, cpu * 1000, top, top_cpu,
                       queued * 1000)

    def to_data(self) -> dict[str, Any]:
        """Plain JSON data for ``status`` (milliseconds rounded to 0.1)."""
        return {
            "turns": self.turns, "busy_s": round(self.busy_s, 3), "cpu_s": round(self.cpu_s, 3),
            "queued_s": round(self.queued_s, 3),
            "turns_over_ms": {str(k): v for k, v in self.over.items()},
            "longest_turns": [{"wall_ms": round(w, 1), "cpu_ms": round(c, 1),
                               "queued_ms": round(q, 1)} for w, c, q, _at in self.longest],
            "woke_late_max_ms": round(self.woke_late_max_ms, 1),
        }


@dataclass
class Lateness:
    """Timed events (a feed's heartbeats) and how late each was, the latest explained.

    ``worst`` says what the running loop did between the latest one's due time and when it ran
    (:meth:`LoopStats.between`; ``None`` on an untimed loop).
    """

    count: int = 0
    late_max_ms: float = 0.0
    late_over_100ms: int = 0
    worst: Between | None = None

    def record(self, late: float, now: float, *, explain: bool = True) -> None:
        """Count one event that ran at monotonic ``now``, ``late`` seconds after it was due.

        :param explain: look up the loop's turns for a new latest one (``now`` is on the loop's
            clock, :func:`time.monotonic`).
        """
        self.count += 1
        ms = late * 1000
        self.late_over_100ms += ms > 100
        if ms > self.late_max_ms:
            self.late_max_ms = ms
            stats = loop_stats() if explain else None
            self.worst = None if stats is None else stats.between(now - late, now)

    def to_data(self) -> dict[str, Any]:
        """Plain JSON data (milliseconds rounded to 0.1)."""
        return {"count": self.count, "late_max_ms": round(self.late_max_ms, 1),
                "late_over_100ms": self.late_over_100ms,
                "worst": None if self.worst is None else self.worst.to_data()}


class TimedSelector(selectors.DefaultSelector):
    """The platform's default selector, timing the loop's turns between its ``select`` calls.

    The clocks: :func:`time.monotonic` (the loop's own clock, so spans line up with
    ``loop.time()`` and the daemon's monotonic stamps) and :func:`time.thread_time` (the CPU
    time of the loop's thread: the selector is only called from it).
    """

    def __init__(self) -> None:
        super().__init__()
        self.stats = LoopStats()
        self._began: float | None = None
        self._cpu = 0.0
        self._queued = 0.0
        self._schedstat: int | None = None
        with contextlib.suppress(OSError):
            self._schedstat = os.open("/proc/thread-self/schedstat", os.O_RDONLY)

    def close(self) -> None:
        """Close the selector (and the thread's ``schedstat``)."""
        if self._schedstat is not None:
            os.close(self._schedstat)
            self._schedstat = None
        super().close()

    def _queued_s(self) -> float:
        """Seconds the thread has waited for a CPU so far (0 where Linux does not say)."""
        if self._schedstat is None:
            return 0.0
        try:
            return int(os.pread(self._schedstat, 64, 0).split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            return 0.0

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        """Wait as the default selector does; the turn before this call is recorded."""
        now, cpu, queued = time.monotonic(), time.thread_time(), self._queued_s()
        if self._began is not None:
            self.stats.record(self._began, now, cpu - self._cpu, queued - self._queued)
        try:
            return super().select(timeout)
        finally:
            self._began, self._cpu = time.monotonic(), time.thread_time()
            self._queued = self._queued_s()
            self.stats.current = (self._began, self._cpu)
            if timeout is not None and timeout > 0:
                late = (self._began - now - timeout) * 1000
                if late > self.stats.woke_late_max_ms:
                    self.stats.woke_late_max_ms = late


class _TimedLoop(asyncio.SelectorEventLoop):
    """A selector event loop whose turns are timed (:class:`TimedSelector`)."""

    def __init__(self) -> None:
        self.timed = TimedSelector()
        super().__init__(self.timed)


def new_event_loop() -> asyncio.AbstractEventLoop:
    """Return a new selector event loop whose turns are timed (for ``asyncio.Runner``)."""
    return _TimedLoop()


def loop_stats(loop: asyncio.AbstractEventLoop | None = None) -> LoopStats | None:
    """Return the turn statistics of ``loop`` (default: the running one); ``None`` if untimed."""
    if loop is None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return None
    return loop.timed.stats if isinstance(loop, _TimedLoop) else None
