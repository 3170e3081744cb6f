"""SIGKILL of the daemon while it starts (journal replay, device sync, feeds), again and again.

The table is left mid-hand; the daemon is then started and killed at random moments of its
start-up; the last start must come up in the same state (status, dealer snapshot, surveillance
snapshot with the hole cards) and the journal must verify.
"""

from __future__ import annotations

import json

import pytest

from table_controller.simtable.soak import run_startup_kills
from tests.reliability.counts import COUNTS


def startup_kills(kills: int, seed: int) -> None:
    rep = run_startup_kills(kills, seed=seed, max_delay=0.9)
    print(json.dumps(rep.to_dict()))
    COUNTS["kills during start-up"] += rep.kills - rep.ready_before_kill
    COUNTS["kills just after start-up"] += rep.ready_before_kill
    COUNTS["state mismatches after restart"] += len(rep.mismatches)
    assert rep.kills == kills
    assert rep.mismatches == []


def test_kills_during_start_up() -> None:
    startup_kills(5, seed=1)


@pytest.mark.slow
def test_kills_during_start_up_long() -> None:
    startup_kills(40, seed=2)
