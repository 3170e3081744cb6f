"""PN532 frames and the host poller, sans-IO: UM0701-02 examples, garbage, timeouts, draws."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.base import BadFrame, CardDrawn, DeviceEvent, DeviceLost, DeviceRecovered
from hardware.pn532.frames import (
    ACK_FRAME,
    ERROR_FRAME,
    MAX_FRAME,
    NACK_FRAME,
    WAKEUP,
    Ack,
    Command,
    ErrorFrame,
    FrameDecoder,
    InfoFrame,
    Item,
    LineNoise,
    Nack,
    TargetA,
    encode_command,
    encode_info,
    encode_response,
    encode_targets,
    parse_targets,
)
from hardware.pn532.protocol import TRANSITIONS, Pn532Firmware, Pn532Poller, PollState, Trigger
from table_controller.errors import ProtocolError

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
DOC_LINE = re.compile(r"^\s*(host → PN532|PN532 → host)\s+((?:[0-9A-F]{2} )*[0-9A-F]{2})\s*$")

# UM0701-02 examples (§6.2.1 frames, §7.2.2, §7.2.10, §7.3.5)
EXAMPLES = {
    "ack": ACK_FRAME,
    "nack": NACK_FRAME,
    "error": ERROR_FRAME,
    "get_firmware_version": bytes.fromhex("0000FF02FED4022A00"),
    "firmware_answer": bytes.fromhex("0000FF06FAD50332010607E800"),
    "sam_configuration": bytes.fromhex("0000FF05FBD414011401 0200"),
    "sam_answer": bytes.fromhex("0000FF02FED5151600"),
    "in_list_passive_target": bytes.fromhex("0000FF04FCD44A0100E100"),
    "one_target": bytes.fromhex("0000FF0FF1D54B01010044000704A1B2C3D4E5F6CA00"),
    "no_target": bytes.fromhex("0000FF03FDD54B00E000"),
}


def doc_frames() -> list[bytes]:
    return [bytes.fromhex(m.group(2)) for line in DOC.read_text().splitlines()
            if (m := DOC_LINE.match(line))]


def test_um0701_examples_match_the_encoder() -> None:
    assert encode_command(Command.GET_FIRMWARE_VERSION) == EXAMPLES["get_firmware_version"]
    assert encode_response(Command.GET_FIRMWARE_VERSION, bytes([0x32, 1, 6, 7])) == EXAMPLES[
        "firmware_answer"]
    assert encode_command(Command.SAM_CONFIGURATION, bytes([1, 0x14, 1])) == EXAMPLES[
        "sam_configuration"]
    assert encode_response(Command.SAM_CONFIGURATION) == EXAMPLES["sam_answer"]
    assert encode_command(Command.IN_LIST_PASSIVE_TARGET, bytes([1, 0])) == EXAMPLES[
        "in_list_passive_target"]
    target = TargetA(1, b"\x00\x44", 0, bytes.fromhex("04A1B2C3D4E5F6"))
    assert encode_response(Command.IN_LIST_PASSIVE_TARGET, encode_targets([target])) == EXAMPLES[
        "one_target"]
    assert encode_response(Command.IN_LIST_PASSIVE_TARGET, b"\x00") == EXAMPLES["no_target"]


def test_doc_shows_the_examples_and_they_decode() -> None:
    frames = doc_frames()
    assert set(EXAMPLES.values()) <= set(frames)
    for data in frames:
        out = FrameDecoder().feed(data)
        assert len(out) == 1 and not isinstance(out[0], BadFrame), (data.hex(" "), out)


def expected_items() -> list[Item]:
    return [item for data in EXAMPLES.values() for item in FrameDecoder().feed(data)]


def test_whole_stream_decodes() -> None:
    stream = b"".join(EXAMPLES.values())
    items = FrameDecoder().feed(stream)
    assert items == expected_items()
    assert items[:3] == [Ack(), Nack(), ErrorFrame()]
    assert InfoFrame(0xD5, bytes.fromhex("0332010607")) in items


def test_byte_by_byte() -> None:
    d = FrameDecoder()
    items: list[Item] = []
    for b in b"".join(EXAMPLES.values()):
        items.extend(d.feed(bytes([b])))
    assert items == expected_items()
    assert d.buffered <= 1


def test_garbage_between_frames_is_reported_and_skipped() -> None:
    junk = b"\x13\x37\xff\x00\xfe\x42"
    stream = junk.join(EXAMPLES.values()) + junk
    items = FrameDecoder().feed(stream)
    frames = [i for i in items if not isinstance(i, BadFrame)]
    assert frames == expected_items()
    assert all(isinstance(i, LineNoise) for i in items if isinstance(i, BadFrame))


def test_checksum_errors_resync_to_the_next_frame() -> None:
    bad_len = bytearray(EXAMPLES["firmware_answer"])
    bad_len[4] ^= 0x10
    bad_data = bytearray(EXAMPLES["one_target"])
    bad_data[-2] ^= 0x01
    items = FrameDecoder().feed(bytes(bad_len) + bytes(bad_data) + EXAMPLES["no_target"])
    reasons = [i.reason for i in items if isinstance(i, BadFrame)]
    assert reasons[0].startswith("length checksum mismatch")
    assert any(r.startswith("data checksum mismatch") for r in reasons)
    assert items[-1] == InfoFrame(0xD5, b"\x4b\x00")


def test_extended_frame_round_trip() -> None:
    data = bytes(range(256)) + b"\x01\x02"
    wire = encode_info(0xD4, data)
    assert wire[3:5] == b"\xff\xff" and wire[5:7] == (len(data) + 1).to_bytes(2, "big")
    assert (wire[5] + wire[6] + wire[7]) & 0xFF == 0
    assert FrameDecoder().feed(wire) == [InfoFrame(0xD4, data)]
    with pytest.raises(ValueError, match="exceeds"):
        encode_info(0xD4, bytes(300))


def test_oversized_extended_length_is_refused() -> None:
    head = b"\x00\x00\xff\xff\xff\x04\x00\xfc"
    items = FrameDecoder().feed(head + EXAMPLES["ack"])
    assert isinstance(items[0], BadFrame) and "exceeds" in items[0].reason
    assert items[-1] == Ack()


@pytest.mark.parametrize(
    ("params", "uid", "ats"),
    [
        ("01 01 0004 08 04 DEADBEEF", "DEADBEEF", b""),
        ("01 01 0044 00 07 04A1B2C3D4E5F6", "04A1B2C3D4E5F6", b""),
        ("01 01 0044 20 0A 0102030405060708090A 05 7880A002", "0102030405060708090A",
         bytes.fromhex("057880A002")),
    ],
)
def test_targets_of_4_7_and_10_bytes(params: str, uid: str, ats: bytes) -> None:
    targets = parse_targets(bytes.fromhex(params))
    assert isinstance(targets, list)
    assert targets[0].uid == uid and targets[0].ats == ats


@pytest.mark.parametrize("params", ["", "03", "01 01 0044", "01 01 0044 00 07 04A1", "00 FF"])
def test_bad_target_lists_say_why(params: str) -> None:
    assert isinstance(parse_targets(bytes.fromhex(params)), str)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=80), max_size=30))
def test_decoder_never_raises_and_stays_bounded(chunks: list[bytes]) -> None:
    d = FrameDecoder()
    for chunk in chunks:
        d.feed(chunk)
        assert d.buffered <= MAX_FRAME


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(list(EXAMPLES.values())), min_size=1, max_size=8),
       st.integers(min_value=1, max_value=16))
def test_any_split_gives_the_same_frames(frames: list[bytes], step: int) -> None:
    stream = b"".join(frames)
    d = FrameDecoder()
    got: list[Item] = []
    for i in range(0, len(stream), step):
        got.extend(d.feed(stream[i : i + step]))
    assert got == FrameDecoder().feed(stream)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=40), max_size=20), st.floats(0, 100))
def test_poller_never_raises(chunks: list[bytes], now: float) -> None:
    p = Pn532Poller()
    p.reset(now)
    for i, chunk in enumerate(chunks):
        p.feed(chunk, now + i * 0.01)
        p.tick(now + i * 0.3)
        p.take_outgoing()


# -- the poller, against a scripted PN532 ------------------------------------------------------


class Chip:
    """A minimal PN532 answering the poller's frames (the pty simulator has the full one)."""

    def __init__(self) -> None:
        self.uid: str | None = None
        self.decoder = FrameDecoder()
        self.commands: list[int] = []

    def answer(self, data: bytes) -> bytes:
        out = b""
        for item in self.decoder.feed(data):
            if isinstance(item, InfoFrame) and item.code is not None:
                code = item.code
                self.commands.append(code)
                params = b""
                if code == Command.GET_FIRMWARE_VERSION:
                    params = bytes([0x32, 1, 6, 7])
                elif code == Command.IN_LIST_PASSIVE_TARGET:
                    tags = [] if self.uid is None else [
                        TargetA(1, b"\x00\x44", 0, bytes.fromhex(self.uid))]
                    params = encode_targets(tags)
                out += ACK_FRAME + encode_response(code, params)
        return out


