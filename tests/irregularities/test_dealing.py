from __future__ import annotations

import copy

import pytest

from table_controller.controller.dealing import DealingRules, ShoeState
from table_controller.controller.events import (
    Applied,
    DealerCommand,
    IrregularityRaised,
    Prompt,
    Resolved,
)
from table_controller.controller.house_rules import HouseRules
from table_controller.engine import Card
from table_controller.errors import ConfigError
from tests.controller.helpers import Harness


def started(rules: DealingRules | None = None) -> Harness:
    h = Harness(chips=False)
    if rules is not None:
        h.core.rules = rules
    h.seat_players(3)
    h.ok("start")
    h.post_blinds()
    return h


def raised(h: Harness) -> list[IrregularityRaised]:
    return [o for o in h.outputs if isinstance(o, IrregularityRaised)]


def test_misdeal_is_refused_after_substantial_action_and_void_still_works() -> None:
    h = started()
    h.deal("Ah", "Kd", "2c", "As", "Kh", "3c")
    h.ok("call", seat=1)
    h.ok("call", seat=2)
    reply = h.cmd("misdeal", reason="late")
    assert not reply.accepted and "substantial action" in reply.reason
    assert h.core.hand is not None  # nothing changed
    assert h.cmd("void", reason="floor").accepted
    assert h.core.hand is None


def test_misdeal_allowed_by_the_house_after_substantial_action() -> None:
    h = started(rules=DealingRules(HouseRules(misdeal_after_substantial_action="allow")))
    h.deal("Ah", "Kd", "2c", "As", "Kh", "3c")
    h.ok("call", seat=1)
    h.ok("call", seat=2)
    assert h.cmd("misdeal", reason="house allows").accepted


def test_exposed_first_card_is_a_misdeal_and_the_card_is_not_named() -> None:
    h = started()
    h.deal("Ah")
    h.ok("exposed", seat=2, round=1)
    irr = raised(h)[-1]
    assert irr.kind == "misdeal" and irr.hold and h.core.held
    assert "Ah" not in irr.text and irr.secret == {"card": "Ah"}
    button = h.core.hand.button if h.core.hand else None
    assert h.ok("misdeal", reason="first card exposed")
    h.ok("start")
    assert h.core.hand is not None and h.core.hand.button == button


def test_house_can_turn_off_the_first_two_rule() -> None:
    h = started(rules=DealingRules(HouseRules(exposed_first_two_misdeal=False)))
    h.deal("Ah")
    h.ok("exposed", seat=2, round=1)
    assert raised(h)[-1].kind == "exposed_hole_card" and not h.core.held


def test_exposed_card_not_dealt_is_refused_and_changes_nothing() -> None:
    h = started()
    h.deal("Ah")
    before = len(h.core.irregularities)
    reply = h.cmd("exposed", seat=3, round=2)
    assert not reply.accepted and "not dealt" in reply.reason
    assert len(h.core.irregularities) == before
    assert not h.cmd("misdealt", what="bogus").accepted
    assert not h.cmd("exposed", seat=2).accepted  # round missing


def test_exposed_card_replaced_after_the_deal_becomes_the_flop_burn() -> None:
    h = started()
    h.deal("Ah", "Kd", "2c", "As")
    h.ok("exposed", seat=1, round=1)  # the third card of the deal: not a misdeal
    h.deal("Kh", "3c")
    assert h.step() == {"kind": "deal_hole", "seat": 1, "round": 1, "replacement": "exposed"}
    h.card("9d")
    hand = h.core.hand
    assert hand is not None and hand.status().hole_cards[1] == (Card.parse("9d"),
                                                               Card.parse("3c"))
    assert any(isinstance(o, Resolved) for o in h.outputs)
    h.ok("call", seat=1)
    h.ok("call", seat=2)
    h.ok("check", seat=3)
    h.ok("confirm")  # collect (no chip sensors)
    # the burn is taken without a draw: the exposed 2c
    burns = [o for o in h.outputs if isinstance(o, Applied) and o.data.get("event") == "burn"]
    assert burns and burns[-1].secret == {"burn": "2c"}
    assert h.step()["kind"] == "board"


