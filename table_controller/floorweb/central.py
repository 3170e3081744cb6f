"""Hands across the floor for the surveillance role, from the central PostgreSQL store.

Routes (``floor-web --central URL``): ``GET /hands`` — the search form and its results (query
fields ``table``, ``since``, ``until``, ``seat``, ``card``, ``river``, ``irregularity``: the
filters of ``table-controller central hands``); ``GET /hands/{table}/{hand}`` (``?journal=ID``)
— one hand's recall, the text of ``table-controller central recall``.

Rules this module keeps:

1. Surveillance only: a floor login gets 403 on every page here (hole cards are in the results
   and the recall), no login a redirect to the login page.
2. The event loop never waits for the database: each request opens its own connection and
   runs its query in the default thread executor (a slow or dead store holds one request, not
   the live view); an unreachable store is a page saying so (503).
3. Every value shown is HTML-escaped; the query is built by
   :func:`~table_controller.central.query.find_hands` with bound parameters only.
"""

from __future__ import annotations

import asyncio
import html
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar
from urllib.parse import quote, urlencode

import psycopg
from aiohttp import web

from table_controller.central.common import CentralError, Conn, check_url, parse_time
from table_controller.central.query import HandSummary, find_hands, hand_record, hand_summary
from table_controller.floorweb.auth import Session
from table_controller.floorweb.fanout import SURVEILLANCE_ROLE

T = TypeVar("T")
#: Results shown at most (the page says when there are more).
MAX_RESULTS = 500
#: The search fields, in the form's order.
FIELDS = ("table", "since", "until", "seat", "card", "river", "irregularity")

Page = Callable[..., web.Response]


class SearchError(ValueError):
    """A search field that cannot be used (the form shows why)."""


def _card(text: str, field: str) -> str:
    from table_controller.engine.cards import Card

    try:
        return str(Card.parse(text))
    except Exception:
        raise SearchError(f"{field}: not a card: {text!r} (e.g. Ah, Td, 7c)") from None


@dataclass(frozen=True, slots=True)
class Search:
    """The form's filters, checked (``None``: not given); :meth:`find` runs the search."""

    table: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    seat: int | None = None
    card: str | None = None
    river: str | None = None
    irregularity: str | None = None

    def find(self, conn: Conn, limit: int = MAX_RESULTS + 1) -> list[HandSummary]:
        """Return the newest ``limit`` matching hands (:func:`find_hands`), oldest first."""
        return find_hands(conn, table=self.table, since=self.since, until=self.until,
                          seat=self.seat, card=self.card, river=self.river,
                          irregularity=self.irregularity, limit=limit, latest=True)


def _time(query: Mapping[str, str], name: str, now: datetime | None) -> datetime | None:
    text = query.get(name, "").strip()
    if not text:
        return None
    try:
        return parse_time(text, now=now)
    except ValueError as exc:
        raise SearchError(f"{name}: {exc}") from None


def _text(query: Mapping[str, str], name: str) -> str | None:
    return query.get(name, "").strip()[:64] or None


def search_filters(query: Mapping[str, str], *, now: datetime | None = None) -> Search:
    """Return the search the form's fields ask for (an empty field: not given).

    >>> search_filters({"table": "T1", "seat": "3", "card": "ah", "since": ""})
    Search(table='T1', since=None, until=None, seat=3, card='Ah', river=None, irregularity=None)

    :raises SearchError: a field that is not a time, a seat number or a card.
    """
    seat_text = _text(query, "seat")
    seat = None
    if seat_text is not None:
        if not seat_text.isdigit() or not 1 <= int(seat_text) <= 10:
            raise SearchError(f"seat: a seat number 1-10, got {seat_text!r}")
        seat = int(seat_text)
    card, river = _text(query, "card"), _text(query, "river")
    return Search(table=_text(query, "table"), since=_time(query, "since", now),
                  until=_time(query, "until", now), seat=seat,
                  card=None if card is None else _card(card, "card"),
                  river=None if river is None else _card(river, "river"),
                  irregularity=_text(query, "irregularity"))


def hand_link(h: HandSummary) -> str:
    """Return the path of a hand's recall page."""
    return (f"/hands/{quote(h.table, safe='')}/{h.hand}?"
            + urlencode({"journal": h.journal_id}))


def results_html(found: list[HandSummary]) -> str:
    """Return the results table's rows (escaped), newest first."""
    rows = []
    for h in reversed(found[-MAX_RESULTS:]):
        hole = " ".join(f"{s}: {' '.join(c)}" for s, c in sorted(h.hole.items(),
                                                                key=lambda i: int(i[0])))
        rows.append(
            "<tr>"
            f'<td><a href="{html.escape(hand_link(h))}">{html.escape(h.table)} '
            f"hand {h.hand}</a></td>"
            f"<td>{h.started:%Y-%m-%d %H:%M:%S}</td>"
            f'<td class="cards">{html.escape(" ".join(h.board) or "-")}'
            f"{' (voided)' if h.voided else ''}</td>"
            f'<td class="cards">{html.escape(hole)}</td>'
            f"<td>{html.escape(', '.join(h.irregularities))}</td>"
            "</tr>")
    return "\n".join(rows)


