"""What the floor web view knows of each table: feed events folded into JSON-ready rows and pages.

A :class:`TableTracker` per table keeps the public :class:`~table_controller.displays.view.
TableView` (and, when the table's surveillance feed is followed, a second one with the hole
cards), the feed's health, and when each hold and alert was first seen. :meth:`TableTracker.row`
gives the floor page's row and :meth:`TableTracker.page` the table page; both are plain JSON
values, so :func:`diff` can tell which keys changed since the last push.

Rules this module keeps:

1. Pure: no I/O and no clock; every time comes in as a parameter (wall seconds, since the
   browsers show ages against the publisher's ``ts``).
2. The row and the public page are built from the public view only and never carry a key of
   :data:`~table_controller.feeds.HOLE_CARD_KEYS`; only ``page(secret=True)`` adds ``hole``.
3. A hold or alert keeps the time it was first seen for as long as it stays (across
   snapshots and reconnects); one that goes away and comes back is new.
4. A feed the client calls ``STALE`` (its messages come in seconds behind the table's clock)
   is ``"stale"`` with how far behind (``behind``, whole seconds) until ``CAUGHT_UP``, a
   snapshot, a gap or a loss; it needs someone like a lost feed (:data:`NEED_FEED`).
5. Shipping trouble (:func:`shipping_trouble`) puts a table among those that need someone
   (:data:`NEED_SHIPPING`, after alerts): the journal is not reaching the central store.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from table_controller.displays.view import (
    TableView,
    apply_message,
    shipping_trouble,
    view_from_state,
)
from table_controller.feeds import FeedEvent, FeedEventKind

#: JSON values as the browsers get them.
Json = dict[str, Any]

#: Message types that count as "something happened at the table" for the age of the last action.
ACTION_TYPES = frozenset({"event", "announcement", "hand_start", "hand_end", "hold", "resume",
                          "irregularity", "resolution"})

#: Device links that are healthy.
HEALTHY_LINKS = frozenset({"ok", "unavailable", "connected", "synced"})

#: ``need`` values, most urgent first (the floor page sorts by it).
NEED_HOLD, NEED_FEED, NEED_DEVICE, NEED_ALERT, NEED_SHIPPING, NEED_NONE = range(6)


def diff(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> Json:
    """Return the top-level keys of ``new`` that differ from ``old`` (removed keys as ``None``).

    >>> diff({"a": 1, "b": [1], "c": 3}, {"a": 1, "b": [2]})
    {'b': [2], 'c': None}
    >>> diff(None, {"a": 1})
    {'a': 1}
    """
    if old is None:
        return dict(new)
    out = {k: v for k, v in new.items() if old.get(k, _MISSING) != v}
    out.update({k: None for k in old if k not in new})
    return out


_MISSING = object()


#: ``device_health`` counters worth a floor person's attention (``frames`` is not one).
TROUBLE_COUNTERS = (("reconnects", "reconnect"), ("bad_frames", "bad frame"),
                    ("retransmissions", "retransmission"), ("duplicates", "duplicate"),
                    ("lost_frames", "lost frame"))


def health_notes(raw: Any) -> dict[str, str]:
    """Summarise a state's ``device_health`` in words, for the devices with trouble only.

    >>> health_notes({"shoe": {"link": "ok", "frames": 90, "reconnects": 1, "bad_frames": 2,
    ...                        "last_error": "CRC mismatch"}, "chips": {"frames": 5}})
    {'shoe': '1 reconnect, 2 bad frames; last error: CRC mismatch'}
    """
    out: dict[str, str] = {}
    if not isinstance(raw, Mapping):
        return out
    for name, d in raw.items():
        if not isinstance(d, Mapping):
            continue
        parts = []
        for key, word in TROUBLE_COUNTERS:
            n = d.get(key)
            if isinstance(n, int) and not isinstance(n, bool) and n > 0:
                parts.append(f"{n} {word}{'s' if n != 1 else ''}")
        text = ", ".join(parts)
        err = d.get("last_error")
        if isinstance(err, str) and err:
            text = f"{text}; last error: {err}" if text else f"last error: {err}"
        if text:
            out[str(name)] = text
    return out


#: The ``shipping`` message's keys the browsers get (see :mod:`table_controller.daemon.shipping`).
SHIPPING_KEYS = ("status", "behind", "local_seq", "shipped_seq", "last_shipped_at", "error")


def shipping_row(raw: Any) -> Json | None:
    """Return the floor's copy of a ``shipping`` body (known keys only; ``None`` if not one).

    ``trouble``: :func:`~table_controller.displays.view.shipping_trouble` (the pages colour
    it and the floor sorts by it).

    >>> shipping_row({"status": "caught_up", "behind": 0, "last_shipped_at": 5.0, "x": 1})
    {'status': 'caught_up', 'behind': 0, 'local_seq': None, 'shipped_seq': None, \
'last_shipped_at': 5.0, 'error': '', 'trouble': False}
    """
    if not isinstance(raw, Mapping) or not isinstance(raw.get("status"), str):
        return None
    out: Json = {k: raw.get(k) for k in SHIPPING_KEYS}
    out["error"] = str(out["error"] or "")
    out["trouble"] = shipping_trouble(out)
    return out


def _stage(view: TableView) -> str:
    return view.stage.replace("_", " ")


class TableTracker:
    """One table as the floor sees it.

    :param table: the table id.
    :param has_secret: the table's surveillance feed is followed too.
    """

    def __init__(self, table: str, *, has_secret: bool = False) -> None:
        self.table = table
        self.has_secret = has_secret
        self.view = TableView(table=table)
        self.secret_view = TableView(table=table)
        self.feed = "connecting"
        self.secret_feed = "connecting" if has_secret else "none"
        self.heard = 0.0
        """Wall time the public feed was last heard from (heartbeats included)."""
        self.last_action: float | None = None
        self.seq = 0
        """Sequence number of the last public message applied."""
        self.version = 0
        """Bumped on every change a browser can see."""
        self.health: dict[str, str] = {}
        """Device trouble in words (from the state's ``device_health``)."""
        self.shipping: Json | None = None
        """The journal shipper's progress (the ``shipping`` message; ``None``: not shipped)."""
        self.behind: int | None = None
        """Whole seconds the public feed is behind the table while ``"stale"`` (else ``None``)."""
        self._since: dict[str, float] = {}

    # -- folding -------------------------------------------------------------------------------

    def on_event(self, ev: FeedEvent, now: float, *, secret: bool = False) -> None:
        """Fold one event of the public (or, ``secret``, the surveillance) feed at wall ``now``."""
        view = self.secret_view if secret else self.view
        feed = view.connection
        raw: Mapping[str, Any] | None = None
        if ev.kind in (FeedEventKind.SNAPSHOT, FeedEventKind.RECOVERED):
            raw = ev.state or {}
            view = view_from_state(raw, table=self.table, seq=ev.seq, base=view)
            feed = "live"
        elif ev.kind is FeedEventKind.UPDATE and ev.message is not None:
            m = ev.message
            view = apply_message(view, m.type, m.data, seq=ev.seq, ts=m.ts)
            feed = "stale" if feed == "stale" else "live"  # until the client says caught up
            raw = m.data if m.type == "table_state" else None
            if m.type == "shipping" and not secret:
                self.shipping = shipping_row(m.data)
            if not secret and m.type in ACTION_TYPES:
                self.last_action = m.ts
        elif ev.kind is FeedEventKind.LOST:
            feed = "lost"
        elif ev.kind is FeedEventKind.GAP:
            feed = "syncing"
        elif ev.kind is FeedEventKind.STALE:
            feed = "stale"
        elif ev.kind is FeedEventKind.CAUGHT_UP:
            feed = "live"
        view = dataclasses.replace(view, connection=feed)
        if secret:
            self.secret_view, self.secret_feed = view, feed
        else:
            self.view, self.feed = view, feed
            self.behind = max(0, round(ev.lag)) if feed == "stale" else None
            self.seq = ev.seq or self.seq
            if raw is not None and "device_health" in raw:
                self.health = health_notes(raw["device_health"])
            if raw is not None and "shipping" in raw:
                self.shipping = shipping_row(raw["shipping"])
            if ev.kind is not FeedEventKind.LOST:
                self.heard = max(self.heard, now)
            ts = ev.message.ts if ev.kind is FeedEventKind.UPDATE and ev.message else now
            self._age(ts)
        self.version += 1

    def heard_from(self, now: float) -> None:
        """Note that the public feed was heard from at ``now`` (a heartbeat: no visible change)."""
        self.heard = max(self.heard, now)

    def lagging(self, lag: float) -> bool:
        """Note how far behind a stale public feed now is (heartbeats carry no event).

        :returns: whether the page changed (``behind`` moved by a whole second).
        """
        if self.feed != "stale":
            return False
        behind = max(0, round(lag))
        if behind == self.behind:
            return False
        self.behind = behind
        self.version += 1
        return True

    def _age(self, ts: float) -> None:
        current = set(self._holds()) | set(self._alerts())
        for text in list(self._since):
            if text not in current:
                del self._since[text]
        for text in current:
            self._since.setdefault(text, ts)

    def _holds(self) -> tuple[str, ...]:
        return self.view.holds

    def _alerts(self) -> tuple[str, ...]:
        v = self.view
        return v.open_alerts if v.open_alerts is not None else v.alerts

    def _aged(self, texts: tuple[str, ...]) -> list[list[Any]]:
        return [[t, self._since.get(t)] for t in texts]

    # -- what the browsers get ------------------------------------------------------------------

    def need(self) -> int:
        """How urgently the table needs someone (:data:`NEED_HOLD` first)."""
        if self._holds():
            return NEED_HOLD
        if self.feed != "live":
            return NEED_FEED
        if any(link not in HEALTHY_LINKS for _, link in self.view.devices):
            return NEED_DEVICE
        if self._alerts():
            return NEED_ALERT
        if shipping_trouble(self.shipping):
            return NEED_SHIPPING
        return NEED_NONE

    def row(self) -> Json:
        """Return the floor page's row (public data only)."""
        v = self.view
        return {
            "id": self.table,
            "name": v.name or self.table,
            "hand": v.hand,
            "stage": _stage(v),
            "pot": v.pot_total,
            "to_act": v.to_act,
            "last_action": self.last_action,
            "holds": self._aged(self._holds()),
            "alerts": self._aged(self._alerts()),
            "devices": dict(v.devices),
            "health": dict(self.health),
            "feed": self.feed,
            "behind": self.behind,
            "heard": self.heard,
            "need": self.need(),
            "seq": self.seq,
            "shipping": self.shipping,
        }

    def page(self, *, secret: bool = False) -> Json:
        """Return the table page: the row plus board, pots, seats, prompt, announcements, history.

        :param secret: the surveillance page (hole cards, from the surveillance feed if it is
            followed; else the public view, with ``surveillance`` false).
        """
        use_secret = secret and self.has_secret
        v = self.secret_view if use_secret else self.view
        seats = []
        for s in v.seats:
            seat: Json = {"seat": s.seat, "player": s.player, "stack": s.stack, "bet": s.bet,
                          "folded": s.folded, "all_in": s.all_in, "out": s.sitting_out,
                          "cards": s.has_cards, "shown": list(s.shown)}
            if use_secret:
                seat["hole"] = list(s.hole)
            seats.append(seat)
        out = self.row()
        out.update({
            "button": v.button,
            "board": [c or "" for c in v.board],
            "pots": [[p.amount, list(p.eligible)] for p in v.pots],
            "seats": seats,
            "prompt": v.prompt.text if v.prompt is not None else "",
            "announcements": list(v.announcements),
            "history": list(self.view.alerts),
            "surveillance": use_secret,
            "secret_feed": self.secret_feed if secret else "none",
        })
        return out
