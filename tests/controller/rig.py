"""The end-to-end tests' table: the one simulation rig with their settings, and its dealer.

:func:`e2e_rig` is a :class:`~table_controller.simtable.rig.SimRig` (simulators on ptys, the
daemon as a separate process) with six seats, blinds 50/100, no rake, TCP endpoints, a 1 s chip
settle window and devices heartbeating every 0.2 s that wait 10 s for an ACK before they resend
(a refused frame is resent at once, on the daemon's NAK; an ACK that a busy machine's disk made
late is not a resend); the daemon is started by the test
(``rig.start_daemon()``). The dealer is the one simulated dealer, stepped by the test:
:func:`~table_controller.simtable.session.dealer_session`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from table_controller.engine import Card
from table_controller.simtable.rig import RigOptions, SimRig

#: The end-to-end table.
E2E = RigOptions(seats=6, rake_percent=0.0, camera_level="exact", tcp=True, settle=1.0,
                 heartbeat=0.25, device_heartbeat=0.2, link_heartbeat=0.2, retransmit=10.0)


def e2e_rig(tmp: Path, *, camera_level: str = "exact") -> SimRig:
    """Start the simulators and write the configuration in ``tmp`` (not the daemon)."""
    rig = SimRig(replace(E2E, camera_level=camera_level), workdir=tmp)
    rig.start(daemon=False)
    return rig


def cards(codes: list[str]) -> list[Card]:
    """Parse card codes (``"Ah"``)."""
    return [Card.parse(c) for c in codes]
