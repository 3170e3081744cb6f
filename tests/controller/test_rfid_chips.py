"""RFID gaming chips: tags counted through the chip registry, foreign chips and cloned tags held."""

from __future__ import annotations

import pytest

from calibration.chip_registry import ChipRecord, ChipRegistry
from table_controller.controller.core import TableCore
from table_controller.controller.events import (
    DealerCommand,
    HoldEntered,
    IrregularityRaised,
    Output,
    Tick,
    ZoneTags,
    input_from_dict,
)
from table_controller.engine import TableConfig
from tests.controller.helpers import DECK, chip_config


def one(i: int) -> str:
    """The tag of registered chip ``i`` worth 1 (denomination code 1)."""
    return f"04C0{i:04X}"


def hundred(i: int) -> str:
    """The tag of registered chip ``i`` worth 100 (denomination code 9)."""
    return f"04A0{i:04X}"


FAKE = "04FFFF42"
#: 50 registered chips worth 1 and 10 worth 100
REGISTRY = ChipRegistry([ChipRecord(one(i), 1, "house") for i in range(1, 51)]
                        + [ChipRecord(hundred(i), 9, "house") for i in range(1, 11)])


class Table:
    def __init__(self, settle: float = 1.0) -> None:
        self.core = TableCore(TableConfig(seats=6, small_blind=1, big_blind=2), DECK,
                              chip_config(), settle=settle, chip_registry=REGISTRY)
        self.now = 10.0
        self.out: list[Output] = []

    def feed(self, inp: object, dt: float = 0.01) -> list[Output]:
        self.now += dt
        out = self.core.handle(inp, self.now)  # type: ignore[arg-type]
        self.out.extend(out)
        return out

    def start(self) -> None:
        for s in (1, 2, 3):
            self.feed(DealerCommand("seat", {"seat": s, "player": f"p{s}", "stack": 1000}))
        self.feed(DealerCommand("start", {}))


def irregularities(out: list[Output]) -> list[IrregularityRaised]:
    return [o for o in out if isinstance(o, IrregularityRaised)]


def test_blinds_posted_as_tagged_chips_complete_by_themselves() -> None:
    t = Table()
    t.start()
    assert t.core.prompt is not None and t.core.prompt.step["kind"] == "post"
    seat = t.core.prompt.step["seat"]
    amount = t.core.prompt.step["amount"]
    t.feed(ZoneTags(seat, tuple(one(i) for i in range(1, amount + 1))))
    assert t.core.prompt.step["kind"] == "post" and t.core.prompt.step["seat"] != seat
    assert not irregularities(t.out)


def test_a_foreign_chip_holds_the_table_naming_the_zone_and_the_tag() -> None:
    t = Table()
    t.start()
    out = t.feed(ZoneTags(4, (one(1), FAKE)))
    [irr] = irregularities(out)
    assert irr.kind == "unknown_chip" and irr.hold
    assert "Zone 4" in irr.text and FAKE in irr.text
    assert any(isinstance(o, HoldEntered) for o in out)
    # reported once while it lies there, again if it comes back after it was taken away
    assert not irregularities(t.feed(ZoneTags(4, (one(1), FAKE))))
    t.feed(ZoneTags(4, (one(1),)))
    assert [i.kind for i in irregularities(t.feed(ZoneTags(4, (FAKE,))))] == [
        "unknown_chip"]


def test_a_chip_read_on_two_zones_holds_once_it_lasts_the_settle_window() -> None:
    t = Table(settle=1.0)
    t.start()
    t.feed(ZoneTags(1, (one(10),)))
    assert not irregularities(t.feed(ZoneTags(2, (one(10),))))  # sliding across: not yet
    deadline = t.core.next_deadline()
    assert deadline is not None and deadline <= t.now + 1.0
    t.feed(ZoneTags(1, ()), dt=0.3)  # it arrived: no irregularity ever
    assert not irregularities(t.feed(Tick(), dt=2.0))
    t.feed(ZoneTags(3, (one(11),)))
    t.feed(ZoneTags(5, (one(11),)))
    [irr] = irregularities(t.feed(Tick(), dt=1.5))
    assert irr.kind == "chip_on_two_zones" and one(11) in irr.text and "3 and 5" in irr.text


def test_zone_tags_are_an_input_the_journal_replays() -> None:
    inp = ZoneTags(3, (one(1), hundred(2)))
    assert input_from_dict(inp.to_dict()) == inp


@pytest.mark.parametrize("zone", [1, 11])
def test_without_a_registry_tags_change_nothing(zone: int) -> None:
    core = TableCore(TableConfig(seats=6, small_blind=1, big_blind=2), DECK, chip_config())
    assert not irregularities(core.handle(ZoneTags(zone, (FAKE,)), 1.0))
