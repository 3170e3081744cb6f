"""The heartbeat keeper: the feeds' heartbeats while the event loop is blocked in a journal write.

The daemon journals a device input on the event loop before its prompt leaves (write-ahead;
the card -> prompt path keeps its commit there), and a slow disk flush blocks the loop for as
long as the disk takes, or a device input waits at the journal's lock for the command
endpoint's commit in flight (:mod:`table_controller.journal.store`, rule 8). The loop is alive
and will go on, but its heartbeats would be late. The keeper, a thread beside the loop, sends
them meanwhile.

Rules this module keeps:

1. It beats only while the loop's thread is inside a journal write
   (:class:`~table_controller.journal.WriteWatch`), never otherwise: a loop stuck anywhere else
   (a bug, a hung call) stops the heartbeats, and displays show the connection lost.
2. In one write, for at most :data:`KEEP_FOR` seconds: a disk that never returns leaves the
   feeds silent too.
3. A feed socket is used by one thread at a time: the keeper sends only while the loop's thread
   is inside the write, and that thread cannot leave the write before the send is done (the
   watch's lock, :meth:`~table_controller.journal.WriteWatch.beside`). Sends never wait
   (``NOBLOCK``: a subscriber whose queue is full loses it, as a PUB socket does).
4. A kept heartbeat is the hub's own (:meth:`.hub.FeedHub.heartbeat`): the feed's current
   sequence number (not a new one), the hub's ``epoch`` and interval, a wall-clock stamp; it is
   due an interval after the feed's last message or the keeper's last heartbeat on it. A
   heartbeat the loop sends after the write as well is one more, which a display takes as any.
5. Time is a parameter: :meth:`HeartbeatKeeper.check` takes ``now``. The thread looks every
   quarter interval (at most :data:`POLL` seconds) while the loop's thread is in a write or a
   heartbeat is due; otherwise it sleeps until the next heartbeat can be due
   (:meth:`HeartbeatKeeper.next_look`): on a busy table (a message on every feed more often
   than the interval) it does not wake forty times a second to find nothing to do, and take
   the interpreter's lock from the loop's thread each time. A write is then first seen at most
   an interval after it began (rule 2 counts from then).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import zmq

from table_controller.feeds.hub import FeedHub
from table_controller.feeds.messages import Feed, Message, topic
from table_controller.journal import WriteWatch

__all__ = ["KEEP_FOR", "POLL", "HeartbeatKeeper"]

log = logging.getLogger(__name__)

#: Seconds of one journal write the keeper beats through, at most (rule 2).
KEEP_FOR = 2.0
#: Longest pause between two looks at the loop (rule 5).
POLL = 0.025


class HeartbeatKeeper:
    """Sends the feeds' heartbeats while the loop's thread is blocked in a journal write.

    :param hub: the running hub whose heartbeats it keeps.
    :param watch: the journal's :class:`~table_controller.journal.WriteWatch`.
    :param loop_thread: the ident of the event loop's thread (default: the caller's).
    :param keep_for: seconds of one write it beats through (rule 2).
    """

    def __init__(self, hub: FeedHub, watch: WriteWatch, *, loop_thread: int | None = None,
                 keep_for: float = KEEP_FOR, mono_clock: Callable[[], float] = time.monotonic,
                 wall_clock: Callable[[], float] = time.time) -> None:
        self.hub = hub
        self.watch = watch
        self.loop_thread = threading.get_ident() if loop_thread is None else loop_thread
        self.keep_for = keep_for
        self._mono = mono_clock
        self._wall = wall_clock
        self._mine = dict.fromkeys(Feed, 0.0)
        #: the write being watched: its number and when the keeper first saw it
        self._write: tuple[int, float] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        #: Heartbeats sent by the keeper.
        self.sent = 0

    def start(self) -> None:
        """Start the keeper's thread (idempotent)."""
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="heartbeat-keeper",
                                            daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop the thread and wait for it (idempotent)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _run(self) -> None:
        poll = min(self.hub.heartbeat_interval / 4, POLL)
        wait = poll
        while not self._stop.wait(wait):
            wait = poll
            try:
                now = self._mono()
                self.check(now)
                wait = self.next_look(now, poll)
            except Exception:  # pragma: no cover - keep watching whatever happened
                log.exception("heartbeat keeper failed")

    def next_look(self, now: float, poll: float) -> float:
        """Return how long to sleep after :meth:`check` at ``now`` before the next (rule 5).

        ``poll`` while the loop's thread was in a write at that check or a heartbeat is due
        (the loop may be about to block); otherwise until the first feed's next heartbeat can
        be due, at most an interval.
        """
        hub = self.hub
        interval = hub.heartbeat_interval
        if self._write is not None:
            return poll
        due = min((max(last, self._mine[feed]) + interval
                   for feed in Feed for sock, last in (hub.keeper_view(feed),)
                   if sock is not None), default=now + interval)
        if due <= now:
            return poll
        return min(due - now, interval)

    def check(self, now: float) -> list[Feed]:
        """Look at the loop once at monotonic ``now``; beat the feeds due if it is in a write.

        :returns: the feeds that got a heartbeat.
        """
        beaten: list[Feed] = []

        def beat(number: int) -> None:
            if self._write is None or self._write[0] != number:
                self._write = (number, now)
            if now - self._write[1] > self.keep_for:
                return  # rule 2
            for feed in Feed:
                if self._beat(feed, now):
                    beaten.append(feed)

        if not self.watch.beside(self.loop_thread, beat):
            self._write = None
        return beaten

    def _beat(self, feed: Feed, now: float) -> bool:
        hub = self.hub
        sock, last = hub.keeper_view(feed)
        if sock is None or now < max(last, self._mine[feed]) + hub.heartbeat_interval:
            return False
        # the hub's socket now (not kept: a display revoked rebinds it)
        shadow: zmq.Socket[bytes] = zmq.Socket.shadow(sock.underlying)
        msg = Message("heartbeat", hub.seq(feed), hub.table_id, self._wall(),
                      {"epoch": hub.epoch, "interval": hub.heartbeat_interval})
        self._mine[feed] = now
        try:
            shadow.send_multipart([topic(hub.table_id, "heartbeat"), msg.encode()],
                                  flags=zmq.NOBLOCK)
        except zmq.ZMQError:  # pragma: no cover - a full queue or a closing socket: as a PUB
            return False
        self.sent += 1
        return True
