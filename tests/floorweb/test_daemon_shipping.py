"""A real daemon with ``[central] url`` and ``floor-web --central``: shipping shown, hands found.

The daemon (``SimRig``) starts its shipper to a real PostgreSQL and publishes its progress on
the feeds; the floor web server (its own process) shows it on the table's tile, and the
surveillance role's search reads the same database.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

from table_controller.simtable.rig import RigOptions, SimRig
from tests.central.conftest import PgServer, pg_server  # noqa: F401  (the server fixture)
from tests.floorweb.browser import chromium, log_in, require_chromium, tile_text, wait_for
from tests.floorweb.helpers import PASSWORD, make_users


def test_a_real_daemon_shows_its_shipping_on_the_floor(pg_server: PgServer,  # noqa: F811
                                                       tmp_path: Path) -> None:
    require_chromium()
    url = pg_server.database()
    users = make_users(tmp_path)
    ready = tmp_path / "web.json"
    with SimRig(RigOptions(table_id="T8", central_url=url)) as rig:
        web = subprocess.Popen(
            [sys.executable, "-m", "table_controller", "floor-web", "--users", str(users),
             "--listen", "127.0.0.1:0", "--ready-file", str(ready),
             "--config", str(rig.config_path), "--central", url,
             "--surveillance-key", str(rig.keys["display_secret"])],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            deadline = time.monotonic() + 30
            while not ready.exists():
                assert web.poll() is None, web.communicate()[0]
                assert time.monotonic() < deadline, "floor-web did not start"
                time.sleep(0.05)
            base = json.loads(ready.read_text())["url"].rstrip("/")
            with chromium() as d:
                log_in(d, base, "ann", PASSWORD)
                # the shipper starts, ships the daemon's first entries, and is caught up
                wait_for(d, "T8's journal caught up", lambda: re.search(
                    r"journal: caught up · 0 entries behind · last shipped #\d+",
                    tile_text(d, "T8")), timeout=60)
                d.get(f"{base}/table/T8")
                wait_for(d, "the table page's shipping line", lambda: "caught up" in
                         d.find_element("id", "shipping").text, timeout=30)
                # surveillance: the search reads the same store (no hand played yet)
                # leave the table page first (for the login page, which has no script): the
                # table page would send itself to the login page once the session cookie is
                # gone, racing the login below
                d.get(f"{base}/login")
                d.delete_all_cookies()
                log_in(d, base, "sam", PASSWORD, "/hands")
                d.get(f"{base}/hands?table=T8&go=1")
                # the page is served once the store answered; wait for it, not for a budget
                wait_for(d, "the search's answer", lambda: d.find_element(
                    "id", "message").text.startswith("0 hands"), timeout=60)
        finally:
            web.terminate()
            out = web.communicate(timeout=15)[0]
    assert web.returncode == 0, out
