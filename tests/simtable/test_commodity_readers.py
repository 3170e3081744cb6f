"""The daemon on the commodity readers: a PN532 as the shoe, RFID chips counted by the registry."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from calibration.chip_registry import load_registry
from hardware.sim.pn532 import SimPn532
from hardware.sim.rfidchips import SimRfidChips
from table_controller.cli import main
from table_controller.simtable.commodity import Pn532Feeder, RfidFelt, chip_bank
from table_controller.simtable.devices.hands import hands_of
from table_controller.simtable.rig import RigError, RigOptions, SimRig
from table_controller.simtable.session import dealer_session
from tests.controller.rig import E2E, cards

FOREIGN = "04FFFF42"
DECK = ["Ah", "Kd", "2c", "As", "Kh", "3c", "7s", "9s", "Qc", "Jd", "4h", "5s", "6h", "8d",
        "Tc", "Td", "Th", "Ts", "Jc", "Jh", "Js", "Qd", "Qh", "Qs", "Kc", "Ks", "Ac", "Ad"]


def test_three_fast_demo_hands_on_a_pn532_and_rfid_chips_agree(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "summary.json"
    status = main(["demo", "--hands", "3", "--fast", "--no-display", "--seed", "2",
                   "--shoe", "pn532", "--chips", "rfid", "--summary-json", str(out),
                   "--out", str(tmp_path / "rec")])
    text = capsys.readouterr().out
    assert status == 0, text
    summary = json.loads(out.read_text())
    assert summary["hands_played"] == 3 and summary["chips_agree"]
    assert summary["irregularities"] == [] and summary["holds"] == 0
    saved = Path(summary["saved_to"])
    config = (saved / "table.toml").read_text()
    assert 'shoe = "pn532://' in config and 'chips = "rfidchips://' in config
    assert 'chip_registry = "chip_registry.json"' in config
    # the PN532 has no HELLO: the daemon did not wait for one before it was ready
    assert "no HELLO" not in (saved / "daemon.log").read_text()
    assert summary["device_health"]["chips"]["retransmissions"] == 0


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[SimRig]:
    r = SimRig(replace(E2E, shoe="pn532", chips="rfid"), workdir=tmp_path)  # sim run's devices
    r.start(daemon=False)
    try:
        yield r
    finally:
        r.stop()


def test_the_rig_writes_a_registry_of_every_bank_tag(rig: SimRig) -> None:
    registry = load_registry(rig.dir / "chip_registry.json")
    codes = rig.chip_config.denominations
    assert len(registry) == 300 * len(codes)
    for code, uids in rig.chip_bank.items():
        assert len(uids) == 300 and all(len(u) == 8 and u == u.upper() for u in uids)
        record = registry.lookup(uids[0])
        assert record is not None and record.denomination == code


def test_a_foreign_chip_on_a_stack_holds_the_table_naming_zone_and_tag(rig: SimRig) -> None:
    rig.start_daemon()
    hands = hands_of(rig)

    async def run() -> Mapping[str, Any]:
        async with dealer_session(rig, decks=[cards(DECK)]) as d:
            for seat in (1, 2, 3):
                await d.ok("seat", seat=seat, player=f"p{seat}", stack=10_000)
            await d.wait(lambda: d.prompt["step"]["kind"] == "start_hand")
            await d.step()
            await d.play_until(lambda s: s["kind"] == "act")
            assert not d.state.get("held")
            hands.place_tags(2, [FOREIGN])  # on the big blind's stack, mid-hand
            await d.wait(lambda: d.state.get("held") is True, timeout=10.0)
            return (await d.cmd("status")).result

    status = asyncio.run(asyncio.wait_for(run(), 90.0))
    [irr] = [i for i in status["irregularities"] if i["kind"] == "unknown_chip"]
    assert "Zone 2" in irr["text"] and FOREIGN in irr["text"]


# -- the adapters alone ----------------------------------------------------------------------


def test_the_rfid_felt_moves_real_tags_from_a_bet_to_the_pot(tmp_path: Path) -> None:
    sim = SimRfidChips(range(1, 4), link_path=str(tmp_path / "chips.tty"))
    try:
        felt = RfidFelt(sim, chip_bank({1: 1, 4: 100}, per_code=5))
        felt.set_zone(1, {4: 2, 1: 3})
        bet = felt.tags(1)
        assert sim.tags(1) == set(bet) and len(bet) == 5
        felt.set_zone(1, {})
        felt.set_zone(3, {4: 2, 1: 3})
        assert sim.tags(1) == set() and sim.tags(3) == set(bet)
        with pytest.raises(Exception, match="no more tags of code 4"):
            felt.set_zone(2, {4: 4})
    finally:
        sim.close()


def test_the_pn532_feeder_puts_each_card_on_the_antenna_in_turn(tmp_path: Path) -> None:
    sim = SimPn532(link_path=str(tmp_path / "shoe.tty"))
    try:
        feeder = Pn532Feeder(sim, read_wait=0.01)  # no poller here: do not wait for one
        feeder.load_deck(["04A1B2C3", "04A1B2C4"])
        assert feeder.draw() == "04A1B2C3" and sim.tag == "04A1B2C3"
        feeder.draw_uid("04a1b2c3")
        assert sim.tag == "04A1B2C3" and feeder.drawn == ["04A1B2C3", "04A1B2C3"]
        assert feeder.draw() == "04A1B2C4" and feeder.left == 0
        with pytest.raises(Exception, match="empty"):
            feeder.draw()
    finally:
        sim.close()


def test_an_unknown_shoe_kind_is_refused() -> None:
    with pytest.raises(RigError, match="shoe 'usb'"):
        RigOptions(shoe="usb")
