"""A table writing its journal as the daemon does (hand brackets, cards, commands, faults)."""

from __future__ import annotations

import itertools
import random

from table_controller.journal import Journal

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK = [r + s for r in RANKS for s in SUITS]
#: tag uid -> card (a deck profile)
TAGS = {f"04{i:012X}": card for i, card in enumerate(DECK)}
UIDS = {card: uid for uid, card in TAGS.items()}


class FakeTable:
    """Appends the entries of whole hands to a journal, like the daemon."""

    def __init__(self, journal: Journal, *, seed: int = 1, seats: int = 6,
                 clock: float = 1_800_000_000.0) -> None:
        self.journal = journal
        self.rng = random.Random(seed)
        self.seats = list(range(1, seats + 1))
        self.clock = clock
        self.mono = itertools.count(1)
        self.hands: dict[int, dict[str, object]] = {}

    def _append(self, kind: str, payload: dict[str, object]) -> None:
        self.clock += 0.25
        self.journal.append(kind, payload, wall_time=self.clock, mono_time=float(next(self.mono)))

    def play_hand(self, *, irregularity: str | None = None) -> int:
        number = self.journal.last_hand + 1
        cards = self.rng.sample(DECK, 2 * len(self.seats) + 5)
        self._append("hand_start", {"text": f"hand {number} starts", "number": number,
                                    "config": {"seats": self.seats, "button": 1}})
        hole: dict[str, list[str]] = {}
        for rnd in (1, 2):
            for seat in self.seats:
                card = cards.pop()
                hole.setdefault(str(seat), []).append(card)
                self._append("device_event", {
                    "input": {"kind": "card", "uid": UIDS[card], "shoe_ms": next(self.mono)},
                    "text": f"Hole card {rnd} dealt to seat {seat}"})
        for seat in self.seats:
            self._append("dealer_command", {
                "console": "c1", "seq": next(self.mono), "command": {"command": "call",
                                                                     "seat": seat},
                "reply": {"accepted": True, "reason": ""}})
        if irregularity is not None:
            self._append("decision", {
                "text": f"irregularity 1 ({irregularity}): something", "secret": {},
                "irregularity": {"id": 1, "kind": irregularity, "text": "something"}})
            self._append("hold", {"text": "table held: x", "reason": "x", "irregularity": 1})
        board = [cards.pop() for _ in range(5)]
        for i, card in enumerate(board, start=1):
            self._append("device_event", {
                "input": {"kind": "card", "uid": UIDS[card], "shoe_ms": next(self.mono)},
                "text": f"Board card {i}: {card}"})
        self._append("device_event", {"input": {"kind": "zone", "zone": 7, "counts": []},
                                      "text": "Main pot 1,000 to seat 1"})
        self._append("hand_end", {"text": f"hand {number} ends", "voided": False,
                                  "final_stacks": {}})
        self.hands[number] = {"board": board, "hole": hole}
        return number