class Bench:
    def __init__(self, **options: float) -> None:
        self.t = 0.0
        self.p = Pn532Poller(**options)  # type: ignore[arg-type]
        self.chip = Chip()
        self.events: list[DeviceEvent] = []
        self.p.reset(self.t)

    def step(self, answer: bool = True, dt: float = 0.06) -> None:
        self.t += dt
        self.events.extend(self.p.tick(self.t))
        out = self.p.take_outgoing()
        if out and answer:
            self.events.extend(self.p.feed(self.chip.answer(out), self.t + 0.001))
            reply = self.p.take_outgoing()
            if reply:
                self.events.extend(self.p.feed(self.chip.answer(reply), self.t + 0.002))

    def run(self, n: int) -> None:
        for _ in range(n):
            self.step()

    def drawn(self) -> list[str]:
        return [e.uid for e in self.events if isinstance(e, CardDrawn)]


def test_start_up_wakes_configures_and_polls() -> None:
    b = Bench()
    first = b.p.take_outgoing()
    assert first.startswith(WAKEUP) and first.endswith(EXAMPLES["sam_configuration"])
    b.events.extend(b.p.feed(b.chip.answer(first), 0.001))
    b.run(5)
    assert b.chip.commands[:4] == [0x14, 0x02, 0x32, 0x4A]
    assert Pn532Firmware(0x32, 1, 6, 7) in b.events
    assert b.p.polls >= 2 and b.p.state.value == "ok"


