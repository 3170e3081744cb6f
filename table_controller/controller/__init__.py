"""The controller: reconciles the shoe, chip sensors and camera with the engine; the daemon.

Public API:

- :class:`~table_controller.controller.core.TableCore` — the sans-IO core,
  ``handle(input, now) -> list[Output]``.
- Inputs and outputs in :mod:`table_controller.controller.events`.
- Irregularity kinds and the extension point in :mod:`table_controller.controller.irregularities`.
- The daemon (``table-controller run``) in :mod:`table_controller.controller.daemon`.
"""
