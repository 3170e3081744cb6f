"""What a display knows about a table: a plain model built from feed snapshots and updates.

A display keeps one :class:`TableView` per table. :func:`view_from_state` reads a snapshot state
(the ``state`` of a ``snapshot`` message) and :func:`apply_message` folds one feed message into
the view; both are pure, so the renderers in :mod:`.render` can be tested on plain data.

Rules this module keeps:

1. Reading is lenient, never trusting: unknown keys are ignored, a missing key leaves its default
   and a value of the wrong type is dropped, so a display shows what it can of any daemon
   version. Nothing here raises on feed data.
2. Hole cards are never kept: a display shows at most that a seat has cards (masked ``??``).
3. The view is frozen; every change returns a new one.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: How many recent announcements and alerts a view keeps.
KEEP = 8


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as displays show it."""

    seat: int
    player: str = ""
    stack: int = 0
    bet: int = 0
    folded: bool = False
    all_in: bool = False
    sitting_out: bool = False
    has_cards: bool = False
    shown: tuple[str, ...] = ()
    hole: tuple[str, ...] = ()
    """The hole cards, only where the feed carries them (surveillance); masked ones are left out."""


@dataclass(frozen=True, slots=True)
class PotLine:
    """One pot (index 0 = main pot)."""

    amount: int
    eligible: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Prompt:
    """What the dealer must do now."""

    text: str
    id: int | None = None
    kind: str = ""
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class TableView:
    """Everything one display shows of one table."""

    table: str = ""
    name: str = ""
    hand: int | None = None
    stage: str = ""
    button: int | None = None
    seats: tuple[SeatView, ...] = ()
    board: tuple[str | None, ...] = ()
    pots: tuple[PotLine, ...] = ()
    to_act: int | None = None
    prompt: Prompt | None = None
    expected_next: str = ""
    holds: tuple[str, ...] = ()
    hold_kinds: tuple[str, ...] = ()
    """Kinds of the irregularities holding the table (for the players' words)."""
    alerts: tuple[str, ...] = ()
    """Recent irregularities and holds, as they came (a short history)."""
    open_alerts: tuple[str, ...] | None = None
    """Irregularities not yet resolved, when the state lists them (``None``: not known)."""
    announcements: tuple[str, ...] = ()
    devices: tuple[tuple[str, str], ...] = ()
    connection: str = "connecting"
    seq: int = 0
    updated: float = 0.0
    extra: Mapping[str, Any] = field(default_factory=dict)
    shipping: Mapping[str, Any] | None = None
    """The journal shipper's progress (the ``shipping`` body; ``None``: the table does not ship)."""

    @property
    def pot_total(self) -> int:
        """Chips in the pots plus bets in front of the seats."""
        return sum(p.amount for p in self.pots) + sum(s.bet for s in self.seats)

    @property
    def on_hold(self) -> bool:
        """True while the table is held."""
        return bool(self.holds)


def _int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.strip().lstrip("-").isdigit():
        return int(v)
    return None


def _str(v: Any) -> str:
    return v if isinstance(v, str) else ""


def _seat_set(v: Any) -> set[int]:
    if isinstance(v, list | tuple):
        return {i for i in (_int(x) for x in v) if i is not None}
    if isinstance(v, Mapping):
        return {i for k, x in v.items() if x and (i := _int(k)) is not None}
    return set()


def _amounts(v: Any) -> dict[int, int]:
    out: dict[int, int] = {}
    if isinstance(v, Mapping):
        for k, x in v.items():
            seat, amount = _int(k), _int(x)
            if seat is not None and amount is not None:
                out[seat] = amount
    return out


def _cards(v: Any) -> tuple[str | None, ...]:
    if not isinstance(v, list | tuple):
        return ()
    return tuple(c if isinstance(c, str) and c else None for c in v)


_CARD = re.compile(r"[2-9TJQKA][shdc]")


def _faces(v: Any) -> tuple[str, ...]:
    """Card codes only: a masked card (the public and dealer feeds') is left out."""
    return tuple(c for c in _cards(v) if c and _CARD.fullmatch(c))


def _texts(v: Any) -> tuple[str, ...]:
    if isinstance(v, str):
        return (v,) if v else ()
    if not isinstance(v, list | tuple):
        return ()
    out = []
    for x in v:
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, Mapping):
            text = _str(x.get("text")) or _str(x.get("reason")) or _str(x.get("kind"))
            if text:
                out.append(text)
    return tuple(out)


