"""Recovery in process: the daemon's journal-first path and replay, without sockets."""

from __future__ import annotations

import time
from pathlib import Path

from table_controller.controller.events import (
    CardRead,
    DealerCommand,
    HandEnded,
    Reply,
    ZoneSeen,
)
from table_controller.daemon import Daemon
from table_controller.journal import EntryKind
from tests.controller.helpers import UID, inprocess_daemon, journal_of


def daemon(tmp: Path) -> Daemon:
    d = inprocess_daemon(tmp, "T9")
    assert d.journal is not None and d.journaler is not None
    return d



def command(d: Daemon, name: str, now: float, **args: object) -> None:
    """What CommandServer + on_committed do: journal the command, then apply it."""
    assert d.core is not None
    out = d.core.handle(DealerCommand(name, args), now)
    reply = next(o for o in out if isinstance(o, Reply))
    j = journal_of(d)
    j.append_command("c1", len(list(j.entries())) + 1, {"command": name, **args},
                     {"accepted": reply.accepted, "reason": reply.reason, "result": {}},
                     wall_time=time.time(), mono_time=now)
    assert d.journaler is not None
    d.journaler.outputs(out, now)


def test_replay_rebuilds_the_state_and_completes_brackets(tmp_path: Path) -> None:
    d = daemon(tmp_path)
    t = time.monotonic() + 5_000.0  # as if journaled before a reboot: the clock must follow
    for seat in (1, 2, 3):
        command(d, "seat", t, seat=seat, player=f"p{seat}", stack=10_000)
    command(d, "start", t + 1)
    d.feed(ZoneSeen(2, ((1, 50),)), t + 2)
    d.feed(ZoneSeen(3, ((1, 100),)), t + 3)
    for i, code in enumerate(("Ah", "Kd", "2c")):
        d.feed(CardRead(UID[code], None), t + 4 + i)
    assert d.core is not None
    before = d.core.view(secret=True)
    assert before["prompt"]["step"] == {"kind": "deal_hole", "seat": 2, "round": 2}
    journal_of(d).close()

    again = daemon(tmp_path)
    assert again.recover() == 9
    assert again.core is not None
    after = again.core.view(secret=True)
    assert after.pop("last_announcement")["kind"] == "restart"
    before.pop("last_announcement")
    assert after == before
    assert again.now() > t + 6
    assert journal_of(again).current_hand == 1
    journal_of(again).close()


def test_a_hand_end_lost_in_a_crash_is_completed(tmp_path: Path) -> None:
    d = daemon(tmp_path)
    now = time.monotonic()
    for seat in (1, 2):
        command(d, "seat", now, seat=seat, player=f"p{seat}", stack=1_000)
    command(d, "start", now)
    # the void is journaled, but the crash comes before its hand_end entry
    assert d.core is not None
    out = d.core.handle(DealerCommand("void", {"reason": "test"}), now)
    journal_of(d).append_command("c1", 99, {"command": "void", "reason": "test"},
                             {"accepted": True, "reason": "", "result": {}},
                             wall_time=time.time(), mono_time=now)
    assert any(isinstance(o, HandEnded) for o in out)
    assert journal_of(d).current_hand == 1
    journal_of(d).close()

    again = daemon(tmp_path)
    again.recover()
    assert again.core is not None and again.core.hand is None
    assert journal_of(again).current_hand is None
    # (the start's own entries, ``config`` and ``start``, aside)
    entries = [e for e in journal_of(again).entries()
               if e.kind not in (EntryKind.CONFIG, EntryKind.START)]
    assert entries[-2].kind is EntryKind.HAND_END
    assert entries[-1].payload["input"] == {"kind": "restarted"}
    journal_of(again).close()


def test_a_resent_read_is_dropped_live_and_after_recovery(tmp_path: Path) -> None:
    d = daemon(tmp_path)
    now = time.monotonic()
    for seat in (1, 2, 3):
        command(d, "seat", now, seat=seat, player=f"p{seat}", stack=10_000)
    command(d, "start", now)
    d.feed(ZoneSeen(2, ((1, 50),)), now)
    d.feed(ZoneSeen(3, ((1, 100),)), now)
    assert d.feed(CardRead(UID["Ah"], 1000), now)
    entries = journal_of(d).last_seq
    assert d.feed(CardRead(UID["Ah"], 1000), now + 0.3) == []  # the shoe resent the frame
    assert journal_of(d).last_seq == entries
    journal_of(d).close()
    again = daemon(tmp_path)
    again.recover()
    assert again.feed(CardRead(UID["Ah"], 1000), now + 1) == []
    assert again.feed(CardRead(UID["Kd"], 1200), now + 1)
    journal_of(again).close()


def test_link_faults_are_journaled_a_few_a_second(tmp_path: Path) -> None:
    from hardware.base import BadFrame, FramesLost, SequenceGap

    d = daemon(tmp_path)
    for _ in range(7):
        d.on_device_event("shoe", BadFrame("bad CRC", b"\x01\x02"))
    d.clock.offset += 1.5
    d.on_device_event("shoe", SequenceGap(4, 6))
    faults = [e.payload for e in journal_of(d).entries() if "link_fault" in e.payload]
    assert len(faults) == 6
    assert faults[0]["link_fault"] == {"device": "shoe", "type": "BadFrame",
                                       "reason": "bad CRC", "raw": "0102"}
    assert faults[-1]["suppressed_before"] == 2
    d.on_device_event("chips", FramesLost(3, 5))  # an input of the core, not a link fault
    last = list(journal_of(d).entries())[-1]
    assert last.kind is EntryKind.DEVICE_EVENT
    assert last.payload["input"] == {"kind": "reads_lost", "device": "chips", "count": 2}
    journal_of(d).close()


def test_a_journal_that_cannot_be_written_stops_the_daemon_and_publishes_nothing(
        tmp_path: Path) -> None:
    d = daemon(tmp_path)
    d.publishing = True
    now = time.monotonic()
    command(d, "seat", now, seat=1, player="p1", stack=1_000)
    journal_of(d).close()
    d.feed(ZoneSeen(1, ((1, 5),)), now)
    assert d.exit_code == 3
    assert d.publisher is not None and d.publisher.take_all() == []
