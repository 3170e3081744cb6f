"""The hub's encode-once path gives the bytes and the guard verdicts of the plain path."""

from __future__ import annotations

import json
from typing import Any

import pytest
import zmq.asyncio
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.feeds import Feed, FeedEndpoints, FeedHub
from table_controller.feeds.messages import (
    HOLE_CARD_KEYS,
    HoleCardLeak,
    Message,
    check_encoded,
    check_no_hole_cards,
    redact,
)
from table_controller.feeds.wire import has_hole_card_key, plain
from table_controller.feeds.wire import wire as _wire
from tests.feeds.helpers import arun

_TEXTS = st.sampled_from(["Ah", "Kd", "2c", "ace of hearts", "King of Spades", "??", "xAh",
                          "Ah!", "\nAh", "\u00e9Ah", "\u212aing of spades", 'q"Ah"', "a\\Kd",
                          "deal seat 3", ""])
_STRINGS = st.one_of(_TEXTS, st.text(max_size=12), st.tuples(_TEXTS, _TEXTS).map("".join))
_KEYS = st.one_of(st.sampled_from(sorted(HOLE_CARD_KEYS)), st.sampled_from(["seat", "Ah", "text"]),
                  st.text(max_size=5))
_DATA = st.recursive(
    st.one_of(_STRINGS, st.integers(-5, 5), st.none(), st.booleans()),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(_KEYS, inner, max_size=4)),
    max_leaves=12,
)
_SECRETS = st.sets(st.sampled_from(["Ah", "Kd", "Ks", "2c", "Tc"]), max_size=3)


def _verdict(fn: Any, *args: Any) -> str:
    try:
        fn(*args)
    except HoleCardLeak as exc:
        return str(exc)
    return "ok"


@settings(max_examples=600, deadline=None)
@given(data=st.dictionaries(_KEYS, _DATA, max_size=5), secret=_SECRETS, masked=st.booleans())
def test_check_encoded_agrees_with_the_walk(data: dict[str, Any], secret: set[str],
                                            masked: bool) -> None:
    body = redact(data) if masked else data
    text = json.dumps(body, separators=(",", ":"), allow_nan=False)
    assert _verdict(check_encoded, body, text, secret) == _verdict(check_no_hole_cards, body,
                                                                   secret)


@pytest.mark.parametrize("text", ["\nAh", "\u00e9Ah", "\u212aing of spades", "Ah", "ace of hearts"])
def test_escapes_do_not_hide_a_secret(text: str) -> None:
    body = {"text": text}
    with pytest.raises(HoleCardLeak):
        check_encoded(body, json.dumps(body, separators=(",", ":")), {"Ah", "Ks"})


@given(mtype=st.sampled_from(["prompt", "table_state"]), seq=st.integers(0, 2**53 - 1),
       table=st.text(max_size=8), ts=st.floats(-1e11, 1e11) | st.integers(-10**6, 10**6),
       data=st.dictionaries(_KEYS, _DATA, max_size=4))
def test_wire_is_message_encode(mtype: str, seq: int, table: str, ts: float,
                                data: dict[str, Any]) -> None:
    text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    assert _wire(mtype, seq, table, ts, text) == Message(mtype, seq, table, ts, data).encode()


@settings(max_examples=600, deadline=None)
@given(data=st.dictionaries(_KEYS, _DATA, max_size=5))
def test_no_hole_card_key_means_redact_changes_nothing(data: dict[str, Any]) -> None:
    redacted = redact(data)
    text = json.dumps(redacted, separators=(",", ":"), allow_nan=False)
    if not has_hole_card_key(text):
        assert redacted == plain(data)
        assert text == json.dumps(plain(data), separators=(",", ":"), allow_nan=False)


@pytest.mark.parametrize("data", [{"text": "deal the flop", "step": {"kind": "board"}},
                                  {"text": "x", "hole_cards": {"3": ["Ah", "Kd"]}}])
def test_surveillance_gets_the_plain_body(data: dict[str, Any]) -> None:
    async def body(ctx: zmq.asyncio.Context) -> None:
        async with FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback()) as hub:
            sent = hub.send_now({f: (data, None) for f in Feed}, "prompt")
            assert sent[Feed.SURVEILLANCE].data == plain(data)
            assert sent[Feed.PUBLIC].data == sent[Feed.DEALER].data == redact(data)
            assert [hub.seq(f) for f in Feed] == [1, 1, 1]

    arun(body)


def test_between_runs_after_the_first_feed_is_sent() -> None:
    """``between`` runs once the first feed's message left, before the next feeds' are sent."""
    order = (Feed.DEALER, Feed.PUBLIC, Feed.SURVEILLANCE)
    seen: list[list[int]] = []

    async def body(ctx: zmq.asyncio.Context) -> None:
        async with FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback()) as hub:
            data = {"text": "deal the flop"}
            hub.send_now({f: (data, None) for f in order}, "prompt",
                         between=lambda: seen.append([hub.seq(f) for f in order]))
            assert seen == [[1, 0, 0]]
            assert [hub.seq(f) for f in order] == [1, 1, 1]

            def fails() -> None:
                raise RuntimeError("the caller's own failure")

            with pytest.raises(RuntimeError, match="own failure"):
                hub.send_now({f: (data, None) for f in order}, "prompt", between=fails)
            assert [hub.seq(f) for f in order] == [2, 2, 2]  # every feed has it all the same
            with pytest.raises(HoleCardLeak):  # a leak: nothing sent, ``between`` not run
                hub.set_secret_cards(["Ah"])
                hub.send_now({f: ({"text": "Ah"}, None) for f in order}, "prompt",
                             between=lambda: seen.append([]))
            assert seen == [[1, 0, 0]] and [hub.seq(f) for f in order] == [2, 2, 2]

    arun(body)
