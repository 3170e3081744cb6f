from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from table_controller.simtable.scenario import CoreDriver, load_scenario, run_scenario

HERE = Path(__file__).resolve().parents[2] / "scenarios" / "irregularities"
SCENARIOS = sorted(HERE.glob("*.toml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_irregularity_scenario_in_process(path: Path) -> None:
    scn = load_scenario(path)
    result = asyncio.run(run_scenario(scn, CoreDriver(scn)))
    assert result.passed, (result.failures, result.prompts[-12:])
    # the resolution of each irregularity is recorded (by its remedy, the floor or the void);
    # "no misdeal" waits for the floor's ruling on the seat's hand
    open_ = [i["kind"] for i in result.status["irregularities"]
             if i["resolution"] is None and i["kind"] != "no_misdeal"]
    assert open_ == []


def test_every_dealing_kind_has_a_scenario_here() -> None:
    import table_controller.controller.dealing  # noqa: F401  (registers the kinds)
    from table_controller.controller.irregularities import KINDS

    ours = {k for k in KINDS if KINDS[k].name in {
        "misdeal", "no_misdeal", "exposed_hole_card", "boxed_card", "extra_card",
        "premature_flop", "premature_turn", "premature_river", "missed_burn", "doubled_burn",
        "shoe_opened", "shoe_empty", "collect_difference", "payout_difference",
        "pot_wrong_seat"}}
    covered = {k for p in SCENARIOS for k in load_scenario(p).covers}
    assert ours <= covered, sorted(ours - covered)


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_replaying_the_inputs_rebuilds_the_same_table(path: Path) -> None:
    """The journal's recovery: the same inputs at the same times give the same state."""
    from typing import Any

    from table_controller.controller.core import TableCore

    scn = load_scenario(path)
    driver = CoreDriver(scn)
    core = driver.io.core
    seen: list[tuple[Any, float]] = []
    handle = core.handle

    def recording(inp: Any, now: float) -> Any:
        seen.append((inp, now))
        return handle(inp, now)

    core.handle = recording
    result = asyncio.run(run_scenario(scn, driver))
    assert result.passed, result.failures
    twin = TableCore(core.table.config, dict(core.resolver._cards), core.chips.config
                     if core.chips is not None else None, settle=core.chips.settle
                     if core.chips is not None else 1.5)
    for inp, now in seen:
        twin.handle(inp, now)
    assert twin.summary() == core.summary()
    assert twin.view(secret=True) == core.view(secret=True)


@pytest.mark.parametrize("name", ["misdeal_two_exposed", "shoe_opened"])
def test_against_the_daemon(name: str) -> None:
    """The dealer's commands and the shoe's status reach the rules through the daemon."""
    from table_controller.simtable.scenario import run_file

    result = asyncio.run(run_file(load_scenario(HERE / f"{name}.toml")))
    assert result.passed, result.failures
