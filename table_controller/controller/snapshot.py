"""The table's state as the feeds publish it (``table_state``) and the ``status`` result.

Both are bounded over the table's life: irregularities appear as the open ones (state) or the
live window of :class:`~.irregularities.IrregularityLog` with its counts (status).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from table_controller.controller.core import TableCore


def table_view(core: TableCore, *, secret: bool = False) -> dict[str, Any]:
    """Return the whole table state (the feeds' snapshot); hole cards under ``hole_cards``.

    :param secret: add surveillance-only details (burn cards, details of the live
        irregularities).
    """
    ts = core.table.status()
    hand = core.hand
    st = hand.status() if hand is not None else None
    seats: dict[str, Any] = {}
    for s, v in ts.seats.items():
        d: dict[str, Any] = {"player": v.player, "stack": v.stack, "bet": 0,
                             "sitting_out": v.sitting_out, "in_hand": False,
                             "folded": False, "all_in": False}
        if st is not None and s in st.seats:
            d.update(stack=st.stacks[s], bet=st.bets.get(s, 0), in_hand=True,
                     folded=s in st.folded, all_in=s in st.all_in)
        seats[str(s)] = d
    state: dict[str, Any] = {
        "hand": core.hand_number if hand is not None else None,
        "hands_played": ts.hands_played,
        "rake_total": ts.rake_total,
        "button": st.button if st is not None else ts.button,
        "seats": seats,
        "phase": st.phase.value if st is not None else "between_hands",
        "street": st.street.value if st is not None else None,
        "board": [None if c is None else c.code for c in st.board] if st else [],
        "pots": [p.to_dict() for p in st.pots] if st is not None else [],
        "to_act": st.to_act if st is not None else None,
        "current_bet": st.current_bet if st is not None else 0,
        "hole_cards": {str(s): [None if c is None else c.code for c in cs]
                       for s, cs in st.hole_cards.items()} if st is not None else {},
        "shown": {str(s): [c.code for c in cs] for s, cs in st.shown.items()}
        if st is not None else {},
        "prompt": core.prompt.to_dict() if core.prompt is not None else None,
        "held": core.held,
        "holds": [r for r, _ in core.holds],
        "irregularities": [i.to_dict() for i in core.open_irregularities()],
        "devices": dict(core.devices),
        "last_announcement": None if core.last_announcement is None
        else core.last_announcement.to_dict(),
        "chips": {"pending": {str(z): list(v) for z, v in core.chips.pending.items()}}
        if core.chips is not None else None,
    }
    if secret:
        state["burn_cards"] = [None if c is None else c.code for c in core.burns]
        state["irregularity_details"] = {str(i.id): dict(i.secret)
                                         for i in core.log if i.secret}
    return state

def table_summary(core: TableCore) -> dict[str, Any]:
    """Return the ``status`` command's result."""
    ts = core.table.status()
    stacks = {str(s): v.stack for s, v in ts.seats.items()}
    in_play = sum(v.stack for v in ts.seats.values())
    hand = core.hand
    if hand is not None:
        st = hand.status()
        for s in st.seats:
            stacks[str(s)] = st.stacks[s]
        in_play = sum(int(v) for v in stacks.values()) + sum(st.bets.values()) + sum(
            p.amount for p in st.pots)
    return {
        "hands_played": ts.hands_played, "hand": core.hand_number if hand else None,
        "stacks": stacks, "chips_in_play": in_play, "rake_total": ts.rake_total,
        "held": core.held, "holds": [r for r, _ in core.holds],
        "prompt": core.prompt.to_dict() if core.prompt else None,
        "irregularities": [i.to_dict() for i in core.log],
        "irregularity_counts": core.log.counts(),
        "devices": dict(core.devices),
        # what the camera last reported (None: no camera report yet): a dealer may wait for
        # it to show the board cards dealt, or an empty board before the next hand
        "camera_board": None if core.board_seen is None else list(core.board_seen.slots),
        "board": [None if c is None else c.code for c in hand.status().board]
        if hand is not None else [],
    }