def test_preview_and_replay_rebuild_the_rules_state() -> None:
    h = started()
    h.deal("Ah", "Kd", "2c", "As", "Kh", "3c")
    h.card("9d")  # an extra card during the preflop betting
    inputs = [(DealerCommand("call", {"seat": 1}), 10.0), (DealerCommand("call", {"seat": 2}),
                                                            10.1)]
    twin = copy.deepcopy(h.core)
    for inp, now in inputs:
        h.core.handle(inp, now)
        twin.handle(inp, now)
    for core in (h.core, twin):
        core.handle(DealerCommand("check", {"seat": 3}), 10.2)
        core.handle(DealerCommand("confirm", {}), 10.3)
    assert h.core.view(secret=True) == twin.view(secret=True)
    assert h.core.view(secret=True)["burn_cards"] == ["9d"]


def test_shoe_opened_holds_once_and_only_during_a_hand() -> None:
    h = Harness(chips=False)
    h.seat_players(3)
    h.feed(ShoeState(door_open=True))
    assert raised(h) == []
    h.ok("start")
    h.feed(ShoeState(door_open=True))
    h.feed(ShoeState(door_open=True))
    assert [i.kind for i in raised(h)] == ["shoe_opened"]
    assert h.core.held
    prompt = [o for o in h.outputs if isinstance(o, Prompt)][-1]
    assert prompt.step["kind"] == "hold" and "deck is suspect" in prompt.text


def test_house_rules_are_validated() -> None:
    with pytest.raises(ConfigError, match="wrong_seat_misdeal"):
        HouseRules(wrong_seat_misdeal="sometimes")
    with pytest.raises(ConfigError, match="unknown key 'typo'"):
        HouseRules.from_mapping({"typo": 1})
    with pytest.raises(ConfigError, match="exposed_cards_misdeal"):
        HouseRules.from_mapping({"exposed_cards_misdeal": -1})
    assert HouseRules().to_dict()["misdeal_after_substantial_action"] == "refuse"


def test_doctests() -> None:
    import doctest

    import table_controller.controller.house_rules as house
    import table_controller.engine.corrections as corrections

    assert doctest.testmod(corrections).failed == 0
    assert doctest.testmod(house, optionflags=doctest.ELLIPSIS).failed == 0


def test_missed_burn_fix_is_its_own_prompt_and_confirm_completes_it() -> None:
    h = started()
    h.deal("Ah", "Kd", "2c", "As", "Kh", "3c")
    h.ok("call", seat=1)
    h.ok("call", seat=2)
    h.ok("check", seat=3)
    h.ok("confirm")  # collect
    h.deal("9d", "Qc")  # burn (read as the burn), first flop card
    h.board("9d", "Qc")  # the dealer laid the burn card as the first flop card
    kinds = [i.kind for i in raised(h)]
    assert kinds == ["missed_burn"]
    step = h.step()
    assert step["kind"] == "fix_board" and step["board"] == ["Qc"]
    assert "9d" not in str(step) and "9d" not in raised(h)[0].text
    h.ok("confirm")
    assert h.step()["kind"] == "board" and h.step()["slot"] == 1
    assert h.core.irregularities[-1].resolution is not None


def test_missed_burn_after_action_is_left_to_the_board_checks() -> None:
    h = started()
    h.deal("Ah", "Kd", "2c", "As", "Kh", "3c")
    h.ok("call", seat=1)
    h.ok("call", seat=2)
    h.ok("check", seat=3)
    h.ok("confirm")
    h.deal("9d", "Qc", "Jd", "4h")
    h.ok("check", seat=2)
    h.board("9d", "Qc", "Jd")
    assert [i.kind for i in raised(h)] != ["missed_burn"]
    assert "missed_burn" not in [i.kind for i in raised(h)]


def test_take_back_board_refuses_other_inputs() -> None:
    from table_controller.engine.corrections import take_back_board
    from table_controller.errors import RuleError

    h = started()
    h.deal("Ah", "Kd")
    hand = h.core.hand
    assert hand is not None
    n = len(hand.log)
    with pytest.raises(RuleError, match="not all board cards"):
        take_back_board(hand, 1)
    assert len(hand.log) == n


def test_a_remedy_the_hand_never_reached_is_still_recorded() -> None:
    h = started()
    h.deal("Ah", "Kd", "2c", "As", "Kh", "3c")
    h.card("9d")  # extra card: would be the flop burn
    h.ok("fold", seat=1)
    h.ok("fold", seat=2)  # seat 3 wins the blinds: no flop
    h.ok("confirm")  # collect / push without chip sensors
    while h.core.hand is not None:
        h.ok("confirm")
    extra = [i for i in h.core.irregularities if i.kind == "extra_card"]
    assert extra and extra[0].resolution == "the hand ended before the remedy was needed"


