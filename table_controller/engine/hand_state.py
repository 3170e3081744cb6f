"""The mutable state of one hand, and the checks of its chips and cards.

Rules this module keeps:

1. :class:`HandState` is plain data: only :mod:`.hand` and :mod:`.transitions` change it, and
   :meth:`HandState.copy` copies every mutable field (a refused input never changes the state
   it was tried on; see rule 6 of :mod:`.hand`).
2. Every card added is checked against the bit mask of the cards out (:func:`check_new_card`);
   :func:`check_integrity` recounts chips and cards from scratch.
"""

from __future__ import annotations

from dataclasses import dataclass

from table_controller.engine.betting import BettingRound
from table_controller.engine.cards import Card
from table_controller.engine.model import AwardStep, Phase, PostStep, PotView, Step, Street
from table_controller.errors import ChipConservationError, DuplicateCardError, RuleError

_VOID = Phase.VOID


class DuplicateCard(RuleError, DuplicateCardError):
    """A card that is already on the table was dealt or shown again (nothing changed)."""


@dataclass(slots=True)
class HandState:
    """Mutable state of a hand; copied for every input (see rule 6)."""

    phase: Phase
    street: Street
    stacks: dict[int, int]
    round: BettingRound
    contrib: dict[int, int]
    dead: int
    posts: list[PostStep]
    deal_i: int
    hole: dict[int, tuple[Card | None, ...]]
    board: list[Card | None]
    burns: list[Card | None]
    folded: set[int]
    to_act: int | None
    river_aggressor: int | None
    tabled: bool
    show_order: list[int]
    shown: dict[int, tuple[Card, ...]]
    mucked: set[int]
    awards: list[AwardStep]
    pushed: set[int]
    payouts: dict[int, int]
    rake: int
    middle: int
    flop_dealt: bool
    pots: tuple[PotView, ...] = ()
    """Pots as of the last round's end (folded seats out, mucked seats still in)."""
    pots_folds: int = -1
    """How many seats had folded when :attr:`pots` was cut (-1: never cut)."""
    live: frozenset[int] = frozenset()
    """Seats neither folded nor mucked (kept with every fold and muck)."""
    seen: int = 0
    """Bit mask of the known cards (bit ``card.index``), kept with every card added."""
    step: Step | None = None
    """The expected step, cached (a copy starts without it)."""

    def copy(self) -> HandState:
        """Return a copy that shares no mutable field with this state."""
        return HandState(
            self.phase, self.street, dict(self.stacks), self.round.copy(), dict(self.contrib),
            self.dead, list(self.posts), self.deal_i,
            dict(self.hole), list(self.board), list(self.burns),
            set(self.folded), self.to_act, self.river_aggressor, self.tabled,
            list(self.show_order), dict(self.shown), set(self.mucked), list(self.awards),
            set(self.pushed), dict(self.payouts), self.rake, self.middle, self.flop_dealt,
            self.pots, self.pots_folds, self.live, self.seen,
        )


def seen_cards(st: HandState) -> list[Card]:
    """Return every known card: board, burns, hole cards (or the cards a seat showed)."""
    cards: list[Card | None] = [*st.board, *st.burns]
    for seat, hole in st.hole.items():
        if seat in st.shown and (len(hole) < 2 or hole[0] is None or hole[1] is None):
            cards.extend(st.shown[seat])
        else:
            cards.extend(hole)
    return [c for c in cards if c is not None]


def check_new_card(st: HandState, card: Card | None) -> None:
    """Refuse a card already out; otherwise mark it seen."""
    if card is None:
        return
    bit = 1 << (card.rank * 4 + card.suit)
    if st.seen & bit:
        raise DuplicateCard("duplicate-card", f"the {card.describe()} ({card}) is already out")
    st.seen |= bit


def swap_card(st: HandState, old: Card | None, card: Card | None) -> None:
    """Take ``old`` out of the cards seen and put ``card`` in (refused if already out)."""
    if old is not None:
        st.seen &= ~(1 << (old.rank * 4 + old.suit))
    check_new_card(st, card)


def check_integrity(st: HandState, total: int, cards: bool = True, pots: bool = True) -> None:
    """Check chip conservation and card uniqueness from scratch.

    Chips: stacks + bets + pot + rake equal ``total``, the starting chips (always); with
    ``pots``, the pot also equals the contributions collected plus dead money, less what was
    pushed. Cards: with
    ``cards``, every known card is known once and matches the running mask of cards out.
    """
    stacks = st.stacks.values()
    bets = sum(st.round.bets.values())
    held = sum(stacks) + bets + st.middle + st.rake
    pushed = sum(sum(a.payouts.values()) + a.rake for a in st.awards
                 if a.pot_index in st.pushed) if pots and st.pushed else 0
    if held != total or min(stacks) < 0 or (
            pots and st.phase is not _VOID
            and st.middle != sum(st.contrib.values()) + st.dead - pushed):
        raise ChipConservationError(
            f"chips do not add up: stacks {sum(stacks)} + bets {bets} + "
            f"pot {st.middle} + rake {st.rake} = {held}, started with {total}")
    if cards:
        seen = seen_cards(st)
        mask = 0
        for c in seen:
            mask |= 1 << (c.rank * 4 + c.suit)
        if mask.bit_count() != len(seen) or mask != st.seen:
            dupes = sorted({c.code for c in seen if seen.count(c) > 1})
            raise DuplicateCardError(f"cards known twice: {', '.join(dupes)}")
