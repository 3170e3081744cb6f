"""PHH reading, mapping onto our engine, replay, and the property tests (writing and the TOML
readers: ``tests/test_phh_writer.py``, ``tests/test_phh_toml.py``)."""

from __future__ import annotations

import contextlib
import random
import warnings
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.bench_engine import play_ours, random_spec
from table_controller import phh
from table_controller.engine import ActStep, AwardStep, Card, Hand, PostKind, PostStep
from table_controller.phh import (
    HandHistory,
    PhhAction,
    PhhError,
    ReplayError,
    dumps,
    hand_config,
    history_from_hand,
    loads,
    parse_action,
    play,
    replay,
)

DATA = Path(__file__).parent / "data" / "phh"

HEADER = (
    'variant = "NT"\nantes = {antes}\nblinds_or_straddles = {blinds}\nmin_bet = {min_bet}\n'
    "starting_stacks = {stacks}\n"
)


def make(actions: list[str], *, stacks: str = "[1000, 1000, 1000]", antes: str = "[0, 0, 0]",
         blinds: str = "[5, 10, 0]", min_bet: int = 10, extra: str = "") -> str:
    text = HEADER.format(antes=antes, blinds=blinds, min_bet=min_bet, stacks=stacks)
    return text + "actions = " + repr(actions).replace("'", '"') + "\n" + extra


# --------------------------------------------------------------------------------------------
# Reading


def test_reads_the_dwan_ivey_hand() -> None:
    hh = phh.load(DATA / "dwan-ivey-2009.phh")
    assert hh.player_count == 3
    assert hh.antes == (500, 500, 500)
    assert hh.blinds_or_straddles == (1000, 2000, 0)
    assert hh.ante_trimming_status is True
    assert hh.finishing_stacks is None
    assert hh.players == ("Phil Ivey", "Patrik Antonius", "Tom Dwan")
    assert hh.actions[1] == PhhAction(0, 2, "dh", (None, None), text="d dh p2 ????")
    assert hh.extra["year"] == 2009


def test_pluribus_fractional_finishing_stacks_kept_exactly() -> None:
    hh = phh.load(DATA / "pluribus" / "32" / "23.phh")
    assert hh.finishing_stacks is not None
    assert Decimal("10387.5") in hh.finishing_stacks


@pytest.mark.parametrize(
    ("text", "verb", "player", "amount"),
    [
        ("p3 f", "f", 3, None),
        ("p1 cc", "cc", 1, None),
        ("p2 cbr 300", "cbr", 2, 300),
        ("p2   cbr   300  # a raise", "cbr", 2, 300),
        ("p1 sm", "sm", 1, None),
        ("p1 sm -", "sm", 1, None),
        ("p1 sm AhKd", "sm", 1, None),
        ("d dh p3 ????", "dh", 3, None),
        ("d db Jc3d5c", "db", 0, None),
    ],
)
def test_parse_action(text: str, verb: str, player: int, amount: int | None) -> None:
    action = parse_action(text, 3)
    assert action is not None
    assert (action.verb, action.player, action.amount) == (verb, player, amount)


def test_parse_action_reads_hole_cards_alike_however_written() -> None:
    """``d dh pN CCCC`` as PHH writes it (the commonest action) reads as any other spelling."""
    from table_controller.phh.reader import clear_action_cache

    clear_action_cache()
    plain = parse_action("d dh p2 AhKd", 3)
    assert plain == parse_action("d  dh\tp2 AhKd  # x", 3)
    assert plain is not None and (plain.player, plain.verb, plain.text) == (2, "dh", "d dh p2 AhKd")
    assert plain.cards == (Card.parse("Ah"), Card.parse("Kd"))
    assert parse_action("d dh p3 ??Kd", 3).cards == (None, Card.parse("Kd"))  # type: ignore[union-attr]
    assert parse_action("d dh p3 ahkd", 3).cards == (Card.parse("Ah"), Card.parse("Kd"))  # type: ignore[union-attr]
    assert parse_action("d dh p3 Ah#d", 3).cards == (Card.parse("Ah"),)  # type: ignore[union-attr]
    for text, count in (("d dh p3 AhKd", 2), ("d dh p0 AhKd", 3), ("d dh p3 AhK ", 3),
                        ("d dh p3 1hKd", 3)):
        with pytest.raises(PhhError):
            parse_action(text, count)


