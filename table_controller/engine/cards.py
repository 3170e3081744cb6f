"""Cards: ranks, suits, parsing and the 52-card deck.

Rules this module keeps:

1. A :class:`Card` is one of exactly 52 values; anything else is refused with a clear error.
2. Text form is ``<rank><suit>``: rank in ``23456789TJQKA``, suit in ``cdhs`` (``"Ah"``, ``"Td"``).

>>> Card.parse("Ah")
Card('Ah')
>>> str(Card.parse("td"))
'Td'
>>> parse_cards("AhKd")
(Card('Ah'), Card('Kd'))
>>> len(FULL_DECK)
52
"""

from __future__ import annotations

from dataclasses import dataclass

from table_controller.errors import TableError

RANKS = "23456789TJQKA"
SUITS = "cdhs"
RANK_NAMES = {
    "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
    "8": "eight", "9": "nine", "T": "ten", "J": "jack", "Q": "queen", "K": "king", "A": "ace",
}
SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}


class CardError(TableError):
    """A text that is not a card."""


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One playing card.

    :param rank: index into :data:`RANKS` (0 = deuce, 12 = ace).
    :param suit: index into :data:`SUITS`.
    """

    rank: int
    suit: int

    def __post_init__(self) -> None:
        if not (0 <= self.rank < 13 and 0 <= self.suit < 4):
            raise CardError(f"no such card: rank {self.rank}, suit {self.suit}")

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``"Ah"``-style text (rank case-insensitive, suit case-insensitive).

        :raises CardError: if the text is not exactly one card.
        """
        if len(text) != 2:
            raise CardError(f"not a card: {text!r} (expected rank + suit, like 'Ah')")
        r = RANKS.find(text[0].upper())
        s = SUITS.find(text[1].lower())
        if r < 0 or s < 0:
            raise CardError(f"not a card: {text!r} (rank one of {RANKS}, suit one of {SUITS})")
        return cls(r, s)

    @property
    def code(self) -> str:
        """Two-character text form, e.g. ``"Ah"``."""
        return RANKS[self.rank] + SUITS[self.suit]

    @property
    def index(self) -> int:
        """Position 0..51 in :data:`FULL_DECK` (rank-major)."""
        return self.rank * 4 + self.suit

    def describe(self) -> str:
        """Plain words, e.g. ``"ace of hearts"``."""
        return f"{RANK_NAMES[RANKS[self.rank]]} of {SUIT_NAMES[SUITS[self.suit]]}"

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code!r})"


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse concatenated or space-separated cards (``"AhKd"`` or ``"Ah Kd"``).

    :raises CardError: if any part is not a card.
    """
    compact = "".join(text.split())
    if len(compact) % 2:
        raise CardError(f"not a list of cards: {text!r}")
    return tuple(Card.parse(compact[i : i + 2]) for i in range(0, len(compact), 2))


FULL_DECK: tuple[Card, ...] = tuple(Card(r, s) for r in range(13) for s in range(4))
