"""Reads that a crash or an overflowing device could lose are kept, or shown.

- SIGKILL of the daemon 1-3.5 ms after the shoe sends a card: the read must survive (journaled
  before the kill, or resent by the shoe because it was not acknowledged yet). Found losing cards
  at first (the ACK went out before the journal commit; filed in
  docs/reliability.md); fixed by the daemon's deferred ACKs.
- A shoe whose resend buffer overflows while unplugged: the reads it discarded are an
  irregularity that holds the table (entry 4; fixed: ``reads_lost``).
"""

from __future__ import annotations

import json
import time

import pytest

from table_controller.simtable.devices.hands import feeder_of, hands_of
from table_controller.simtable.rig import RigOptions
from table_controller.simtable.soak import SyncConsole, post_blinds, run_crash_window, start_rig
from tests.reliability.counts import COUNTS


def crash_window(attempts: int, seed: int) -> None:
    rep = run_crash_window(attempts, seed=seed, min_delay=0.001, max_delay=0.0035,
                           time_budget=attempts * 120.0)
    print(json.dumps(rep.to_dict()))
    COUNTS["card-read kills"] += rep.attempts
    COUNTS["card reads lost at a kill"] += len(rep.lost)
    assert not rep.error, rep.error
    assert rep.attempts >= min(attempts, 3)
    assert rep.lost == [], rep.lost
    assert rep.kept == rep.attempts


def test_a_card_read_survives_a_kill_right_after_it() -> None:
    crash_window(3, seed=2)


@pytest.mark.slow
def test_a_card_read_survives_a_kill_right_after_it_long() -> None:
    crash_window(60, seed=3)


def test_reads_a_device_discarded_hold_the_table() -> None:
    rig = start_rig(RigOptions(seats=6, security="curve", camera_level="exact"), tcp=True)
    c = SyncConsole(rig, "frames-lost")
    try:
        for seat in (1, 2, 3):
            c.ok({"command": "seat", "seat": seat, "player": f"p{seat}", "stack": 10_000})
        shoe, hands = feeder_of(rig), hands_of(rig)
        shoe.load_deck([rig.uid(card) for card in rig.profile.cards.values()])
        c.ok({"command": "start"})
        assert post_blinds(c, rig)["kind"] == "deal_hole"
        hands.set_window("shoe", 1)  # the shoe's firmware keeps one unacknowledged frame
        hands.unplug("shoe")
        deadline = time.monotonic() + 30
        while c.status()["devices"]["shoe"] != "lost":
            assert time.monotonic() < deadline, "the unplug was not shown"
            time.sleep(0.05)
        for _ in range(3):
            shoe.draw()
        assert hands.counters("shoe").overflowed == 2
        hands.replug("shoe")
        deadline = time.monotonic() + 30
        while True:
            status = c.status()
            kinds = [i["kind"] for i in status["irregularities"]]
            if "reads_lost" in kinds:
                break
            assert time.monotonic() < deadline, kinds
            time.sleep(0.1)
        lost = next(i for i in status["irregularities"] if i["kind"] == "reads_lost")
        assert "2 reads" in lost["text"], lost
        assert status["held"]
        assert status["device_health"]["shoe"]["lost_frames"] == 2
        COUNTS["device buffer overflows shown"] += 1
    finally:
        c.close()
        assert rig.stop() == 0


def test_a_resent_read_of_an_earlier_hand_is_not_dealt_again_after_a_restart() -> None:
    rig = start_rig(RigOptions(seats=6, security="curve", camera_level="exact"), tcp=True)
    c = SyncConsole(rig, "stale-read")

    def wait_step(changed_from: dict[str, object], timeout: float = 5.0) -> dict[str, object]:
        deadline = time.monotonic() + timeout
        while (step := c.step()) == changed_from:
            assert time.monotonic() < deadline, step
            time.sleep(0.02)
        return step

    try:
        for seat in (1, 2, 3):
            c.ok({"command": "seat", "seat": seat, "player": f"p{seat}", "stack": 10_000})
        shoe, hands = feeder_of(rig), hands_of(rig)
        deck = [rig.uid(card) for card in rig.profile.cards.values()]
        shoe.load_deck(deck)
        c.ok({"command": "start"})
        post_blinds(c, rig)
        for _ in range(5):
            before = c.step()
            shoe.draw()
            wait_step(before)
        # the last hole card: journaled and dealt, but the shoe goes deaf and quiet right after
        # sending it (a brown-out), so the ACK never reaches it and it keeps the frame to resend
        before = c.step()
        hands.stall("shoe", 2.0, after_next=True)
        shoe.draw()
        assert wait_step(before)["kind"] == "act"
        assert hands.counters("shoe").pending == 1
        c.ok({"command": "void", "reason": "next hand"})
        shoe.load_deck(list(reversed(deck)))
        c.ok({"command": "start"})
        first = post_blinds(c, rig)
        assert first == {"kind": "deal_hole", "seat": 2, "round": 1}
        rig.kill()
        rig.start_daemon()
        time.sleep(3.0)  # the shoe wakes up and resends the old read (real I/O)
        assert hands.counters("shoe").pending == 0
        holes = c.snapshot().get("hole_cards")
        assert c.step() == first, f"the old read was dealt again: hole cards {holes}"
    finally:
        c.close()
        rig.stop()
