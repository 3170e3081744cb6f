"""The house's choices where the Poker TDA rules and Robert's Rules of Poker differ or leave room.

Rules this module keeps:

1. Every choice has a default that follows the Poker TDA rules (2024 edition) and Robert's Rules
   of Poker (v11) where they agree; where they differ, each default names its source and
   edition. The alternatives are named values, never free text.
2. A configuration is validated whole when it is loaded: an unknown key or a bad value is a
   :class:`~table_controller.errors.ConfigError` naming the key, and nothing is half-applied.

>>> HouseRules.from_mapping({"wrong_seat_misdeal": "any_card"}).wrong_seat_misdeal
'any_card'
>>> HouseRules.from_mapping({"boxed_cards": 2})
Traceback (most recent call last):
...
table_controller.errors.ConfigError: house_rules: unknown key 'boxed_cards' (known: ...)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, TypedDict

from table_controller.errors import ConfigError

#: Allowed values of the choice fields.
CHOICES: Mapping[str, tuple[str, ...]] = {
    "misdeal_after_substantial_action": ("refuse", "allow"),
    "wrong_seat_misdeal": ("first_card", "any_card"),
    "exposed_after_action": ("stays", "replace"),
    "substantial_action": ("tda", "rrop"),
    "extra_cards_after_deal": ("premature_flop", "misdeal"),
    "short_bb_priority": ("blind", "ante"),
    "all_in_hands": ("tabled", "in_order"),
    "straddle": ("off", "utg", "button"),
    "split_pot_rake": ("before_split", "odd_chips_to_rake"),
    "four_card_flop": ("redeal", "scramble"),
}


class TableOptions(TypedDict):
    """The engine's :class:`~table_controller.engine.TableConfig` keywords the house sets."""

    table_all_ins: bool
    bb_ante_first: bool
    straddle: str
    odd_chips_to_rake: bool


