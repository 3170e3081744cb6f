"""The surveillance display: an allowed CURVE key sees every hole card; nobody else does."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import zmq.asyncio
from rich.console import Console

from table_controller.cli import build_parser
from table_controller.cli.display import client_keys, sources_from_args
from table_controller.displays.live import TableSource, run_display
from table_controller.displays.render import render
from table_controller.displays.view import view_from_state
from table_controller.feeds import ClientKeys, CurveServer, Feed, FeedEndpoints, FeedHub
from tests.displays.test_cli_and_floor import parse
from tests.displays.test_render import text_of
from tests.feeds.helpers import arun, make_keys

STATE = {"table": "T1", "hand": 7, "street": "flop", "button": 1,
         "seats": {"1": {"player": "Ann", "stack": 900, "bet": 0},
                   "2": {"player": "Bo", "stack": 950, "bet": 0}},
         "hole_cards": {"1": ["Ah", "Kd"], "2": ["7c", "7s"]},
         "board": ["2h", "9d", "Qs"], "pots": [{"amount": 150, "eligible": [1, 2]}]}


def test_the_surveillance_screen_shows_hole_cards_and_the_dealer_screen_does_not() -> None:
    v = view_from_state(STATE)
    assert [s.hole for s in v.seats] == [("Ah", "Kd"), ("7c", "7s")]
    surv = text_of(render("surveillance", [v]), width=120)
    assert "A♥" in surv or "Ah" in surv
    assert "surveillance display" in surv
    masked = view_from_state({**STATE, "hole_cards": {"1": ["??", "??"], "2": ["??", "??"]}})
    assert all(s.hole == () for s in masked.seats)
    dealer = text_of(render("dealer", [v]), width=120)
    assert "K♦" not in dealer and "Kd" not in dealer


def test_a_surveillance_display_follows_the_curve_feed(tmp_path: Path) -> None:
    keys = make_keys(tmp_path / "server", "server")
    keys.update(make_keys(tmp_path / "displays", "floor-monitor"))
    (tmp_path / "consoles").mkdir()

    async def body(ctx: zmq.asyncio.Context) -> None:
        curve = CurveServer.from_files(ctx, server_secret_key=keys["server"],
                                       displays_dir=tmp_path / "displays",
                                       consoles_dir=tmp_path / "consoles")
        curve.start()
        try:
            async with FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback(),
                               curve=curve, heartbeat_interval=0.1) as hub:
                await hub.publish(Feed.SURVEILLANCE, "table_state", STATE, state=STATE)
                source = TableSource("T1", hub.bound["surveillance"],
                                     hub.bound["surveillance_snapshot"])
                out = io.StringIO()
                model = await run_display(
                    "surveillance", [source], console=Console(file=out, width=120),
                    duration=30, heartbeat_timeout=5.0, live=False,
                    keys=ClientKeys.from_files(keys["floor-monitor"],
                                               keys["server"].with_suffix(".key")),
                    until=lambda m: bool(m.views["T1"].seats and m.views["T1"].seats[0].hole))
                view = model.views["T1"]
                assert view.seats[0].hole == ("Ah", "Kd")
        finally:
            curve.stop()

    arun(body, timeout=60)


def test_surveillance_without_a_key_is_refused_with_the_fix(tmp_path: Path) -> None:
    args = parse("--role", "surveillance", "--connect", "tcp://127.0.0.1:1",
                 "--snapshot", "tcp://127.0.0.1:2")
    with pytest.raises(ValueError, match="needs --key"):
        client_keys(args)
    assert args.handler(args) == 2


def test_surveillance_endpoints_from_the_config() -> None:
    args = build_parser().parse_args(["display", "--role", "surveillance", "--config",
                                      "examples/table.toml"])
    [(table, feed, snap)] = sources_from_args(args)
    assert table == "T1" and feed != snap
    from table_controller.config import load_config

    eps = load_config(Path("examples/table.toml")).endpoints
    assert feed.rsplit(":", 1)[1] == eps.surveillance.rsplit(":", 1)[1]
    assert snap.rsplit(":", 1)[1] == eps.surveillance_snapshot.rsplit(":", 1)[1]
