"""The publishing side of the feeds: one PUB socket per audience, snapshots and heartbeats.

Rules this module keeps:

1. Each audience (:class:`~table_controller.feeds.messages.Feed`) has its own PUB socket: topics
   give no secrecy. The surveillance feed and its snapshot endpoint use CURVE with the displays'
   allow-list when a :class:`~table_controller.feeds.security.CurveServer` is given.
2. Every message on a feed is two frames, the topic ``TABLE/TYPE``
   (:func:`~table_controller.feeds.messages.topic`: a floor display filters by table) and the
   message, which carries that feed's next sequence number (1, 2, ...). A snapshot answers
   with the feed's current state and the sequence number of the last message that state includes
   (the ZeroMQ guide's Clone pattern): a client subscribes first, then asks for the snapshot, then
   drops queued updates with ``seq <=`` the snapshot's.
3. The state and the sequence number change together, in one step without an ``await`` between:
   a snapshot is never newer or older than the sequence number it names.
4. Messages and states for the public and dealer feeds are redacted
   (:func:`~table_controller.feeds.messages.redact`) and then checked
   (:func:`~table_controller.feeds.messages.check_no_hole_cards`, with the secret cards given to
   :meth:`FeedHub.set_secret_cards`). A leak raises
   :class:`~table_controller.feeds.messages.HoleCardLeak` and nothing is sent or changed, on any
   feed.
5. A feed idle for ``heartbeat_interval`` gets a ``heartbeat`` carrying its current sequence
   number (not a new one) and the hub's ``epoch``, so a display sees a lost last message, a dead
   link or a restarted daemon. The heartbeat task sleeps until the first feed's heartbeat is
   due (not a fixed poll), and counts how late each one is sent, or the message that came
   after it was due and took its place (:attr:`FeedHub.heartbeats`).
6. Bounded against hostile clients (``docs/messages.md``, "Limits"): the feeds are XPUB sockets
   in manual mode, so whatever a subscriber asks for is recorded as one subscription to
   everything (its SUB socket filters locally): a peer holds at most one subscription, and one
   larger than :data:`MAX_SUBSCRIPTION_BYTES` cuts it off. The snapshot endpoints take requests
   of at most :data:`~table_controller.feeds.messages.MAX_REQUEST_BYTES` (a larger one cuts the
   peer off), answer at most ``snapshot_rate`` requests a second per peer (``snapshot_burst`` at
   once) and refuse the rest with an ``error`` whose reason starts ``rate limit:``, and yield to
   the event loop after every request. A bad request is answered with ``error`` and logged as
   one line, at most a few a minute (:class:`~table_controller.ratelimit.RateLimitedLog`).

The daemon journals first and publishes after (architecture rule); the hub does not journal.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import zmq
import zmq.asyncio

from table_controller.engine.cards import Card
from table_controller.feeds.messages import (
    MAX_REQUEST_BYTES,
    REDACTED_FEEDS,
    Feed,
    FeedError,
    Message,
    topic,
)
from table_controller.feeds.peers import PeerServing
from table_controller.feeds.security import DISPLAYS_DOMAIN, CurveServer
from table_controller.feeds.wire import card_code, has_hole_card_key, prepare, wire
from table_controller.looptime import Lateness
from table_controller.ratelimit import PeerLimiter, RateLimitedLog

log = logging.getLogger(__name__)

#: Names of the sockets a hub binds.
SOCKET_NAMES = ("public", "dealer", "surveillance", "snapshot", "surveillance_snapshot")
#: Names of the feed (XPUB) sockets.
FEED_SOCKETS = ("public", "dealer", "surveillance")
#: Largest subscription message a feed takes (a larger one disconnects the peer; it bounds the
#: CURVE handshake too, whose INITIATE is some 300 bytes).
MAX_SUBSCRIPTION_BYTES = 1024
#: Default snapshot requests a second per peer, and how many at once.
SNAPSHOT_RATE = 200.0
SNAPSHOT_BURST = 400
#: Requests (and replies) queued per snapshot peer before ZeroMQ stops reading (drops replies).
SNAPSHOT_HWM = 32


@dataclass(frozen=True, slots=True)
class FeedEndpoints:
    """Where the hub binds. ``tcp://127.0.0.1:*`` picks a free port (see :attr:`FeedHub.bound`).

    :param snapshot: snapshots of the public and dealer feeds (no CURVE).
    :param surveillance_snapshot: snapshots of the surveillance feed (CURVE, displays' list).
    """

    public: str
    dealer: str
    surveillance: str
    snapshot: str
    surveillance_snapshot: str

    @classmethod
    def loopback(cls) -> FeedEndpoints:
        """Ephemeral ports on 127.0.0.1 (tests, benchmarks)."""
        return cls(*(["tcp://127.0.0.1:*"] * 5))

    @classmethod
    def from_config(cls, endpoints: Any) -> FeedEndpoints:
        """Take the fields of a :class:`table_controller.config.EndpointsSection`."""
        return cls(
            endpoints.public, endpoints.dealer, endpoints.surveillance, endpoints.snapshot,
            endpoints.surveillance_snapshot,
        )


def _sent(done: Awaitable[object]) -> None:
    """Take the outcome of a feed socket's send, which is done when it returns.

    An XPUB never waits to send (a subscriber whose queue is full loses the message), so the
    asyncio socket's send is finished before it returns; its failure is raised here, as an
    ``await`` would. The send goes through the asyncio socket, not a plain view of it: after
    a send it checks the socket's events for the subscription reader (ZeroMQ's descriptor is
    edge-triggered: a send may take the edge a new subscription would have given).
    """
    if isinstance(done, asyncio.Future):
        if done.done():
            done.result()
        else:  # pragma: no cover - an XPUB does not wait; kept for a socket that would
            done.add_done_callback(_log_failed_send)


def _log_failed_send(done: asyncio.Future[object]) -> None:  # pragma: no cover - see _sent
    if not done.cancelled() and done.exception() is not None:
        log.error("feed send failed: %s", done.exception())


class FeedHub(PeerServing):
    """Publishes the table to its audiences and serves snapshots (:class:`.peers.PeerServing`).

    Use ``async with FeedHub(...) as hub`` (or :meth:`start` / :meth:`stop`) inside the event loop.

    :param ctx: the daemon's asyncio context.
    :param table_id: table id put in every message.
    :param endpoints: where to bind.
    :param curve: CURVE server of ``ctx`` (started by the caller); ``None`` = no encryption
        (development only).
    :param heartbeat_interval: seconds of idleness after which a feed gets a heartbeat.
    :param wall_clock: source of the ``ts`` field.
    :param mono_clock: monotonic clock for idleness.
    :param epoch: identifies this run of the daemon (default: random); displays re-snapshot
        when it changes.
    :param sndhwm: send high-water mark of each feed socket (messages queued per subscriber).
    :param snapshot_rate: snapshot requests a second answered per peer (its IP address; its
        CURVE key on the surveillance snapshot endpoint); more are refused.
    :param snapshot_burst: requests a peer may make at once.
    """

    def __init__(
        self,
        ctx: zmq.asyncio.Context,
        *,
        table_id: str,
        endpoints: FeedEndpoints,
        curve: CurveServer | None = None,
        heartbeat_interval: float = 1.0,
        wall_clock: Callable[[], float] = time.time,
        mono_clock: Callable[[], float] = time.monotonic,
        epoch: str | None = None,
        sndhwm: int = 1000,
        snapshot_rate: float = SNAPSHOT_RATE,
        snapshot_burst: int = SNAPSHOT_BURST,
    ) -> None:
        if heartbeat_interval <= 0:
            raise FeedError(f"heartbeat_interval must be > 0, got {heartbeat_interval}")
        if "/" in table_id:
            raise FeedError(f"table_id must not contain '/' (it starts every topic), got "
                            f"{table_id!r}")
        if snapshot_rate <= 0 or snapshot_burst < 1:
            raise FeedError(f"snapshot_rate must be > 0 and snapshot_burst >= 1, got "
                            f"{snapshot_rate}, {snapshot_burst}")
        self.ctx = ctx
        self.table_id = table_id
        self.endpoints = endpoints
        self.curve = curve
        self.heartbeat_interval = heartbeat_interval
        self._wall = wall_clock
        self._mono = mono_clock
        self.epoch = epoch or os.urandom(8).hex()
        self._sndhwm = sndhwm
        self._sockets: dict[str, zmq.asyncio.Socket] = {}
        self._bound: dict[str, str] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._seq = dict.fromkeys(Feed, 0)
        self._state: dict[Feed, Mapping[str, Any]] = {f: {} for f in Feed}
        self._last_sent = dict.fromkeys(Feed, 0.0)
        self._secret: frozenset[str] = frozenset()
        self._running = False
        self.snapshot_rate = snapshot_rate
        self._limiters = {
            name: PeerLimiter(snapshot_rate, snapshot_burst)
            for name in ("snapshot", "surveillance_snapshot")
        }
        self._rlog = RateLimitedLog(log, interval=60.0, burst=5)
        #: Snapshot requests refused by the rate limit, per endpoint name.
        self.refused: dict[str, int] = {"snapshot": 0, "surveillance_snapshot": 0}
        #: Subscription messages taken on the feed sockets.
        self.subscriptions = 0
        #: How late the heartbeats were (a feed idle past the interval: each heartbeat counts,
        #: and so does a message sent after the feed's heartbeat was due, which it replaces).
        self.heartbeats = Lateness()

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Bind every socket and start the snapshot servers and the heartbeat loop.

        :raises FeedError: if an endpoint cannot be bound (the sockets bound so far are closed).
        """
        if self._running:
            return
        try:
            for name in SOCKET_NAMES:
                self._bind(name, getattr(self.endpoints, name))
        except FeedError:
            self._close_sockets()
            raise
        self._running = True
        now = self._mono()
        for f in Feed:
            self._last_sent[f] = now
        for name in ("snapshot", "surveillance_snapshot"):
            self._start_snapshot_task(name)
        for name in FEED_SOCKETS:
            self._start_subscription_task(name)
        self._tasks["heartbeat"] = asyncio.create_task(self._heartbeat_loop())

    async def stop(self) -> None:
        """Stop the tasks and close every socket (linger 0). Idempotent."""
        self._running = False
        tasks = list(self._tasks.values())
        self._tasks.clear()
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await t
        self._close_sockets()

    async def __aenter__(self) -> FeedHub:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    def _bind(self, name: str, endpoint: str) -> None:
        kind = zmq.XPUB if name in FEED_SOCKETS else zmq.ROUTER
        sock = self.ctx.socket(kind)
        sock.linger = 0
        if kind == zmq.XPUB:
            sock.sndhwm = self._sndhwm
            sock.setsockopt(zmq.XPUB_MANUAL, 1)
            sock.maxmsgsize = MAX_SUBSCRIPTION_BYTES
            sock.rcvhwm = 64
        else:
            sock.router_mandatory = False
            sock.maxmsgsize = MAX_REQUEST_BYTES
            sock.rcvhwm = SNAPSHOT_HWM
            sock.sndhwm = SNAPSHOT_HWM
        if self.curve is not None and name in ("surveillance", "surveillance_snapshot"):
            self.curve.secure(sock, DISPLAYS_DOMAIN)
        try:
            sock.bind(endpoint)
        except zmq.ZMQError as exc:
            sock.close(linger=0)
            raise FeedError(f"cannot bind the {name} endpoint {endpoint}: {exc}") from exc
        self._sockets[name] = sock
        last = sock.last_endpoint
        self._bound[name] = last.decode() if isinstance(last, bytes) else str(last)

    def _close_sockets(self) -> None:
        for sock in self._sockets.values():
            sock.close(linger=0)
        self._sockets.clear()

    # -- inspection --------------------------------------------------------------------------

    @property
    def bound(self) -> Mapping[str, str]:
        """Actual endpoints by socket name (``"public"``, ..., ``"surveillance_snapshot"``)."""
        return dict(self._bound)

    def keeper_view(self, feed: Feed) -> tuple[zmq.asyncio.Socket | None, float]:
        """Return the feed's socket and when it last sent (monotonic): for :mod:`.keeper` only."""
        return self._sockets.get(feed.value), self._last_sent[feed]

    def seq(self, feed: Feed) -> int:
        """Sequence number of the last message published on ``feed`` (0 = none yet)."""
        return self._seq[feed]

    def state(self, feed: Feed) -> Mapping[str, Any]:
        """Return the state a snapshot of ``feed`` gives now (redacted for public and dealer)."""
        return self._state[feed]

    def set_secret_cards(self, cards: Iterable[Card | str]) -> None:
        """Name the hole cards not yet shown; no public or dealer message may mention them.

        Call it when a hole card is dealt (add it) and when cards are shown or the hand ends
        (remove them).
        """
        self._secret = frozenset(card_code(c) for c in cards)

    @property
    def secret_cards(self) -> frozenset[str]:
        """Codes of the hole cards currently guarded."""
        return self._secret

    # -- publishing --------------------------------------------------------------------------

    async def publish(
        self,
        feed: Feed,
        mtype: str,
        data: Mapping[str, Any],
        *,
        state: Mapping[str, Any] | None = None,
    ) -> Message:
        """Send one message on one feed; optionally replace that feed's snapshot state.

        :param feed: the audience.
        :param mtype: message type (see ``docs/messages.md``).
        :param data: body (hole cards under a key of ``HOLE_CARD_KEYS``; redacted for public
            and dealer).
        :param state: the feed's whole state after this message (for snapshots); ``None`` keeps
            the previous state.
        :returns: the message as sent.
        :raises HoleCardLeak: if the public or dealer message still holds hole-card data.
        :raises FeedError: if the hub is not running or the data is not plain JSON.
        """
        sent = await self.broadcast_to(
            {feed: (data, state)}, mtype
        )
        return sent[feed]

    async def broadcast(
        self,
        mtype: str,
        data: Mapping[str, Any],
        *,
        state: Mapping[str, Any] | None = None,
        feeds: Iterable[Feed] = tuple(Feed),
    ) -> dict[Feed, Message]:
        """Send the same (full) data to several feeds, redacted where needed; all or nothing.

        :param state: the full state after this message; each feed's snapshot becomes its
            (redacted) copy.
        :raises HoleCardLeak: if a redacted copy still leaks (nothing is sent on any feed).
        """
        return await self.broadcast_to({f: (data, state) for f in feeds}, mtype)

    async def broadcast_to(
        self,
        items: Mapping[Feed, tuple[Mapping[str, Any], Mapping[str, Any] | None]],
        mtype: str,
    ) -> dict[Feed, Message]:
        """Send per-feed data and states under one message type; all checks pass before any send.

        :raises HoleCardLeak: if a public or dealer copy leaks (nothing is sent or changed).
        :raises FeedError: if the hub is not running or a body is not plain JSON.
        """
        return self.send_now(items, mtype)

    def send_now(
        self,
        items: Mapping[Feed, tuple[Mapping[str, Any], Mapping[str, Any] | None]],
        mtype: str,
        *,
        between: Callable[[], None] | None = None,
    ) -> dict[Feed, Message]:
        """:meth:`broadcast_to` without the event loop: sent when this returns, in item order.

        A feed socket never waits to send (a subscriber whose queue is full loses the message,
        as a PUB socket does), so nothing is awaited: a caller that must not yield between its
        journal commit and the send (the daemon's prompt) sends here.

        :param between: called once the first feed's message was sent, before the next feed's
            is built (every body was checked by then): what the caller would rather do while
            that message crosses (the daemon's journal anchor, a disk write that leaves the
            CPU to the first feed's subscriber) than the next feeds' sends. Its exception is
            raised after every feed's message was sent.

        :raises HoleCardLeak: if a public or dealer copy leaks (nothing is sent or changed).
        :raises FeedError: if the hub is not running or a body is not plain JSON.
        """
        if not self._running:
            raise FeedError("the feed hub is not running")
        ts = self._wall()
        # every body is redacted, checked and encoded before any send (all or nothing); the
        # same data (and state) for several redacted feeds, or for several plain ones, once
        # (the objects are alive for the whole call); a plain copy of data whose redacted copy
        # has no hole-card key is that copy (redact changed nothing), so it is not encoded again
        done: dict[tuple[bool, int, int], tuple[dict[str, Any], str, Mapping[str, Any] | None]]
        done = {}
        bodies: list[tuple[Feed, tuple[dict[str, Any], str, Mapping[str, Any] | None]]] = []
        for feed, (data, state) in items.items():
            redacted = feed in REDACTED_FEEDS
            key = (redacted, id(data), id(state))
            got = done.get(key)
            if got is None and not redacted and state is None:
                same = done.get((True, id(data), id(state)))
                if same is not None and not has_hole_card_key(same[1]):
                    got = done[key] = same
            if got is None:
                got = done[key] = prepare(feed, mtype, data, state, self._secret)
            bodies.append((feed, got))
        # then each feed in item order: its header, its bookkeeping, its send, so the first
        # feed's message (the dealer's prompt) leaves before the next ones' are built; the
        # wire bytes of the first are made before any send (a bad ``ts`` fails every feed)
        table_id, sockets = self.table_id, self._sockets
        frame = topic(table_id, mtype)
        now = self._mono()
        sent: dict[Feed, Message] = {}
        failed: BaseException | None = None
        for feed, (out, text, new_state) in bodies:
            if between is not None and sent:
                try:
                    between()
                except Exception as exc:  # raised once every feed has its message
                    failed = exc
                between = None
            seq = self._seq[feed] + 1
            body = wire(mtype, seq, table_id, ts, text)
            if now > (due := self._heartbeat_due(feed)):
                self._heartbeat_late(now - due, now)  # its heartbeat was due: it was late
            self._seq[feed] = seq
            if new_state is not None:
                self._state[feed] = new_state
            self._last_sent[feed] = now
            sock = sockets.get(feed.value)
            if sock is not None:  # None only while revoke_display rebinds: clients see a gap
                _sent(sock.send_multipart([frame, body]))
            sent[feed] = Message(mtype, seq, table_id, ts, out)
        if failed is not None:
            raise failed
        return sent

    # -- heartbeats --------------------------------------------------------------------------

    async def tick(self, now: float) -> list[Feed]:
        """Send a heartbeat on every feed idle for ``heartbeat_interval`` at monotonic ``now``.

        :returns: the feeds that got one.
        """
        if not self._running:
            return []
        due = [f for f in Feed if now >= self._heartbeat_due(f)]
        for feed in due:
            self._heartbeat_late(now - self._heartbeat_due(feed), now)
            await self.heartbeat(feed, now)
        return due

    def heartbeat_wait(self, now: float) -> float:
        """Seconds from monotonic ``now`` until the first feed's heartbeat is due.

        At most a quarter of the interval (and 0.25 s): the heartbeat task also follows a clock
        that is not the loop's (a test's).
        """
        due = min(self._heartbeat_due(f) for f in Feed)
        return min(self.heartbeat_interval / 4, 0.25, max(0.0, due - now))

    def _heartbeat_due(self, feed: Feed) -> float:
        return self._last_sent[feed] + self.heartbeat_interval

    def _heartbeat_late(self, late: float, now: float) -> None:
        # the loop's turns explain the latest one (when this hub runs on the loop's clock)
        self.heartbeats.record(late, now, explain=self._mono is time.monotonic)

    def heartbeat_report(self) -> dict[str, Any]:
        """Return how late the heartbeats were sent (for ``status``; :class:`.Lateness`)."""
        return self.heartbeats.to_data()

    async def heartbeat(self, feed: Feed, now: float | None = None) -> Message:
        """Send a heartbeat on ``feed`` now (carries the current seq, not a new one)."""
        msg = Message(
            "heartbeat", self._seq[feed], self.table_id, self._wall(),
            {"epoch": self.epoch, "interval": self.heartbeat_interval},
        )
        self._last_sent[feed] = self._mono() if now is None else now
        sock = self._sockets.get(feed.value)
        if sock is not None:  # None only while revoke_display rebinds
            _sent(sock.send_multipart([topic(self.table_id, "heartbeat"), msg.encode()]))
        return msg

    async def _heartbeat_loop(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_wait(self._mono()))
            try:
                await self.tick(self._mono())
            except Exception:  # pragma: no cover - keep heartbeating whatever happened
                log.exception("heartbeat failed")

    # -- snapshots ---------------------------------------------------------------------------

    def snapshot(self, feed: Feed, request: int | None = None) -> Message:
        """Return the snapshot message of ``feed`` as the snapshot endpoint would send it."""
        data: dict[str, Any] = {"feed": feed.value, "epoch": self.epoch,
                                "state": dict(self._state[feed])}
        if request is not None:
            data["request"] = request
        return Message("snapshot", self._seq[feed], self.table_id, self._wall(), data)

    # -- revocation --------------------------------------------------------------------------

    async def revoke_display(self, key: bytes | str) -> None:
        """Remove a display key and cut existing connections (close and rebind, same endpoints).

        :raises FeedError: if there is no CURVE server, or a socket cannot be rebound.
        """
        if self.curve is None:
            raise FeedError("no CURVE server: there are no display keys to revoke")
        self.curve.displays.remove(key)
        for task_name in ("surveillance_snapshot", "surveillance_subscriptions"):
            task = self._tasks.pop(task_name, None)
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for name in ("surveillance", "surveillance_snapshot"):
            endpoint = self._bound[name]
            self._sockets.pop(name).close(linger=0)
            for attempt in range(50):
                try:
                    self._bind(name, endpoint)
                    break
                except FeedError:
                    if attempt == 49:
                        raise
                    await asyncio.sleep(0.02)
        if self._running:
            self._start_snapshot_task("surveillance_snapshot")
            self._start_subscription_task("surveillance")
