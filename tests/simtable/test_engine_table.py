from __future__ import annotations

import pytest

from table_controller.engine import ActionKind, LegalActions, RakeRule
from table_controller.simtable.engine_table import EngineTable
from table_controller.simtable.players import (
    Player,
    ScriptedAction,
    ScriptedPlayers,
    ScriptError,
    Style,
    make_players,
)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_players_and_dealer_play_hundreds_of_legal_hands(seed: int) -> None:
    stacks = {1: 10_000, 3: 5_000, 4: 2_000, 6: 20_000, 8: 1_000}
    table = EngineTable(stacks, seed=seed, rake=RakeRule(500, 300))
    run = table.play(300)
    assert run.hands > 20
    assert run.chips_after + run.rake == run.chips_before == sum(stacks.values())


def test_runs_are_reproducible_from_the_seed() -> None:
    stacks = {1: 3_000, 2: 3_000, 3: 3_000}
    a = EngineTable(stacks, seed=9).play(40)
    b = EngineTable(stacks, seed=9).play(40)
    c = EngineTable(stacks, seed=10).play(40)
    assert a.stacks == b.stacks and a.inputs == b.inputs
    assert (a.stacks, a.inputs) != (c.stacks, c.inputs)


def test_every_style_covers_every_kind_of_action() -> None:
    kinds: set[ActionKind] = set()
    legal_facing = LegalActions(2, True, False, True, 100, True, 200, 5_000, 100, 0, 5_000, False)
    legal_open = LegalActions(2, True, True, False, 0, True, 100, 5_000, 0, 0, 5_000, True)
    for style in Style:
        p = Player("x", style, seed=3)
        for _ in range(300):
            kinds.add(p.decide(legal_facing, 300).kind)
            kinds.add(p.decide(legal_open, 300).kind)
    assert kinds == set(ActionKind)


def test_make_players_names_and_styles() -> None:
    players = make_players([2, 5, 7], seed=1)
    assert [p.name for p in players.values()] == ["Bo", "Ed", "Gus"]
    assert len({p.style for p in players.values()}) == 3


def test_scripted_players_follow_the_script_and_refuse_the_wrong_seat() -> None:
    script = ScriptedPlayers([ScriptedAction.parse("2 call"), ScriptedAction.parse("3 raise 400")])
    legal2 = LegalActions(2, True, False, True, 100, True, 200, 5_000, 100, 0, 5_000, False)
    assert script.decide(legal2).kind is ActionKind.CALL
    with pytest.raises(ScriptError, match="seat 3"):
        script.decide(legal2)
    assert script.remaining == 1


@pytest.mark.parametrize("text", ["3", "x call", "3 dance", "3 raise", "3 call 100", "3 bet x"])
def test_bad_scripted_actions_are_refused(text: str) -> None:
    with pytest.raises(ScriptError):
        ScriptedAction.parse(text)
