"""Pure unit tests of the controller core: reconciliation, irregularities, holds, prompts."""

from __future__ import annotations

import pytest

from table_controller.controller.core import TableCore
from table_controller.controller.events import (
    Announcement,
    Applied,
    BoardSeen,
    CardRead,
    DealerCommand,
    DeviceDown,
    DeviceUp,
    HandEnded,
    HandStarted,
    HoldEntered,
    HoldLifted,
    InputError,
    IrregularityRaised,
    Prompt,
    Reply,
    Resolved,
    Tick,
    TraySeen,
    ZoneSeen,
    input_from_dict,
)
from table_controller.controller.irregularities import (
    CardContext,
    Finding,
    IrregularityError,
    IrregularityRules,
)
from table_controller.controller.steps import payouts_text
from table_controller.engine import AwardStep
from table_controller.feeds.messages import check_no_hole_cards, redact
from tests.controller.helpers import DECK, POT_ZONE, Harness, chip_config


def started(n: int = 3, **kw: object) -> Harness:
    h = Harness(**kw)  # type: ignore[arg-type]
    h.seat_players(n)
    h.ok("start")
    return h


def to_flop(h: Harness) -> None:
    """Blinds, six hole cards, everyone calls / checks preflop, collect."""
    h.post_blinds()
    h.deal("Ah", "Kd", "2c", "As", "Kh", "3c")
    h.ok("call", seat=1)
    h.add(1, 100)
    h.ok("call", seat=2)
    h.add(2, 50)
    h.ok("check", seat=3)
    h.collect()


def irregularities(h: Harness, since: int = 0) -> list[IrregularityRaised]:
    return [o for o in h.outputs[since:] if isinstance(o, IrregularityRaised)]


def announcements(h: Harness, kind: str) -> list[Announcement]:
    return [o for o in h.outputs if isinstance(o, Announcement) and o.kind == kind]


# -- a whole hand -------------------------------------------------------------------------------


def test_full_hand_with_chip_sensors_reaches_payouts_and_button() -> None:
    h = started()
    assert h.step() == {"kind": "post", "seat": 2, "post_kind": "small_blind", "amount": 50}
    to_flop(h)
    assert h.step() == {"kind": "burn", "street": "flop"}
    assert h.core.prompt is not None
    assert h.core.prompt.text == "Tap the table, then burn and deal the flop"
    h.deal("9s", "Qc", "Jd", "7h")
    for s in (2, 3, 1):
        h.ok("check", seat=s)
    h.deal("5s", "2d")
    for s in (2, 3, 1):
        h.ok("check", seat=s)
    h.deal("6s", "8d")
    h.ok("bet", seat=2, amount=300)
    h.add(2, 300)
    h.ok("fold", seat=3)
    h.ok("raise", seat=1, to=900)
    h.add(1, 900)
    h.ok("call", seat=2)
    h.add(2, 600)
    h.collect()
    assert h.step() == {"kind": "show", "seat": 1}
    h.push_all()
    ended = [o for o in h.outputs if isinstance(o, HandEnded)]
    assert len(ended) == 1 and not ended[0].voided
    assert ended[0].final_stacks == {1: 9000, 2: 11100, 3: 9900}
    assert [a.text for a in announcements(h, "payouts")] == ["Main pot 2,100 to seat 2"]
    assert [a.text for a in announcements(h, "button")] == ["Move the button to seat 2"]
    assert [a.text for a in announcements(h, "raise")] == ["Seat 2 bets 300",
                                                          "Seat 1 raises to 900"]
    assert [a.text for a in announcements(h, "showdown")] == ["Showdown: seat 1 shows first"]
    assert [a.text for a in announcements(h, "bb_option")] == ["Option to the big blind, seat 3"]
    assert h.step() == {"kind": "start_hand", "button": 2}
    assert not irregularities(h)
    assert h.core.summary()["chips_in_play"] == 30_000


