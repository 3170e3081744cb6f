"""Tag-to-card resolution: apply the active deck profile to :class:`~hardware.base.CardDrawn`.

Rules this module keeps:

1. A tag not in the profile is an :class:`~hardware.base.UnknownTag`, never a guess.
2. The same tag read again within ``repeat_window`` seconds (shoe clock when the reader has one,
   host clock otherwise), with no other tag between, is the reader repeating itself: it becomes
   :class:`~hardware.base.RepeatedRead` and is not a second card.
3. Any other read of a card already drawn since :meth:`TagResolver.new_shuffle` is a
   :class:`~hardware.base.DuplicateCard` (a second copy or a cloned tag). The controller must
   hold the table on it; the resolver only reports.

>>> from table_controller.engine.cards import Card
>>> r = TagResolver({"0A0B0C0D": Card.parse("Ah")})
>>> r.resolve(CardDrawn("0A0B0C0D", 100, 1.0))
CardIdentified(card=Card('Ah'), uid='0A0B0C0D', shoe_ms=100, at=1.0)
>>> r.resolve(CardDrawn("0A0B0C0D", 150, 1.05))
RepeatedRead(uid='0A0B0C0D')
>>> r.resolve(CardDrawn("FFFFFFFF", 900, 1.9))
UnknownTag(uid='FFFFFFFF', at=1.9)
"""

from __future__ import annotations

from collections.abc import Mapping

from hardware.base import (
    CardDrawn,
    CardIdentified,
    DeviceEvent,
    DuplicateCard,
    RepeatedRead,
    UnknownTag,
)
from table_controller.engine.cards import Card


class TagResolver:
    """Resolve drawn tags to cards and flag unknown tags, repeats and duplicates.

    :param cards: tag UID (upper-case hex) to card, from the active deck profile.
    :param repeat_window: seconds within which the same tag again is a reader repeat.
    """

    def __init__(self, cards: Mapping[str, Card], *, repeat_window: float = 0.5) -> None:
        self._cards = {uid.upper(): card for uid, card in cards.items()}
        self.repeat_window = repeat_window
        self._drawn: dict[Card, str] = {}
        self._last: tuple[str, float] | None = None

    def new_shuffle(self) -> None:
        """Forget the cards drawn so far (a new hand or shuffle)."""
        self._drawn.clear()
        self._last = None

    @property
    def cards(self) -> Mapping[str, Card]:
        """The active deck: tag UID (upper-case hex) -> card (configuration, not state)."""
        return self._cards

    @property
    def drawn(self) -> tuple[Card, ...]:
        """Cards drawn since the last shuffle, in order."""
        return tuple(self._drawn)

    def forget(self, card: Card) -> None:
        """Forget that ``card`` was drawn: it went back into the stub and may be dealt again."""
        self._drawn.pop(card, None)

    def resolve(self, event: CardDrawn) -> DeviceEvent:
        """Turn one read into :class:`CardIdentified` or a fault event."""
        when = event.shoe_ms / 1000.0 if event.shoe_ms is not None else event.at
        last = self._last
        self._last = (event.uid, when)
        if last is not None and last[0] == event.uid and 0 <= when - last[1] <= self.repeat_window:
            return RepeatedRead(event.uid)
        card = self._cards.get(event.uid)
        if card is None:
            return UnknownTag(event.uid, event.at)
        first = self._drawn.get(card)
        if first is not None:
            return DuplicateCard(card, event.uid, first)
        self._drawn[card] = event.uid
        return CardIdentified(card, event.uid, event.shoe_ms, event.at)

    def process(self, events: list[DeviceEvent]) -> list[DeviceEvent]:
        """Resolve every :class:`CardDrawn` in ``events``; pass the others through."""
        return [self.resolve(e) if isinstance(e, CardDrawn) else e for e in events]