def test_parse_action_no_ops() -> None:
    assert parse_action("", 3) is None
    assert parse_action("   # Burn card 6s is exposed", 3) is None


@pytest.mark.parametrize(
    "text",
    ["p4 f", "q1 f", "p1 x", "p1 cbr", "p1 cbr -5", "p1 cbr 1.5", "p1 f now",
     "d db ??Ah2c", "d xx", "p1 dh AhKd", "d dh p1 AhKx", "p1 sm Ah Kd"],
)
def test_bad_actions_are_refused(text: str) -> None:
    with pytest.raises(PhhError):
        parse_action(text, 3)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (('variant = "NT"', 'variant = "FT"'), "variant"),
        (("starting_stacks = [1000, 1000, 1000]", "starting_stacks = [1000]"),
         "starting_stacks"),
        (("starting_stacks = [1000, 1000, 1000]", "starting_stacks = [1000, 0, 1000]"),
         "starting_stacks"),
        (("antes = [0, 0, 0]", "antes = [0, 0]"), "antes"),
        (("antes = [0, 0, 0]", "antes = [0, -1, 0]"), "antes"),
        (("min_bet = 10\n", ""), "min_bet"),
        (("actions = ", "actionz = "), "actions"),
        (("starting_stacks = [1000, 1000, 1000]", "starting_stacks = [1000, inf, 1000]"),
         "starting_stacks"),
        (("starting_stacks = [1000, 1000, 1000]", "starting_stacks = [1000, 10.5, 1000]"),
         "starting_stacks"),
        (("variant", "variant = = "), "toml"),
    ],
)
def test_bad_files_are_refused_naming_the_field(change: tuple[str, str], field: str) -> None:
    text = make(["d dh p1 AhKd"]).replace(*change, 1)
    with pytest.raises(PhhError) as info:
        loads(text)
    assert info.value.field.startswith(field)


def test_finishing_stacks_and_players_must_match_player_count() -> None:
    with pytest.raises(PhhError, match="finishing_stacks"):
        loads(make([], extra="finishing_stacks = [1, 2]\n"))
    with pytest.raises(PhhError, match="players"):
        loads(make([], extra='players = ["a"]\n'))


# --------------------------------------------------------------------------------------------
# Mapping onto our engine


def test_mapping_three_players() -> None:
    config, seats = hand_config(loads(make([])))
    assert seats == (1, 2, 3)
    assert config.button == 3
    assert (config.small_blind, config.big_blind, config.ante, config.bb_ante) == (5, 10, 0, 0)


def test_mapping_heads_up_button_posts_small_blind() -> None:
    hh = loads(make(["d dh p1 AhAd", "d dh p2 KhKd", "p2 f"], stacks="[100, 100]",
                    antes="[0, 0]", blinds="[1, 2]", min_bet=2))
    config, _ = hand_config(hh)
    assert config.button == 2
    hand = play(hh)
    posts = {r.step.kind: r.step.seat for r in hand.log if isinstance(r.step, PostStep)}
    assert posts[PostKind.SMALL_BLIND] == 2  # p2 holds the button and posts the small blind
    assert posts[PostKind.BIG_BLIND] == 1
    assert dict(hand.status().stacks) == {1: 101, 2: 99}


def test_mapping_big_blind_ante_heads_up_and_full_ring() -> None:
    hu = loads(make([], stacks="[100, 100]", antes="[0, 3]", blinds="[1, 2]", min_bet=2))
    assert hand_config(hu)[0].bb_ante == 3
    ring = loads(make([], antes="[0, 120, 0]"))
    config = hand_config(ring)[0]
    assert (config.ante, config.bb_ante) == (0, 120)
    both = loads(make([], antes="[5, 15, 5]"))
    config = hand_config(both)[0]
    assert (config.ante, config.bb_ante) == (5, 10)


