"""The publisher sends an input's prompt with its put when idle, and keeps the journal's order."""

from __future__ import annotations

import asyncio

import zmq.asyncio

from table_controller.controller.core import TableCore
from table_controller.controller.events import Announcement, Output, Prompt
from table_controller.daemon.publishing import Publisher
from table_controller.engine import TableConfig
from table_controller.feeds import Feed, FeedEndpoints, FeedHub
from tests.controller.helpers import DECK
from tests.feeds.helpers import arun


def _publisher() -> Publisher:
    core = TableCore(TableConfig(seats=6, small_blind=1, big_blind=2), DECK)
    return Publisher(core, dict, {"table": "T1"})


def _prompt(n: int) -> Prompt:
    return Prompt(n, f"step {n}", {"kind": "start_hand"})


def test_an_idle_publisher_sends_the_prompt_in_put() -> None:
    async def body(ctx: zmq.asyncio.Context) -> None:
        async with FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback()) as hub:
            publisher = _publisher()
            task = asyncio.create_task(publisher.run(hub))
            try:
                publisher.put([])  # the first table state
                await asyncio.sleep(0.05)
                base = hub.seq(Feed.DEALER)
                bases = [hub.seq(f) for f in Feed]
                out: list[Output] = [Announcement("button", "the button moves", {}), _prompt(1)]
                assert publisher.put(out) is True
                # sent before put returned: the prompt, on every feed, and nothing else yet
                assert [hub.seq(f) - b for f, b in zip(Feed, bases, strict=True)] == [1, 1, 1]
                # busy (the rest of that input is queued): the next prompt waits its turn
                assert publisher.put([_prompt(2)]) is False
                assert hub.seq(Feed.DEALER) == base + 1
                await asyncio.sleep(0.05)
                # the announcement (no table state: prompt 2 waited), prompt 2, the table state
                assert hub.seq(Feed.DEALER) == base + 4
                assert publisher.take_all() == []
            finally:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)

    arun(body)


def test_a_publisher_not_running_queues_everything() -> None:
    publisher = _publisher()
    out: list[Output] = [_prompt(1)]
    assert publisher.put(out) is False
    assert publisher.take_all() == out


def test_between_runs_after_the_dealer_copy_of_a_prompt_sent_in_put() -> None:
    async def body(ctx: zmq.asyncio.Context) -> None:
        async with FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback()) as hub:
            publisher = _publisher()
            task = asyncio.create_task(publisher.run(hub))
            try:
                publisher.put([])  # the first table state
                await asyncio.sleep(0.05)
                order = (Feed.DEALER, Feed.PUBLIC, Feed.SURVEILLANCE)
                bases = [hub.seq(f) for f in order]
                seen: list[list[int]] = []

                def between() -> None:
                    seen.append([hub.seq(f) - b for f, b in zip(order, bases, strict=True)])

                assert publisher.put([_prompt(1)], between) is True
                assert seen == [[1, 0, 0]]  # the dealer's copy only, then the others
                assert [hub.seq(f) - b for f, b in zip(order, bases, strict=True)] == [1, 1, 1]
            finally:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)

    arun(body)
