"""The dealer console's side of the command endpoint: a Lazy Pirate client.

Each command gets the next sequence number; on a timeout the socket is closed and reopened and
the *same* command with the *same* seq is sent again, so the daemon applies it once (the
server's rules are in :mod:`.commands`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any

import zmq
import zmq.asyncio

from table_controller.feeds.messages import (
    MAX_CONSOLE_ID,
    MAX_MESSAGE_BYTES,
    CommandReply,
    CommandTimeout,
    FeedError,
    KeyRefused,
    Message,
    MessageError,
    decode,
)
from table_controller.feeds.monitoring import close_monitored, monitor_address
from table_controller.feeds.security import ClientKeys


class CommandClient:
    """Send dealer commands reliably (the ZeroMQ guide's Lazy Pirate).

    Each command gets the next sequence number; on a timeout the socket is closed and reopened
    and the *same* command with the *same* seq is sent again, so the daemon applies it once.

    :param ctx: an asyncio context.
    :param endpoint: the command endpoint.
    :param table_id: the table the commands are for.
    :param console_id: this console's id (unique per console session; idempotency key).
    :param keys: CURVE client keys (required in production).
    :param timeout: seconds to wait for a reply before resending.
    :param retries: how many times to send before giving up.
    :param first_seq: sequence number of the first command.
    """

    def __init__(
        self,
        ctx: zmq.asyncio.Context,
        endpoint: str,
        *,
        table_id: str,
        console_id: str,
        keys: ClientKeys | None = None,
        timeout: float = 2.5,
        retries: int = 3,
        first_seq: int = 1,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        if not console_id or len(console_id) > MAX_CONSOLE_ID:
            raise FeedError(f"console id must be 1..{MAX_CONSOLE_ID} characters, got "
                            f"{console_id!r}")
        if retries < 1 or timeout <= 0:
            raise FeedError(f"retries must be >= 1 and timeout > 0, got {retries}, {timeout}")
        self.ctx = ctx
        self.endpoint = endpoint
        self.table_id = table_id
        self.console_id = console_id
        self.keys = keys
        self.timeout = timeout
        self.retries = retries
        self._seq = first_seq
        self._wall = wall_clock
        self._sock: zmq.asyncio.Socket | None = None
        self._monitor: zmq.asyncio.Socket | None = None
        self.resends = 0

    @property
    def next_seq(self) -> int:
        """Sequence number the next command will carry."""
        return self._seq

    def reserve_seq(self) -> int:
        """Take the next sequence number (for a caller that sends with :meth:`resend`)."""
        seq = self._seq
        self._seq += 1
        return seq

    def _open(self) -> zmq.asyncio.Socket:
        sock = self.ctx.socket(zmq.REQ)
        sock.linger = 0
        sock.maxmsgsize = MAX_MESSAGE_BYTES
        if self.keys is not None:
            self.keys.apply(sock)
            # the socket monitor reports a refused CURVE handshake at once: say so, instead of
            # waiting out every retry as if the network were down
            self._monitor = sock.get_monitor_socket(
                zmq.EVENT_HANDSHAKE_FAILED_AUTH | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL
                | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL | zmq.EVENT_HANDSHAKE_SUCCEEDED,
                addr=monitor_address())
        sock.connect(self.endpoint)
        return sock

    def _close_socket(self) -> None:
        close_monitored(self._sock, self._monitor)
        self._sock = self._monitor = None

    async def _check_handshake(self) -> None:
        """Raise :class:`KeyRefused` if the monitor saw the table refuse the handshake."""
        from zmq.utils.monitor import parse_monitor_message

        mon = self._monitor
        while mon is not None and await mon.poll(0):
            event = parse_monitor_message(await mon.recv_multipart())["event"]
            if event == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                continue
            self._close_socket()
            if event == zmq.EVENT_HANDSHAKE_FAILED_AUTH:
                raise KeyRefused(
                    f"the table at {self.endpoint} refused this console's key: its .key file "
                    "is not in the table's keys.consoles_dir (ask a technician to add it)")
            raise KeyRefused(
                f"the CURVE handshake with {self.endpoint} failed: the --server-key is not the "
                "table's server.key, or the endpoint is not a table's command endpoint")

    async def close(self) -> None:
        """Close the socket (idempotent)."""
        self._close_socket()

    async def __aenter__(self) -> CommandClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def send(self, command: str, **args: Any) -> CommandReply:
        """Send ``command`` with its arguments and return the reply.

        :raises CommandTimeout: if no reply came after every retry (the command may or may not
            have been applied; resend it with :meth:`resend` and the same seq to find out).
        """
        return await self.request({"command": command, **args})

    async def request(self, body: Mapping[str, Any]) -> CommandReply:
        """Send a command body (``{"command": ..., ...}``) with the next seq.

        :raises CommandTimeout: if no reply came after every retry.
        """
        return await self.resend(self.reserve_seq(), body)

    async def resend(self, seq: int, body: Mapping[str, Any]) -> CommandReply:
        """Send a command body with a given seq (for example after :class:`CommandTimeout`).

        :raises CommandTimeout: if no reply came after every retry.
        :raises KeyRefused: if the table refused this console's CURVE key (said at once).
        """
        msg = Message("command", seq, self.table_id, self._wall(), dict(body), self.console_id)
        raw = msg.encode()
        for attempt in range(self.retries):
            if self._sock is None:
                self._sock = self._open()
            if attempt:
                self.resends += 1
            await self._sock.send(raw)
            deadline = asyncio.get_running_loop().time() + self.timeout
            while True:
                wait = deadline - asyncio.get_running_loop().time()
                # wake at least every 0.1 s to look at the handshake's fate
                slice_ms = int(min(max(wait, 0.0), 0.1) * 1000) + 1
                if wait > 0 and not await self._sock.poll(slice_ms):
                    await self._check_handshake()
                    assert self._sock is not None
                    continue
                if wait <= 0:
                    await self._check_handshake()
                    # Lazy Pirate: the REQ socket is stuck; throw it away and try again
                    self._close_socket()
                    break
                reply_raw = await self._sock.recv()
                try:
                    reply = decode(reply_raw)
                except MessageError as exc:
                    raise FeedError(f"bad reply from {self.endpoint}: {exc}") from exc
                if reply.type != "reply":
                    raise FeedError(f"bad reply from {self.endpoint}: type {reply.type!r}")
                if reply.seq != seq and reply.console is not None:
                    continue
                return CommandReply.from_data(
                    reply.data, replayed=bool(reply.data.get("replayed", False))
                )
        raise CommandTimeout(
            f"no reply from {self.endpoint} to command {seq} after {self.retries} tries "
            f"of {self.timeout:g} s"
        )