def test_a_card_on_the_antenna_is_one_draw_and_removal_makes_the_next_a_new_one() -> None:
    b = Bench()
    b.run(4)
    b.chip.uid = "04A1B2C3D4E5F6"
    b.run(10)
    assert b.drawn() == ["04A1B2C3D4E5F6"]
    b.chip.uid = None
    b.run(2)
    assert b.p.present is None
    b.chip.uid = "04A1B2C3D4E5F6"
    b.run(3)
    b.chip.uid = "DEADBEEF"
    b.run(3)
    assert b.drawn() == ["04A1B2C3D4E5F6", "04A1B2C3D4E5F6", "DEADBEEF"]
    draw = next(e for e in b.events if isinstance(e, CardDrawn))
    assert draw.shoe_ms is None


def test_stamp_ms_and_absent_polls() -> None:
    b = Bench(absent_polls=3, stamp_ms=True)
    b.run(4)
    b.chip.uid = "DEADBEEF"
    b.run(2)
    b.chip.uid = None
    b.run(2)  # two empty polls: still the same pass over the antenna
    b.chip.uid = "DEADBEEF"
    b.run(2)
    draws = [e for e in b.events if isinstance(e, CardDrawn)]
    assert len(draws) == 1 and draws[0].shoe_ms == int(draws[0].at * 1000)


