"""From trackers to browsers: coalesced per-table diffs, bounded per-browser queues.

Rules this module keeps:

1. Every browser sees, in order, one snapshot and then diffs against what was *published* (not
   against the trackers' latest state): a snapshot is built from the published rows, so the
   diffs that follow it apply exactly.
2. Changes are coalesced: a table marked dirty is folded into the next flush, at most
   ``coalesce`` seconds later; a busy table costs one row diff per flush, not one per message.
3. A browser's queue is bounded. A browser that falls ``queue_limit`` messages behind loses its
   backlog and gets a fresh snapshot when it catches up (``resyncs``); nothing grows without
   bound.
4. Every message bound for the floor role passes
   :func:`~table_controller.feeds.check_no_hole_cards`; a message that fails is not sent
   (logged). Only the surveillance table page is exempt.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from table_controller.feeds import HoleCardLeak, check_no_hole_cards
from table_controller.floorweb.model import Json, TableTracker, diff

log = logging.getLogger(__name__)

#: The floor page's channel; a table page's is ``"table:ID"``.
FLOOR = "floor"

#: Roles.
FLOOR_ROLE = "floor"
SURVEILLANCE_ROLE = "surveillance"
ROLES = (FLOOR_ROLE, SURVEILLANCE_ROLE)


def table_channel(table: str) -> str:
    """Return the channel of ``table``'s page."""
    return f"table:{table}"


@dataclass(eq=False)
class Browser:
    """One WebSocket's outgoing side.

    :param channel: :data:`FLOOR` or ``table_channel(id)``.
    :param role: :data:`FLOOR_ROLE` or :data:`SURVEILLANCE_ROLE`.
    :param limit: most messages queued before the backlog is dropped for a snapshot.
    """

    channel: str
    role: str
    limit: int = 64
    queue: deque[str] = field(default_factory=deque)
    resync: bool = True
    """The next thing to send is a snapshot (true at the start)."""
    resyncs: int = 0
    wake: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def secret(self) -> bool:
        """This browser gets the surveillance page."""
        return self.role == SURVEILLANCE_ROLE

    def push(self, text: str) -> None:
        """Queue one message (or, when the queue is full, drop it all and ask for a snapshot)."""
        if self.resync:
            return  # a snapshot is coming anyway
        if len(self.queue) >= self.limit:
            self.queue.clear()
            self.resync = True
            self.resyncs += 1
        else:
            self.queue.append(text)
        self.wake.set()

    async def next(self, timeout: float) -> str | None:
        """Wait up to ``timeout`` s; return a queued message, ``""`` for a snapshot, or ``None``."""
        if not self.queue and not self.resync:
            self.wake.clear()
            try:
                await asyncio.wait_for(self.wake.wait(), timeout)
            except TimeoutError:
                return None
        if self.resync:
            self.resync = False
            self.queue.clear()
            return ""
        return self.queue.popleft() if self.queue else None


def guard(payload: Json, role: str, what: str) -> str | None:
    """Encode ``payload``; for the floor role only if it holds no hole card (else ``None``)."""
    if role != SURVEILLANCE_ROLE:
        try:
            check_no_hole_cards(payload, what=what)
        except HoleCardLeak:
            log.exception("not sent to the floor role")
            return None
    return json.dumps(payload, separators=(",", ":"))


class Fanout:
    """Publish the trackers' rows and pages to the browsers.

    :param trackers: table id -> tracker (the same mapping the feed loops update).
    :param coalesce: seconds between a change and the flush that sends it (at most).
    :param queue_limit: per-browser queue bound.
    :param clock: wall clock, sent as ``now`` so browsers show ages on the server's clock.
    """

    def __init__(self, trackers: Mapping[str, TableTracker], *, coalesce: float = 0.1,
                 queue_limit: int = 64, clock: Callable[[], float] = time.time) -> None:
        self.trackers = trackers
        self.coalesce = coalesce
        self.queue_limit = queue_limit
        self._clock = clock
        self.browsers: set[Browser] = set()
        self._rows: dict[str, Json] = {}
        self._pages: dict[tuple[str, bool], Json] = {}
        self._dirty: set[str] = set()
        self._timer: asyncio.TimerHandle | None = None
        self.flushes = 0
        self.sent = 0

    # -- browsers ------------------------------------------------------------------------------

    def add(self, channel: str, role: str) -> Browser:
        """Register a browser (its first message will be a snapshot)."""
        b = Browser(channel, role, self.queue_limit)
        self.browsers.add(b)
        return b

    def remove(self, browser: Browser) -> None:
        """Forget a browser (its page's published copy too, when it was the last)."""
        self.browsers.discard(browser)
        if browser.channel != FLOOR:
            key = (browser.channel.removeprefix("table:"), browser.secret)
            if not any(b.channel == browser.channel and b.secret == browser.secret
                       for b in self.browsers):
                self._pages.pop(key, None)

    def snapshot(self, browser: Browser) -> str | None:
        """Return the snapshot message for ``browser`` (from the published rows or page)."""
        now = self._clock()
        if browser.channel == FLOOR:
            for t in self.trackers:
                if t not in self._rows:
                    self._rows[t] = self.trackers[t].row()
            payload: Json = {"t": "snapshot", "now": now,
                             "rows": [self._rows[t] for t in sorted(self._rows)]}
        else:
            table = browser.channel.removeprefix("table:")
            key = (table, browser.secret)
            if key not in self._pages:
                self._pages[key] = self.trackers[table].page(secret=browser.secret)
            payload = {"t": "snapshot", "now": now, "page": self._pages[key]}
        return guard(payload, browser.role, f"{browser.channel} snapshot")

    # -- changes -------------------------------------------------------------------------------

    def mark(self, table: str) -> None:
        """Note that ``table`` changed; the next flush (within ``coalesce`` s) sends it."""
        self._dirty.add(table)
        if self._timer is None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self.coalesce, self.flush)

    def flush(self) -> None:
        """Send the diffs of every dirty table to the browsers that follow it."""
        self._timer = None
        dirty, self._dirty = self._dirty, set()
        if not dirty:
            return
        self.flushes += 1
        now = self._clock()
        rows: Json = {}
        for t in sorted(dirty):
            tracker = self.trackers.get(t)
            if tracker is None or (t not in self._rows and not self._has_floor()):
                continue
            row = tracker.row()
            d = diff(self._rows.get(t), row)
            if d:
                rows[t] = d
                self._rows[t] = row
        if rows:
            self._send(FLOOR, None, {"t": "diff", "now": now, "rows": rows})
        for (table, secret), old in list(self._pages.items()):
            if table in dirty:
                page = self.trackers[table].page(secret=secret)
                d = diff(old, page)
                if d:
                    self._pages[(table, secret)] = page
                    self._send(table_channel(table), secret,
                               {"t": "diff", "now": now, "page": d})

    def _has_floor(self) -> bool:
        return any(b.channel == FLOOR for b in self.browsers)

    def _send(self, channel: str, secret: bool | None, payload: Json) -> None:
        texts: dict[str, str | None] = {}
        for b in self.browsers:
            if b.channel != channel or (secret is not None and b.secret != secret):
                continue
            if b.role not in texts:
                texts[b.role] = guard(payload, b.role, f"{channel} diff")
            text = texts[b.role]
            if text is not None:
                b.push(text)
                self.sent += 1

    def close(self) -> None:
        """Cancel a pending flush."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
