from __future__ import annotations

import io
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from table_controller.displays.render import render
from table_controller.displays.view import apply_message, view_from_state

KEYS = ["table", "hand", "street", "phase", "button", "seats", "board", "pots", "to_act",
        "prompt", "holds", "irregularities", "devices", "last_announcement", "stacks", "bets",
        "folded", "all_in", "hole_cards", "shown", "player", "stack", "bet", "amount",
        "eligible", "text", "id", "step", "kind", "seat", "1", "2", "hands_played", "state"]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.floats(allow_nan=False)
    | st.text(max_size=8) | st.sampled_from(["Ah", "??", "Td", "x"]),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(KEYS), children, max_size=6),
    max_leaves=25)
states = st.dictionaries(st.sampled_from(KEYS), json_values, max_size=10)


@settings(max_examples=80, deadline=None)
@given(state=states, mtype=st.sampled_from(["table_state", "prompt", "announcement", "event",
                                             "irregularity", "hold", "resume", "device", "x"]),
       data=states)
def test_any_feed_data_renders_without_raising(state: dict[str, Any], mtype: str,
                                               data: dict[str, Any]) -> None:
    v = view_from_state(state)
    v = apply_message(v, mtype, data, seq=3)
    console = Console(record=True, width=90, color_system=None, file=io.StringIO())
    for role in ("public", "dealer", "floor"):
        console.print(render(role, [v]))
    assert console.export_text()
