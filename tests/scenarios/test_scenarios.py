from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("table_controller.controller.core")

from table_controller.cli import main
from table_controller.controller.events import Prompt
from table_controller.simtable.scenario import (
    ACTIONS,
    CoreDriver,
    ScenarioError,
    load_scenario,
    parse_scenario,
    run_scenario,
)

SCENARIOS = sorted((Path(__file__).resolve().parents[2] / "scenarios").rglob("*.toml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario_in_process(path: Path) -> None:
    scn = load_scenario(path)
    result = asyncio.run(run_scenario(scn, CoreDriver(scn)))
    assert result.passed, result.failures


#: The irregularities the controller core detects (``controller/irregularities.py``); the
#: dealing rules register more kinds, covered by their own tests.
CORE_KINDS = {"unknown_card", "duplicate_card", "card_not_due", "card_between_hands",
              "card_while_held", "chip_difference", "device_lost", "board_mismatch",
              "board_wrong_slot", "board_missing", "board_early", "exposed_card"}


def test_every_irregularity_kind_has_a_scenario() -> None:
    from table_controller.controller.irregularities import KINDS

    assert set(KINDS) >= CORE_KINDS, sorted(CORE_KINDS - set(KINDS))
    covered = {k for p in SCENARIOS for k in load_scenario(p).covers}
    assert covered >= CORE_KINDS, sorted(CORE_KINDS - covered)


#: The fault actions the scenarios of this folder show (dealing rules add more).
CORE_ACTIONS = {"expose_card", "wrong_board_card", "wrong_slot", "board_early", "wrong_bet",
                "unknown_tag", "second_copy", "extra_card", "hide_board_card", "unplug_shoe",
                "misdeal"}


def test_every_fault_action_is_used() -> None:
    assert set(ACTIONS) >= CORE_ACTIONS
    used = {f.do for p in SCENARIOS for f in load_scenario(p).faults}
    assert used >= CORE_ACTIONS, sorted(CORE_ACTIONS - used)


def test_a_failing_expectation_is_reported(tmp_path: Path) -> None:
    text = SCENARIOS[0].read_text().replace("final_stacks = {", "final_stacks = { 4 = 1,", 1)
    scn = parse_scenario(text, "broken")
    result = asyncio.run(run_scenario(scn, CoreDriver(scn)))
    assert not result.passed and any("final stacks" in f for f in result.failures)


BASE = """
[seats]
1 = ["Ann", 1000]
2 = ["Bo", 1000]
[[hands]]
deck = "As Kd"
"""


@pytest.mark.parametrize("extra, message", [
    ("bogus = 1\n", "unknown key 'bogus'"),
    ('[[faults]]\nwhen = "act"\ndo = "explode"\n', "faults[1].do"),
    ('[[faults]]\nwhen = "act"\ndo = "expose_card"\ncard = "Zz"\n', "faults[1].card"),
    ('[expect]\nwhatever = 1\n', "expect: unknown key"),
])
def test_invalid_scenarios_are_refused_with_the_key_named(extra: str, message: str) -> None:
    with pytest.raises(ScenarioError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_scenario(extra + BASE if not extra.startswith("[") else BASE + extra, "x")


def test_bad_deck_and_seat() -> None:
    with pytest.raises(ScenarioError, match="repeats a card"):
        parse_scenario(BASE.replace("As Kd", "As As"), "x")
    with pytest.raises(ScenarioError, match="seat must be"):
        parse_scenario(BASE.replace('2 = ["Bo"', '12 = ["Bo"'), "x")


def test_cli_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(SCENARIOS[0]), str(SCENARIOS[1])]
    assert main(["scenario", "--in-process", *files]) == 0
    assert "2 passed, 0 failed" in capsys.readouterr().out


def test_cli_invalid_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("name = ")
    assert main(["scenario", "--in-process", str(bad)]) == 2
    assert "not valid TOML" in capsys.readouterr().err


#: Run against the daemon in the default suite: one per path through the system (a clean hand,
#: payouts with side pots, the chip sensors, the camera, a device lost); the rest with -m slow.
ON_THE_DAEMON_BY_DEFAULT = {"clean_hand", "side_pots", "chip_difference", "board_mismatch",
                            "shoe_unplugged"}


@pytest.mark.parametrize("path", [
    pytest.param(p, id=p.stem,
                 marks=() if p.stem in ON_THE_DAEMON_BY_DEFAULT and p.parent.name == "scenarios"
                 else (pytest.mark.slow,))
    for p in SCENARIOS])
def test_scenario_against_the_daemon(path: Path) -> None:
    from table_controller.simtable.scenario import run_file

    result = asyncio.run(run_file(load_scenario(path)))
    assert result.passed, result.failures


class _LaggingFeed(CoreDriver):
    """The core, seen through a feed that is one prompt late when the table is held.

    On the daemon the dealer can read the prompt that came just before a hold after the hold
    began (the feed and the command socket race); its action is then refused.
    """

    def __init__(self, scn: Any) -> None:
        super().__init__(scn)
        self._lagged = False
        self.stale_shown = 0

    def current(self) -> tuple[dict[str, Any], dict[str, Any]]:
        prompt, state = super().current()
        if "held" in str(prompt.get("text", "")).lower() and not self._lagged:
            self._lagged = True
            prompts = [o.to_dict() for o in self.io.outputs if isinstance(o, Prompt)]
            stale = [p for p in prompts[:-1] if "to act" in str(p.get("text", ""))]
            if stale:
                self.stale_shown += 1
                return stale[-1], state
        return prompt, state


def test_an_action_refused_on_a_stale_prompt_is_not_used_up() -> None:
    scn = load_scenario(SCENARIOS[0].parent / "chip_difference.toml")
    driver = _LaggingFeed(scn)
    result = asyncio.run(run_scenario(scn, driver))
    assert driver.stale_shown == 1
    assert result.passed, result.failures
