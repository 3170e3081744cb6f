"""``table-controller floor-web --config`` against a real daemon on simulated devices, in Chromium.

The daemon runs as its own process (``SimRig``: simulated shoe and chip sensors on ptys,
CURVE keys); the floor web server runs as its own process with the table's configuration and
the rig's display key; the hold is a real dealer ``hold`` command.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import zmq.asyncio

from table_controller.feeds import ClientKeys, CommandClient
from table_controller.simtable.rig import RigOptions, SimRig
from tests.floorweb.browser import (
    chromium,
    log_in,
    messages,
    require_chromium,
    tile_text,
    wait_for,
)
from tests.floorweb.helpers import PASSWORD, make_users
from tests.floorweb.test_browser import assert_no_hole_cards


async def command(rig: SimRig, name: str, **args: str) -> bool:
    ctx = zmq.asyncio.Context()
    keys = rig.console_keys()
    assert isinstance(keys, ClientKeys)
    client = CommandClient(ctx, rig.endpoints["commands"], table_id="T7",
                           console_id="floor-test", keys=keys, timeout=3.0,
                           first_seq=int(time.time() * 1000))
    try:
        reply = await client.send(name, **args)
        return reply.accepted
    finally:
        await client.close()
        ctx.destroy(linger=0)


def test_floor_web_follows_a_real_daemon(tmp_path: Path) -> None:
    require_chromium()
    users = make_users(tmp_path)
    ready = tmp_path / "web.json"
    with SimRig(RigOptions(table_id="T7", camera_level="exact")) as rig:
        web = subprocess.Popen(
            [sys.executable, "-m", "table_controller", "floor-web", "--users", str(users),
             "--listen", "127.0.0.1:0", "--ready-file", str(ready),
             "--config", str(rig.config_path),
             "--surveillance-key", str(rig.keys["display_secret"])],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            deadline = time.monotonic() + 30
            while not ready.exists():
                assert web.poll() is None, web.communicate()[0]
                assert time.monotonic() < deadline, "floor-web did not start"
                time.sleep(0.05)
            url = json.loads(ready.read_text())["url"].rstrip("/")
            with chromium() as d:
                log_in(d, url, "ann", PASSWORD)
                wait_for(d, "T7 live", lambda: "feed live" in tile_text(d, "T7"), timeout=30)
                assert "between hands" in tile_text(d, "T7")
                assert asyncio.run(command(rig, "hold", reason="dispute at seat 3"))
                wait_for(d, "the dealer's hold", lambda: "HOLD held by the dealer: dispute at "
                         "seat 3" in tile_text(d, "T7"), timeout=30)
                assert asyncio.run(command(rig, "resume", note="settled"))
                wait_for(d, "the hold lifted", lambda: "HOLD" not in tile_text(d, "T7"),
                         timeout=30)
                assert_no_hole_cards(messages(d))
                # surveillance: the table page over the CURVE feed, and the journal's recall
                # (leave the floor page first: it would send itself to the login page once
                # the session cookie is gone, racing the login below)
                d.get(f"{url}/login")
                d.delete_all_cookies()
                log_in(d, url, "sam", PASSWORD, "/table/T7")
                wait_for(d, "the surveillance feed", lambda: "surveillance feed: live" in
                         d.find_element("id", "feed").text, timeout=30)
                d.get(f"{url}/recall/T7")
                recall = d.find_element("id", "recall").text
                assert "no hands in the journal yet" in recall or "Hand " in recall
        finally:
            web.terminate()
            out = web.communicate(timeout=15)[0]
    assert web.returncode == 0, out
