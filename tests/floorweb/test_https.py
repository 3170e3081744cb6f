"""``floor-web --cert --key``: HTTPS, and the session cookie gets ``Secure``."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import ssl
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest

from tests.floorweb.helpers import PASSWORD, make_users


def self_signed(tmp: Path) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a test certificate")
    cert, key = tmp / "floor.crt", tmp / "floor.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return cert, key


def test_https_with_a_configured_certificate(tmp_path: Path) -> None:
    cert, key = self_signed(tmp_path)
    ready = tmp_path / "web.json"
    web = subprocess.Popen(
        [sys.executable, "-m", "table_controller", "floor-web", "--users",
         str(make_users(tmp_path)), "--listen", "127.0.0.1:0", "--cert", str(cert), "--key",
         str(key), "--ready-file", str(ready), "--table",
         "T1=tcp://127.0.0.1:9,tcp://127.0.0.1:9"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 30
        while not ready.exists():
            assert web.poll() is None, web.communicate()[0]
            assert time.monotonic() < deadline
            time.sleep(0.05)
        url = json.loads(ready.read_text())["url"].rstrip("/")
        assert url.startswith("https://127.0.0.1:")
        tls = ssl.create_default_context(cafile=str(cert))
        tls.check_hostname = False  # the test certificate names the address, not a host

        async def body() -> None:
            jar = aiohttp.CookieJar(unsafe=True)
            async with aiohttp.ClientSession(cookie_jar=jar) as http:
                async with http.get(f"{url}/login", ssl=tls) as r:
                    assert "Secure" in r.headers["Set-Cookie"]
                    m = re.search(r'name="csrf" value="([^"]+)"', await r.text())
                assert m is not None
                async with http.post(f"{url}/login", ssl=tls, allow_redirects=False, data={
                        "username": "ann", "password": PASSWORD, "csrf": m.group(1)}) as r:
                    assert r.status == 303
                    cookie = r.headers["Set-Cookie"]
                    assert "Secure" in cookie and "HttpOnly" in cookie
                    assert "SameSite=Strict" in cookie
                # SIGTERM with a browser connected: the page is told (1001) and the server exits
                wss = url.replace("https", "wss", 1)
                async with http.ws_connect(f"{wss}/ws", ssl=tls, origin=url) as ws:
                    assert json.loads(await ws.receive_str())["t"] == "snapshot"
                    web.terminate()
                    msg = await ws.receive()
                    assert msg.type is aiohttp.WSMsgType.CLOSE and msg.data == 1001

        asyncio.run(asyncio.wait_for(body(), 30))
        assert web.wait(timeout=15) == 0
    finally:
        web.terminate()
        out = web.communicate(timeout=15)[0]
    assert web.returncode == 0, out
