from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest

from calibration.chips import DEFAULT_DENOMINATIONS, default_chip_config
from table_controller.engine import Act, ActionKind
from table_controller.simtable.felt import (
    BoardFile,
    Felt,
    FeltError,
    chips_for,
    command_for,
    legal_from_dict,
)
from table_controller.simtable.players import make_players


class Recorder:
    def __init__(self) -> None:
        self.zones: dict[int, dict[int, int]] = {}
        self.writes = 0

    def set_zone(self, zone: int, counts: Mapping[int, int], now: float | None = None) -> None:
        self.zones[zone] = dict(counts)
        self.writes += 1


@pytest.mark.parametrize("amount", [0, 1, 7, 99, 1_234, 56_789])
def test_chips_add_up(amount: int) -> None:
    chips = chips_for(amount, DEFAULT_DENOMINATIONS)
    assert sum(DEFAULT_DENOMINATIONS[c] * n for c, n in chips.items()) == amount


def test_chips_that_cannot_be_made_are_refused() -> None:
    with pytest.raises(FeltError, match="cannot be made"):
        chips_for(7, {1: 5})
    with pytest.raises(FeltError):
        chips_for(-1, {1: 5})


def test_felt_writes_zone_values_as_chips() -> None:
    cfg = default_chip_config(3)
    rec = Recorder()
    felt = Felt(rec, cfg.denominations, cfg.seat_zones, cfg.pot_zone)
    felt.set_seat(2, 150)
    felt.set_seat(2, 150)
    assert rec.writes == 1 and cfg.value(rec.zones[2]) == 150
    felt.set_seat(3, 300)
    felt.collect(450, {})
    assert felt.seat(2) == felt.seat(3) == 0 and felt.pot == 450
    assert cfg.value(rec.zones[cfg.pot_zone]) == 450


def test_legal_round_trip_and_commands() -> None:
    players = make_players([1], seed=1)
    legal = legal_from_dict({"seat": 1, "can_fold": True, "can_check": False, "can_call": True,
                             "call_amount": 100, "can_raise": True, "min_raise_to": 200,
                             "max_raise_to": 1000, "to_call_total": 100, "bet": 0,
                             "stack": 1000, "is_bet": False})
    act = players[1].decide(legal, 150)
    assert act.seat == 1
    assert command_for(Act(1, ActionKind.BET, 300)) == {"command": "bet", "seat": 1,
                                                        "amount": 300}
    assert command_for(Act(1, ActionKind.ALL_IN)) == {"command": "all_in", "seat": 1}


def test_board_file_is_json_the_camera_reads(tmp_path: Path) -> None:
    board = BoardFile(tmp_path / "board.json")
    board.lay(0, "Ah")
    board.occlude([1])
    assert json.loads((tmp_path / "board.json").read_text()) == {
        "slots": ["Ah", None, None, None, None], "occluded": [1]}
    with pytest.raises(FeltError):
        board.lay(5, "Kd")
    board.clear()
    assert json.loads((tmp_path / "board.json").read_text())["slots"] == [None] * 5
