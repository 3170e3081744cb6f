"""The controller core's cost per command and per input over the table's life.

``python -m benchmarks core`` raises and resolves 0, 1,000 and 5,000 irregularities (cards drawn
between hands, each resolved) on a core, starts a hand, and then times, side by side:

- deciding and applying a typical command (``status``, ``call``, ``resolve``): ``decide`` (a
  pure check) then ``handle``, as the daemon does now;
- the old way as the baseline: ``copy.deepcopy(core)`` and ``handle`` on the copy (the decision
  the daemon used to make), then ``handle`` on the core;
- one device input (a chip zone report, on a core without chip sensors);
- one card read (a hole card dealt) on a core *with* chip sensors, as the daemon has: the card,
  the chip check against the hand's layout, the prompt (median of 600 cards, each timed once);
- the size of the ``status`` result and of the surveillance state.

The figures should be flat over the table's life (5,000 within ~1.5x of 0) and far below the
deepcopy baseline.
"""

from __future__ import annotations

import copy
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence

from calibration.chips import default_chip_config
from hardware.sim.shoe import sim_deck_profile
from table_controller.controller.core import TableCore
from table_controller.controller.events import CardRead, DealerCommand, ZoneSeen
from table_controller.engine import TableConfig

DECK = sim_deck_profile(1)
UIDS = sorted(DECK)


def _core(irregularities: int) -> TableCore:
    core = TableCore(TableConfig(seats=6, small_blind=50, big_blind=100), DECK,
                     None, settle=1.5)
    now = 0.0
    for seat in (1, 2, 3):
        core.handle(DealerCommand("seat", {"seat": seat, "player": f"p{seat}",
                                           "stack": 10_000}), now)
    for n in range(irregularities):
        now += 1.0  # past the shoe's repeat window
        core.handle(_card(n), now)
        core.handle(DealerCommand("resolve", {"note": "returned"}), now)
    core.handle(DealerCommand("start", {}), now + 1)
    core.handle(DealerCommand("confirm", {}), now + 1)  # small blind
    core.handle(DealerCommand("confirm", {}), now + 1)  # big blind
    return core


def _card(n: int) -> CardRead:
    return CardRead(UIDS[n % len(UIDS)], None)


def _time(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(repeat):
            fn()
        best = min(best, (time.perf_counter() - t0) / repeat)
    return best * 1e6


def card_read_us(hands: int = 100, seed: int = 1) -> float:
    """Return the median microseconds of one hole card read on a core with chip sensors."""
    core = TableCore(TableConfig(seats=6, small_blind=50, big_blind=100), DECK,
                     default_chip_config(6), settle=1.5)
    now = 1.0
    for seat in (1, 2, 3):
        core.handle(DealerCommand("seat", {"seat": seat, "player": f"p{seat}",
                                           "stack": 10_000}), now)
    rng = random.Random(seed)
    times: list[float] = []
    for n in range(hands + 10):
        for name in ("start", "confirm", "confirm"):  # the hand, its two blinds
            core.handle(DealerCommand(name, {}), now)
        uids = list(UIDS)
        rng.shuffle(uids)
        for k in range(6):  # three seats, two hole cards each
            card = CardRead(uids[k], k)
            t0 = time.perf_counter()
            core.handle(card, now)
            if n >= 10:  # after a warm-up
                times.append(time.perf_counter() - t0)
            now += 0.001
        core.handle(DealerCommand("void", {"reason": "benchmark"}), now)
        now += 1.0
    return statistics.median(times) * 1e6


def bench(irregularities: int, repeat: int = 50) -> dict[str, float]:
    """Return microseconds per command / input, and message sizes in bytes."""
    core = _core(irregularities)
    now = 10_000_000.0
    out: dict[str, float] = {}
    status = DealerCommand("status", {})
    out["status_us"] = _time(lambda: (core.decide(status, now), core.handle(status, now)), repeat)
    out["status_deepcopy_us"] = _time(
        lambda: (copy.deepcopy(core).handle(status, now), core.handle(status, now)), 5)
    hand = core.hand
    assert hand is not None
    seat = getattr(hand.expected(), "seat", 1)
    call = DealerCommand("call", {"seat": seat})
    out["call_decide_us"] = _time(lambda: core.decide(call, now), repeat)
    out["call_deepcopy_us"] = _time(lambda: copy.deepcopy(core).handle(call, now), 5)
    resolve = DealerCommand("resolve", {"note": "x"})
    out["resolve_decide_us"] = _time(lambda: core.decide(resolve, now), repeat)
    out["resolve_deepcopy_us"] = _time(lambda: copy.deepcopy(core).handle(resolve, now), 5)
    zone = ZoneSeen(1, ())  # without chip sensors: the cost of the entry, the rules, the prompt
    out["input_us"] = _time(lambda: core.handle(zone, now), repeat)
    out["status_bytes"] = len(json.dumps(core.summary()))
    out["state_bytes"] = len(json.dumps(core.view(secret=True)))
    return out


def main(argv: Sequence[str] = ()) -> None:
    """Print the figures for 0, 1,000 and 5,000 irregularities over the table's life."""
    sizes = [int(a) for a in argv] or [0, 1_000, 5_000]
    rows = {n: bench(n) for n in sizes}
    keys = ["status_us", "status_deepcopy_us", "call_decide_us", "call_deepcopy_us",
            "resolve_decide_us", "resolve_deepcopy_us", "input_us", "status_bytes",
            "state_bytes"]
    print("irregularities over the life: " + "  ".join(f"{n:>10,}" for n in sizes))
    for k in keys:
        print(f"{k:<29} " + "  ".join(f"{rows[n][k]:>10,.1f}" for n in sizes))
    print(f"card read, chip sensors: {card_read_us():,.1f} us (median)")


if __name__ == "__main__":
    main(sys.argv[1:])
