"""PHH hand histories as data: :class:`HandHistory`, :class:`PhhAction`, :class:`PhhError`.

Also the user-defined fields this package reads and writes (:data:`RAKE_FIELD`,
:data:`POSTS_FIELD`) and the chip amount checks both directions share.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from table_controller.engine import PostKind
from table_controller.engine.cards import Card
from table_controller.engine.frozen import quick_init
from table_controller.errors import TableError

#: Chip amounts as written in a file: whole chips, or a fraction (Pluribus ties).
Number = int | Decimal

#: Fields this reader understands (others are kept verbatim in :attr:`HandHistory.extra`).
KNOWN_FIELDS = frozenset(
    {
        "variant", "ante_trimming_status", "antes", "blinds_or_straddles", "min_bet",
        "starting_stacks", "actions", "finishing_stacks", "players", "seats",
    }
)
#: User-defined field (PHH: underscore prefix) carrying the house rake rule of the hand.
RAKE_FIELD = "_rake"
#: User-defined field carrying missed-blind and new-player posts (no PHH form: package rule 6).
POSTS_FIELD = "_posts"
#: Posts written in :data:`POSTS_FIELD`, and whether each is live (part of the player's bet).
EXTRA_POST_LIVE = {PostKind.DEAD_SMALL: False, PostKind.NEW_PLAYER: True,
                    PostKind.MISSED_BIG: True}


class PhhError(TableError):
    """A PHH file is malformed, or uses something our table does not play (straddles, ...).

    :param field: the field or action the problem is in (for example ``"antes"``).
    :param message: plain words naming what was wrong.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@quick_init
@dataclass(frozen=True, slots=True)
class PhhAction:
    """One parsed entry of ``actions``.

    :param actor: ``0`` for the dealer, else the player number (``1`` for ``p1``).
    :param player: the player the action concerns: the actor, or the one dealt to by ``dh``.
    :param verb: ``"dh"``, ``"db"``, ``"f"``, ``"cc"``, ``"cbr"`` or ``"sm"``.
    :param cards: cards of ``dh`` / ``db`` / ``sm`` (``None`` = unknown ``??``).
    :param amount: the ``cbr`` total ("raise to"), else ``None``.
    :param muck: for ``sm``: true when no cards are given (the hand is mucked).
    :param dash: for ``sm``: true for ``-`` (show the cards dealt earlier).
    :param text: the action as written, without commentary.
    """

    actor: int
    player: int
    verb: str
    cards: tuple[Card | None, ...] = ()
    amount: int | None = None
    muck: bool = False
    dash: bool = False
    text: str = ""


@quick_init
@dataclass(frozen=True, slots=True)
class HandHistory:
    """One no-limit hold'em hand in PHH terms (player order ``p1..pN``, see the package rules)."""

    antes: tuple[int, ...]
    blinds_or_straddles: tuple[int, ...]
    min_bet: int
    starting_stacks: tuple[int, ...]
    actions: tuple[PhhAction, ...]
    variant: str = "NT"
    ante_trimming_status: bool = False
    finishing_stacks: tuple[Number, ...] | None = None
    players: tuple[str, ...] | None = None
    seats: tuple[int, ...] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def player_count(self) -> int:
        """Number of players dealt in (``N``)."""
        return len(self.starting_stacks)




#: Largest chip amount a file may hold (2**53 - 1: what every JSON and TOML reader keeps exact).
MAX_CHIPS = 2**53 - 1


def parse_chips(value: object, where: str, *, allow_fraction: bool = False) -> Number:
    """Return a chip amount read from a file (a fraction only when ``allow_fraction``).

    :raises PhhError: naming ``where`` if it is not a known (finite) number of chips, or one
        beyond :data:`MAX_CHIPS` (checked before any conversion: ``5e1000000`` is refused at
        once, not expanded).
    """
    if isinstance(value, bool):
        raise PhhError(where, f"expected a number of chips, got {value!r}")
    if isinstance(value, int):
        if not -MAX_CHIPS <= value <= MAX_CHIPS:
            raise PhhError(where, "amount out of range (|n| <= 2**53 - 1)")
        return value
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise PhhError(where, f"unknown amount {value} is not supported")
        if value and value.adjusted() > 15:  # 10**16 > MAX_CHIPS; cheap on any exponent
            raise PhhError(where, "amount out of range (|n| <= 2**53 - 1)")
        if value and value.adjusted() < -30:
            raise PhhError(where, "amount out of range (a fraction finer than 1e-30)")
        if value == value.to_integral_value():
            return int(value)
        if allow_fraction:
            return value
        raise PhhError(where, f"{value} is not a whole number of chips")
    if isinstance(value, str):
        if len(value) > 64:
            raise PhhError(where, f"not a number: {value[:20]!r}... ({len(value)} characters)")
        try:
            return parse_chips(Decimal(value), where, allow_fraction=allow_fraction)
        except ArithmeticError as exc:
            raise PhhError(where, f"not a number: {value!r}") from exc
    raise PhhError(where, f"expected a number of chips, got {value!r}")


def whole_chips(value: object, where: str) -> int:
    """Return a whole chip amount read from a file.

    :raises PhhError: naming ``where`` if it is not a whole number of chips.
    """
    amount = parse_chips(value, where)
    assert isinstance(amount, int)
    return amount
