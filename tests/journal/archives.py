"""Build journals of several gaming days (with checkpoints) for the archive tests."""

from __future__ import annotations

import datetime
from pathlib import Path

from table_controller.journal import EntryKind, Journal

#: The hour gaming days start in these tests.
AT = datetime.time(6, 0)
#: The first gaming day of :func:`build`.
DAY0 = datetime.date(2026, 11, 1)


def day_time(day: datetime.date, hour: float) -> float:
    """Return the wall time ``hour`` hours after the start of gaming day ``day`` (local)."""
    start = datetime.datetime.combine(day, AT)
    return (start + datetime.timedelta(hours=hour)).timestamp()


def play_day(j: Journal, day: datetime.date, hands: int, *, every: int = 3,
             start_hour: float = 1.0) -> None:
    """Append ``hands`` hands on gaming day ``day``, a checkpoint after every ``every`` hands."""
    for i in range(hands):
        t = day_time(day, start_hour + i * 0.05)
        n = j.last_hand + 1
        j.append(EntryKind.HAND_START, {"text": f"hand {n} starts"}, wall_time=t, mono_time=t)
        for k in range(4):
            j.append(EntryKind.DEVICE_EVENT, {"input": {"kind": "card", "uid": f"04{n:06x}{k}"},
                                              "text": f"card {k}"},
                     wall_time=t + k, mono_time=t + k)
        j.append_command("dealer", n, {"command": "fold", "seat": 1},
                         {"accepted": True, "reason": ""}, wall_time=t + 5, mono_time=t + 5)
        j.append(EntryKind.HAND_END, {"text": f"hand {n} ends"}, wall_time=t + 6,
                 mono_time=t + 6)
        if j.last_hand % every == 0:
            j.append_checkpoint({"hand": j.last_hand}, wall_time=t + 7, mono_time=t + 7)


def build(path: Path, days: int, hands: int = 5) -> None:
    """Write a journal of ``days`` gaming days of ``hands`` hands each from :data:`DAY0`."""
    with Journal.open(path) as j:
        for d in range(days):
            play_day(j, DAY0 + datetime.timedelta(days=d), hands)


def snapshot(path: Path) -> list[tuple[int, str]]:
    """Return every entry's sequence number and hash (read across files, verified whole)."""
    with Journal.open(path, readonly=True, full=True) as j:
        return [(e.seq, e.hash) for e in j.entries()]