def test_without_chip_sensors_posts_collect_and_pushes_need_confirm() -> None:
    h = started(chips=False)
    assert h.step()["kind"] == "post"
    reply = h.cmd("confirm", prompt=999)
    assert not reply.accepted and "not the current prompt" in reply.reason
    h.post_blinds()
    assert h.step()["kind"] == "deal_hole"
    refused = h.cmd("confirm")
    assert not refused.accepted and "shoe" in refused.reason
    h.deal("Ah", "Kd", "2c", "As", "Kh", "3c")
    h.ok("fold", seat=1)
    h.ok("fold", seat=2)
    h.collect()
    h.push_all()
    ended = [o for o in h.outputs if isinstance(o, HandEnded)]
    assert ended and ended[0].final_stacks == {1: 10_000, 2: 9_950, 3: 10_050}


def test_all_in_and_split_pot_announcements() -> None:
    text = payouts_text([AwardStep(1, 401, {5: 201, 7: 200}, (5,), 0),
                         AwardStep(0, 1250, {3: 1250}, (), 0)])
    assert text == ("Main pot 1,250 to seat 3; side pot 1 401 split seats 5 and 7, "
                    "odd chip to seat 5")
    h = started(chips=False)
    h.post_blinds()
    h.deal("Ah", "Kd", "2c", "As", "Kh", "3c")
    h.ok("all_in", seat=1)
    assert [a.text for a in announcements(h, "all_in")] == ["Seat 1 is all-in"]
    assert [a.text for a in announcements(h, "raise")] == ["Seat 1 raises to 10,000"]


# -- refused commands change nothing ------------------------------------------------------------


@pytest.mark.parametrize("name,args,why", [
    ("call", {"seat": 2}, "seat 1's turn"),
    ("raise", {"seat": 1, "to": 150}, ""),
    ("check", {"seat": 1}, ""),
    ("start", {}, "in progress"),
    ("resume", {}, "not held"),
    ("resolve", {"note": "x"}, "no open irregularity"),
    ("unseat", {"seat": 1}, "in the hand"),
    ("seat", {"seat": 1, "player": "x", "stack": 100}, "taken"),
    ("frobnicate", {}, "unknown command"),
])
def test_refused_command_changes_nothing(name: str, args: dict[str, int], why: str) -> None:
    h = started(chips=False)
    h.post_blinds()
    h.deal("Ah", "Kd", "2c", "As", "Kh", "3c")
    before = h.core.view(secret=True)
    reply = h.cmd(name, **args)
    assert not reply.accepted
    assert why in reply.reason
    assert h.core.view(secret=True) == before


# -- cards --------------------------------------------------------------------------------------


def test_unknown_tag_holds_and_is_not_dealt_until_resolved() -> None:
    h = started()
    h.post_blinds()
    h.deal("Ah")
    n = len(h.outputs)
    h.tag("04DEADBEEF0001")
    irr = irregularities(h, n)
    assert [i.kind for i in irr] == ["unknown_card"] and irr[0].hold
    assert any(isinstance(o, HoldEntered) for o in h.outputs[n:])
    assert h.step()["kind"] == "hold"
    assert h.core.hand is not None and h.core.hand.status().hole_cards[3] == ()
    assert not h.cmd("call", seat=1).accepted
    held_card = h.card("Kd")
    assert [o.kind for o in held_card if isinstance(o, IrregularityRaised)] == ["card_while_held"]
    refused = h.cmd("resume")
    assert not refused.accepted and "resolve irregularity 1" in refused.reason
    h.ok("resolve", irregularity=1, note="foreign card removed")
    h.ok("resume", note="dealing again")
    assert h.step() == {"kind": "deal_hole", "seat": 3, "round": 1}
    h.deal("Qd")
    assert h.core.hand.status().hole_cards[3] == (DECK[next(u for u, c in DECK.items()
                                                            if c.code == "Qd")],)
    assert any(isinstance(o, Resolved) and o.note == "foreign card removed" for o in h.outputs)
    assert any(isinstance(o, HoldLifted) for o in h.outputs)


def test_second_copy_of_a_card_is_a_duplicate_and_holds() -> None:
    h = started()
    h.post_blinds()
    h.deal("Ah", "Kd")
    h.tick(1.0)  # not a reader repeat
    n = len(h.outputs)
    h.card("Ah")
    irr = irregularities(h, n)
    assert [i.kind for i in irr] == ["duplicate_card"]
    assert "Ah" not in irr[0].text and irr[0].secret == {"card": "Ah"}
    assert h.core.held


