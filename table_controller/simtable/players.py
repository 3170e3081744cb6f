"""Simulated players: seeded strategies that pick a legal action, scripted players, the lobby.

A :class:`Lobby` keeps a long run going: between hands, a player who cannot cover a big blind
buys back in, or (with an empty stack) leaves and a new player sits down with the buy-in; the
chips come from the cage, so a run's chips agree as *before + buy-ins = after + rake*.

Rules this module keeps:

1. A player never reads a clock or the global ``random``: each one owns a ``random.Random``
   seeded from the demo seed and its seat, so a run is reproducible from ``--seed``.
2. :meth:`Player.decide` returns an action the engine accepts for the
   :class:`~table_controller.engine.LegalActions` it was given (checked by the tests against the
   engine for thousands of hands); a scripted player whose script does not fit raises
   :class:`ScriptError` naming the step.

>>> from table_controller.engine import LegalActions
>>> legal = LegalActions(3, True, True, False, 0, True, 100, 1000, 0, 0, 1000, True)
>>> p = Player("Ann", Style.CALLING_STATION, seed=1)
>>> p.decide(legal, pot=150).kind.value
'check'
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from table_controller.engine import Act, ActionKind, LegalActions
from table_controller.errors import TableError


class ScriptError(TableError):
    """A scripted action does not fit the step the table is at."""


class Style(enum.Enum):
    """How a simulated player plays: probabilities of folding, raising and going all-in."""

    CALLING_STATION = "station"
    TIGHT = "tight"
    LOOSE = "loose"
    AGGRESSIVE = "aggressive"


@dataclass(frozen=True, slots=True)
class _Weights:
    fold: float        # facing a bet
    raise_: float      # facing a bet, or betting when checked to
    all_in: float      # share of raises that are all-in
    size: float        # typical raise size as a fraction of the pot


_WEIGHTS = {
    Style.CALLING_STATION: _Weights(0.05, 0.05, 0.02, 0.5),
    Style.TIGHT: _Weights(0.45, 0.12, 0.05, 0.75),
    Style.LOOSE: _Weights(0.15, 0.25, 0.05, 0.6),
    Style.AGGRESSIVE: _Weights(0.2, 0.45, 0.1, 1.0),
}
#: Styles given to seats in turn when none is chosen.
DEFAULT_STYLES = (Style.TIGHT, Style.LOOSE, Style.AGGRESSIVE, Style.CALLING_STATION)
#: Names given to simulated players, in seat order.
NAMES = ("Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy", "Jo")
#: Names of the players who sit down later (a number added after the first round of them).
NEWCOMERS = ("Kay", "Lu", "Max", "Ned", "Oz", "Pia", "Quin", "Ray", "Sol", "Tess")


class Player:
    """A simulated player with a seeded style.

    :param name: shown on the displays.
    :param style: how it plays.
    :param seed: seeds its own random generator.
    """

    def __init__(self, name: str, style: Style, seed: int) -> None:
        self.name = name
        self.style = style
        self._rng = random.Random(seed)
        self._w = _WEIGHTS[style]
        #: whether the player mucks a hand beaten by one already shown (tight and aggressive
        #: players do; the others show every hand)
        self.mucks_losers = style in (Style.TIGHT, Style.AGGRESSIVE)

    def decide(self, legal: LegalActions, pot: int = 0) -> Act:
        """Choose a legal action for ``legal`` (``pot``: chips in the middle and in bets)."""
        rng, w = self._rng, self._w
        seat = legal.seat
        facing = legal.can_call and legal.call_amount > 0
        if facing and rng.random() < w.fold * min(1.0, 0.5 + legal.call_amount / max(pot, 1)):
            return Act(seat, ActionKind.FOLD)
        if legal.can_raise and rng.random() < w.raise_:
            if rng.random() < w.all_in or legal.min_raise_to >= legal.max_raise_to:
                return Act(seat, ActionKind.ALL_IN)
            target = legal.to_call_total + int(max(pot, 1) * w.size * (0.5 + rng.random()))
            to = max(legal.min_raise_to, min(legal.max_raise_to, target))
            kind = ActionKind.BET if legal.is_bet else ActionKind.RAISE
            if to >= legal.max_raise_to:
                return Act(seat, ActionKind.ALL_IN)
            return Act(seat, kind, to)
        if legal.can_check:
            return Act(seat, ActionKind.CHECK)
        if legal.can_call:
            return Act(seat, ActionKind.CALL)
        return Act(seat, ActionKind.FOLD)


def passive(legal: LegalActions, pot: int = 0) -> Act:
    """Check when possible, else call (a player who never folds or raises).

    >>> from table_controller.engine import LegalActions
    >>> passive(LegalActions(3, True, False, True, 50, True, 200, 1000, 100, 50, 950, False)).kind
    <ActionKind.CALL: 'call'>
    """
    kind = ActionKind.CHECK if legal.can_check else ActionKind.CALL
    return Act(legal.seat, kind)


def make_players(seats: Iterable[int], seed: int,
                 styles: Sequence[Style] = DEFAULT_STYLES) -> dict[int, Player]:
    """Build one player per seat, styles in turn, each seeded from ``seed`` and its seat.

    >>> sorted(make_players([1, 4], seed=7))
    [1, 4]
    """
    out: dict[int, Player] = {}
    for i, seat in enumerate(sorted(seats)):
        out[seat] = Player(NAMES[(seat - 1) % len(NAMES)], styles[i % len(styles)],
                           seed * 1009 + seat)
    return out


@dataclass(frozen=True, slots=True)
class ScriptedAction:
    """One line of a scenario's action script: ``seat`` does ``kind`` (``to`` for bet/raise)."""

    seat: int
    kind: ActionKind
    to: int = 0

    @classmethod
    def parse(cls, text: str) -> ScriptedAction:
        """Parse ``"3 raise 400"``, ``"5 call"``, ``"2 all_in"``.

        >>> ScriptedAction.parse("3 raise 400")
        ScriptedAction(seat=3, kind=<ActionKind.RAISE: 'raise'>, to=400)

        :raises ScriptError: naming what is wrong.
        """
        parts = text.split()
        if len(parts) not in (2, 3) or not parts[0].isdigit():
            raise ScriptError(f"action {text!r}: expected '<seat> <action> [amount]'")
        word = parts[1].lower().replace("-", "_")
        try:
            kind = ActionKind(word)
        except ValueError:
            names = ", ".join(k.value for k in ActionKind)
            raise ScriptError(f"action {text!r}: unknown action {parts[1]!r} ({names})") from None
        needs_amount = kind in (ActionKind.BET, ActionKind.RAISE)
        if needs_amount != (len(parts) == 3) or (needs_amount and not parts[2].isdigit()):
            raise ScriptError(f"action {text!r}: {kind.value} "
                              + ("needs an amount" if needs_amount else "takes no amount"))
        return cls(int(parts[0]), kind, int(parts[2]) if needs_amount else 0)

    def to_act(self) -> Act:
        """Return the engine input."""
        return Act(self.seat, self.kind, self.to)


