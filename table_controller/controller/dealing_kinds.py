"""The dealing irregularities' kinds and the per-hand data their remedies keep.

Rules this module keeps:

1. Every kind the dealing rules raise is registered here (:func:`~.irregularities.register_kind`)
   with its remedy and whether it holds the table.
2. The rules' state is plain data kept per hand (:class:`HandState`), changed only by inputs:
   the journal's replay rebuilds it exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from table_controller.controller.irregularities import register_kind
from table_controller.engine import Card, Hand, Street
from table_controller.engine.corrections import burn_cards

__all__ = ["FIRST_SLOT", "MISDEALT", "STREET_NAME", "HandState", "Replacement", "card_at",
           "replacement_prompt"]

register_kind(
    "misdeal", "a misdeal before substantial action",
    "Misdeal: stop dealing, gather every card, shuffle and cut; the hand is replayed with the "
    "same button and blinds (send misdeal).", hold=True)
register_kind(
    "no_misdeal", "a dealing error that is not a misdeal",
    "No misdeal: the hand goes on. The floor rules on the seat's hand (a hand with the wrong "
    "number of cards is dead); resolve once done.", hold=False)
register_kind(
    "exposed_hole_card", "the dealer exposed a hole card",
    "Deal on. After the deal the next card replaces the exposed card, which becomes the burn "
    "before the flop (once the action has started, the card stays in play).", hold=False)
register_kind(
    "boxed_card", "a card was face up in the deck (boxed)",
    "The deck is suspect: the floor checks it (a fouled deck voids the hand). If play goes "
    "on, the boxed card is set aside like a scrap of paper and the next card replaces it.",
    hold=True)
register_kind(
    "extra_card", "a card was drawn before the betting round is over",
    "Finish the betting; the card becomes the burn before the next street.", hold=False)
register_kind(
    "premature_flop", "the flop was dealt before the betting was over",
    "Finish the betting. The burn stays; the flop cards go back into the stub, which is "
    "shuffled and cut, and a new flop is dealt without a burn.", hold=False)
register_kind(
    "flop_too_many", "the flop was dealt with too many cards",
    "The burn stays; every flop card goes back into the stub, which is shuffled and cut, and "
    "a new flop is dealt without a burn.", hold=False)
register_kind(
    "card_during_scramble", "a card was drawn while a four-card flop was scrambled",
    "The card is set aside: it is not part of the flop, which comes from the four scrambled "
    "cards (Poker TDA rules, 4-card flops). The floor rules on the card; resolve and resume, "
    "then lay the flop from the four.", hold=True)
register_kind(
    "premature_turn", "the turn was dealt before the betting was over",
    "Set the card aside and finish the betting; burn and deal the would-be river as the turn; "
    "after that round, shuffle the set-aside card into the stub, cut, and deal the river "
    "without a burn.", hold=False)
register_kind(
    "premature_river", "the river was dealt before the betting was over",
    "Finish the betting. The burn stays; the card goes back into the stub, which is shuffled "
    "and cut, and the river is dealt again without a burn.", hold=False)
register_kind(
    "missed_burn", "a board card was dealt where the burn was due",
    "The card on the board that should have been burned is the burn: take it off face down, "
    "lay the board cards in order as prompted, and deal on.", hold=False)
register_kind(
    "doubled_burn", "two cards were burned before a board card",
    "The second burned card is the board's: turn it up in its slot, lay the board cards in "
    "order as prompted, and deal on.", hold=False)
register_kind(
    "shoe_opened", "the shoe was opened during the hand",
    "The deck is suspect: stop and call the floor; the floor checks the deck (a fouled deck "
    "voids the hand), then resolve and resume.", hold=True)
register_kind(
    "shoe_empty", "the shoe ran out of cards during the hand",
    "The deck is suspect: stop and call the floor; the floor counts the deck (a fouled deck "
    "voids the hand), then resolve and resume.", hold=True)
register_kind(
    "collect_difference", "the collected chips do not match the bets",
    "Recount the pot zone against the bets collected; put the difference right, then resolve "
    "and resume.", hold=True)
register_kind(
    "payout_difference", "the chips pushed from the pot do not match the award",
    "Recount the push: put the pot zone right for the award prompted, then resolve and "
    "resume.", hold=True)
register_kind(
    "pot_wrong_seat", "a pot was pushed to a seat that did not win it",
    "Take the chips back from that seat and push the pot to its winner; then resolve and "
    "resume.", hold=True)

#: ``misdealt`` reasons and their words.
MISDEALT: Mapping[str, str] = {
    "wrong_start": "the deal started at the wrong seat",
    "wrong_seat": "a card was dealt to the wrong seat",
    "skipped": "a seat entitled to a hand was skipped",
    "dealt_in": "a seat not entitled to a hand was dealt in",
    "wrong_count": "a seat got the wrong number of cards",
    "button": "the button was in the wrong place",
}
STREET_NAME = {Street.FLOP: "flop", Street.TURN: "turn", Street.RIVER: "river"}
FIRST_SLOT = {Street.FLOP: 0, Street.TURN: 3, Street.RIVER: 4}


@dataclass(slots=True)
class Replacement:
    """A card a remedy replaces with the next one drawn (an exposed or a boxed card)."""

    where: str
    seat: int | None
    index: int
    old: Card | None
    irregularity: int
    becomes_burn: bool
    after_deal: bool


@dataclass(slots=True)
class HandState:
    """What the rules remember about the hand in progress (reset at each hand)."""

    number: int
    exposed: list[tuple[int, int]] = field(default_factory=list)
    boxed: int = 0
    replacements: list[Replacement] = field(default_factory=list)
    #: street -> (card, irregularity) burned before it without a new draw
    burn_for: dict[Street, tuple[Card, int | None]] = field(default_factory=dict)
    #: cards drawn while the betting round was open: (street they were due for, cards, irr)
    premature: list[Card] = field(default_factory=list)
    premature_street: Street | None = None
    premature_irr: list[int] = field(default_factory=list)
    #: street -> (cards to shuffle back into the stub before it, irregularities)
    reshuffle: dict[Street, tuple[list[Card], list[int]]] = field(default_factory=dict)
    #: the cards set aside until their reshuffle (never judged on the board meanwhile)
    aside: list[Card] = field(default_factory=list)
    #: a four-card flop being scrambled (Poker TDA rules, 4-card flops): (the four cards, irr)
    scramble: tuple[list[Card], int] | None = None
    #: a burn error being corrected: (irregularity, kind)
    board_fix: tuple[int, str] | None = None
    shoe_flags: set[str] = field(default_factory=set)
    closed: bool = False



def card_at(hand: Hand, where: str, seat: int | None, index: int) -> Card | None:
    """Return the card at a place of the hand (``hole``, ``burn`` or ``board``)."""
    st = hand.status()
    if where == "hole" and seat is not None:
        card: Card | None = st.hole_cards[seat][index - 1]
        return card
    if where == "burn":
        burns: list[Card | None] = burn_cards(hand)
        return burns[index]
    board: Card | None = st.board[index]
    return board


def replacement_prompt(rep: Replacement) -> tuple[str, dict[str, Any]]:
    """Return the prompt for a replacement card."""
    why = "exposed" if rep.becomes_burn else "boxed"
    if rep.where == "hole":
        tail = "it becomes the burn" if rep.becomes_burn else "it is set aside"
        return (f"Deal seat {rep.seat} a replacement for its {why} card {rep.index} ({tail})",
                {"kind": "deal_hole", "seat": rep.seat, "round": rep.index,
                 "replacement": why})
    street = {0: "flop", 1: "turn", 2: "river"}[rep.index]
    return (f"Burn a replacement for the {why} burn card (it is set aside)",
            {"kind": "burn", "street": street, "replacement": why})