@dataclass(frozen=True, slots=True)
class HouseRules:
    """The house's choices for dealing irregularities.

    :param exposed_first_two_misdeal: the first or second card of the deal exposed by the
        dealer is a misdeal (TDA 35-A; RRoP, Texas hold'em irregularities 1).
    :param exposed_cards_misdeal: that many hole cards exposed by the dealer during the deal
        make a misdeal (both rule books: 2; 0 = never).
    :param boxed_cards_misdeal: that many boxed (face-up) cards found in the deck make a misdeal
        (both: 2; 0 = never).
    :param misdeal_after_substantial_action: ``refuse`` the dealer's ``misdeal`` command once
        substantial action took place (TDA 35-D: the hand goes on; the floor can still ``void``),
        or ``allow`` it.
    :param wrong_seat_misdeal: a card pitched to the wrong seat is a misdeal when it is the
        ``first_card`` of the deal (the default: TDA 2024 rule 35-A-2 lists only the first
        card; a later card is moved to its seat) or ``any_card`` of the deal (Robert's Rules of
        Poker v11, Misdeals 1(f)). A deal started at the wrong seat (``misdealt wrong_start``)
        is a misdeal either way, whenever it is noticed before substantial action (TDA 35-A-2;
        Robert's Rules, Misdeals 1(h)).
    :param exposed_after_action: a hole card the dealer exposes after the action started:
        ``stays`` (the player keeps it) or ``replace`` (as during the deal).
    :param substantial_action: when a misdeal is too late: ``tda`` (TDA 36: two actions in
        turn, one of them putting chips in, or any three actions) or ``rrop`` (Robert's Rules,
        "Misdeals" 1: once two players have acted in turn).
    :param extra_cards_after_deal: two or more cards drawn after the deal before anyone acted:
        ``premature_flop`` (the shoe cannot tell them from a flop dealt too early) or
        ``misdeal`` (RRoP Hold'em 2: two or more extra cards dealt).
    :param short_bb_priority: a big blind short of chips for the blind and the big-blind ante
        pays the ``blind`` first (the default: TDA 2024 rule 2) or the ``ante`` first (TDA 2019
        rule 2).
    :param all_in_hands: once a player is all-in and no more betting can take place, the hands
        are ``tabled`` at once (the default: TDA 2024 rule 16) or shown ``in_order`` at the
        showdown (Robert's Rules of Poker v11, Showdown: the last aggressor first, side pots
        before the main pot, rule 7).
    :param straddle: ``off`` (the default: the Poker TDA rules are tournament rules and list
        no straddle), ``utg`` (the seat left of the big blind may post a live straddle of two
        big blinds) or ``button`` (the button may): common cash-game practice, no rule-book
        section confirmed (``docs/engine.md``, Sources; engine table rule 9, hand rule 1a).
    :param split_pot_rake: a raked pot that is split: ``before_split`` (the default: the rake
        comes off the pot, the rest is split and its odd chips go one each to the winners
        clockwise from the button, Robert's Rules of Poker, Ties 3-5; the Poker TDA rules,
        for tournaments, take no rake) or ``odd_chips_to_rake`` (a house practice: the odd chips
        go to the rake while the hand's rake stays within the cap; ties get the same).
    :param four_card_flop: a fourth card turned up with the flop before any flop action:
        ``redeal`` (the default: the burn stays, the four cards go back into the stub, which is
        shuffled and cut, and a new flop is dealt without a burn; Robert's Rules of Poker,
        Hold'em 2-3, for cash games) or ``scramble`` (Poker TDA rules, 4-card flops: the four
        are scrambled face down, one is picked at random as the next burn, the other three are
        the flop).
    """

    exposed_first_two_misdeal: bool = True
    exposed_cards_misdeal: int = 2
    boxed_cards_misdeal: int = 2
    misdeal_after_substantial_action: str = "refuse"
    wrong_seat_misdeal: str = "first_card"
    exposed_after_action: str = "stays"
    substantial_action: str = "tda"
    extra_cards_after_deal: str = "premature_flop"
    short_bb_priority: str = "blind"
    all_in_hands: str = "tabled"
    straddle: str = "off"
    split_pot_rake: str = "before_split"
    four_card_flop: str = "redeal"

    def __post_init__(self) -> None:
        for name, allowed in CHOICES.items():
            value = getattr(self, name)
            if value not in allowed:
                raise ConfigError(f"house_rules.{name}: one of {', '.join(allowed)}, "
                                  f"got {value!r}")
        for name in ("exposed_cards_misdeal", "boxed_cards_misdeal"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 52:
                raise ConfigError(f"house_rules.{name}: an integer 0..52, got {value!r}")
        if not isinstance(self.exposed_first_two_misdeal, bool):
            raise ConfigError(f"house_rules.exposed_first_two_misdeal: true or false, got "
                              f"{self.exposed_first_two_misdeal!r}")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> HouseRules:
        """Build the house rules from a configuration table (``[house_rules]``).

        :raises ConfigError: an unknown key or a bad value (named).
        """
        known = [f.name for f in fields(cls)]
        for key in data:
            if key not in known:
                raise ConfigError(f"house_rules: unknown key {key!r} (known: "
                                  f"{', '.join(known)})")
        return cls(**dict(data))

    def table_options(self) -> TableOptions:
        """Return the engine's options these choices set (keywords of ``TableConfig``).

        >>> options = HouseRules(short_bb_priority="ante").table_options()
        >>> options["bb_ante_first"], options["straddle"], options["odd_chips_to_rake"]
        (True, 'off', False)
        """
        return {"table_all_ins": self.all_in_hands == "tabled",
                "bb_ante_first": self.short_bb_priority == "ante",
                "straddle": self.straddle,
                "odd_chips_to_rake": self.split_pot_rake == "odd_chips_to_rake"}

    def to_dict(self) -> dict[str, Any]:
        """Return the choices as plain data."""
        return {f.name: getattr(self, f.name) for f in fields(self)}
