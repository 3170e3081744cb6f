"""Pure parts of the floor web view: trackers, diffs, the fan-out's queues, users, sessions."""

from __future__ import annotations

import asyncio
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from table_controller.cli import main
from table_controller.feeds import FeedEvent, FeedEventKind, Message, redact
from table_controller.floorweb.auth import (
    RateLimiter,
    Sessions,
    User,
    UserFileError,
    Users,
    add_user,
)
from table_controller.floorweb.fanout import FLOOR, Browser, Fanout, guard, table_channel
from table_controller.floorweb.model import (
    NEED_ALERT,
    NEED_FEED,
    NEED_HOLD,
    NEED_NONE,
    NEED_SHIPPING,
    SHIPPING_KEYS,
    TableTracker,
)
from table_controller.floorweb.sources import table_specs
from tests.floorweb.helpers import FAST_HASH, HOLES, state


def snap(st: dict[str, Any], seq: int = 1) -> FeedEvent:
    return FeedEvent(FeedEventKind.SNAPSHOT, seq, state=st)


def update(mtype: str, data: dict[str, Any], seq: int, ts: float) -> FeedEvent:
    return FeedEvent(FeedEventKind.UPDATE, seq, message=Message(mtype, seq, "T1", ts, data))


def test_tracker_ages_holds_and_keeps_their_first_sighting() -> None:
    t = TableTracker("T1")
    t.on_event(snap(redact(state("T1"))), 100.0)
    assert t.row()["need"] == NEED_NONE and t.row()["feed"] == "live" and t.heard == 100.0
    t.on_event(update("hold", {"reason": "chip count"}, 2, 105.0), 105.5)
    t.on_event(update("table_state", redact(state("T1", holds=["chip count"])), 3, 106.0),
               106.5)
    row = t.row()
    assert row["holds"] == [["chip count", 105.0]] and row["need"] == NEED_HOLD
    assert row["last_action"] == 105.0 and row["seq"] == 3
    t.on_event(snap(redact(state("T1", holds=["chip count"])), 3), 200.0)  # a reconnect
    assert t.row()["holds"] == [["chip count", 105.0]]
    t.on_event(update("resume", {"note": "ok"}, 4, 210.0), 210.0)
    assert t.row()["holds"] == [] and t.row()["need"] == NEED_NONE
    t.on_event(update("table_state", redact(state("T1", holds=["chip count"])), 5, 220.0),
               220.0)
    assert t.row()["holds"] == [["chip count", 220.0]]  # raised again: a new hold
    t.on_event(FeedEvent(FeedEventKind.LOST, 5, reason="nothing heard"), 230.0)
    assert t.row()["need"] == NEED_HOLD and t.row()["feed"] == "lost" and t.heard == 220.0


def test_need_order_and_pages_by_role() -> None:
    t = TableTracker("T1", has_secret=True)
    t.on_event(FeedEvent(FeedEventKind.LOST, 0), 1.0)
    assert t.need() == NEED_FEED
    irr = [{"id": 1, "kind": "board_mismatch", "text": "slot 2 shows 9h", "hold": False}]
    t.on_event(snap(redact(state("T1", irregularities=irr))), 2.0)
    assert t.need() == NEED_ALERT and t.row()["alerts"] == [["slot 2 shows 9h", 2.0]]
    t.on_event(snap(state("T1")), 2.0, secret=True)
    public, secret = t.page(), t.page(secret=True)
    assert "hole" not in public["seats"][0] and public["seats"][0]["cards"] is True
    assert secret["seats"][0]["hole"] == HOLES["1"] and secret["surveillance"] is True
    assert guard(public, "floor", "test") is not None
    assert guard(secret, "floor", "test") is None  # the guard stops a leak to the floor role
    assert guard(secret, "surveillance", "test") is not None


