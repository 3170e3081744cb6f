"""Long runs under faults: serial faults, unplugs and ``kill -9`` of the daemon, with accounting.

:func:`run_soak` plays seeded hands on a simulated table
(:class:`~table_controller.simtable.rig.SimRig`: simulators over ptys, calibration, CURVE keys)
against the real daemon process, which the rig can kill with
SIGKILL and start again on the same journal. While the
:class:`~table_controller.simtable.dealer.SimDealer` follows the prompts, the run injects, at
seeded random prompts:

- link faults into the shoe or the chip sensors (bad CRC, split frame, cut bytes, lost frame,
  repeated frame, lost ACK: :class:`~hardware.sim.device.Fault`), each just before the device's
  next data frame is due, so every injected fault meets a frame;
- an unplug and re-plug of the shoe or the chip sensors;
- a SIGKILL of the daemon and a restart. A *quiet* kill waits until the table is idle, takes a
  snapshot and the ``status``, kills, restarts, and compares (cards, bets, pots, whose turn, the
  prompt, holds; device health left out), then resends the last accepted command with its seq:
  it must be answered from the record (``replayed``) and change nothing. An *in-flight* kill
  comes right after the dealer acted, while frames and journal writes may be under way.

At the end it compares what the shoe drew (recorded by the dealer, per step) with what the
journal assigned to each seat, burn and board slot (the journal replayed through a fresh core),
checks chip conservation to the chip, the journal's hand brackets and the hand histories, and
fills a :class:`SoakReport`.

Rules this module keeps:

1. Every random choice comes from one ``random.Random(seed)``: a run is reproducible from its
   options (real-time races aside).
2. It only starts what it stops: the daemon process, the simulators, the ZeroMQ context.

Modules: :mod:`.plan` (options, the fault plan, :func:`start_rig`), :mod:`.runner` (the run),
:mod:`.facts` (the journal's account and the card / history checks), :mod:`.leaks` (public-side
subscribers), :mod:`.console` (snapshot and blocking console clients), :mod:`.report` (the
report), :mod:`.probes` (the crash-window and start-up kill probes).
"""

from table_controller.simtable.soak.console import (
    SECRET_STATE_KEYS,
    STATE_KEYS,
    STATUS_KEYS,
    SyncConsole,
    fetch_snapshot,
    post_blinds,
    without_devices,
)
from table_controller.simtable.soak.facts import JournalFacts, read_journal, step_key
from table_controller.simtable.soak.leaks import (
    FeedTaps,
    LeakReport,
    card_codes,
    check_leaks,
    unmasked_secrets,
)
from table_controller.simtable.soak.plan import SoakError, SoakOptions, start_rig
from table_controller.simtable.soak.probes import (
    CrashWindowReport,
    StartupKillReport,
    run_crash_window,
    run_startup_kills,
)
from table_controller.simtable.soak.report import SoakReport
from table_controller.simtable.soak.runner import run_soak

__all__ = [
    "SECRET_STATE_KEYS", "STATE_KEYS", "STATUS_KEYS", "CrashWindowReport", "FeedTaps",
    "JournalFacts", "LeakReport", "SoakError", "SoakOptions", "SoakReport", "StartupKillReport",
    "SyncConsole", "card_codes", "check_leaks", "fetch_snapshot", "post_blinds", "read_journal",
    "run_crash_window", "run_soak", "run_startup_kills", "start_rig", "step_key",
    "unmasked_secrets", "without_devices",
]
