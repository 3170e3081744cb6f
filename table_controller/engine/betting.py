"""One betting round: whose turn it is, the legal options, and applying an action.

Rules this module keeps (Poker TDA 2019 rules 40-47):

1. Action goes clockwise from the first seat to act; folded and all-in seats are skipped.
2. The round ends when every seat still in, with chips behind, has acted since the last full
   raise and has matched the bet to call, or when only one seat is left in.
   Posting a blind is not acting: the big blind keeps the option to raise when limped to.
3. A seat alone with chips, facing no bet, has no one to bet against and is not asked to act.
4. The minimum bet is the big blind; the minimum raise is the size of the last full bet or raise
   of the round (at least the big blind).
5. An all-in for less than a full raise does not reopen the betting: a seat that already acted may
   raise again only when it faces, since it last acted, at least one full raise (several short
   all-ins together may add up to one).
6. A big blind all-in for less than the big blind counts as a full big blind: the bet to call is
   the full big blind and the minimum raise is as for a full big blind.
7. A seat cannot raise when nobody left could put in more than the bet to call (everybody else
   is folded, all-in, or has too few chips to even call).
"""

from __future__ import annotations

from collections.abc import Mapping

from table_controller.engine.model import ActionKind, LegalActions
from table_controller.errors import RuleError

# Enum members as module constants (faster to read than ``ActionKind.FOLD`` on Python 3.11).
_FOLD, _CHECK, _CALL = ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL
_BET, _RAISE, _ALL_IN = ActionKind.BET, ActionKind.RAISE, ActionKind.ALL_IN
_new = tuple.__new__


