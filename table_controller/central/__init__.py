"""The central record: every table's journal shipped into one PostgreSQL store.

- :mod:`~table_controller.central.shipper` — :class:`Shipper`, the process beside the daemon.
- :mod:`~table_controller.central.schema` — versioned migrations (``migrate(conn)``).
- :mod:`~table_controller.central.derive` — hands and irregularities derived from entries.
- :mod:`~table_controller.central.query` — search, recall, verify and the shift report.
- :mod:`~table_controller.central.supervise` — start and watch a shipper from the daemon.

The table never depends on it: the journal is written first and is the buffer while the central
store is unreachable. See ``docs/operations.md`` ("Central record").
"""
