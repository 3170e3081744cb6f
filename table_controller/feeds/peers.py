"""The feed hub's serving side: its peers' subscriptions and snapshot requests, bounded.

:class:`PeerServing` is the part of :class:`~table_controller.feeds.hub.FeedHub` that reads from
its sockets (rule 6 of :mod:`~table_controller.feeds.hub`): each subscription a feed socket
receives becomes one subscription to everything, and each snapshot request is checked, rate
limited per peer and answered with a ``snapshot`` or a one-line ``error``. The hub owns the
sockets, the limiters and the state; this class only serves them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import zmq
import zmq.asyncio

from table_controller.feeds.bounded import recv_bounded
from table_controller.feeds.messages import (
    MAX_REQUEST_BYTES,
    Feed,
    Message,
    MessageError,
    decode,
)
from table_controller.feeds.security import CurveServer
from table_controller.ratelimit import PeerLimiter, RateLimitedLog

#: Frames of a snapshot request kept (the first ones and the last, the body).
MAX_REQUEST_FRAMES = 4


class PeerServing:
    """Serves a hub's subscriptions and snapshot requests (mixed into ``FeedHub``)."""

    table_id: str
    curve: CurveServer | None
    snapshot_rate: float
    subscriptions: int
    refused: dict[str, int]
    _sockets: dict[str, zmq.asyncio.Socket]
    _tasks: dict[str, asyncio.Task[None]]
    _limiters: dict[str, PeerLimiter]
    _rlog: RateLimitedLog
    _wall: Callable[[], float]
    _mono: Callable[[], float]

    def snapshot(self, feed: Feed, request: int | None = None) -> Message:
        """Return the feed's snapshot (the hub defines it)."""
        raise NotImplementedError  # pragma: no cover - FeedHub defines it

    def _start_snapshot_task(self, name: str) -> None:
        allowed = (
            frozenset({Feed.SURVEILLANCE, Feed.PUBLIC, Feed.DEALER})
            if name == "surveillance_snapshot"
            else frozenset({Feed.PUBLIC, Feed.DEALER})
        )
        self._tasks[name] = asyncio.create_task(self._serve_snapshots(name, allowed))

    def _start_subscription_task(self, name: str) -> None:
        self._tasks[f"{name}_subscriptions"] = asyncio.create_task(self._serve_subscriptions(name))

    async def _take_subscription(self, sock: zmq.asyncio.Socket, *, wait: bool) -> bool:
        """Take one subscription message from a feed socket; ``False`` if none was waiting.

        XPUB manual mode: each (un)subscription of a peer is read here, and the peer is given
        the one subscription to everything instead (``setsockopt`` applies to the peer of the
        message just read). Unsubscriptions are ignored: a peer's subscription ends with it.
        """
        try:
            frame = await sock.recv(0 if wait else zmq.NOBLOCK)
        except zmq.Again:
            return False
        subscribe = frame[:1] == b"\x01"
        while sock.rcvmore:  # not a subscription (a message from an XSUB): dropped
            subscribe = False
            await sock.recv(zmq.NOBLOCK)
        if subscribe:
            sock.setsockopt(zmq.SUBSCRIBE, b"")
        self.subscriptions += 1
        return True

    async def _serve_subscriptions(self, name: str) -> None:
        sock = self._sockets[name]
        while True:
            try:
                await self._take_subscription(sock, wait=True)
                for _ in range(999):  # a batch, then the event loop runs
                    if not await self._take_subscription(sock, wait=False):
                        break
            except zmq.ZMQError as exc:  # pragma: no cover - socket closed under us
                self._rlog.warning(("subscriptions", name), "feed %s: %s", name, exc,
                                   now=self._mono())
            await asyncio.sleep(0)

    def _peer(self, name: str, frame: zmq.Frame) -> str:
        prop = "User-Id" if self.curve is not None and name == "surveillance_snapshot" else (
            "Peer-Address")
        try:
            peer = frame.get(prop)
        except zmq.ZMQError:
            peer = None
        return peer if isinstance(peer, str) and peer else frame.bytes.hex()

    async def _serve_snapshots(self, name: str, allowed: frozenset[Feed]) -> None:
        sock = self._sockets[name]
        while True:
            await asyncio.sleep(0)  # one request, then the event loop (heartbeats) runs
            frames, _ = await recv_bounded(sock, MAX_REQUEST_FRAMES)
            now = self._mono()
            if len(frames) < 2:
                continue
            ident, rest = frames[0].bytes, frames[1:]
            envelope = [ident]
            if len(rest) >= 2 and rest[0].bytes == b"":
                envelope.append(b"")
                rest = rest[1:]
            peer = self._peer(name, rest[-1])
            if not self._limiters[name].allow(peer, now):
                self.refused[name] += 1
                reason = f"rate limit: {self.snapshot_rate:g} snapshot requests a second"
                self._rlog.warning((name, "rate"), "snapshot endpoint %s: refused %s: %s",
                                   name, peer, reason, now=now)
                raw = Message("error", 0, self.table_id, self._wall(),
                              {"reason": reason}).encode()
            else:
                raw = self._snapshot_reply(name, peer, rest[-1].bytes, allowed, now)
            try:
                await sock.send_multipart([*envelope, raw])
            except zmq.ZMQError as exc:  # pragma: no cover - peer vanished
                self._rlog.warning((name, "send"), "snapshot endpoint %s: cannot reply: %s",
                                   name, exc, now=now)

    def _snapshot_reply(
        self, name: str, peer: str, raw: bytes, allowed: frozenset[Feed], now: float
    ) -> bytes:
        try:
            msg = self.answer_snapshot_request(raw, allowed)
            if msg.type == "error":
                self._rlog.warning((name, "bad"), "snapshot endpoint %s: bad request from %s: %s",
                                   name, peer, msg.data.get("reason"), now=now)
            return msg.encode()
        except Exception as exc:  # keep serving: e.g. a state that is not plain JSON
            self._rlog.error((name, "internal"), "snapshot endpoint %s failed", name, now=now,
                             exc_info=True)
            return Message("error", 0, self.table_id, self._wall(),
                           {"reason": f"internal error: {type(exc).__name__}"}).encode()

    def answer_snapshot_request(
        self, raw: bytes, allowed: frozenset[Feed] = frozenset({Feed.PUBLIC, Feed.DEALER})
    ) -> Message:
        """Answer one ``snapshot_request`` body as the endpoint would (without a socket).

        :param raw: the request bytes (at most
            :data:`~table_controller.feeds.messages.MAX_REQUEST_BYTES`).
        :param allowed: the feeds this endpoint serves.
        :returns: the ``snapshot``, or an ``error`` whose ``reason`` says what was wrong (one
            line). Any input gets one of the two.
        """
        try:
            req = decode(raw, max_bytes=MAX_REQUEST_BYTES)
            if req.type != "snapshot_request":
                raise MessageError(f"expected a snapshot_request, got {req.type!r}")
            feed_name = req.data.get("feed")
            request = req.data.get("request")
            if not isinstance(request, int) or isinstance(request, bool):
                request = None
            try:
                feed = Feed(str(feed_name))
            except ValueError:
                raise MessageError(f"no feed {feed_name!r}") from None
            if feed not in allowed:
                raise MessageError(f"the {feed} snapshot is not served on this endpoint")
        except MessageError as exc:
            return Message("error", 0, self.table_id, self._wall(), {"reason": str(exc)})
        return self.snapshot(feed, request)
