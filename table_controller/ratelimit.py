"""Rate limits and a rate-limited logger: time is a parameter, memory is bounded.

Rules this module keeps:

1. Nothing here reads a clock unless it was given one: every method takes ``now`` (monotonic
   seconds), so tests step a fake clock.
2. :class:`TokenBucket` allows ``rate`` events a second on average and ``burst`` at once.
   :class:`PeerLimiter` keeps one bucket per peer for at most ``max_peers`` peers (the least
   recently seen is forgotten first), so a client inventing peer names gets nothing but fresh
   buckets, and memory stays bounded.
3. :class:`RateLimitedLog` writes at most ``burst`` lines per ``interval`` seconds for each key
   (at most ``max_keys`` keys), and the next line it writes says how many were left out. Use it
   for anything a client can cause: a client's mistake is one line, never a traceback.

This module imports only the standard library (a leaf: any layer may use it).
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass


@dataclass(slots=True)
class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up; starts full.

    >>> b = TokenBucket(rate=2.0, burst=2)
    >>> [b.allow(0.0), b.allow(0.0), b.allow(0.0), b.allow(0.5)]
    [True, True, False, True]
    """

    rate: float
    burst: int
    tokens: float = -1.0
    stamp: float | None = None

    def __post_init__(self) -> None:
        if self.rate <= 0 or self.burst < 1:
            raise ValueError(f"rate must be > 0 and burst >= 1, got {self.rate}, {self.burst}")
        if self.tokens < 0:
            self.tokens = float(self.burst)

    def allow(self, now: float, cost: float = 1.0) -> bool:
        """Take ``cost`` tokens at ``now`` if there are as many; ``False`` = over the limit.

        A cost over ``burst`` is never allowed (the bucket never holds that many).
        """
        if self.stamp is not None and now > self.stamp:
            self.tokens = min(float(self.burst), self.tokens + (now - self.stamp) * self.rate)
        if self.stamp is None or now > self.stamp:
            self.stamp = now
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False


class PeerLimiter:
    """One :class:`TokenBucket` per peer, for a bounded number of peers.

    >>> lim = PeerLimiter(rate=1.0, burst=1, max_peers=2)
    >>> [lim.allow("a", 0.0), lim.allow("a", 0.0), lim.allow("b", 0.0)]
    [True, False, True]
    """

    def __init__(self, rate: float, burst: int, *, max_peers: int = 1024) -> None:
        if max_peers < 1:
            raise ValueError(f"max_peers must be >= 1, got {max_peers}")
        TokenBucket(rate, burst)  # validates
        self.rate = rate
        self.burst = burst
        self.max_peers = max_peers
        self._buckets: OrderedDict[Hashable, TokenBucket] = OrderedDict()

    def allow(self, peer: Hashable, now: float) -> bool:
        """Take one token of ``peer``'s bucket at ``now``; ``False`` = over the limit."""
        bucket = self._buckets.get(peer)
        if bucket is None:
            bucket = TokenBucket(self.rate, self.burst)
            self._buckets[peer] = bucket
            while len(self._buckets) > self.max_peers:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(peer)
        return bucket.allow(now)

    def __len__(self) -> int:
        return len(self._buckets)


@dataclass(slots=True)
class _Window:
    start: float
    written: int = 0
    suppressed: int = 0


class RateLimitedLog:
    """A logger front that writes at most ``burst`` lines per ``interval`` seconds per key.

    >>> import logging
    >>> rl = RateLimitedLog(logging.getLogger("doctest"), interval=10.0, burst=1)
    >>> [rl.log(logging.INFO, "bad", "x", now=t) for t in (0.0, 1.0, 2.0, 11.0)]
    [True, False, False, True]
    >>> rl.suppressed("bad")
    0

    :param logger: where the lines go.
    :param interval: window length in seconds.
    :param burst: lines per key and window.
    :param max_keys: keys remembered (least recently used forgotten first).
    """

    def __init__(
        self, logger: logging.Logger, *, interval: float = 10.0, burst: int = 5,
        max_keys: int = 256,
    ) -> None:
        if interval <= 0 or burst < 1 or max_keys < 1:
            raise ValueError(f"interval must be > 0, burst and max_keys >= 1, got "
                             f"{interval}, {burst}, {max_keys}")
        self.logger = logger
        self.interval = interval
        self.burst = burst
        self.max_keys = max_keys
        self._windows: OrderedDict[Hashable, _Window] = OrderedDict()

    def log(
        self, level: int, key: Hashable, msg: str, *args: object, now: float,
        exc_info: bool = False,
    ) -> bool:
        """Write ``msg % args`` at ``level`` unless ``key`` is over its limit at ``now``.

        A line written after others were left out ends with ``(N more like this in S s)``.
        ``exc_info=True`` adds the traceback of the exception being handled (for internal
        errors only: a client's mistake is one line).

        :returns: ``True`` if the line was written.
        """
        w = self._windows.get(key)
        if w is None:
            w = _Window(now)
            self._windows[key] = w
            while len(self._windows) > self.max_keys:
                self._windows.popitem(last=False)
        else:
            self._windows.move_to_end(key)
        if now - w.start >= self.interval:
            if w.suppressed:
                msg = f"{msg} ({w.suppressed} more like this in {now - w.start:.0f} s)"
            w.start, w.written, w.suppressed = now, 0, 0
        if w.written >= self.burst:
            w.suppressed += 1
            return False
        w.written += 1
        self.logger.log(level, msg, *args, exc_info=exc_info)
        return True

    def warning(self, key: Hashable, msg: str, *args: object, now: float) -> bool:
        """:meth:`log` at ``WARNING``."""
        return self.log(logging.WARNING, key, msg, *args, now=now)

    def error(
        self, key: Hashable, msg: str, *args: object, now: float, exc_info: bool = False
    ) -> bool:
        """:meth:`log` at ``ERROR``."""
        return self.log(logging.ERROR, key, msg, *args, now=now, exc_info=exc_info)

    def suppressed(self, key: Hashable) -> int:
        """Lines of ``key`` left out in its current window."""
        w = self._windows.get(key)
        return 0 if w is None else w.suppressed
