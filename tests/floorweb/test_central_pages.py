"""The surveillance role searches and opens hands of the central store (PostgreSQL, Chromium).

A real demo table ships its journal to a real PostgreSQL server (the central tests' server,
``tests/central/conftest.py``); ``floor-web --central`` serves the search over it. The floor role
is refused every one of these pages.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from table_controller.central.query import HandSummary, find_hands
from table_controller.simtable.demo import run_demo
from tests.central.conftest import PgServer, pg_server  # noqa: F401  (the server fixture)
from tests.floorweb.browser import chromium, log_in, wait_for
from tests.floorweb.helpers import PASSWORD, LiveFloor
from tests.floorweb.test_app import login, session
from tests.floorweb.test_browser import shots_dir

TABLE = "TS1"
EXE = str(Path(sys.executable).with_name("table-controller"))


class Shipped:
    """A demo table's journal, shipped."""

    def __init__(self, url: str, journal: Path, hands: list[HandSummary]) -> None:
        self.url = url
        self.journal = journal
        self.hands = hands

    def recall(self, hand: int) -> str:
        """``table-controller central recall``'s text."""
        out = subprocess.run([EXE, "central", "recall", "--url", self.url, "--table", TABLE,
                              "--hand", str(hand)], capture_output=True, text=True,
                             timeout=60, check=False)
        assert out.returncode == 0, out.stderr
        return out.stdout.rstrip("\n")


