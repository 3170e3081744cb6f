"""Game recall: the last hands from the journal, step by step, in plain words plus the data.

By convention a payload's ``"text"`` key holds plain words; entries without it are described from
their kind and well-known fields (dealer commands, holds, resolutions). Every card read is named
(hole cards, burns, board): its tag is resolved through the deck profile recorded in the
journal's ``config`` entry in force (or one given by the caller).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from table_controller.journal.store import Entry, EntryKind, HandRecord, thaw


def _clock(wall: float) -> str:
    return datetime.fromtimestamp(wall, UTC).strftime("%H:%M:%S.%f")[:-3]


def _date(wall: float) -> str:
    return datetime.fromtimestamp(wall, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _args(command: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in command.items() if k != "command")


#: A deck profile: tag UID (upper-case hex) -> card (``"Td"``).
Deck = Mapping[str, str]


def deck_of(config_entry: Entry | None) -> Deck | None:
    """Return the deck profile recorded in a ``config`` entry (``None`` without one)."""
    if config_entry is None:
        return None
    deck = config_entry.payload.get("config", {}).get("deck", {}).get("cards")
    return deck if isinstance(deck, Mapping) else None


def card_of(entry: Entry, deck: Deck | None) -> str | None:
    """Name the card a ``card`` read entry is about (``"?"``: tag not in the deck profile).

    >>> from table_controller.journal.store import Entry, EntryKind
    >>> e = Entry(1, EntryKind.DEVICE_EVENT, 0.0, 0.0, 1,
    ...           {"input": {"kind": "card", "uid": "04ab"}}, "", "")
    >>> card_of(e, {"04AB": "Td"}), card_of(e, {}), card_of(e, None)
    ('Td', '?', None)
    """
    inp = entry.payload.get("input")
    if entry.kind is not EntryKind.DEVICE_EVENT or not isinstance(inp, Mapping):
        return None
    uid = inp.get("uid")
    if inp.get("kind") != "card" or not isinstance(uid, str) or deck is None:
        return None
    return str(deck.get(uid.upper(), "?"))


def describe_entry(entry: Entry, deck: Deck | None = None) -> str:
    """Plain words for one entry (a card read names its card when ``deck`` is given).

    >>> from table_controller.journal.store import Entry, EntryKind
    >>> e = Entry(1, EntryKind.HOLD, 0.0, 0.0, 1, {"reason": "chip count"}, "", "")
    >>> describe_entry(e)
    'table held: chip count'
    """
    p = entry.payload
    text = p.get("text")
    if isinstance(text, str) and text:
        card = card_of(entry, deck)
        if card is not None and not text.endswith(f": {card}"):
            uid = p["input"]["uid"]
            text += f": {card}" if card != "?" else f": tag {uid} is not in the deck profile"
        return text
    if entry.kind is EntryKind.DEALER_COMMAND and isinstance(p.get("command"), Mapping):
        command = p["command"]
        reply = p.get("reply") if isinstance(p.get("reply"), Mapping) else {}
        assert isinstance(reply, Mapping)
        verdict = "accepted" if reply.get("accepted") else f"refused ({reply.get('reason', '')})"
        args = _args(command)
        key = f" (key {p['key']})" if p.get("key") else ""
        return (f"dealer command from {p.get('console')}{key} #{p.get('seq')}: "
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


def format_hand(record: HandRecord, deck: Deck | None = None) -> str:
    """Return one hand as text: a header, then every entry (words, then its data)."""
    first, last = record.entries[0], record.entries[-1]
    status = f"finished {_clock(last.wall_time)}" if record.complete else "IN PROGRESS"
    lines = [
        f"Hand {record.hand} - started {_date(first.wall_time)}, {status} "
        f"({len(record.entries)} entries, journal #{first.seq}..#{last.seq})"
    ]
    for e in record.entries:
        lines.append(f"  #{e.seq:<6} {_clock(e.wall_time)}  {e.kind.describe():<14} "
                     f"{describe_entry(e, deck)}")
        data = {k: v for k, v in thaw(e.payload).items() if k != "text"}
        if data:
            lines.append(" " * 40 + json.dumps(data, sort_keys=True))
    return "\n".join(lines)


def format_hands(records: Iterable[HandRecord],
                 decks: Callable[[HandRecord], Deck | None] = lambda r: None) -> str:
    """Return several hands as text, separated by blank lines."""
    parts = [format_hand(r, decks(r)) for r in records]
    return "\n\n".join(parts) if parts else "no hands in the journal"


def hands_to_json(records: Iterable[HandRecord],
                  decks: Callable[[HandRecord], Deck | None] = lambda r: None
                  ) -> list[dict[str, Any]]:
    """Return hands as plain JSON data (for ``recall --json``); card reads carry ``card``."""
    out = []
    for r in records:
        deck = decks(r)
        out.append({
            "hand": r.hand,
            "complete": r.complete,
            "entries": [
                {
                    "seq": e.seq, "kind": e.kind.value, "wall_time": e.wall_time,
                    "mono_time": e.mono_time, "text": describe_entry(e, deck),
                    "payload": thaw(e.payload), "hash": e.hash,
                    **({"card": card_of(e, deck)} if card_of(e, deck) is not None else {}),
                }
                for e in r.entries
            ],
        })
    return out