def test_house_rules_come_from_the_table_configuration() -> None:
    from pathlib import Path

    from table_controller.config import loads_config
    from table_controller.daemon import build_core

    examples = Path(__file__).resolve().parents[2] / "examples"
    text = (examples / "table.toml").read_text()
    cfg = loads_config(text + '\n[house_rules]\nwrong_seat_misdeal = "any_card"\n',
                       base_dir=examples)
    assert cfg.house_rules is not None and cfg.house_rules.wrong_seat_misdeal == "any_card"
    assert loads_config(text, base_dir=examples).house_rules is None
    with pytest.raises(ConfigError, match="house_rules: unknown key 'wrong_seat'"):
        loads_config(text + "\n[house_rules]\nwrong_seat = 1\n", base_dir=examples)
    with pytest.raises(ConfigError, match="house_rules: must be a table"):
        loads_config("house_rules = 3\n" + text, base_dir=examples)
    rules = build_core(cfg).rules
    assert isinstance(rules, DealingRules) and rules.house.wrong_seat_misdeal == "any_card"


@pytest.mark.parametrize("rule, refused", [("tda", False), ("rrop", True)])
def test_two_folds_are_substantial_action_only_under_roberts_rules(rule: str,
                                                                   refused: bool) -> None:
    h = Harness(chips=False)
    h.core.rules = DealingRules(HouseRules(substantial_action=rule))
    h.seat_players(4)
    h.ok("start")
    h.post_blinds()
    h.deal("Ah", "Kd", "2c", "3c", "As", "Kh", "7d", "8d")
    first = h.step()["seat"]
    h.ok("fold", seat=first)
    h.ok("fold", seat=h.step()["seat"])
    reply = h.cmd("misdeal", reason="button in the wrong place")
    assert reply.accepted is not refused


def test_a_card_misread_twice_is_not_a_doubled_burn() -> None:
    h = started()
    h.deal("Ah", "Kd", "2c", "As", "Kh", "3c")
    h.ok("call", seat=1)
    h.ok("call", seat=2)
    h.ok("check", seat=3)
    h.ok("confirm")
    h.deal("9d", "Qc", "Jd")
    h.board("Jd", "Jd")  # the recognizer reads slot 1's Qc as Jd
    assert "doubled_burn" not in [i.kind for i in raised(h)]
    assert h.step()["kind"] == "board"


def test_a_boxed_burn_card_is_replaced_after_the_floor_lets_play_go_on() -> None:
    h = started()
    h.deal("Ah", "Kd", "2c", "As", "Kh", "3c")
    h.ok("call", seat=1)
    h.ok("call", seat=2)
    h.ok("check", seat=3)
    h.ok("confirm")
    h.deal("9d")  # the burn, found face up in the deck
    h.ok("boxed")
    assert [i.kind for i in raised(h)] == ["boxed_card"] and h.core.held
    assert not h.cmd("call", seat=1).accepted  # held
    h.ok("resolve", note="deck checked, play on")
    h.ok("resume")
    assert h.step() == {"kind": "burn", "street": "flop", "replacement": "boxed"}
    h.card("8d")
    burns = h.core.view(secret=True)["burn_cards"]
    hand = h.core.hand
    assert hand is not None and [c.new for c in hand.corrections] == [Card.parse("8d")]
    assert burns == ["8d"]
    assert h.step() == {"kind": "board", "street": "flop", "slot": 0}


@pytest.mark.parametrize("choice, kind", [("premature_flop", "premature_flop"),
                                          ("misdeal", "misdeal")])
def test_two_cards_after_the_deal_follow_the_house_choice(choice: str, kind: str) -> None:
    h = Harness(chips=False)
    h.core.rules = DealingRules(HouseRules(extra_cards_after_deal=choice))
    h.seat_players(3)
    h.ok("start")
    h.post_blinds()
    h.deal("Ah", "Kd", "2c", "As", "Kh", "3c")
    h.card("9d")
    h.card("8d")
    assert [i.kind for i in raised(h)] == ["extra_card", kind]
    assert h.core.held is (kind == "misdeal")


def test_shoe_state_round_trips_through_the_journal_form() -> None:
    from hardware.base import ShoeStatus
    from table_controller.controller.events import input_from_dict
    from table_controller.daemon import device_input

    inp = device_input("shoe", ShoeStatus(door_open=True, empty=False, jam=False))
    assert inp == ShoeState(door_open=True, empty=False)
    assert input_from_dict(inp.to_dict()) == inp


