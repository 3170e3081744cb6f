"""Replaying a hand history through the rules engine, and comparing the finishing stacks.

The engine drives (package rule 4): it says what comes next and the file supplies the cards and
decisions; forced posts, collections and pushes are answered by
:func:`table_controller.engine.answers.default_input`, cards by
:func:`~table_controller.engine.answers.card_input`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from table_controller.engine import (
    Act,
    ActionKind,
    ActStep,
    AwardStep,
    BoardStep,
    BurnStep,
    Collect,
    CollectStep,
    Deal,
    DealHoleStep,
    ExtraPost,
    Hand,
    HandConfig,
    HandConfigError,
    HandOverStep,
    Input,
    LegalActions,
    Muck,
    Post,
    PostKind,
    PostStep,
    Push,
    RakeRule,
    Show,
    ShowStep,
)
from table_controller.engine.answers import default_input
from table_controller.engine.cards import FULL_DECK, Card
from table_controller.engine.frozen import quick_init
from table_controller.errors import DuplicateCardError, IntegrityError, RuleError, TableError
from table_controller.phh.model import (
    EXTRA_POST_LIVE,
    POSTS_FIELD,
    RAKE_FIELD,
    HandHistory,
    Number,
    PhhAction,
    PhhError,
    whole_chips,
)
from table_controller.phh.reader import player_number


def engine_seats(hh: HandHistory) -> tuple[int, ...]:
    """Return our seat number for each player ``p1..pN`` (rule 2).

    :raises PhhError: if ``seats`` is not N distinct seats 1..10 going clockwise from ``p1``.
    """
    n = hh.player_count
    if hh.seats is None:
        return tuple(range(1, n + 1))
    seats = hh.seats
    if len(set(seats)) != n or not all(1 <= s <= 10 for s in seats):
        raise PhhError("seats", f"{list(seats)} are not {n} distinct seats in 1..10")
    descents = sum(1 for a, b in zip(seats, seats[1:] + seats[:1], strict=True) if b < a)
    if descents != 1:
        raise PhhError("seats", f"{list(seats)} do not go clockwise (ascending, wrapping once)")
    return seats


def hand_config(hh: HandHistory) -> tuple[HandConfig, tuple[int, ...]]:
    """Map a hand history onto our engine: its :class:`HandConfig` and the seat of each player.

    ``blinds_or_straddles`` index 0 is the small blind and index 1 the big blind (heads-up the
    arrays are reverse-assigned, and ``p1`` is then the big blind). With three or more players,
    ``[B, 0, ...]`` is a hand without a small blind (dead small blind), ``p1`` posting the big
    blind; ``[0, B, ...]`` one where ``p1`` is skipped and ``p2`` posts the big blind. The
    big-blind ante sits at the big blind's index of ``antes``. One straddle may follow the blinds
    at any later index (``[1, 2, 4, 0, 0, 0]`` under the gun, ``[1, 2, 0, 0, 0, 4]`` on the
    button), with three or more players and both blinds posted; ``min_bet`` stays the big blind
    (the minimum bet after the flop), the straddle sizes the preflop raises (engine rule 1a).

    Missed-blind and new-player posts come from the user-defined field ``_posts`` (module
    rule 6), the house rake from ``_rake`` (rule 5).

    :raises PhhError: for more than one straddle, other ante shapes, a ``min_bet`` that is not
        the big blind, an ante larger than a stack with ``ante_trimming_status = false``, a
        straddle the stack does not cover, or a malformed ``_rake`` / ``_posts``.
    """
    n = hh.player_count
    seats = engine_seats(hh)
    blinds = hh.blinds_or_straddles
    straddle_seat, straddle = None, 0
    straddles = [i for i, b in enumerate(blinds[2:], 2) if b]
    if straddles:
        if len(straddles) > 1 or n < 3 or not (blinds[0] > 0 and blinds[1] > 0):
            raise PhhError("blinds_or_straddles", f"only one straddle after both blinds is "
                           f"played here: {list(blinds)}")
        straddle_seat, straddle = seats[straddles[0]], blinds[straddles[0]]
    if blinds[1] > 0 and (blinds[0] > 0 or n > 2):
        small, big, bb_index = blinds[0], blinds[1], 1
    elif blinds[0] > 0 and blinds[1] == 0 and n > 2:
        small, big, bb_index = 0, blinds[0], 0
    else:
        raise PhhError("blinds_or_straddles", f"no small and big blind in {list(blinds)}")
    if small > big:
        raise PhhError("blinds_or_straddles", f"small blind {small} is above the big blind {big}")
    if hh.min_bet != big:
        raise PhhError("min_bet", f"{hh.min_bet} differs from the big blind {big}")
    antes = hh.antes
    others = [a for i, a in enumerate(antes) if i != bb_index]
    if len(set(others)) != 1 or antes[bb_index] < others[0]:
        raise PhhError("antes", f"only equal antes and a big-blind ante are played: {list(antes)}")
    ante, bb_ante = others[0], antes[bb_index] - others[0]
    for i, (a, stack) in enumerate(zip(antes, hh.starting_stacks, strict=True)):
        if a > stack and not hh.ante_trimming_status and len(set(antes)) == 1:
            raise PhhError(
                "ante_trimming_status",
                f"p{i + 1} cannot pay the ante {a} from {stack} and antes are not trimmed",
            )
    no_small = small == 0
    config = HandConfig(
        seats=seats,
        stacks=dict(zip(seats, hh.starting_stacks, strict=True)),
        button=seats[n - 1],
        small_blind=small,
        big_blind=big,
        ante=ante,
        bb_ante=bb_ante,
        bb_seat=seats[bb_index] if no_small else None,
        no_small_blind=no_small,
        extra_posts=_extra_posts(hh, seats),
        rake=_rake_rule(hh),
        straddle_seat=straddle_seat,
        straddle=straddle,
    )
    return config, seats


class ReplayError(TableError):
    """The engine refused an action of the file, or the file does not fit the hand.

    :param action: the PHH action (as written) that could not be applied, or ``None``.
    :param rule: the rule broken (the engine's rule name, ``"phh"`` for a file problem).
    :param message: plain words.
    """

    def __init__(self, action: str | None, rule: str, message: str) -> None:
        where = f"{action!r}: " if action else ""
        super().__init__(f"{where}[{rule}] {message}")
        self.action = action
        self.rule = rule
        self.message = message

    def to_dict(self) -> dict[str, str | None]:
        """JSON-friendly form: ``action``, ``rule``, ``message``."""
        return {"action": self.action, "rule": self.rule, "message": self.message}


@dataclass(slots=True)
class _Script:
    """The file's actions sorted by what the engine will ask for."""

    holes: dict[int, list[Card | None]]
    board: list[tuple[Card, PhhAction]]
    bets: list[tuple[PhhAction, int]]
    shows: dict[int, PhhAction]
    show_board: dict[int, int]
    """Player -> board cards out when the file lists its ``sm`` (all-in: before the run-out)."""


def _script(hh: HandHistory) -> _Script:
    holes: dict[int, list[Card | None]] = {}
    board: list[tuple[Card, PhhAction]] = []
    bets: list[tuple[PhhAction, int]] = []
    shows: dict[int, PhhAction] = {}
    show_board: dict[int, int] = {}
    for action in hh.actions:
        verb = action.verb
        if verb == "f" or verb == "cc" or verb == "cbr":  # the commonest first
            bets.append((action, len(board)))
        elif verb == "dh":
            holes.setdefault(action.player, []).extend(action.cards)
        elif verb == "db":
            board.extend((c, action) for c in action.cards if c is not None)
        elif verb == "sm":
            if action.player in shows:
                raise ReplayError(action.text, "phh", f"p{action.player} shows twice")
            shows[action.player] = action
            show_board[action.player] = len(board)
        else:
            bets.append((action, len(board)))
    for player, cards in holes.items():
        if len(cards) != 2:
            texts = [a.text for a in hh.actions if a.verb == "dh" and a.player == player]
            raise ReplayError(texts[0], "phh", f"p{player} is dealt {len(cards)} hole cards, "
                              "not 2")
    # Face-down cards shown later were those cards all along (rule 4).
    for player, show in shows.items():
        dealt = holes.get(player)
        if dealt is not None and show.cards and len(show.cards) == len(dealt):
            holes[player] = [d if d is not None else c for d, c in zip(dealt, show.cards,
                                                                       strict=True)]
    return _Script(holes, board, bets, shows, show_board)


_FOLD, _CHECK, _CALL, _ALL_IN, _BET, _RAISE = (
    ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.ALL_IN, ActionKind.BET,
    ActionKind.RAISE)
_ACTS: dict[tuple[int, ActionKind, int], Act] = {}
"""One (immutable) ``Act`` input per seat, kind and amount met so far (most repeat)."""


def clear_input_cache() -> None:
    """Forget the ``Act`` inputs and hand configurations made so far (a cold start; memory)."""
    _ACTS.clear()
    _CONFIGS.clear()


def _act_input(seat: int, action: PhhAction, legal: LegalActions) -> Act:
    verb = action.verb
    if verb == "f":
        kind, to = _FOLD, 0
    elif verb == "cc":
        kind, to = (_CHECK if legal.can_check else _CALL), 0
    else:
        assert action.amount is not None
        to = action.amount
        kind = _ALL_IN if to == legal.max_raise_to else _BET if legal.is_bet else _RAISE
    key = (seat, kind, to)
    act = _ACTS.get(key)
    if act is None:
        if len(_ACTS) >= 100_000:
            _ACTS.clear()
        act = _ACTS[key] = Act(seat, kind, to)
    return act


def play(hh: HandHistory) -> Hand:
    """Replay a hand history through our engine and return the finished :class:`Hand`.

    :raises PhhError: if the file uses something our table does not play.
    :raises ReplayError: if the engine refuses an action, or the file ends early or has extra
        actions.
    :raises IntegrityError: on a duplicate card (or a chip conservation failure).
    """
    return _play(hh)[0]


_CONFIGS: dict[tuple[object, ...], tuple[HandConfig, tuple[int, ...], dict[int, int]]] = {}
""":func:`hand_config` of the hands met so far, by every field it reads (hands without
``_posts`` or ``_rake``), with each seat's player: a table deals many hands of the same stakes
and stacks, and a :class:`HandConfig` is immutable (a hand copies what it changes)."""


def _play(hh: HandHistory) -> tuple[Hand, tuple[int, ...]]:
    """:func:`play`, also returning the seat of each player."""
    extra = hh.extra
    key: tuple[object, ...] | None = None
    if POSTS_FIELD not in extra and RAKE_FIELD not in extra:
        key = (hh.starting_stacks, hh.blinds_or_straddles, hh.antes, hh.min_bet, hh.seats,
               hh.ante_trimming_status)
        known = _CONFIGS.get(key)
    else:
        known = None
    if known is None:
        config, seats = hand_config(hh)
        player_of = {seat: i + 1 for i, seat in enumerate(seats)}
        if key is not None:
            if len(_CONFIGS) >= 10_000:
                _CONFIGS.clear()
            _CONFIGS[key] = config, seats, player_of
    else:
        config, seats, player_of = known
    script = _script(hh)
    try:
        hand = Hand(config)
    except HandConfigError as exc:  # e.g. a straddle the stack does not cover
        raise PhhError("blinds_or_straddles", exc.message) from exc
    try:
        _drive(hand, script, seats, player_of)
    except _Refused as refused:
        err, source = refused.error, refused.action  # the file's action behind the input
        raise ReplayError(source.text if source else None, err.rule, err.message) from err
    return hand, seats


class _Refused(Exception):
    """The engine refused an input: its error and the file's action behind the input."""

    def __init__(self, error: RuleError, action: PhhAction | None) -> None:
        super().__init__(error.message)
        self.error = error
        self.action = action


_UNKNOWN = Deal(None)
_COLLECT = Collect()
_PUSHES = tuple(Push(i) for i in range(10))
"""One (immutable) ``Push`` input per pot index (a hand of ten seats has at most ten pots)."""
_POSTS: dict[tuple[int, PostKind], Post] = {}
"""One (immutable) ``Post`` input per seat and kind (a few dozen in all)."""
_DEALS: tuple[Deal, ...] = tuple(Deal(card) for card in FULL_DECK)
"""One (immutable) ``Deal`` input per card, made once, by :attr:`Card.index` (a list index
costs less than hashing the card)."""


def _hole_deals(cards: list[Card | None] | None) -> tuple[Deal, Deal]:
    """Return the two hole-card inputs of a player (its cards, or face down when unknown)."""
    if not cards:
        return _UNKNOWN, _UNKNOWN
    first, second = cards  # two exactly (_script checks)
    return (_DEALS[first.rank * 4 + first.suit] if first is not None else _UNKNOWN,
            _DEALS[second.rank * 4 + second.suit] if second is not None else _UNKNOWN)


def _drive(hand: Hand, script: _Script, seats: Sequence[int],
           player_of: Mapping[int, int]) -> None:
    """Feed the engine what the file says until the hand is over (the replay loop, rule 4).

    Steps are told apart by their type (one dictionary-free ``is`` test each, commonest first);
    forced posts, collections and pushes are answered at once.

    :raises _Refused: the engine refused an input.
    :raises ReplayError: the file ends early or does not fit the hand.
    """
    expected, apply_, apply_all = hand.expected, hand.apply, hand.apply_all
    holes, board_cards, bets = script.holes, script.board, script.bets
    n_bets = len(bets)
    bet_i = 0
    tabled: set[int] = set()
    pending_shows = bool(script.show_board)
    action: PhhAction | None = None
    n_board = 0  # board cards out (this loop deals them all: cheaper than hand.board)

    def show_input(seat: int) -> tuple[Input, PhhAction | None]:
        player = player_of[seat]
        show = script.shows.get(player)
        known = None not in holes.get(player, (None,))
        if show is None and not known:
            return Muck(seat), None  # a hand nobody saw cannot win
        if show is None or show.dash:
            return Show(seat), show
        if show.muck or None in show.cards:
            return Muck(seat), show
        return Show(seat, tuple(c for c in show.cards if c is not None)), show

    try:
        while True:
            step = expected()
            kind = type(step)
            action = None
            if kind is ActStep:
                assert isinstance(step, ActStep)
                if bet_i >= n_bets:
                    raise ReplayError(None, "phh",
                                      f"the file ends before p{player_of[step.seat]} acts")
                action, board_len = bets[bet_i]
                bet_i += 1
                if action.player != player_of[step.seat]:
                    raise ReplayError(
                        action.text, "turn",
                        f"p{action.player} acts out of turn: p{player_of[step.seat]} is to act",
                    )
                if board_len != n_board:
                    raise ReplayError(action.text, "phh", f"acts after {board_len} board cards, "
                                      f"but {n_board} are out")
                apply_(_act_input(step.seat, action, step.legal))
            elif kind is BurnStep or kind is BoardStep:
                if pending_shows and _table_early(hand, script, seats, tabled, show_input):
                    pending_shows = len(tabled) < len(script.show_board)
                    continue
                if kind is BurnStep:
                    apply_(_UNKNOWN)  # burns are implicit in PHH (unknown cards)
                    continue
                assert isinstance(step, BoardStep)
                if step.slot >= len(board_cards):
                    raise ReplayError(None, "phh",
                                      f"the file ends before board card {step.slot + 1}")
                card, action = board_cards[step.slot]
                apply_(_DEALS[card.rank * 4 + card.suit])
                n_board += 1
            elif kind is ShowStep:
                assert isinstance(step, ShowStep)
                inp, action = show_input(step.seat)  # the file's cards, or a muck
                apply_(inp)
            elif kind is PostStep:
                assert isinstance(step, PostStep)
                post = _POSTS.get((step.seat, step.kind))
                if post is None:
                    post = _POSTS[(step.seat, step.kind)] = Post(step.seat, step.kind)
                apply_(post)
            elif kind is CollectStep:
                apply_(_COLLECT)
            elif kind is AwardStep:
                assert isinstance(step, AwardStep)
                index = step.pot_index
                apply_(_PUSHES[index] if index < len(_PUSHES) else Push(index))
                if hand.is_over:  # the last pot pushed (no HandOverStep to make)
                    break
            elif kind is DealHoleStep:  # every hole card still to deal, in one call
                deal_steps = hand.deal_steps
                dealt = {seat: _hole_deals(holes.get(player)) for seat, player in player_of.items()}
                apply_all([dealt[hole_step.seat][hole_step.round - 1]
                           for hole_step in deal_steps[deal_steps.index(step):]])  # type: ignore[arg-type]
            elif kind is HandOverStep:
                break
            else:  # pragma: no cover - the engine's Step union is closed
                answer = default_input(step)
                if answer is None:
                    raise ReplayError(None, "phh", f"unexpected step {step!r}")
                apply_(answer)
    except RuleError as exc:
        raise _Refused(exc, action) from exc
    if bet_i < n_bets:
        extra = bets[bet_i][0]
        raise ReplayError(extra.text, "phh", "action after the hand is over")
    if len(board_cards) > len(hand.board):
        raise ReplayError(board_cards[len(hand.board)][1].text, "phh",
                          "board card dealt after the hand is over")


def _table_early(hand: Hand, script: _Script, seats: Sequence[int], tabled: set[int],
                 show_input: Callable[[int], tuple[Input, PhhAction | None]]) -> bool:
    """Table (or concede) the hands the file shows before an all-in run-out.

    :return: whether any input was applied.
    :raises _Refused: the engine refused a show.
    """
    out = len(hand.board)
    fed = False
    for player, at in script.show_board.items():
        if at <= out and player not in tabled:
            tabled.add(player)
            inp, show = show_input(seats[player - 1])
            if hand.check(inp) is None:
                try:
                    hand.apply(inp)
                except RuleError as exc:  # pragma: no cover - checked just before
                    raise _Refused(exc, show) from exc
                fed = True
    return fed


def hand_board(hand: Hand) -> tuple[Card | None, ...]:
    """Board cards dealt so far in ``hand``."""
    return hand.board


#: Outcome of comparing our finishing stacks with the file's.
MATCHED, ODD_CHIP, MISMATCHED, NO_EXPECTED, ERROR = (
    "matched", "odd_chip", "mismatched", "no_expected", "error"
)


@quick_init
@dataclass(frozen=True, slots=True)
class ReplayResult:
    """One hand replayed: our stacks (``p1..pN``), the file's, and how they compare.

    ``differences`` maps player number to ours minus the file's, for players that differ.
    """

    status: str
    finishing_stacks: tuple[int, ...] | None
    expected: tuple[Number, ...] | None
    differences: Mapping[int, Number] = field(default_factory=dict)
    error: ReplayError | PhhError | None = None

    @property
    def match(self) -> bool | None:
        """True / False when the file has ``finishing_stacks``, None when not (or on error)."""
        if self.status in (MATCHED, ODD_CHIP, MISMATCHED):
            return self.status == MATCHED
        return None


def _split_tolerance(hand: Hand) -> dict[int, int]:
    """Per seat: the number of split pots it shared (each can shift it by one odd chip)."""
    tolerance: dict[int, int] = {}
    for record in hand.log:
        step = record.step
        if isinstance(step, AwardStep) and len(step.payouts) > 1:
            for seat in step.payouts:
                tolerance[seat] = tolerance.get(seat, 0) + 1
    return tolerance


def compare(hh: HandHistory, hand: Hand) -> ReplayResult:
    """Compare a replayed hand's finishing stacks with the file's (package rule 7).

    Differences are odd-chip differences when chips add up to the same total and every player's
    difference is within the number of split pots it shared; otherwise a mismatch.
    """
    return _compare(hh, hand, engine_seats(hh))


def _compare(hh: HandHistory, hand: Hand, seats: Sequence[int]) -> ReplayResult:
    """:func:`compare`, given the seat of each player."""
    final = hand.final_stacks  # (not a whole status: its step text alone costs more)
    ours = tuple(map(final.__getitem__, seats))
    expected = hh.finishing_stacks
    if expected is None:
        return ReplayResult(NO_EXPECTED, ours, None)
    if ours == expected:  # the common case: one comparison of the tuples
        return ReplayResult(MATCHED, ours, expected)
    diffs: dict[int, Number] = {
        i + 1: o - e for i, (o, e) in enumerate(zip(ours, expected, strict=True)) if o != e
    }
    if not diffs:
        return ReplayResult(MATCHED, ours, expected)
    tolerance = _split_tolerance(hand)
    total: Number = sum(expected, Decimal(0))
    explained = sum(ours) == total and all(
        -tolerance.get(seats[p - 1], 0) <= d <= tolerance.get(seats[p - 1], 0)
        for p, d in diffs.items()
    )
    return ReplayResult(ODD_CHIP if explained else MISMATCHED, ours, expected, diffs)


def replay(hh: HandHistory) -> ReplayResult:
    """Replay ``hh`` and compare; errors are returned in the result, never raised."""
    try:
        hand, seats = _play(hh)
    except (ReplayError, PhhError) as exc:
        return ReplayResult(ERROR, None, hh.finishing_stacks, error=exc)
    except IntegrityError as exc:
        rule = "duplicate-card" if isinstance(exc, DuplicateCardError) else "chip-conservation"
        return ReplayResult(ERROR, None, hh.finishing_stacks,
                            error=ReplayError(None, rule, str(exc)))
    return _compare(hh, hand, seats)




def _extra_posts(hh: HandHistory, seats: Sequence[int]) -> tuple[ExtraPost, ...]:
    """Read ``_posts`` (package rule 6): the missed-blind and new-player posts, in order."""
    raw = hh.extra.get(POSTS_FIELD)
    if raw is None:
        return ()
    shape = '[{player = "pN", kind = "missed_big", amount = N, live = true}, ...]'
    if not isinstance(raw, list):
        raise PhhError(POSTS_FIELD, f"expected an array {shape}")
    kinds = {k.value: k for k in EXTRA_POST_LIVE}
    out: list[ExtraPost] = []
    for i, item in enumerate(raw):
        where = f"{POSTS_FIELD}[{i}]"
        if not isinstance(item, Mapping) or not {"player", "kind", "amount"} <= set(item) \
                or not set(item) <= {"player", "kind", "amount", "live"}:
            raise PhhError(where, f"expected {{player, kind, amount, live}} as in {shape}")
        player = item["player"]
        if not isinstance(player, str):
            raise PhhError(where, f"player {player!r} is not a player (p1..p{len(seats)})")
        number = player_number(player, len(seats), where)
        kind = kinds.get(item["kind"]) if isinstance(item["kind"], str) else None
        if kind is None:
            raise PhhError(where, f"kind {item['kind']!r} is not one of {sorted(kinds)}")
        amount = whole_chips(item["amount"], f"{where}.amount")
        if amount <= 0:
            raise PhhError(where, f"amount {amount} must be positive")
        live = item.get("live", EXTRA_POST_LIVE[kind])
        if live is not EXTRA_POST_LIVE[kind]:
            raise PhhError(where, f"live = {live!r}, but a {kind.value} post is "
                           f"{'live' if EXTRA_POST_LIVE[kind] else 'dead'}")
        out.append(ExtraPost(seats[number - 1], kind, amount))
    return tuple(out)


def _rake_rule(hh: HandHistory) -> RakeRule | None:
    raw = hh.extra.get(RAKE_FIELD)
    if raw is None:
        return None
    if not isinstance(raw, Mapping) or set(raw) != {"percent_bp", "cap", "no_flop_no_drop"}:
        raise PhhError(RAKE_FIELD, "expected {percent_bp = N, cap = N, no_flop_no_drop = B}")
    percent, cap, nfnd = raw["percent_bp"], raw["cap"], raw["no_flop_no_drop"]
    if not isinstance(percent, int) or not isinstance(cap, int) or not isinstance(nfnd, bool):
        raise PhhError(RAKE_FIELD, f"bad values: {dict(raw)!r}")
    try:
        return RakeRule(percent, cap, nfnd)
    except ValueError as exc:
        raise PhhError(RAKE_FIELD, str(exc)) from exc