def cards_text(h: HandSummary | None) -> str:
    """Return every card of a hand in one line: the board, then each seat's hole cards.

    >>> from datetime import UTC
    >>> cards_text(HandSummary("T1", "ab", 4, datetime(2026, 1, 1, tzinfo=UTC), None, False,
    ...            [1, 2], ["Ah", "Kd", "2c"], {"2": ["7s", "7c"], "1": ["Qs", "Qh"]}, []))
    'Board Ah Kd 2c · seat 1: Qs Qh · seat 2: 7s 7c'
    """
    if h is None:
        return "The hand's cards are not indexed yet (see the entries below)."
    parts = ["Board " + (" ".join(h.board) or "none")]
    parts += [f"seat {seat}: {' '.join(cards)}" for seat, cards in
              sorted(h.hole.items(), key=lambda i: int(i[0]))]
    return " · ".join(parts) + (" (voided)" if h.voided else "")


class CentralPages:
    """The ``/hands`` pages.

    :param url: the central store (``None``: the pages say the server was started without
        ``--central``).
    :param session_of: the request's live session (the app's).
    :param page: renders a page of ``static/`` (``page(name, raw, **escaped)``).
    :param connect: opens a connection (tests may pass their own).
    """

    def __init__(self, url: str | None, session_of: Callable[[web.Request], Session | None],
                 page: Page, *, connect: Callable[[str], Conn] | None = None) -> None:
        self.url = None if url is None else check_url(url)
        self.session_of = session_of
        self.page = page
        self.connect = connect or (lambda u: psycopg.connect(
            u, connect_timeout=5, application_name="tc-floor-web"))

    def routes(self) -> list[web.RouteDef]:
        """Return the routes to add to the application."""
        return [web.get("/hands", self.search), web.get("/hands/{table}/{hand}", self.hand)]

    def _allow(self, request: web.Request) -> Session:
        s = self.session_of(request)
        if s is None:
            raise web.HTTPSeeOther(f"/login?next={quote(request.path_qs, safe='/')}")
        if s.role != SURVEILLANCE_ROLE:
            raise web.HTTPForbidden(text="the hand search is for the surveillance role")
        return s

    async def _run(self, work: Callable[[Conn], T]) -> T:
        url = self.url
        assert url is not None

        def job() -> T:
            with self.connect(url) as conn:
                return work(conn)
        return await asyncio.get_running_loop().run_in_executor(None, job)

    async def search(self, request: web.Request) -> web.Response:
        """``GET /hands``: the form, and the hands matching it when a field is given."""
        s = self._allow(request)
        values = {name: request.query.get(name, "")[:64] for name in FIELDS}
        message, rows, status = "", "", 200
        if self.url is None:
            message = ("The hand search is not available: this floor web server was started "
                       "without --central URL.")
        elif any(v.strip() for v in values.values()) or "go" in request.query:
            try:
                found = await self._run(search_filters(request.query).find)
            except SearchError as exc:
                message, status = str(exc), 400
            except (psycopg.Error, CentralError) as exc:
                message, status = f"The central store cannot be reached: {exc}", 503
            else:
                more = len(found) > MAX_RESULTS
                shown = min(len(found), MAX_RESULTS)
                message = (f"{shown} hand{'' if shown == 1 else 's'}" + (
                    f" (the latest {MAX_RESULTS} only: narrow the search)" if more else "")
                    + ", newest first")
                rows = results_html(found)
        resp = self.page("hands.html", {"rows": rows}, user=s.user, role=s.role, csrf=s.csrf,
                         message=message, **values)
        resp.set_status(status)
        return resp

    async def hand(self, request: web.Request) -> web.Response:
        """``GET /hands/{table}/{hand}``: the hand's recall from the central store."""
        s = self._allow(request)
        table = request.match_info["table"]
        number = request.match_info["hand"]
        if not number.isdigit():
            raise web.HTTPNotFound(text=f"no hand {number!r}")
        journal = request.query.get("journal") or None
        status, cards = 200, ""
        if self.url is None:
            text = ("The hand search is not available: this floor web server was started "
                    "without --central URL.")
        else:
            from table_controller.journal.recall import format_hand

            def work(conn: Conn) -> tuple[str, HandSummary | None]:
                record = hand_record(conn, table, int(number), journal)
                return format_hand(record), hand_summary(conn, table, int(number), journal)

            try:
                text, summary = await self._run(work)
            except CentralError as exc:
                text, status = str(exc), 404
            except psycopg.Error as exc:
                text, status = f"The central store cannot be reached: {exc}", 503
            else:
                cards = cards_text(summary)
        resp = self.page("hand.html", None, user=s.user, role=s.role, csrf=s.csrf,
                         table=table, hand=number, text=text, cards=cards)
        resp.set_status(status)
        return resp
