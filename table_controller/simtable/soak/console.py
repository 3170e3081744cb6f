"""Clients of the simulated table's daemon for soaks and probes.

:func:`fetch_snapshot` asks a snapshot endpoint for a feed's state; :class:`SyncConsole` is a
blocking console (any JSON as a command, for fuzzers and probes) with a snapshot socket;
:func:`post_blinds` puts the chips of the posts on the felt.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

import zmq
import zmq.asyncio

from table_controller.feeds import ClientKeys, Message, decode
from table_controller.simtable.dealer import LIVE_POSTS, prompt_step
from table_controller.simtable.devices.hands import surface_of
from table_controller.simtable.felt import Felt
from table_controller.simtable.rig import SimRig
from table_controller.simtable.soak.plan import SoakError

#: State fields compared across a kill (device health and link states are left out).
STATE_KEYS = ("hand", "hands_played", "rake_total", "button", "seats", "phase", "street",
              "board", "pots", "to_act", "current_bet", "hole_cards", "shown", "prompt", "held",
              "holds", "irregularities")
#: Compared on the surveillance snapshot across a kill: the cards themselves.
SECRET_STATE_KEYS = ("hand", "board", "hole_cards", "shown", "burn_cards", "seats", "pots",
                     "to_act", "prompt")
STATUS_KEYS = ("hands_played", "hand", "stacks", "chips_in_play", "rake_total", "held", "holds",
               "prompt", "irregularities")


def without_devices(state: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """Return the fields of ``state`` compared across a restart."""
    return {k: state.get(k) for k in keys}


async def fetch_snapshot(ctx: zmq.asyncio.Context, endpoint: str, table: str,
                         feed: str = "dealer", timeout: float = 5.0,
                         keys: Any = None) -> dict[str, Any]:
    """Ask the snapshot endpoint for ``feed``'s state.

    :param keys: CURVE client keys (:class:`~table_controller.feeds.ClientKeys`), for the
        surveillance snapshot endpoint.
    :raises SoakError: if no snapshot comes within ``timeout``.
    """
    sock = ctx.socket(zmq.DEALER)
    sock.linger = 0
    if keys is not None:
        keys.apply(sock)
    sock.connect(endpoint)
    try:
        req = Message("snapshot_request", 0, table, time.time(), {"feed": feed, "request": 1})
        await sock.send_multipart([b"", req.encode()])
        if not await sock.poll(int(timeout * 1000)):
            raise SoakError(f"no snapshot from {endpoint} in {timeout:g} s")
        frames = await sock.recv_multipart()
        msg = decode(frames[-1])
        return dict(msg.data.get("state") or {})
    finally:
        sock.close(linger=0)


# -- subscribers on the public side ------------------------------------------------------------



class SyncConsole:
    """A blocking console (DEALER socket, CURVE when the rig has keys) and a snapshot socket.

    Sends any JSON as a command (even what :meth:`Message.encode` would refuse), so fuzzers and
    probes can use it; the DEALER socket reconnects by itself after a daemon restart.
    """

    def __init__(self, rig: SimRig, name: str = "sync-console", first_seq: int = 1) -> None:
        self.ctx = zmq.Context()
        self.rig = rig
        self.name = name
        self.table = rig.options.table_id
        self.sock = self.ctx.socket(zmq.DEALER)
        self.sock.linger = 0
        keys = rig.console_keys()
        if isinstance(keys, ClientKeys):
            keys.apply(self.sock)
        self.sock.connect(rig.endpoints["commands"])
        self.snap = self.ctx.socket(zmq.DEALER)
        self.snap.linger = 0
        self.snap.connect(rig.endpoints["snapshot"])
        self.seq = first_seq - 1

    def close(self) -> None:
        """Close the sockets."""
        self.ctx.destroy(linger=0)

    def raw(self, frames: list[bytes], timeout: float = 5.0) -> Message:
        """Send ``frames`` (after the empty delimiter the caller includes) and decode the reply.

        :raises SoakError: if no reply comes within ``timeout``.
        """
        self.sock.send_multipart(frames)
        if not self.sock.poll(int(timeout * 1000)):
            raise SoakError(f"no reply from the command endpoint in {timeout:g} s")
        return decode(self.sock.recv_multipart()[-1])

    def command(self, body: Mapping[str, Any], timeout: float = 5.0) -> Message:
        """Send ``body`` as the next command of this console."""
        self.seq += 1
        msg = {"v": 1, "type": "command", "seq": self.seq, "table": self.table,
               "ts": time.time(), "data": dict(body), "console": self.name}
        return self.raw([b"", json.dumps(msg).encode()], timeout)

    def ok(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """Send a command that must be accepted; return its result.

        :raises SoakError: if it is refused.
        """
        reply = self.command(body)
        if not reply.data.get("accepted"):
            raise SoakError(f"{dict(body)} refused: {reply.data.get('reason')}")
        return dict(reply.data.get("result") or {})

    def status(self) -> dict[str, Any]:
        """Return the ``status`` result."""
        return self.ok({"command": "status"})

    def step(self) -> dict[str, Any]:
        """Return the current prompt's step."""
        return prompt_step(self.status().get("prompt"))

    def snapshot(self, feed: str = "dealer") -> dict[str, Any]:
        """Return the snapshot endpoint's state of ``feed``.

        :raises SoakError: if none comes within 5 s.
        """
        req = Message("snapshot_request", 0, self.table, time.time(),
                      {"feed": feed, "request": 1})
        self.snap.send_multipart([b"", req.encode()])
        if not self.snap.poll(5000):
            raise SoakError("no snapshot in 5 s")
        return dict(decode(self.snap.recv_multipart()[-1]).data.get("state") or {})


def post_blinds(console: SyncConsole, rig: SimRig, timeout: float = 10.0) -> dict[str, Any]:
    """Put the chips of every post the table asks for on the felt; return the next step.

    :raises SoakError: if the posts do not complete within ``timeout`` seconds.
    """
    cfg = rig.chip_config
    felt = Felt(surface_of(rig), cfg.denominations, cfg.seat_zones, cfg.pot_zone)
    deadline = time.monotonic() + timeout
    last: tuple[Any, ...] = ()
    while True:
        step = console.step()
        if step.get("kind") != "post":
            return step
        if time.monotonic() > deadline:
            raise SoakError(f"the posts did not complete: {step}")
        key = (step.get("seat"), step.get("post_kind"), step.get("amount"))
        if key != last:
            last = key
            seat, amount = int(step["seat"]), int(step["amount"])
            if step.get("post_kind") in LIVE_POSTS:
                felt.set_seat(seat, felt.seat(seat) + amount)
            else:
                felt.set_pot(felt.pot + amount)
        time.sleep(0.05)  # the sensors report over the pty (real I/O)


