"""Commands are decided without changing anything; the dispatch matches the command list.

Properties: deciding any command in any state leaves the whole state (``view(secret=True)``)
and the summary as they were, and the reply is the one ``handle`` then gives; every command of
:data:`table_controller.commands.COMMANDS` has exactly one handler; the live state stays bounded
however many irregularities the table saw.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.commands import COMMANDS
from table_controller.controller.dealer_commands import CORE_COMMANDS
from table_controller.controller.dealing import DealingRules
from table_controller.controller.events import DealerCommand, Reply
from table_controller.controller.irregularities import RESOLVED_WINDOW
from tests.controller.helpers import UID, Harness

CARDS = sorted(UID)
COMMAND = st.sampled_from(sorted(COMMANDS))
ARGS = st.fixed_dictionaries({}, optional={
    "seat": st.integers(1, 6), "amount": st.integers(1, 20_000), "to": st.integers(1, 20_000),
    "player": st.sampled_from(["ann", "bob"]), "stack": st.integers(1, 20_000),
    "reason": st.just("test"), "note": st.just("test"), "prompt": st.integers(0, 40),
    "irregularity": st.integers(0, 6), "round": st.integers(1, 2),
    "what": st.sampled_from(["wrong_seat", "skipped", "bogus"]),
    "cards": st.sampled_from(["", "Ah Kd", "Xx"]),
})
STEP: st.SearchStrategy[tuple[str, str, Any]] = st.one_of(st.tuples(st.just("cmd"), COMMAND, ARGS),
                 st.tuples(st.just("card"), st.sampled_from(CARDS), st.just({})),
                 st.tuples(st.just("tick"), st.just(""), st.just({})))


def test_every_listed_command_has_one_handler_and_vice_versa() -> None:
    rules = DealingRules()
    assert not set(CORE_COMMANDS) & rules.commands
    assert set(CORE_COMMANDS) | rules.commands == set(COMMANDS)


def _required(name: str, args: dict[str, Any]) -> dict[str, Any]:
    specs, _ = COMMANDS[name]
    return {a: args[a] for a, _kind, _req in specs if a in args}


@settings(max_examples=60, deadline=None)
@given(st.lists(STEP, min_size=1, max_size=40))
def test_deciding_changes_nothing_and_predicts_the_reply(steps: list[tuple[str, str, Any]]
                                                         ) -> None:
    h = Harness(chips=False)
    h.seat_players(3)
    for kind, what, args in steps:
        if kind == "card":
            h.card(what)
            continue
        if kind == "tick":
            h.tick(2.0)
            continue
        specs, _ = COMMANDS[what]
        if any(req and a not in args for a, _k, req in specs):
            continue  # the feeds refuse it before the core sees it
        cmd = DealerCommand(what, _required(what, args))
        before, summary = h.core.view(secret=True), h.core.summary()
        (decided,) = h.core.preview(cmd, h.now)
        assert isinstance(decided, Reply)
        assert h.core.view(secret=True) == before
        assert h.core.summary() == summary
        out = h.core.handle(cmd, h.now)
        assert [o for o in out if isinstance(o, Reply)] == [decided]
        if not decided.accepted:
            assert h.core.view(secret=True) == before


def test_live_state_is_bounded_after_many_irregularities() -> None:
    h = Harness(chips=False)
    h.seat_players(3)
    sizes = []
    for n in range(1, 301):
        h.card(CARDS[n % len(CARDS)])  # a card between hands: an irregularity
        h.ok("resolve", note=f"returned {n}")
        if n in (100, 300):
            sizes.append((len(str(h.core.summary())), len(str(h.core.view(secret=True)))))
    status = h.core.summary()
    assert len(status["irregularities"]) == RESOLVED_WINDOW
    assert status["irregularity_counts"] == {"raised": 300, "open": 0, "resolved": 300}
    assert [i["id"] for i in status["irregularities"]] == list(range(251, 301))
    assert sizes[1][0] < sizes[0][0] * 1.05 and sizes[1][1] == sizes[0][1]  # digits only
    # ids stay unique and increasing; an old one is refused, naming the journal
    h.card(CARDS[0])
    assert h.core.open_irregularities()[0].id == 301
    old = h.cmd("resolve", irregularity=3, note="late")
    assert not old.accepted and "already resolved" in old.reason
    assert not h.cmd("resolve", irregularity=999, note="x").accepted