class BettingRound:
    """The betting state of one street.

    :param order: seats in clockwise order, starting with the first seat to act.
    :param bets: chips each seat has in front of it (blinds already posted).
    :param current_bet: the bet level to match (preflop: the full big blind).
    :param min_raise: the size of a full raise (the big blind at the start of a round).
    """

    __slots__ = ("acted", "bets", "current_bet", "last_aggressor", "min_raise", "opened", "order")

    def __init__(self, order: tuple[int, ...], bets: dict[int, int], current_bet: int,
                 min_raise: int) -> None:
        self.order = order
        self.bets = bets
        self.current_bet = current_bet
        self.min_raise = min_raise
        self.acted: dict[int, int] = {}
        """Seat -> the bet level it was at right after it last acted."""
        self.last_aggressor: int | None = None
        self.opened = current_bet > 0
        """True once a bet (or the blinds) is in: a further bet is then a raise."""

    def copy(self) -> BettingRound:
        """Return an independent copy (for transactional apply)."""
        new = BettingRound(self.order, dict(self.bets), self.current_bet, self.min_raise)
        new.acted = dict(self.acted)
        new.last_aggressor = self.last_aggressor
        new.opened = self.opened
        return new

    # -- whose turn --------------------------------------------------------------------------

    def needs_action(self, seat: int, stacks: Mapping[int, int], live: frozenset[int]) -> bool:
        """Tell whether ``seat`` still has to act this round."""
        if seat not in live or stacks[seat] == 0:
            return False
        if self.bets[seat] < self.current_bet:
            return True
        if seat in self.acted:
            return False
        return any(s != seat and stacks[s] > 0 for s in live)

    def next_to_act(self, after: int | None, stacks: Mapping[int, int],
                    live: frozenset[int]) -> int | None:
        """Return the next seat to act clockwise after ``after`` (None = from the start)."""
        if len(live) < 2:
            return None
        order = self.order
        n = len(order)
        start = 0 if after is None else order.index(after) + 1
        bets, current, acted = self.bets, self.current_bet, self.acted
        others_with_chips: bool | None = None
        for i in range(start, start + n):
            seat = order[i % n]
            if seat not in live or stacks[seat] == 0:
                continue
            if bets[seat] < current:
                return seat
            if seat not in acted:  # same test as needs_action, inlined: this is the hot path
                if others_with_chips is None:
                    others_with_chips = len([s for s in live if stacks[s] > 0]) >= 2
                if others_with_chips:
                    return seat
        return None

    # -- options -----------------------------------------------------------------------------

    def legal(self, seat: int, stacks: Mapping[int, int], live: frozenset[int]) -> LegalActions:
        """Return the options of ``seat`` (assumed to be the seat to act)."""
        bets, current, acted = self.bets, self.current_bet, self.acted
        stack = stacks[seat]
        bet = bets[seat]
        to_call = current - bet if current > bet else 0
        max_to = bet + stack
        can_raise = False
        if max_to > current and (seat not in acted or current - acted[seat] >= self.min_raise):
            for s in live:  # reopened, and can it be called?
                if s != seat and bets[s] + stacks[s] > current:
                    can_raise = True
                    break
        if can_raise:
            min_to = current + self.min_raise
            min_to = min_to if min_to < max_to else max_to
        # positional (seat, can_fold, can_check, can_call, call_amount, can_raise, min_raise_to,
        # max_raise_to, to_call_total, bet, stack, is_bet), built as a plain tuple: faster than
        # calling the named tuple's class on this path
        return _new(LegalActions, (
            seat, True, to_call == 0, to_call > 0, to_call if to_call < stack else stack,
            can_raise, min_to if can_raise else 0, max_to if can_raise else 0,
            current, bet, stack, not self.opened))

    def resolve(self, legal: LegalActions, kind: ActionKind, to: int) -> tuple[ActionKind, int]:
        """Check an action against ``legal`` and return it as the rules read it.

        :return: the normalized kind (FOLD, CHECK, CALL, BET or RAISE) and the seat's total bet
            for the round afterwards.
        :raises RuleError: the action is not allowed.
        """
        seat = legal.seat
        if kind is _FOLD:
            return _FOLD, legal.bet
        if kind is _CHECK:
            if not legal.can_check:
                raise RuleError("check-facing-bet",
                                f"seat {seat} cannot check: {legal.call_amount:,} to call")
            return _CHECK, legal.bet
        if kind is _CALL:
            if not legal.can_call:
                raise RuleError("call-nothing", f"seat {seat} has nothing to call: check instead")
            return _CALL, legal.bet + legal.call_amount
        if kind is _ALL_IN:
            all_in_to = legal.bet + legal.stack
            if all_in_to <= legal.to_call_total:
                return _CALL, all_in_to
            to = all_in_to
        # BET, RAISE, or ALL_IN for more than a call
        raise_kind = _BET if legal.is_bet else _RAISE
        if not legal.can_raise:
            if legal.max_raise_to == 0 and legal.bet + legal.stack <= legal.to_call_total:
                raise RuleError("raise-all-in-call",
                                f"seat {seat} has only {legal.stack:,}: it can call all-in")
            if seat in self.acted and self.current_bet - self.acted[seat] < self.min_raise:
                raise RuleError("betting-not-reopened",
                                f"seat {seat} already acted and faces less than a full raise: "
                                "it may only call or fold")
            raise RuleError("raise-no-opponent",
                            f"seat {seat} cannot raise: nobody left can call a raise")
        if to > legal.max_raise_to:
            raise RuleError("bet-above-stack",
                            f"seat {seat} has {legal.max_raise_to:,} at most (bet + stack); "
                            f"cannot make it {to:,}")
        if to < legal.min_raise_to:
            word = "bet" if legal.is_bet else "raise"
            raise RuleError(f"min-{word}",
                            f"seat {seat}: minimum {word} is to {legal.min_raise_to:,}, "
                            f"not {to:,}")
        return raise_kind, to

    # -- applying ----------------------------------------------------------------------------

    def take(self, legal: LegalActions, kind: ActionKind, to: int) -> tuple[ActionKind, int]:
        """Check an action against ``legal`` and apply it: :meth:`resolve`, then :meth:`act`.

        A check or a call that ``legal`` allows (the commonest actions) is applied at once, as
        those two would apply it.

        :return: the kind as the rules read it and the chips the seat adds (caller moves them).
        :raises RuleError: the action is not allowed (nothing changed).
        """
        seat = legal.seat
        if kind is _CHECK and legal.can_check:
            self.acted[seat] = self.current_bet
            return _CHECK, 0
        if kind is _CALL and legal.can_call:
            to = legal.bet + legal.call_amount
            added = to - self.bets[seat]
            self.bets[seat] = to
            self.acted[seat] = self.current_bet
            return _CALL, added
        kind, to = self.resolve(legal, kind, to)
        return kind, self.act(seat, kind, to)

    def act(self, seat: int, kind: ActionKind, to: int) -> int:
        """Apply a resolved action; return the chips the seat adds (caller moves them)."""
        added = 0
        if kind in (_CALL, _BET, _RAISE):
            added = to - self.bets[seat]
            self.bets[seat] = to
        if kind in (_BET, _RAISE):
            increment = to - self.current_bet
            if increment >= self.min_raise:
                self.min_raise = increment
            self.current_bet = to
            self.last_aggressor = seat
            self.opened = True
        self.acted[seat] = self.current_bet
        return added
