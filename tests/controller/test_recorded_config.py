"""The configuration that shapes decisions is recorded; a restart under another is refused."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from table_controller.config import loads_config
from table_controller.controller.events import DealerCommand, ZoneSeen
from table_controller.daemon import Daemon
from table_controller.daemon.recovery import journal_stop
from table_controller.errors import ConfigError
from table_controller.journal import EntryKind, Journal
from table_controller.simtable.journal_io import DAEMON_CONFIG
from tests.controller.helpers import journal_of
from tests.controller.test_recovery import command


def start(tmp: Path, *, big_blind: int = 100, settle: float = 1.5,
          accept: bool = False) -> Daemon:
    text = DAEMON_CONFIG.format(table_id="T9").replace("big_blind = 100",
                                                      f"big_blind = {big_blind}")
    d = Daemon(loads_config(text, base_dir=tmp), print_ready=False, settle=settle,
               accept_config_change=accept)
    d.open_state()
    d.recover()
    return d


def kinds(d: Daemon, kind: EntryKind) -> list[dict[str, object]]:
    return [dict(e.payload) for e in journal_of(d).entries() if e.kind is kind]


def test_first_start_records_the_configuration(tmp_path: Path) -> None:
    d = start(tmp_path)
    (config,) = kinds(d, EntryKind.CONFIG)
    assert "first start" in str(config["text"])
    recorded: Any = config["config"]
    assert recorded["stakes"]["big_blind"] == 100 and recorded["settle"] == 1.5
    assert len(recorded["deck"]["cards"]) == 52
    journal_of(d).close()
    again = start(tmp_path)
    assert len(kinds(again, EntryKind.CONFIG)) == 1  # the same configuration: nothing new
    journal_of(again).close()


@pytest.mark.parametrize(("change", "words"), [
    ({"big_blind": 200}, "stakes.big_blind: 100 -> 200"),
    ({"settle": 2.0}, "settle: 1.5 -> 2.0"),
])
def test_a_restart_under_another_configuration_is_refused(
        tmp_path: Path, change: dict[str, float], words: str) -> None:
    journal_of(start(tmp_path)).close()
    with pytest.raises(ConfigError, match="recorded under another configuration") as err:
        start(tmp_path, **change)  # type: ignore[arg-type]
    assert words in str(err.value) and "--accept-config-change" in str(err.value)
    assert "\n" not in str(err.value)
    # nothing was journaled by the refused start
    with Journal.open(tmp_path / "state" / "journal.db", readonly=True) as j:
        assert [e.kind for e in j.entries()] == [EntryKind.CONFIG, EntryKind.START]


def test_a_change_between_hands_is_journaled_and_replayed_exactly(tmp_path: Path) -> None:
    d = start(tmp_path)
    now = time.monotonic()
    for seat in (1, 2, 3):
        command(d, "seat", now, seat=seat, player=f"p{seat}", stack=10_000)
    command(d, "start", now)
    d.feed(ZoneSeen(2, ((1, 50),)), now)  # the blinds of 50/100
    d.feed(ZoneSeen(3, ((1, 100),)), now)
    assert d.core is not None and not d.core.open_irregularities()
    command(d, "void", now, reason="test")
    assert journal_of(d).current_hand is None
    journal_of(d).close()
    changed = start(tmp_path, big_blind=200, accept=True)
    configs = kinds(changed, EntryKind.CONFIG)
    assert len(configs) == 2 and configs[1]["changed"] == ("stakes.big_blind: 100 -> 200",)
    assert changed.core is not None and changed.core.table.config.big_blind == 200
    command(changed, "start", now + 1)
    before = changed.core.view(secret=True)
    journal_of(changed).close()
    # the journal now says 200: a plain restart under it replays hand 1 under 100, hand 2 200
    again = start(tmp_path, big_blind=200)
    assert again.core is not None and again.core.table.config.big_blind == 200
    after = again.core.view(secret=True)
    for view in (before, after):
        view.pop("last_announcement", None)
    assert after == before
    journal_of(again).close()
    with pytest.raises(ConfigError, match=r"stakes\.big_blind: 200 -> 100"):
        start(tmp_path)


def test_a_change_during_a_hand_is_refused(tmp_path: Path) -> None:
    d = start(tmp_path)
    now = time.monotonic()
    for seat in (1, 2):
        command(d, "seat", now, seat=seat, player=f"p{seat}", stack=1_000)
    command(d, "start", now)
    journal_of(d).close()
    with pytest.raises(ConfigError, match="hand 1 is in progress"):
        start(tmp_path, settle=3.0, accept=True)


def test_seats_cannot_change_on_a_journal(tmp_path: Path) -> None:
    journal_of(start(tmp_path)).close()
    text = DAEMON_CONFIG.format(table_id="T9").replace("seats = 6", "seats = 8")
    d = Daemon(loads_config(text, base_dir=tmp_path), print_ready=False,
               accept_config_change=True)
    with pytest.raises(ConfigError, match=r"cannot change on this journal: .*table\.seats: 6 -> 8"):
        d.open_state()


def test_starts_and_stops_are_journaled_and_a_hold_survives_a_power_cut(
        tmp_path: Path) -> None:
    d = start(tmp_path)
    now = time.monotonic()
    command(d, "hold", now, reason="surveillance asked")
    assert d.core is not None and d.core.held
    journal_of(d).close()  # the power goes: no stop entry
    again = start(tmp_path)
    assert again.core is not None and again.core.held
    starts = kinds(again, EntryKind.START)
    assert [s["previous"] for s in starts] == ["first start", "unclean"]
    assert starts[1]["held"] == ("held by the dealer: surveillance asked",)
    assert "stays held: held by the dealer: surveillance asked" in str(starts[1]["text"])
    journal_stop(journal_of(again), 0, time.monotonic())
    journal_of(again).close()
    third = start(tmp_path)
    assert third.core is not None and third.core.held
    assert [s["previous"] for s in kinds(third, EntryKind.START)][-1] == "clean"
    journal_of(third).close()


def test_replay_applies_each_recorded_configuration_where_it_stands(tmp_path: Path) -> None:
    d = start(tmp_path)
    now = time.monotonic()
    for seat in (1, 2, 3):
        command(d, "seat", now, seat=seat, player=f"p{seat}", stack=10_000)
    command(d, "start", now)
    command(d, "void", now, reason="test")
    journal_of(d).close()
    changed = start(tmp_path, big_blind=200, accept=True)
    command(changed, "start", now + 1)
    journal_of(changed).close()

    text = DAEMON_CONFIG.format(table_id="T9").replace("big_blind = 100", "big_blind = 200")
    again = Daemon(loads_config(text, base_dir=tmp_path), print_ready=False)
    again.open_state()
    core = again.core
    assert core is not None
    seen: list[tuple[str, int]] = []
    handle = core.handle

    def spy(inp: Any, now: float) -> Any:
        if isinstance(inp, DealerCommand) and inp.name == "start":
            seen.append((inp.name, core.table.config.big_blind))
        return handle(inp, now)

    core.handle = spy  # type: ignore[method-assign]
    again.recover()
    assert seen == [("start", 100), ("start", 200)]
    journal_of(again).close()
