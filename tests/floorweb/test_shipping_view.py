"""The journal's shipping to the central store, on the floor page and a table page (Chromium).

The hubs send what the daemon sends (:func:`table_controller.daemon.shipping.send_shipping`):
a ``shipping`` message, kept in the feeds' snapshot state.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from table_controller.daemon.shipping import send_shipping
from tests.floorweb.browser import chromium, log_in, tile_text, wait_for
from tests.floorweb.helpers import PASSWORD, LiveFloor
from tests.floorweb.test_browser import shots_dir


def progress(status: str, *, behind: int, shipped: int, error: str = "",
             ago: float = 4.0) -> dict[str, Any]:
    now = time.time()
    return {"status": status, "behind": behind, "local_seq": shipped + behind,
            "shipped_seq": shipped, "last_shipped_at": now - ago, "error": error,
            "updated_at": now}


def ship(floor: LiveFloor, table: str, body: dict[str, Any]) -> None:
    floor.call(send_shipping(floor.hubs[table], body, {}))


def test_shipping_progress_per_table_on_the_floor_and_table_pages(tmp_path: Path) -> None:
    with LiveFloor(tmp_path, ["T1", "T2"]) as floor, chromium(1280, 800) as d:
        ship(floor, "T1", progress("caught_up", behind=0, shipped=120))
        log_in(d, floor.url, "ann", PASSWORD)
        wait_for(d, "T1 caught up", lambda: "journal: caught up" in tile_text(d, "T1"))
        t1 = tile_text(d, "T1")
        assert "0 entries behind" in t1 and "last shipped #120" in t1
        assert "journal:" not in tile_text(d, "T2")  # a table that does not ship says nothing
        wait_for(d, "the age of the last batch", lambda: "s ago" in tile_text(d, "T1"))

        # the database goes away: entries pile up, shown in warning colours, with the reason
        ship(floor, "T1", progress("retrying", behind=412, shipped=120, ago=95,
                                   error="OperationalError: connection refused"))
        wait_for(d, "T1 retrying", lambda: "412 entries behind" in tile_text(d, "T1"))
        t1 = tile_text(d, "T1")
        assert "central store unreachable, retrying" in t1 and "connection refused" in t1
        assert "1 min" in t1  # last shipped 1 min 35 s ago
        el = d.find_element("css selector", 'article[data-table="T1"] .shipping')
        assert "bad" in (el.get_attribute("class") or "")
        d.save_screenshot(str(shots_dir(tmp_path) / "floorweb-shipping.png"))

        # the table page shows the same; a new floor web server (no messages seen) has it
        # from the feed's snapshot
        floor.restart_server(down=0.2)
        log_in(d, floor.url, "ann", PASSWORD, "/table/T1")
        wait_for(d, "the table page's shipping line", lambda: "412 entries behind" in
                 d.find_element("id", "shipping").text)
        ship(floor, "T1", progress("caught_up", behind=0, shipped=532, ago=0.5))
        wait_for(d, "caught up again", lambda: "last shipped #532" in
                 d.find_element("id", "shipping").text)
        el = d.find_element("css selector", "#shipping .shipping")
        assert "ok" in (el.get_attribute("class") or "")
