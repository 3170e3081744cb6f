"""Headless Chromium for the floor web tests: Debian's ``chromium`` and ``chromium-driver``.

Nothing is downloaded: selenium is pointed at ``/usr/bin/chromium`` and
``/usr/bin/chromedriver``. Without them the browser tests are skipped, except under CI
(``CI`` set), where they must run.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
T = TypeVar("T")


def require_chromium() -> None:
    """Skip (or, under CI, fail) when headless Chromium is not installed."""
    if CHROMIUM.exists() and CHROMEDRIVER.exists():
        return
    why = (f"{CHROMIUM} and {CHROMEDRIVER} are needed (apt-get install chromium "
           "chromium-driver)")
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the browser tests: {why}")
    pytest.skip(why)


@contextmanager
def chromium(width: int = 1200, height: int = 900) -> Iterator[Any]:
    """A headless Chromium driven by selenium (quit on exit)."""
    require_chromium()
    os.environ.setdefault("SE_OFFLINE", "true")  # never let selenium fetch a driver
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    opts.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", "--autoplay-policy=no-user-gesture-required",
                "--no-first-run", "--disable-extensions", "--disable-background-networking"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
    try:
        yield driver
    finally:
        driver.quit()


def wait_for(driver: Any, what: str, cond: Callable[[], T | None],
             timeout: float = 15.0) -> T:
    """Poll ``cond()`` until it returns something truthy; fail naming ``what``."""
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            value = cond()
            if value:
                return value
        except Exception as exc:  # the page is being re-rendered under us
            last = exc
        time.sleep(0.05)
    text = driver.find_element("tag name", "body").text if driver else ""
    raise AssertionError(f"timed out waiting for {what}; last error {last!r}; page:\n{text}")


def log_in(driver: Any, base: str, user: str, password: str, path: str = "/") -> None:
    """Log in through the real form, then open ``path``."""
    driver.get(f"{base}/login?next={path}")
    driver.find_element("id", "username").send_keys(user)
    driver.find_element("id", "password").send_keys(password)
    driver.find_element("id", "submit").click()
    # the page after the login, not the login page itself (whose address ends in ?next=PATH)
    want = urlsplit(path)
    wait_for(driver, f"{path} after login", lambda: (
        (u := urlsplit(driver.current_url)).path == want.path and u.query == want.query
        and driver.execute_script("return document.readyState") == "complete"))


def messages(driver: Any) -> list[dict[str, Any]]:
    """Every WebSocket message the page received so far."""
    raw = driver.execute_script("return JSON.stringify(window.fwMessages || [])")
    out: list[dict[str, Any]] = json.loads(raw)
    return out


def tile_text(driver: Any, table: str) -> str:
    """The floor tile of ``table``, as a person reads it."""
    text: str = driver.find_element("css selector", f'article[data-table="{table}"]').text
    return text


def tile_order(driver: Any) -> list[str]:
    """Table ids in the order the floor page shows them."""
    order: list[str] = driver.execute_script(
        "return [...document.querySelectorAll('article.tile')].map(e => e.dataset.table)")
    return order