def _seats(state: Mapping[str, Any]) -> tuple[SeatView, ...]:
    raw = state.get("seats")
    stacks = _amounts(state.get("stacks"))
    bets = _amounts(state.get("bets"))
    folded = _seat_set(state.get("folded"))
    all_in = _seat_set(state.get("all_in"))
    holes = state.get("hole_cards")
    holding = set(_amounts({k: 1 for k, v in holes.items() if v})) if isinstance(
        holes, Mapping) else set()
    shown_raw = state.get("shown")
    shown = {s: tuple(c for c in _cards(v) if c) for k, v in shown_raw.items()
             if (s := _int(k)) is not None} if isinstance(shown_raw, Mapping) else {}
    seats: dict[int, SeatView] = {}
    if isinstance(raw, Mapping):
        for k, v in raw.items():
            seat = _int(k)
            if seat is None:
                continue
            d = v if isinstance(v, Mapping) else {}
            hole = d.get("hole_cards", d.get("holes"))
            faces = _faces(hole) or (_faces(holes.get(str(seat))) if isinstance(holes, Mapping)
                                     else ())
            seats[seat] = SeatView(
                seat=seat,
                player=_str(d.get("player")) or _str(d.get("name")),
                stack=_int(d.get("stack")) or stacks.get(seat, 0),
                bet=_int(d.get("bet")) or bets.get(seat, 0),
                folded=bool(d.get("folded")) or seat in folded,
                all_in=bool(d.get("all_in")) or seat in all_in,
                sitting_out=bool(d.get("sitting_out")),
                has_cards=bool(hole) or bool(d.get("has_cards")) or seat in holding,
                shown=tuple(c for c in _cards(d.get("shown")) if c) or shown.get(seat, ()),
                hole=faces,
            )
    elif isinstance(raw, list | tuple):
        for x in raw:
            seat = _int(x)
            if seat is not None:
                seats[seat] = SeatView(seat, stack=stacks.get(seat, 0), bet=bets.get(seat, 0),
                                       folded=seat in folded, all_in=seat in all_in,
                                       has_cards=seat in holding, shown=shown.get(seat, ()))
    return tuple(seats[s] for s in sorted(seats))


def _pots(v: Any) -> tuple[PotLine, ...]:
    out = []
    if isinstance(v, list | tuple):
        for p in v:
            if isinstance(p, Mapping):
                amount = _int(p.get("amount"))
                if amount is not None:
                    el = p.get("eligible")
                    out.append(PotLine(amount, tuple(sorted(_seat_set(el)))))
            elif (amount := _int(p)) is not None:
                out.append(PotLine(amount))
    return tuple(out)


def prompt_from(v: Any) -> Prompt | None:
    """Read a prompt (``{"text", "id", "step": {"kind", "seat"}}`` or plain text)."""
    if isinstance(v, str):
        return Prompt(v) if v else None
    if not isinstance(v, Mapping):
        return None
    step = v.get("step")
    step = step if isinstance(step, Mapping) else {}
    text = _str(v.get("text")) or _str(v.get("prompt")) or _str(step.get("text"))
    kind = _str(step.get("kind")) or _str(v.get("kind"))
    if not text and not kind:
        return None
    seat = _int(step.get("seat"))
    if seat is None:
        seat = _int(v.get("seat"))
    return Prompt(text or kind.replace("_", " "), _int(v.get("id")), kind, seat)


