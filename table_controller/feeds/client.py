"""The display side of a feed: subscribe, snapshot, detect gaps and lost links, recover.

A :class:`FeedClient` turns a feed into a stream of :class:`FeedEvent` s. The display applies
``UPDATE`` events to the state it got from the last ``SNAPSHOT`` / ``RECOVERED`` event; the client
guarantees the updates it hands out follow that snapshot without a hole.

States and transitions (anything else does not happen):

================  =======================================  ==============================
state             on                                       goes to (event emitted)
================  =======================================  ==============================
``SYNCING``       (a new subscription) its first message   ``SYNCING`` (asks for the snapshot)
``SYNCING``       snapshot reply                           ``LIVE`` (``SNAPSHOT``)
``SYNCING``       nothing heard for ``heartbeat_timeout``  ``LOST`` (``LOST``)
``LIVE``          update ``seq == last + 1``               ``LIVE`` (``UPDATE``)
``LIVE``          update ``seq <= last``                   ``LIVE`` (dropped: before snapshot)
``LIVE``          update ``seq > last + 1``, or heartbeat  ``SYNCING`` (``GAP``)
                  with another seq or epoch
``LIVE``          nothing heard for ``heartbeat_timeout``  ``LOST`` (``LOST``)
``LIVE``          a message ``stale_after`` s or more      ``LIVE`` (``STALE``, once)
                  behind the table's clock
``LIVE``          after ``STALE``, a message within        ``LIVE`` (``CAUGHT_UP``)
                  ``stale_after`` s of it
``LOST``          any message, then snapshot reply         ``LIVE`` (``RECOVERED``)
================  =======================================  ==============================

A new subscription reaches the publisher some time after ``connect`` returns (ZeroMQ's slow
joiner): a snapshot taken before it does would be followed by messages the subscriber never
gets. So the client asks for its first snapshot only once the subscription has carried a message
(the feed's next update or heartbeat: within the table's heartbeat interval); what was published
before is in the snapshot. After a gap the subscription is live already and the snapshot is asked
for at once.

The client subscribes to every message of its table (the topic prefix ``TABLE/``; gap detection
needs every sequence number), or to everything without a ``table_id``. Through the floor proxy
that filter is applied before the network, so a display following N tables receives N tables'
messages.

Lag: a display that falls behind (a busy machine, a backlog in its socket) still hears every
heartbeat, late. The client measures how far behind the table each message is: the display's
wall clock minus the message's ``ts``, less the smallest such difference since the last snapshot
(the snapshot reply travels on its own socket, not behind the backlog, so it sets the baseline;
a clock offset between the machines cancels out). A step of the display's wall clock counts as
lag until the next snapshot. Waits are real I/O with bounded timeouts; ``mono_clock`` is the
clock they are measured on.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import TracebackType
from typing import Any

import zmq
import zmq.asyncio

from table_controller.feeds.messages import (
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    Feed,
    Message,
    MessageError,
    decode,
    table_topic,
)
from table_controller.feeds.monitoring import close_monitored, monitor_address, stop_monitor
from table_controller.feeds.security import ClientKeys


class ClientState(StrEnum):
    """Where the client is."""

    SYNCING = "syncing"
    LIVE = "live"
    LOST = "lost"


class FeedEventKind(StrEnum):
    """What happened."""

    SNAPSHOT = "snapshot"
    UPDATE = "update"
    GAP = "gap"
    LOST = "lost"
    RECOVERED = "recovered"
    STALE = "stale"
    CAUGHT_UP = "caught_up"


@dataclass(frozen=True, slots=True)
class FeedEvent:
    """One thing a display must know.

    :param kind: what happened.
    :param seq: the client's sequence number after the event.
    :param message: the update (``UPDATE``) or snapshot (``SNAPSHOT`` / ``RECOVERED``) message.
    :param state: the whole state (``SNAPSHOT`` / ``RECOVERED``).
    :param reason: plain words (``GAP`` / ``LOST`` / ``STALE``).
    :param lag: seconds the message was behind the table's clock when it was taken
        (``UPDATE``, ``STALE``, ``CAUGHT_UP``).
    """

    kind: FeedEventKind
    seq: int
    message: Message | None = None
    state: Mapping[str, Any] | None = None
    reason: str = ""
    lag: float = 0.0


@dataclass(slots=True)
class ClientStats:
    """Counters, for displays' status lines and tests."""

    updates: int = 0
    dropped_stale: int = 0
    gaps: int = 0
    snapshots: int = 0
    lost: int = 0
    bad_messages: int = 0
    heartbeats: int = 0
    stale: int = 0
    max_lag: float = 0.0
    last_error: str = field(default="")


