"""Deliberately broken simulated shoes: what ``check-device`` must catch.

- :class:`NoResendShoe` never resends a frame (neither on NAK nor on timeout);
- :class:`BadCrcShoe` sends its heartbeats with a wrong CRC.

Everything else about them is a conforming :class:`~hardware.sim.shoe.SimShoe`.
"""

from __future__ import annotations

from hardware.link.protocol import DeviceLink, Frame
from hardware.sim.shoe import SimShoe


class _NoResendLink(DeviceLink):
    """A device link that forgets to resend."""

    def feed(self, data: bytes, now: float) -> tuple[list[Frame], list[bytes]]:
        """Take host bytes; answer an empty NAK with HELLO, but drop the resends asked for."""
        commands, resend = super().feed(data, now)
        hello = self.hello()
        return commands, [w for w in resend if w == hello]

    def poll(self, now: float) -> list[bytes]:
        """Never resend on timeout."""
        return []


class _BadCrcLink(DeviceLink):
    """A device link whose unsequenced frames (heartbeats) carry a wrong CRC."""

    def unsequenced(self, msg_type: int, payload: bytes = b"") -> bytes:
        """Encode the frame, then flip a CRC bit."""
        wire = bytearray(super().unsequenced(msg_type, payload))
        wire[-2] ^= 0x01 if wire[-2] != 0x01 else 0x02
        return bytes(wire)


class NoResendShoe(SimShoe):
    """A shoe that never resends."""

    def _new_link(self, boot_id: int) -> DeviceLink:
        return _NoResendLink(kind=self.kind_code, firmware=self.firmware, boot_id=boot_id,
                             retransmit_after=self.retransmit_after, window=self.window)


class BadCrcShoe(SimShoe):
    """A shoe whose heartbeats fail their CRC."""

    def _new_link(self, boot_id: int) -> DeviceLink:
        return _BadCrcLink(kind=self.kind_code, firmware=self.firmware, boot_id=boot_id,
                           retransmit_after=self.retransmit_after, window=self.window)
