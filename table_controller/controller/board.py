"""The camera's board against the hand: which board irregularities a stable reading shows.

Rules this module keeps:

1. Each board card must lie in its slot, in order, and be the card the shoe read for that slot;
   a card in another slot, a different card, or a card before the shoe drew it is a finding.
2. A hole card face up on the board is an ``exposed_card`` (the card itself is secret).
3. A burn card (or any other secret card) seen on the board is never named outside
   surveillance.
4. Pure: the caller keeps the flags of what was reported (each kind once per slot and card).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from table_controller.controller.events import BoardSeen
from table_controller.controller.irregularities import Finding
from table_controller.engine import Card, HandStatus


@dataclass(frozen=True, slots=True)
class BoardFinding:
    """One board irregularity: the finding, its flag, and the seat of an exposed hole card."""

    finding: Finding
    flag: tuple[int, str, str]
    exposed_seat: int | None = None


def board_findings(st: HandStatus, seen: BoardSeen, secrets: Collection[str]) -> list[BoardFinding]:
    """Compare a stable camera reading with the hand's board and hole cards."""
    board = list(st.board)
    holes = {c.code: s for s, cs in st.hole_cards.items() for c in cs if c is not None}
    found: list[BoardFinding] = []
    for slot, code in enumerate(seen.slots):
        if code is None or slot in seen.occluded:
            continue
        try:
            card = Card.parse(code)
        except ValueError:
            continue
        known = slot < len(board) and board[slot] is not None
        if known and board[slot] == card:
            continue
        data: dict[str, Any]
        secret: dict[str, Any]
        if card.code in holes:
            kind, text = "exposed_card", f"A hole card is face up in board slot {slot + 1}"
            data, secret = {"slot": slot}, {"card": code, "seat": holes[card.code]}
        elif card in board:
            kind = "board_wrong_slot"
            text = (f"The card {code} is in board slot {slot + 1}; the shoe dealt it to "
                    f"slot {board.index(card) + 1}")
            data, secret = {"slot": slot, "card": code, "dealt_slot": board.index(card)}, {}
        elif known:
            expected = board[slot]
            assert expected is not None
            kind = "board_mismatch"
            text = f"Board slot {slot + 1} shows {code} but the shoe read {expected.code}"
            data, secret = {"slot": slot, "seen": code, "shoe": expected.code}, {}
        elif slot < len(board):
            continue  # the shoe's card for this slot is unknown: nothing to compare
        else:
            kind = "board_early"
            text = f"A card is in board slot {slot + 1} before the shoe drew it"
            data, secret = {"slot": slot}, {"card": code}
        if kind != "exposed_card" and card.code in secrets:
            # a burn card (or another secret) must not be named outside surveillance
            text = f"Board slot {slot + 1} shows a card that is not the board's ({kind})"
            secret = {**secret, **data, "card": code}
            data = {"slot": slot}
        found.append(BoardFinding(Finding(kind, text, data, secret), (slot, code, kind),
                                  holes[card.code] if kind == "exposed_card" else None))
    return found
