"""Writing PHH: a hand our engine played as a :class:`~.model.HandHistory`, and as TOML text."""

from __future__ import annotations

import datetime
import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from decimal import Decimal
from typing import Any

from table_controller.engine import (
    ActionKind,
    ActStep,
    BoardStep,
    DealHoleStep,
    ExtraPost,
    Hand,
    HandConfig,
    HandOverStep,
    Muck,
    PostKind,
    PostStep,
    RakeRule,
    Record,
    Show,
    ShowStep,
)
from table_controller.engine.cards import Card
from table_controller.phh.model import (
    EXTRA_POST_LIVE,
    KNOWN_FIELDS,
    POSTS_FIELD,
    RAKE_FIELD,
    HandHistory,
    PhhAction,
    PhhError,
)


def _toml_string(text: str) -> str:
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal):
        return str(value) if value.is_finite() else ("inf" if value > 0 else "-inf")
    if isinstance(value, float):
        if math.isfinite(value):
            return repr(value)
        return "inf" if value > 0 else ("-inf" if value < 0 else "nan")
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    raise PhhError("extra", f"cannot write {value!r} ({type(value).__name__}) in TOML")


def _toml_key(key: str) -> str:
    bare = key and all(ch.isascii() and (ch.isalnum() or ch in "_-") for ch in key)
    return key if bare else _toml_string(key)


def _cards_text(cards: Sequence[Card | None]) -> str:
    return "".join("??" if c is None else c.code for c in cards)


def format_action(action: PhhAction) -> str:
    """Write one action in PHH notation.

    >>> format_action(PhhAction(3, 3, "cbr", amount=600))
    'p3 cbr 600'
    >>> format_action(PhhAction(0, 2, "dh", (Card.parse("Ah"), None)))
    'd dh p2 Ah??'
    """
    if action.verb == "db":
        return f"d db {_cards_text(action.cards)}"
    if action.verb == "dh":
        return f"d dh p{action.player} {_cards_text(action.cards)}"
    if action.verb == "f" or action.verb == "cc":
        return f"p{action.actor} {action.verb}"
    if action.verb == "cbr":
        return f"p{action.actor} cbr {action.amount}"
    if action.verb == "sm":
        if action.muck:
            return f"p{action.actor} sm"
        if action.dash:
            return f"p{action.actor} sm -"
        return f"p{action.actor} sm {_cards_text(action.cards)}"
    raise PhhError("actions", f"cannot write action {action!r}")


def player_order(config: HandConfig) -> tuple[int, ...]:
    """Our dealt seats as PHH players ``p1..pN``: clockwise from the first seat left of the button.

    >>> player_order(HandConfig((2, 5, 9), {2: 100, 5: 100, 9: 100}, button=5,
    ...                         small_blind=1, big_blind=2))
    (9, 2, 5)
    """
    seats = sorted(config.seats)
    start = next((i for i, s in enumerate(seats) if s > config.button), 0)
    return tuple(seats[start:] + seats[:start])