def test_reader_repeat_is_dropped() -> None:
    h = started()
    h.post_blinds()
    h.feed(CardRead(next(u for u, c in DECK.items() if c.code == "Ah"), 1000))
    out = h.feed(CardRead(next(u for u, c in DECK.items() if c.code == "Ah"), 1100))
    assert out == []
    assert h.step() == {"kind": "deal_hole", "seat": 3, "round": 1}


def test_card_when_none_is_due_holds_and_is_not_applied() -> None:
    # while the blinds are posted (the dealing rules: a card drawn while the betting is open is an
    # extra / premature card, see controller/dealing.py and tests/irregularities)
    h = started()
    before = h.core.hand.status() if h.core.hand else None
    h.card("9s")
    assert [i.kind for i in irregularities(h)] == ["card_not_due"]
    assert h.core.held
    assert h.core.hand is not None and h.core.hand.status().board == before.board == ()  # type: ignore[union-attr]


def test_card_between_hands_is_reported_without_hold() -> None:
    h = Harness()
    h.seat_players(2)
    h.card("Ah")
    irr = irregularities(h)
    assert [i.kind for i in irr] == ["card_between_hands"] and not irr[0].hold
    assert not h.core.held


def test_extension_point_sees_cards_first() -> None:
    class NoAces(IrregularityRules):
        def check_card(self, ctx: CardContext) -> Finding | None:
            if ctx.card.rank == 12:
                return Finding("card_not_due", "an ace (test rule)")
            return None

    h = Harness()
    h.core.rules = NoAces()
    h.seat_players(2)
    h.ok("start")
    h.post_blinds()
    h.card("Ah")
    assert [i.text for i in irregularities(h)] == ["an ace (test rule)"]
    with pytest.raises(IrregularityError):
        Finding("no_such_kind", "x")


# -- chips --------------------------------------------------------------------------------------


def test_chip_difference_after_settle_window_names_zone_expected_sensed() -> None:
    h = started(settle=1.0)
    to_flop(h)
    h.deal("9s", "Qc", "Jd", "7h")
    h.ok("bet", seat=2, amount=300)
    h.add(2, 200)  # short by 100
    assert h.tick(0.5) == []
    assert not h.core.held
    out = h.tick(0.6)
    irr = [o for o in out if isinstance(o, IrregularityRaised)]
    assert len(irr) == 1
    assert irr[0].kind == "chip_difference"
    assert irr[0].data == {"zone": 2, "role": "seat 2", "expected": 300, "sensed": 200}
    assert "seat 2's zone (zone 2) shows 200, expected 300" in irr[0].text
    assert h.core.held
    assert h.tick(5.0) == []  # reported once
    assert not h.cmd("call", seat=3).accepted
    h.add(2, 100)
    h.ok("resolve", note="recounted, 100 added")
    h.ok("resume")
    assert h.tick(2.0) == []
    h.ok("call", seat=3)
    h.add(3, 300)
    assert h.tick(2.0) == []


def test_chips_landing_before_the_command_are_fine() -> None:
    h = started(settle=1.0)
    h.post_blinds()
    h.deal("Ah", "Kd", "2c", "As", "Kh", "3c")
    h.add(1, 100)
    h.tick(0.9)
    h.ok("call", seat=1)
    assert h.tick(3.0) == []
    assert not irregularities(h)


def test_wrong_blind_amount_does_not_post_and_becomes_a_difference() -> None:
    h = started(settle=1.0)
    h.add(2, 40)
    assert h.step()["kind"] == "post"
    out = h.tick(1.5)
    assert [o.data["expected"] for o in out if isinstance(o, IrregularityRaised)] == [0]
    assert [o.data["sensed"] for o in out if isinstance(o, IrregularityRaised)] == [40]


def test_antes_go_to_the_pot_zone() -> None:
    h = started(ante=10)
    assert h.step()["post_kind"] == "ante"
    h.post_blinds()
    assert h.zones[POT_ZONE] == 30
    assert h.step()["kind"] == "deal_hole"


# -- camera -------------------------------------------------------------------------------------


