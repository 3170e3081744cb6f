"""Subscribers of every kind on the public side of a table, and the check that none got a secret.

:class:`FeedTaps` listens with SUB sockets on every topic prefix, a floor proxy's SUB and XSUB,
and (the control) the surveillance feed; :func:`check_leaks` checks every message against the
secret cards of its hand, read from the journal (:class:`~.facts.JournalFacts`).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import zmq
import zmq.asyncio

from table_controller.errors import TableError
from table_controller.feeds import Message, decode, table_topic
from table_controller.simtable.soak.facts import JournalFacts

#: Message types (and beginnings of them) tapped one SUB each, after the table's prefix.
TAP_PREFIXES = (b"event", b"table_state", b"prompt", b"announcement", b"hand", b"irregularity",
                b"h", b"e", b"t", b"card", b"hole", b"show")
_CARD_CODE = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][cdhs])(?![A-Za-z0-9])")
#: Keys whose values are hole or burn cards (masked on the public and dealer feeds).
SECRET_KEYS = frozenset({"hole_cards", "hole_card", "hole", "holes", "burn_card", "burn_cards",
                         "burns", "burn"})


def card_codes(value: Any, path: str = "data") -> list[tuple[str, str]]:
    """Every card code named anywhere in ``value`` (keys and strings), with its path."""
    out: list[tuple[str, str]] = []
    if isinstance(value, Mapping):
        for k, v in value.items():
            out += [(f"{path} key", m) for m in _CARD_CODE.findall(str(k))]
            out += card_codes(v, f"{path}.{k}")
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            out += card_codes(v, f"{path}[{i}]")
    elif isinstance(value, str):
        out += [(path, m) for m in _CARD_CODE.findall(value)]
    return out


def unmasked_secrets(value: Any, path: str = "data") -> list[str]:
    """Paths of values under a secret-card key that are not masked (``"??"`` or null)."""
    out: list[str] = []
    if isinstance(value, Mapping):
        for k, v in value.items():
            if str(k) in SECRET_KEYS:
                out += [f"{path}.{k}: {c}" for _, c in card_codes(v, f"{path}.{k}")]
            else:
                out += unmasked_secrets(v, f"{path}.{k}")
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            out += unmasked_secrets(v, f"{path}[{i}]")
    return out


class FeedTaps:
    """Raw subscribers of every kind on the public side of a table, recording what they get.

    - ``public:all``: SUB on the public feed, subscribed to everything (``""``);
    - ``public:table`` and ``public:partial``: SUBs to the table's prefix (``T1/``) and to its
      first character;
    - ``public:<prefix>``: one SUB per topic ``TABLE/<prefix>`` in :data:`TAP_PREFIXES`;
    - ``dealer:all``: SUB on the dealer feed (also redacted);
    - ``floor:sub``, ``floor:table`` and ``floor:xsub``: a SUB to everything, a SUB to the
      table's prefix (filtered by the proxy) and a raw XSUB (subscription sent by hand) on a
      :class:`~table_controller.feeds.proxy.FloorProxy` in front of the public feed;
    - ``surveillance``: the CURVE surveillance feed with a display key (the control: it must see
      the hole cards, or the check would prove nothing).
    """

    def __init__(self, ctx: zmq.asyncio.Context, endpoints: Mapping[str, str],
                 display_keys: Any = None, *, table: str = "T1") -> None:
        from table_controller.feeds.proxy import FloorProxy

        self.ctx = ctx
        self.messages: dict[str, list[Message]] = {}
        self._socks: list[zmq.asyncio.Socket] = []
        self._tasks: list[asyncio.Task[None]] = []
        self.proxy = FloorProxy([endpoints["public"]], "tcp://127.0.0.1:*")
        self.proxy.start()
        own = table_topic(table)
        self._sub("public:all", endpoints["public"], [b""])
        self._sub("public:table", endpoints["public"], [own])
        self._sub("public:partial", endpoints["public"], [own[:1]])
        for prefix in TAP_PREFIXES:
            self._sub(f"public:{prefix.decode()}", endpoints["public"], [own + prefix])
        self._sub("dealer:all", endpoints["dealer"], [b""])
        self._sub("floor:sub", self.proxy.bound, [b""])
        self._sub("floor:table", self.proxy.bound, [own])
        xsub = ctx.socket(zmq.XSUB)
        xsub.linger = 0
        xsub.connect(self.proxy.bound)
        self._start("floor:xsub", xsub)
        self._xsub = xsub
        if display_keys is not None:
            sock = ctx.socket(zmq.SUB)
            sock.linger = 0
            display_keys.apply(sock)
            sock.setsockopt(zmq.SUBSCRIBE, b"")
            sock.connect(endpoints["surveillance"])
            self._start("surveillance", sock)

    async def subscribe_xsub(self) -> None:
        """Send the XSUB's subscription (``0x01`` + empty prefix: everything)."""
        await self._xsub.send(b"\x01")

    def _sub(self, name: str, endpoint: str, prefixes: Sequence[bytes]) -> None:
        sock = self.ctx.socket(zmq.SUB)
        sock.linger = 0
        for p in prefixes:
            sock.setsockopt(zmq.SUBSCRIBE, p)
        sock.connect(endpoint)
        self._start(name, sock)

    def _start(self, name: str, sock: zmq.asyncio.Socket) -> None:
        self._socks.append(sock)
        self.messages[name] = []
        self._tasks.append(asyncio.create_task(self._read(name, sock)))

    async def _read(self, name: str, sock: zmq.asyncio.Socket) -> None:
        got = self.messages[name]
        while True:
            frames = await sock.recv_multipart()
            try:
                got.append(decode(frames[-1]))
            except TableError:
                got.append(Message("undecodable", 0, "", 0.0, {"raw": frames[-1][:200].hex()}))

    async def close(self) -> None:
        """Stop reading and close every socket and the proxy."""
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await t
        for sock in self._socks:
            sock.close(linger=0)
        self.proxy.stop()


