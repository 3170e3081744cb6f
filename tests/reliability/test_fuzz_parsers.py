"""Bad input on the serial parsers: random bytes and mutated valid frames.

Properties (Hypothesis, bounded):

- no exception, only :class:`~hardware.base.DeviceEvent` s, and a bounded buffer, whatever the
  bytes and however they are cut into reads;
- valid frames sent after garbage are still parsed, exactly (the framers resynchronise);
- from a mutated stream of valid frames (bit flips, cut, inserted and repeated bytes) the host
  never accepts a card or chip count that was not sent, never accepts one twice, and keeps the
  order: what it delivers is a subsequence of what was sent.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hardware.base import BadFrame, CardDrawn, DeviceEvent, ZoneReport
from hardware.chips.protocol import ChipsProtocol, decode_chips, zone_report_payload
from hardware.lines.protocol import LineReaderProtocol, encode_id12, encode_reader_line
from hardware.link.protocol import (
    MAX_ENCODED,
    DeviceLink,
    Frame,
    FrameDecoder,
    HostLink,
    MsgType,
    encode_frame,
)
from hardware.shoe.protocol import ShoeProtocol, card_drawn_payload, decode_shoe
from hardware.shoe.resolver import TagResolver
from hardware.sim.shoe import sim_deck_profile
from tests.reliability.counts import COUNTS

#: Examples per property (``RELIABILITY_FUZZ_EXAMPLES`` raises it for long runs).
EXAMPLES = int(os.environ.get("RELIABILITY_FUZZ_EXAMPLES", "100"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

uids = st.binary(min_size=4, max_size=10).map(lambda b: b.hex().upper())
garbage = st.binary(max_size=1500)
cuts = st.lists(st.integers(min_value=1, max_value=64), min_size=1, max_size=20)


def chunked(data: bytes, sizes: list[int]) -> list[bytes]:
    """Cut ``data`` into reads of the given sizes (cycled)."""
    out, i, k = [], 0, 0
    while i < len(data):
        n = sizes[k % len(sizes)]
        out.append(data[i:i + n])
        i += n
        k += 1
    return out


def feed_all(p: HostLink | LineReaderProtocol, chunks: list[bytes], now: float = 1.0
             ) -> list[DeviceEvent]:
    events: list[DeviceEvent] = []
    for c in chunks:
        got = p.feed(c, now)
        assert isinstance(got, list)
        assert all(isinstance(e, DeviceEvent) for e in got), got
        events.extend(got)
        p.take_outgoing()
    return events


def shoe_stream(cards: list[str], boot_id: int) -> bytes:
    dev = DeviceLink(kind=1, boot_id=boot_id)
    wire = [dev.hello()]
    wire += [dev.send(MsgType.CARD_DRAWN, card_drawn_payload(u, i), 0.0)
             for i, u in enumerate(cards)]
    return b"".join(wire)


def chips_stream(reports: list[tuple[int, dict[int, int]]], boot_id: int) -> bytes:
    dev = DeviceLink(kind=2, boot_id=boot_id)
    wire = [dev.hello()]
    wire += [dev.send(MsgType.ZONE_REPORT, zone_report_payload(z, c), 0.0) for z, c in reports]
    return b"".join(wire)


# -- random bytes ------------------------------------------------------------------------------


@FUZZ
@given(garbage, cuts, st.lists(uids, min_size=1, max_size=8))
def test_shoe_random_bytes_then_valid_frames(junk: bytes, sizes: list[int],
                                             cards: list[str]) -> None:
    p = ShoeProtocol()
    feed_all(p, chunked(junk, sizes))
    assert p._decoder.buffered <= MAX_ENCODED + 1
    events = feed_all(p, chunked(shoe_stream(cards, boot_id=0xC0FFEE), sizes), 2.0)
    assert [e.uid for e in events if isinstance(e, CardDrawn)] == cards
    COUNTS["parser inputs fuzzed"] += 1


@FUZZ
@given(garbage, cuts, st.lists(st.tuples(st.integers(0, 254),
                                         st.dictionaries(st.integers(0, 255),
                                                         st.integers(1, 65535), max_size=4)),
                                min_size=1, max_size=6))
def test_chips_random_bytes_then_valid_frames(junk: bytes, sizes: list[int],
                                              reports: list[tuple[int, dict[int, int]]]) -> None:
    p = ChipsProtocol()
    feed_all(p, chunked(junk, sizes))
    assert p._decoder.buffered <= MAX_ENCODED + 1
    events = feed_all(p, chunked(chips_stream(reports, boot_id=0xBEEF), sizes), 2.0)
    got = [(e.zone, dict(e.counts)) for e in events if isinstance(e, ZoneReport)]
    assert got == [(z, c) for z, c in reports]
    COUNTS["parser inputs fuzzed"] += 1


@FUZZ
@given(st.integers(0, 255), st.integers(0, 255), st.integers(0, 0xFFFF), st.binary(max_size=80))
def test_payload_decoders_never_raise(msg_type: int, flags: int, seq: int, payload: bytes) -> None:
    frame = Frame(msg_type, seq, payload, flags)
    for decode in (decode_shoe, decode_chips):
        events = decode(frame, 1.0)
        assert events and all(isinstance(e, DeviceEvent) for e in events)
    COUNTS["parser inputs fuzzed"] += 1


@FUZZ
@given(st.lists(st.binary(max_size=300), max_size=12))
def test_frame_decoder_random_chunks(chunks: list[bytes]) -> None:
    d = FrameDecoder()
    for c in chunks:
        for item in d.feed(c):
            assert isinstance(item, Frame | BadFrame)
        assert d.buffered <= MAX_ENCODED + 1
    COUNTS["parser inputs fuzzed"] += 1


@FUZZ
@given(st.sampled_from(["reader", "id12"]), garbage, cuts, st.binary(min_size=5, max_size=5))
def test_line_readers_random_bytes_then_a_valid_read(fmt: str, junk: bytes, sizes: list[int],
                                                     raw_uid: bytes) -> None:
    p = LineReaderProtocol(fmt)
    feed_all(p, chunked(junk, sizes))
    assert len(p._buf) <= p.max_line + 64
    uid = raw_uid.hex().upper()
    good = (b"\n" + encode_reader_line(uid)) if fmt == "reader" else encode_id12(uid)
    events = feed_all(p, chunked(good, sizes), 2.0)
    assert events, "the valid read after the garbage gave nothing"
    last = events[-1]
    assert isinstance(last, CardDrawn) and last.uid == uid, events
    COUNTS["parser inputs fuzzed"] += 1


@FUZZ
@given(st.lists(st.one_of(uids, st.sampled_from(sorted(sim_deck_profile(1)))), max_size=60))
def test_tag_resolver_any_tags(tags: list[str]) -> None:
    r = TagResolver(sim_deck_profile(1))
    for i, t in enumerate(tags):
        ev = r.resolve(CardDrawn(t, None, i * 0.3))
        assert isinstance(ev, DeviceEvent)
    COUNTS["parser inputs fuzzed"] += 1


# -- mutated valid frames ----------------------------------------------------------------------

Mutation = tuple[str, int, int]
mutations = st.lists(st.tuples(st.sampled_from(["flip", "cut", "insert", "repeat"]),
                               st.integers(0, 10_000), st.integers(0, 255)), max_size=12)


def mutate(data: bytes, muts: list[Mutation]) -> bytes:
    b = bytearray(data)
    for op, pos, val in muts:
        if not b:
            break
        i = pos % len(b)
        if op == "flip":
            b[i] ^= 1 << (val % 8)
        elif op == "cut":
            del b[i:i + 1 + val % 4]
        elif op == "insert":
            b[i:i] = bytes([val])
        else:
            b[i:i] = b[i:i + 1 + val % 24]
    return bytes(b)


def is_subsequence(got: Sequence[object], sent: Sequence[object]) -> bool:
    it = iter(sent)
    return all(any(g == s for s in it) for g in got)


@FUZZ
@given(st.lists(uids, min_size=1, max_size=10, unique=True), mutations, cuts)
def test_mutated_shoe_stream_never_accepts_a_wrong_or_repeated_card(
        cards: list[str], muts: list[Mutation], sizes: list[int]) -> None:
    p = ShoeProtocol()
    events = feed_all(p, chunked(mutate(shoe_stream(cards, boot_id=7), muts), sizes))
    got = [e.uid for e in events if isinstance(e, CardDrawn)]
    assert is_subsequence(got, list(cards)), (got, cards)
    if not muts:
        assert got == cards
    COUNTS["parser inputs fuzzed"] += 1


@FUZZ
@given(st.lists(st.tuples(st.integers(1, 12), st.dictionaries(st.integers(1, 9),
                                                             st.integers(1, 999), max_size=3)),
                min_size=1, max_size=8), mutations, cuts)
def test_mutated_chips_stream_never_accepts_a_wrong_report(
        reports: list[tuple[int, dict[int, int]]], muts: list[Mutation],
        sizes: list[int]) -> None:
    p = ChipsProtocol()
    events = feed_all(p, chunked(mutate(chips_stream(reports, boot_id=9), muts), sizes))
    got: list[object] = [(e.zone, dict(e.counts)) for e in events if isinstance(e, ZoneReport)]
    assert is_subsequence(got, [(z, c) for z, c in reports]), (got, reports)
    COUNTS["parser inputs fuzzed"] += 1


@FUZZ
@given(st.lists(st.binary(min_size=5, max_size=5).map(lambda b: b.hex().upper()),
                min_size=1, max_size=8), mutations, cuts, st.sampled_from(["reader", "id12"]))
def test_mutated_line_reader_stream_parses_only_whole_lines(
        cards: list[str], muts: list[Mutation], sizes: list[int], fmt: str) -> None:
    enc = encode_reader_line if fmt == "reader" else encode_id12
    wire = b"".join(enc(u) for u in cards)
    p = LineReaderProtocol(fmt)
    events = feed_all(p, chunked(mutate(wire, muts), sizes))
    assert all(isinstance(e, CardDrawn | BadFrame) for e in events)
    if not muts:
        assert [e.uid for e in events if isinstance(e, CardDrawn)] == cards
    COUNTS["parser inputs fuzzed"] += 1


def test_garbage_between_every_frame_costs_one_bad_frame_each() -> None:
    """A deterministic companion: noise between frames never costs a good frame."""
    cards = ["04A1B2C3D4E5F6", "0102030405", "DEADBEEF"]
    dev = DeviceLink(kind=1, boot_id=3)
    frames = [dev.hello()] + [dev.send(MsgType.CARD_DRAWN, card_drawn_payload(u, 1), 0.0)
                              for u in cards]
    noisy = b"".join(b"\x13\x37noise\xfe" + f for f in frames) + encode_frame(0x7E, 1)[:-1]
    events = ShoeProtocol().feed(noisy, 1.0)
    assert [e.uid for e in events if isinstance(e, CardDrawn)] == cards
    assert sum(isinstance(e, BadFrame) for e in events) == len(frames)