def _devices(v: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(v, Mapping):
        return ()
    out = []
    for k, x in v.items():
        if isinstance(x, str):
            out.append((str(k), x))
        elif isinstance(x, Mapping):
            out.append((str(k), _str(x.get("link")) or ("ok" if x.get("connected") else "lost")))
    return tuple(sorted(out))


#: Shipper states that mean the journal is not reaching the central store.
SHIPPING_TROUBLE = frozenset({"retrying", "refused", "stopped", "silent"})
#: Entries behind from which shipping counts as trouble whatever the state.
FAR_BEHIND = 1000


def shipping_from(v: Any) -> Mapping[str, Any] | None:
    """Read a ``shipping`` body (``None`` unless it has a ``status``).

    >>> shipping_from({"status": "caught_up", "behind": 0})
    {'status': 'caught_up', 'behind': 0}
    >>> shipping_from({"behind": 3}) is None
    True
    """
    if isinstance(v, Mapping) and isinstance(v.get("status"), str):
        return dict(v)
    return None


def shipping_trouble(body: Mapping[str, Any] | None) -> bool:
    """Tell whether a ``shipping`` body is trouble for someone to look at.

    Trouble: the store unreachable (``retrying``), the journal refused, the shipper stopped or
    silent, or :data:`FAR_BEHIND` entries or more not shipped.

    >>> shipping_trouble({"status": "retrying", "behind": 3})
    True
    >>> shipping_trouble({"status": "shipping", "behind": 1500})
    True
    >>> shipping_trouble({"status": "caught_up", "behind": 0}), shipping_trouble(None)
    (False, False)
    """
    if body is None:
        return False
    behind = body.get("behind")
    far = isinstance(behind, int) and not isinstance(behind, bool) and behind >= FAR_BEHIND
    return body.get("status") in SHIPPING_TROUBLE or far


def view_from_state(state: Mapping[str, Any], *, table: str = "", seq: int = 0,
                    base: TableView | None = None) -> TableView:
    """Build the view a snapshot state describes (keeping ``base``'s recent history)."""
    base = base or TableView()
    hand = state.get("hand")
    hand_no = _int(hand.get("number")) if isinstance(hand, Mapping) else _int(hand)
    if hand_no is None:
        hand_no = _int(state.get("hand_number"))
    inner = hand if isinstance(hand, Mapping) else state
    source = {**state, **inner} if inner is not state else state
    announcements = _texts(state.get("announcements")) or base.announcements
    raw_last = state.get("last_announcement")
    last = _str(raw_last.get("text")) if isinstance(raw_last, Mapping) else _str(raw_last)
    if last and not announcements:  # a fresh display: show the latest announcement
        announcements = (last,)
    return TableView(
        table=_str(state.get("table")) or table or base.table,
        name=_str(state.get("name")) or base.name,
        hand=hand_no,
        stage=_str(source.get("stage")) or _str(source.get("street")) or _str(
            source.get("phase")),
        button=_int(source.get("button")),
        seats=_seats(source),
        board=_cards(source.get("board")),
        pots=_pots(source.get("pots")),
        to_act=_int(source.get("to_act")),
        prompt=prompt_from(state.get("prompt")),
        expected_next=_str(source.get("expected")) or _str(state.get("expected_next")),
        holds=_texts(state.get("holds")) or ((_str(state.get("hold")),) if _str(
            state.get("hold")) else ()),
        hold_kinds=_hold_kinds(state.get("irregularities")) if isinstance(
            state.get("irregularities"), list) else base.hold_kinds,
        alerts=(_texts(state.get("irregularities")) or base.alerts)[-KEEP:],
        open_alerts=_texts(state["irregularities"]) if isinstance(
            state.get("irregularities"), list) else base.open_alerts,
        announcements=announcements[-KEEP:],
        devices=_devices(state.get("devices")),
        connection="live",
        seq=seq,
        updated=base.updated,
        extra={k: v for k, v in state.items()
               if k in ("rake", "rake_total", "hands_played", "status")},
        shipping=shipping_from(state.get("shipping")) or base.shipping,
    )


def _hold_kinds(v: Any) -> tuple[str, ...]:
    """Return the kinds of the open irregularities holding the table, in order, once each."""
    kinds: list[str] = []
    for x in v if isinstance(v, list | tuple) else ():
        if isinstance(x, Mapping) and x.get("hold") is True and not x.get("resolved"):
            kind = _str(x.get("kind"))
            if kind and kind not in kinds:
                kinds.append(kind)
    return tuple(kinds)


def _push(items: Iterable[str], text: str) -> tuple[str, ...]:
    """Append ``text`` (not twice in a row: an event and its announcement often say the same)."""
    items = tuple(items)
    if items and items[-1] == text:
        return items
    return (*items, text)[-KEEP:]


def apply_message(view: TableView, mtype: str, data: Mapping[str, Any], *, seq: int = 0,
                  ts: float = 0.0) -> TableView:
    """Fold one feed message into ``view``.

    A message whose data holds a ``state`` replaces the table part of the view; the rest is read
    by type: ``prompt``, ``announcement``, ``irregularity``, ``hold`` / ``resume``, ``device``.
    """
    v = view
    state = data if mtype == "table_state" else data.get("state")
    if isinstance(state, Mapping):
        v = view_from_state(state, table=view.table, seq=seq, base=view)
    text = _str(data.get("text")) or _str(data.get("message")) or _str(data.get("reason"))
    if mtype == "prompt":
        v = dataclasses.replace(v, prompt=prompt_from(data))
    elif mtype in ("announcement", "event", "payout", "action") and text:
        v = dataclasses.replace(v, announcements=_push(v.announcements, text))
    elif mtype == "irregularity":
        kind = _str(data.get("kind"))
        line = f"{kind}: {text}" if kind and text else (text or kind or "irregularity")
        v = dataclasses.replace(v, alerts=_push(v.alerts, line))
        if kind and data.get("hold") is True and kind not in v.hold_kinds:
            v = dataclasses.replace(v, hold_kinds=(*v.hold_kinds, kind))
    elif mtype == "hold":
        v = dataclasses.replace(v, holds=(*v.holds, text or "table held"),
                                alerts=_push(v.alerts, f"HOLD: {text or 'table held'}"))
    elif mtype == "resume":
        v = dataclasses.replace(v, holds=(), hold_kinds=())
    elif mtype == "shipping":
        v = dataclasses.replace(v, shipping=shipping_from(data) or v.shipping)
    elif mtype == "device":
        name = _str(data.get("device")) or _str(data.get("kind"))
        link = _str(data.get("link")) or _str(data.get("status"))
        if name and link:
            devices = dict(v.devices)
            devices[name] = link
            v = dataclasses.replace(v, devices=tuple(sorted(devices.items())))
    return dataclasses.replace(v, seq=seq or v.seq, updated=ts or v.updated, connection="live")
