"""The table across hands: seats, stacks, the button, blinds owed, and starting each hand.

Rules this module keeps (Poker TDA rules, 2024 edition; Robert's Rules of Poker, v11, Button
and Blind Use):

1. Seats are numbered 1..N clockwise (2 <= N <= 10). A seat holds one player and its chips;
   chips change only through buy-ins and add-ons (between hands), cash-outs, and hands.
2. Dead button (TDA 32): the big blind moves to the next player in the game after last hand's
   big blind, every hand; the small blind is last hand's big-blind seat (dead when that player
   is no longer in); the button is last hand's small-blind seat, even when empty. Nobody posts
   the big blind twice in a row, nobody skips it.
3. Heads-up (TDA 34), the button posts the small blind: with two players the one not in the big
   blind has the button. Coming out of heads-up, when last hand's button would now be the big
   blind, the button goes to the seat right of the small blind (a dead button if it is empty):
   with three or more players the button is never the big blind.
4. A player passed over by the big blind while sitting out has missed the big blind; one who
   sits out while last hand's big blind moves to the small blind has missed the small blind.
   To come back (:class:`PostChoice`) it posts a live big blind and a dead small blind (missed
   big blind), or a dead small blind (missed small blind only), or waits for the big blind.
5. A new player posts a big blind to play at once, or waits for the big blind. Nobody who owes
   a post is dealt in on the button or in the small blind, and nobody at all between the button
   and the small blind: they wait until the button passes.
6. Rake is taken from the pots by the hand; the table adds it up.
7. A hand that is voided (misdeal) changes nothing: same button, same blinds owed, and the next
   hand is its exact replay (TDA 35-C): the same button, blinds and seats dealt in (a player
   seated meanwhile waits; one who left is left out).
8. If the posting rules leave fewer than two players to deal in while two can play, a new game
   starts: everyone able is dealt in, owing nothing (a house rule: no rule book covers it).
9. Straddles are a house rule (``TableConfig.straddle``, default ``"off"``: the Poker TDA rules
   are tournament rules and list none; the live straddle is common cash-game practice, with no
   rule-book section confirmed: ``docs/engine.md``, Sources). ``"utg"``: the first seat dealt in
   left of the big blind may straddle; ``"button"``: the button may (a live button straddle).
   Either needs three or more players dealt in, a seat that owes no other post, and a stack
   that covers the straddle: twice the big blind. A player asks for it between hands
   (:meth:`Table.straddle`) for the next hand only; if that hand's positions no longer put the
   seat there, no straddle. A voided hand's re-deal keeps its straddle (rule 7). The hand plays
   it (engine rule 1a).

>>> table = Table(TableConfig(seats=6, small_blind=5, big_blind=10))
>>> for seat in (1, 3, 5):
...     table.seat_player(seat, f"p{seat}", 1000)
>>> hand = table.start_hand()
>>> hand.button, hand.sb_seat, hand.bb_seat
(1, 3, 5)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from table_controller.engine.hand import Hand
from table_controller.engine.model import ExtraPost, HandConfig, Phase, PostKind, RakeRule
from table_controller.engine.straddle import STRADDLE_RULES, straddle_position
from table_controller.errors import ChipConservationError, ConfigError, RuleError


class PostChoice(enum.Enum):
    """How a new or returning player comes in (Robert's Rules of Poker, Button and Blind Use).

    ``WAIT``: wait for the big blind to reach the seat. ``NOW``: post to play the next hand it
    may be dealt (not on the button, in the small blind or between them): a new player posts
    a big blind; one who missed the big blind posts it live and the small blind dead; one who
    missed only the small blind posts it dead.
    """

    WAIT = "wait"
    NOW = "now"

    @classmethod
    def of(cls, value: PostChoice | bool | str) -> PostChoice:
        """Return the choice for ``value`` (``True`` = ``NOW``, ``False`` = ``WAIT``).

        >>> PostChoice.of("now"), PostChoice.of(False)
        (<PostChoice.NOW: 'now'>, <PostChoice.WAIT: 'wait'>)

        :raises RuleError: an unknown choice.
        """
        if isinstance(value, PostChoice):
            return value
        if isinstance(value, bool):
            return cls.NOW if value else cls.WAIT
        try:
            return cls(value)
        except ValueError:
            raise RuleError("post-choice", f"post: one of wait, now; got {value!r}") from None


@dataclass(frozen=True, slots=True)
class TableConfig:
    """Stakes and seats of a cash-game table.

    :param seats: number of seats (2..10).
    :param min_buy_in: smallest first buy-in (0 = any).
    :param max_buy_in: largest stack a buy-in or add-on may reach (0 = no limit).
    :param table_all_ins: house option, :class:`~.model.HandConfig` (TDA 2024 rule 16).
    :param bb_ante_first: house option, :class:`~.model.HandConfig` (TDA 2019 / 2024 rule 2).
    :param straddle: house rule (module rule 9): ``"off"`` (the default), ``"utg"`` or
        ``"button"``.
    :param odd_chips_to_rake: house option, :class:`~.model.HandConfig` (rake on a split pot).
    :raises ConfigError: a value is out of range.
    """

    seats: int
    small_blind: int
    big_blind: int
    ante: int = 0
    bb_ante: int = 0
    rake: RakeRule | None = None
    min_buy_in: int = 0
    max_buy_in: int = 0
    table_all_ins: bool = True
    bb_ante_first: bool = False
    straddle: str = "off"
    odd_chips_to_rake: bool = False

    def __post_init__(self) -> None:
        if not 2 <= self.seats <= 10:
            raise ConfigError(f"seats must be 2..10, got {self.seats}")
        if self.big_blind <= 0 or not 0 <= self.small_blind <= self.big_blind:
            raise ConfigError(f"blinds {self.small_blind}/{self.big_blind} are not valid")
        if self.ante < 0 or self.bb_ante < 0 or self.min_buy_in < 0 or self.max_buy_in < 0:
            raise ConfigError("ante, bb_ante and buy-in limits cannot be negative")
        if self.straddle not in STRADDLE_RULES:
            raise ConfigError(f"straddle must be one of {', '.join(STRADDLE_RULES)}, "
                              f"got {self.straddle!r}")


@dataclass(frozen=True, slots=True)
class SeatView:
    """One occupied seat, as seen between hands."""

    player: str
    stack: int
    sitting_out: bool
    missed_sb: bool
    missed_bb: bool
    new: bool
    wants_to_post: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {"player": self.player, "stack": self.stack, "sitting_out": self.sitting_out,
                "missed_sb": self.missed_sb, "missed_bb": self.missed_bb, "new": self.new,
                "wants_to_post": self.wants_to_post}


@dataclass(frozen=True, slots=True)
class TableStatus:
    """Frozen snapshot of the table."""

    seats: MappingProxyType[int, SeatView]
    button: int | None
    sb_position: int | None
    bb_position: int | None
    hand_in_progress: bool
    hands_played: int
    rake_total: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {"seats": {str(s): v.to_dict() for s, v in self.seats.items()},
                "button": self.button, "sb_position": self.sb_position,
                "bb_position": self.bb_position, "hand_in_progress": self.hand_in_progress,
                "hands_played": self.hands_played, "rake_total": self.rake_total}


@dataclass(slots=True)
class _Seat:
    player: str
    stack: int
    sitting_out: bool = False
    missed_sb: bool = False
    missed_bb: bool = False
    new: bool = True
    wants_to_post: bool = False


@dataclass(frozen=True, slots=True)
class _Plan:
    """What :meth:`Table.finish_hand` records once the hand is over (not when voided)."""

    button: int
    sb_position: int
    bb_position: int
    dealt: tuple[int, ...]
    missed_sb: tuple[int, ...]
    missed_bb: tuple[int, ...]


class Table:
    """Seats 1..N, the button, blinds owed, and the hands played.

    :param config: stakes and seats.
    """

    def __init__(self, config: TableConfig) -> None:
        self.config = config
        self._seats: dict[int, _Seat] = {}
        self.button: int | None = None
        self.sb_position: int | None = None
        self.bb_position: int | None = None
        self.hands_played = 0
        self.rake_total = 0
        self._hand: Hand | None = None
        self._plan: _Plan | None = None
        #: the voided hand to deal again: its config, plan and players (rule 7)
        self._replay: tuple[HandConfig, _Plan, dict[int, str]] | None = None
        self.straddler: int | None = None
        """The seat that asked to straddle the next hand (rule 9), or ``None``."""

    # -- seats -------------------------------------------------------------------------------

    def _check_seat_number(self, seat: int) -> None:
        if not 1 <= seat <= self.config.seats:
            raise RuleError("no-such-seat", f"seat {seat} does not exist (1..{self.config.seats})")

    def _occupied(self, seat: int) -> _Seat:
        self._check_seat_number(seat)
        if seat not in self._seats:
            raise RuleError("empty-seat", f"seat {seat} is empty")
        return self._seats[seat]

    def _not_in_hand(self, seat: int, what: str) -> None:
        if self._hand is not None and seat in self._hand.seats:
            raise RuleError("hand-in-progress", f"seat {seat} is in the hand: cannot {what} now")

    def seat_player(self, seat: int, player: str, buy_in: int,
                    post: PostChoice | bool = False) -> None:
        """Seat a new player with ``buy_in`` chips.

        :param post: :class:`PostChoice` (``True`` = ``NOW``: post a big blind to play the next
            hand it may be dealt; otherwise wait for the big blind).
        :raises RuleError: the seat does not exist or is taken, or the buy-in is out of limits.
        """
        self.check_seat_player(seat, player, buy_in)
        self._seats[seat] = _Seat(player, buy_in,
                                  wants_to_post=PostChoice.of(post) is PostChoice.NOW)

    def check_seat_player(self, seat: int, player: str, buy_in: int) -> None:
        """Check :meth:`seat_player` without changing anything.

        :raises RuleError: as :meth:`seat_player` would.
        """
        self._check_seat_number(seat)
        if seat in self._seats:
            raise RuleError("seat-taken", f"seat {seat} is taken by {self._seats[seat].player}")
        if not player:
            raise RuleError("no-player", "a player needs a name or id")
        self._check_buy_in(seat, 0, buy_in, first=True)

    def _check_buy_in(self, seat: int, stack: int, amount: int, first: bool) -> None:
        cfg = self.config
        if amount <= 0:
            raise RuleError("buy-in", f"seat {seat}: a buy-in must be positive, got {amount}")
        if first and amount < cfg.min_buy_in:
            raise RuleError("buy-in", f"seat {seat}: minimum buy-in is {cfg.min_buy_in:,}")
        if cfg.max_buy_in and stack + amount > cfg.max_buy_in:
            raise RuleError("buy-in", f"seat {seat}: a stack may not exceed {cfg.max_buy_in:,}")

    def unseat(self, seat: int) -> int:
        """Remove the player of ``seat``; return its chips (cashed out).

        :raises RuleError: the seat is empty or in the hand being played.
        """
        self.check_unseat(seat)
        return self._seats.pop(seat).stack

    def check_unseat(self, seat: int) -> int:
        """Check :meth:`unseat` without changing anything; return the chips it would cash out.

        :raises RuleError: as :meth:`unseat` would.
        """
        s = self._occupied(seat)
        self._not_in_hand(seat, "leave")
        return s.stack

    def buy_in(self, seat: int, amount: int) -> None:
        """Add chips to a seated player's stack (add-on / rebuy), between its hands.

        :raises RuleError: the seat is empty, in the hand, or the amount is out of limits.
        """
        self.check_buy_in(seat, amount)
        self._seats[seat].stack += amount

    def check_buy_in(self, seat: int, amount: int) -> int:
        """Check :meth:`buy_in` without changing anything; return the stack it would make.

        :raises RuleError: as :meth:`buy_in` would.
        """
        s = self._occupied(seat)
        self._not_in_hand(seat, "add chips")
        self._check_buy_in(seat, s.stack, amount, first=False)
        return s.stack + amount

    def check_occupied(self, seat: int) -> None:
        """Check that ``seat`` has a player (what :meth:`sit_out` / :meth:`sit_in` need).

        :raises RuleError: the seat does not exist or is empty.
        """
        self._occupied(seat)

    def add_on(self, seat: int, amount: int) -> None:
        """Add chips between hands (same as :meth:`buy_in` for a seated player)."""
        self.buy_in(seat, amount)

    def sit_out(self, seat: int) -> None:
        """Sit the player of ``seat`` out from the next hand on."""
        self._occupied(seat).sitting_out = True

    def sit_in(self, seat: int, post: PostChoice | bool = False) -> None:
        """Bring the player of ``seat`` back in.

        :param post: :class:`PostChoice` (``True`` = ``NOW``: post the blinds it owes, or a new
            player's big blind, to play the next hand it may be dealt; otherwise it waits for
            the big blind).
        :raises RuleError: the seat is empty.
        """
        s = self._occupied(seat)
        s.sitting_out = False
        s.wants_to_post = PostChoice.of(post) is PostChoice.NOW

    def set_button(self, seat: int) -> None:
        """Place the button before the first hand (default: the lowest occupied seat).

        :raises RuleError: hands were already played (the button moves by itself).
        """
        self._check_seat_number(seat)
        if self.bb_position is not None:
            raise RuleError("button-moves", "the button moves by itself once hands are played")
        self.button = seat

    # -- hands -------------------------------------------------------------------------------

    def _next_after(self, seat: int, among: set[int]) -> int:
        n = self.config.seats
        for i in range(1, n + 1):
            s = (seat - 1 + i) % n + 1
            if s in among:
                return s
        raise RuleError("not-enough-players", "nobody to take the position")

    def _between(self, after: int, upto: int) -> list[int]:
        """Seats strictly clockwise after ``after`` and before ``upto``."""
        n = self.config.seats
        out = []
        s = after % n + 1
        while s != upto:
            out.append(s)
            s = s % n + 1
        return out

    def start_hand(self) -> Hand:
        """Start the next hand: move the button and blinds, decide who is dealt in and who posts.

        :raises RuleError: a hand is in progress, or fewer than two players can play.
        """
        config, plan = self.plan_hand()
        hand = Hand(config)
        self._hand = hand
        self._plan = plan
        return hand

    def next_button(self) -> int | None:
        """Return the button of the next hand, or ``None`` if no hand can start now."""
        try:
            return self.plan_hand()[1].button
        except RuleError:
            return None

    def straddle(self, seat: int | None) -> None:
        """Let ``seat`` straddle the next hand (rule 9); ``None`` takes the request back.

        :raises RuleError: as :meth:`check_straddle` would.
        """
        if seat is not None:
            self.check_straddle(seat)
        self.straddler = seat

    def check_straddle(self, seat: int) -> int:
        """Check :meth:`straddle` without changing anything; return the straddle's size.

        :raises RuleError: the house does not play straddles, a hand is in progress, the seat is
            not in the straddle position of the next hand, or its stack does not cover it.
        """
        cfg = self.config
        self._occupied(seat)
        if cfg.straddle == "off":
            raise RuleError("no-straddle", "straddles are not played at this table "
                            "(house rule straddle = off)")
        config, _ = self._plan_hand()
        where = "under the gun" if cfg.straddle == "utg" else "on the button"
        if straddle_position(config, cfg.straddle) != seat:
            raise RuleError("straddle-position", f"seat {seat} is not {where} next hand: only "
                            "that seat may straddle (and it must owe no other post)")
        amount = 2 * cfg.big_blind
        if config.stacks[seat] - cfg.ante < amount:
            raise RuleError("straddle-short", f"seat {seat} cannot cover a straddle of "
                            f"{amount:,}")
        return amount

    def plan_hand(self) -> tuple[HandConfig, _Plan]:
        """Decide the next hand (button, blinds, who is dealt in, a straddle) changing nothing.

        The straddle asked for (rule 9) is added when the hand's positions still put the seat in
        the straddle position; a re-deal keeps the voided hand's straddle.

        :raises RuleError: a hand is in progress, or fewer than two players can play.
        """
        config, plan = self._plan_hand()
        seat = self.straddler
        if seat is None or config.straddle_seat is not None or self._replay is not None:
            return config, plan
        amount = 2 * self.config.big_blind
        if straddle_position(config, self.config.straddle) == seat \
                and config.stacks[seat] - config.ante >= amount:
            config = replace(config, straddle_seat=seat, straddle=amount)
        return config, plan

    def _plan_hand(self) -> tuple[HandConfig, _Plan]:
        """Decide the next hand (button, blinds, who is dealt in) without changing anything.

        A hand after a voided one is its exact replay (rule 7). When the posting rules would deal
        in fewer than two players although two can play (a newcomer waiting for the big blind
        alone with one player), a new game starts: everyone able is dealt in, owing nothing.

        :raises RuleError: a hand is in progress, or fewer than two players can play.
        """
        if self._hand is not None:
            raise RuleError("hand-in-progress", "finish the current hand first")
        able = {s for s, p in self._seats.items() if not p.sitting_out and p.stack > 0}
        if len(able) < 2:
            raise RuleError("not-enough-players", "fewer than two players can play")
        if self._replay is not None:
            replay = self._replayed(able)
            if replay is not None:
                return replay
        if self.bb_position is None or self.sb_position is None:
            start = self.button if self.button is not None else min(able)
            button = start if start in able else self._next_after(start, able)
            return self._fresh(able, self._next_after(
                button if len(able) == 2 else self._next_after(button, able), able))
        bb = self._next_after(self.bb_position, able)
        missed_bb = [s for s in self._between(self.bb_position, bb)
                     if s in self._seats and not self._seats[s].new]
        sb_pos = self.bb_position
        button = self.sb_position
        if button == bb:  # out of heads-up: the button goes right of the small blind (TDA 34)
            button = (sb_pos - 2) % self.config.seats + 1
        barred = set(self._between(button, sb_pos))  # never dealt in (RRoP, Button and Blind Use)
        dealt: set[int] = set()
        for seat in able:
            p = self._seats[seat]
            owes = p.new or p.missed_bb or p.missed_sb
            if seat == bb or (not owes and seat not in barred) \
                    or (p.wants_to_post and seat not in barred and seat not in (button, sb_pos)):
                dealt.add(seat)
        if len(dealt) < 2:
            return self._fresh(able, bb, tuple(missed_bb))
        sb = sb_pos if sb_pos in dealt else None
        missed_sb = []
        if sb is None and sb_pos in self._seats and sb_pos != bb and not self._seats[sb_pos].new:
            missed_sb.append(sb_pos)
        if len(dealt) == 2:  # heads-up: the button posts the small blind
            sb = next(s for s in dealt if s != bb)
            button = sb
        return self._config(dealt, button, sb, bb, extra=True), _Plan(
            button, sb_pos, bb, tuple(sorted(dealt)), tuple(missed_sb), tuple(missed_bb))

    def _fresh(self, able: set[int], bb: int,
               missed_bb: tuple[int, ...] = ()) -> tuple[HandConfig, _Plan]:
        """Plan a new game: everyone able dealt in, the big blind on ``bb``, no posts owed."""
        order = sorted(able, key=lambda s: (s - bb - 1) % self.config.seats)  # ..., sb, bb
        sb = order[-2]
        button = sb if len(able) == 2 else order[-3]
        return self._config(able, button, sb, bb, extra=False), _Plan(
            button, sb, bb, tuple(sorted(able)), (), missed_bb)

    def _config(self, dealt: set[int], button: int, sb: int | None, bb: int,
                extra: bool) -> HandConfig:
        cfg = self.config
        posts: list[ExtraPost] = []
        for seat in sorted(dealt) if extra else ():
            p = self._seats[seat]
            if seat in (bb, sb):
                continue
            if p.missed_bb:
                posts.append(ExtraPost(seat, PostKind.MISSED_BIG, cfg.big_blind))
                if cfg.small_blind:
                    posts.append(ExtraPost(seat, PostKind.DEAD_SMALL, cfg.small_blind))
            elif p.missed_sb:
                if cfg.small_blind:
                    posts.append(ExtraPost(seat, PostKind.DEAD_SMALL, cfg.small_blind))
            elif p.new:
                posts.append(ExtraPost(seat, PostKind.NEW_PLAYER, cfg.big_blind))
        return HandConfig(
            seats=tuple(sorted(dealt)),
            stacks={s: self._seats[s].stack for s in dealt},
            button=button,
            small_blind=cfg.small_blind,
            big_blind=cfg.big_blind,
            ante=cfg.ante,
            bb_ante=cfg.bb_ante,
            sb_seat=sb,
            bb_seat=bb,
            no_small_blind=sb is None,
            extra_posts=tuple(posts),
            rake=cfg.rake,
            table_all_ins=cfg.table_all_ins,
            bb_ante_first=cfg.bb_ante_first,
            odd_chips_to_rake=cfg.odd_chips_to_rake,
        )

    def _replayed(self, able: set[int]) -> tuple[HandConfig, _Plan] | None:
        """Plan the voided hand again (TDA 35-C): same button, blinds and seats dealt in.

        A seat dealt in the voided hand that can no longer play (left, sat out, another player
        in it) is left out; if that was a blind, or fewer than two are left, ``None``.
        """
        assert self._replay is not None
        config, plan, players = self._replay
        dealt = {s for s in config.seats
                 if s in able and self._seats[s].player == players.get(s)}
        blinds = {s for s in (config.sb_seat, config.bb_seat) if s is not None}
        if len(dealt) < 2 or not blinds <= dealt:
            return None
        if config.straddle_seat is not None and (config.straddle_seat not in dealt
                                                 or len(dealt) < 3):
            config = replace(config, straddle_seat=None, straddle=0)  # the straddler left
        again = replace(config, seats=tuple(sorted(dealt)),
                        stacks={s: self._seats[s].stack for s in dealt},
                        extra_posts=tuple(p for p in config.extra_posts if p.seat in dealt))
        return again, replace(plan, dealt=again.seats)

    def finish_hand(self, hand: Hand) -> None:
        """Apply a finished (or voided) hand's final stacks to the seats and move the positions.

        :raises RuleError: ``hand`` is not this table's current hand, or it is not over.
        :raises ChipConservationError: the hand's final stacks and rake do not add up.
        """
        if hand is not self._hand or self._plan is None:
            raise RuleError("not-current-hand", "this is not the hand in progress")
        if not hand.is_over:
            raise RuleError("hand-not-over", f"the hand is not over: {hand.status().expected}")
        plan = self._plan
        final = hand.final_stacks
        if sum(final.values()) + hand.rake != hand.total:  # pragma: no cover - Hand checks it
            raise ChipConservationError(
                f"the hand ends with {sum(final.values()) + hand.rake} chips (rake included), "
                f"it started with {hand.total}")
        for seat, stack in final.items():
            self._seats[seat].stack = stack
        self._hand = None
        self._plan = None
        self.straddler = None  # asked for one hand (a re-deal keeps it in its config)
        if hand.phase is Phase.VOID:
            self._replay = (hand.config, plan, {s: self._seats[s].player for s in plan.dealt})
            return
        self._replay = None
        self.rake_total += hand.rake
        self.hands_played += 1
        self.button, self.sb_position, self.bb_position = plan.button, plan.sb_position, \
            plan.bb_position
        for seat in plan.dealt:
            p = self._seats[seat]
            p.new = p.missed_sb = p.missed_bb = p.wants_to_post = False
        for seat in plan.missed_bb:
            if seat in self._seats:
                self._seats[seat].missed_bb = True
        for seat in plan.missed_sb:
            if seat in self._seats:
                self._seats[seat].missed_sb = True

    @property
    def hand(self) -> Hand | None:
        """Return the hand in progress, if any."""
        return self._hand

    def status(self) -> TableStatus:
        """Return a frozen snapshot of the table."""
        return TableStatus(
            seats=MappingProxyType({s: SeatView(p.player, p.stack, p.sitting_out, p.missed_sb,
                                                p.missed_bb, p.new, p.wants_to_post)
                                    for s, p in sorted(self._seats.items())}),
            button=self.button,
            sb_position=self.sb_position,
            bb_position=self.bb_position,
            hand_in_progress=self._hand is not None,
            hands_played=self.hands_played,
            rake_total=self.rake_total,
        )
