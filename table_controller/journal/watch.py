"""Which threads are inside a journal write: for a watcher that acts beside a blocked writer.

A journal write (a commit with ``synchronous=FULL``, the anchor's ``fdatasync``) can block its
thread for as long as the disk takes. The event loop's thread makes some (a device input is
journaled before its prompt leaves); a watcher thread (the feeds' heartbeat keeper,
:mod:`table_controller.feeds.keeper`) may act for it meanwhile. The daemon marks its other
writes to disk on the loop the same way (a hand's PHH file).

Rules this module keeps:

1. :meth:`WriteWatch.writing` marks the calling thread inside a write until the block ends
   (nested writes count once; each outermost write gets a new number).
2. :meth:`WriteWatch.beside` runs a watcher's action only while a given thread is inside a
   write, and that thread cannot leave the write until the action is done (one lock): what the
   writer's thread owns outside its writes (its sockets) is used by one thread at a time.
3. No clock is read here: the watcher times what it does.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

__all__ = ["WriteWatch"]


class WriteWatch:
    """The threads inside a journal write, and the number of each one's current write."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: thread ident -> (depth, the number of its outermost write)
        self._inside: dict[int, tuple[int, int]] = {}
        self._writes = 0

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Mark the calling thread inside a write for the ``with`` block (rule 1)."""
        me = threading.get_ident()
        with self._lock:
            depth, number = self._inside.get(me, (0, 0))
            if not depth:
                self._writes += 1
                number = self._writes
            self._inside[me] = (depth + 1, number)
        try:
            yield
        finally:
            with self._lock:  # a watcher's action beside this write ends first (rule 2)
                if depth:
                    self._inside[me] = (depth, number)
                else:
                    del self._inside[me]

    def beside(self, thread: int, act: Callable[[int], None]) -> bool:
        """Run ``act(number of the write)`` if ``thread`` is inside a write (rule 2).

        :returns: whether it ran.
        """
        with self._lock:
            inside = self._inside.get(thread)
            if inside is None:
                return False
            act(inside[1])
            return True