def test_missed_answers_resend_then_lost_then_recovered() -> None:
    b = Bench(lost_after=3)
    b.run(4)
    sent = b.p.retransmissions
    for _ in range(8):
        b.step(answer=False, dt=0.2)
    assert b.p.retransmissions > sent
    lost = [e for e in b.events if isinstance(e, DeviceLost)]
    assert len(lost) == 1
    b.run(6)
    assert len([e for e in b.events if isinstance(e, DeviceRecovered)]) == 1
    assert b.p.poll_state in (PollState.IDLE, PollState.AWAIT_ACK)
    assert b.chip.commands.count(0x14) >= 2, "woken and configured again"


def test_damaged_response_is_asked_again_with_nack() -> None:
    b = Bench()
    b.run(4)
    b.t += 0.1
    b.p.tick(b.t)
    poll = b.p.take_outgoing()
    answer = b.chip.answer(poll)
    broken = bytearray(answer)
    broken[-2] ^= 0x01
    events = b.p.feed(bytes(broken), b.t)
    assert any(isinstance(e, BadFrame) for e in events)
    assert b.p.take_outgoing() == NACK_FRAME
    b.p.feed(answer[len(ACK_FRAME):], b.t)
    assert b.p.poll_state is PollState.IDLE


def test_nack_and_error_frames_resend_the_command() -> None:
    b = Bench()
    b.run(4)
    b.t += 0.1
    b.p.tick(b.t)
    poll = b.p.take_outgoing()
    b.p.feed(NACK_FRAME, b.t)
    assert b.p.take_outgoing() == poll
    events = b.p.feed(ERROR_FRAME, b.t)
    assert b.p.take_outgoing() == poll
    assert any(isinstance(e, BadFrame) and "syntax" in e.reason for e in events)


def test_a_duplicate_response_is_dropped() -> None:
    b = Bench()
    b.run(4)
    b.chip.uid = "DEADBEEF"
    b.t += 0.1
    b.p.tick(b.t)
    answer = b.chip.answer(b.p.take_outgoing())
    b.events.extend(b.p.feed(answer + answer[len(ACK_FRAME):], b.t))
    assert b.drawn() == ["DEADBEEF"] and b.p.duplicates == 1


def test_transition_table() -> None:
    for state in (PollState.IDLE, PollState.AWAIT_ACK, PollState.AWAIT_RESPONSE):
        for trigger in Trigger:
            if (state, trigger) == (PollState.IDLE, Trigger.TIMEOUT):
                continue
            if state is not PollState.IDLE and trigger is Trigger.SEND:
                continue
            assert (state, trigger) in TRANSITIONS, (state, trigger)
    p = Pn532Poller()
    with pytest.raises(ProtocolError, match="no transition"):
        p._fire(Trigger.SEND)  # CLOSED: nothing may be sent before the port opens


def test_frames_while_the_port_is_closed_are_ignored() -> None:
    # before the port opens, and after its loss: whatever was read is no exception
    stream = (ACK_FRAME + NACK_FRAME + ERROR_FRAME + encode_response(0x4A, b"\x00")
              + b"\x00\x00\xff\x02\xfe\xd5\x00\x2b\x00")
    never_opened = Pn532Poller()
    assert all(isinstance(e, DeviceEvent) for e in never_opened.feed(stream, 1.0))
    assert never_opened.poll_state is PollState.CLOSED and never_opened.take_outgoing() == b""
    lost = Pn532Poller()
    lost.reset(0.0)
    lost.mark_lost()
    lost.take_outgoing()
    assert all(isinstance(e, DeviceEvent) for e in lost.feed(stream, 2.0))
    assert lost.poll_state is PollState.CLOSED and lost.take_outgoing() == b""


@pytest.mark.parametrize("frame", ["0000FF000000", "0000FFFFFF00000000"])
def test_an_empty_frame_is_a_bad_frame(frame: str) -> None:
    # LEN 0 (normal or extended) with good checksums: no frame identifier to read
    items = FrameDecoder().feed(bytes.fromhex(frame) + ACK_FRAME)
    assert isinstance(items[0], BadFrame) and "empty frame" in items[0].reason
    assert items[1:] == [Ack()]