class ScriptedPlayers:
    """Actions taken from a script, in order, whoever is asked.

    :param script: the actions of the whole scenario, in the order they happen.
    """

    def __init__(self, script: Sequence[ScriptedAction]) -> None:
        self._script = list(script)
        self._i = 0

    @property
    def remaining(self) -> int:
        """Actions not used yet."""
        return len(self._script) - self._i

    def decide(self, legal: LegalActions, pot: int = 0) -> Act:
        """Return the next scripted action; it must be for ``legal.seat``.

        :raises ScriptError: the script is used up or names another seat.
        """
        if self._i >= len(self._script):
            raise ScriptError(f"the action script is used up; seat {legal.seat} is to act")
        action = self._script[self._i]
        if action.seat != legal.seat:
            raise ScriptError(
                f"action {self._i + 1} of the script is for seat {action.seat}, but seat "
                f"{legal.seat} is to act")
        self._i += 1
        return action.to_act()

    def take_back(self, act: Act | None = None) -> None:
        """Put the last action handed out back: the controller refused it, so it did not happen.

        (A prompt can go stale between the feed and the command, e.g. when a hold arrives.)
        """
        if self._i > 0:
            self._i -= 1


@dataclass(frozen=True, slots=True)
class SeatChange:
    """What the floor does for a seat between hands.

    :param seat: the seat.
    :param amount: chips from the cage: the re-buy, or the new player's stack.
    :param player: the new player's name (``None``: the seated player buys back in).
    """

    seat: int
    amount: int
    player: str | None = None