@pytest.fixture(scope="module")
def shipped(pg_server: PgServer, tmp_path_factory: pytest.TempPathFactory  # noqa: F811
            ) -> Iterator[Shipped]:
    url = pg_server.database()
    out = tmp_path_factory.mktemp("demo")
    summary = asyncio.run(run_demo(hands=3, fast=True, seed=7, table_id=TABLE, live=False,
                                   out=out, central=url))
    assert summary.hands_played == 3
    # what the shipper had not sent when the daemon stopped (a busy machine): a catch-up run
    journal = out / "journal.db"
    done = subprocess.run([EXE, "central", "ship", "--journal", str(journal), "--table", TABLE,
                           "--url", url, "--once"], capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    with psycopg.connect(url) as conn:
        hands = find_hands(conn, table=TABLE)
    assert [h.hand for h in hands] == [1, 2, 3]
    yield Shipped(url, journal, hands)


def test_surveillance_searches_by_card_and_seat_and_opens_the_recall(
        shipped: Shipped, tmp_path: Path) -> None:
    # a hand whose hole cards are in the central rows (the daemon's shipper knows the deck)
    with_hole = [h for h in shipped.hands if h.hole]
    assert with_hole, "no hand with hole cards centrally"
    target = with_hole[0]
    seat, cards = sorted(target.hole.items())[0]
    river = target.board[4]
    with LiveFloor(tmp_path, [TABLE], central=shipped.url) as floor, chromium() as d:
        log_in(d, floor.url, "sam", PASSWORD)
        link = d.find_element("id", "nav-hands")
        assert link.is_displayed()
        link.click()
        wait_for(d, "the search form", lambda: d.find_element("id", "f-card"))

        # the river card: the hand is found, its board and hole cards shown
        d.find_element("id", "f-table").send_keys(TABLE)
        d.find_element("id", "f-card").send_keys(river)
        d.find_element("id", "f-go").click()
        wait_for(d, "results", lambda: "newest first" in d.find_element(
            "id", "message").text)
        d.save_screenshot(str(shots_dir(tmp_path) / "floorweb-hands.png"))
        results = d.find_element("id", "results").text
        assert f"{TABLE} hand {target.hand}" in results
        assert " ".join(target.board) in results and " ".join(cards) in results
        expected = [h.hand for h in shipped.hands if river in h.board or any(
            river in c for c in h.hole.values())]
        assert len(d.find_elements("css selector", "#results tr")) == len(expected)

        # a seat holding a card (the same filter as central hands --seat N --card C)
        d.get(f"{floor.url}/hands?table={TABLE}&seat={seat}&card={cards[0]}")
        assert f"{TABLE} hand {target.hand}" in d.find_element("id", "results").text
        # an irregularity kind no hand had: nothing
        d.get(f"{floor.url}/hands?irregularity=no_such_kind")
        assert d.find_element("id", "message").text.startswith("0 hands")
        # every hand of the table: the message counts them
        d.get(f"{floor.url}/hands?table={TABLE}")
        assert d.find_element("id", "message").text.startswith(f"{len(shipped.hands)} hands")
        # a field that is not a card: said so
        d.get(f"{floor.url}/hands?card=Zz")
        assert "not a card" in d.find_element("id", "message").text

        # open the hand: the central recall, the same text as `central recall`
        d.get(f"{floor.url}/hands?table={TABLE}&card={river}")
        d.find_element("link text", f"{TABLE} hand {target.hand}").click()
        wait_for(d, "the recall", lambda: "central record" in d.title)
        text = d.find_element("id", "recall").get_attribute("textContent")
        assert text == shipped.recall(target.hand)
        cards = d.find_element("id", "cards").text  # every card named, from the hands index
        assert cards.startswith("Board " + " ".join(target.board))
        for s, hole in target.hole.items():
            assert f"seat {s}: {' '.join(hole)}" in cards
        for card in target.board:
            assert card in text
        d.save_screenshot(str(shots_dir(tmp_path) / "floorweb-hand.png"))


def test_the_search_page_takes_the_latest_hands_when_there_are_too_many(
        shipped: Shipped) -> None:
    from table_controller.floorweb.central import Search, results_html

    with psycopg.connect(shipped.url) as conn:
        assert [h.hand for h in find_hands(conn, table=TABLE, limit=2)] == [1, 2]
        latest = Search(table=TABLE).find(conn, limit=2)
        assert [h.hand for h in latest] == [2, 3]  # the newest two, oldest first
        assert [h.hand for h in find_hands(conn, table=TABLE, limit=9, latest=True)] == [
            1, 2, 3]
    rows = results_html(latest)
    assert rows.index(f"{TABLE} hand 3") < rows.index(f"{TABLE} hand 2")  # newest first


def test_floor_role_is_refused_the_search_and_the_recall(shipped: Shipped,
                                                         tmp_path: Path) -> None:
    with LiveFloor(tmp_path, [TABLE], central=shipped.url) as floor:
        async def body() -> None:
            paths = ["/hands", f"/hands?table={TABLE}&card=Ah", f"/hands/{TABLE}/1"]
            async with session() as http:
                for p in paths:  # no login: the login page
                    async with http.get(floor.url + p, allow_redirects=False) as r:
                        assert r.status == 303 and r.headers["Location"].startswith("/login")
                r = await login(http, floor.url, "ann")
                assert r.status == 303
                for p in paths:
                    async with http.get(floor.url + p, allow_redirects=False) as r:
                        text = await r.text()
                        assert r.status == 403, (p, r.status)
                        assert "surveillance role" in text and TABLE + " hand" not in text
            async with session() as http:
                await login(http, floor.url, "sam")
                async with http.get(f"{floor.url}/hands/{TABLE}/1") as r:
                    assert r.status == 200 and "central record" in await r.text()
                async with http.get(f"{floor.url}/hands/{TABLE}/99") as r:
                    assert r.status == 404 and "no hand 99" in await r.text()

        asyncio.run(asyncio.wait_for(body(), 60))
        with chromium() as d:  # and in the browser, the floor page offers no search link
            log_in(d, floor.url, "ann", PASSWORD)
            assert not d.find_element("id", "nav-hands").is_displayed()
            d.get(f"{floor.url}/hands/{TABLE}/1")
            assert "for the surveillance role" in d.find_element("tag name", "body").text


def test_an_unreachable_store_is_a_page_saying_so(tmp_path: Path) -> None:
    # a closed port: the search says so (503) and the live view goes on
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"postgresql://tc@127.0.0.1:{port}/nothing"
    with LiveFloor(tmp_path, ["T1"], central=url) as floor:
        async def body() -> None:
            async with session() as http:
                await login(http, floor.url, "sam")
                async with http.get(f"{floor.url}/hands?table=T1") as r:
                    assert r.status == 503
                    assert "central store cannot be reached" in await r.text()
                async with http.get(f"{floor.url}/") as r:
                    assert r.status == 200

        asyncio.run(asyncio.wait_for(body(), 60))
    (tmp_path / "none").mkdir()
    with LiveFloor(tmp_path / "none", ["T1"]) as floor:  # no --central: said so
        async def without() -> None:
            async with session() as http:
                await login(http, floor.url, "sam")
                async with http.get(f"{floor.url}/hands?table=T1") as r:
                    assert r.status == 200 and "without --central" in await r.text()

        asyncio.run(asyncio.wait_for(without(), 60))