def test_fanout_coalesces_and_a_slow_browser_gets_a_snapshot_not_a_backlog() -> None:
    async def body() -> None:
        trackers = {"T1": TableTracker("T1"), "T2": TableTracker("T2")}
        fan = Fanout(trackers, coalesce=0.01, queue_limit=3)
        fast, slow = fan.add(FLOOR, "floor"), fan.add(FLOOR, "floor")
        page = fan.add(table_channel("T1"), "floor")
        for b in (fast, slow, page):
            assert await b.next(0.1) == ""  # a snapshot first
            assert fan.snapshot(b) is not None
        for seq in range(2, 12):
            trackers["T1"].on_event(update("event", {"text": "x"}, seq, float(seq)), 1.0)
            fan.mark("T1")
            fan.mark("T1")
            fan.flush()  # what the coalescing timer does
            text = await fast.next(1.0)
            assert text is not None
            assert json.loads(text)["rows"]["T1"]["seq"] == seq  # one diff per flush
            if seq == 2:
                d = json.loads(await page.next(0.1) or "{}")
                assert d["t"] == "diff" and d["page"]["seq"] == 2
        assert fan.flushes == 10
        assert slow.resyncs >= 1 and len(slow.queue) <= 3  # never more than the bound
        assert await slow.next(0.1) == ""  # it catches up with a snapshot
        fan.remove(page)
        fan.close()

    asyncio.run(body())


def test_browser_queue_bound() -> None:
    async def body() -> None:
        b = Browser(FLOOR, "floor", limit=2)
        b.push("lost: before the snapshot")
        assert await b.next(0.01) == "" and not b.queue
        b.push("a")
        b.push("b")
        b.push("c")  # over the bound: the backlog goes, a snapshot comes instead
        assert b.resyncs == 1 and await b.next(0.01) == ""
        assert await b.next(0.01) is None

    asyncio.run(body())


def test_users_file_and_add_user_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "users.json"
    with pytest.raises(UserFileError, match="no users file"):
        Users.load(path)
    add_user(path, "ann", "floor", "long enough", FAST_HASH)
    assert path.stat().st_mode & 0o777 == 0o600
    with pytest.raises(UserFileError, match="at least 8"):
        add_user(path, "bo", "floor", "short", FAST_HASH)
    with pytest.raises(UserFileError, match="role"):
        add_user(path, "bo", "boss", "long enough", FAST_HASH)
    with pytest.raises(UserFileError, match="user name"):
        add_user(path, "../x", "floor", "long enough", FAST_HASH)
    monkeypatch.setattr(sys, "stdin", io.StringIO("another secret\n"))
    assert main(["floor-web", "add-user", str(path), "sam", "--role", "surveillance"]) == 0
    users = Users.load(path, FAST_HASH)
    assert users.verify("sam", "another secret") == User("sam", "surveillance",
                                                         users.users["sam"].hash)
    assert users.verify("sam", "wrong") is None and users.verify("nobody", "x") is None
    assert "another secret" not in path.read_text()
    path.write_text('{"users": {"x": {"role": "boss", "hash": "h"}}}')
    with pytest.raises(UserFileError, match=r"users\.x"):
        Users.load(path)


def test_sessions_expire_and_rate_limits_slide() -> None:
    now = [0.0]
    s = Sessions(ttl=100, idle=30, clock=lambda: now[0])
    a = s.create(User("ann", "floor", ""))
    assert len(a.token) >= 40 and a.csrf != a.token
    now[0] = 25
    assert s.get(a.token) is a
    now[0] = 50  # used at 25: idle until 55
    assert s.get(a.token) is a
    now[0] = 85
    assert s.get(a.token) is None  # idle for 35 s
    b = s.create(User("bo", "floor", ""))
    now[0] = 185.5
    assert s.get(b.token) is None  # past its ttl, however busy
    s.end(None)
    r = RateLimiter(limit=2, window=10, clock=lambda: now[0])
    r.failed("x")
    now[0] += 5
    r.failed("x")
    assert r.retry_after("x") == pytest.approx(5)
    now[0] += 5.1
    assert r.retry_after("x") == 0
    r.clear("x")


