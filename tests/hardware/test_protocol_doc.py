"""The byte-level examples in docs/protocol.md are real: they decode, and match the encoder."""

from __future__ import annotations

import re
from pathlib import Path

from hardware.base import CardDrawn
from hardware.lines.protocol import LineReaderProtocol
from hardware.link.protocol import U16, Frame, FrameDecoder, MsgType, encode_frame
from hardware.shoe.protocol import card_drawn_payload

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
HEX_LINE = re.compile(r"^\s*((?:[0-9a-f]{2} )+[0-9a-f]{2})\s*$")


def hex_lines() -> list[bytes]:
    return [bytes.fromhex(m.group(1)) for line in DOC.read_text().splitlines()
            if (m := HEX_LINE.match(line))]


def test_every_reference_frame_in_the_doc_decodes() -> None:
    frames = [b for b in hex_lines() if b[0] == 0 and b[-1] == 0]
    assert len(frames) >= 15
    for data in frames:
        out = FrameDecoder().feed(data)
        assert len(out) == 1 and isinstance(out[0], Frame), (data.hex(" "), out)


def test_doc_examples_match_the_encoder() -> None:
    lines = hex_lines()
    payload = card_drawn_payload("04A1B2C3D4E5F6", 1234)
    assert encode_frame(MsgType.CARD_DRAWN, 1, payload) in lines
    assert encode_frame(MsgType.CARD_DRAWN, 1, payload, 1) in lines
    assert encode_frame(MsgType.ACK, 0, U16.pack(1)) in lines
    assert encode_frame(MsgType.NAK, 0, b"") in lines


def test_line_reader_examples_decode() -> None:
    lines = hex_lines()
    reader = next(b for b in lines if b.startswith(b"READER|"))
    assert LineReaderProtocol("reader").feed(reader, 0.0) == [CardDrawn("04A1B2C3D4", None, 0.0)]
    id12 = next(b for b in lines if b[0] == 0x02)
    assert LineReaderProtocol("id12").feed(id12, 0.0) == [CardDrawn("0102030405", None, 0.0)]
