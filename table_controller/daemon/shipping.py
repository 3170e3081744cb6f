"""The journal shipper's progress on the table's feeds: one small ``shipping`` message a change.

The shipper (:mod:`table_controller.central.shipper`, its own process) writes its progress to a
status file; :func:`follow_shipping` reads that file every ``interval`` seconds and, when what
a person would see changes (the state, how far behind, the last shipped entry, the error), sends
a ``shipping`` message on every feed and keeps the body in the table state (``shipping``), so a
display that connects later has it in its snapshot. Message body (``docs/messages.md``):

``status``
    the shipper's state (``starting``, ``shipping``, ``caught_up``, ``retrying``, ``refused``,
    ``stopped``), ``silent`` when the status file has not been written for
    :data:`SILENT_AFTER` seconds (the shipper is not running), ``unknown`` when there is no
    status file yet;
``behind``, ``local_seq``, ``shipped_seq``
    entries not yet in the central store, the newest local entry, the newest shipped one;
``last_shipped_at``
    wall time of the last batch committed centrally (``null``: none since the shipper started);
``error``
    the last failure in words, at most :data:`ERROR_CHARS` characters (``""``: none);
``updated_at``
    when the shipper last wrote its status.

Rules this module keeps: it only reads a small local file (never the database); a broken or
missing file is a ``status`` to show, never an exception that stops the daemon; the body passes
the feeds' hole-card guard like every message (an error text the guard refuses is replaced).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import Any

from table_controller.errors import TableError
from table_controller.feeds import Feed, FeedHub, HoleCardLeak

log = logging.getLogger(__name__)

#: Seconds without a status write after which the shipper counts as not running.
SILENT_AFTER = 15.0
#: The error text is cut to this length on the feeds.
ERROR_CHARS = 200
#: The message type.
SHIPPING = "shipping"


def shipping_body(path: Path, now: float) -> dict[str, Any]:
    """Return the ``shipping`` message body for the shipper status file at ``path``."""
    from table_controller.central.shipper import read_status

    try:
        st = read_status(path)
    except TableError as exc:
        return {"status": "unknown", "behind": None, "local_seq": None, "shipped_seq": None,
                "last_shipped_at": None, "error": str(exc)[:ERROR_CHARS], "updated_at": None}
    status: str = st.state
    if status not in ("refused", "stopped") and now - st.updated_at > SILENT_AFTER:
        status = "silent"
    return {"status": status, "behind": st.behind, "local_seq": st.local_seq,
            "shipped_seq": st.shipped_seq, "last_shipped_at": st.last_shipped_at,
            "error": st.last_error[:ERROR_CHARS], "updated_at": st.updated_at}


def _shown(body: dict[str, Any]) -> tuple[Any, ...]:
    """Return what a change is measured on (not ``updated_at``: it moves every second)."""
    return (body["status"], body["behind"], body["shipped_seq"], body["last_shipped_at"],
            body["error"])


async def send_shipping(hub: FeedHub, body: dict[str, Any],
                        extra: MutableMapping[str, Any]) -> None:
    """Send one ``shipping`` message on every feed; keep it in each feed's snapshot state.

    :param extra: the publisher's table state extras (the next ``table_state`` carries it).
    """
    extra["shipping"] = body
    items: dict[Feed, tuple[dict[str, Any], dict[str, Any] | None]] = {}
    for feed in Feed:
        current = hub.state(feed)
        items[feed] = (body, {**current, "shipping": body} if current else None)
    await hub.broadcast_to(items, SHIPPING)


async def follow_shipping(path: Path, hub: FeedHub, extra: MutableMapping[str, Any], *,
                          interval: float = 1.0,
                          clock: Callable[[], float] = time.time) -> None:
    """Publish the shipper's progress from its status file when it changes, until cancelled."""
    last: tuple[Any, ...] | None = None
    while True:
        body = shipping_body(path, clock())
        shown = _shown(body)
        if shown != last:
            try:
                try:
                    await send_shipping(hub, body, extra)
                except HoleCardLeak:  # an error text that reads like a secret card: not sent
                    await send_shipping(hub, {**body, "error": "(see the shipper's log)"}, extra)
                last = shown
            except TableError as exc:  # the hub stopping under us; tried again next time
                log.debug("shipping progress not published: %s", exc)
        await asyncio.sleep(interval)
