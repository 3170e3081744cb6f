"""The dealer command endpoint (ROUTER) with idempotent replies; the client: :mod:`.console_client`.

Rules this module keeps:

1. A command is ``{"v": 1, "type": "command", "seq": N, "console": ID, "table": T, "ts": ...,
   "data": {"command": NAME, ...arguments}}``. It is answered with a ``reply`` carrying the same
   ``seq`` and ``console`` and ``data = {"accepted", "reason", "result", "replayed"}``.
2. With CURVE, only consoles whose public key is on the consoles' allow-list get through the
   handshake, and every message is checked again against the list by its ``User-Id`` (the key),
   so a removed key is refused at once.
3. ``(console, seq)`` is answered at most once by the daemon's handler. The command and its reply
   are journaled in one transaction (:meth:`Journal.append_command`) before the reply is sent; a
   resent command is answered from that record (``replayed: true``) without calling the handler.
   A seq reused for a *different* command is refused and not recorded. A read-only command
   (:data:`READ_ONLY_COMMANDS`) is journaled as asked, without its answer (a ``status`` reply
   is some kilobytes); resent, it is answered afresh (``replayed: true``).
   The entry names the CURVE key that authenticated the console (the key file's name).
4. Commands are handled one at a time, in arrival order (ZeroMQ takes them from the consoles'
   connections in turn), at most :data:`COMMANDS_PER_TURN` in one turn of the event loop, and
   no more once the turn has worked :data:`TURN_BUDGET` seconds (the rest wait for the next
   turn): the server yields to the loop after each turn, so no client delays a heartbeat or a
   feed by more than one turn. The read-only commands of a turn are journaled together, in
   one transaction (a group commit, :meth:`Journal.append_commands`: one disk flush for a turn
   of ``status`` floods, not one each), still before their replies are sent, and before any
   later command of the turn is journaled.
5. Handler contract: ``handler(command) -> CommandReply`` decides; it should not change the table
   (the journal entry does not exist yet). ``on_committed(command, reply, entry)`` runs after the
   command is journaled: apply the effect and publish there (journal first,
   then effects and feeds); it runs before the reply is sent and before the next command is
   read. On replay after a restart, the daemon applies the accepted
   ``dealer_command`` entries through the same code path. A handler that raises gets the command
   refused (``internal error``), recorded like any refusal.
6. Bounded (``docs/messages.md``, "Limits"): a command message larger than
   :data:`~table_controller.feeds.messages.MAX_REQUEST_BYTES` cuts the peer off (ZeroMQ
   ``MAXMSGSIZE``); at most :data:`COMMAND_HWM` commands wait per console connection (then ZeroMQ
   stops reading from it); each console (its CURVE key, or its console id without CURVE) gets
   ``rate`` commands a second (``burst`` at once) and the rest are refused, not recorded, with
   ``rate limit: N commands a second``. A client's mistake is answered, never logged as a
   traceback; internal errors are logged at most a few times a minute.
7. A commit does not hold the event loop: the entries of commands that change nothing (the
   read-only ones of a turn, and every refusal) are committed in the endpoint's writer thread
   (one thread, one commit at a time) while the loop sends heartbeats and feeds and takes
   device inputs; their replies leave only after that commit returned (write-ahead, as
   before). A slow disk flush (``synchronous=FULL`` and the anchor's ``fdatasync``) then
   delays only those replies. An *accepted* command that changes the table is committed on
   the loop and applied at once, without a turn of the loop between: its effect must take its
   place in journal order among the device inputs, which are applied on the loop as they come
   (a device input that comes while a commit is in the writer thread waits for it, at the
   journal's lock: :mod:`table_controller.journal.store`, rule 8).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from types import TracebackType
from typing import Any

import zmq
import zmq.asyncio

from table_controller.errors import JournalError, TableError
from table_controller.feeds.bounded import recv_bounded
from table_controller.feeds.console_client import CommandClient
from table_controller.feeds.messages import (
    MAX_CONSOLE_ID,
    MAX_REQUEST_BYTES,
    Command,
    CommandError,
    CommandReply,
    FeedError,
    Message,
    MessageError,
    decode,
    parse_command,
)
from table_controller.feeds.security import CONSOLES_DOMAIN, CurveServer
from table_controller.journal import CommandRecord, Entry, Journal, thaw
from table_controller.ratelimit import PeerLimiter, RateLimitedLog

__all__ = [
    "COMMANDS_PER_TURN", "COMMAND_BURST", "COMMAND_HWM", "COMMAND_RATE", "READ_ONLY_COMMANDS",
    "REPLY_HWM", "TURN_BUDGET",
    "CommandClient", "CommandHandler", "CommandServer", "CommittedCallback", "ReceivedCommand",
]

log = logging.getLogger(__name__)

#: Default commands a second per console, and how many at once.
COMMAND_RATE = 200.0
COMMAND_BURST = 400
#: Commands queued per console connection before ZeroMQ stops reading from it.
COMMAND_HWM = 100
#: Replies queued per console connection; past it ZeroMQ drops the replies to a console that
#: does not read them (it times out and resends; an applied command is answered again from
#: the journal, never applied twice).
REPLY_HWM = 1000
#: Commands that change nothing: journaled without their answer (rule 3).
READ_ONLY_COMMANDS = frozenset({"status"})
#: Frames of a command message kept (the first ones and the last, the body).
MAX_COMMAND_FRAMES = 4
#: Commands taken from the socket in one turn of the event loop (rule 4).
COMMANDS_PER_TURN = 32
#: Seconds of work after which a turn takes no further command (rule 4; the turn's group
#: commit still follows).
TURN_BUDGET = 0.010

#: The daemon's decision for one command.
CommandHandler = Callable[[Command], Awaitable[CommandReply]]
#: Called after the command and its reply are journaled, before the reply is sent.
CommittedCallback = Callable[[Command, CommandReply, Entry], Awaitable[None]]


#: One command as received: the reply's envelope, the body, the sender's CURVE key.
ReceivedCommand = tuple[list[bytes], bytes, str | None]


@dataclasses.dataclass
class TurnStats:
    """The endpoint's turns (rule 4): how many, the longest, the journal's share."""

    turns: int = 0
    #: turns that stopped taking commands at :data:`TURN_BUDGET`
    cut: int = 0
    longest_ms: float = 0.0
    #: the longest journal commit, wherever it ran (as the loop waited for it)
    longest_commit_ms: float = 0.0
    #: commits in the writer thread (rule 7)
    off_loop: int = 0
    #: the longest commit on the event loop (an accepted command that changes the table)
    longest_loop_commit_ms: float = 0.0

    def to_data(self) -> dict[str, Any]:
        """Plain JSON data (milliseconds rounded to 0.1)."""
        return {"turns": self.turns, "cut_by_budget": self.cut,
                "longest_ms": round(self.longest_ms, 1),
                "longest_commit_ms": round(self.longest_commit_ms, 1),
                "commits_off_loop": self.off_loop,
                "longest_loop_commit_ms": round(self.longest_loop_commit_ms, 1)}


@dataclasses.dataclass
class _Slot:
    """The reply to one command of a turn (a read-only one's may change at its commit)."""

    message: Message
    #: a command that changes the table was journaled (or tried to be): the turn ends
    wrote: bool = False


@dataclasses.dataclass(frozen=True)
class _ReadOnly:
    """A read-only command decided and waiting for the turn's group commit (rule 4)."""

    slot: _Slot
    command: Command
    reply: CommandReply
    record: CommandRecord


def _waiting(sock: zmq.asyncio.Socket) -> bool:
    """Whether a message can be read from ``sock`` at once."""
    events = sock.getsockopt(zmq.EVENTS)
    return isinstance(events, int) and bool(events & zmq.POLLIN)


class CommandServer:
    """The ROUTER endpoint that takes dealer commands.

    :param ctx: the daemon's asyncio context.
    :param endpoint: where to bind (``tcp://127.0.0.1:*`` picks a port; see :attr:`bound`).
    :param table_id: commands for another table are refused.
    :param journal: where commands and replies are recorded.
    :param handler: decides each new command (see the module rules).
    :param on_committed: applies and publishes an accepted command after it is journaled.
    :param curve: CURVE server of ``ctx`` (started by the caller); ``None`` = no encryption and
        no allow-list (development only).
    :param rate: commands a second per console (more are refused, not recorded).
    :param burst: commands a console may send at once.
    """

    def __init__(
        self,
        ctx: zmq.asyncio.Context,
        endpoint: str,
        *,
        table_id: str,
        journal: Journal,
        handler: CommandHandler,
        on_committed: CommittedCallback | None = None,
        curve: CurveServer | None = None,
        wall_clock: Callable[[], float] = time.time,
        mono_clock: Callable[[], float] = time.monotonic,
        rate: float = COMMAND_RATE,
        burst: int = COMMAND_BURST,
    ) -> None:
        if rate <= 0 or burst < 1:
            raise FeedError(f"rate must be > 0 and burst >= 1, got {rate}, {burst}")
        self.ctx = ctx
        self.endpoint = endpoint
        self.table_id = table_id
        self.journal = journal
        self.handler = handler
        self.on_committed = on_committed
        self.curve = curve
        self._wall = wall_clock
        self._mono = mono_clock
        self._sock: zmq.asyncio.Socket | None = None
        self._task: asyncio.Task[None] | None = None
        self._bound = ""
        self.handled = 0
        self.replayed = 0
        #: Commands refused by the rate limit.
        self.rate_limited = 0
        self.rate = rate
        self._limiter = PeerLimiter(rate, burst)
        #: The replies of the last turn (:meth:`serve_turn`), in arrival order.
        self.last_turn: list[tuple[list[bytes], Message]] = []
        self._carried: list[ReceivedCommand] = []
        #: The turns served so far (rule 4).
        self.turns = TurnStats()
        #: The one thread that commits the commands' entries off the loop (rule 7).
        self._writer: concurrent.futures.ThreadPoolExecutor | None = None
        self._rlog = RateLimitedLog(log, interval=60.0, burst=5)

    async def start(self) -> None:
        """Bind and start serving.

        :raises FeedError: if the endpoint cannot be bound.
        """
        if self._sock is not None:
            return
        sock = self.ctx.socket(zmq.ROUTER)
        sock.linger = 0
        sock.maxmsgsize = MAX_REQUEST_BYTES
        sock.rcvhwm = COMMAND_HWM
        sock.sndhwm = REPLY_HWM
        if self.curve is not None:
            self.curve.secure(sock, CONSOLES_DOMAIN)
        try:
            sock.bind(self.endpoint)
        except zmq.ZMQError as exc:
            sock.close(linger=0)
            raise FeedError(f"cannot bind the command endpoint {self.endpoint}: {exc}") from exc
        last = sock.last_endpoint
        self._bound = last.decode() if isinstance(last, bytes) else str(last)
        self._sock = sock
        self._task = asyncio.create_task(self._serve())

    async def stop(self) -> None:
        """Stop serving and close the socket (idempotent)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._sock is not None:
            self._sock.close(linger=0)
            self._sock = None
        if self._writer is not None:
            # a commit in flight completes; the journal's close waits for it (its lock)
            self._writer.shutdown(wait=False)
            self._writer = None

    async def __aenter__(self) -> CommandServer:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    @property
    def bound(self) -> str:
        """The actual endpoint (after :meth:`start`)."""
        return self._bound

    async def _serve(self) -> None:
        assert self._sock is not None
        sock = self._sock
        while True:
            await asyncio.sleep(0)  # one turn, then the event loop (heartbeats, feeds) runs
            turn = list(self._carried)
            if not turn and (first := await self._receive(sock)) is not None:
                turn = [first]
            while len(turn) < COMMANDS_PER_TURN and _waiting(sock):
                if (more := await self._receive(sock)) is not None:
                    turn.append(more)
            self._carried = await self.serve_turn(turn)
            for envelope, reply in self.last_turn:
                try:
                    await sock.send_multipart([*envelope, reply.encode()])
                except zmq.ZMQError as exc:  # pragma: no cover - peer vanished
                    self._rlog.warning("send", "cannot send a command reply: %s", exc,
                                       now=self._mono())

    async def _receive(self, sock: zmq.asyncio.Socket) -> ReceivedCommand | None:
        """Read one command message: its envelope, body and CURVE key (``None``: no body)."""
        frames, _ = await recv_bounded(sock, MAX_COMMAND_FRAMES)
        if len(frames) < 2:
            return None
        envelope = [frames[0].bytes]
        body = frames[1:]
        if len(body) >= 2 and body[0].bytes == b"":
            envelope.append(b"")
            body = body[1:]
        last = body[-1]
        key: str | None = None
        if self.curve is not None:
            try:
                user = last.get("User-Id")
            except zmq.ZMQError:
                user = None
            key = user if isinstance(user, str) else None
        return envelope, last.bytes, key

    async def serve_turn(self, turn: Sequence[ReceivedCommand]) -> list[ReceivedCommand]:
        """Handle one turn's commands in order; their replies are then in :attr:`last_turn`.

        The read-only commands are journaled together (rule 4); a command that changes the
        table ends the turn (its own commit: at most two per turn), and so does the
        :data:`TURN_BUDGET` (on the server's monotonic clock).

        :returns: the commands left for the next turn (after one that changes the table, or
            past the budget).
        """
        pending: list[_ReadOnly] = []
        slots: list[tuple[list[bytes], _Slot]] = []
        left: list[ReceivedCommand] = []
        began = self._mono()
        for i, (envelope, raw, key) in enumerate(turn):
            if i and self._mono() - began >= TURN_BUDGET:
                left = list(turn[i:])
                self.turns.cut += 1
                break
            try:
                slot = await self._handle(raw, key, pending)
            except Exception as exc:  # keep serving: one bad command must not stop the endpoint
                self._rlog.error("internal", "command endpoint failed on a message",
                                 now=self._mono(), exc_info=True)
                slot = _Slot(self._reply(0, None, CommandReply(
                    False, f"not recorded, nothing changed: internal error: "
                           f"{type(exc).__name__}")))
            slots.append((envelope, slot))
            if slot.wrote:
                left = list(turn[i + 1:])
                break
        await self._flush(pending)
        self.last_turn = [(envelope, slot.message) for envelope, slot in slots]
        self.turns.turns += 1
        self.turns.longest_ms = max(self.turns.longest_ms, (self._mono() - began) * 1000)
        return left

    def turn_report(self) -> dict[str, Any]:
        """Return the turns so far, for ``status`` (:class:`TurnStats`)."""
        return self.turns.to_data()

    def _reply(
        self, seq: int, console: str | None, reply: CommandReply, *, command: str | None = None
    ) -> Message:
        data: dict[str, Any] = {**reply.to_data(), "replayed": reply.replayed}
        if command is not None:
            data["command"] = command
        return Message("reply", seq, self.table_id, self._wall(), data, console)

    async def handle_raw(self, raw: bytes, key: str | None) -> Message:
        """Handle one command body as received (also usable without a socket, in tests).

        :param raw: the JSON bytes.
        :param key: the sender's CURVE public key (z85), or ``None`` without CURVE.
        :returns: the reply message to send.
        """
        pending: list[_ReadOnly] = []
        slot = await self._handle(raw, key, pending)
        await self._flush(pending)
        return slot.message

    async def _handle(self, raw: bytes, key: str | None, pending: list[_ReadOnly]) -> _Slot:
        """Handle one command; a read-only one is left in ``pending`` to journal (rule 4)."""
        out = await self._answer(raw, key, pending)
        return out if isinstance(out, _Slot) else _Slot(out)

    async def _answer(self, raw: bytes, key: str | None,
                      pending: list[_ReadOnly]) -> Message | _Slot:
        if self.curve is not None and not self.curve.consoles.allows(key):
            return self._reply(0, None, CommandReply(False, "not authorised: unknown console key"))
        try:
            msg = decode(raw, max_bytes=MAX_REQUEST_BYTES)
        except MessageError as exc:
            return self._reply(0, None, CommandReply(False, f"bad message: {exc}"))
        if msg.type != "command":
            return self._reply(msg.seq, msg.console,
                               CommandReply(False, f"bad message: expected a command, "
                                                   f"got {msg.type!r}"))
        if msg.console is None or len(msg.console) > MAX_CONSOLE_ID:
            return self._reply(msg.seq, None,
                               CommandReply(False, "bad message: a command needs a console id"))
        if not self._limiter.allow(key or msg.console, self._mono()):
            self.rate_limited += 1
            self._rlog.warning("rate", "command endpoint: console %r over the rate limit",
                               msg.console, now=self._mono())
            return self._reply(msg.seq, msg.console, CommandReply(
                False, f"not recorded, nothing changed: rate limit: {self.rate:g} commands a "
                       f"second"))
        if msg.table != self.table_id:
            return self._reply(msg.seq, msg.console, CommandReply(
                False, f"wrong table: this is table {self.table_id!r}, not {msg.table[:64]!r}"))
        body = dict(msg.data)
        if any(r.record.console == msg.console and r.record.seq == msg.seq for r in pending):
            await self._flush(pending)  # the same command again in one turn: the first is stored
        stored = self.journal.stored_command(msg.console, msg.seq)
        if stored is not None:
            command, reply_data = stored
            if thaw(command) != body:
                return self._reply(msg.seq, msg.console, CommandReply(
                    False,
                    f"duplicate seq: command {msg.seq} of console {msg.console!r} was already "
                    f"used for a different command ({command.get('command')!r})",
                ))
            self.replayed += 1
            if body.get("command") in READ_ONLY_COMMANDS and reply_data.get("accepted"):
                name, args = parse_command(body)
                fresh = await self._decide(Command(msg.console, msg.seq, name, args, key,
                                                   msg.ts))
                reply = dataclasses.replace(fresh, replayed=True)
            else:
                reply = CommandReply.from_data(reply_data, replayed=True)
            return self._reply(msg.seq, msg.console, reply, command=str(body.get("command")))
        try:
            name, args = parse_command(body)
        except CommandError as exc:
            cmd = None
            reply = CommandReply(False, f"bad command: {exc}")
        else:
            cmd = Command(msg.console, msg.seq, name, args, key, msg.ts)
            if name not in READ_ONLY_COMMANDS:
                # the reads before it are journaled and applied first: it is decided on the
                # table they left, and journaled after them (arrival order)
                await self._flush(pending)
            reply = await self._decide(cmd)
        recorded = reply.to_data()
        out = self._reply(msg.seq, msg.console, reply, command=str(body.get("command")))
        if cmd is not None and cmd.name in READ_ONLY_COMMANDS:
            slot = _Slot(out)
            pending.append(_ReadOnly(slot, cmd, reply, CommandRecord(
                msg.console, msg.seq, body, {**recorded, "result": {}, "read_only": True},
                self._key_name(key))))
            return slot
        await self._flush(pending)  # journal order is arrival order (a bad command's too)
        applies = cmd is not None and reply.accepted and self.on_committed is not None
        try:
            began = self._mono()
            record = CommandRecord(msg.console, msg.seq, body, recorded, self._key_name(key))
            if applies:
                # its effect follows at once, in journal order with the device inputs (rule 7)
                entry = self.journal.append_commands([record], wall_time=self._wall(),
                                                     mono_time=began)[0]
                self._committed_in(began, on_loop=True)
            else:  # a refusal changes nothing: its commit leaves the loop
                entry = (await self._off_loop([record], began))[0]
        except JournalError as exc:
            self._rlog.error("journal", "cannot journal command %s/%s: %s", msg.console, msg.seq,
                             exc, now=self._mono())
            return _Slot(self._reply(msg.seq, msg.console, CommandReply(
                False, f"not recorded, nothing changed: journal error: {exc}")), wrote=True)
        self.handled += 1
        if cmd is not None and self.on_committed is not None:
            # applied before the next command is read: commands take effect in arrival order
            await self._commit(cmd, reply, entry)
        return _Slot(out, wrote=True)

    async def _flush(self, pending: list[_ReadOnly]) -> None:
        """Journal the read-only commands waiting in ``pending`` in one transaction (rule 4).

        Then each one's ``on_committed`` runs, in order; on a journal error each is answered
        with it instead (not recorded).
        """
        if not pending:
            return
        batch = list(pending)
        pending.clear()
        try:
            entries = await self._off_loop([r.record for r in batch], self._mono())
        except JournalError as exc:
            first = batch[0].record
            self._rlog.error("journal", "cannot journal command %s/%s: %s", first.console,
                             first.seq, exc, now=self._mono())
            for r in batch:
                r.slot.message = self._reply(r.record.seq, r.record.console, CommandReply(
                    False, f"not recorded, nothing changed: journal error: {exc}"))
            return
        self.handled += len(batch)
        if self.on_committed is not None:
            for r, entry in zip(batch, entries, strict=True):
                await self._commit(r.command, r.reply, entry)

    async def _off_loop(self, records: list[CommandRecord], began: float) -> list[Entry]:
        """Journal ``records`` in one transaction in the writer thread; the loop serves on.

        The event loop waits for the commit (SQLite and ``fdatasync`` release the GIL) while it
        sends heartbeats and feeds and takes device inputs, whose appends wait for this commit
        (the journal's lock): rule 7. Cancelled, the commit still completes (no reply leaves).

        :raises JournalError: as :meth:`Journal.append_commands`.
        """
        commit = functools.partial(self.journal.append_commands, records,
                                   wall_time=self._wall(), mono_time=began)
        if self._writer is None:
            self._writer = concurrent.futures.ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="command-journal")
        entries = await asyncio.get_running_loop().run_in_executor(self._writer, commit)
        self.turns.off_loop += 1
        self._committed_in(began, on_loop=False)
        return entries

    def _committed_in(self, began: float, *, on_loop: bool) -> None:
        ms = (self._mono() - began) * 1000
        self.turns.longest_commit_ms = max(self.turns.longest_commit_ms, ms)
        if on_loop:
            self.turns.longest_loop_commit_ms = max(self.turns.longest_loop_commit_ms, ms)

    def _key_name(self, key: str | None) -> str | None:
        """Name the console's CURVE key for the journal: its file name, else the key itself."""
        if key is None:
            return None
        name = self.curve.consoles.name_of(key) if self.curve is not None else None
        return name or key

    async def _decide(self, cmd: Command) -> CommandReply:
        try:
            reply = await self.handler(cmd)
        except TableError as exc:
            return CommandReply(False, str(exc))
        except Exception as exc:
            self._rlog.error("handler", "command handler failed on %s", cmd, now=self._mono(),
                             exc_info=True)
            return CommandReply(False, f"internal error: {type(exc).__name__}: {exc}")
        if not isinstance(reply, CommandReply):
            return CommandReply(False, f"internal error: handler returned {reply!r}")
        return reply

    async def _commit(self, cmd: Command, reply: CommandReply, entry: Entry) -> None:
        assert self.on_committed is not None
        try:
            await self.on_committed(cmd, reply, entry)
        except Exception:
            self._rlog.error("committed", "on_committed failed for %s", cmd, now=self._mono(),
                             exc_info=True)