@pytest.mark.parametrize(
    ("antes", "blinds", "min_bet", "field"),
    [
        ("[0, 0, 0]", "[0, 10, 20]", 10, "blinds_or_straddles"),  # a straddle needs both blinds
        ("[0, 0, 0]", "[0, 0, 0]", 10, "blinds_or_straddles"),
        ("[0, 0, 0]", "[20, 10, 0]", 10, "blinds_or_straddles"),
        ("[0, 0, 0]", "[5, 10, 0]", 20, "min_bet"),
        ("[0, 0, 7]", "[5, 10, 0]", 10, "antes"),
        ("[3, 2, 3]", "[5, 10, 0]", 10, "antes"),
    ],
)
def test_unsupported_structures_are_refused(antes: str, blinds: str, min_bet: int,
                                            field: str) -> None:
    with pytest.raises(PhhError) as info:
        hand_config(loads(make([], antes=antes, blinds=blinds, min_bet=min_bet)))
    assert info.value.field == field


def test_heads_up_needs_both_blinds() -> None:
    with pytest.raises(PhhError, match="blinds_or_straddles"):
        hand_config(loads(make([], stacks="[100, 100]", antes="[0, 0]", blinds="[5, 0]",
                               min_bet=5)))


def test_ante_above_stack_needs_trimming() -> None:
    text = make([], stacks="[1000, 1000, 3]", antes="[5, 5, 5]")
    with pytest.raises(PhhError, match="ante_trimming_status"):
        hand_config(loads(text))
    hand_config(loads("ante_trimming_status = true\n" + text))


def test_seats_field_maps_to_our_seats() -> None:
    hh = loads(make(["d dh p1 AhAd", "d dh p2 KhKd", "d dh p3 2c2d", "p3 f", "p1 f"],
                    extra="seats = [7, 9, 2]\n"))
    config, seats = hand_config(hh)
    assert seats == (7, 9, 2)
    assert config.button == 2
    hand = play(hh)
    assert dict(hand.status().stacks) == {7: 995, 9: 1005, 2: 1000}


@pytest.mark.parametrize("seats", ["[1, 1, 2]", "[3, 2, 1]", "[0, 1, 2]", "[1, 3, 11]"])
def test_bad_seats_are_refused(seats: str) -> None:
    with pytest.raises(PhhError, match="seats"):
        hand_config(loads(make([], extra=f"seats = {seats}\n")))


# --------------------------------------------------------------------------------------------
# Replay


def test_dwan_ivey_replays_with_showdown_before_the_river() -> None:
    hand = play(phh.load(DATA / "dwan-ivey-2009.phh"))
    # Dwan's straight (7h6h on Jc 3d 5c 4h Jh) beats Ivey's pair: Dwan doubles through.
    assert dict(hand.status().stacks) == {1: 572100, 2: 1997500, 3: 1109500}


def test_replay_of_every_repo_hand_matches_or_is_an_odd_chip_difference() -> None:
    statuses: dict[str, int] = {}
    for path in phh.iter_paths([DATA]):
        result = replay(phh.load(path))
        statuses[result.status] = statuses.get(result.status, 0) + 1
        assert result.status in (phh.MATCHED, phh.ODD_CHIP, phh.NO_EXPECTED), (path, result)
        if result.status == phh.ODD_CHIP:
            assert all(abs(d) == Decimal("0.5") for d in result.differences.values())
    assert statuses[phh.MATCHED] >= 90
    assert statuses[phh.ODD_CHIP] >= 1


def test_out_of_turn_action_is_an_error_naming_it() -> None:
    hh = loads(make(["d dh p1 AhAd", "d dh p2 KhKd", "d dh p3 2c2d", "p1 f"]))
    result = replay(hh)
    assert result.status == phh.ERROR and result.match is None
    assert isinstance(result.error, ReplayError)
    assert result.error.action == "p1 f"
    assert result.error.rule == "turn"


def test_illegal_raise_is_an_error_with_the_engine_rule() -> None:
    hh = loads(make(["d dh p1 AhAd", "d dh p2 KhKd", "d dh p3 2c2d", "p3 cbr 15"]))
    result = replay(hh)
    assert isinstance(result.error, ReplayError)
    assert result.error.action == "p3 cbr 15"
    assert result.error.rule == "min-raise"


