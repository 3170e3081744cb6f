"""The simulators of ``sim run``: faults at rates or once, and a log of what they sent.

:class:`BenchShoe`, :class:`BenchChips` and :class:`BenchRfid` are the reference-protocol
simulators with a :class:`RateFaults` each (faults drawn per data frame at given rates, or queued
for the next frames once, and a stall to begin right after the next frame) and a
:class:`SentLog` (counts per message type, the last frames); :func:`link_state` is what the
``state`` verb shows of them. The faults are seeded: the same seed draws the same faults.
"""

from __future__ import annotations

import random
from collections import Counter, deque
from collections.abc import Callable
from typing import Any

from hardware.link.protocol import MsgType
from hardware.sim.chips import SimChipSensor
from hardware.sim.device import Fault, SimDevice
from hardware.sim.rfidchips import SimRfidChips
from hardware.sim.shoe import SimShoe


class RateFaults:
    """Faults drawn per data frame at given rates (seeded).

    >>> r = RateFaults(1)
    >>> r.rates[Fault.DUPLICATE] = 1.0
    >>> r.draw()
    [<Fault.DUPLICATE: 'duplicate'>]
    >>> r.rates.clear(); r.once.append(Fault.SPLIT); r.draw(), r.draw(), dict(r.injected)
    ([<Fault.SPLIT: 'split'>], [], {'duplicate': 1, 'split': 1})
    """

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.rates: dict[Fault, float] = {}
        #: faults asked for once, for the next data frames in order (``fault DEV KIND once``)
        self.once: deque[Fault] = deque()
        #: faults applied so far, by kind (rate-drawn and one-shot alike)
        self.injected: Counter[str] = Counter()
        #: a stall to begin right after the next data frame is written (``stall ... next``)
        self.stall_after: float | None = None

    def take_stall(self) -> float | None:
        """Return the stall to begin now a data frame is out, if one was asked for."""
        seconds, self.stall_after = self.stall_after, None
        return seconds

    def draw(self) -> list[Fault]:
        """Return the faults the next data frame gets (the one-shot ones first)."""
        out = [self.once.popleft()] if self.once else []
        out += [f for f, rate in self.rates.items() if self.rng.random() < rate]
        for f in out:
            self.injected[f.value] += 1
        return out


class SentLog:
    """What a device sent: a count per message type and the last few, described."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.last: deque[str] = deque(maxlen=20)

    def record(self, msg_type: int, text: str) -> None:
        """Count one data frame of ``msg_type`` and keep its description."""
        try:
            name = MsgType(msg_type).name
        except ValueError:
            name = f"0x{msg_type:02X}"
        self.counts[name] += 1
        self.last.append(f"{name} {text}".strip())


class _BenchFaults(SimDevice):
    """The faults and sent log of a bench simulator (a base put before the device's own class).

    Each data frame goes out through the faults drawn for it and is counted in :attr:`sent`; a
    stall asked for "next" begins right after it.
    """

    def __init__(self, *args: Any, fault_seed: int = 0, **options: Any) -> None:
        self.faults = RateFaults(fault_seed)
        self.sent = SentLog()
        super().__init__(*args, **options)

    def sent_text(self, msg_type: int) -> str:
        """Return how the log describes a data frame of ``msg_type`` (nothing by default)."""
        return ""

    def emit(self, msg_type: int, payload: bytes, now: float | None = None) -> None:
        """Send one data frame, through the faults drawn for it."""
        self.inject(*self.faults.draw())
        self.sent.record(msg_type, self.sent_text(msg_type))
        super().emit(msg_type, payload, now)
        if (stall := self.faults.take_stall()) is not None:
            self.stall(stall)


class BenchShoe(_BenchFaults, SimShoe):
    """A :class:`SimShoe` that injects faults at rates and records what it sent."""

    def __init__(self, *args: Any, fault_seed: int = 0, **options: Any) -> None:
        self.describe: Callable[[str], str] = str
        super().__init__(*args, fault_seed=fault_seed, **options)

    def sent_text(self, msg_type: int) -> str:
        """Describe a drawn card as the log shows it (the last card the shoe gave)."""
        if msg_type == MsgType.CARD_DRAWN and self.drawn:
            return self.describe(self.drawn[-1])
        return ""


class BenchChips(_BenchFaults, SimChipSensor):
    """A :class:`SimChipSensor` that injects faults at rates and records what it sent."""


class BenchRfid(_BenchFaults, SimRfidChips):
    """A :class:`SimRfidChips` that injects faults at rates and records what it sent."""


def link_state(dev: SimDevice, faults: RateFaults, sent: SentLog) -> dict[str, Any]:
    """Return what ``state`` shows of a reference-protocol device's link and faults."""
    return {"plugged": dev.port.plugged, "boot_id": dev.link.boot_id, "pending": dev.pending,
            "retransmitted": dev.retransmitted, "overflowed": dev.link.overflowed,
            "window": dev.link.window, "sent": dict(sent.counts),
            "last_sent": list(sent.last), "faults": {f.value: r for f, r in faults.rates.items()},
            "once": [f.value for f in faults.once], "injected": dict(faults.injected)}
