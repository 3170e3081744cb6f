"""The soak's plan: what it runs (:class:`SoakOptions`), which faults it injects and where.

Link faults (:class:`~hardware.sim.device.Fault`) are injected into the device the prompt is
about to use, just before its next data frame, so every injected fault meets a frame; the ones in
:data:`SHOWN_BY` must leave a trace in the host's device counters. :func:`start_rig` starts the
simulated table a soak or a probe runs on (the one :class:`~table_controller.simtable.rig.SimRig`,
endpoints on TCP).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from hardware.sim.device import Fault
from table_controller.errors import TableError
from table_controller.simtable.rig import RigOptions, SimRig

#: Link faults injected by the soak (all of :class:`Fault`).
LINK_FAULTS = tuple(Fault)
#: Faults the host must notice: each leaves a trace in the device counters.
#: A split frame is reassembled and a lost ACK is covered by the next cumulative ACK: both are
#: absorbed by design and leave no trace (they are still counted as injected).
SHOWN_BY = {Fault.CORRUPT_CRC: "bad_frames", Fault.DROP_BYTES: "bad_frames",
            Fault.DUPLICATE: "duplicates", Fault.DROP_FRAME: "retransmissions"}
#: Prompt kinds after which the shoe sends a frame / the chip sensors send frames (an action may
#: move no chips, so faults are not injected before one: a fault must meet a frame).
SHOE_STEPS = frozenset({"deal_hole", "burn", "board"})
CHIP_STEPS = frozenset({"post", "collect", "award"})
#: Seconds after a card is drawn during which a SIGKILL could lose the read while the driver
#: acknowledged frames before the daemon journaled them (found here, fixed by the daemon's
#: deferred ACKs; probed by :func:`run_crash_window`). With ``spare_card_window`` on, in-flight
#: kills after a card step wait this long first.
CARD_WINDOW = 0.02

class SoakError(TableError):
    """The soak could not run (the message says which part failed)."""



@dataclass(slots=True)
class SoakOptions:
    """What to run.

    :param hands: hands to play (fewer if ``time_budget`` runs out first).
    :param link_fault_rate: chance per prompt of one link fault, on the device the prompt uses.
    :param unplug_rate: chance per prompt of pulling the shoe's or the chip sensors' cable.
    :param kill_rate: chance per prompt of a SIGKILL of the daemon (then a restart).
    :param quiet_kill_share: share of kills taken at an idle table with a snapshot comparison.
    :param spare_card_window: an in-flight kill after a card step waits :data:`CARD_WINDOW`
        first (to measure the rest while a loss right after a card read is being fixed;
        :func:`run_crash_window` probes that window on its own). Off by default.
    :param time_budget: seconds after which no new hand is started.
    :param taps: listen on the public side with subscribers of every kind (:class:`FeedTaps`)
        and check that none of them got a secret card (runs without kills: the hand of each
        message is told from the stream's order).
    :param camera_level: the simulated camera (``exact`` reads the board file as written; the
        rendered levels cost about 0.4 s a frame and lag behind a fast dealer).
    """

    hands: int = 10
    seed: int = 1
    seats: int = 6
    players: int = 5
    buy_in: int = 10_000
    link_fault_rate: float = 0.0
    unplug_rate: float = 0.0
    unplug_seconds: float = 0.3
    kill_rate: float = 0.0
    quiet_kill_share: float = 0.5
    spare_card_window: bool = False
    time_budget: float = 300.0
    tcp: bool = True
    rake_percent: float = 0.0
    settle: float = 1.0
    camera_level: str = "exact"
    taps: bool = False
    #: print a progress line (standard error) after each hand
    progress: bool = False
    keep: bool = False




def start_rig(options: RigOptions, *, tcp: bool = True, settle: float = 1.0,
              keep: bool = False) -> SimRig:
    """Start a :class:`SimRig` for a soak or a probe (endpoints on TCP, ``--settle settle``).

    :raises RigError: if it cannot start (see :meth:`SimRig.start` for stale ptys).
    """
    rig = SimRig(dataclasses.replace(options, tcp=tcp, settle=settle), keep=keep)
    rig.start()
    return rig