def test_duplicate_card_in_file_is_an_error() -> None:
    hh = loads(make(["d dh p1 AhAd", "d dh p2 AhKd", "d dh p3 2c2d", "p3 f", "p1 f"]))
    result = replay(hh)
    assert result.status == phh.ERROR
    assert result.error is not None


def test_hold_em_deals_two_hole_cards() -> None:
    hh = loads(make(["d dh p1 Ah", "d dh p2 KhKd", "d dh p3 2c2d", "p3 f", "p1 f"]))
    err = replay(hh).error
    assert isinstance(err, ReplayError) and err.action == "d dh p1 Ah"
    split = loads(make(["d dh p1 Ah", "d dh p2 KhKd", "d dh p3 2c2d", "d dh p1 As", "p3 f",
                        "p1 f"]))
    assert replay(split).status == phh.NO_EXPECTED


def test_truncated_and_overlong_files_are_errors() -> None:
    short = loads(make(["d dh p1 AhAd", "d dh p2 KhKd", "d dh p3 2c2d", "p3 cc", "p1 cc",
                        "p2 cc"]))
    assert isinstance(replay(short).error, ReplayError)
    long = loads(make(["d dh p1 AhAd", "d dh p2 KhKd", "d dh p3 2c2d", "p3 f", "p1 f", "p2 f"]))
    err = replay(long).error
    assert isinstance(err, ReplayError) and err.action == "p2 f"


def test_action_before_its_board_is_an_error() -> None:
    hh = loads(make(["d dh p1 AhAd", "d dh p2 KhKd", "d dh p3 2c2d", "p3 cc", "p1 cc", "p2 cc",
                     "p1 cc", "d db 3c4c5c", "p2 cc", "p3 cc"]))
    err = replay(hh).error
    assert isinstance(err, ReplayError) and err.action == "p1 cc"


def test_mismatch_is_reported_with_differences() -> None:
    hh = loads(make(["d dh p1 AhAd", "d dh p2 KhKd", "d dh p3 2c2d", "p3 f", "p1 f"],
                    extra="finishing_stacks = [995, 1004, 1001]\n"))
    result = replay(hh)
    assert result.status == phh.MISMATCHED and result.match is False
    assert result.differences == {2: 1, 3: -1}


def test_face_down_cards_shown_later_are_used() -> None:
    hh = loads(make(["d dh p1 ????", "d dh p2 ????", "d dh p3 ????", "p3 f", "p1 cc", "p2 cc",
                     "d db 3c4c5c", "p1 cc", "p2 cc", "d db 9d", "p1 cc", "p2 cc", "d db Jh",
                     "p1 cc", "p2 cc", "p1 sm AhAd", "p2 sm"],
                    extra="finishing_stacks = [1010, 990, 1000]\n"))
    result = replay(hh)
    assert result.status == phh.MATCHED, result


def test_unknown_hand_without_sm_is_mucked() -> None:
    hh = loads(make(["d dh p1 ????", "d dh p2 KhKd", "d dh p3 2c2d", "p3 f", "p1 cc", "p2 cc",
                     "d db 3c4c5c", "p1 cc", "p2 cc", "d db 9d", "p1 cc", "p2 cc", "d db Jh",
                     "p1 cc", "p2 cc"],
                    extra="finishing_stacks = [990, 1010, 1000]\n"))
    assert replay(hh).status == phh.MATCHED


def test_all_in_hand_conceded_before_the_run_out() -> None:
    # Heads-up all-in preflop; the file tables p1's hand and p2 mucks before any board card.
    # The remaining hand wins at once, without more cards. (pokerkit burns the pot here, with a
    # warning "some chips will be burned": it ends [1214, 0].)
    text = make(["d dh p1 6sJd", "d dh p2 Qd4s", "p2 cbr 2547", "p1 cbr 5074", "p2 cc",
                 "p1 sm 6sJd", "p2 sm"], stacks="[5329, 4115]", antes="[0, 0]",
                blinds="[10, 20]", min_bet=20, extra="finishing_stacks = [9444, 0]\n")
    result = replay(loads(text))
    assert result.status == phh.MATCHED, result
    hand = play(loads(text))
    assert hand.status().board == ()
    from pokerkit import HandHistory as PkHandHistory

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        states = list(PkHandHistory.loads(text))
    assert list(states[-1].stacks) == [1214, 0]