@dataclass(slots=True)
class LeakReport:
    """What the public-side subscribers received and whether any of it named a secret card."""

    messages: dict[str, int] = field(default_factory=dict)
    leaks: list[str] = field(default_factory=list)
    unattributed: int = 0
    showdowns: int = 0
    all_ins: int = 0
    surveillance_hole_cards: int = 0


def check_leaks(messages: Mapping[str, Sequence[Message]], facts: JournalFacts) -> LeakReport:
    """Check every public-side message against the secret cards of its hand (from the journal).

    The ``public:all`` stream gives the order: a message belongs to the hand of the last
    ``hand_start`` (or ``table_state`` naming a hand); a seat's hole cards stay secret until its
    ``show`` event; burn cards stay secret. Other subscribers' messages are matched to it by
    type and seq. Independently of hands, nothing under a secret-card key may be a card.
    """
    rep = LeakReport({k: len(v) for k, v in messages.items()})
    where: dict[tuple[str, str, int], set[str]] = {}
    for feed, name in (("public", "public:all"), ("dealer", "dealer:all")):
        hand: int | None = None
        shown: set[int] = set()
        last_hand: int | None = None
        for m in messages.get(name, []):
            d = m.data
            named = d.get("hand") if m.type in ("hand_start", "table_state") else None
            if isinstance(named, int) and named != hand:
                hand, shown = named, set()
            if m.type == "event" and d.get("event") == "show":
                shown.add(int(d["seat"]))
                rep.showdowns += feed == "public"
            if m.type == "event" and d.get("event") == "action" and d.get("all_in"):
                rep.all_ins += feed == "public"
            h = hand if hand is not None else last_hand
            secret: set[str] = set()
            if h is not None:
                secret |= {c for s, cs in facts.holes.get(h, {}).items() if s not in shown
                           for c in cs}
                secret |= set(facts.burns.get(h, []))
            where[(feed, m.type, m.seq)] = secret
            if m.type == "hand_end":
                last_hand, hand = hand, None
    for name, msgs in messages.items():
        if name == "surveillance":
            rep.surveillance_hole_cards = sum(
                1 for m in msgs if m.type == "event" and m.data.get("event") == "hole_card"
                and isinstance(m.data.get("hole_card"), str) and m.data["hole_card"] != "??")
            continue
        feed = "dealer" if name.startswith("dealer") else "public"
        for m in msgs:
            what = f"{name} {m.type} #{m.seq}"
            rep.leaks += [f"{what}: unmasked {p}" for p in unmasked_secrets(m.data)]
            found = where.get((feed, m.type, m.seq))
            if found is None:
                rep.unattributed += 1
                continue
            rep.leaks += [f"{what}: secret card {c} at {p}" for p, c in card_codes(m.data)
                          if c in found]
    return rep

