"""Bad input on the command endpoint of the real daemon (ROUTER, CURVE, tcp://127.0.0.1).

Random bytes, random JSON and mutated valid commands are sent from an allowed console over a
DEALER socket. Properties: every message gets one reply, a well-formed ``reply``; a refused one
says why and changes nothing (the ``status`` and the published snapshot are compared before and
after, device health left out); the daemon keeps running and still takes a valid command.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from typing import Any

import pytest
import zmq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.feeds import COMMANDS, ClientKeys, Message, decode
from table_controller.simtable.devices.hands import feeder_of, surface_of
from table_controller.simtable.felt import Felt
from table_controller.simtable.rig import RigOptions, SimRig
from table_controller.simtable.soak import (
    STATE_KEYS,
    STATUS_KEYS,
    start_rig,
    unmasked_secrets,
    without_devices,
)
from tests.reliability.counts import COUNTS

#: Each example costs a few round trips and journal commits: fewer than the pure parsers get.
EXAMPLES = int(os.environ.get("RELIABILITY_FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow,
                                       HealthCheck.function_scoped_fixture])


class Console:
    """A synchronous DEALER console (CURVE) plus a snapshot socket, for the fuzzer."""

    def __init__(self, rig: SimRig, name: str = "fuzz-console") -> None:
        self.ctx = zmq.Context()
        self.rig = rig
        self.name = name
        self.sock = self.ctx.socket(zmq.DEALER)
        self.sock.linger = 0
        keys = rig.console_keys()
        assert isinstance(keys, ClientKeys)
        keys.apply(self.sock)
        self.sock.connect(rig.endpoints["commands"])
        self.snap = self.ctx.socket(zmq.DEALER)
        self.snap.linger = 0
        self.snap.connect(rig.endpoints["snapshot"])
        self.seq = 1_000_000

    def close(self) -> None:
        self.ctx.destroy(linger=0)

    def raw(self, frames: list[bytes], timeout: float = 5.0) -> Message:
        self.sock.send_multipart(frames)
        assert self.sock.poll(int(timeout * 1000)), f"no reply to {frames!r}"
        reply = self.sock.recv_multipart()
        assert reply[0] == b"", reply
        return decode(reply[-1])

    def command(self, body: dict[str, Any]) -> Message:
        """Send ``body`` as a command; any JSON, even what ``Message.encode`` would refuse."""
        self.seq += 1
        msg = {"v": 1, "type": "command", "seq": self.seq,
               "table": self.rig.options.table_id, "ts": time.time(), "data": body,
               "console": self.name}
        return self.raw([b"", json.dumps(msg).encode()])

    def status(self) -> dict[str, Any]:
        reply = self.command({"command": "status"})
        assert reply.data["accepted"], reply.data
        return without_devices(reply.data["result"], STATUS_KEYS)

    def snapshot(self) -> dict[str, Any]:
        req = Message("snapshot_request", 0, self.rig.options.table_id, time.time(),
                      {"feed": "dealer", "request": 1})
        self.snap.send_multipart([b"", req.encode()])
        assert self.snap.poll(5000), "no snapshot"
        return without_devices(decode(self.snap.recv_multipart()[-1]).data["state"],
                               STATE_KEYS)

    def state(self) -> tuple[dict[str, Any], dict[str, Any]]:
        return self.status(), self.snapshot()


@pytest.fixture(scope="module")
def rig() -> Iterator[SimRig]:
    r = start_rig(RigOptions(seats=6, security="curve", camera_level="exact"), tcp=True)
    try:
        c = Console(r, "setup")
        try:
            for seat, name in ((1, "Ann"), (2, "Bo"), (3, "Cy")):
                reply = c.command({"command": "seat", "seat": seat, "player": name,
                                   "stack": 10_000})
                assert reply.data["accepted"], reply.data
            # a hand in progress with the blinds in: the richest state to disturb that no
            # timer changes (no chip difference pending)
            assert c.command({"command": "start"}).data["accepted"]
            cfg = r.chip_config
            felt = Felt(surface_of(r), cfg.denominations, cfg.seat_zones, cfg.pot_zone)
            deadline = time.monotonic() + 10
            while True:
                step = c.command({"command": "status"}).data["result"]["prompt"]["step"]
                if step["kind"] == "deal_hole":
                    break
                assert step["kind"] == "post" and time.monotonic() < deadline, step
                felt.set_seat(int(step["seat"]), felt.seat(int(step["seat"]))
                              + int(step["amount"]))
                time.sleep(0.1)  # the sensors report over the pty (real I/O)
            # two hole cards out, so a snapshot has something secret to give away
            shoe = feeder_of(r)
            shoe.load_deck([r.uid(card) for card in r.profile.cards.values()])
            for _ in range(2):
                before = c.command({"command": "status"}).data["result"]["prompt"]
                shoe.draw()
                while c.command({"command": "status"}).data["result"]["prompt"] == before:
                    assert time.monotonic() < deadline + 10
                    time.sleep(0.05)
        finally:
            c.close()
        yield r
    finally:
        assert r.stop() == 0


@pytest.fixture(scope="module")
def fuzz_console(rig: SimRig) -> Iterator[Console]:
    c = Console(rig)
    yield c
    c.close()


def check_reply(reply: Message, before: tuple[dict[str, Any], dict[str, Any]],
                console: Console) -> None:
    assert reply.type == "reply"
    data = reply.data
    assert isinstance(data.get("accepted"), bool) and isinstance(data.get("reason"), str)
    if not data["accepted"]:
        assert data["reason"].strip(), "a refusal must say why"
        time.sleep(0.005)
        assert console.state() == before, f"refused but changed: {data}"
    COUNTS["command inputs fuzzed"] += 1


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats()
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                max_size=4),
    max_leaves=12)
#: Valid names the fuzzer may use: all but those that end or start a hand (a new hand starts
#: the chip sensors' settle timers, and the state would then change by itself, on time).
NAMES = sorted(set(COMMANDS) - {"start", "void", "misdeal"})
names = st.sampled_from(NAMES) | st.text(max_size=12)
arg_names = st.sampled_from(["seat", "to", "amount", "player", "stack", "reason", "note",
                             "prompt", "irregularity", "command", "extra"])
#: Commands that may be accepted by a table at this point and would change it on purpose.
#: Commands that may change the table when accepted: every command but ``status`` (the
#: irregularity reports too: ``boxed`` with no argument holds the table over the last card drawn).
CHANGERS = frozenset({"hold", "resume", "void", "misdeal", "resolve", "seat", "unseat",
                      "sit_out", "sit_in", "straddle", "buy_in", "confirm", "fold", "check", "call",
                      "bet", "raise", "all_in", "start", "show", "muck", "exposed", "boxed",
                      "misdealt"})


def test_every_command_but_status_counts_as_a_changer() -> None:
    assert set(COMMANDS) - {"status"} == CHANGERS


@FUZZ
@given(st.binary(max_size=300), st.integers(0, 3))
def test_random_bytes(fuzz_console: Console, raw: bytes, frames: int) -> None:
    before = fuzz_console.state()
    reply = fuzz_console.raw([b""] + [raw] * max(frames, 1))
    assert not reply.data["accepted"]
    check_reply(reply, before, fuzz_console)


@FUZZ
@given(json_values)
def test_random_json(fuzz_console: Console, value: Any) -> None:
    before = fuzz_console.state()
    reply = fuzz_console.raw([b"", json.dumps(value).encode()])
    assert not reply.data["accepted"]
    check_reply(reply, before, fuzz_console)


@FUZZ
@given(st.dictionaries(st.sampled_from(["v", "type", "seq", "console", "table", "ts", "data",
                                        "extra"]), json_values, max_size=8),
       st.booleans())
def test_mutated_envelopes(fuzz_console: Console, changes: dict[str, Any], drop: bool) -> None:
    fuzz_console.seq += 1
    msg: dict[str, Any] = {"v": 1, "type": "command", "seq": fuzz_console.seq,
                           "console": fuzz_console.name, "table": "T1", "ts": time.time(),
                           "data": {"command": "status"}}
    for k, v in changes.items():
        if drop and k in msg:
            del msg[k]
        else:
            msg[k] = v
    before = fuzz_console.state()
    reply = fuzz_console.raw([b"", json.dumps(msg).encode()])
    check_reply(reply, before, fuzz_console)
    if reply.data["accepted"]:
        assert msg.get("data", {}).get("command") == "status"
        assert fuzz_console.state() == before


@FUZZ
@given(names, st.dictionaries(arg_names, json_values, max_size=4))
def test_mutated_commands(fuzz_console: Console, name: str, args: dict[str, Any]) -> None:
    before = fuzz_console.state()
    body = {**args, "command": name}
    reply = fuzz_console.command(body)
    check_reply(reply, before, fuzz_console)
    if reply.data["accepted"] and name not in CHANGERS:
        assert fuzz_console.state() == before
    if reply.data["accepted"] and name in CHANGERS:
        COUNTS["fuzzed commands accepted (valid by chance)"] += 1


def test_the_daemon_still_answers_and_replays(rig: SimRig, fuzz_console: Console) -> None:
    assert rig.alive()
    reply = fuzz_console.command({"command": "status"})
    assert reply.data["accepted"]
    again = fuzz_console.raw([b"", Message("command", fuzz_console.seq, "T1", time.time(),
                                           {"command": "status"}, fuzz_console.name).encode()])
    assert again.data["replayed"]


feeds = st.sampled_from(["public", "dealer", "surveillance", "Surveillance", "", "all"]) | \
    json_values


@FUZZ
@given(st.one_of(
    st.binary(max_size=200),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.fixed_dictionaries({"v": st.just(1), "type": st.sampled_from(["snapshot_request",
                                                                     "command", "x"]),
                           "seq": st.integers(-5, 5), "table": st.sampled_from(["T1", "T2"]),
                           "ts": st.floats(0, 1e10), "data": st.fixed_dictionaries(
                               {"feed": feeds, "request": json_values})}).map(
        lambda d: json.dumps(d).encode())))
def test_snapshot_endpoint_never_gives_away_a_hole_card(fuzz_console: Console,
                                                        raw: bytes) -> None:
    snap = fuzz_console.snap
    snap.send_multipart([b"", raw])
    assert snap.poll(5000), f"no answer to {raw!r}"
    reply = decode(snap.recv_multipart()[-1])
    assert reply.type in ("snapshot", "error"), reply
    if reply.type == "error":
        assert str(reply.data.get("reason", "")).strip()
    else:
        assert reply.data["feed"] in ("public", "dealer")
        assert unmasked_secrets(reply.data["state"]) == []
    COUNTS["snapshot inputs fuzzed"] += 1


def test_the_public_snapshot_hides_the_hole_cards_that_are_out(fuzz_console: Console) -> None:
    state = fuzz_console.snapshot()
    holes = state["hole_cards"]
    assert sum(len(v) for v in holes.values()) >= 2
    assert {c for v in holes.values() for c in v} == {"??"}