def test_table_specs_options(tmp_path: Path) -> None:
    specs = table_specs(tables=["T2=tcp://a:1,tcp://a:2", "T1=tcp://b:2"],
                        connect="tcp://proxy:6000", journals=["T1=/j/t1.db"])
    assert [(s.table, s.feed, s.snapshot, s.journal) for s in specs] == [
        ("T1", "tcp://proxy:6000", "tcp://b:2", Path("/j/t1.db")),
        ("T2", "tcp://a:1", "tcp://a:2", None)]
    with pytest.raises(ValueError, match="--connect"):
        table_specs(tables=["T1=tcp://b:2"])
    with pytest.raises(ValueError, match="no table"):
        table_specs()
    with pytest.raises(ValueError, match="without --table"):
        table_specs(tables=["T1=x,y"], journals=["T9=/j"])
    with pytest.raises(ValueError, match="needs --surveillance-key"):
        table_specs(tables=["T1=x,y"], surveillance=["T1=s,t"])
    with pytest.raises(ValueError, match="needs --server-key"):
        table_specs(tables=["T1=x,y"], surveillance=["T1=s,t"], surveillance_keys=["k"])
    with pytest.raises(ValueError, match="given twice"):
        table_specs(tables=["T1=x,y"], surveillance=["T1=s,t"], surveillance_keys=["k", "l"])


def test_cli_refuses_bad_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["floor-web", "--table", "T1=x,y"]) == 2
    assert "--users FILE is required" in capsys.readouterr().err
    users = tmp_path / "u.json"
    add_user(users, "ann", "floor", "long enough", FAST_HASH)
    assert main(["floor-web", "--users", str(users), "--table", "T1=x,y", "--cert",
                 "c.pem"]) == 2
    assert "both --cert and --key" in capsys.readouterr().err
    assert main(["floor-web", "--users", str(users), "--table", "T1=x,y", "--listen",
                 "nowhere"]) == 2
    assert "HOST:PORT" in capsys.readouterr().err
    assert main(["floor-web", "--users", str(users), "--table", "T1=x,y", "--central",
                 "mysql://db/floor"]) == 2
    assert "central url must start with postgresql://" in capsys.readouterr().err
    assert main(["floor-web", "--users", str(users), "--table", "T1=nowhere,x", "--listen",
                 "127.0.0.1:0", "--duration", "0.1"]) == 1
    assert "table T1: cannot connect to nowhere" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["table_controller.floorweb.model",
                                  "table_controller.floorweb.auth",
                                  "table_controller.floorweb.central",
                                  "table_controller.central.common"])
