"""Publishing: what each output of the core becomes on the feeds, sent in order by one task.

Rules this module keeps:

1. One table: :data:`PUBLISH_RULES` maps every output type of the core to the coroutine that
   sends it, or to ``None`` for an output that is not published (a reply goes back on the
   command endpoint). A new output type is one line here (and one in :mod:`.journaling`); a test
   checks that every output type has a rule.
2. Only journaled outputs are queued (the daemon queues after the journal commit); one task
   sends them in order, so the feeds see the journal's order.
3. The prompt first: it is what the dealer waits for. It goes on the dealer feed before any
   other message of the same input, then to the other feeds; the whole ``table_state`` (built
   from the core, the costliest message) goes last, and only when nothing else waits.
4. After the prompt the publisher yields to the loop once: what the input path queued behind
   it (the journal's deferred anchor, a durable write during which the CPU is idle, and the
   read's ACKs) runs before the input's other messages are built, so their encoding does not
   compete with the prompt's ZeroMQ hop for the CPU (measured in ``docs/benchmarks.md``).
5. The prompt leaves with its journal commit: when the publisher is idle (nothing queued or
   being sent, so every earlier output is on the feeds), :meth:`Publisher.put` sends the
   prompt itself, at once (:meth:`FeedHub.send_now`), and queues the input's other outputs for
   the task; otherwise the prompt waits its turn in the queue. Either way the feeds see the
   journal's order, and the prompt is never sent before its input's entries are committed (the
   daemon puts only journaled outputs).
6. A prompt sent at once leaves on the dealer feed, then the caller's ``between`` runs (the
   daemon writes the journal's anchor there: a disk write, during which the CPU is left to the
   dealer's subscriber while the prompt crosses), then the public and surveillance copies are
   sent. Each feed still sees the journal's order; only the order across feeds changes.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from hardware.base import DeviceStatus
from table_controller.controller.core import TableCore
from table_controller.controller.events import (
    Announcement,
    Applied,
    HandEnded,
    HandStarted,
    HoldEntered,
    HoldLifted,
    IrregularityRaised,
    Output,
    Prompt,
    Reply,
    Resolved,
)
from table_controller.errors import TableError
from table_controller.feeds import Feed, FeedHub, HoleCardLeak

log = logging.getLogger(__name__)

Sender = Callable[[FeedHub, Any], Awaitable[None]]
_O = TypeVar("_O")

#: Output type -> how it is published, or ``None`` when it is not.
PUBLISH_RULES: dict[type, Sender | None] = {Reply: None}


def publish_rule(cls: type[_O]) -> Callable[[Callable[[FeedHub, _O], Awaitable[None]]],
                                            Callable[[FeedHub, _O], Awaitable[None]]]:
    """Register the decorated coroutine function as the publish rule of output type ``cls``."""
    def register(fn: Callable[[FeedHub, _O], Awaitable[None]]
                 ) -> Callable[[FeedHub, _O], Awaitable[None]]:
        PUBLISH_RULES[cls] = fn
        return fn
    return register


#: The feeds a prompt goes to, the dealer's first: it waits for it.
PROMPT_FEEDS = (Feed.DEALER, Feed.PUBLIC, Feed.SURVEILLANCE)


def send_prompt(hub: FeedHub, o: Prompt, between: Callable[[], None] | None = None) -> None:
    """Send a prompt to every feed now, the dealer's first (one body for them all).

    :param between: called once the dealer's copy was sent, before the other feeds' copies
        (:meth:`FeedHub.send_now`).
    """
    data = o.to_dict()
    hub.send_now({f: (data, None) for f in PROMPT_FEEDS}, "prompt", between=between)


@publish_rule(Prompt)
async def _prompt(hub: FeedHub, o: Prompt) -> None:
    send_prompt(hub, o)


@publish_rule(Announcement)
async def _announcement(hub: FeedHub, o: Announcement) -> None:
    await hub.broadcast("announcement", o.to_dict())


@publish_rule(Applied)
async def _applied(hub: FeedHub, o: Applied) -> None:
    body = {"text": o.text, **dict(o.data)}
    await hub.broadcast_to({Feed.PUBLIC: (body, None), Feed.DEALER: (body, None),
                            Feed.SURVEILLANCE: ({**body, **dict(o.secret)}, None)}, "event")


@publish_rule(IrregularityRaised)
async def _irregularity(hub: FeedHub, o: IrregularityRaised) -> None:
    body = o.to_dict()
    await hub.broadcast_to({Feed.PUBLIC: (body, None), Feed.DEALER: (body, None),
                            Feed.SURVEILLANCE: ({**body, "secret": dict(o.secret)}, None)},
                           "irregularity")


@publish_rule(HoldEntered)
async def _hold(hub: FeedHub, o: HoldEntered) -> None:
    await hub.broadcast("hold", {"reason": o.reason, "irregularity": o.irregularity})


@publish_rule(HoldLifted)
async def _resume(hub: FeedHub, o: HoldLifted) -> None:
    await hub.broadcast("resume", {"note": o.note})


@publish_rule(Resolved)
async def _resolution(hub: FeedHub, o: Resolved) -> None:
    await hub.broadcast("resolution", {"irregularity": o.irregularity, "note": o.note})


@publish_rule(HandStarted)
async def _hand_start(hub: FeedHub, o: HandStarted) -> None:
    await hub.broadcast("hand_start", {"hand": o.number})


@publish_rule(HandEnded)
async def _hand_end(hub: FeedHub, o: HandEnded) -> None:
    await hub.broadcast("hand_end", {"hand": o.number, "voided": o.voided,
                                     "final_stacks": {str(s): v for s, v in
                                                      o.final_stacks.items()}})


def device_links(core: TableCore, statuses: Mapping[str, DeviceStatus]) -> dict[str, str]:
    """Return each device's link as the table state shows it (``camera``: ``unavailable``)."""
    links = {n: statuses[n].link if n in statuses else core.devices.get(n, "ok")
             for n in ("shoe", "chips", "camera")}
    if "camera" not in statuses:
        links["camera"] = "unavailable"
    return links


