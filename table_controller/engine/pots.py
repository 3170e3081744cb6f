"""Pots: side pots per all-in level, uncalled bets, rake, and splitting in whole chips.

Rules this module keeps (rake included):

1. The chips a seat put in over the hand (antes, blinds, bets) are its contribution. Each all-in
   level of a seat still in the hand cuts a pot: the pot holds every contribution up to that
   level and can be won only by the seats in the hand that reached it. Dead money (a dead small
   blind) goes to the main pot.
2. When a betting round ends, the part of the highest bet that nobody matched goes back.
3. A pot is split on its own, in whole chips; the odd chips go one each to the winners in order
   clockwise from the button.
4. Rake is a percentage of the pot, rounded down, at most the cap per hand, none when the hand
   ended before the flop (no flop, no drop); it is taken from the main pot first.

>>> build_pots({1: 100, 2: 300, 3: 300}, live={1, 2, 3}, all_in={1})
(PotView(amount=300, eligible=(1, 2, 3)), PotView(amount=400, eligible=(2, 3)))
>>> uncalled({1: 500, 2: 200, 3: 0})
(1, 300)
>>> split(101, winners=[7, 2], button=5)
({7: 51, 2: 50}, (7,))
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Collection, Iterable, Mapping
from itertools import accumulate

from table_controller.engine.model import PotView, RakeRule


def build_pots(
    contributions: Mapping[int, int],
    live: Collection[int],
    all_in: Collection[int],
    dead: int = 0,
) -> tuple[PotView, ...]:
    """Cut the chips in the middle into a main pot and side pots.

    :param contributions: chips each seat put into the pot so far (folded seats included).
    :param live: seats still in the hand (not folded, not mucked).
    :param all_in: seats with no chips left.
    :param dead: dead money (belongs to the main pot).
    :return: main pot first; pots of no chips are left out.
    """
    reached: list[tuple[int, int]] = []  # (contribution, seat) of the seats still in
    levels = set()
    for s in live:
        c = contributions.get(s, 0)
        reached.append((c, s))
        if c and s in all_in:
            levels.add(c)
    if not levels:  # nobody all-in: one pot (the common case, kept fast)
        total = sum(contributions.values()) + dead
        if not total:
            return ()
        eligible = tuple(sorted([s for c, s in reached if c > 0]))
        return (PotView(total, eligible or tuple(sorted(live))),)
    # One sort and prefix sums: the chips of the level (prev, level] are
    # sum(min(c, level) - prev for every contribution c > prev), found by bisection.
    values = sorted(contributions.values())
    n = len(values)
    prefix = list(accumulate(values, initial=0))
    reached.sort()
    reached_c = [c for c, _ in reached]
    pots: list[PotView] = []
    prev = 0
    for level in [*sorted(levels), None]:  # None: everything above the last all-in level
        a = bisect_right(values, prev)
        if level is None:
            amount = prefix[n] - prefix[a] - prev * (n - a)
            eligible = tuple(sorted([s for _, s in reached[bisect_right(reached_c, prev):]]))
        else:
            b = bisect_left(values, level)
            amount = prefix[b] - prefix[a] + level * (n - b) - prev * (n - a)
            eligible = tuple(sorted([s for _, s in reached[bisect_left(reached_c, level):]]))
            prev = level
        if amount:
            if pots and (not eligible or pots[-1].eligible == eligible):
                last = pots.pop()
                pots.append(PotView(last.amount + amount, last.eligible))
            else:
                pots.append(PotView(amount, eligible))
    if dead:
        if pots:
            pots[0] = PotView(pots[0].amount + dead, pots[0].eligible)
        else:
            pots.append(PotView(dead, tuple(sorted(live))))
    return tuple(pots)


def uncalled(bets: Mapping[int, int]) -> tuple[int, int] | None:
    """Return ``(seat, chips)`` of the bet part nobody matched, or None.

    >>> uncalled({1: 200, 2: 200}) is None
    True
    """
    top_seat, top, second = 0, 0, 0
    for seat, bet in bets.items():
        if bet > top:
            top_seat, top, second = seat, bet, top
        elif bet > second:
            second = bet
    if top > second:
        return top_seat, top - second
    return None


def clockwise_from_button(seats: Iterable[int], button: int) -> list[int]:
    """Order seats clockwise starting with the first seat left of the button.

    >>> clockwise_from_button([1, 3, 5, 8], button=5)
    [8, 1, 3, 5]
    """
    return sorted(seats, key=lambda s: (s <= button, s))


def split(amount: int, winners: Collection[int],
          button: int) -> tuple[dict[int, int], tuple[int, ...]]:
    """Split ``amount`` among ``winners`` in whole chips.

    :return: payouts by seat (in clockwise order from the button) and the seats that got an odd
        chip.
    :raises ValueError: if there are no winners.
    """
    if not winners:
        raise ValueError("a pot needs at least one winner")
    if len(winners) == 1:  # the common case (a hand won by folds): the whole pot, no odd chip
        (seat,) = winners
        return {seat: amount}, ()
    order = clockwise_from_button(winners, button)
    share, odd = divmod(amount, len(order))
    payouts = {s: share + (1 if i < odd else 0) for i, s in enumerate(order)}
    return payouts, tuple(order[:odd])


def rake_for(total: int, rule: RakeRule | None, flop_dealt: bool) -> int:
    """Return the rake on a hand whose pots hold ``total`` chips.

    >>> rake_for(1000, RakeRule(percent_bp=500, cap=30), flop_dealt=True)
    30
    >>> rake_for(1000, RakeRule(percent_bp=500, cap=30), flop_dealt=False)
    0
    >>> rake_for(399, RakeRule(percent_bp=500, cap=30), flop_dealt=True)
    19
    """
    if rule is None or (rule.no_flop_no_drop and not flop_dealt):
        return 0
    return min(total * rule.percent_bp // 10_000, rule.cap)


def rake_by_pot(pots: Iterable[int], rake: int) -> list[int]:
    """Take ``rake`` chips from the pots, main pot first.

    >>> rake_by_pot([20, 100], 30)
    [20, 10]
    """
    out = []
    for amount in pots:
        take = min(amount, rake)
        out.append(take)
        rake -= take
    return out