def history_from_hand(
    hand: Hand,
    *,
    players: Mapping[int, str] | None = None,
    extra: Mapping[str, Any] | None = None,
    when: datetime.datetime | None = None,
) -> HandHistory:
    """Write a hand our engine played (finished or not) as a :class:`HandHistory`.

    Hole cards are listed per player once dealt, board cards per street, burns are left out, and
    when the hand was tabled before the board was out (all-in), the ``sm`` actions come right
    after the last betting action, as PHH and pokerkit expect (unless a hand was mucked: then
    after the board, where pokerkit also reads them). ``seats`` holds our seat numbers.

    :param players: optional names by seat.
    :param extra: optional further fields (``event``, ``hand``, ``table``, ...).
    :param when: when the hand started, an aware datetime: written as the PHH fields ``time``
        (local time of day), ``time_zone`` (the zone's name), ``day``, ``month``, ``year``.
    Missed-blind and new-player posts are written in the user-defined field ``_posts`` (module
    rule 6), the rake rule in ``_rake`` (rule 5).

    :raises PhhError: for what PHH cannot say: blinds out of the PHH positions, ``extra`` fields
        that clash with the hand's own.
    """
    clash = sorted(set(extra or {}) & (KNOWN_FIELDS | {POSTS_FIELD}))
    if clash:
        raise PhhError("extra", f"{clash} are written from the hand itself")
    config = hand.config
    order = player_order(config)
    n = len(order)
    number = {seat: i + 1 for i, seat in enumerate(order)}
    sb_at, bb_at = _blind_seats(config, order)
    slot = {seat: (1 - i if n == 2 else i) for i, seat in enumerate(order)}
    if not ((sb_at, bb_at) in ((order[0], order[1]), (None, order[0]), (None, order[1]))
            if n > 2 else (sb_at, bb_at) == (order[1], order[0])):
        raise PhhError("blinds_or_straddles", f"blinds on seats {sb_at} / {bb_at} are not in "
                       "PHH positions (p1 small blind, p2 big blind; heads-up reversed)")
    posts: list[tuple[int, PostKind]] = []
    actions: list[PhhAction] = []
    holes: dict[int, list[Card | None]] = {}
    street_cards: list[Card | None] = []
    board_actions: list[int] = []  # indexes in `actions` of db actions after the last bet
    shows: list[PhhAction] = []

    def flush_holes() -> None:
        for seat in order:
            if seat in holes:
                actions.append(PhhAction(0, number[seat], "dh", tuple(holes.pop(seat))))

    # Cards as they stand now: a card corrected after the deal (a misread) is written corrected.
    now = hand.status()
    for record in hand.log:
        step = record.step
        if isinstance(step, PostStep):
            posts.append((step.seat, step.kind))
            continue
        if isinstance(step, DealHoleStep):
            holes.setdefault(step.seat, []).append(now.hole_cards[step.seat][step.round - 1])
            continue
        flush_holes()
        if isinstance(step, BoardStep):
            street_cards.append(now.board[step.slot])
            if len(street_cards) == len(step.street.board_slots):
                board_actions.append(len(actions))
                actions.append(PhhAction(0, 0, "db", tuple(street_cards)))
                street_cards = []
        elif isinstance(step, ActStep):
            board_actions = []
            actions.append(_act_action(record, number[step.seat]))
        elif isinstance(step, ShowStep) or isinstance(record.input, Show | Muck):
            shows.append(_show_action(hand, record, number))
    flush_holes()
    for seat, kind in posts:
        wanted = {PostKind.SMALL_BLIND: sb_at, PostKind.BIG_BLIND: bb_at,
                  PostKind.STRADDLE: config.straddle_seat}.get(kind, seat)
        if kind in EXTRA_POST_LIVE:
            continue  # written in the user-defined field _posts (package rule 6)
        if seat != wanted:
            raise PhhError("blinds_or_straddles", f"the {kind.value} of seat {seat} is not in a "
                           "PHH position (p1 small blind, p2 big blind; heads-up reversed)")
        if kind not in (PostKind.ANTE, PostKind.BB_ANTE, PostKind.SMALL_BLIND,
                        PostKind.BIG_BLIND, PostKind.STRADDLE):
            raise PhhError("blinds_or_straddles", f"a {kind.value} post cannot be written")
    if shows:
        # PHH tables the hands of an all-in before the run-out; a conceding muck stays after it
        # (pokerkit cannot deal a board to a single hand).
        early = board_actions and not any(a.muck for a in shows)
        at = board_actions[0] if early else len(actions)
        actions[at:at] = shows
    actions = [replace(a, text=format_action(a)) for a in actions]
    antes = [config.ante] * n
    antes[slot[bb_at]] += config.bb_ante
    blinds = [0] * n
    blinds[slot[bb_at]] = config.big_blind
    if sb_at is not None:
        blinds[slot[sb_at]] = config.small_blind
    if config.straddle_seat is not None:  # a straddle at its position (UTG: p3, button: pN)
        blinds[slot[config.straddle_seat]] = config.straddle
    finished = isinstance(hand.expected(), HandOverStep)
    stacks = hand.status().stacks
    return HandHistory(
        antes=tuple(antes),
        blinds_or_straddles=tuple(blinds),
        min_bet=config.big_blind,
        starting_stacks=tuple(config.stacks[s] for s in order),
        actions=tuple(actions),
        # Equal antes: a short ante plays for what it put in (trimmed); a big-blind ante is
        # dead money in the main pot (not trimmed), as the PHH spec says.
        ante_trimming_status=config.bb_ante == 0,
        finishing_stacks=tuple(stacks[s] for s in order) if finished else None,
        players=None if players is None else tuple(players.get(s, "") for s in order),
        seats=order,
        extra=_rake_fields(config.rake) | _posts_fields(config.extra_posts, number)
        | _time_fields(when) | {k: v for k, v in (extra or {}).items() if v is not None},
    )


