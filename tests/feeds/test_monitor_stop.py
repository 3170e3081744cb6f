"""Stopping a socket monitor never stalls the other sockets of its context.

A monitored socket's events are sent by the context's I/O thread, and that send blocks while the
monitor's reading end is gone. A console whose key was refused closes its monitor; its socket
(or, before it is closed, its next reconnect) fails the handshake again, and if the monitoring
were still on, every other socket of the context (the allowed console's among them) would stop
until the context ends: the allowed console's command went unanswered for 15 s.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import zmq

from table_controller.feeds import ClientKeys, create_key_pair
from table_controller.feeds.monitoring import close_monitored, monitor_address, stop_monitor
from table_controller.feeds.security import load_key_pair

FAILED = (zmq.EVENT_HANDSHAKE_FAILED_AUTH | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL
          | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL)


@pytest.fixture()
def curve_server(tmp_path: Path) -> Iterator[tuple[str, ClientKeys]]:
    """A CURVE ROUTER in a context of its own, and a client's keys naming another server key.

    The server cannot open that client's hello, so the client's handshake fails again at every
    reconnect, as a console given the wrong ``--server-key`` does.
    """
    ctx = zmq.Context()
    server_public, server_secret = load_key_pair(create_key_pair(tmp_path, "server")[1])
    other_public, _ = create_key_pair(tmp_path, "other-server")
    _, client_secret = create_key_pair(tmp_path, "client")
    keys = ClientKeys.from_files(client_secret, other_public)
    sock = ctx.socket(zmq.ROUTER)
    sock.linger = 0
    sock.curve_server = True
    sock.curve_publickey, sock.curve_secretkey = server_public, server_secret
    sock.bind("tcp://127.0.0.1:*")
    try:
        yield _endpoint(sock), keys
    finally:
        sock.close(linger=0)
        ctx.destroy(linger=0)


def _endpoint(sock: zmq.Socket[bytes]) -> str:
    last = sock.getsockopt(zmq.LAST_ENDPOINT)
    assert isinstance(last, bytes)
    return last.decode()


def _refused_and_unwatched(ctx: zmq.Context[zmq.Socket[bytes]], endpoint: str,
                           keys: ClientKeys) -> zmq.Socket[bytes]:
    """A client whose handshake keeps failing; its monitor saw one failure and was stopped."""
    bad = ctx.socket(zmq.DEALER)
    bad.linger = 0
    bad.reconnect_ivl = 20  # fails again every 20 ms
    keys.apply(bad)
    mon = bad.get_monitor_socket(FAILED, addr=monitor_address())
    bad.connect(endpoint)
    assert mon.poll(10_000), "the refused handshake was never reported"
    stop_monitor(bad, mon)
    assert mon.closed and not bad.closed
    return bad


def _round_trips(ctx: zmq.Context[zmq.Socket[bytes]], seconds: float) -> int:
    """Request/reply over loopback TCP in ``ctx`` for ``seconds``; each reply within 10 s."""
    rep = ctx.socket(zmq.REP)
    rep.linger = 0
    rep.bind("tcp://127.0.0.1:*")
    req = ctx.socket(zmq.REQ)
    req.linger = 0
    req.connect(_endpoint(rep))
    n = 0
    try:
        end = time.monotonic() + seconds
        while n < 5 or time.monotonic() < end:
            req.send(b"ping")
            assert rep.poll(10_000), f"the context stalled after {n} round trips"
            rep.send(rep.recv())
            assert req.poll(10_000), f"the context stalled after {n} round trips"
            assert req.recv() == b"ping"
            n += 1
    finally:
        req.close(linger=0)
        rep.close(linger=0)
    return n


def test_a_stopped_monitor_leaves_the_context_working_while_handshakes_keep_failing(
        curve_server: tuple[str, ClientKeys]) -> None:
    endpoint, keys = curve_server
    ctx = zmq.Context()
    try:
        bad = _refused_and_unwatched(ctx, endpoint, keys)
        # the client keeps reconnecting: dozens of failed handshakes meanwhile
        assert _round_trips(ctx, 1.0) >= 5
        close_monitored(bad, None)
        assert bad.closed
    finally:
        ctx.destroy(linger=0)


def test_close_monitored_takes_either_part_missing(tmp_path: Path) -> None:
    ctx = zmq.Context()
    try:
        close_monitored(None, None)
        sock = ctx.socket(zmq.DEALER)
        mon = sock.get_monitor_socket(FAILED, addr=monitor_address())
        close_monitored(sock, mon)
        assert sock.closed and mon.closed
        close_monitored(sock, mon)  # again: nothing left to do
        lone = ctx.socket(zmq.DEALER)
        close_monitored(lone, None)
        assert lone.closed
    finally:
        ctx.destroy(linger=0)
