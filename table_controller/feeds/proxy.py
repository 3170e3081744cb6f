"""The floor proxy: an XSUB/XPUB forwarder so floor displays see the public feeds of many tables.

The proxy connects its XSUB to each table's public feed and binds an XPUB for the floor;
messages travel downstream unchanged (each still names its table and carries that table's
sequence numbers). Floor displays take snapshots from each table's own snapshot endpoint. Runs
in a thread with a synchronous context; :meth:`FloorProxy.stop` ends it through a control socket
(``TERMINATE``).

Filtered by table: every feed message's topic starts with its table (``T1/prompt``), and a
display following some tables subscribes to each one's prefix (``T1/``), so the proxy sends it
those tables' messages only: N tables cost a display N tables' messages, not N times the whole
floor's.

Bounded like the hub's feeds: the XSUB subscribes to everything once (no subscription travels
upstream), and the XPUB runs in manual mode, so what a display asks for is decided here
(:class:`TopicFilter`): a table's prefix, at most :data:`MAX_TABLES` distinct tables asked for
(any number of displays share them), or else everything (its SUB socket filters locally). A
subscription message larger than :data:`~table_controller.feeds.hub.MAX_SUBSCRIPTION_BYTES`
cuts the display off; a table's message larger than
:data:`~table_controller.feeds.messages.MAX_MESSAGE_BYTES` is not taken.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence

import zmq

from table_controller.feeds.hub import MAX_SUBSCRIPTION_BYTES
from table_controller.feeds.messages import MAX_MESSAGE_BYTES, FeedError

#: Messages forwarded (or subscriptions taken) in one go before the other sockets are looked at.
_BATCH = 1000
#: Distinct tables the proxy filters for, as asked by displays (and, apart, as seen in the
#: tables' traffic); a display asking for another table beyond it gets everything.
MAX_TABLES = 4096
#: A table's prefix (``table.id``: no ``/``, at most 32 characters); used with ``match``.
_TABLE_PREFIX = re.compile(rb"([A-Za-z0-9][A-Za-z0-9_\-]{0,31})/")


class TopicFilter:
    r"""What the proxy subscribes a display to, for each subscription message it sends.

    Pure (no sockets). A display's subscriptions end with its connection; unsubscriptions are
    ignored.

    >>> f = TopicFilter()
    >>> f.subscription(b"\x01T1/"), f.subscription(b"\x01T1/heartbeat")
    (b'T1/', b'T1/')
    >>> f.subscription(b"\x01"), f.subscription(b"\x01heartbeat"), f.subscription(b"\x00T1/")
    (b'', b'', None)

    :param max_tables: distinct tables that displays may ask for (tables seen in the traffic are
        kept apart, up to as many).
    """

    def __init__(self, max_tables: int = MAX_TABLES) -> None:
        self.max_tables = max_tables
        self.seen: set[bytes] = set()
        """Table prefixes seen on forwarded messages."""
        self.asked: set[bytes] = set()
        """Table prefixes displays asked for."""
        self.everything = 0
        """Subscriptions answered with everything."""

    def saw(self, topic: bytes) -> None:
        """Note the topic of a message forwarded downstream."""
        end = topic.find(b"/") + 1
        if end > 1:
            prefix = topic[:end]
            if prefix not in self.seen and len(self.seen) < self.max_tables:
                self.seen.add(prefix)

    def subscription(self, frame: bytes) -> bytes | None:
        r"""Return the prefix to subscribe the display to (``b""``: everything), or ``None``.

        :param frame: the subscription message (``\x01`` + topic; ``\x00`` + topic
            unsubscribes).
        """
        if frame[:1] != b"\x01":
            return None
        m = _TABLE_PREFIX.match(frame, 1)
        if m is not None:
            prefix = frame[1:m.end()]
            if prefix in self.seen or prefix in self.asked:
                return prefix
            if len(self.asked) < self.max_tables:
                self.asked.add(prefix)
                return prefix
        self.everything += 1
        return b""


class FloorProxy:
    """Forward many tables' public feeds to one endpoint.

    :param frontends: the tables' public feed endpoints (connected).
    :param backend: where floor displays subscribe (bound; ``tcp://127.0.0.1:*`` picks a port).
    """

    def __init__(self, frontends: Sequence[str], backend: str) -> None:
        if not frontends:
            raise FeedError("the floor proxy needs at least one frontend (a table's public feed)")
        self.frontends = list(frontends)
        self.backend = backend
        self._ctx = zmq.Context()
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: Exception | None = None
        self._bound = ""
        self._control = f"inproc://floor-proxy-control-{id(self)}"
        #: what each display is subscribed to (read from this thread only for tests and stats)
        self.filter = TopicFilter()

    @property
    def bound(self) -> str:
        """The backend's actual endpoint (after :meth:`start`)."""
        return self._bound

    def start(self) -> None:
        """Start forwarding in a thread.

        :raises FeedError: if the backend cannot be bound or a frontend is invalid.
        """
        self._thread = threading.Thread(target=self._run, name="floor-proxy", daemon=True)
        self._thread.start()
        self._ready.wait(10)
        if self._error is not None:
            self._thread.join(5)
            self._ctx.destroy(linger=0)
            raise FeedError(f"floor proxy: {self._error}") from self._error

    def _run(self) -> None:
        xsub = self._ctx.socket(zmq.XSUB)
        xpub = self._ctx.socket(zmq.XPUB)
        control = self._ctx.socket(zmq.PAIR)
        for s in (xsub, xpub, control):
            s.linger = 0
        xsub.maxmsgsize = MAX_MESSAGE_BYTES
        xpub.maxmsgsize = MAX_SUBSCRIPTION_BYTES
        xpub.setsockopt(zmq.XPUB_MANUAL, 1)
        try:
            control.bind(self._control)
            xpub.bind(self.backend)
            self._bound = str(xpub.get_string(zmq.LAST_ENDPOINT))
            for ep in self.frontends:
                xsub.connect(ep)
        except zmq.ZMQError as exc:
            self._error = exc
            for s in (xsub, xpub, control):
                s.close(linger=0)
            self._ready.set()
            return
        self._ready.set()
        try:
            xsub.send(b"\x01")  # everything, once
            self._forward(xsub, xpub, control)
        except zmq.ContextTerminated:  # pragma: no cover - destroyed under us
            pass
        finally:
            for s in (xsub, xpub, control):
                s.close(linger=0)

    def _forward(self, xsub: zmq.Socket[bytes], xpub: zmq.Socket[bytes],
                 control: zmq.Socket[bytes]) -> None:
        policy = self.filter
        poller = zmq.Poller()
        for s in (xsub, xpub, control):
            poller.register(s, zmq.POLLIN)
        while True:
            ready = dict(poller.poll())
            if control in ready and control.recv() == b"TERMINATE":
                return
            if xsub in ready:
                for _ in range(_BATCH):
                    try:
                        frames = xsub.recv_multipart(zmq.NOBLOCK)
                    except zmq.Again:
                        break
                    policy.saw(frames[0])
                    xpub.send_multipart(frames)
            if xpub in ready:
                for _ in range(_BATCH):
                    try:
                        frame = xpub.recv(zmq.NOBLOCK)
                    except zmq.Again:
                        break
                    single = True
                    while xpub.rcvmore:  # not a subscription: dropped
                        single = False
                        xpub.recv()
                    prefix = policy.subscription(frame) if single else None
                    if prefix is not None:
                        xpub.setsockopt(zmq.SUBSCRIBE, prefix)

    def stop(self) -> None:
        """Stop forwarding and close everything (idempotent)."""
        if self._thread is not None and self._thread.is_alive():
            ctl = self._ctx.socket(zmq.PAIR)
            ctl.linger = 0
            ctl.connect(self._control)
            ctl.send(b"TERMINATE")
            self._thread.join(5)
            ctl.close(linger=0)
        self._thread = None
        self._ctx.destroy(linger=0)

    def __enter__(self) -> FloorProxy:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
