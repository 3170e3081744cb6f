"""The daemon's input path: one input at a time, through the core, the journal, the feeds.

A part of :class:`~.lifecycle.Daemon` (a mixin it inherits), kept apart so the lifecycle module
keeps to starting, recovering and stopping. Device events, the core's timer and dealer commands
all come here, in event-loop callbacks.

Rules this module keeps:

1. Journal first: an input is handled by the core, then journaled (:mod:`.journaling`), and only
   then queued for publishing (:mod:`.publishing`; its prompt is sent at once when the
   publisher is idle, before the core's timer is armed and the operator's log written). A
   journal write that fails stops the daemon (:meth:`~.lifecycle.Daemon.stop` with exit
   status 3): what was not journaled is never published, no ACK is written after it, and a
   restart replays the journal. The journal's
   anchor (its second durable write, a witness against a rolled-back file) is written once the
   publisher sent the prompt, on the next turn of the loop (``_anchor_later``), before the ACKs;
   the journal writes it before its next commit anyway, so it is never more than one entry
   behind (which the journal accepts after a crash). A prompt the publisher sent at once is
   followed by the anchor at once, in the same callback, right after its dealer copy and
   before its public and surveillance copies: the CPU is idle during the anchor's write while
   the prompt crosses to the dealer.
2. One input at a time: the core is only touched from event-loop callbacks that do not await
   between the core and the journal.
3. No polling: the core's timer is one ``loop.call_at`` armed for
   :meth:`TableCore.next_deadline` after every input; the devices tick at their own deadlines.
   Ticks are journaled only when they changed something, so replay is exact.
4. A command is decided on the core without changing it (:meth:`TableCore.preview`), journaled
   with its reply by the command endpoint, and only then applied (``_committed``).
5. Once an input or a command ended a hand, the journal's WAL is copied into its database on
   the next turn of the loop (:meth:`.journaling.Journaler.checkpoint_wal`), after the hand's
   prompt and anchor: SQLite's own checkpoint then never falls on a card's commit.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hardware.base import DeviceEvent, DeviceHello, DeviceRecovered
from table_controller.config import ControllerConfig
from table_controller.controller.core import TableCore
from table_controller.controller.events import (
    Announcement,
    ControllerInput,
    DealerCommand,
    DeviceUp,
    HandEnded,
    Output,
    Reply,
    Tick,
)
from table_controller.daemon.devices import LINK_FAULTS, DeviceSet, device_input
from table_controller.daemon.journaling import Journaler, ReadMemory
from table_controller.daemon.oplog import log_outputs
from table_controller.daemon.publishing import Publisher
from table_controller.daemon.setup import CAMERA_LAG_LIMIT, CAMERA_WINDOW
from table_controller.errors import JournalError
from table_controller.feeds import Command, CommandReply
from table_controller.journal import Entry

log = logging.getLogger(__name__)


class InputPath:
    """Device events, the core's timer and dealer commands, one at a time.

    :class:`~.lifecycle.Daemon` supplies the parts (the core, the journaler, the publisher, the
    devices) as it starts them.
    """

    config: ControllerConfig
    core: TableCore | None
    journaler: Journaler | None
    publisher: Publisher | None
    devices: DeviceSet
    reads: ReadMemory
    exit_code: int
    publishing: bool
    _loop: asyncio.AbstractEventLoop | None
    _wake: asyncio.TimerHandle | None
    _wake_for: float | None
    _links: dict[str, str]
    _release_due: bool
    _anchor_due: bool
    _camera_waiting: bool

    if TYPE_CHECKING:  # supplied by Daemon (see its documentation)
        def now(self) -> float:  # noqa: D102
            ...

        def _fatal(self, exc: BaseException) -> None: ...

        def central_status(self) -> dict[str, Any] | None:  # noqa: D102
            ...

        def loop_report(self) -> dict[str, Any]:  # noqa: D102
            ...

    # -- device inputs -----------------------------------------------------------------------

    def on_device_event(self, name: str, event: DeviceEvent) -> None:
        """Handle one device event: an input of the core, a link fault, or link chatter."""
        core = self.core
        if (isinstance(event, DeviceHello) and core is not None
                and core.devices.get(name) not in (None, "ok")):
            # back while the daemon was down (the journal's last word was it lost): the core
            # hears it is up, as an input (journaled, so replay agrees)
            self.feed(DeviceUp(name, "the device said hello"), self.now())
        if isinstance(event, DeviceHello | DeviceRecovered) and name == "chips":
            self.devices.request_report()
        inp = device_input(name, event)
        if inp is not None:
            self.feed(inp, self.now())
        elif isinstance(event, LINK_FAULTS):
            assert self.journaler is not None
            try:
                self.journaler.link_fault(name, event, self.now())
            except JournalError as exc:
                self._fatal(exc)

    def _after_io(self) -> None:
        """After a device's read or timer: release its ACKs and publish link changes, next turn.

        Every event of that read was handled and journaled by now (the listeners run first);
        on the next turn, so the publisher sends the prompt of this read first.
        """
        if not self._release_due and self._loop is not None:
            self._release_due = True
            self._loop.call_soon(self._after_read)

    def _after_read(self) -> None:
        self.release_acks()
        self._check_links()

    def _check_links(self) -> None:
        links = {n: s.link for n, s in self.devices.statuses().items()}
        if links != self._links:
            self._links = links
            self._publish([])

    def release_acks(self) -> None:
        """Write the ACKs kept since the reads they acknowledge were journaled."""
        self._release_due = False
        if self.exit_code:
            return  # a journal write failed: acknowledge nothing more
        self.devices.release_acks()

    def feed(self, inp: ControllerInput, now: float) -> list[Output]:
        """Handle one device input: core, journal, then queue for publishing."""
        core, journaler = self.core, self.journaler
        assert core is not None and journaler is not None
        if self.reads.seen(inp):
            # the same read again (a shoe resending a frame journaled before a restart)
            log.info("read %s already journaled: dropped", inp)
            return []
        out = core.handle(inp, now)
        if isinstance(inp, Tick) and not out:
            self._arm()
            return out
        try:
            journaler.input(inp, out, now)
        except JournalError as exc:
            self._arm()
            self._fatal(exc)
            return out
        if not self._publish(out, self._sync_anchor):  # the prompt left, now: the anchor
            self._anchor_later()  # right after its dealer copy, the CPU idle while it crosses
        self._arm()  # what is not needed for the prompt comes after it
        log_outputs(out)
        self._checkpoint_if_ended(out)
        return out

    def camera_events(self, events: list[DeviceEvent]) -> None:
        """Handle what the board source reported: board changes, deck check alerts."""
        from hardware.camera.source import DeckMatched, DeckMismatch

        for ev in events:
            if isinstance(ev, DeckMismatch | DeckMatched):
                bad = isinstance(ev, DeckMismatch)
                self.device_alert("camera", "deck_mismatch" if bad else "deck_matched", ev.text,
                                  {"median": ev.median, "cards": ev.cards,
                                   "link": "deck_mismatch" if bad else "ok"})
                continue
            inp = device_input("camera", ev)
            if inp is not None:
                self.feed(inp, self.now())
        if self._camera_waiting and self.core is not None:
            self._camera_waiting = False
            self._disarm()
            self._expired()
        if self._loop is not None:
            self._check_links()

    def device_alert(self, device: str, kind: str, text: str, data: dict[str, Any]) -> None:
        """Journal, then announce on every feed, a device alert that is not a core input.

        The deck check's verdict is the camera's, not the table's state: it is journaled as a
        ``decision`` entry (like link faults; not replayed) and published as a ``device``
        announcement (like a device lost), after the journal.
        """
        assert self.journaler is not None
        try:
            self.journaler.device_alert(device, kind, text, data, self.now())
        except JournalError as exc:
            self._fatal(exc)
            return
        alert = Announcement("device", text, {"device": device, "alert": kind, **data})
        log_outputs([alert])
        self._publish([alert])

    def _publish(self, out: list[Output], between: Callable[[], None] | None = None) -> bool:
        """Queue ``out`` for the feeds; tell whether its prompt was sent already.

        :param between: for a prompt sent now, run right after its dealer copy was sent (and,
            should the prompt not have been sent at all, right after the attempt), before its
            other feeds' copies.
        """
        if not (self.publishing and self.publisher is not None
                and self.publisher.put(out, between)):
            return False
        if between is not None:
            between()  # (nothing left to do when it ran already: the anchor is written)
        return True

    def _anchor_later(self) -> None:
        """Write the journal's deferred anchor on the next turn: the publisher's comes first.

        The publisher, woken by what was just queued, sends the prompt before this runs.
        Without a running loop (a replay at the start) it is written now.
        """
        if self._loop is None:
            self._sync_anchor()
        elif not self._anchor_due:
            self._anchor_due = True
            self._loop.call_soon(self._sync_anchor)

    def _sync_anchor(self) -> None:
        self._anchor_due = False
        self._journal_write(lambda journaler: journaler.sync_anchor())

    def _journal_write(self, write: Callable[[Journaler], None]) -> None:
        """Run one of the journaler's writes; a failed one stops the daemon."""
        if self.exit_code or self.journaler is None:
            return  # a journal write failed: the daemon stops
        try:
            write(self.journaler)
        except JournalError as exc:
            self._fatal(exc)

    def _checkpoint_if_ended(self, out: list[Output]) -> None:
        """Once a hand ended, copy the journal's WAL into its database (rule 5), next turn.

        On the next turn of the loop: after the anchor and the hand's other messages.
        """
        if self._loop is None or not any(isinstance(o, HandEnded) for o in out):
            return  # (a replay at the start: the journal is checkpointed as it goes)
        self._loop.call_soon(self._checkpoint_wal)

    def _checkpoint_wal(self) -> None:
        self._journal_write(lambda journaler: journaler.checkpoint_wal())

    # -- the core's timer --------------------------------------------------------------------

    def _arm(self) -> None:
        """Arm the one timer for the core's next deadline (nothing to do without one)."""
        loop, core = self._loop, self.core
        if loop is None or core is None:
            return
        deadline = core.next_deadline()
        if deadline == self._wake_for:
            return
        self._disarm()
        if deadline is None:
            return
        self._wake_for = deadline
        self._wake = loop.call_at(loop.time() + max(0.0, deadline - self.now()), self._expired)

    def _disarm(self) -> None:
        if self._wake is not None:
            self._wake.cancel()
        self._wake, self._wake_for = None, None

    def _expired(self) -> None:
        self._wake, self._wake_for = None, None
        core = self.core
        assert core is not None
        self.devices.drain()  # what the devices sent while this loop was late comes first
        now = self.now()
        deadline = core.next_deadline()
        if deadline is not None and now >= deadline:
            if self._camera_behind(now):
                # the camera's next poll calls again (camera_events); this timer only if the
                # camera stops polling altogether
                due = core.camera_deadline()
                assert due is not None and self._loop is not None
                self._disarm()
                self._wake = self._loop.call_at(
                    self._loop.time() + max(0.0, due + CAMERA_LAG_LIMIT - now), self._expired)
                return
            self.feed(Tick(), now)
        self._arm()

    def _camera_behind(self, now: float) -> bool:
        assert self.core is not None
        self._camera_waiting = self.devices.camera_behind(
            self.core.camera_deadline(), CAMERA_WINDOW, CAMERA_LAG_LIMIT, now)
        return self._camera_waiting

    # -- commands ----------------------------------------------------------------------------

    async def _decide(self, cmd: Command) -> CommandReply:
        core = self.core
        assert core is not None
        out = core.preview(DealerCommand(cmd.name, dict(cmd.args)), self.now())
        reply = next(o for o in out if isinstance(o, Reply))
        result = dict(reply.result)
        if cmd.name == "status":
            result["phh_dir"] = str(self.config.journal.phh_dir)
            result["device_health"] = {n: dataclasses.asdict(s) for n, s in
                                       self.devices.statuses().items()}
            central = self.central_status()
            if central is not None:
                result["central"] = central
            result["loop"] = self.loop_report()
        return CommandReply(reply.accepted, reply.reason, result)

    async def _committed(self, cmd: Command, reply: CommandReply, entry: Entry) -> None:
        if not reply.accepted:
            return
        core, journaler = self.core, self.journaler
        assert core is not None and journaler is not None
        out = core.handle(DealerCommand(cmd.name, dict(cmd.args)), entry.mono_time)
        self._arm()
        applied = next(o for o in out if isinstance(o, Reply))
        if not applied.accepted:  # pragma: no cover - preview and apply disagree: a bug
            log.error("command %s accepted on preview but refused on apply: %s", cmd,
                      applied.reason)
        try:
            journaler.outputs(out, entry.mono_time)
        except JournalError as exc:
            self._fatal(exc)
            return
        if not self._publish(out, self._sync_anchor):
            self._anchor_later()
        log_outputs(out)
        self._checkpoint_if_ended(out)
