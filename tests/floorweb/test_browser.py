"""The floor web view in a real browser (headless Chromium) against scripted FeedHubs.

What a person would see: the tables' tiles, a hold appearing (measured from publish to the DOM)
and clearing, a lost feed, a reconnect; the floor role never receives a hole card, the
surveillance role does.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.floorweb.browser import (
    chromium,
    log_in,
    messages,
    tile_order,
    tile_text,
    wait_for,
)
from tests.floorweb.helpers import HOLES, PASSWORD, LiveFloor, state

HOLE_CODES = [c for cs in HOLES.values() for c in cs]
REASON = "chip count differs on seat 2 (irregularity 4)"


def assert_no_hole_cards(received: list[dict[str, object]]) -> None:
    assert received, "the page received nothing"
    text = json.dumps(received)
    leaked = [c for c in HOLE_CODES if c in text]
    assert not leaked and '"hole"' not in text, f"hole cards reached the floor role: {leaked}"


def shots_dir(tmp: Path) -> Path:
    """Screenshots go to FLOORWEB_SHOTS (to refresh the docs' pictures), else the tmp dir."""
    return Path(os.environ.get("FLOORWEB_SHOTS", tmp))


def test_floor_sees_tables_a_hold_within_a_second_its_clearing_and_a_lost_feed(
        tmp_path: Path) -> None:
    with LiveFloor(tmp_path, ["T1", "T2", "T3"], heartbeat_timeout=1.0) as floor, \
            chromium(1280, 760) as d:
        log_in(d, floor.url, "ann", PASSWORD)
        wait_for(d, "three live tiles", lambda: tile_order(d) == ["T1", "T2", "T3"] and all(
            "feed live" in tile_text(d, t) for t in ("T1", "T2", "T3")))
        t1 = tile_text(d, "T1")
        assert "Hand 3" in t1 and "preflop" in t1 and "Pot 150" in t1 and "shoe ok" in t1
        assert "no action seen yet" in t1

        # a hold: at the top, red, flashing, with a sound; on the page soon after publishing
        sent = floor.publish("T3", "hold", state("T3", holds=[REASON]),
                             data={"reason": REASON, "irregularity": 4})
        seen = wait_for(d, "the hold on T3", lambda: [
            h for h in d.execute_script("return window.fwHoldSeen") if h["table"] == "T3"])
        latency = seen[0]["at"] - sent
        # the 1 s target is measured by benchmarks/bench_floorweb.py on a known load; here a
        # busy CI machine must not turn a slow scheduler into a failure, so the bound is wide
        # (the figure is printed for the record)
        print(f"hold shown {latency:.3f} s after it was published")
        assert 0 <= latency <= 10.0, f"hold shown {latency:.3f} s after it was published"
        assert tile_order(d)[0] == "T3"
        tile = d.find_element("css selector", 'article[data-table="T3"]')
        assert "need-0" in tile.get_attribute("class") and "fresh" in tile.get_attribute("class")
        assert "HOLD " + REASON in tile.text
        assert d.execute_script("return window.fwBeeps") == 1
        assert "(1 HOLD)" in d.title and "last action" in tile.text

        # muted: a second hold shows but makes no sound
        d.find_element("id", "sound").click()
        assert "Sound off" in d.find_element("id", "sound").text
        floor.publish("T2", "table_state", state(
            "T2", holds=["shoe opened during the hand"], board=["Qs", "Jh", "2d", None, None]))
        wait_for(d, "the hold on T2", lambda: "shoe opened" in tile_text(d, "T2"))
        assert d.execute_script("return window.fwBeeps") == 1

        # cleared: the hold goes, the table goes back to its place
        floor.publish("T3", "resume", state("T3"), data={"note": "recounted"})
        wait_for(d, "T3's hold cleared", lambda: "HOLD" not in tile_text(d, "T3"))
        wait_for(d, "T2 (held) first", lambda: tile_order(d) == ["T2", "T1", "T3"])

        # a table that stops publishing: "not heard from", ahead of the quiet tables
        floor.stop_hub("T1")
        wait_for(d, "T1 not heard from", lambda: "not heard from for" in tile_text(d, "T1"))
        assert tile_order(d) == ["T2", "T1", "T3"]
        assert "1 not heard from" in d.find_element("id", "summary").text
        d.save_screenshot(str(shots_dir(tmp_path) / "floorweb-floor.png"))

        # the server drops the WebSocket: the page reconnects and gets a fresh snapshot
        assert floor.server is not None
        floor.call(floor.server.disconnect_all("test"))
        wait_for(d, "a second snapshot", lambda: sum(
            1 for m in messages(d) if m["t"] == "snapshot") >= 2)
        wait_for(d, "live again", lambda: d.find_element("id", "conn").text == "live")
        assert "shoe opened" in tile_text(d, "T2")
        assert_no_hole_cards(messages(d))

        # the server itself goes away and comes back: the page says so, retries, and (the
        # sessions were in the old server's memory) asks for a login again
        floor.restart_server(down=1.0)
        wait_for(d, "the login page", lambda: "/login" in d.current_url)
        log_in(d, floor.url, "ann", PASSWORD)
        wait_for(d, "the tiles again", lambda: "shoe opened" in tile_text(d, "T2"))

        # the floor role's table page: public information only
        d.get(f"{floor.url}/table/T2")
        wait_for(d, "T2's seats", lambda: "Ann" in d.find_element("id", "seats").text)
        page = d.find_element("tag name", "body").text
        assert "HOLD shoe opened during the hand" in page and "TO ACT" in page
        assert "▒▒" in d.find_element("id", "seats").text
        assert d.find_element("id", "board").text.split() == ["Q♠", "J♥", "2♦", "··", "··"]
        assert not d.find_element("css selector", "form.recall").is_displayed()
        d.save_screenshot(str(shots_dir(tmp_path) / "floorweb-table.png"))
        assert_no_hole_cards(messages(d))


def test_surveillance_sees_hole_cards_and_opens_recall(tmp_path: Path) -> None:
    with LiveFloor(tmp_path, ["T1"]) as floor, chromium() as d:
        log_in(d, floor.url, "sam", PASSWORD, "/table/T1")
        wait_for(d, "hole cards", lambda: "A♥" in d.find_element("id", "seats").text)
        seats = d.find_element("id", "seats").text
        assert "K♦" in seats and "7♣" in seats
        assert "Ah" in json.dumps(messages(d))
        assert "surveillance feed: live" in d.find_element("id", "feed").text
        d.find_element("css selector", "form.recall button").click()
        wait_for(d, "the recall page", lambda: "Recall is not available" in d.find_element(
            "id", "recall").text)
