"""Displays wired to the feeds: one :class:`~table_controller.feeds.FeedClient` per table.

:class:`DisplayModel` folds :class:`~table_controller.feeds.FeedEvent` s into the
:class:`~.view.TableView` s (pure apart from the events it is given); :func:`run_display` runs the
clients and shows :func:`~.render.render` in a ``rich.live.Live`` (or, when the output is not a
terminal, prints a plain frame whenever the picture changed, at most every ``plain_every``
seconds).

The client does the hard parts (snapshot on start and after a gap, heartbeat supervision); this
module only shows them: ``LOST`` turns the view's ``connection`` to ``"lost"`` (the screen says
"connection lost"), ``GAP`` to ``"syncing"``, ``STALE`` (the messages come in seconds behind the
table's clock) to ``"stale"`` until ``CAUGHT_UP``, and the next ``SNAPSHOT`` / ``RECOVERED``
event brings the whole view back.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import zmq
import zmq.asyncio
from rich.console import Console

from table_controller.displays.render import render
from table_controller.displays.view import TableView, apply_message, view_from_state
from table_controller.feeds import ClientKeys, Feed, FeedClient, FeedEvent, FeedEventKind

#: Times a second the screen is drawn at most (``rich.live.Live``).
REFRESH_PER_SECOND = 8
#: Which feed each role follows.
ROLE_FEEDS = {"public": Feed.PUBLIC, "dealer": Feed.DEALER, "floor": Feed.PUBLIC,
              "surveillance": Feed.SURVEILLANCE}


@dataclass(frozen=True, slots=True)
class TableSource:
    """Where one table's feed and snapshots are.

    :param table: the table id (``""`` = any; only for one-table displays).
    :param feed: the feed endpoint (the floor proxy's backend for the floor).
    :param snapshot: the table's snapshot endpoint.
    """

    table: str
    feed: str
    snapshot: str


class DisplayModel:
    """The views of every table a display follows."""

    def __init__(self, tables: Sequence[str]) -> None:
        self.views: dict[str, TableView] = {t: TableView(table=t) for t in tables}
        self.changes = 0

    def on_event(self, table: str, ev: FeedEvent) -> TableView:
        """Fold one client event into the view of ``table``; return the new view."""
        v = self.views.get(table, TableView(table=table))
        if ev.kind in (FeedEventKind.SNAPSHOT, FeedEventKind.RECOVERED):
            v = view_from_state(ev.state or {}, table=table, seq=ev.seq, base=v)
            if ev.kind is FeedEventKind.RECOVERED:
                v = dataclasses.replace(v, announcements=(*v.announcements,
                                                          "connection recovered")[-8:])
        elif ev.kind is FeedEventKind.UPDATE and ev.message is not None:
            m = ev.message
            was = v.connection
            v = apply_message(v, m.type, m.data, seq=ev.seq, ts=m.ts)
            if was == "stale":  # behind until the client says it caught up
                v = dataclasses.replace(v, connection="stale")
        elif ev.kind is FeedEventKind.STALE:
            v = dataclasses.replace(v, connection="stale")
        elif ev.kind is FeedEventKind.CAUGHT_UP:
            v = dataclasses.replace(v, connection="live")
        elif ev.kind is FeedEventKind.LOST:
            v = dataclasses.replace(v, connection="lost")
            if ev.reason.startswith("key refused"):  # say why, once: it will not heal alone
                v = dataclasses.replace(v, announcements=(*v.announcements, ev.reason)[-8:])
        elif ev.kind is FeedEventKind.GAP:
            v = dataclasses.replace(v, connection="syncing")
        if not v.table:
            v = dataclasses.replace(v, table=table)
        self.views[table] = v
        self.changes += 1
        return v

    def ordered(self) -> list[TableView]:
        """Return the views, by table id."""
        return [self.views[t] for t in sorted(self.views)]


def table_heartbeat_timeout(state: object) -> float | None:
    """Return the ``timing.heartbeat_timeout`` a table announces in its state, if valid.

    >>> table_heartbeat_timeout({"timing": {"heartbeat_timeout": 15.0}})
    15.0
    >>> table_heartbeat_timeout({"timing": {"heartbeat_timeout": "soon"}}) is None
    True
    """
    timing = state.get("timing") if isinstance(state, dict) else None
    value = timing.get("heartbeat_timeout") if isinstance(timing, dict) else None
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= 600:
        return float(value)
    return None


async def follow(client: FeedClient, table: str, model: DisplayModel,
                 changed: asyncio.Event, *, adopt_timing: bool = False) -> None:
    """Feed ``client``'s events into ``model`` until cancelled.

    ``adopt_timing``: wait as long as the table says (``timing.heartbeat_timeout`` in its
    snapshot) before calling the connection lost.
    """
    while True:
        ev = await client.next_event(timeout=0.5)
        if ev is not None:
            if adopt_timing and ev.kind in (FeedEventKind.SNAPSHOT, FeedEventKind.RECOVERED):
                timeout = table_heartbeat_timeout(ev.state)
                if timeout is not None:
                    client.heartbeat_timeout = timeout
            model.on_event(table, ev)
            changed.set()


async def run_display(
    role: str,
    sources: Sequence[TableSource],
    *,
    console: Console | None = None,
    duration: float | None = None,
    heartbeat_timeout: float | None = 3.0,
    keys: ClientKeys | None = None,
    live: bool | None = None,
    plain_every: float = 1.0,
    frame_every: float = 1 / REFRESH_PER_SECOND,
    on_change: Callable[[DisplayModel], None] | None = None,
    until: Callable[[DisplayModel], bool] | None = None,
) -> DisplayModel:
    """Show ``role``'s screen for ``sources`` until cancelled or ``duration`` seconds passed.

    :param heartbeat_timeout: seconds of silence before "connection lost"; ``None``: the
        table's own (its snapshot's ``timing``), 3 s until the first snapshot.
    :param keys: this display's CURVE keys (the surveillance feed needs an allowed key).
    :param live: use ``rich.live.Live`` (default: when the console is a terminal).
    :param frame_every: seconds between two pictures drawn with ``Live`` at least (default
        :data:`REFRESH_PER_SECOND` a second): the changes in between go into one picture, so a
        floor of many busy tables is not drawn again on every message.
    :param until: stop as soon as this is true of the model after a change (tests wait on
        what the screen shows instead of a duration).
    :returns: the model as it was at the end (for tests and the demo's summary).
    """
    from rich.live import Live

    console = console or Console()
    use_live = console.is_terminal if live is None else live
    feed = ROLE_FEEDS[role]
    model = DisplayModel([s.table for s in sources])
    ctx = zmq.asyncio.Context()
    clients = [FeedClient(ctx, feed=feed, feed_endpoint=s.feed, snapshot_endpoint=s.snapshot,
                          table_id=s.table or None,
                          heartbeat_timeout=3.0 if heartbeat_timeout is None
                          else heartbeat_timeout, keys=keys)
               for s in sources]
    changed = asyncio.Event()
    tasks = []
    try:
        for c in clients:
            await c.start()
        tasks = [asyncio.create_task(follow(c, s.table, model, changed,
                                            adopt_timing=heartbeat_timeout is None))
                 for c, s in zip(clients, sources, strict=True)]
        end = None if duration is None else time.monotonic() + duration

        def frame() -> object:
            return render(role, model.ordered())

        async def wait_change() -> bool:
            if until is not None and until(model):
                return False
            left = 0.5 if end is None else min(0.5, end - time.monotonic())
            if left <= 0:
                return False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), left)
            return True

        if use_live:
            # drawn from this loop (no refresh thread: it held Live's lock, and the GIL, while
            # drawing a big floor, stalling the feeds behind it)
            with Live(frame(), console=console, auto_refresh=False,  # type: ignore[arg-type]
                      transient=False) as lv:
                last_frame = 0.0
                while await wait_change():
                    if changed.is_set():
                        wait = last_frame + frame_every - time.monotonic()
                        if wait > 0:
                            await asyncio.sleep(wait)
                        changed.clear()
                        last_frame = time.monotonic()
                        lv.update(frame(), refresh=True)  # type: ignore[arg-type]
                        if on_change is not None:
                            on_change(model)
        else:
            last_print = 0.0
            while await wait_change():
                now = time.monotonic()
                if changed.is_set() and now - last_print >= plain_every:
                    changed.clear()
                    last_print = now
                    console.print(frame())
                    console.rule()
                    if on_change is not None:
                        on_change(model)
        return model
    finally:
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        for c in clients:
            await c.close()
        ctx.destroy(linger=0)
