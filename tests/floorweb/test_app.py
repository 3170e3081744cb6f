"""The floor web server over real HTTP, WebSocket and ZeroMQ (no browser): login, roles, pushes."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.floorweb.helpers import HOLES, PASSWORD, LiveFloor, state

HOLE_CODES = [c for cs in HOLES.values() for c in cs]


def session() -> aiohttp.ClientSession:
    # the cookies of a server on 127.0.0.1 (an IP address) are kept only by an "unsafe" jar
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


def arun(fn: Callable[[], Awaitable[None]], timeout: float = 30) -> None:
    asyncio.run(asyncio.wait_for(fn(), timeout))


async def login(http: aiohttp.ClientSession, base: str, user: str,
                password: str = PASSWORD) -> aiohttp.ClientResponse:
    async with http.get(f"{base}/login") as r:
        token = re.search(r'name="csrf" value="([^"]+)"', await r.text())
    assert token is not None
    return await http.post(f"{base}/login", allow_redirects=False, data={
        "username": user, "password": password, "csrf": token.group(1), "next": "/"})


async def receive_until(ws: aiohttp.ClientWebSocketResponse, cond: Callable[[dict[str, Any]],
                        bool], seen: list[dict[str, Any]], timeout: float = 10) -> None:
    async with asyncio.timeout(timeout):
        while True:
            msg = json.loads(await ws.receive_str())
            seen.append(msg)
            if cond(msg):
                return


@pytest.fixture
def floor(tmp_path: Path) -> Any:
    with LiveFloor(tmp_path, ["T1", "T2"]) as live:
        yield live


def test_pages_need_a_login_and_the_cookie_is_safe(floor: LiveFloor) -> None:
    async def body() -> None:
        async with session() as http:
            async with http.get(f"{floor.url}/", allow_redirects=False) as r:
                assert r.status == 303 and r.headers["Location"].startswith("/login")
            async with http.get(f"{floor.url}/ws") as r:
                assert r.status == 401
            # a login post without the form's token (another site's form) is refused
            async with http.post(f"{floor.url}/login", data={
                    "username": "ann", "password": PASSWORD}) as r:
                assert r.status == 403
            r = await login(http, floor.url, "ann", "wrong password")
            assert r.status == 401 and "Wrong user name or password" in await r.text()
            r = await login(http, floor.url, "ann")
            assert r.status == 303
            cookie = r.headers["Set-Cookie"]
            assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
            assert "Secure" not in cookie  # plain HTTP in the tests; HTTPS adds it
            async with http.get(f"{floor.url}/") as page:
                text = await page.text()
                assert page.status == 200 and "/static/floor.js" in text
                assert "default-src 'self'" in page.headers["Content-Security-Policy"]
            # a WebSocket opened from another site is refused
            with pytest.raises(aiohttp.WSServerHandshakeError):
                await http.ws_connect(f"{floor.url}/ws", origin="http://evil.example")
            # logout needs the session's token
            async with http.post(f"{floor.url}/logout", data={"csrf": "nope"}) as r:
                assert r.status == 403
            csrf = re.search(r'name="csrf" value="([^"]+)"', text)
            assert csrf is not None
            async with http.post(f"{floor.url}/logout", data={"csrf": csrf.group(1)},
                                 allow_redirects=False) as r:
                assert r.status == 303
            async with http.get(f"{floor.url}/", allow_redirects=False) as r:
                assert r.status == 303

    arun(body)


def test_two_login_pages_open_at_once_share_one_token(floor: LiveFloor) -> None:
    """A second login page (another tab, a page sending itself to the login) keeps the first
    page's token working; a token this server did not make is refused even when cookie and form
    agree."""
    async def body() -> None:
        async with session() as http:
            async with http.get(f"{floor.url}/login") as r:
                first = re.search(r'name="csrf" value="([^"]+)"', await r.text())
            async with http.get(f"{floor.url}/login?next=/table/T1") as r:
                second = re.search(r'name="csrf" value="([^"]+)"', await r.text())
            assert first is not None and second is not None
            assert first.group(1) == second.group(1)
            r = await http.post(f"{floor.url}/login", allow_redirects=False, data={
                "username": "ann", "password": PASSWORD, "csrf": first.group(1), "next": "/"})
            assert r.status == 303
        async with session() as http:
            forged = "planted.0123456789abcdef0123456789abcdef"
            http.cookie_jar.update_cookies({"fw_login": forged})
            async with http.get(f"{floor.url}/login") as r:
                fresh = re.search(r'name="csrf" value="([^"]+)"', await r.text())
            assert fresh is not None and fresh.group(1) != forged
            r = await http.post(f"{floor.url}/login", allow_redirects=False, data={
                "username": "ann", "password": PASSWORD, "csrf": forged, "next": "/"},
                cookies={"fw_login": forged})
            assert r.status == 403

    arun(body)


def test_login_is_rate_limited_per_user(floor: LiveFloor) -> None:
    async def body() -> None:
        async with session() as http:
            for _ in range(5):
                r = await login(http, floor.url, "sam", "bad password")
                assert r.status == 401
            r = await login(http, floor.url, "sam")  # even the right password: wait first
            assert r.status == 429 and "Too many failed logins" in await r.text()
            r = await login(http, floor.url, "ann")  # another user is not blocked
            assert r.status == 303

    arun(body)


def test_floor_role_gets_rows_and_never_a_hole_card(floor: LiveFloor) -> None:
    async def body() -> None:
        async with session() as http:
            assert (await login(http, floor.url, "ann")).status == 303
            seen: list[dict[str, Any]] = []
            rows: dict[str, dict[str, Any]] = {}

            def fold(m: dict[str, Any]) -> bool:  # what the page does with each message
                if m["t"] == "snapshot":
                    rows.clear()
                    rows.update({r["id"]: r for r in m["rows"]})
                else:
                    for t, d in m["rows"].items():
                        rows.setdefault(t, {}).update(d)
                return bool(rows) and all(r["feed"] == "live" for r in rows.values())

            async with http.ws_connect(f"{floor.url}/ws") as ws:
                await receive_until(ws, fold, seen)  # the feeds may still be connecting
                assert seen[0]["t"] == "snapshot" and sorted(rows) == ["T1", "T2"]
                assert rows["T1"]["hand"] == 3 and rows["T1"]["pot"] == 150
                st = state("T2", holds=["chip count differs on seat 2"])
                await asyncio.to_thread(floor.publish, "T2", "table_state", st)
                await receive_until(ws, lambda m: m["t"] == "diff" and m["rows"].get(
                    "T2", {}).get("holds"), seen)
                d = seen[-1]["rows"]["T2"]
                assert d["holds"][0][0] == "chip count differs on seat 2" and d["need"] == 0
            async with http.ws_connect(f"{floor.url}/ws?table=T1") as ws:
                await receive_until(ws, lambda m: m["t"] == "snapshot", seen)
                page = seen[-1]["page"]
                assert page["seats"][0]["cards"] is True and "hole" not in page["seats"][0]
                assert page["surveillance"] is False
            text = json.dumps(seen)
            assert not any(c in text for c in HOLE_CODES), "a hole card reached the floor"
            async with http.get(f"{floor.url}/recall/T1") as r:
                assert r.status == 403

    arun(body)


def test_surveillance_role_sees_hole_cards_and_recall_says_unavailable(
        floor: LiveFloor) -> None:
    async def body() -> None:
        async with session() as http:
            assert (await login(http, floor.url, "sam")).status == 303
            seen: list[dict[str, Any]] = []
            async with http.ws_connect(f"{floor.url}/ws?table=T1") as ws:
                await receive_until(ws, lambda m: any(s.get("hole") for s in (
                    m.get("page") or {}).get("seats") or []), seen)
            page = seen[0]["page"] if seen[0]["t"] == "snapshot" else {}
            assert page.get("surveillance") is True
            seats = {s["seat"]: s for s in seen[-1]["page"]["seats"]} if "seats" in seen[-1][
                "page"] else {}
            assert seats and seats[1]["hole"] == ["Ah", "Kd"]
            async with http.get(f"{floor.url}/recall/T1?hand=3") as r:
                assert r.status == 200 and "Recall is not available" in await r.text()

    arun(body)
