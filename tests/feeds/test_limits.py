"""Hostile clients on real sockets (tcp://127.0.0.1): every receiving socket and parser is bounded.

No wall-clock budgets: rate limits run on a fake clock, and "the event loop kept running while
3,000 commands were pipelined" is counted (turns of another task between turns of commands),
with a generous liveness bound for a real heartbeat.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
from collections import Counter
from pathlib import Path

import pytest
import zmq
import zmq.asyncio

from table_controller.boundedjson import MAX_SAFE_INT, JsonLimitError, loads
from table_controller.feeds import (
    Command,
    CommandReply,
    CommandServer,
    Feed,
    FeedEndpoints,
    FeedHub,
    Message,
    MessageError,
    decode,
    topic,
)
from table_controller.feeds.commands import COMMANDS_PER_TURN, REPLY_HWM
from table_controller.feeds.hub import MAX_SUBSCRIPTION_BYTES
from table_controller.feeds.messages import MAX_REQUEST_BYTES
from table_controller.journal import Journal
from table_controller.ratelimit import PeerLimiter, RateLimitedLog, TokenBucket
from tests.feeds.helpers import arun


class FakeClock:
    """A monotonic clock the test steps."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _request(**fields: object) -> bytes:
    msg: dict[str, object] = {"v": 1, "type": "snapshot_request", "seq": 0, "table": "T1",
                              "ts": 1.0, "data": {"feed": "public", "request": 1}}
    msg.update(fields)
    return json.dumps(msg).encode()


# -- bounded decoding --


@pytest.mark.parametrize("raw, match", [
    (b"[" * 100_000, "nested deeper than 32"),
    (b'{"a":' * 50_000 + b"1" + b"}" * 50_000, "nested deeper than 32"),
    (b"[" * 33 + b"]" * 33, "nested deeper than 32"),
    (b"1" * 5000, "integer with 5000 digits"),
    (str(2**53).encode(), "out of range"),
    (b"1e400", "not a finite float"),
    (b"[NaN]", "NaN is not allowed"),
    (b"-Infinity", "-Infinity is not allowed"),
    (b"\xff\xfe", "not UTF-8"),
    (b"{", "not JSON"),
])
def test_bounded_json_refuses(raw: bytes, match: str) -> None:
    with pytest.raises(JsonLimitError, match=match) as info:
        loads(raw, max_bytes=1 << 20)
    assert "\n" not in str(info.value)


def test_bounded_json_accepts_the_edges() -> None:
    assert loads(str(MAX_SAFE_INT).encode()) == MAX_SAFE_INT
    assert loads(str(-MAX_SAFE_INT).encode()) == -MAX_SAFE_INT
    assert loads(b"[" * 32 + b"]" * 32) is not None
    assert loads(b'"' + b"[" * 100 + b'"') == "[" * 100  # brackets in strings do not count
    with pytest.raises(JsonLimitError, match="bytes"):
        loads(b" " * 65537)


@pytest.mark.parametrize("fields, match", [
    ({"ts": 10**300}, "integer with 301 digits"),
    ({"ts": 1e300}, "ts: must be a number"),
    ({"seq": 2**63}, "integer with 19 digits"),
    ({"seq": 2**53}, "out of range"),
    ({"seq": -1}, "seq: must be an integer"),
])
def test_decode_refuses_numbers_out_of_range(fields: dict[str, object], match: str) -> None:
    with pytest.raises(MessageError, match=match):
        decode(_request(**fields))


# -- rate limits and the rate-limited log (fake clock) --


def test_token_bucket_and_peer_limiter() -> None:
    b = TokenBucket(rate=10.0, burst=3)
    assert [b.allow(0.0) for _ in range(4)] == [True, True, True, False]
    assert b.allow(0.1) and not b.allow(0.1)
    lim = PeerLimiter(1.0, 1, max_peers=100)
    for i in range(1000):
        assert lim.allow(f"peer{i}", 0.0)
    assert len(lim) == 100  # bounded however many peers a client invents


def test_rate_limited_log_counts_what_it_left_out(caplog: pytest.LogCaptureFixture) -> None:
    rl = RateLimitedLog(logging.getLogger("test.rl"), interval=10.0, burst=2)
    with caplog.at_level(logging.WARNING, "test.rl"):
        written = [rl.warning("k", "bad request %d", i, now=i / 100) for i in range(500)]
        assert written[:3] == [True, True, False] and sum(written) == 2
        assert rl.warning("k", "bad request again", now=20.0)
    lines = [r.getMessage() for r in caplog.records]
    assert lines == ["bad request 0", "bad request 1",
                     "bad request again (498 more like this in 20 s)"]


# -- the hub's sockets --


