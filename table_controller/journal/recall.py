"""Game recall: the last hands from the journal, step by step, in plain words plus the data.

By convention a payload's ``"text"`` key holds plain words; entries without it are described from
their kind and well-known fields (dealer commands, holds, resolutions).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from table_controller.journal.store import Entry, EntryKind, HandRecord, thaw


def _clock(wall: float) -> str:
    return datetime.fromtimestamp(wall, UTC).strftime("%H:%M:%S.%f")[:-3]


def _date(wall: float) -> str:
    return datetime.fromtimestamp(wall, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _args(command: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in command.items() if k != "command")


def describe_entry(entry: Entry) -> str:
    """Plain words for one entry.

    >>> from table_controller.journal.store import Entry, EntryKind
    >>> e = Entry(1, EntryKind.HOLD, 0.0, 0.0, 1, {"reason": "chip count"}, "", "")
    >>> describe_entry(e)
    'table held: chip count'
    """
    p = entry.payload
    text = p.get("text")
    if isinstance(text, str) and text:
        return text
    if entry.kind is EntryKind.DEALER_COMMAND and isinstance(p.get("command"), Mapping):
        command = p["command"]
        reply = p.get("reply") if isinstance(p.get("reply"), Mapping) else {}
        assert isinstance(reply, Mapping)
        verdict = "accepted" if reply.get("accepted") else f"refused ({reply.get('reason', '')})"
        args = _args(command)
        return (f"dealer command from {p.get('console')} #{p.get('seq')}: "
                f"{command.get('command')}{' ' + args if args else ''} -> {verdict}")
    if entry.kind is EntryKind.HOLD:
        return f"table held: {p.get('reason', '(no reason given)')}"
    if entry.kind is EntryKind.RESOLUTION:
        return f"resolved: {p.get('note', p.get('resolution', '(no note)'))}"
    if entry.kind is EntryKind.HAND_START:
        return f"hand {entry.hand} starts"
    if entry.kind is EntryKind.HAND_END:
        return f"hand {entry.hand} ends"
    return entry.kind.describe()


def format_hand(record: HandRecord) -> str:
    """Return one hand as text: a header, then every entry (words, then its data)."""
    first, last = record.entries[0], record.entries[-1]
    status = f"finished {_clock(last.wall_time)}" if record.complete else "IN PROGRESS"
    lines = [
        f"Hand {record.hand} - started {_date(first.wall_time)}, {status} "
        f"({len(record.entries)} entries, journal #{first.seq}..#{last.seq})"
    ]
    for e in record.entries:
        lines.append(f"  #{e.seq:<6} {_clock(e.wall_time)}  {e.kind.describe():<14} "
                     f"{describe_entry(e)}")
        data = {k: v for k, v in thaw(e.payload).items() if k != "text"}
        if data:
            lines.append(" " * 40 + json.dumps(data, sort_keys=True))
    return "\n".join(lines)


def format_hands(records: Iterable[HandRecord]) -> str:
    """Return several hands as text, separated by blank lines."""
    parts = [format_hand(r) for r in records]
    return "\n\n".join(parts) if parts else "no hands in the journal"


def hands_to_json(records: Iterable[HandRecord]) -> list[dict[str, Any]]:
    """Return hands as plain JSON data (for ``recall --json``)."""
    return [
        {
            "hand": r.hand,
            "complete": r.complete,
            "entries": [
                {
                    "seq": e.seq, "kind": e.kind.value, "wall_time": e.wall_time,
                    "mono_time": e.mono_time, "text": describe_entry(e),
                    "payload": thaw(e.payload), "hash": e.hash,
                }
                for e in r.entries
            ],
        }
        for r in records
    ]
