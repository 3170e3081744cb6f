"""A live floor web server against scripted FeedHubs, in a thread with its own event loop.

The browser tests drive selenium (blocking) from the test thread; the hubs and the aiohttp
server run in :class:`LiveFloor`'s thread, on real ZeroMQ and HTTP sockets on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import zmq.asyncio
from aiohttp import web
from argon2 import PasswordHasher

from table_controller.feeds import (
    ClientKeys,
    CurveServer,
    Feed,
    FeedEndpoints,
    FeedHub,
    create_key_pair,
)
from table_controller.floorweb.app import FloorWeb
from table_controller.floorweb.auth import Users, add_user
from table_controller.floorweb.sources import FeedFollowers, TableSpec

T = TypeVar("T")
#: Cheap hashing parameters, for tests only.
FAST_HASH = PasswordHasher(time_cost=1, memory_cost=64, parallelism=1)
PASSWORD = "correct horse battery"
#: Hole cards of seats 1 and 2 (none of them is ever on the board).
HOLES = {"1": ["Ah", "Kd"], "2": ["7c", "7s"]}


def state(table: str, *, hand: int = 3, holds: Sequence[str] = (),
          irregularities: Sequence[Mapping[str, Any]] = (), pot: int = 150,
          devices: Mapping[str, str] | None = None,
          board: Sequence[str | None] = (None,) * 5) -> dict[str, Any]:
    """A daemon-like ``table_state`` (hole cards in clear: the hub masks them for the public)."""
    return {
        "table": table, "hand": hand, "hands_played": hand - 1, "phase": "betting",
        "street": "preflop", "button": 2,
        "seats": {"1": {"player": "Ann", "stack": 900, "bet": pot - 50, "in_hand": True},
                  "2": {"player": "Bo", "stack": 950, "bet": 50, "in_hand": True}},
        "board": list(board), "pots": [], "to_act": 1, "current_bet": 100,
        "hole_cards": {k: list(v) for k, v in HOLES.items()},
        "shown": {}, "prompt": {"id": 7, "text": "Seat 1 to act", "step": {"kind": "act",
                                                                           "seat": 1}},
        "held": bool(holds), "holds": list(holds), "irregularities": list(irregularities),
        "devices": dict(devices or {"shoe": "ok", "chips": "ok", "camera": "ok"}),
        "last_announcement": None,
    }


def make_users(tmp: Path) -> Path:
    """A users file with ``ann`` (floor) and ``sam`` (surveillance), password :data:`PASSWORD`."""
    path = tmp / "users.json"
    add_user(path, "ann", "floor", PASSWORD, FAST_HASH)
    add_user(path, "sam", "surveillance", PASSWORD, FAST_HASH)
    return path


class LiveFloor:
    """Scripted hubs for ``tables`` and a floor web server following them.

    :param curve: serve the surveillance feeds with CURVE, the floor web server holding an
        allowed display key.
    :param central: the central store's URL (``floor-web --central``).
    """

    def __init__(self, tmp: Path, tables: Sequence[str], *, curve: bool = True,
                 heartbeat_timeout: float = 1.0, coalesce: float = 0.05,
                 central: str | None = None) -> None:
        self.tmp = tmp
        self.tables = list(tables)
        self.curve = curve
        self.heartbeat_timeout = heartbeat_timeout
        self.coalesce = coalesce
        self.central = central
        self.users_file = make_users(tmp)
        self.hubs: dict[str, FeedHub] = {}
        self.lag: dict[str, float] = {}
        """Seconds a table's messages are stamped in the past (a feed made to lag)."""
        self.url = ""
        self.server: FloorWeb | None = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None
        self._ctx: zmq.asyncio.Context | None = None
        self._curve: CurveServer | None = None
        self._specs: list[TableSpec] = []

    def call(self, coro: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
        """Run ``coro`` on the server's loop; return its result."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def __enter__(self) -> LiveFloor:
        self._thread.start()
        self.call(self._start())
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.call(self._stop())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
            self._loop.close()

    async def _start(self) -> None:
        self._ctx = zmq.asyncio.Context()
        keys = None
        if self.curve:
            _, server_secret = create_key_pair(self.tmp / "server", "server")
            _, display_secret = create_key_pair(self.tmp / "displays", "floor-web")
            self._curve = CurveServer.from_files(
                self._ctx, server_secret_key=server_secret, displays_dir=self.tmp / "displays",
                consoles_dir=self.tmp / "displays")
            self._curve.start()
            keys = ClientKeys.from_files(display_secret, server_secret.with_suffix(".key"))
        specs = []
        for t in self.tables:
            hub = FeedHub(self._ctx, table_id=t, endpoints=FeedEndpoints.loopback(),
                          curve=self._curve, heartbeat_interval=0.2, epoch=f"{t}-1",
                          wall_clock=self._clock(t))
            await hub.start()
            self.hubs[t] = hub
            await self._publish(t, "table_state", state(t))
            b = hub.bound
            specs.append(TableSpec(t, b["public"], b["snapshot"],
                                   b["surveillance"] if keys else "",
                                   b["surveillance_snapshot"] if keys else "", keys=keys))
        self._specs = specs
        await self._serve(0)

    def _clock(self, table: str) -> Callable[[], float]:
        """The wall clock of ``table``'s hub: :attr:`lag` seconds in the past."""
        return lambda: time.time() - self.lag.get(table, 0.0)

    async def _serve(self, port: int) -> None:
        followers = FeedFollowers(self._specs, heartbeat_timeout=self.heartbeat_timeout)
        self.server = FloorWeb(followers, Users.load(self.users_file), coalesce=self.coalesce,
                               central=self.central)
        self._runner = web.AppRunner(self.server.app(), handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"

    async def _restart(self, down: float) -> None:
        assert self._runner is not None
        port = self._runner.addresses[0][1]
        await self._runner.cleanup()
        await asyncio.sleep(down)
        await self._serve(port)

    def restart_server(self, down: float = 1.0) -> None:
        """Stop the floor web server, wait ``down`` s, start a new one on the same port (its
        sessions are gone: they live in the server's memory)."""
        self.call(self._restart(down))

    async def _stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        for hub in self.hubs.values():
            await hub.stop()
        if self._curve is not None:
            self._curve.stop()
        if self._ctx is not None:
            self._ctx.destroy(linger=0)

    async def _publish(self, table: str, mtype: str, st: Mapping[str, Any],
                       data: Mapping[str, Any] | None = None) -> float:
        hub = self.hubs[table]
        codes = [c for cs in HOLES.values() for c in cs]
        hub.set_secret_cards(codes)
        sent = time.time()
        await hub.broadcast(mtype, data if data is not None else st, state=st,
                            feeds=(Feed.PUBLIC, Feed.SURVEILLANCE))
        return sent

    def publish(self, table: str, mtype: str, st: Mapping[str, Any],
                data: Mapping[str, Any] | None = None) -> float:
        """Publish one message (and the state after it) on the table's public and surveillance
        feeds; return the wall time just before sending."""
        return self.call(self._publish(table, mtype, st, data))

    def stop_hub(self, table: str) -> None:
        """Stop one table's hub (its feeds go silent)."""
        self.call(self.hubs[table].stop())
