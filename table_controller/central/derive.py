"""Hands and irregularities derived from journal entries, for the central store's indexes.

Sans-IO: :meth:`HandDeriver.feed` takes entries in journal order; :meth:`HandDeriver.take`
returns the hand rows changed since the last call (whole rows, so writing them again is
idempotent) and the irregularities seen. Cards come from the entries:

- board cards from the words of a ``device_event`` (``"Board card 3: Jd"``);
- hole cards from a ``device_event`` whose words say ``"Hole card 1 dealt to seat 2"``: its input's
  tag is turned into a card by ``resolve`` (the table's deck profile; without one, the card is
  ``"??"``) and from an accepted ``show`` command that names the cards;
- irregularity kinds from ``decision`` entries (``irregularity.kind``, ``device_alert.kind``,
  ``link_fault`` for a link fault).

The words are the daemon's; ``tests/central/test_derive.py`` holds them to a real demo journal.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from table_controller.journal.store import Entry, EntryKind

#: A card the deck profile does not know (or no deck profile given).
UNKNOWN_CARD = "??"

_HOLE = re.compile(r"^Hole card (\d+) dealt to seat (\d+)$")
_BOARD = re.compile(r"^Board card ([1-5]): ([2-9TJQKA][cdhs])$")
_CARD = re.compile(r"[2-9TJQKA][cdhs]")

Resolver = Callable[[str], str | None]


@dataclass(slots=True)
class HandRow:
    """One row of the ``hands`` table."""

    hand: int
    started: float
    first_seq: int
    last_seq: int
    ended: float | None = None
    voided: bool = False
    seats: list[int] = field(default_factory=list)
    board: list[str] = field(default_factory=list)
    hole: dict[str, list[str]] = field(default_factory=dict)
    irregularities: list[str] = field(default_factory=list)

    @property
    def cards(self) -> list[str]:
        """Every known card of the hand (board, then hole cards by seat)."""
        seen = [c for c in self.board if c != UNKNOWN_CARD]
        for seat in sorted(self.hole, key=int):
            seen.extend(c for c in self.hole[seat] if c != UNKNOWN_CARD and c not in seen)
        return seen


@dataclass(frozen=True, slots=True)
class IrregularityRow:
    """One row of the ``irregularities`` table."""

    seq: int
    hand: int | None
    at: float
    kind: str
    text: str


def _no_deck(uid: str) -> str | None:
    return None


def irregularity_kinds(entry: Entry) -> list[str]:
    """Return the irregularity kinds a ``decision`` entry records (none for other entries).

    >>> from table_controller.journal.store import Entry, EntryKind
    >>> irregularity_kinds(Entry(1, EntryKind.DECISION, 0, 0, 1,
    ...                          {"irregularity": {"kind": "exposed_card"}}, "", ""))
    ['exposed_card']
    """
    if entry.kind is not EntryKind.DECISION:
        return []
    p = entry.payload
    kinds = []
    for key in ("irregularity", "device_alert"):
        value = p.get(key)
        if isinstance(value, Mapping) and isinstance(value.get("kind"), str):
            kinds.append(str(value["kind"]))
    if isinstance(p.get("link_fault"), Mapping):
        kinds.append("link_fault")
    return kinds


class HandDeriver:
    """Turns journal entries into :class:`HandRow` and :class:`IrregularityRow` values.

    :param resolve: tag (uid) -> card text (``"Ah"``), ``None`` when unknown.
    """

    def __init__(self, resolve: Resolver | None = None) -> None:
        self._resolve = resolve or _no_deck
        self._open: HandRow | None = None
        self._dirty: dict[int, HandRow] = {}
        self._irregular: list[IrregularityRow] = []

    def feed(self, entry: Entry) -> None:
        """Take the next entry (journal order)."""
        for kind in irregularity_kinds(entry):
            text = entry.payload.get("text")
            self._irregular.append(IrregularityRow(
                entry.seq, entry.hand, entry.wall_time, kind,
                text if isinstance(text, str) else kind))
        if entry.kind is EntryKind.HAND_START and entry.hand is not None:
            config = entry.payload.get("config")
            seats = config.get("seats", ()) if isinstance(config, Mapping) else ()
            self._open = HandRow(entry.hand, entry.wall_time, entry.seq, entry.seq,
                                 seats=[int(s) for s in seats])
            self._dirty[entry.hand] = self._open
            return
        row = self._open
        if row is None or entry.hand != row.hand:
            return
        row.last_seq = entry.seq
        self._dirty[row.hand] = row
        if entry.kind is EntryKind.DEVICE_EVENT:
            self._device_event(row, entry.payload)
        elif entry.kind is EntryKind.DEALER_COMMAND:
            self._command(row, entry.payload)
        elif entry.kind is EntryKind.DECISION:
            for kind in irregularity_kinds(entry):
                if kind not in row.irregularities:
                    row.irregularities.append(kind)
        elif entry.kind is EntryKind.HAND_END:
            row.ended = entry.wall_time
            row.voided = bool(entry.payload.get("voided", False))
            self._open = None

    def feed_all(self, entries: Iterable[Entry]) -> None:
        """Feed several entries in order."""
        for e in entries:
            self.feed(e)

    def take(self) -> tuple[list[HandRow], list[IrregularityRow]]:
        """Return (and forget) the hands changed and the irregularities seen since last time."""
        hands = list(self._dirty.values())
        irregular = self._irregular
        self._dirty = {}
        self._irregular = []
        return hands, irregular

    def _device_event(self, row: HandRow, payload: Mapping[str, Any]) -> None:
        text = payload.get("text")
        if not isinstance(text, str):
            return
        for part in text.split("; "):
            m = _BOARD.match(part)
            if m:
                slot = int(m.group(1))
                while len(row.board) < slot:
                    row.board.append(UNKNOWN_CARD)
                row.board[slot - 1] = m.group(2)
                continue
            m = _HOLE.match(part)
            if m:
                inp = payload.get("input")
                uid = inp.get("uid") if isinstance(inp, Mapping) else None
                card = self._resolve(uid) if isinstance(uid, str) else None
                cards = row.hole.setdefault(m.group(2), [])
                index = int(m.group(1))
                while len(cards) < index:
                    cards.append(UNKNOWN_CARD)
                cards[index - 1] = card or UNKNOWN_CARD

    @staticmethod
    def _command(row: HandRow, payload: Mapping[str, Any]) -> None:
        command = payload.get("command")
        reply = payload.get("reply")
        if not (isinstance(command, Mapping) and isinstance(reply, Mapping)):
            return
        if command.get("command") != "show" or not reply.get("accepted"):
            return
        cards = command.get("cards")
        if isinstance(cards, str | list | tuple):
            text = cards if isinstance(cards, str) else " ".join(str(c) for c in cards)
            found = _CARD.findall(text)
            if found:
                row.hole[str(command.get("seat"))] = found
