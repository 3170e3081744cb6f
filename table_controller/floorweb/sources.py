"""Which feeds the floor web view follows, and the loops that follow them.

Options (``table-controller floor-web``), read by :func:`table_specs`:

- ``--table ID=FEED,SNAPSHOT`` — the table's public feed and snapshot endpoint, directly;
- ``--table ID=SNAPSHOT`` with ``--connect PROXY`` — the public feed through
  ``table-controller floor-proxy`` (its backend), the snapshot from the table itself;
- ``--surveillance ID=FEED,SNAPSHOT`` — also follow the table's surveillance feed (CURVE) for
  the surveillance role, with ``--surveillance-key [ID=]NAME.key_secret`` and
  ``--server-key [ID=]server.key`` (``ID=`` for one table; without it, for every table);
- ``--journal ID=PATH`` — the table's journal, for hand recall;
- ``--config PATH`` — all of the above from a table's configuration file (its endpoints, and
  its journal when the file is readable here).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import zmq
import zmq.asyncio

from table_controller.feeds import ClientKeys, Feed, FeedClient, FeedError
from table_controller.floorweb.fanout import Fanout
from table_controller.floorweb.model import TableTracker


@dataclass(frozen=True, slots=True)
class TableSpec:
    """Where one table's feeds are.

    :param secret_feed: the surveillance feed (``""``: not followed).
    :param keys: CURVE client keys for the surveillance feed.
    """

    table: str
    feed: str
    snapshot: str
    secret_feed: str = ""
    secret_snapshot: str = ""
    keys: ClientKeys | None = None
    journal: Path | None = None


def _pair(option: str, item: str) -> tuple[str, list[str]]:
    table, eq, rest = item.partition("=")
    if not eq or not table or not rest:
        raise ValueError(f"{option} {item!r}: expected ID=ENDPOINT[,ENDPOINT]")
    return table, rest.split(",")


def _per_table(option: str, items: Sequence[str]) -> tuple[str | None, dict[str, str]]:
    default: str | None = None
    per: dict[str, str] = {}
    for item in items:
        table, eq, value = item.partition("=")
        if eq and table and value and "/" not in table:
            per[table] = value
        elif default is None:
            default = item
        else:
            raise ValueError(f"{option}: given twice without ID= ({default!r}, {item!r})")
    return default, per


def _local(endpoint: str) -> str:
    for wildcard in ("tcp://*:", "tcp://0.0.0.0:"):
        if endpoint.startswith(wildcard):
            return "tcp://127.0.0.1:" + endpoint[len(wildcard):]
    return endpoint


def table_specs(*, tables: Sequence[str] = (), connect: str | None = None,
                surveillance: Sequence[str] = (), surveillance_keys: Sequence[str] = (),
                server_keys: Sequence[str] = (), journals: Sequence[str] = (),
                configs: Sequence[str] = ()) -> list[TableSpec]:
    """Work out every table to follow from the command-line options (see the module doc).

    :raises ValueError: naming the option that is wrong or missing.
    :raises TableError: a configuration or key file that cannot be read.
    """
    public: dict[str, tuple[str, str]] = {}
    secret: dict[str, tuple[str, str]] = {}
    journal: dict[str, Path] = {}
    config_server_key: dict[str, Path] = {}
    for path in configs:
        from table_controller.config import load_config

        cfg = load_config(path)
        ep = cfg.endpoints
        t = cfg.table.id
        public[t] = (_local(ep.public), _local(ep.snapshot))
        secret[t] = (_local(ep.surveillance), _local(ep.surveillance_snapshot))
        journal[t] = cfg.journal.path
        if cfg.keys.server_secret_key is not None:
            config_server_key[t] = cfg.keys.server_secret_key.with_suffix(".key")
    for item in tables:
        t, eps = _pair("--table", item)
        if len(eps) == 2:
            public[t] = (eps[0], eps[1])
        elif len(eps) == 1 and connect:
            public[t] = (connect, eps[0])
        else:
            raise ValueError(f"--table {item!r}: give ID=FEED,SNAPSHOT, or ID=SNAPSHOT with "
                             "--connect (the floor proxy's backend)")
    for item in surveillance:
        t, eps = _pair("--surveillance", item)
        if len(eps) != 2:
            raise ValueError(f"--surveillance {item!r}: expected ID=FEED,SNAPSHOT")
        secret[t] = (eps[0], eps[1])
    for item in journals:
        t, paths = _pair("--journal", item)
        journal[t] = Path(",".join(paths))
    if not public:
        raise ValueError("no table to follow: give --table (or --config)")
    unknown = (set(secret) | set(journal)) - set(public)
    if unknown:
        raise ValueError(f"--surveillance / --journal name a table without --table: "
                         f"{sorted(unknown)[0]!r}")
    key_default, key_per = _per_table("--surveillance-key", surveillance_keys)
    srv_default, srv_per = _per_table("--server-key", server_keys)
    out = []
    for t in sorted(public):
        keys = None
        secret_eps = ("", "")
        key = key_per.get(t, key_default)
        srv = srv_per.get(t) or srv_default or (
            str(config_server_key[t]) if t in config_server_key else None)
        if key is not None:
            if t not in secret:
                raise ValueError(f"--surveillance-key for {t}: its surveillance feed is not "
                                 "known (give --surveillance ID=FEED,SNAPSHOT or --config)")
            if srv is None:
                raise ValueError(f"table {t}: --surveillance-key needs --server-key")
            keys = ClientKeys.from_files(Path(key), Path(srv))
            secret_eps = secret[t]
        elif t in secret and not configs:
            raise ValueError(f"--surveillance for {t} needs --surveillance-key NAME.key_secret")
        out.append(TableSpec(t, *public[t], *secret_eps, keys=keys, journal=journal.get(t)))
    return out


async def follow(client: FeedClient, tracker: TableTracker, fanout: Fanout, *,
                 secret: bool = False, clock: Callable[[], float] = time.time) -> None:
    """Fold ``client``'s events into ``tracker`` and tell ``fanout``, until cancelled.

    A stale feed's lag is read after every message heard (heartbeats carry no event), so the
    page's "behind by N s" moves while the feed stays behind.
    """
    heard = 0
    while True:
        ev = await client.next_event(timeout=0.5)
        stats = client.stats
        count = stats.heartbeats + stats.updates + stats.snapshots
        if count != heard and not secret:
            heard = count
            tracker.heard_from(clock())
            if client.stale and tracker.lagging(client.lag):  # heartbeats, still behind
                fanout.mark(tracker.table)
        if ev is not None:
            tracker.on_event(ev, clock(), secret=secret)
            fanout.mark(tracker.table)


class FeedFollowers:
    """One :class:`FeedClient` per followed feed, each in its own task.

    :param specs: the tables.
    :param heartbeat_timeout: seconds of silence before a feed counts as lost.
    """

    def __init__(self, specs: Sequence[TableSpec], *, heartbeat_timeout: float = 3.0) -> None:
        self.specs = list(specs)
        self.heartbeat_timeout = heartbeat_timeout
        self.trackers: dict[str, TableTracker] = {
            s.table: TableTracker(s.table, has_secret=bool(s.secret_feed)) for s in specs}
        self._ctx: zmq.asyncio.Context | None = None
        self._clients: list[FeedClient] = []
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def journals(self) -> Mapping[str, Path]:
        """Table id -> journal path, where one was given."""
        return {s.table: s.journal for s in self.specs if s.journal is not None}

    async def start(self, fanout: Fanout) -> None:
        """Subscribe to every feed and start following.

        :raises FeedError: an endpoint that cannot be connected to (a malformed address).
        """
        self._ctx = zmq.asyncio.Context()
        # two sockets per feed (SUB + snapshot DEALER, renewed on retries): beyond the default
        # 1023 sockets of a context from about 250 tables with surveillance
        self._ctx.set(zmq.MAX_SOCKETS, max(1024, 6 * len(self.specs) + 64))
        try:
            await self._start_clients(fanout)
        except BaseException:
            await self.stop()
            raise

    async def _start_clients(self, fanout: Fanout) -> None:
        assert self._ctx is not None
        for s in self.specs:
            feeds: list[tuple[Feed, str, str, ClientKeys | None, bool]] = [
                (Feed.PUBLIC, s.feed, s.snapshot, None, False)]
            if s.secret_feed:
                feeds.append((Feed.SURVEILLANCE, s.secret_feed, s.secret_snapshot, s.keys, True))
            for feed, ep, snap, keys, secret in feeds:
                client = FeedClient(self._ctx, feed=feed, feed_endpoint=ep,
                                    snapshot_endpoint=snap, table_id=s.table, keys=keys,
                                    heartbeat_timeout=self.heartbeat_timeout)
                try:
                    await client.start()
                except zmq.ZMQError as exc:
                    await client.close()
                    raise FeedError(f"table {s.table}: cannot connect to {ep} / {snap}: "
                                    f"{exc}") from exc
                self._clients.append(client)
                self._tasks.append(asyncio.create_task(
                    follow(client, self.trackers[s.table], fanout, secret=secret)))

    async def stop(self) -> None:
        """Stop following and close every socket."""
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        for c in self._clients:
            await c.close()
        self._tasks.clear()
        self._clients.clear()
        if self._ctx is not None:
            self._ctx.destroy(linger=0)
            self._ctx = None
