"""A hand's cards corrected after they were dealt, and a hand voided (a mixin of ``Hand``).

Kept apart from :mod:`.hand` (the hand's set-up, steps and inputs) so each module has one
job. Every correction is transactional: the new state is checked (chips conserved, no card out
twice) before it replaces the old one, and kept in ``hand.corrections`` for ``Hand.replay``.
"""

from __future__ import annotations

from dataclasses import dataclass

from table_controller.engine.betting import BettingRound
from table_controller.engine.cards import Card
from table_controller.engine.hand_state import HandState, check_integrity, swap_card
from table_controller.engine.model import Phase, Record
from table_controller.errors import RuleError

_OVER, _VOID, _AWARDING = Phase.OVER, Phase.VOID, Phase.AWARDING


@dataclass(frozen=True, slots=True)
class CardCorrection:
    """A card already dealt, replaced (irregularity handling: misread, exposed card, burn redone).

    :param where: ``"hole"``, ``"burn"`` or ``"board"``.
    :param seat: the seat for a hole card, else None.
    :param index: hole card round (1 or 2), burn number (0 = before the flop), or board slot.
    :param old: the card recorded before.
    :param new: the card recorded now.
    :param seq: ``len(hand.log)`` when the correction was made.
    """

    where: str
    seat: int | None
    index: int
    old: Card | None
    new: Card | None
    seq: int


class HandFixes:
    """Corrections of cards already dealt, and voiding: the part of ``Hand`` they need."""

    _st: HandState
    total: int
    seats: tuple[int, ...]
    starting_stacks: dict[int, int]
    corrections: list[CardCorrection]
    log: list[Record]

    def _redo(self, c: CardCorrection) -> None:
        if c.where == "hole" and c.seat is not None:
            self.replace_hole_card(c.seat, c.index, c.new)
        elif c.where == "burn":
            self.replace_burn(c.index, c.new)
        elif c.where == "board" and c.new is not None:
            self.replace_board_card(c.index, c.new)
        else:
            raise RuleError("bad-correction", f"cannot redo {c}")

    # -- irregularities ----------------------------------------------------------------------

    def replace_hole_card(self, seat: int, round: int, card: Card | None) -> CardCorrection:
        """Replace hole card ``round`` (1 or 2) of ``seat``, already dealt.

        :raises RuleError: no such card dealt yet, the seat showed already, the hand is over, or
            the new card is already out (``DuplicateCard``).
        """
        st = self._st
        if seat not in st.hole or not 1 <= round <= len(st.hole[seat]):
            raise RuleError("no-such-card", f"seat {seat} has no hole card {round} yet")
        if seat in st.shown:
            raise RuleError("already-shown", f"seat {seat} already showed its hand")
        new = self._correctable()
        old = st.hole[seat][round - 1]
        swap_card(new, old, card)
        hole = list(new.hole[seat])
        hole[round - 1] = card
        new.hole[seat] = tuple(hole)
        return self._commit_correction(new, CardCorrection("hole", seat, round, old, card,
                                                           len(self.log)))

    def replace_burn(self, number: int, card: Card | None) -> CardCorrection:
        """Replace burn ``number`` (0 before the flop, 1 before the turn, 2 before the river).

        :raises RuleError: that burn is not done yet, the hand is over, or the card is out.
        """
        st = self._st
        if not 0 <= number < len(st.burns):
            raise RuleError("no-such-card", f"burn {number} has not been done")
        new = self._correctable()
        old = st.burns[number]
        swap_card(new, old, card)
        new.burns[number] = card
        return self._commit_correction(new, CardCorrection("burn", None, number, old, card,
                                                           len(self.log)))

    def replace_board_card(self, slot: int, card: Card) -> CardCorrection:
        """Replace board card ``slot`` (0..4), already dealt (for example a misread).

        :raises RuleError: that slot is not dealt yet, the hand is over, or the card is out.
        """
        st = self._st
        if not 0 <= slot < len(st.board):
            raise RuleError("no-such-card", f"board card {slot} has not been dealt")
        new = self._correctable()
        old = st.board[slot]
        swap_card(new, old, card)
        new.board[slot] = card
        return self._commit_correction(new, CardCorrection("board", None, slot, old, card,
                                                           len(self.log)))

    def _correctable(self) -> HandState:
        if self._st.phase in (_OVER, _VOID, _AWARDING):
            raise RuleError("hand-over", "the hand is decided: its cards cannot change")
        new = self._st.copy()
        return new

    def _commit_correction(self, new: HandState, correction: CardCorrection) -> CardCorrection:
        check_integrity(new, self.total)
        self._st = new
        self.corrections.append(correction)
        return correction

    def refunds(self) -> dict[int, int]:
        """Return what :meth:`void` would give back to each seat, without changing anything.

        :raises RuleError: the hand is already over (its pots were pushed).
        """
        st = self._st
        if st.phase in (_OVER, _VOID):
            raise RuleError("void-finished", "the hand is already over and cannot be voided")
        return {s: self.starting_stacks[s] - st.stacks[s] for s in self.seats
                if self.starting_stacks[s] != st.stacks[s]}

    def void(self) -> dict[int, int]:
        """Void the hand (misdeal): every seat gets its starting stack back, rake included.

        :return: chips given back to each seat (seats with nothing to give back left out; a
            negative amount is taken back from a seat already paid from a pushed pot).
        :raises RuleError: the hand is already over (its pots were pushed).
        """
        st = self._st
        refunds = self.refunds()
        new = st.copy()
        new.stacks = dict(self.starting_stacks)
        new.round = BettingRound(new.round.order, {s: 0 for s in self.seats}, 0, 0)
        new.contrib = {s: 0 for s in self.seats}
        new.dead = 0
        new.middle = 0
        new.rake = 0
        new.posts = []
        new.awards, new.pushed, new.payouts = [], set(), {}
        new.phase = _VOID
        check_integrity(new, self.total)
        self._st = new
        return refunds
