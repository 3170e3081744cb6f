from __future__ import annotations

import dataclasses

from rich.console import Console

from table_controller.displays.render import card_text, render, render_floor
from table_controller.displays.view import apply_message, view_from_state

STATE = {
    "table": "T1", "name": "Hold'em table 1", "hand": 12, "street": "flop", "button": 3,
    "seats": {
        "1": {"player": "Ann", "stack": 9_850, "bet": 0, "hole_cards": ["??", "??"]},
        "3": {"player": "Cy", "stack": 4_200, "bet": 300, "hole_cards": ["??", "??"]},
        "5": {"player": "Ed", "stack": 0, "all_in": True, "hole_cards": ["??", "??"]},
        "7": {"player": "Gus", "stack": 2_000, "folded": True},
    },
    "board": ["Ah", "Td", "7c", None, None],
    "pots": [{"amount": 1_200, "eligible": [1, 3, 5]}, {"amount": 400, "eligible": [1, 3]}],
    "to_act": 1,
    "prompt": {"id": 41, "text": "Seat 1 to act: fold, call 300, or raise to 600–9,850",
               "step": {"kind": "act", "seat": 1}},
    "devices": {"shoe": "ok", "chips": "ok", "camera": "stale"},
}


def text_of(renderable: object, width: int = 100) -> str:
    console = Console(record=True, width=width, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_state_is_read_into_a_view() -> None:
    v = view_from_state(STATE)
    assert v.hand == 12 and v.stage == "flop" and v.button == 3 and v.to_act == 1
    assert [s.seat for s in v.seats] == [1, 3, 5, 7]
    assert v.seats[1].bet == 300 and v.seats[2].all_in and v.seats[3].folded
    assert v.seats[0].has_cards and not v.seats[3].has_cards
    assert v.pot_total == 1_900
    assert v.prompt is not None and v.prompt.id == 41 and v.prompt.seat == 1
    assert dict(v.devices)["camera"] == "stale"


def test_engine_status_shape_is_read_too() -> None:
    state = {"hand": {"number": 4, "phase": "betting", "street": "turn", "seats": [2, 4],
                      "stacks": {"2": 500, "4": 700}, "bets": {"4": 100}, "folded": [],
                      "all_in": [], "hole_cards": {"2": ["??", "??"], "4": ["??", "??"]},
                      "board": ["2c", "3c", "4c", "5c"], "to_act": 2,
                      "pots": [{"amount": 300, "eligible": [2, 4]}],
                      "expected": "Seat 2 to act: fold, call 100, or raise to 200–500"}}
    v = view_from_state(state)
    assert v.hand == 4 and v.stage == "turn" and v.to_act == 2
    assert [(s.seat, s.stack, s.bet) for s in v.seats] == [(2, 500, 0), (4, 700, 100)]
    assert v.expected_next.startswith("Seat 2 to act")


def test_bad_feed_data_never_raises() -> None:
    for junk in ({}, {"seats": 3}, {"seats": {"x": 1, "2": "y"}}, {"pots": ["a", {}]},
                 {"hand": "twelve", "board": "AhKd", "devices": [1]}, {"prompt": 5}):
        v = view_from_state(junk)
        text_of(render("public", [v]))
        text_of(render("dealer", [v]))


def test_public_screen_shows_the_table_and_never_hole_cards() -> None:
    v = view_from_state(STATE)
    out = text_of(render("public", [v]))
    assert "hand #12" in out and "flop" in out
    assert "A♥" in out and "10♦" in out and "7♣" in out
    assert "main 1,200" in out and "side 1 400" in out
    assert "Ann" in out and "9,850" in out and "TO ACT" in out and "ALL-IN" in out
    assert "▒▒ ▒▒" in out
    assert "raise to" not in out  # the prompt is for the dealer


def test_dealer_screen_shows_the_prompt_big() -> None:
    v = view_from_state(STATE)
    out = text_of(render("dealer", [v]))
    assert "SEAT 1 TO ACT: FOLD, CALL 300, OR RAISE TO 600–9,850" in out
    assert "prompt 41" in out


def test_messages_update_the_view() -> None:
    v = view_from_state(STATE)
    v = apply_message(v, "prompt", {"id": 42, "text": "Burn and deal the turn",
                                    "step": {"kind": "burn"}}, seq=5)
    assert v.prompt is not None and v.prompt.kind == "burn" and v.seq == 5
    v = apply_message(v, "irregularity", {"kind": "exposed_card", "text": "seat 3 card exposed"})
    v = apply_message(v, "hold", {"reason": "chip count does not match"})
    assert v.on_hold and v.alerts[-1].startswith("HOLD")
    out = text_of(render("dealer", [v]))
    assert "TABLE ON HOLD" in out and "exposed_card" in out
    v = apply_message(v, "resume", {})
    assert not v.on_hold
    v = apply_message(v, "device", {"device": "shoe", "link": "lost"})
    assert dict(v.devices)["shoe"] == "lost"
    v = apply_message(v, "announcement", {"text": "Seat 3 raises to 900"})
    assert v.announcements[-1] == "Seat 3 raises to 900"
    v = apply_message(v, "update", {"state": {**STATE, "hand": 13}})
    assert v.hand == 13 and v.announcements[-1] == "Seat 3 raises to 900"


def test_connection_lost_banner() -> None:
    v = dataclasses.replace(view_from_state(STATE), connection="lost")
    assert "CONNECTION LOST" in text_of(render("public", [v]))
    assert "CONNECTION LOST" in text_of(render("dealer", [v]))


def test_floor_shows_one_line_per_table() -> None:
    a = view_from_state(STATE, table="T1")
    b = apply_message(view_from_state({**STATE, "table": "T2", "hand": 3}), "hold",
                      {"reason": "shoe unplugged"})
    c = dataclasses.replace(view_from_state({"table": "T3"}), connection="lost")
    out = text_of(render_floor([c, b, a]), width=120)
    lines = [ln for ln in out.splitlines() if ln.strip().startswith("T")]
    assert [ln.split()[0] for ln in lines] == ["T1", "T2", "T3"]
    assert "HOLD shoe unplugged" in out and "camera:stale" in out and "lost" in out
    assert "3 tables · 1 on hold · 1 not heard from" in out
    assert "1 table · 0 on hold" in text_of(render_floor([a]), width=120)


def test_cards() -> None:
    assert card_text("Ah").plain == "A♥" and card_text("Tc").plain == "10♣"
    assert card_text("??").plain == "▒▒" and card_text(None).plain == "··"


def test_the_same_line_is_not_announced_twice_in_a_row() -> None:
    v = view_from_state(STATE)
    for mtype in ("event", "announcement"):
        v = apply_message(v, mtype, {"text": "Main pot 300 to seat 2"})
    assert v.announcements.count("Main pot 300 to seat 2") == 1


def test_dealer_screen_shows_device_health_and_between_hands() -> None:
    v = view_from_state({**STATE, "hand": None, "hands_played": 7})
    out = text_of(render("dealer", [v]))
    assert "7 hands played" in out and "camera: stale" in out


def test_a_stale_last_announcement_does_not_come_back() -> None:
    v = view_from_state({**STATE, "last_announcement": {"text": "Seat 2 raises to 624"}})
    assert v.announcements == ("Seat 2 raises to 624",)
    v = apply_message(v, "event", {"text": "Seat 2 checks"})
    v = apply_message(v, "table_state", {**STATE, "last_announcement":
                                         {"text": "Seat 2 raises to 624"}})
    assert v.announcements == ("Seat 2 raises to 624", "Seat 2 checks")


def test_hole_cards_never_reach_a_screen_even_if_the_feed_carried_them() -> None:
    leaky = {**STATE, "seats": {"1": {"player": "Ann", "stack": 100, "hole_cards": ["Qs", "Jd"]}},
             "hole_cards": {"1": ["Qs", "Jd"]}}
    v = view_from_state(leaky)
    for role in ("public", "dealer"):
        out = text_of(render(role, [v]))
        assert "Q♠" not in out and "J♦" not in out and "▒▒ ▒▒" in out
    shown = view_from_state({**leaky, "shown": {"1": ["Qs", "Jd"]}})
    assert "Q♠ J♦" in text_of(render("public", [shown]))  # tabled at the showdown: public


def test_floor_shows_open_irregularities_not_resolved_ones() -> None:
    v = apply_message(view_from_state(STATE), "irregularity",
                      {"kind": "unknown_card", "text": "Tag 04AB is not in the deck"})
    assert "unknown_card" in text_of(render_floor([v]), width=120)
    v = apply_message(v, "table_state", {**STATE, "irregularities": []})
    assert "unknown_card" not in text_of(render_floor([v]), width=120)
    v = apply_message(v, "table_state", {**STATE, "irregularities": [
        {"id": 1, "kind": "board_early", "text": "A card is in board slot 4 early"},
        {"id": 2, "kind": "exposed_card", "text": "A hole card is face up"}]})
    assert "A hole card is face up (+1 more)" in text_of(render_floor([v]), width=140)


def test_players_are_told_plain_words_while_the_table_is_held() -> None:
    v = view_from_state(STATE)
    v = apply_message(v, "irregularity", {"kind": "chip_difference", "hold": True,
                                          "text": "seat 2's zone (zone 2) shows 0, expected 50"})
    v = apply_message(v, "hold", {"reason": "seat 2's zone (zone 2) shows 0, expected 50 "
                                            "(irregularity 2)", "irregularity": 2})
    public = text_of(render("public", [v]))
    assert "Please wait: the dealer is checking the chips" in public
    for internal in ("zone", "irregularity", "expected 50", "TABLE ON HOLD"):
        assert internal not in public
    # the dealer still reads what is wrong
    assert "TABLE ON HOLD" in text_of(render("dealer", [v]))
    v = apply_message(v, "resume", {"note": "recounted"})
    assert "Please wait" not in text_of(render("public", [v]))


def test_a_hold_of_unknown_kind_calls_the_floor_in_players_words() -> None:
    v = apply_message(view_from_state(STATE), "hold", {"reason": "dealer called the floor"})
    assert "Please wait: the floor has been called to the table" in text_of(
        render("public", [v]))


def test_hold_kinds_come_from_the_snapshot_too() -> None:
    v = view_from_state({**STATE, "holds": ["x"], "irregularities": [
        {"id": 4, "kind": "duplicate_card", "text": "t", "hold": True, "resolved": False},
        {"id": 5, "kind": "board_mismatch", "text": "t", "hold": False, "resolved": False}]})
    assert v.hold_kinds == ("duplicate_card",)
    assert "the dealer is checking the deck" in text_of(render("public", [v]))


def test_render_doctests() -> None:
    import doctest

    import table_controller.displays.live as live
    import table_controller.displays.render as module
    import table_controller.displays.view as view

    assert doctest.testmod(module).failed == 0
    assert doctest.testmod(live).failed == 0
    assert doctest.testmod(view).failed == 0


def test_floor_shows_the_shipping_line_of_the_tables_that_ship() -> None:
    plain = text_of(render_floor([view_from_state(STATE, table="T1")]), width=140)
    assert "journal" not in plain  # no table ships: no column
    body = {"status": "caught_up", "behind": 0, "local_seq": 90, "shipped_seq": 90,
            "last_shipped_at": 5.0, "error": "", "updated_at": 6.0}
    a = view_from_state({**STATE, "table": "T1", "shipping": body})  # from the snapshot
    b = apply_message(view_from_state({**STATE, "table": "T2"}), "shipping",
                      {**body, "status": "retrying", "behind": 412, "error": "refused"})
    c = view_from_state({**STATE, "table": "T3"})  # does not ship
    out = text_of(render_floor([c, b, a]), width=170)
    lines = {ln.split()[0]: ln for ln in out.splitlines() if ln.strip().startswith("T")}
    head = next(ln for ln in out.splitlines() if "alerts / holds" in ln)
    assert head.rstrip().endswith("journal")
    assert lines["T1"].rstrip().endswith("caught up")
    assert lines["T2"].rstrip().endswith("store unreachable, retrying · 412 behind")
    assert lines["T3"].rstrip().endswith("—")
    assert "3 tables · 0 on hold · 0 not heard from · 1 not shipping" in out
    # a later table_state keeps it; a new shipping message moves it
    b = apply_message(b, "table_state", {**STATE, "table": "T2"})
    assert b.shipping is not None and b.shipping["behind"] == 412
    b = apply_message(b, "shipping", {**body, "behind": 0, "shipped_seq": 502})
    assert "not shipping" not in text_of(render_floor([a, b]), width=170)


def test_the_floor_fits_an_80_or_100_column_terminal_by_wrapping_not_cutting() -> None:
    body = {"status": "retrying", "behind": 41_200, "error": "refused"}
    held = apply_message(view_from_state({**STATE, "table": "T1", "shipping": body}), "hold",
                         {"reason": "seat 3's zone shows 150, expected 100"})
    calm = view_from_state({**STATE, "table": "T2", "shipping": {**body, "status": "caught_up",
                                                                  "behind": 0}})
    for width in (80, 100):
        out = text_of(render_floor([held, calm]), width=width)
        assert max(len(ln) for ln in out.splitlines()) <= width, out
        words = set(out.split())  # each word whole, on some line
        for shown in ("feed", "journal", "live", "caught", "store", "unreachable,",
                      "retrying", "41,200", "behind", "camera:stale", "HOLD", "expected"):
            assert shown in words, (width, shown, out)


def test_every_irregularity_kind_has_words_for_the_players() -> None:
    """Players are told something plain for every kind the controller can hold the table on."""
    import table_controller.controller.core
    import table_controller.controller.dealing_kinds  # noqa: F401
    from table_controller.controller.irregularities import KINDS
    from table_controller.displays.render import PLAYER_WORDS

    assert sorted(set(KINDS) - set(PLAYER_WORDS)) == []
