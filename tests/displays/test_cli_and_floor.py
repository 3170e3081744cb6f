from __future__ import annotations

import argparse
import asyncio
import io
from pathlib import Path

import pytest
import zmq.asyncio
from rich.console import Console

from table_controller.cli import build_parser
from table_controller.cli.display import sources_from_args
from table_controller.displays.live import TableSource, run_display
from table_controller.feeds import Feed, FeedHub
from tests.displays.test_live import STATE, ipc_endpoints
from tests.feeds.helpers import arun


def parse(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["display", *argv])


def test_sources_from_the_example_config() -> None:
    args = parse("--role", "dealer", "--config", "examples/table.toml")
    assert sources_from_args(args) == [("T1", "tcp://127.0.0.1:5562", "tcp://127.0.0.1:5564")]


def test_floor_sources() -> None:
    args = parse("--role", "floor", "--connect", "tcp://127.0.0.1:6000",
                 "--table", "T1=tcp://127.0.0.1:5564", "--table", "T2=tcp://127.0.0.1:5574")
    assert [s[0] for s in sources_from_args(args)] == ["T1", "T2"]


@pytest.mark.parametrize("argv, message", [
    (("--role", "public"), "give --config"),
    (("--role", "public", "--connect", "tcp://127.0.0.1:1"), "--snapshot"),
    (("--role", "floor", "--connect", "tcp://127.0.0.1:1", "--table", "T1"), "ID=SNAPSHOT"),
])
def test_bad_options_are_named(argv: tuple[str, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        sources_from_args(parse(*argv))


def test_bad_options_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    args = parse("--role", "public", "--config", "/nonexistent/table.toml")
    assert args.handler(args) == 2
    assert "display:" in capsys.readouterr().err


def test_floor_display_through_the_proxy(tmp_path: Path) -> None:
    proxy_mod = pytest.importorskip("table_controller.feeds.proxy")
    e1, e2 = ipc_endpoints(tmp_path, "t1"), ipc_endpoints(tmp_path, "t2")
    out = io.StringIO()
    console = Console(file=out, width=120, color_system=None, force_terminal=False)

    async def body(ctx: zmq.asyncio.Context) -> None:
        h1 = FeedHub(ctx, table_id="T1", endpoints=e1, heartbeat_interval=0.1)
        h2 = FeedHub(ctx, table_id="T2", endpoints=e2, heartbeat_interval=0.1)
        await h1.start()
        await h2.start()
        await h1.publish(Feed.PUBLIC, "table", {}, state=STATE)
        await h2.publish(Feed.PUBLIC, "table", {},
                         state={**STATE, "table": "T2", "hand": 9,
                                "holds": ["shoe unplugged"]})
        proxy = proxy_mod.FloorProxy([e1.public, e2.public], f"ipc://{tmp_path}/floor")
        proxy.start()
        try:
            backend = proxy.bound
            model = await run_display(
                "floor", [TableSource("T1", backend, e1.snapshot),
                          TableSource("T2", backend, e2.snapshot)],
                console=console, duration=1.5, heartbeat_timeout=1.0, plain_every=0.1)
            assert model.views["T1"].hand == 3 and model.views["T2"].holds
            assert model.views["T1"].connection == "live"
        finally:
            proxy.stop()
            await h1.stop()
            await h2.stop()
        await asyncio.sleep(0)

    arun(body, timeout=20)
    text = out.getvalue()
    assert "T1" in text and "T2" in text and "HOLD shoe unplugged" in text


def test_the_display_waits_as_long_as_the_table_is_configured_to(tmp_path: Path) -> None:
    from table_controller.cli.display import heartbeat_timeout

    text = Path("examples/table.toml").read_text()
    slow = text.replace("heartbeat_interval = 1.0", "heartbeat_interval = 5.0").replace(
        "heartbeat_timeout = 3.0", "heartbeat_timeout = 15.0")
    assert slow != text
    cfg = tmp_path / "table.toml"
    cfg.write_text(slow)
    assert heartbeat_timeout(parse("--role", "public", "--config", str(cfg))) == 15.0
    assert heartbeat_timeout(parse("--role", "public", "--config", str(cfg),
                                   "--heartbeat-timeout", "7")) == 7.0
    # without a config: the table's own, from its snapshot
    assert heartbeat_timeout(parse("--role", "public", "--connect", "tcp://127.0.0.1:1",
                                   "--snapshot", "tcp://127.0.0.1:2")) is None
    with pytest.raises(ValueError, match="--heartbeat-timeout"):
        heartbeat_timeout(parse("--role", "public", "--heartbeat-timeout", "0"))