def test_doctests(name: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0


def test_device_trouble_reaches_the_row() -> None:
    t = TableTracker("T1")
    st = {**redact(state("T1")), "device_health": {
        "shoe": {"link": "ok", "frames": 12, "reconnects": 2, "last_error": "port vanished"},
        "chips": {"link": "ok", "frames": 40}}}
    t.on_event(snap(st), 1.0)
    assert t.row()["health"] == {"shoe": "2 reconnects; last error: port vanished"}


def test_recall_reads_the_journal(tmp_path: Path) -> None:
    from table_controller.floorweb.app import read_recall
    from table_controller.journal import EntryKind, Journal

    path = tmp_path / "journal.db"
    with Journal.open(path) as j:
        j.append(EntryKind.HAND_START, {"button": 3}, wall_time=1.0, mono_time=1.0)
        j.append(EntryKind.HOLD, {"reason": "chip count"}, wall_time=2.0, mono_time=2.0)
        j.append(EntryKind.HAND_END, {"voided": False}, wall_time=3.0, mono_time=3.0)
        assert "Hand 1" in read_recall(path, "") and "table held: chip count" in read_recall(
            path, "1")  # read-only, beside the writer
    assert "no hand 7" in read_recall(path, "7")
    assert "recall failed" in read_recall(tmp_path / "missing.db", "")


def test_shipping_progress_comes_from_the_snapshot_and_the_shipping_message() -> None:
    t = TableTracker("T1")
    assert t.row()["shipping"] is None  # a table that does not ship
    body = {"status": "caught_up", "behind": 0, "local_seq": 9, "shipped_seq": 9,
            "last_shipped_at": 5.0, "error": "", "updated_at": 6.0}
    t.on_event(snap({**redact(state("T1")), "shipping": body}), 1.0)
    assert t.row()["shipping"] == {**{k: body[k] for k in SHIPPING_KEYS}, "trouble": False}
    v = t.version
    t.on_event(FeedEvent(FeedEventKind.UPDATE, seq=2, message=Message(
        "shipping", 2, "T1", 7.0, {**body, "status": "retrying", "behind": 3})), 7.0)
    assert t.row()["shipping"]["status"] == "retrying" and t.row()["shipping"]["behind"] == 3
    assert t.version > v and t.last_action is None  # not an action at the table


def test_a_stale_feed_says_how_far_behind_and_needs_someone_until_caught_up() -> None:
    t = TableTracker("T1")
    t.on_event(snap(redact(state("T1"))), 100.0)
    assert t.row()["feed"] == "live" and t.row()["behind"] is None
    assert not t.lagging(4.0)  # not stale: nothing to say
    t.on_event(update("event", {"text": "Seat 1 calls"}, 2, 101.0), 104.0)
    t.on_event(FeedEvent(FeedEventKind.STALE, 2, lag=3.4, reason="3.4 s behind"), 104.0)
    row = t.row()
    assert row["feed"] == "stale" and row["behind"] == 3 and row["need"] == NEED_FEED
    v = t.version
    assert t.lagging(5.6) and t.row()["behind"] == 6 and t.version > v  # heartbeats, later
    assert not t.lagging(5.8)  # the same whole second: no push
    # an update while behind stays stale (the client has not said caught up), with its lag
    t.on_event(FeedEvent(FeedEventKind.UPDATE, 3, message=Message(
        "event", 3, "T1", 102.0, {"text": "Seat 2 folds"}), lag=7.2), 109.2)
    assert t.row()["feed"] == "stale" and t.row()["behind"] == 7
    assert t.row()["need"] == NEED_FEED
    t.on_event(FeedEvent(FeedEventKind.CAUGHT_UP, 3, lag=0.3), 110.0)
    assert t.row()["feed"] == "live" and t.row()["behind"] is None
    assert t.row()["need"] == NEED_NONE
    # a snapshot (after a gap) starts afresh
    t.on_event(FeedEvent(FeedEventKind.STALE, 3, lag=2.5), 111.0)
    t.on_event(snap(redact(state("T1")), 4), 112.0)
    assert t.row()["feed"] == "live" and t.row()["behind"] is None


@pytest.mark.parametrize(("status", "behind", "trouble"), [
    ("caught_up", 0, False), ("shipping", 40, False), ("starting", None, False),
    ("unknown", None, False), ("shipping", 1000, True), ("retrying", 3, True),
    ("refused", 0, True), ("stopped", 0, True), ("silent", 12, True)])
def test_shipping_trouble_puts_a_table_among_those_needing_someone(
        status: str, behind: int | None, trouble: bool) -> None:
    t = TableTracker("T1")
    body = {"status": status, "behind": behind, "local_seq": 9, "shipped_seq": 9,
            "last_shipped_at": 5.0, "error": "", "updated_at": 6.0}
    t.on_event(snap({**redact(state("T1")), "shipping": body}), 1.0)
    assert t.row()["shipping"]["trouble"] is trouble
    assert t.need() == (NEED_SHIPPING if trouble else NEED_NONE)
    # after alerts, before quiet tables
    irr = [{"id": 1, "kind": "board_mismatch", "text": "slot 2 shows 9h", "hold": False}]
    t.on_event(snap({**redact(state("T1", irregularities=irr)), "shipping": body}), 2.0)
    assert t.need() == NEED_ALERT < NEED_SHIPPING < NEED_NONE
