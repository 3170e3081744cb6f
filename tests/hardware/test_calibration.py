from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from calibration.chips import (
    build_chip_config,
    default_chip_config,
    load_chip_config,
    parse_chip_config,
)
from calibration.deck import ORDERS, DeckProfile, DeckStore, parse_profile, register_reads
from hardware.sim.shoe import SimShoe, sim_deck_profile, tag_uids
from table_controller.cli import main
from table_controller.engine.cards import FULL_DECK, Card
from table_controller.errors import CalibrationError

UIDS = tag_uids(21)


def test_orders_are_full_decks() -> None:
    for order in ORDERS.values():
        assert sorted(order) == sorted(FULL_DECK)
    assert [c.code for c in ORDERS["suits"][:3]] == ["Ac", "2c", "3c"]
    assert ORDERS["suits"][-1] == Card.parse("Ks")
    assert [c.code for c in ORDERS["sorted"][:5]] == ["2c", "2d", "2h", "2s", "3c"]


def test_register_reads_and_roundtrip(tmp_path: Path) -> None:
    profile = register_reads("red-1", UIDS, "sorted")
    assert profile.card(UIDS[0]) == Card.parse("2c")
    assert profile.card(UIDS[51].lower()) == Card.parse("As")
    assert profile.uid(Card.parse("As")) == UIDS[51]
    again = parse_profile(profile.to_toml())
    assert dict(again.cards) == dict(profile.cards)
    assert again.name == "red-1" and again.source == "sorted order"


@pytest.mark.parametrize(
    ("uids", "message"),
    [
        (UIDS[:51], "read 51 tags, a deck has 52"),
        ([*UIDS[:51], UIDS[3]], f"tag {UIDS[3]} was read twice \\(cards 4 and 52\\)"),
        ([*UIDS[:51], "XYZ"], "not 4 to 10 bytes of hex"),
        ([*UIDS, "0102030405"], "read 53 tags"),
    ],
)
def test_register_refusals(uids: list[str], message: str) -> None:
    with pytest.raises(CalibrationError, match=message):
        register_reads("d", uids, "sorted")


def test_profile_validation() -> None:
    good = dict(zip(UIDS, FULL_DECK, strict=True))
    with pytest.raises(CalibrationError, match="deck name"):
        DeckProfile.build("bad name!", good)
    twice = dict(good)
    twice[UIDS[0]] = FULL_DECK[1]
    with pytest.raises(CalibrationError, match="is on two tags"):
        DeckProfile.build("d", twice)
    short = dict(list(good.items())[:50])
    with pytest.raises(CalibrationError, match="missing: Ah As"):
        DeckProfile.build("d", short)
    text = register_reads("d", UIDS, "sorted").to_toml()
    with pytest.raises(CalibrationError, match="unknown key 'colour'"):
        parse_profile(text.replace("format = 1", 'format = 1\ncolour = "red"'))
    with pytest.raises(CalibrationError, match="format must be 1"):
        parse_profile(text.replace("format = 1", "format = 2"))
    with pytest.raises(CalibrationError, match="not a card"):
        parse_profile(text.replace('= "2c"', '= "1x"'))
    with pytest.raises(CalibrationError, match="not valid TOML"):
        parse_profile("cards = [")


def test_store_register_activate_and_share_check(tmp_path: Path) -> None:
    store = DeckStore(tmp_path / "decks")
    assert store.names() == [] and store.active_name() is None
    with pytest.raises(CalibrationError, match="no active deck"):
        store.active()
    store.save(register_reads("red", UIDS, "sorted"))
    store.save(register_reads("blue", tag_uids(22), "suits"))
    assert store.names() == ["blue", "red"]
    with pytest.raises(CalibrationError, match="already registered"):
        store.save(register_reads("red", UIDS, "suits"))
    store.save(register_reads("red", UIDS, "suits"), replace=True)
    with pytest.raises(CalibrationError, match=r"already registered as .* in deck 'red'"):
        store.save(register_reads("green", UIDS, "sorted"))
    assert store.names() == ["blue", "red"]
    store.activate("blue")
    assert store.active().name == "blue"
    assert store.active("red").card(UIDS[0]) == Card.parse("Ac")
    assert store.owner(UIDS[1]) == ("red", Card.parse("2c"))
    assert store.owner("FFFFFFFF") is None
    with pytest.raises(CalibrationError, match=r"no deck 'nope'.*registered: blue, red"):
        store.activate("nope")


# --- chips -----------------------------------------------------------------------------------


def test_chip_config_default_and_roundtrip() -> None:
    cfg = default_chip_config(9)
    assert cfg.seat_zone(1) == 1 and cfg.pot_zone == 10 and cfg.tray_zone is None
    again = parse_chip_config(cfg.to_toml())
    assert dict(again.zones) == dict(cfg.zones)
    assert dict(again.denominations) == dict(cfg.denominations)
    assert cfg.value({4: 2, 2: 1}) == 205
    with pytest.raises(CalibrationError, match="unknown chip denomination code 99"):
        cfg.value({99: 1})
    with pytest.raises(CalibrationError, match="seat 10 has no chip zone"):
        cfg.seat_zone(10)
    assert cfg.role(10) == "pot" and cfg.role(77) is None


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace("format = 1", "format = 1\ntrays = 2"), "unknown key 'trays'"),
        (lambda t: t.replace('"1" = 1\n', '"1" = 0\n'), "denominations.1: value must be"),
        (lambda t: t.replace('"1" = 1\n', '"x" = 1\n'), "key 'x' is not an integer"),
        (lambda t: t.replace('"2" = "seat 2"', '"2" = "seat 1"'), "seat 1 is already zone 1"),
        (lambda t: t.replace('"2" = "seat 2"', '"2" = "chair"'), "zones.2: role must be"),
        (lambda t: t.replace('"10" = "pot"', '"10" = "tray"'), 'no zone is "pot"'),
        (lambda t: t.replace('"1" = "seat 1"', '"300" = "seat 1"'), "must be an integer 0..254"),
    ],
)
def test_chip_config_refusals(edit: object, message: str) -> None:
    text = default_chip_config(9).to_toml()
    assert callable(edit)
    with pytest.raises(CalibrationError, match=message):
        parse_chip_config(edit(text))


