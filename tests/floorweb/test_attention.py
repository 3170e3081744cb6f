"""What needs someone, in a real browser (headless Chromium): a feed behind the table, shipping
trouble; both shown in words and sorted ahead of the quiet tables."""

from __future__ import annotations

from pathlib import Path

from tests.floorweb.browser import chromium, log_in, tile_order, tile_text, wait_for
from tests.floorweb.helpers import PASSWORD, LiveFloor
from tests.floorweb.test_browser import shots_dir
from tests.floorweb.test_shipping_view import progress, ship


def test_a_lagging_feed_shows_how_far_behind_and_comes_first_until_it_catches_up(
        tmp_path: Path) -> None:
    with LiveFloor(tmp_path, ["T1", "T2", "T3"]) as floor, chromium(1280, 760) as d:
        log_in(d, floor.url, "ann", PASSWORD)
        wait_for(d, "three live tiles", lambda: tile_order(d) == ["T1", "T2", "T3"] and all(
            "feed live" in tile_text(d, t) for t in ("T1", "T2", "T3")))

        # T3's messages (heartbeats included) now come in 6 s behind the table's clock
        floor.lag["T3"] = 6.0
        wait_for(d, "T3 behind", lambda: "feed behind the table by 6 s" in tile_text(d, "T3"))
        assert tile_order(d)[0] == "T3"
        tile = d.find_element("css selector", 'article[data-table="T3"]')
        assert "need-1" in (tile.get_attribute("class") or "")
        assert "1 behind" in d.find_element("id", "summary").text
        assert "0 not heard from" in d.find_element("id", "summary").text
        d.save_screenshot(str(shots_dir(tmp_path) / "floorweb-behind.png"))

        # the table page says the same
        d.get(f"{floor.url}/table/T3")
        wait_for(d, "the table page's feed line", lambda: "behind the table by 6 s" in
                 d.find_element("id", "feed").text)

        # caught up: live again, back in its place
        floor.lag["T3"] = 0.0
        wait_for(d, "T3 live again", lambda: d.find_element("id", "feed").text == "feed live")
        d.get(f"{floor.url}/")
        wait_for(d, "the quiet order", lambda: tile_order(d) == ["T1", "T2", "T3"] and
                 "feed live" in tile_text(d, "T3"))
        assert "behind" not in d.find_element("id", "summary").text


def test_shipping_trouble_is_sorted_among_the_tables_that_need_someone(tmp_path: Path) -> None:
    with LiveFloor(tmp_path, ["T1", "T2", "T3", "T4"]) as floor, chromium(1280, 760) as d:
        for t in ("T1", "T2", "T3", "T4"):
            ship(floor, t, progress("caught_up", behind=0, shipped=50))
        log_in(d, floor.url, "ann", PASSWORD)
        wait_for(d, "four tiles caught up", lambda: tile_order(d) == ["T1", "T2", "T3", "T4"]
                 and all("journal: caught up" in tile_text(d, t) for t in ("T1", "T4")))

        ship(floor, "T4", progress("refused", behind=7, shipped=50,
                                   error="journal differs from the central copy at seq 51"))
        ship(floor, "T3", progress("silent", behind=30, shipped=50, ago=40))
        ship(floor, "T2", progress("shipping", behind=2400, shipped=50, ago=1))
        wait_for(d, "the troubled tables first", lambda: tile_order(d) == [
            "T2", "T3", "T4", "T1"])
        assert "REFUSED" in tile_text(d, "T4") and "shipper not running" in tile_text(d, "T3")
        assert "2,400 entries behind" in tile_text(d, "T2")
        for t in ("T2", "T3", "T4"):
            tile = d.find_element("css selector", f'article[data-table="{t}"]')
            assert "need-4" in (tile.get_attribute("class") or "")
        assert "3 not shipping" in d.find_element("id", "summary").text
        d.save_screenshot(str(shots_dir(tmp_path) / "floorweb-not-shipping.png"))

        # a table far behind that catches up goes back among the quiet ones
        ship(floor, "T2", progress("caught_up", behind=0, shipped=2450, ago=0.2))
        wait_for(d, "T2 back in its place", lambda: tile_order(d) == ["T3", "T4", "T1", "T2"])
        assert "2 not shipping" in d.find_element("id", "summary").text