def test_redeal_after_a_misdeal_keeps_the_button_blinds_and_seats_tda_35c() -> None:
    """TDA 2024 rule 35-C: the re-deal is an exact replay; nobody new is dealt in."""
    h = started()
    first = h.core.hand
    assert first is not None
    h.ok("seat", seat=4, player="latecomer", stack=10_000, post="now")
    h.ok("misdeal", reason="first card exposed")
    assert h.step() == {"kind": "start_hand", "button": first.button}
    reply = h.ok("start")
    again = h.core.hand
    assert again is not None and reply.result["seats"] == list(first.seats) == [1, 2, 3]
    assert (again.button, again.sb_seat, again.bb_seat) == (first.button, first.sb_seat,
                                                             first.bb_seat)


def test_seat_and_sit_in_take_the_post_choice() -> None:
    """Robert's Rules of Poker, Button and Blind Use: wait for the big blind, or post now."""
    h = started()
    assert h.ok("seat", seat=5, player="p5", stack=10_000, post="now").result["post"] == "now"
    assert h.core.table.status().seats[5].wants_to_post
    assert h.ok("seat", seat=6, player="p6", stack=10_000).result["post"] == "wait"
    assert not h.cmd("seat", seat=4, player="p4", stack=10_000, post="soon").accepted
    h.ok("sit_out", seat=6)
    assert h.ok("sit_in", seat=6, post="now").result == {"seat": 6, "post": "now"}
    assert h.core.table.status().seats[6].wants_to_post
    assert not h.cmd("sit_in", seat=6, post="maybe").accepted


def test_a_deal_started_at_the_wrong_seat_is_a_misdeal_after_the_first_card() -> None:
    """TDA 2024 rule 35-A-2; Robert's Rules of Poker v11, Misdeals 1(h)."""
    h = started()
    h.deal("Ah", "Kd", "2c", "As")  # four cards out before anyone noticed
    reply = h.ok("misdealt", what="wrong_start")
    assert reply.result["kind"] == "misdeal"


def test_a_later_card_to_the_wrong_seat_follows_the_house_rule() -> None:
    """TDA 2024 rule 35-A-2 names only the first card (the default); Robert's Rules of Poker
    v11, Misdeals 1(f), any card (``any_card``)."""
    h = started()
    h.deal("Ah", "Kd", "2c")
    assert h.ok("misdealt", what="wrong_seat", seat=2).result["kind"] == "no_misdeal"
    h = started(rules=DealingRules(HouseRules(wrong_seat_misdeal="any_card")))
    h.deal("Ah", "Kd", "2c")
    assert h.ok("misdealt", what="wrong_seat", seat=2).result["kind"] == "misdeal"


def test_a_wrong_start_after_substantial_action_is_no_misdeal() -> None:
    """TDA 2024 rule 35-D / 36: after substantial action the hand goes on."""
    h = started()
    h.deal("Ah", "Kd", "2c", "As", "Kh", "3c")
    h.ok("call", seat=h.step()["seat"])
    h.ok("call", seat=h.step()["seat"])
    assert h.ok("misdealt", what="wrong_start").result["kind"] == "no_misdeal"


@pytest.mark.parametrize("choice, ante_first", [("blind", False), ("ante", True)])
def test_short_big_blind_priority_is_a_house_option(choice: str, ante_first: bool) -> None:
    """TDA 2024 rule 2: the blind first (the default); TDA 2019 rule 2: the ante first."""
    assert HouseRules().short_bb_priority == "blind"
    assert HouseRules(short_bb_priority=choice).table_options()["bb_ante_first"] is ante_first


def test_all_in_hands_tabled_is_a_house_option_and_reaches_the_table() -> None:
    """TDA 2024 rule 16 (the default) or Robert's Rules of Poker v11, Showdown (in order)."""
    from pathlib import Path

    from table_controller.config import loads_config
    from table_controller.daemon.setup import table_config

    examples = Path(__file__).resolve().parents[2] / "examples"
    text = (examples / "table.toml").read_text()
    assert table_config(loads_config(text, base_dir=examples)).table_all_ins
    cfg = loads_config(text + '\n[house_rules]\nall_in_hands = "in_order"\n'
                       'short_bb_priority = "ante"\n', base_dir=examples)
    table = table_config(cfg)
    assert not table.table_all_ins and table.bb_ante_first
    with pytest.raises(ConfigError, match="all_in_hands"):
        HouseRules(all_in_hands="never")