def _time_fields(when: datetime.datetime | None) -> dict[str, Any]:
    """Return the PHH date and time fields of ``when`` (aware; naive: no zone written).

    >>> import datetime
    >>> _time_fields(datetime.datetime(2026, 12, 1, 21, 5, 7, tzinfo=datetime.timezone.utc))
    {'time': datetime.time(21, 5, 7), 'time_zone': 'UTC', 'day': 1, 'month': 12, 'year': 2026}
    """
    if when is None:
        return {}
    out: dict[str, Any] = {"time": when.time().replace(microsecond=0)}
    if when.tzinfo is not None:
        out["time_zone"] = str(getattr(when.tzinfo, "key", None) or when.tzname())
    return out | {"day": when.day, "month": when.month, "year": when.year}


def _rake_fields(rule: RakeRule | None) -> dict[str, Any]:
    if rule is None:
        return {}
    return {RAKE_FIELD: {"percent_bp": rule.percent_bp, "cap": rule.cap,
                         "no_flop_no_drop": rule.no_flop_no_drop}}


def _posts_fields(posts: Sequence[ExtraPost], number: Mapping[int, int]) -> dict[str, Any]:
    if not posts:
        return {}
    for post in posts:
        if post.kind not in EXTRA_POST_LIVE or post.seat not in number:
            raise PhhError(POSTS_FIELD, f"cannot write a {post.kind.value} post for seat "
                           f"{post.seat}")
    return {POSTS_FIELD: [{"player": f"p{number[p.seat]}", "kind": p.kind.value,
                           "amount": p.amount, "live": EXTRA_POST_LIVE[p.kind]}
                          for p in posts]}




def _blind_seats(config: HandConfig, order: tuple[int, ...]) -> tuple[int | None, int]:
    """Return the small- and big-blind seats of a hand (as the engine places them)."""
    if len(order) == 2:
        sb = config.sb_seat if config.sb_seat is not None else order[1]
        return sb, config.bb_seat if config.bb_seat is not None else order[0]
    if config.no_small_blind:
        return None, config.bb_seat if config.bb_seat is not None else order[0]
    sb = config.sb_seat if config.sb_seat is not None else order[0]
    return sb, config.bb_seat if config.bb_seat is not None else order[1]


def _act_action(record: Record, player: int) -> PhhAction:
    kind = record.kind
    if kind is ActionKind.FOLD:
        return PhhAction(player, player, "f")
    if kind in (ActionKind.CHECK, ActionKind.CALL):
        return PhhAction(player, player, "cc")
    if kind in (ActionKind.BET, ActionKind.RAISE):
        return PhhAction(player, player, "cbr", amount=record.to)
    raise PhhError("actions", f"cannot write action record {record!r}")


def _show_action(hand: Hand, record: Record, number: Mapping[int, int]) -> PhhAction:
    inp = record.input
    if isinstance(inp, Muck):
        return PhhAction(number[inp.seat], number[inp.seat], "sm", muck=True)
    assert isinstance(inp, Show)
    cards: tuple[Card | None, ...] = inp.cards or hand.status().hole_cards[inp.seat]
    return PhhAction(number[inp.seat], number[inp.seat], "sm", cards)


def dumps(hh: HandHistory) -> str:
    """Write a hand as PHH text (TOML) that :func:`loads` and pokerkit read back."""
    lines = [
        f"variant = {_toml_value(hh.variant)}",
        f"ante_trimming_status = {_toml_value(hh.ante_trimming_status)}",
        f"antes = {_toml_value(hh.antes)}",
        f"blinds_or_straddles = {_toml_value(hh.blinds_or_straddles)}",
        f"min_bet = {hh.min_bet}",
        f"starting_stacks = {_toml_value(hh.starting_stacks)}",
        "actions = [",
    ]
    for action in hh.actions:
        lines.append(f"  {_toml_string(format_action(action))},")
    lines.append("]")
    if hh.players is not None:
        lines.append(f"players = {_toml_value(hh.players)}")
    if hh.seats is not None:
        lines.append(f"seats = {_toml_value(hh.seats)}")
    if hh.finishing_stacks is not None:
        lines.append(f"finishing_stacks = {_toml_value(hh.finishing_stacks)}")
    for key, value in hh.extra.items():
        lines.append(f"{_toml_key(key)} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"