class FeedClient:
    """Follow one feed of one table.

    :param ctx: an asyncio context (the display's own).
    :param feed: which feed (``PUBLIC``, ``DEALER``, ``SURVEILLANCE``).
    :param feed_endpoint: the feed's PUB endpoint.
    :param snapshot_endpoint: the snapshot endpoint serving that feed.
    :param table_id: if given, messages of other tables are ignored.
    :param keys: CURVE client keys (required for the surveillance feed in production).
    :param heartbeat_timeout: seconds without any message before ``LOST``.
    :param snapshot_timeout: seconds to wait for one snapshot reply before asking again.
    :param rcvhwm: receive high-water mark of the SUB socket (messages beyond it are dropped,
        which the client sees as a gap).
    :param stale_after: seconds behind the table's clock from which the feed is ``STALE``.
    :param wall_clock: the display's wall clock (lag is measured against the messages' ``ts``).
    """

    def __init__(
        self,
        ctx: zmq.asyncio.Context,
        *,
        feed: Feed,
        feed_endpoint: str,
        snapshot_endpoint: str,
        table_id: str | None = None,
        keys: ClientKeys | None = None,
        heartbeat_timeout: float = 3.0,
        snapshot_timeout: float = 1.0,
        mono_clock: Callable[[], float] = time.monotonic,
        rcvhwm: int = 1000,
        stale_after: float = 2.0,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.ctx = ctx
        self.feed = feed
        self.feed_endpoint = feed_endpoint
        self.snapshot_endpoint = snapshot_endpoint
        self.table_id = table_id
        self.keys = keys
        self.heartbeat_timeout = heartbeat_timeout
        self.snapshot_timeout = snapshot_timeout
        self._mono = mono_clock
        self._wall = wall_clock
        self._rcvhwm = rcvhwm
        self.stale_after = stale_after
        self._offset: float | None = None
        self._lag = 0.0
        self._stale = False
        self._queued: FeedEvent | None = None
        self._sub: zmq.asyncio.Socket | None = None
        self._req: zmq.asyncio.Socket | None = None
        self._state = ClientState.SYNCING
        self._seq = 0
        self._epoch: str | None = None
        self._last_heard = 0.0
        self._request = 0
        self._recovering = False
        self._subscribed = False  # the subscription has carried a message (it is live)
        self._pending_until: float | None = None
        self._monitor: zmq.asyncio.Socket | None = None
        #: why the table refused this client's CURVE handshake (``None``: it did not)
        self.key_refused: str | None = None
        self.stats = ClientStats()

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Subscribe first, then (on the first :meth:`next_event`) ask for the snapshot."""
        if self._sub is not None:
            return
        sub = self.ctx.socket(zmq.SUB)
        sub.linger = 0
        sub.rcvhwm = self._rcvhwm
        sub.maxmsgsize = MAX_MESSAGE_BYTES
        if self.keys is not None:
            self.keys.apply(sub)
            # a refused handshake is reported by the socket's monitor at once: say so
            self._monitor = sub.get_monitor_socket(
                zmq.EVENT_HANDSHAKE_FAILED_AUTH | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL
                | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL, addr=monitor_address())
        sub.setsockopt(zmq.SUBSCRIBE, self.subscription)
        sub.connect(self.feed_endpoint)
        self._sub = sub
        self._subscribed = False
        self._req = self._new_req()
        self._state = ClientState.SYNCING
        self._last_heard = self._mono()

    def _new_req(self) -> zmq.asyncio.Socket:
        req = self.ctx.socket(zmq.DEALER)
        req.linger = 0
        req.maxmsgsize = MAX_MESSAGE_BYTES
        if self.keys is not None:
            self.keys.apply(req)
        req.connect(self.snapshot_endpoint)
        return req

    async def close(self) -> None:
        """Close both sockets (idempotent)."""
        close_monitored(self._sub, self._monitor)
        if self._req is not None:
            self._req.close(linger=0)
        self._sub = self._req = self._monitor = None
        self._pending_until = None

    async def __aenter__(self) -> FeedClient:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # -- inspection --------------------------------------------------------------------------

    @property
    def state(self) -> ClientState:
        """``SYNCING``, ``LIVE`` or ``LOST``."""
        return self._state

    @property
    def subscription(self) -> bytes:
        """The topic prefix subscribed to: the table's (``b"T1/"``), or everything (``b""``)."""
        return table_topic(self.table_id) if self.table_id else b""

    @property
    def lag(self) -> float:
        """Seconds the last message taken was behind the table's clock."""
        return self._lag

    @property
    def stale(self) -> bool:
        """True from a ``STALE`` event to the next ``CAUGHT_UP`` (or snapshot)."""
        return self._stale

    @property
    def seq(self) -> int:
        """Sequence number of the last message applied (snapshot or update)."""
        return self._seq

    @property
    def epoch(self) -> str | None:
        """The publishing daemon's epoch, from the last snapshot."""
        return self._epoch

    # -- events ------------------------------------------------------------------------------

    async def events(self) -> AsyncIterator[FeedEvent]:
        """Yield events forever (until the client is closed)."""
        while self._sub is not None:
            ev = await self.next_event(timeout=1.0)
            if ev is not None:
                yield ev

    async def next_event(self, timeout: float | None = None) -> FeedEvent | None:
        """Wait for the next event.

        :param timeout: seconds to wait at most (``None`` = until an event).
        :returns: the event, or ``None`` if ``timeout`` passed without one.
        """
        if self._sub is None:
            await self.start()
        deadline = None if timeout is None else self._mono() + timeout
        while True:
            queued, self._queued = self._queued, None
            if queued is not None:
                return queued
            refused = await self._handshake_refused()
            if refused is not None:
                return refused
            now = self._mono()
            if deadline is not None and now >= deadline:
                return None
            if self._state is ClientState.SYNCING and not self._subscribed:
                if not await self._hear_subscription(deadline) and (
                        self._mono() - self._last_heard >= self.heartbeat_timeout):
                    return self._lose("nothing heard")
                continue
            if self._state is ClientState.SYNCING:
                ev = await self._sync(deadline)
                if ev is not None:
                    return ev
                if self._mono() - self._last_heard >= self.heartbeat_timeout:
                    return self._lose("no snapshot reply")
                continue
            ev = await self._receive(deadline)
            if ev is not None:
                return ev

    async def _handshake_refused(self) -> FeedEvent | None:
        """Return one ``LOST`` event when the table first refuses this client's key."""
        from zmq.utils.monitor import parse_monitor_message

        mon = self._monitor
        while mon is not None and self.key_refused is None and await mon.poll(0):
            event = parse_monitor_message(await mon.recv_multipart())["event"]
            if event == zmq.EVENT_HANDSHAKE_FAILED_AUTH:
                why = ("key refused: the table does not allow this display's key (its .key "
                       "file must be in the table's keys.displays_dir)")
            else:
                why = ("key refused: the CURVE handshake failed (is --server-key the table's "
                       "server.key?)")
            self.key_refused = why
            # no one reads the monitor after this: stop it before its events fill the pipe
            stop_monitor(self._sub, mon)
            self._monitor = None
            self._state = ClientState.LOST
            self.stats.lost += 1
            self.stats.last_error = why
            return FeedEvent(FeedEventKind.LOST, self._seq, reason=why)
        return None

    def _lose(self, why: str) -> FeedEvent:
        self._state = ClientState.LOST
        self._recovering = True
        self.stats.lost += 1
        reason = f"connection lost: {why} for {self.heartbeat_timeout:g} s"
        self.stats.last_error = reason
        return FeedEvent(FeedEventKind.LOST, self._seq, reason=reason)

    def _gap(self, why: str) -> FeedEvent:
        self._state = ClientState.SYNCING
        self.stats.gaps += 1
        return FeedEvent(FeedEventKind.GAP, self._seq, reason=why)

    async def _hear_subscription(self, deadline: float | None) -> bool:
        """Wait for the new subscription's first message of this table; return whether it came.

        The wait ends at ``deadline`` or the heartbeat timeout. The message itself is dropped:
        it was published before the snapshot about to be asked for, which holds it.
        """
        assert self._sub is not None
        # at most ``snapshot_timeout`` at a time: a refused key is looked for between waits
        waits = [self._last_heard + self.heartbeat_timeout - self._mono(), self.snapshot_timeout]
        if deadline is not None:
            waits.append(deadline - self._mono())
        if not await self._sub.poll(int(max(0.0, min(waits)) * 1000) + 1):
            return False
        return await self._take() is not None

    async def _take(self) -> Message | None:
        """Receive one message from the feed; return it if it is this table's and decodes.

        A message taken proves the subscription live. ``None``: a bad message (counted), or
        another table's (through a floor proxy).
        """
        assert self._sub is not None
        frames = await self._sub.recv_multipart()
        try:
            msg = decode(frames[-1])
        except MessageError as exc:
            self.stats.bad_messages += 1
            self.stats.last_error = str(exc)
            return None
        if self.table_id is not None and msg.table != self.table_id:
            return None  # another table says nothing about ours
        self._last_heard = self._mono()
        self._subscribed = True
        return msg

    async def _receive(self, deadline: float | None) -> FeedEvent | None:
        assert self._sub is not None
        now = self._mono()
        waits = [] if deadline is None else [deadline - now]
        if self._state is ClientState.LIVE:
            waits.append(self._last_heard + self.heartbeat_timeout - now)
        wait = max(0.0, min(waits)) if waits else None
        ready = await self._sub.poll(None if wait is None else int(wait * 1000) + 1)
        if not ready:
            if (
                self._state is ClientState.LIVE
                and self._mono() - self._last_heard >= self.heartbeat_timeout
            ):
                return self._lose("nothing heard")
            return None
        msg = await self._take()
        if msg is None:
            return None
        if self._state is ClientState.LOST:
            self._state = ClientState.SYNCING
            return None
        if msg.type == "heartbeat":
            self.stats.heartbeats += 1
            epoch = msg.data.get("epoch")
            if epoch != self._epoch:
                return self._gap(f"publisher restarted (epoch {epoch})")
            if msg.seq != self._seq:
                return self._gap(f"heartbeat says seq {msg.seq}, last received {self._seq}")
            return self._measure_lag(msg.ts)
        if msg.seq <= self._seq:
            self.stats.dropped_stale += 1
            return None
        if msg.seq != self._seq + 1:
            return self._gap(f"missed messages {self._seq + 1}..{msg.seq - 1}")
        self._seq = msg.seq
        self.stats.updates += 1
        self._queued = self._measure_lag(msg.ts)
        return FeedEvent(FeedEventKind.UPDATE, self._seq, message=msg, lag=self._lag)

    def _measure_lag(self, ts: float) -> FeedEvent | None:
        """Note how far behind the table a message of ``ts`` is; ``STALE`` / ``CAUGHT_UP``."""
        behind = self._wall() - ts
        if self._offset is None or behind < self._offset:
            self._offset = behind
        self._lag = lag = behind - self._offset
        self.stats.max_lag = max(self.stats.max_lag, lag)
        if lag >= self.stale_after and not self._stale:
            self._stale = True
            self.stats.stale += 1
            return FeedEvent(FeedEventKind.STALE, self._seq, lag=lag,
                             reason=f"{lag:.1f} s behind the table")
        if lag < self.stale_after and self._stale:
            self._stale = False
            return FeedEvent(FeedEventKind.CAUGHT_UP, self._seq, lag=lag)
        return None

    async def _sync(self, deadline: float | None) -> FeedEvent | None:
        assert self._req is not None
        now = self._mono()
        if self._pending_until is None:
            self._request += 1
            req = Message(
                "snapshot_request", 0, self.table_id or "", time.time(),
                {"feed": self.feed.value, "request": self._request},
            )
            await self._req.send(req.encode())
            self._pending_until = now + self.snapshot_timeout
        pending_until = self._pending_until
        until = pending_until if deadline is None else min(pending_until, deadline)
        while True:
            wait = until - self._mono()
            if wait <= 0 or not await self._req.poll(int(wait * 1000) + 1):
                if self._mono() >= pending_until:
                    # no answer: ask again on a fresh socket (Lazy Pirate)
                    self._pending_until = None
                    self._req.close(linger=0)
                    self._req = self._new_req()
                return None
            raw = await self._req.recv()
            with contextlib.suppress(MessageError):
                msg = decode(raw)
                if (
                    msg.type == "snapshot"
                    and msg.data.get("request") == self._request
                    and msg.data.get("feed") == self.feed.value
                    and msg.v == PROTOCOL_VERSION
                ):
                    self._pending_until = None
                    return self._apply_snapshot(msg)
                if msg.type == "error":
                    self.stats.last_error = str(msg.data.get("reason", ""))

    def _apply_snapshot(self, msg: Message) -> FeedEvent:
        self._seq = msg.seq
        self._offset = self._wall() - msg.ts
        self._lag = 0.0
        self._stale = False
        self._queued = None
        epoch = msg.data.get("epoch")
        self._epoch = epoch if isinstance(epoch, str) else None
        self._state = ClientState.LIVE
        self._last_heard = self._mono()
        self.stats.snapshots += 1
        state = msg.data.get("state", {})
        kind = FeedEventKind.RECOVERED if self._recovering else FeedEventKind.SNAPSHOT
        self._recovering = False
        return FeedEvent(kind, self._seq, message=msg,
                         state=state if isinstance(state, Mapping) else {})
