"""The daemon copies the journal's WAL into its database once a hand ended, after its messages.

An in-process daemon (no sockets) with a stand-in loop that keeps what is scheduled: the
checkpoint is scheduled by the command that ends a hand, after the anchor, and by nothing else;
run, it starts the WAL over and the journal still verifies whole.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from table_controller.controller.events import DealerCommand, Reply
from table_controller.daemon import Daemon
from table_controller.feeds import Command, CommandReply
from table_controller.journal import Journal
from tests.controller.helpers import journal_of
from tests.controller.test_recovery import command, daemon


class _Handle:
    def cancel(self) -> None:
        pass


class _Loop:
    """What the input path asks of the loop: ``call_soon`` kept, timers ignored."""

    def __init__(self) -> None:
        self.soon: list[Callable[[], None]] = []

    def call_soon(self, fn: Callable[[], None]) -> _Handle:
        self.soon.append(fn)
        return _Handle()

    def call_at(self, when: float, fn: Callable[[], None]) -> _Handle:
        return _Handle()

    def time(self) -> float:
        return time.monotonic()


def _apply(d: Daemon, name: str, **args: Any) -> None:
    """What the command endpoint does: decide, journal with the reply, then ``_committed``."""
    assert d.core is not None
    now = d.now()
    out = d.core.preview(DealerCommand(name, dict(args)), now)
    reply = next(o for o in out if isinstance(o, Reply))
    assert reply.accepted, reply.reason
    j = journal_of(d)
    seq = j.last_seq + 1
    entry = j.append_command("c1", seq, {"command": name, **args},
                             {"accepted": True, "reason": "", "result": {}},
                             wall_time=time.time(), mono_time=now)
    cmd = Command(console="c1", seq=seq, name=name, args=args)
    asyncio.run(d._committed(cmd, CommandReply(True, "", {}), entry))


def test_the_wal_is_checkpointed_once_a_hand_ended(tmp_path: Path) -> None:
    d = daemon(tmp_path)
    loop = _Loop()
    d._loop = loop  # type: ignore[assignment]
    now = time.monotonic()
    for seat in (1, 2):
        command(d, "seat", now, seat=seat, player=f"p{seat}", stack=1_000)
    _apply(d, "start")
    assert [fn.__name__ for fn in loop.soon] == ["_sync_anchor"]  # no hand ended
    for fn in loop.soon:
        fn()
    loop.soon.clear()
    _apply(d, "void", reason="test")
    # the anchor first, then the checkpoint (after the hand's prompt: rule 5)
    assert [fn.__name__ for fn in loop.soon] == ["_sync_anchor", "_checkpoint_wal"]
    j = journal_of(d)
    path, seq = j.path, j.last_seq
    for fn in loop.soon:
        fn()
    assert not d.exit_code
    assert j.checkpoint_wal()  # (and again: the WAL restarted each time)
    j.close()
    with Journal.open(path, full=True) as again:
        assert again.last_seq == seq and again.current_hand is None
