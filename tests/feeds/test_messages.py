from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.feeds import (
    COMMANDS,
    MASK,
    CommandError,
    CommandReply,
    HoleCardLeak,
    Message,
    MessageError,
    check_no_hole_cards,
    decode,
    parse_command,
    redact,
)


def test_roundtrip() -> None:
    m = Message("prompt", 7, "T1", 12.5, {"text": "seat 3 to act", "seat": 3})
    assert decode(m.encode()) == m
    c = Message("command", 2, "T1", 1.0, {"command": "fold", "seat": 3}, console="c1")
    assert decode(c.encode()) == c


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        (b"nope", "not JSON"),
        (b"[1]", "must be a JSON object"),
        (b'{"v":2,"type":"x","seq":1,"table":"T","ts":0,"data":{}}', "v: unsupported"),
        (b'{"v":1,"type":"X!","seq":1,"table":"T","ts":0,"data":{}}', "type:"),
        (b'{"v":1,"type":"x","seq":-1,"table":"T","ts":0,"data":{}}', "seq:"),
        (b'{"v":1,"type":"x","seq":true,"table":"T","ts":0,"data":{}}', "seq:"),
        (b'{"v":1,"type":"x","seq":1,"table":3,"ts":0,"data":{}}', "table:"),
        (b'{"v":1,"type":"x","seq":1,"table":"T","ts":"a","data":{}}', "ts:"),
        (b'{"v":1,"type":"x","seq":1,"table":"T","ts":0,"data":[]}', "data:"),
        (b'{"v":1,"type":"x","seq":1,"table":"T","ts":0,"data":{},"console":""}', "console:"),
        (b'{"v":1,"type":"x","seq":1,"table":"T","ts":0,"data":{},"z":1}', "unknown field"),
    ],
)
def test_decode_errors(raw: bytes, error: str) -> None:
    with pytest.raises(MessageError, match=error):
        decode(raw)


@settings(max_examples=200, deadline=None)
@given(raw=st.binary(max_size=200))
def test_decode_fuzz(raw: bytes) -> None:
    with contextlib.suppress(MessageError):
        decode(raw)


def test_redact_masks_every_hole_key() -> None:
    data = {
        "hole_cards": {"3": ["Ah", "Kd"], "5": [None, "2c"]},
        "seats": [{"seat": 1, "hole": ["Qs", "Qh"], "stack": 100}],
        "board": ["2d", "3d", "4d"],
        "hole_card": "9s",
        "burn_cards": ["5h"],
    }
    out = redact(data)
    assert out["hole_cards"] == {"3": [MASK, MASK], "5": [None, MASK]}
    assert out["seats"][0]["hole"] == [MASK, MASK]
    assert out["seats"][0]["stack"] == 100
    assert out["board"] == ["2d", "3d", "4d"]
    assert out["hole_card"] == MASK
    assert out["burn_cards"] == [MASK]
    assert data["hole_card"] == "9s"  # the input is not changed
    check_no_hole_cards(out, ["Ah", "Kd", "Qs", "Qh", "2c", "9s"])
    with pytest.raises(HoleCardLeak, match=r"data\.hole_cards\.3\[0\]"):
        check_no_hole_cards(data)


def test_guard_catches_secret_cards_in_text() -> None:
    with pytest.raises(HoleCardLeak, match="Ah"):
        check_no_hole_cards({"text": "seat 3 has Ah"}, {"Ah"})
    with pytest.raises(HoleCardLeak, match="ace of hearts"):
        check_no_hole_cards({"x": ["Seat 3 holds the Ace of Hearts"]}, {"Ah"})
    with pytest.raises(HoleCardLeak):
        check_no_hole_cards({"by_card": {"Ah": 3}}, {"Ah"})
    # other cards and words that merely contain the letters are fine
    check_no_hole_cards({"text": "board Kd; Ahead of the river; Ahx"}, {"Ah"})


def test_parse_command() -> None:
    assert parse_command({"command": "start"}) == ("start", {})
    assert parse_command({"command": "resume"}) == ("resume", {})
    assert parse_command({"command": "hold", "reason": "chip count"}) == (
        "hold", {"reason": "chip count"})
    cases: list[tuple[dict[str, object], str]] = [
        ({"command": "dance"}, "unknown command 'dance'"),
        ({}, "unknown command None"),
        ({"command": "fold"}, "fold.seat: missing"),
        ({"command": "fold", "seat": 11}, "fold.seat: must be a seat number 1..10, got 11"),
        ({"command": "fold", "seat": True}, "fold.seat: must be an integer"),
        ({"command": "raise", "seat": 3, "to": 0}, "raise.to: must be > 0, got 0"),
        ({"command": "hold", "reason": "  "}, "hold.reason: must be a non-empty string"),
        ({"command": "call", "seat": 2, "amount": 5}, "call: unknown argument 'amount'"),
    ]
    for body, error in cases:
        with pytest.raises(CommandError, match=error):
            parse_command(body)
    assert "raise" in COMMANDS and "all_in" in COMMANDS


def test_reply_roundtrip() -> None:
    r = CommandReply(True, "", {"hand": 4})
    assert CommandReply.from_data(r.to_data()) == r
    with pytest.raises(MessageError):
        CommandReply.from_data({"accepted": "yes"})
