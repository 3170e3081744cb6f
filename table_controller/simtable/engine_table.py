"""The table played on the rules engine alone: no devices, no daemon (the pure baseline).

:class:`EngineTable` seats simulated players at a :class:`~table_controller.engine.Table`,
shuffles a seeded deck for every hand and answers every step the engine expects the way the
simulated dealer does (post, deal, act, collect, show, push). Tests use it to check the players
and the dealer logic against the engine; the system benchmark uses it as the engine-alone figure.

Rules this module keeps:

1. Randomness comes only from ``random.Random(seed)`` objects owned here and by the players.
2. Chips are counted, not trusted: after every hand the stacks plus the rake taken must equal the
   chips bought in, or :class:`~table_controller.errors.ChipConservationError` is raised.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from table_controller.engine import (
    FULL_DECK,
    Act,
    ActStep,
    Card,
    Hand,
    HandOverStep,
    Input,
    LegalActions,
    RakeRule,
    Step,
    Table,
    TableConfig,
)
from table_controller.engine.answers import card_input, default_input, wants_card
from table_controller.errors import ChipConservationError, RuleError
from table_controller.simtable.players import Player, make_players

Decider = Callable[[LegalActions, int], Act]


def shuffled_deck(rng: random.Random) -> list[Card]:
    """Return the 52 cards in a seeded random order (top card first)."""
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    return deck


def engine_input(step: Step, deck: list[Card], decide: Decider, pot: int) -> Input:
    """Return the input that answers ``step`` the way the simulated dealer does.

    Cards come off the top of ``deck`` (removed); actions come from ``decide``; the rest is
    :func:`~table_controller.engine.answers.default_input`.

    :raises RuleError: for a :class:`HandOverStep` (nothing to answer).
    """
    if wants_card(step):
        return card_input(deck.pop(0))
    if isinstance(step, ActStep):
        return decide(step.legal, pot)
    answer = default_input(step)
    if answer is None:
        raise RuleError("hand-over", "the hand is over: nothing to answer")
    return answer


@dataclass(slots=True)
class EngineRun:
    """What a run of hands did."""

    hands: int = 0
    chips_before: int = 0
    chips_after: int = 0
    rake: int = 0
    stacks: dict[int, int] = field(default_factory=dict)
    inputs: int = 0


class EngineTable:
    """Simulated players at an engine table.

    :param stacks: seat -> starting stack.
    :param seed: seeds the deck shuffles and the players.
    :param players: the players (default: :func:`make_players`).
    """

    def __init__(
        self,
        stacks: Mapping[int, int],
        *,
        seats: int = 9,
        small_blind: int = 50,
        big_blind: int = 100,
        rake: RakeRule | None = None,
        seed: int = 1,
        players: Mapping[int, Player] | None = None,
    ) -> None:
        self.table = Table(TableConfig(seats=seats, small_blind=small_blind,
                                       big_blind=big_blind, rake=rake))
        self.players = dict(players) if players is not None else make_players(stacks, seed)
        for seat, stack in sorted(stacks.items()):
            self.table.seat_player(seat, self.players[seat].name, stack)
        self.rng = random.Random(seed)
        self.bought_in = sum(stacks.values())
        self.last_hand: Hand | None = None

    def _decide(self, legal: LegalActions, pot: int) -> Act:
        return self.players[legal.seat].decide(legal, pot)

    def can_play(self) -> bool:
        """Tell whether at least two players have chips."""
        return sum(1 for v in self.table.status().seats.values() if v.stack > 0) >= 2

    def play_hand(self) -> Hand:
        """Play one whole hand and return it (finished).

        :raises ChipConservationError: if the chips do not add up afterwards.
        """
        hand = self.table.start_hand()
        deck = shuffled_deck(self.rng)
        while True:
            step = hand.expected()
            if isinstance(step, HandOverStep):
                break
            st = hand.status()
            pot = sum(p.amount for p in st.pots) + sum(st.bets.values())
            hand.apply(engine_input(step, deck, self._decide, pot))
        self.table.finish_hand(hand)
        self.last_hand = hand
        total = sum(v.stack for v in self.table.status().seats.values())
        if total + self.table.rake_total != self.bought_in:
            raise ChipConservationError(
                f"after hand {self.table.hands_played}: stacks {total} + rake "
                f"{self.table.rake_total} != bought in {self.bought_in}")
        return hand

    def play(self, hands: int) -> EngineRun:
        """Play up to ``hands`` hands (fewer if fewer than two players have chips)."""
        run = EngineRun(chips_before=self.bought_in)
        inputs = 0
        for _ in range(hands):
            if not self.can_play():
                break
            inputs += len(self.play_hand().log)
            run.hands += 1
        run.stacks = {s: v.stack for s, v in self.table.status().seats.items()}
        run.chips_after = sum(run.stacks.values())
        run.rake = self.table.rake_total
        run.inputs = inputs
        return run