async def _heartbeat(sub: zmq.asyncio.Socket, timeout: float = 10.0) -> Message:
    """Liveness: wait (generously) for the next heartbeat on ``sub``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        left = deadline - loop.time()
        assert left > 0 and await sub.poll(int(left * 1000) + 1), "no heartbeat"
        frames = await sub.recv_multipart()
        msg = decode(frames[-1])
        if msg.type == "heartbeat":
            return msg


def test_feed_subscriptions_are_bounded_per_peer() -> None:
    async def body(ctx: zmq.asyncio.Context) -> None:
        async with FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback(),
                           heartbeat_interval=0.05) as hub:
            ep = hub.bound["public"]
            # one peer asking for 2,000 distinct topics still holds one subscription
            flood = ctx.socket(zmq.XSUB)
            flood.connect(ep)
            for i in range(2000):
                await flood.send(b"\x01" + f"topic-{i:04d}-".encode() * 10)
            # a subscription larger than the limit cuts its peer off; the feed goes on
            big = ctx.socket(zmq.XSUB)
            big.connect(ep)
            await big.send(b"\x01" + b"x" * (10 * MAX_SUBSCRIPTION_BYTES))
            good = ctx.socket(zmq.SUB)
            good.setsockopt(zmq.SUBSCRIBE, topic("T1", "heartbeat"))
            good.connect(ep)
            await _heartbeat(good)
            loop = asyncio.get_running_loop()
            # the hub reads them (libzmq does not keep them): wait until it has read all, or
            # (a busy machine: libzmq drops what exceeds its queue) until the count settles
            deadline = loop.time() + 60
            last, still_since = -1, loop.time()
            while hub.subscriptions < 2001 and loop.time() < deadline:
                if hub.subscriptions != last:
                    last, still_since = hub.subscriptions, loop.time()
                elif loop.time() - still_since > 3.0:
                    break
                await asyncio.sleep(0.01)
            assert hub.subscriptions >= 2  # the flooder's and the good peer's, at least
            # everything is delivered to the flooder (its own socket would filter)
            assert await flood.poll(30_000)
            assert decode((await flood.recv_multipart())[-1]).type == "heartbeat"
            # the oversized peer was disconnected: nothing reaches it
            await hub.publish(Feed.PUBLIC, "x", {"n": 1})
            await _heartbeat(good)
            assert not await big.poll(200)
            for s in (flood, big, good):
                s.close(linger=0)

    arun(body, timeout=120)


def test_snapshot_endpoint_bounds_size_and_rate(caplog: pytest.LogCaptureFixture) -> None:
    clock = FakeClock()

    async def body(ctx: zmq.asyncio.Context) -> None:
        async with FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback(),
                           heartbeat_interval=0.05, mono_clock=clock, snapshot_rate=5.0,
                           snapshot_burst=3) as hub:
            ep = hub.bound["snapshot"]
            sub = ctx.socket(zmq.SUB)
            sub.setsockopt(zmq.SUBSCRIBE, b"")
            sub.connect(hub.bound["public"])
            # a request beyond MAX_REQUEST_BYTES cuts the peer off, unanswered
            huge = ctx.socket(zmq.DEALER)
            huge.connect(ep)
            await huge.send_multipart([b"", b"x" * (64 * 1024 * 1024)])
            client = ctx.socket(zmq.DEALER)
            client.connect(ep)

            async def ask(raw: bytes) -> Message:
                await client.send_multipart([b"", raw])
                assert await client.poll(5000), "no answer"
                return decode((await client.recv_multipart())[-1])

            # a client's mistake: an error reply, one log line, no traceback
            err = await ask(_request(ts=10**300))
            assert err.type == "error" and "integer with 301 digits" in err.data["reason"]
            deep = await ask(b"[" * 10_000)
            assert deep.type == "error" and "nested deeper" in deep.data["reason"]
            assert (await ask(_request())).type == "snapshot"
            refused = await ask(_request())
            assert refused.type == "error"
            assert refused.data["reason"] == "rate limit: 5 snapshot requests a second"
            assert hub.refused["snapshot"] == 1
            clock.now += 1.0  # five more tokens (the burst is three)
            assert [(await ask(_request())).type for _ in range(4)] == ["snapshot"] * 3 + [
                "error"]
            assert not await huge.poll(100)
            await _heartbeat(sub)  # the feed kept going
            for s in (sub, huge, client):
                s.close(linger=0)

    with caplog.at_level(logging.WARNING, "table_controller.feeds"):
        arun(body, timeout=120)
    assert caplog.records and not any(r.exc_info for r in caplog.records)
    assert all("\n" not in r.getMessage() for r in caplog.records)


def test_answer_snapshot_request_any_input() -> None:
    hub = FeedHub(zmq.asyncio.Context.instance(), table_id="T1",
                  endpoints=FeedEndpoints.loopback())
    for raw in (b"", b"\x00" * 100, b"[" * 10_000, _request(ts=10**300), _request(seq=2**63),
                b"x" * (MAX_REQUEST_BYTES + 1), _request(data={"feed": "surveillance"})):
        answer = hub.answer_snapshot_request(raw)
        assert answer.type == "error" and "\n" not in answer.data["reason"]
    assert hub.answer_snapshot_request(_request()).type == "snapshot"


# -- the command endpoint --


def _command(seq: int, console: str = "c1", **extra: object) -> bytes:
    return Message("command", seq, "T1", 1.0, {"command": "status", **extra},
                   console).encode()


def test_command_rate_limit_on_a_fake_clock(tmp_path: Path) -> None:
    clock = FakeClock()

    async def handler(cmd: Command) -> CommandReply:
        return CommandReply(True)

    async def body(ctx: zmq.asyncio.Context) -> None:
        journal = Journal.open(tmp_path / "j.sqlite")
        try:
            server = CommandServer(ctx, "tcp://127.0.0.1:*", table_id="T1", journal=journal,
                                   handler=handler, mono_clock=clock, rate=2.0, burst=3)
            replies = [await server.handle_raw(_command(i), None) for i in range(1, 6)]
            assert [r.data["accepted"] for r in replies] == [True] * 3 + [False] * 2
            assert replies[3].data["reason"] == (
                "not recorded, nothing changed: rate limit: 2 commands a second")
            assert replies[3].seq == 4 and replies[3].console == "c1"
            other = await server.handle_raw(_command(1, console="c2"), None)
            assert other.data["accepted"]  # each console has its own limit
            clock.now += 1.0
            # a refused seq was not recorded: resent, it is handled
            again = [await server.handle_raw(_command(i), None) for i in (4, 5, 6)]
            assert [r.data["accepted"] for r in again] == [True, True, False]
            assert not again[0].data["replayed"]
            assert server.rate_limited == 3
            # numbers out of range are a bad message, not an OverflowError in the journal
            big = await server.handle_raw(
                b'{"v":1,"type":"command","seq":9223372036854775808,"console":"c3",'
                b'"table":"T1","ts":1,"data":{"command":"status"}}', None)
            assert not big.data["accepted"] and "integer with 19 digits" in big.data["reason"]
        finally:
            journal.close()

    arun(body, timeout=120)


def test_pipelined_commands_do_not_stall_the_event_loop(tmp_path: Path) -> None:
    turns = 0
    seen: list[int] = []

    async def handler(cmd: Command) -> CommandReply:
        seen.append(turns)
        return CommandReply(True)

    async def spin() -> None:
        nonlocal turns
        while True:
            await asyncio.sleep(0)
            turns += 1

    async def body(ctx: zmq.asyncio.Context) -> None:
        journal = Journal.open(tmp_path / "j.sqlite")
        spinner = asyncio.create_task(spin())
        try:
            async with FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback(),
                               heartbeat_interval=0.05) as hub, CommandServer(
                ctx, "tcp://127.0.0.1:*", table_id="T1", journal=journal, handler=handler,
            ) as server:
                sub = ctx.socket(zmq.SUB)
                sub.setsockopt(zmq.SUBSCRIBE, topic("T1", "heartbeat"))
                sub.connect(hub.bound["dealer"])
                await _heartbeat(sub)
                console = ctx.socket(zmq.DEALER)
                console.sndhwm = 0
                console.rcvhwm = 0
                console.connect(server.bound)
                n = 3000
                for seq in range(1, n + 1):
                    await console.send_multipart([b"", _command(seq)])
                # every command is handled (decided, or refused by the rate limit) ...
                deadline = time.monotonic() + 60
                while len(seen) + server.rate_limited < n:
                    assert time.monotonic() < deadline, (len(seen), server.rate_limited)
                    await asyncio.sleep(0.01)
                assert len(seen) + server.rate_limited == n
                assert len(seen) >= 400  # the burst, then the rate
                # ... and answered: a console that takes its replies late may lose some past
                # the server's queue to it (REPLY_HWM), never get one twice or a wrong one
                replies: list[Message] = []
                while await console.poll(1_000):
                    replies.append(decode((await console.recv_multipart())[-1]))
                seqs = [r.seq for r in replies]
                assert len(set(seqs)) == len(seqs) and set(seqs) <= set(range(1, n + 1))
                assert len(replies) >= REPLY_HWM, len(replies)
                accepted = [r for r in replies if r.data["accepted"]]
                limited = [r for r in replies if "rate limit" in r.data["reason"]]
                assert len(accepted) + len(limited) == len(replies)
                assert len(accepted) <= len(seen)
                # the loop ran other tasks between any two turns of at most COMMANDS_PER_TURN
                # commands each (the read-only commands of a turn share one commit)
                assert all(b >= a for a, b in itertools.pairwise(seen))
                assert max(Counter(seen).values()) <= COMMANDS_PER_TURN
                assert server.rate_limited == len(limited)
                await _heartbeat(sub)  # liveness after the flood
                for s in (sub, console):
                    s.close(linger=0)
        finally:
            spinner.cancel()
            journal.close()

    arun(body, timeout=60)
