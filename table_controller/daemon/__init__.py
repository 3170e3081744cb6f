"""The controller daemon (``table-controller run``): devices, journal, recovery, feeds, commands.

One module per job:

- :mod:`.lifecycle`: :class:`Daemon` (start order, recovery first, stop in reverse),
  :func:`run_daemon`, the exit statuses;
- :mod:`.inputs`: the input path, a part of :class:`Daemon`: device events, the core's one
  timer, dealer commands, one at a time, journal first;
- :mod:`.setup`: the core and its calibration from the configuration (:func:`build_core`);
- :mod:`.recovery`: replay of the journal, the clock that never goes behind it;
- :mod:`.devices`: devices by URL, HELLO and sync, ACK release, the board source's loop, device
  events -> inputs (:data:`~.devices.EVENT_INPUTS`);
- :mod:`.journaling`: output -> journal entry (:data:`~.journaling.JOURNAL_RULES`), link faults;
- :mod:`.publishing`: output -> feeds (:data:`~.publishing.PUBLISH_RULES`), the table state.
"""

from table_controller.daemon.devices import device_input
from table_controller.daemon.lifecycle import (
    EXIT_CONFIG,
    EXIT_DAMAGED,
    EXIT_JOURNAL,
    EXIT_OK,
    Daemon,
    run_daemon,
)
from table_controller.daemon.setup import SETTLE, build_core, load_deck, table_config

__all__ = ["EXIT_CONFIG", "EXIT_DAMAGED", "EXIT_JOURNAL", "EXIT_OK", "SETTLE", "Daemon",
           "build_core", "device_input", "load_deck", "run_daemon", "table_config"]