# --------------------------------------------------------------------------------------------
# Property tests (writing: tests/test_phh_writer.py; the TOML readers: tests/test_phh_toml.py)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_property_played_hand_round_trips_through_phh(seed: int) -> None:
    spec = random_spec(random.Random(seed))
    played = play_ours(spec, muck_rate=0.2)
    hh = history_from_hand(played.hand)
    back = loads(dumps(hh))
    assert back == hh
    replayed = play(back)
    assert dict(replayed.status().stacks) == played.final_stacks
    # The file says everything the hand was: the same actions, cards, shows and awards (hands
    # tabled before an all-in run-out are fed there, so shows may come earlier than played).
    def summary(hand: Hand) -> tuple[object, ...]:
        status = hand.status()
        acts = [(r.seat, r.kind, r.to) for r in hand.log if isinstance(r.step, ActStep)]
        awards = [r.step for r in hand.log if isinstance(r.step, AwardStep)]
        return (acts, awards, status.board, dict(status.shown), status.mucked,
                dict(status.hole_cards))

    assert summary(replayed) == summary(played.hand)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["p1", "p2", "d", "f", "cc", "cbr", "sm", "db", "dh", "100",
                                 "AhKd", "????", "-", "#", "x"]), max_size=5))
def test_property_parse_action_never_crashes(words: list[str]) -> None:
    with contextlib.suppress(PhhError):
        parse_action(" ".join(words), 2)


def test_card_text_in_actions() -> None:
    action = parse_action("p2 sm AhKd", 2)
    assert action is not None and action.cards == (Card.parse("Ah"), Card.parse("Kd"))
    hh = HandHistory(antes=(0, 0), blinds_or_straddles=(1, 2), min_bet=2,
                     starting_stacks=(10, 10), actions=(action,))
    assert "p2 sm AhKd" in dumps(hh)


_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**6) | st.text(max_size=8)
    | st.decimals(allow_nan=True, allow_infinity=True, places=2),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=3),
    max_leaves=8,
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(
    st.sampled_from(["variant", "antes", "blinds_or_straddles", "min_bet", "starting_stacks",
                     "actions", "finishing_stacks", "players", "seats", "ante_trimming_status",
                     "_rake", "hand"]),
    _values, max_size=12,
))
def test_property_garbage_fields_give_phh_errors_only(raw: dict[str, Any]) -> None:
    base: dict[str, Any] = {"variant": "NT", "antes": [0, 0], "blinds_or_straddles": [1, 2],
                            "min_bet": 2, "starting_stacks": [100, 100], "actions": []}
    try:
        hh = phh.from_mapping(base | raw)
        replay(hh)  # errors come back in the result
    except PhhError:
        pass


_ACTIONS = ["d dh p1 AhAd", "d dh p2 KhKd", "d dh p3 ????", "d dh p1 2c", "d db 3c4c5c",
            "d db 9d", "d db Ah", "p1 f", "p2 f", "p3 f", "p1 cc", "p2 cc", "p3 cc",
            "p1 cbr 20", "p2 cbr 40", "p3 cbr 1000", "p1 cbr 3", "p1 sm", "p2 sm -",
            "p3 sm QsQd", "p3 sm ????", "# note", ""]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_ACTIONS), max_size=24))
def test_property_any_action_list_replays_or_reports(actions: list[str]) -> None:
    hh = loads(make(actions, extra="finishing_stacks = [1000, 1000, 1000]\n"))
    result = replay(hh)
    assert result.status in (phh.MATCHED, phh.MISMATCHED, phh.ODD_CHIP, phh.ERROR)
    if result.status != phh.ERROR:
        assert result.finishing_stacks is not None
        assert sum(result.finishing_stacks) == 3000
    else:
        assert isinstance(result.error, ReplayError | PhhError)


def test_doctests() -> None:
    import doctest
    import importlib

    attempted = 0
    for name in ("", ".model", ".reader", ".tomlsubset", ".bounds", ".replay", ".writer"):
        module = importlib.import_module(f"table_controller.phh{name}")
        result = doctest.testmod(module)
        assert result.failed == 0, module.__name__
        attempted += result.attempted
    assert attempted >= 5
