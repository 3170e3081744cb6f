"""The simulated dealer one prompt at a time, for tests and benchmarks that act between steps.

:func:`~.scenario.drive` lets a :class:`~.dealer.SimDealer` play whole hands on its own. A
:class:`DealerSession` drives the same dealer, on the same :class:`~.daemon_io.DaemonIO`, one
prompt at a time (:meth:`DealerSession.step`, :meth:`DealerSession.play_until`), so a test can
do something else between two steps: send a command itself (:meth:`DealerSession.ok`), put a
bet on a zone (``session.io.felt``), draw a card or a foreign tag (``session.io``,
``session.io.hands``), unplug a device, kill the daemon, or wait for a condition on the dealer feed
(:meth:`DealerSession.wait`).

Rules this module keeps:

1. A step is the dealer's own handling of the prompt (:meth:`SimDealer.handle`): there is no
   second way to deal, bet or push. A command the dealer sends during a step and the
   controller refuses fails the step (:class:`SessionError`), as a refused :meth:`ok` does.
2. Board cards drawn in a step are laid once the controller moved on to the next prompt (the
   shoe read them), before the step returns.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any

import zmq.asyncio

from table_controller.engine import Card
from table_controller.errors import TableError
from table_controller.feeds import CommandClient, CommandReply, FeedClient, FeedEvent, Message
from table_controller.simtable.daemon_io import DaemonDriver, DaemonIO, open_daemon_session
from table_controller.simtable.dealer import Decider, SimDealer, prompt_step
from table_controller.simtable.players import passive
from table_controller.simtable.rig import SimRig

#: Seconds :meth:`DealerSession.wait` waits by default.
WAIT = 10.0


class SessionError(TableError):
    """A step or command of a dealer session failed: refused, or nothing came in time."""


class DealerSession:
    """A :class:`~.dealer.SimDealer` on a daemon's feeds, stepped by the caller.

    :param io: the rig's devices and the console.
    :param driver: the dealer feed's prompt and table state.
    :param dealer: the dealer that does each step.
    :param console: the command client (its ``next_seq`` / ``reserve_seq`` for resends).
    :param feed: the dealer-feed client.
    """

    def __init__(self, io: DaemonIO, driver: DaemonDriver, dealer: SimDealer,
                 console: CommandClient, feed: FeedClient) -> None:
        self.io = io
        self.driver = driver
        self.dealer = dealer
        self.console = console
        self.feed = feed
        #: every message the dealer feed delivered, in order (filled by :func:`dealer_session`)
        self.messages: list[Message] = []

    @property
    def prompt(self) -> dict[str, Any]:
        """The current prompt."""
        return self.driver.prompt

    @property
    def state(self) -> dict[str, Any]:
        """The current table state (dealer feed)."""
        return self.driver.state

    @property
    def step_now(self) -> dict[str, Any]:
        """The current prompt's step (empty when there is none)."""
        return prompt_step(self.driver.prompt)

    async def wait(self, cond: Callable[[], bool], timeout: float = WAIT) -> None:
        """Take feed events until ``cond()`` holds.

        :raises SessionError: if it does not within ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while not cond():
            left = deadline - time.monotonic()
            if left <= 0:
                raise SessionError(f"timed out after {timeout:g} s; prompt {self.prompt}")
            await self.driver.pump(min(left, 0.2))

    async def wait_after(self, prompt_id: int, timeout: float = WAIT) -> None:
        """Take feed events until a prompt newer than ``prompt_id`` is current.

        :raises SessionError: if none comes within ``timeout`` seconds.
        """
        await self.wait(lambda: int(self.prompt.get("id", 0)) > prompt_id, timeout)

    async def cmd(self, name: str, **args: Any) -> CommandReply:
        """Send the dealer command ``name`` and return the reply (refused or not)."""
        return await self.dealer.send({"command": name, **args})

    async def ok(self, name: str, **args: Any) -> CommandReply:
        """Send a command that must be accepted.

        :raises SessionError: naming the reason if it was refused.
        """
        reply = await self.cmd(name, **args)
        if not reply.accepted:
            raise SessionError(f"{name} {args} refused: {reply.reason}")
        return reply

    async def step(self, decide: Decider | None = None) -> str:
        """Do what the current prompt asks, wait for the next prompt; return the step's kind.

        :param decide: the players' decision for this step (default: the dealer's).
        :raises SessionError: if a command of the step was refused, the dealer had handled
            this prompt already, or no new prompt came in time.
        """
        prompt = dict(self.prompt)
        pid = int(prompt["id"])
        kind = str(prompt_step(prompt).get("kind", ""))
        refused = len(self.dealer.log.refused)
        saved = self.dealer.decide
        if decide is not None:
            self.dealer.decide = decide
        try:
            handled = await self.dealer.handle(prompt, self.state)
        finally:
            self.dealer.decide = saved
        if not handled:
            raise SessionError(f"the dealer handled prompt {pid} already")
        if len(self.dealer.log.refused) > refused:
            body, why = self.dealer.log.refused[-1]
            raise SessionError(f"{kind}: {body} refused: {why}")
        await self.wait_after(pid)
        self.dealer.lay_drawn_board_cards()
        return kind

    async def play_until(self, stop: Callable[[Mapping[str, Any]], bool],
                         decide: Decider | None = None, limit: int = 200) -> None:
        """Step until ``stop(step)`` holds for the current prompt's step.

        :raises SessionError: after ``limit`` steps.
        """
        for _ in range(limit):
            if stop(self.step_now):
                return
            await self.step(decide)
        raise SessionError(f"{limit} steps and still not there; prompt {self.prompt}")


@contextlib.asynccontextmanager
async def dealer_session(
    rig: SimRig, *, console: str = "dealer-1", decide: Decider = passive,
    decks: Sequence[Sequence[Card]] = (), first_seq: int = 1, seed: int = 1,
    ctx: zmq.asyncio.Context | None = None,
) -> AsyncIterator[DealerSession]:
    """Connect a :class:`DealerSession` to ``rig``'s daemon; close it (and its context) after.

    :param console: the console id (the same id and ``first_seq`` after a restart resend).
    :param decide: the players' decisions when a step does not say.
    :param decks: the decks of the first hands, top card first (shuffled ones after them).
    :param ctx: a ZeroMQ context to use (default: a new one, destroyed on exit).
    :raises SessionError: if the daemon sent no prompt.
    """
    own = ctx is None
    context = zmq.asyncio.Context() if ctx is None else ctx
    messages: list[Message] = []

    def on_event(ev: FeedEvent) -> None:
        if ev.message is not None:
            messages.append(ev.message)

    try:
        io, driver, client, feed = await open_daemon_session(
            rig, context, on_event=on_event, console_id=console, first_seq=first_seq)
        try:
            dealer = SimDealer(io, decide, seats={}, hands=sys.maxsize, seed=seed,
                               decks=decks)
            session = DealerSession(io, driver, dealer, client, feed)
            session.messages = messages
            if not driver.prompt:
                raise SessionError("the daemon sent no prompt")
            yield session
        finally:
            await feed.close()
            await client.close()
    finally:
        if own:
            context.destroy(linger=0)
