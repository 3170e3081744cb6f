"""Helpers for the feed tests: run a coroutine with a fresh context, collect events, key pairs."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import zmq
import zmq.asyncio

from table_controller.feeds import FeedClient, FeedEvent, FeedEventKind, create_key_pair

T = TypeVar("T")


def arun(fn: Callable[[zmq.asyncio.Context], Awaitable[T]], timeout: float = 15.0) -> T:
    """Run ``fn(ctx)`` in a new event loop with a fresh context, destroyed (linger 0) after."""

    async def main() -> T:
        ctx = zmq.asyncio.Context()
        try:
            return await asyncio.wait_for(fn(ctx), timeout)
        finally:
            ctx.destroy(linger=0)

    return asyncio.run(main())


async def next_kind(
    client: FeedClient, kind: FeedEventKind, timeout: float = 3.0
) -> tuple[FeedEvent, list[FeedEvent]]:
    """Wait for the first event of ``kind``; return it and every event before it."""
    seen: list[FeedEvent] = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        left = deadline - loop.time()
        assert left > 0, f"no {kind} event within {timeout} s; saw {[e.kind for e in seen]}"
        ev = await client.next_event(timeout=left)
        if ev is None:
            continue
        if ev.kind is kind:
            return ev, seen
        seen.append(ev)


def make_keys(tmp: Path, *names: str) -> dict[str, Path]:
    """Create key pairs; return ``name -> secret file`` (the public file is beside it)."""
    out = {}
    for n in names:
        _, secret = create_key_pair(tmp, n)
        out[n] = secret
    return out