def test_board_checks_each_reported_once() -> None:
    h = started()
    to_flop(h)
    h.board("9s")  # before the shoe drew it
    assert [i.kind for i in irregularities(h)] == ["board_early"]
    h.deal("2h", "9s", "Qc", "Jd")
    n = len(h.outputs)
    h.board("9s", "Qc", "Jd")
    assert irregularities(h, n) == []
    h.board("9s", "Jd", "Qc")
    kinds = [i.kind for i in irregularities(h, n)]
    assert kinds == ["board_wrong_slot", "board_wrong_slot"]
    n = len(h.outputs)
    h.board("9s", "Jd", "Qc")
    assert irregularities(h, n) == []
    h.board("9s", "Qc", "Td")
    assert [i.kind for i in irregularities(h, n)] == ["board_mismatch"]
    n = len(h.outputs)
    h.board("9s", "Qc", "Ah", occluded=(1,))
    irr = irregularities(h, n)
    assert [i.kind for i in irr] == ["exposed_card"]
    assert "Ah" not in irr[0].text and irr[0].secret["card"] == "Ah"
    assert [a.text for a in announcements(h, "exposed_card")] == [
        "Exposed card: a hole card of seat 2 is face up"]
    n = len(h.outputs)
    h.board("8c", "Qc", "Jd", occluded=(0,))
    assert irregularities(h, n) == []
    assert not h.core.held


# -- devices, holds, void -----------------------------------------------------------------------


def test_device_lost_mid_hand_holds_and_between_hands_blocks_start() -> None:
    h = started()
    h.feed(DeviceDown("chips", "unplugged"))
    assert [i.kind for i in irregularities(h)] == ["device_lost"]
    assert h.core.held and h.core.devices["chips"] == "lost"
    h.feed(DeviceDown("chips", "again"))
    assert len(irregularities(h)) == 1
    h.feed(DeviceUp("chips", "back"))
    h.ok("void", reason="chip sensors lost")
    assert not h.core.held and h.core.hand is None
    h.feed(DeviceDown("shoe", "unplugged"))
    refused = h.cmd("start")
    assert not refused.accepted and "shoe" in refused.reason
    h.feed(DeviceUp("shoe", ""))
    h.ok("start")


def test_manual_hold_and_void_give_everything_back() -> None:
    h = started()
    h.post_blinds()
    h.deal("Ah", "Kd")
    h.ok("hold", reason="player dispute")
    assert h.step()["kind"] == "hold"
    assert not h.cmd("confirm").accepted
    reply = h.ok("misdeal", reason="cards exposed")
    assert reply.result["refunds"] == {"2": 50, "3": 100}
    ended = [o for o in h.outputs if isinstance(o, HandEnded)]
    assert ended[-1].voided and ended[-1].final_stacks == {1: 10_000, 2: 10_000, 3: 10_000}
    assert h.step() == {"kind": "start_hand", "button": 1}
    h.ok("start")
    assert [o.number for o in h.outputs if isinstance(o, HandStarted)] == [1, 2]


# -- replay, feeds safety, inputs ---------------------------------------------------------------


def test_replaying_the_inputs_rebuilds_the_exact_state() -> None:
    h = started(settle=1.0)
    to_flop(h)
    h.deal("9s", "Qc", "Jd", "7h")
    h.ok("bet", seat=2, amount=300)
    h.add(2, 250)
    h.tick(2.0)
    h.board("9s", "Qc", "Td")
    h.feed(TraySeen(((1, 5),)))
    fresh = TableCore(h.config, DECK, chip_config(), settle=1.0)
    replayed = []
    for inp, now in h.log:
        rebuilt = input_from_dict(inp.to_dict())
        assert rebuilt == inp
        replayed.extend(fresh.handle(rebuilt, now))
    assert fresh.view(secret=True) == h.core.view(secret=True)
    assert [type(o).__name__ for o in replayed] == h.kinds()


def test_preview_changes_nothing() -> None:
    h = started()
    before = h.core.view(secret=True)
    out = h.core.preview(DealerCommand("void", {"reason": "x"}), h.now)
    assert h.core.view(secret=True) == before
    (reply,) = out
    assert isinstance(reply, Reply) and reply.accepted
    applied = h.core.handle(DealerCommand("void", {"reason": "x"}), h.now)
    assert any(isinstance(o, HandEnded) for o in applied)
    assert [o for o in applied if isinstance(o, Reply)] == [reply]


