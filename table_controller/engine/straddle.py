"""Where a straddle may be posted: the table's house rule (see :mod:`.table`, rule 9).

Rules this module keeps: ``"off"`` names no seat; ``"utg"`` the first seat dealt in left of the
big blind, ``"button"`` the button; either only with three or more players dealt in and for a
seat that posts no blind and owes no other post (the live straddle, a house rule: no rule-book
section confirmed, see ``docs/engine.md``, Sources).
"""

from __future__ import annotations

from table_controller.engine.model import HandConfig

__all__ = ["STRADDLE_RULES", "straddle_position"]

STRADDLE_RULES = ("off", "utg", "button")
"""The values of the straddle house rule (module rule 9)."""


def straddle_position(config: HandConfig, rule: str) -> int | None:
    """Return the seat that may straddle in a hand set up as ``config`` (module rule 9).

    >>> cfg = HandConfig(seats=(1, 2, 3, 4), stacks=dict.fromkeys((1, 2, 3, 4), 100), button=1,
    ...                  small_blind=1, big_blind=2, sb_seat=2, bb_seat=3)
    >>> [straddle_position(cfg, rule) for rule in ("utg", "button", "off")]
    [4, 1, None]
    """
    seats = sorted(config.seats)
    if rule == "off" or len(seats) < 3 or config.bb_seat is None:
        return None
    if rule == "utg":
        seat = next((s for s in seats if s > config.bb_seat), seats[0])
    else:
        seat = config.button
    owes = {p.seat for p in config.extra_posts}
    if seat not in seats or seat in (config.sb_seat, config.bb_seat) or seat in owes:
        return None
    return seat
