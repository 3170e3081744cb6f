"""The central store's parts that need no server: config, derivation, supervisor, CLI times."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from table_controller.central.derive import HandDeriver
from table_controller.central.supervise import ShipperSupervisor, ship_argv
from table_controller.config import loads_config
from table_controller.errors import ConfigError
from table_controller.journal import Journal
from tests.central.tables import TAGS, FakeTable

BASE = Path(__file__).resolve().parents[2] / "examples" / "table.toml"


def _config(extra: str) -> str:
    return BASE.read_text() + "\n" + extra


def test_central_section() -> None:
    cfg = loads_config(_config('[central]\nurl = "postgresql://tc@db/floor"\n'),
                       base_dir=BASE.parent)
    assert cfg.central is not None and cfg.central.url == "postgresql://tc@db/floor"
    assert cfg.central.batch == 500
    assert loads_config(_config(""), base_dir=BASE.parent).central is None
    with pytest.raises(ConfigError, match=r"central\.urll: unknown key \(did you mean 'url'"):
        loads_config(_config('[central]\nurl = "postgresql://x/y"\nurll = 1\n'))
    with pytest.raises(ConfigError, match=r"central\.url: must be a postgresql:// URL"):
        loads_config(_config('[central]\nurl = "mysql://x/y"\n'))
    with pytest.raises(ConfigError, match=r"central\.url: missing"):
        loads_config(_config('[central]\nbatch = 5\n'))
    with pytest.raises(ConfigError, match=r"central\.batch: must be >= 1"):
        loads_config(_config('[central]\nurl = "postgresql://x/y"\nbatch = 0\n'))


def test_deriver_rebuilds_the_same_rows_batch_by_batch(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.db") as journal:
        table = FakeTable(journal)
        for i in range(4):
            table.play_hand(irregularity="exposed_card" if i == 1 else None)
        whole = HandDeriver(TAGS.get)
        whole.feed_all(journal.entries())
        hands, irregular = whole.take()
        split = HandDeriver(TAGS.get)
        rows = {}
        for e in journal.entries():
            split.feed(e)
            if e.seq % 7 == 0:
                rows.update({h.hand: h for h in split.take()[0]})
        rows.update({h.hand: h for h in split.take()[0]})
    assert [h.board for h in hands] == [table.hands[n]["board"] for n in (1, 2, 3, 4)]
    assert [h.hole for h in hands] == [table.hands[n]["hole"] for n in (1, 2, 3, 4)]
    assert hands[1].irregularities == ["exposed_card"] and len(irregular) == 1
    assert [rows[n] for n in (1, 2, 3, 4)] == hands
    assert hands[0].ended is not None and set(hands[0].cards) >= set(hands[0].board)


def test_deriver_without_a_deck_marks_hole_cards_unknown(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.db") as journal:
        FakeTable(journal).play_hand()
        d = HandDeriver()
        d.feed_all(journal.entries())
    (hand,), _ = d.take()
    assert hand.hole["1"] == ["??", "??"] and "??" not in hand.cards


def test_supervisor_restarts_but_not_after_a_refusal() -> None:
    async def main() -> tuple[int, bool, int, bool]:
        crash = ShipperSupervisor([sys.executable, "-c", "raise SystemExit(1)"],
                                  restart_min=0.01, restart_max=0.02)
        await crash.start()
        for _ in range(2000):
            if crash.starts >= 3:
                break
            await asyncio.sleep(0.01)
        await crash.stop()
        refused = ShipperSupervisor([sys.executable, "-c", "raise SystemExit(4)"],
                                    restart_min=0.01)
        await refused.start()
        for _ in range(2000):
            if refused.refused:
                break
            await asyncio.sleep(0.01)
        await refused.stop()
        return crash.starts, crash.refused, refused.starts, refused.refused

    starts, crashed_refused, refused_starts, refused = asyncio.run(main())
    assert starts >= 3 and not crashed_refused
    assert refused and refused_starts == 1


def test_supervisor_stops_a_running_shipper() -> None:
    async def main() -> int | None:
        s = ShipperSupervisor([sys.executable, "-c", "import time; time.sleep(600)"])
        await s.start()
        for _ in range(2000):
            if s.pid is not None:
                break
            await asyncio.sleep(0.01)
        await s.stop()
        return s.pid

    assert asyncio.run(main()) is None


def test_ship_argv() -> None:
    argv = ship_argv(Path("/var/j.db"), "T1", "postgresql://x/y", config_path=Path("t.toml"))
    assert argv[1:5] == ["-m", "table_controller", "central", "ship"]
    assert argv[-2:] == ["--config", "t.toml"] and "--table" in argv