def test_public_view_and_outputs_never_name_a_hole_card() -> None:
    h = started()
    h.post_blinds()
    h.deal("Ah", "Kd", "2c", "As", "Kh", "3c")
    h.card("Ah")
    h.board("Kd")
    secret = h.core.secret_cards()
    assert secret == {"Ah", "Kd", "2c", "As", "Kh", "3c"}
    check_no_hole_cards(redact(h.core.view()), secret)
    for o in h.outputs:
        if isinstance(o, Prompt | IrregularityRaised | Announcement):
            check_no_hole_cards(redact(o.to_dict()), secret)
        elif isinstance(o, Applied):
            check_no_hole_cards(redact({"text": o.text, **o.data}), secret)


def test_input_from_dict_refuses_garbage() -> None:
    with pytest.raises(InputError):
        input_from_dict({"kind": "nope"})
    with pytest.raises(InputError):
        input_from_dict({"kind": "zone"})
    assert input_from_dict(ZoneSeen(3, ((1, 2),)).to_dict()) == ZoneSeen(3, ((1, 2),))
    assert input_from_dict(BoardSeen(("Ah", None), (1,)).to_dict()) == BoardSeen(("Ah", None),
                                                                                 (1,))
    assert input_from_dict(Tick().to_dict()) == Tick()


def test_show_and_muck_commands_are_ready() -> None:
    h = started(chips=False)
    h.post_blinds()
    h.deal("Ah", "Kd", "2c", "As", "Kh", "3c")
    h.ok("call", seat=1)
    h.ok("call", seat=2)
    h.ok("check", seat=3)
    h.collect()
    h.deal("9s", "Qc", "Jd", "7h")
    for s in (2, 3, 1):
        h.ok("check", seat=s)
    h.deal("5s", "2d")
    for s in (2, 3, 1):
        h.ok("check", seat=s)
    h.deal("6s", "8d")
    for s in (2, 3, 1):
        h.ok("check", seat=s)
    first = h.step()["seat"]
    assert not h.cmd("show", seat=first, cards="Zz").accepted
    h.ok("show", seat=first)
    nxt = h.step()["seat"]
    h.ok("muck", seat=nxt)
    assert any(isinstance(o, Applied) and o.data.get("event") == "muck" for o in h.outputs)


def test_board_irregularity_never_names_a_burn_card() -> None:
    h = started()
    to_flop(h)
    h.deal("2h", "9s", "Qc", "Jd")
    n = len(h.outputs)
    h.board("9s", "Qc", "2h")
    irr = irregularities(h, n)
    assert [i.kind for i in irr] == ["board_mismatch"]
    assert "2h" not in irr[0].text and "2h" not in str(irr[0].data)
    assert irr[0].secret["card"] == "2h"
    check_no_hole_cards(redact(irr[0].to_dict()), h.core.secret_cards())


def test_big_blind_raising_its_option_is_announced() -> None:
    h = started(chips=False)
    h.post_blinds()
    h.deal("Ah", "Kd", "2c", "As", "Kh", "3c")
    h.ok("call", seat=1)
    h.ok("call", seat=2)
    h.ok("raise", seat=3, to=400)
    assert [a.text for a in announcements(h, "bb_raises_option")] == [
        "The big blind, seat 3, raises its option to 400"]


def test_board_card_the_camera_never_shows_is_reported() -> None:
    h = started()
    h.core.camera_window = 1.0
    to_flop(h)
    h.deal("2h", "9s", "Qc", "Jd")
    h.board("9s", None, None, occluded=(2,))
    assert h.core.next_deadline() is not None
    assert h.tick(0.5) == []
    out = h.tick(0.6)
    irr = [o for o in out if isinstance(o, IrregularityRaised)]
    assert [(i.kind, i.data["slot"]) for i in irr] == [("board_missing", 1)]
    assert not h.core.held
    assert h.tick(5.0) == []