class Publisher:
    """Sends the daemon's journaled outputs in order, then the table state.

    :param core: the core (read for the table state and the secret cards).
    :param statuses: returns the devices' health snapshots.
    :param extra: fields added to every table state (table id, PHH directory).
    """

    def __init__(self, core: TableCore, statuses: Callable[[], Mapping[str, DeviceStatus]],
                 extra: Mapping[str, Any]) -> None:
        self.core = core
        self.statuses = statuses
        self.extra = dict(extra)
        self.hub: FeedHub | None = None
        #: what is queued, and whether its prompt was sent already (rule 5)
        self.queue: asyncio.Queue[tuple[list[Output], bool]] = asyncio.Queue()
        self._idle = False

    def put(self, out: list[Output], between: Callable[[], None] | None = None) -> bool:
        """Queue journaled outputs (an empty list: the table state alone).

        A prompt among them is sent before this returns when the publisher is idle (rule 5).

        :param between: for a prompt sent now, called once its dealer copy was sent, before
            its other feeds' copies (rule 6).
        :returns: whether a prompt was sent (or refused by the hole-card guard) now.
        """
        hub = self.hub
        if hub is not None and self._idle and self.queue.empty():
            for i, o in enumerate(out):
                if type(o) is Prompt:
                    try:
                        hub.set_secret_cards(self.core.secret_cards())
                        send_prompt(hub, o, between)
                    except HoleCardLeak as exc:  # refused on every feed: a bug, logged
                        log.error("not published (hole card guard): %s", exc)
                    except TableError as exc:  # as a failed send of the whole input
                        log.error("publishing failed: %s", exc)
                        return True
                    self.queue.put_nowait(([*out[:i], *out[i + 1:]], True))
                    return True
        self.queue.put_nowait((out, False))
        return False

    def take_all(self) -> list[Output]:
        """Remove and return what is queued, not sent (for tests and in-process use)."""
        out: list[Output] = []
        while not self.queue.empty():
            out.extend(self.queue.get_nowait()[0])
        return out

    async def run(self, hub: FeedHub) -> None:
        """Send what is queued, in order, until cancelled."""
        self.hub = hub
        while True:
            self._idle = True
            try:
                out, prompt_sent = await self.queue.get()
            finally:
                self._idle = False
            try:
                if prompt_sent:
                    await asyncio.sleep(0)  # the anchor and the ACKs queued behind it (rule 4)
                await self.send(hub, out, state=self.queue.empty())
            except TableError as exc:
                log.error("publishing failed: %s", exc)

    async def send(self, hub: FeedHub, out: list[Output], *, state: bool) -> None:
        """Send one input's outputs (the prompt first), then the table state if ``state``."""
        hub.set_secret_cards(self.core.secret_cards())
        for o in sorted(out, key=lambda o: not isinstance(o, Prompt)):
            rule = PUBLISH_RULES[type(o)]
            if rule is None:
                continue
            try:
                await rule(hub, o)
                if type(o) is Prompt:
                    await asyncio.sleep(0)  # the anchor and the ACKs queued behind it (rule 4)
            except HoleCardLeak as exc:  # the hub refused it on every feed: a bug, logged
                log.error("not published (hole card guard): %s", exc)
        if state:
            await self.send_state(hub)

    async def send_state(self, hub: FeedHub) -> None:
        """Send the whole table state (also each feed's snapshot)."""
        core = self.core
        statuses = self.statuses()
        extra: dict[str, Any] = {**self.extra, "devices": device_links(core, statuses),
                                 "device_health": {n: dataclasses.asdict(s)
                                                   for n, s in statuses.items()}}
        public = {**core.view(), **extra}
        secret = {**core.view(secret=True), **extra}
        await hub.broadcast_to({Feed.PUBLIC: (public, public), Feed.DEALER: (public, public),
                                Feed.SURVEILLANCE: (secret, secret)}, "table_state")
