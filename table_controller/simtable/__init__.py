"""The simulated table: players, a dealer that follows the daemon's prompts, demo and scenarios.

- :mod:`.players` — seeded simulated players (:class:`~.players.Player`) and scripted actions.
- :mod:`.engine_table` — the table played on the rules engine alone (tests, benchmark baseline).
"""
