"""The controller: reconciles the shoe, chip sensors and camera with the engine.

Public API:

- :class:`TableCore` (:mod:`.core`) — the sans-IO core, ``handle(input, now) -> list[Output]``,
  ``preview``, ``view``, ``summary``, ``secret_cards``, ``next_deadline``, ``enter_hold``.
- Inputs and outputs (:mod:`.events`): ``CardRead``, ``ZoneSeen``, ``TraySeen``, ``BoardSeen``,
  ``DeviceDown``, ``DeviceUp``, ``ReadsLost``, ``DealerCommand``, ``Restarted``, ``Tick``;
  ``Prompt``, ``Announcement``, ``Applied``, ``IrregularityRaised``, ``HoldEntered``,
  ``HoldLifted``, ``Resolved``, ``HandStarted``, ``HandEnded``, ``Reply``; ``input_from_dict``.
- Irregularity kinds and the extension point (:mod:`.irregularities`): ``KINDS``,
  ``register_kind``, ``Finding``, ``IrregularityRules``.
- Board sources (:mod:`.camera`, re-exported from :mod:`hardware.camera.source`):
  ``FrameBoardSource``, ``BoardObserved``.

The daemon (``table-controller run``) is :mod:`table_controller.daemon`.
"""

from table_controller.controller.core import TableCore
from table_controller.controller.events import (
    Announcement,
    Applied,
    BoardSeen,
    CardRead,
    ControllerInput,
    DealerCommand,
    DeviceDown,
    DeviceUp,
    HandEnded,
    HandStarted,
    HoldEntered,
    HoldLifted,
    IrregularityRaised,
    Output,
    Prompt,
    ReadsLost,
    Reply,
    Resolved,
    Restarted,
    Tick,
    TraySeen,
    ZoneSeen,
    input_from_dict,
)

__all__ = [
    "Announcement",
    "Applied",
    "BoardSeen",
    "CardRead",
    "ControllerInput",
    "DealerCommand",
    "DeviceDown",
    "DeviceUp",
    "HandEnded",
    "HandStarted",
    "HoldEntered",
    "HoldLifted",
    "IrregularityRaised",
    "Output",
    "Prompt",
    "ReadsLost",
    "Reply",
    "Resolved",
    "Restarted",
    "TableCore",
    "Tick",
    "TraySeen",
    "ZoneSeen",
    "input_from_dict",
]
