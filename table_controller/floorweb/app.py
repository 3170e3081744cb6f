"""The floor web application (aiohttp): pages, login and logout, the WebSocket, hand recall.

Routes: ``GET /`` (the floor), ``GET /table/{id}`` (one table), ``GET /login`` + ``POST /login``
(form fields ``username``, ``password``, ``csrf``), ``POST /logout`` (``csrf``), ``GET /ws``
(``?table=ID`` for a table page), ``GET /recall/{id}`` (``?hand=N``; surveillance role only),
``GET /hands`` and ``GET /hands/{table}/{hand}`` (the central store's hands; surveillance
role only: :mod:`.central`), ``/static/...`` (package data).

Security rules this module keeps:

1. Every page, the WebSocket and recall need a live server-side session; the session cookie is
   ``HttpOnly``, ``SameSite=Strict``, and ``Secure`` when the server speaks HTTPS.
2. Login and logout are CSRF-safe: login needs the token of a pre-login cookie (double submit),
   logout the session's own token, and a state-changing request or a WebSocket whose ``Origin``
   is another site is refused.
3. Failed logins are limited per user name and per address (:class:`~.auth.RateLimiter`);
   password checks run off the event loop.
4. The floor role gets only public data (:mod:`.fanout` guards every message); recall is for the
   surveillance role only.
5. Pages load scripts and styles from ``/static`` only (``Content-Security-Policy: default-src
   'self'``); nothing comes from elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import html
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from table_controller.floorweb.auth import RateLimiter, Session, Sessions, Users
from table_controller.floorweb.central import CentralPages
from table_controller.floorweb.fanout import FLOOR, SURVEILLANCE_ROLE, Fanout, table_channel
from table_controller.floorweb.sources import FeedFollowers

STATIC = Path(__file__).parent / "static"
SESSION_COOKIE = "fw_session"
LOGIN_COOKIE = "fw_login"

HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


class FloorWeb:
    """The server's parts: the feed followers, the fan-out, users, sessions and limits.

    :param followers: the tables' feed loops (started with the app).
    :param users: who may log in.
    :param https: the server speaks HTTPS (cookies get ``Secure``).
    :param coalesce: seconds changes are gathered before a push.
    :param queue_limit: per-browser queue bound.
    :param central: the central store's URL, for the surveillance role's hand search
        (:mod:`.central`; ``None``: the search pages say it is not configured).
    """

    def __init__(self, followers: FeedFollowers, users: Users, *, https: bool = False,
                 coalesce: float = 0.1, queue_limit: int = 64,
                 sessions: Sessions | None = None, user_limit: RateLimiter | None = None,
                 address_limit: RateLimiter | None = None, central: str | None = None) -> None:
        self.followers = followers
        self.users = users
        self.https = https
        self.fanout = Fanout(followers.trackers, coalesce=coalesce, queue_limit=queue_limit)
        self.sessions = sessions or Sessions()
        self.user_limit = user_limit or RateLimiter(limit=5, window=300)
        self.address_limit = address_limit or RateLimiter(limit=20, window=300)
        self._ws: set[web.WebSocketResponse] = set()
        self.central = CentralPages(central, self.session, self.page)
        self._login_key = secrets.token_bytes(32)

    def _login_token(self) -> str:
        """Make a fresh pre-login token: a nonce and this server's MAC of it."""
        nonce = secrets.token_urlsafe(18)
        return f"{nonce}.{self._login_mac(nonce)}"

    def _login_mac(self, nonce: str) -> str:
        return hmac.new(self._login_key, nonce.encode(), hashlib.sha256).hexdigest()[:32]

    def _login_token_ok(self, token: str) -> bool:
        """Tell whether ``token`` is one this server made (a cookie set elsewhere is not)."""
        nonce, dot, mac = token.partition(".")
        return bool(dot) and len(token) <= 128 and hmac.compare_digest(
            mac.encode(), self._login_mac(nonce).encode())

    # -- helpers -------------------------------------------------------------------------------

    def _cookie(self, resp: web.StreamResponse, name: str, value: str, max_age: int) -> None:
        resp.set_cookie(name, value, max_age=max_age, path="/", httponly=True,
                        samesite="Strict", secure=self.https)

    def session(self, request: web.Request) -> Session | None:
        """Return the request's live session, if any."""
        return self.sessions.get(request.cookies.get(SESSION_COOKIE))

    @staticmethod
    def same_origin(request: web.Request) -> bool:
        """Return False if the request names another site as its ``Origin``."""
        origin = request.headers.get("Origin")
        if origin is None or origin == "null":
            return origin is None
        return origin == f"{request.scheme}://{request.host}"

    @staticmethod
    def page(name: str, raw: Mapping[str, str] | None = None, /, **values: str) -> web.Response:
        """Serve ``static/NAME`` with each ``{{key}}`` replaced by its escaped value.

        :param raw: ``{{key}}`` values put in as they are (HTML the caller escaped).
        """
        text = (STATIC / name).read_text(encoding="utf-8")
        for k, v in values.items():
            text = text.replace("{{" + k + "}}", html.escape(v, quote=True))
        for k, v in (raw or {}).items():
            text = text.replace("{{" + k + "}}", v)
        return web.Response(text=text, content_type="text/html", headers=HEADERS)

    def _login_redirect(self, request: web.Request) -> web.HTTPSeeOther:
        return web.HTTPSeeOther(f"/login?next={request.path}")

    # -- handlers ------------------------------------------------------------------------------

    async def floor(self, request: web.Request) -> web.Response:
        """``GET /``: the floor page."""
        s = self.session(request)
        if s is None:
            raise self._login_redirect(request)
        return self.page("floor.html", user=s.user, role=s.role, csrf=s.csrf)

    async def table(self, request: web.Request) -> web.Response:
        """``GET /table/{id}``: one table's page."""
        s = self.session(request)
        if s is None:
            raise self._login_redirect(request)
        table = request.match_info["id"]
        if table not in self.followers.trackers:
            raise web.HTTPNotFound(text=f"no table {table!r} on this floor")
        return self.page("table.html", user=s.user, role=s.role, csrf=s.csrf, table=table)

    async def login_form(self, request: web.Request, error: str = "") -> web.Response:
        """``GET /login``: the form, with the browser's pre-login CSRF token (or a fresh one).

        A browser that already holds a well-formed token keeps it, so two login pages open at
        once (a second tab, or a page that sends itself to the login page while the user opens
        it) do not overwrite each other's token.
        """
        held = request.cookies.get(LOGIN_COOKIE, "")
        token = held if self._login_token_ok(held) else self._login_token()
        nxt = request.query.get("next", "/")
        resp = self.page("login.html", csrf=token, error=error, next=_local_path(nxt))
        self._cookie(resp, LOGIN_COOKIE, token, 600)
        return resp

    async def login(self, request: web.Request) -> web.StreamResponse:
        """``POST /login``: check the token, the limits and the password; start a session."""
        form = await request.post()
        cookie = request.cookies.get(LOGIN_COOKIE, "")
        token = str(form.get("csrf", ""))
        if not self.same_origin(request) or not self._login_token_ok(cookie) or \
                not secrets.compare_digest(cookie, token):
            raise web.HTTPForbidden(text="the login form expired or came from another site; "
                                    "reload the login page")
        name = str(form.get("username", ""))[:64]
        password = str(form.get("password", ""))[:1024]
        address = request.remote or "?"
        wait = max(self.user_limit.retry_after(name), self.address_limit.retry_after(address))
        if wait > 0:
            resp = await self.login_form(
                request, f"Too many failed logins: try again in {int(wait) + 1} s.")
            resp.set_status(429)
            return resp
        user = await asyncio.get_running_loop().run_in_executor(
            None, self.users.verify, name, password)
        if user is None:
            self.user_limit.failed(name)
            self.address_limit.failed(address)
            resp = await self.login_form(request, "Wrong user name or password.")
            resp.set_status(401)
            return resp
        self.user_limit.clear(name)
        s = self.sessions.create(user)
        resp = _redirect(_local_path(str(form.get("next", "/"))))
        self._cookie(resp, SESSION_COOKIE, s.token, int(self.sessions.ttl))
        resp.del_cookie(LOGIN_COOKIE, path="/")
        return resp

    async def logout(self, request: web.Request) -> web.StreamResponse:
        """``POST /logout``: end the session (needs its CSRF token)."""
        s = self.session(request)
        form = await request.post()
        if s is not None:
            if not self.same_origin(request) or not secrets.compare_digest(
                    s.csrf, str(form.get("csrf", ""))):
                raise web.HTTPForbidden(text="logout refused: bad or missing token")
            self.sessions.end(s.token)
        resp = _redirect("/login")
        resp.del_cookie(SESSION_COOKIE, path="/")
        return resp

    async def recall(self, request: web.Request) -> web.Response:
        """``GET /recall/{id}?hand=N``: the hand's journal recall (surveillance only)."""
        s = self.session(request)
        if s is None:
            raise self._login_redirect(request)
        if s.role != SURVEILLANCE_ROLE:
            raise web.HTTPForbidden(text="hand recall is for the surveillance role")
        table = request.match_info["id"]
        if table not in self.followers.trackers:
            raise web.HTTPNotFound(text=f"no table {table!r} on this floor")
        hand = request.query.get("hand", "")
        path = self.followers.journals.get(table)
        if path is None:
            text = (f"Recall is not available for table {table}: this floor web server was "
                    f"started without its journal (--journal {table}=PATH or --config).")
        else:
            text = await asyncio.get_running_loop().run_in_executor(
                None, read_recall, path, hand)
        return self.page("recall.html", table=table, hand=hand or "last", text=text)

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        """``GET /ws[?table=ID]``: a snapshot, then diffs, until closed or logged out."""
        s = self.session(request)
        if s is None:
            raise web.HTTPUnauthorized(text="log in first")
        if not self.same_origin(request):
            raise web.HTTPForbidden(text="WebSocket from another site")
        table = request.query.get("table")
        if table is not None and table not in self.followers.trackers:
            raise web.HTTPNotFound(text=f"no table {table!r}")
        ws = web.WebSocketResponse(heartbeat=20.0, max_msg_size=4096)
        await ws.prepare(request)
        self._ws.add(ws)
        browser = self.fanout.add(FLOOR if table is None else table_channel(table), s.role)

        async def read() -> None:
            async for msg in ws:
                if msg.type is WSMsgType.ERROR:
                    break
            browser.wake.set()

        reader = asyncio.create_task(read())
        try:
            while not ws.closed:
                text = await browser.next(timeout=5.0)
                if self.sessions.get(s.token) is None:
                    await ws.close(code=4001, message=b"session ended")
                    break
                if text == "":
                    text = self.fanout.snapshot(browser)
                if text:
                    await ws.send_str(text)
        except ConnectionError:
            pass
        finally:
            self.fanout.remove(browser)
            self._ws.discard(ws)
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
        return ws

    # -- lifecycle -----------------------------------------------------------------------------

    async def disconnect_all(self, message: str = "server stopping") -> None:
        """Close every browser's WebSocket (code 1001: the pages reconnect by themselves)."""
        for ws in list(self._ws):
            await ws.close(code=1001, message=message.encode())

    async def _start(self, app: web.Application) -> Any:
        await self.followers.start(self.fanout)
        yield
        self.fanout.close()
        await self.followers.stop()

    async def _on_shutdown(self, app: web.Application) -> None:
        # before the server waits for its handlers: an open WebSocket would hold it up
        await self.disconnect_all()

    def app(self) -> web.Application:
        """Build the aiohttp application (it starts and stops the feed loops)."""
        app = web.Application(client_max_size=64 * 1024)
        app.cleanup_ctx.append(self._start)
        app.on_shutdown.append(self._on_shutdown)
        app.add_routes([
            web.get("/", self.floor),
            web.get("/table/{id}", self.table),
            web.get("/login", self.login_form),
            web.post("/login", self.login),
            web.post("/logout", self.logout),
            web.get("/recall/{id}", self.recall),
            web.get("/ws", self.websocket),
            *self.central.routes(),
            web.static("/static", STATIC),
        ])
        return app


def _redirect(location: str) -> web.Response:
    return web.Response(status=303, headers={"Location": location, **HEADERS})


def _local_path(path: str) -> str:
    """Only a path on this server (no ``//host`` or ``scheme:``), else ``/``."""
    if path.startswith("/") and not path.startswith("//") and "\\" not in path:
        return path
    return "/"


def read_recall(path: Path, hand: str) -> str:
    """Return the recall text of ``hand`` (``""``: the last) from the journal at ``path``."""
    from table_controller.errors import TableError
    from table_controller.journal import Journal
    from table_controller.journal.recall import format_hand

    try:
        with Journal.open(path, readonly=True) as journal:
            if not journal.last_hand:
                return "no hands in the journal yet"
            number = int(hand) if hand.strip().isdigit() else journal.last_hand
            return format_hand(journal.hand_entries(number))
    except TableError as exc:
        return f"recall failed: {exc}"