def test_chip_config_tray_zone() -> None:
    cfg = build_chip_config({1: 1}, {1: "seat 1", 2: "pot", 3: "tray"})
    assert cfg.tray_zone == 3


def test_calibrate_chips_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "zones.toml"
    assert main(["calibrate", "chips", "write", str(path), "--seats", "6"]) == 0
    assert load_chip_config(path).pot_zone == 7
    assert main(["calibrate", "chips", "write", str(path)]) == 1
    assert "exists" in capsys.readouterr().err
    assert main(["calibrate", "chips", "check", str(path)]) == 0
    assert "6 seat zones, pot zone 7" in capsys.readouterr().out
    path.write_text(path.read_text().replace("format = 1", "format = 1\nzone = 3"))
    assert main(["calibrate", "chips", "check", str(path)]) == 1
    assert "unknown key 'zone'" in capsys.readouterr().err
    assert main(["calibrate", "chips", "check", str(tmp_path / "nope.toml")]) == 1


def test_deck_commands_name_a_missing_decks_folder(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    for action in (["list"], ["show"], ["activate", "red"]):
        assert main(["calibrate", "deck", "--decks", str(tmp_path / "nope"), *action]) == 1
        err = capsys.readouterr().err
        assert "does not exist" in err and str(tmp_path / "nope") in err
        assert err.count("\n") == 1
    (tmp_path / "empty").mkdir()
    assert main(["calibrate", "deck", "--decks", str(tmp_path / "empty"), "list"]) == 0
    assert "no decks registered" in capsys.readouterr().out


# --- deck registration end to end over a pty --------------------------------------------------


@pytest.fixture
def sim() -> Iterator[SimShoe]:
    shoe = SimShoe(tag_uids(31), retransmit_after=0.05, heartbeat_interval=0.05)
    shoe.start()
    yield shoe
    shoe.close()


def register_args(decks: Path, name: str, url: str, *extra: str) -> list[str]:
    return ["calibrate", "deck", "--decks", str(decks), "register", name, "--shoe", url,
            "--timeout", "10", *extra]


def test_calibrate_deck_by_draws_over_pty(
    sim: SimShoe, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    decks = tmp_path / "decks"
    for _ in range(52):
        sim.draw()  # the dealer runs the deck through; frames wait in the shoe until read
    url = f"serial://{sim.path}?heartbeat=0.05"
    assert main(register_args(decks, "red", url, "--order", "sorted", "--activate")) == 0
    out = capsys.readouterr().out
    assert "52/52" in out and "active deck: red" in out
    # which card comes next, and how far along, on every line
    assert "starting with" in out
    assert " 1/52  [" in out and "next: " in out and "all 52 read" in out
    store = DeckStore(decks)
    assert dict(store.active().cards) == sim_deck_profile(31)
    assert main(["calibrate", "deck", "--decks", str(decks), "list"]) == 0
    assert "* red" in capsys.readouterr().out
    assert main(["calibrate", "deck", "--decks", str(decks), "show"]) == 0
    assert '"2c"' in capsys.readouterr().out
    # the same physical deck again under another name is refused: its tags belong to "red"
    sim.load_deck(tag_uids(31))
    sim.draw()
    assert main(register_args(decks, "red2", url)) == 1
    err = capsys.readouterr().err
    assert "belongs to deck 'red'" in err and "nothing saved" in err
    assert store.names() == ["red"]


def test_calibrate_deck_refuses_second_copy(
    sim: SimShoe, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    decks = tmp_path / "decks"
    for _ in range(10):
        sim.draw()
    sim.draw_second_copy()
    url = f"serial://{sim.path}?heartbeat=0.05"
    assert main(register_args(decks, "blue", url)) == 1
    assert "was read twice (cards 1 and 11)" in capsys.readouterr().err
    assert DeckStore(decks).names() == []


def test_calibrate_deck_times_out_cleanly(
    sim: SimShoe, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"serial://{sim.path}?heartbeat=0.05"
    args = register_args(tmp_path, "x", url)
    args[args.index("--timeout") + 1] = "0.3"
    assert main(args) == 1
    assert "timed out after 0.3 s with 0 of 52 cards read" in capsys.readouterr().err


def test_calibrate_deck_from_scan_with_sim_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = register_args(tmp_path, "sim", "sim://shoe?seed=4&heartbeat=0.05", "--from", "scan")
    assert main(args) == 0
    assert dict(DeckStore(tmp_path).load("sim").cards) == sim_deck_profile(4)
    assert main(["calibrate", "deck", "--decks", str(tmp_path), "activate", "sim"]) == 0
    assert main(["calibrate", "deck", "--decks", str(tmp_path), "activate", "zz"]) == 1
    assert "no deck 'zz'" in capsys.readouterr().err


def test_calibrate_deck_scan_times_out_on_a_line_reader(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = register_args(tmp_path, "x", "sim://lines", "--from", "scan")
    args[args.index("--timeout") + 1] = "0.2"
    assert main(args) == 1
    assert "without a deck scan (line readers cannot scan" in capsys.readouterr().err