def test_stale_card_in_a_slot_is_checked_when_the_card_is_dealt() -> None:
    h = started()
    to_flop(h)
    h.board("Tc", "Td", "Th")  # last hand's flop still on the felt
    n = len(h.outputs)
    h.deal("2h", "9s")
    assert [i.kind for i in irregularities(h, n)] == ["board_mismatch"]


def test_reads_a_device_discarded_hold_the_hand() -> None:
    from table_controller.controller.events import ReadsLost

    h = Harness()
    h.seat_players(2)
    out = h.feed(ReadsLost("shoe", 2))
    assert [o.kind for o in out if isinstance(o, Announcement)] == ["device"]
    h.ok("start")
    h.feed(ReadsLost("shoe", 3))
    irr = irregularities(h)
    assert [(i.kind, i.data["count"]) for i in irr] == [("reads_lost", 3)]
    assert h.core.held
    assert input_from_dict(ReadsLost("shoe", 3).to_dict()) == ReadsLost("shoe", 3)


def test_restart_restarts_the_timers() -> None:
    from table_controller.controller.events import Restarted

    h = started(settle=1.0)
    h.post_blinds()
    h.deal("Ah", "Kd", "2c", "As", "Kh", "3c")
    h.ok("call", seat=1)  # chips never land before the "crash"
    out = h.feed(Restarted(), dt=10.0)
    assert [o.kind for o in out if isinstance(o, Announcement)] == ["restart"]
    assert h.tick(0.5) == []  # a fresh window, not the one from before the restart
    h.add(1, 100)
    assert h.tick(2.0) == []
    assert not irregularities(h)


def test_collection_waits_for_the_report_of_the_last_bet() -> None:
    """A zone still read at 0 (the bet's report not in yet) is not a completed collection."""
    h = started()
    to_flop(h)
    h.deal("9s", "Qc", "Jd", "7h")
    h.ok("bet", seat=2, amount=514)  # the 514 chips are on seat 2's zone, not reported yet
    h.ok("fold", seat=3)
    h.ok("fold", seat=1)
    assert h.step()["kind"] == "collect"  # not completed from the stale 0 on seat 2's zone
    h.add(2, 514)  # the report comes in
    assert h.step()["kind"] == "collect"
    h.zone(2, 0)  # the uncalled bet goes back to the player
    assert h.step()["kind"] == "award"
    h.zone(POT_ZONE, 0)
    assert h.step()["kind"] == "start_hand"
    h.tick(5.0)
    assert not irregularities(h)


def test_push_waits_for_the_pot_zone_to_show_the_pot() -> None:
    """A pot zone still read at 0 (collection confirmed, chips not reported) is not a push."""
    h = started()
    h.post_blinds()
    h.deal("Ah", "Kd", "2c", "As", "Kh", "3c")
    h.ok("raise", seat=1, to=300)
    h.add(1, 300)
    h.ok("fold", seat=2)
    h.ok("fold", seat=3)
    h.ok("confirm")  # the collection, confirmed before the chips' reports came in
    assert h.step()["kind"] == "award"  # the pot zone still reads 0: not pushed
    for z in (1, 2, 3):
        h.zone(z, 0)
    h.zone(POT_ZONE, h.step()["amount"])
    assert h.step()["kind"] == "award"
    h.zone(POT_ZONE, 0)
    assert h.step()["kind"] == "start_hand"


def test_a_board_swept_while_the_pots_are_pushed_is_not_missing() -> None:
    """The camera may see the swept board before the chip sensors show the push done."""
    h = started()
    h.core.camera_window = 1.0
    to_flop(h)
    h.deal("9s", "Qc", "Jd", "7h")
    h.board("Qc", "Jd", "7h")
    h.ok("bet", seat=2, amount=514)
    h.add(2, 514)
    h.ok("fold", seat=3)
    h.ok("fold", seat=1)
    h.zone(2, 0)  # the uncalled bet goes back to the player
    assert h.step()["kind"] == "award"
    h.board(None, None, None)  # swept at the award, the pot not pushed yet
    assert h.tick(5.0) == []  # past every camera window: nothing is missing
    h.zone(POT_ZONE, 0)
    assert h.step()["kind"] == "start_hand"
    assert not irregularities(h)
