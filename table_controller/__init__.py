"""Casino table controller for no-limit Texas hold'em.

Packages: :mod:`table_controller.engine` (pure rules), :mod:`table_controller.controller`
(reconciliation of sensed events with the rules), :mod:`table_controller.journal`
(SQLite journal, recovery, recall, PHH export), :mod:`table_controller.feeds` (ZeroMQ),
:mod:`table_controller.cli` (the ``table-controller`` command) and
:mod:`table_controller.displays` (terminal displays).
"""

__version__ = "0.1.0"
