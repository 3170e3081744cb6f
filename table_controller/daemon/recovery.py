"""Recovery: replay the journal through the core, with the ``now`` each input was recorded with.

Rules this module keeps:

1. Every ``device_event`` and every *accepted* ``dealer_command`` is replayed, in journal order,
   through the same :meth:`TableCore.handle` the live daemon uses: the state is rebuilt exactly
   (cards, bets, pots, holds, irregularities, prompt numbers).
2. Nothing is journaled or published while replaying; what a crash left incomplete (a hand
   bracket, a PHH file) is completed by the caller afterwards.
3. The daemon's clock never goes behind the journal (:class:`Clock`): after a reboot the
   system's monotonic clock starts again from zero, the core's timers must not go back with it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from table_controller.controller.core import TableCore
from table_controller.controller.events import (
    DealerCommand,
    HandEnded,
    Reply,
    input_from_dict,
)
from table_controller.daemon.journaling import ReadMemory
from table_controller.journal import EntryKind, Journal, thaw

log = logging.getLogger(__name__)


class Clock:
    """The daemon's monotonic time: ``time.monotonic()`` plus an offset, never behind the journal.

    :param offset: seconds added to the system's monotonic clock.
    """

    def __init__(self, offset: float = 0.0) -> None:
        self.offset = offset

    def __call__(self) -> float:
        """Return the daemon's monotonic time."""
        return time.monotonic() + self.offset

    def not_before(self, last: float) -> None:
        """Move the clock ahead of ``last`` (the journal's latest time) if it is behind."""
        if time.monotonic() < last:
            self.offset = last - time.monotonic() + 0.001
            log.warning("the monotonic clock is behind the journal (reboot): offset %.3f s",
                        self.offset)


@dataclass(frozen=True, slots=True)
class Replayed:
    """What a replay did: ``inputs`` replayed, ``last`` the latest ``mono_time`` seen."""

    inputs: int
    last: float


def replay(core: TableCore, journal: Journal, reads: ReadMemory,
           hand_ended: Callable[[HandEnded], None]) -> Replayed:
    """Replay ``journal`` through ``core``; remember its reads; report each hand that ended."""
    n = 0
    last = 0.0
    for entry in journal.entries():
        last = max(last, entry.mono_time)
        if entry.kind is EntryKind.DEVICE_EVENT:
            inp = input_from_dict(entry.payload["input"])
        elif entry.kind is EntryKind.DEALER_COMMAND:
            if not entry.payload.get("reply", {}).get("accepted"):
                continue
            body = dict(thaw(entry.payload["command"]))
            inp = DealerCommand(str(body.pop("command")), body)
        else:
            continue
        reads.seen(inp)
        out = core.handle(inp, entry.mono_time)
        n += 1
        for o in out:
            if isinstance(o, Reply) and not o.accepted:
                log.error("replay: journal entry %d was accepted, now refused: %s",
                          entry.seq, o.reason)
            if isinstance(o, HandEnded) and not o.voided:
                hand_ended(o)
    return Replayed(n, last)


def complete_brackets(core: TableCore, journal: Journal, now: float) -> None:
    """Journal the hand bracket a crash left out (the core's hand and the journal's disagree).

    :raises JournalError: if the write fails.
    """
    if journal.current_hand is not None and core.hand is None:
        journal.append("hand_end", {"text": f"hand {journal.current_hand} ends (completed "
                                            "at recovery)"}, wall_time=time.time(),
                       mono_time=now)
    elif journal.current_hand is None and core.hand is not None:
        journal.append("hand_start", {"text": f"hand {core.hand_number} starts (completed "
                                              "at recovery)"}, wall_time=time.time(),
                       mono_time=now)
