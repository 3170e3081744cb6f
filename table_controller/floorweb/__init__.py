"""The floor staff's web view: many tables' feeds folded server-side, pushed to browsers.

Modules (each one job):

- :mod:`.model` — pure: a :class:`~.model.TableTracker` per table folds
  :class:`~table_controller.feeds.FeedEvent` s (through :mod:`table_controller.displays.view`)
  and gives the JSON-ready floor row and table page, with the ages of holds and alerts;
  :func:`~.model.diff` gives the keys that changed.
- :mod:`.fanout` — the published rows, per-browser bounded queues, coalesced diffs.
- :mod:`.sources` — which feeds to follow (``--table`` / ``--surveillance`` specs) and the
  :class:`~table_controller.feeds.FeedClient` loops.
- :mod:`.auth` — users file (argon2 hashes), server-side sessions, login rate limits.
- :mod:`.app` — the aiohttp application: pages, login / logout, WebSocket, recall.

Static files (HTML, CSS, JS) are package data under ``static/``; nothing is loaded from
elsewhere.
"""