class Lobby:
    """The simulated players at the table, and the ones who sit down when a player leaves.

    Between hands (:meth:`changes`), a player whose stack is below ``big_blind`` buys back in up
    to ``buy_in``; one whose stack is empty leaves instead with chance ``leave``, and a new
    player (the next name of :data:`NEWCOMERS`, the next style) sits down with ``buy_in``. The
    choices are seeded from ``seed``, so a run is reproducible. :meth:`sat` is told which
    changes the controller accepted.

    A new player waits for the big blind before being dealt in, so a player leaves only while
    two others with chips are *settled* (seated at least one orbit, as many
    :meth:`changes` calls as there are seats, ago): the table always has two players it can
    deal to, and the run never stalls on "seat at least two players".

    >>> lobby = Lobby([1, 2], seed=1, buy_in=1_000, big_blind=100, leave=0.0)
    >>> lobby.changes({1: 0, 2: 2_000})
    [SeatChange(seat=1, amount=1000, player=None)]
    >>> lobby = Lobby([1, 2, 3], seed=1, buy_in=1_000, big_blind=100, leave=1.0)
    >>> lobby.changes({1: 0, 2: 2_000, 3: 500})
    [SeatChange(seat=1, amount=1000, player='Kay')]
    >>> lobby.changes({1: 0, 2: 2_000, 3: 40})  # one other player settled: a re-buy
    [SeatChange(seat=1, amount=1000, player=None), SeatChange(seat=3, amount=960, player=None)]

    :param seats: the seats of the first players.
    :param seed: seeds the players and the lobby's choices.
    :param buy_in: the first stacks, and what a re-buy tops a stack up to.
    :param big_blind: a stack below this buys back in.
    :param leave: the chance that a player with an empty stack leaves rather than re-buys.
    """

    def __init__(self, seats: Iterable[int], seed: int, buy_in: int, *, big_blind: int,
                 leave: float = 0.25, styles: Sequence[Style] = DEFAULT_STYLES) -> None:
        self.players = make_players(seats, seed, styles)
        self.seed = seed
        self.buy_in = buy_in
        self.big_blind = big_blind
        self.leave = leave
        self.styles = tuple(styles)
        self._rng = random.Random(seed ^ 0x10BB)
        self._newcomers = 0
        self._waiting: dict[int, Player] = {}
        self._calls = 0
        #: seat -> the :meth:`changes` call after which its newcomer sat down
        self._since: dict[int, int] = {}

    def decide(self, legal: LegalActions, pot: int = 0) -> Act:
        """Return the action of the player in ``legal.seat``."""
        return self.players[legal.seat].decide(legal, pot)

    def mucks(self, seat: int) -> bool:
        """Tell whether the player in ``seat`` mucks a beaten hand."""
        return self.players[seat].mucks_losers

    def changes(self, stacks: Mapping[int, int]) -> list[SeatChange]:
        """Return the re-buys and new players for the seated ``stacks`` (seat -> chips)."""
        self._calls += 1
        settled = {s for s, v in stacks.items() if v >= self.big_blind and s in self.players
                   and self._calls - self._since.get(s, -len(self.players))
                   > len(self.players)}
        out: list[SeatChange] = []
        for seat in sorted(self.players):
            stack = stacks.get(seat)
            if stack is None or stack >= self.big_blind:
                continue
            if stack == 0 and self._rng.random() < self.leave and len(settled) >= 2:
                newcomer = self._newcomer(seat)
                self._waiting[seat] = newcomer
                out.append(SeatChange(seat, self.buy_in, newcomer.name))
            else:
                out.append(SeatChange(seat, self.buy_in - stack))
        return out

    def sat(self, change: SeatChange) -> None:
        """Record that ``change`` was made (a new player now plays that seat)."""
        newcomer = self._waiting.pop(change.seat, None)
        if change.player is not None and newcomer is not None:
            self.players[change.seat] = newcomer
            self._since[change.seat] = self._calls

    def _newcomer(self, seat: int) -> Player:
        k = self._newcomers
        self._newcomers += 1
        rounds, i = divmod(k, len(NEWCOMERS))
        name = NEWCOMERS[i] + (f" {rounds + 1}" if rounds else "")
        return Player(name, self.styles[k % len(self.styles)],
                      self.seed * 1009 + 100 * (k + 1) + seat)
