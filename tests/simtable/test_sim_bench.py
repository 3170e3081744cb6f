"""``sim run``'s bench and control socket: verbs, refusals that change nothing, bad input."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from table_controller.simtable.devices.bench import SimBench
from table_controller.simtable.devices.control import MAX_LINE, ControlClient, ControlServer
from tests.simtable.simprocs import sim_run


@pytest.fixture
def ctl(tmp_path: Path) -> Iterator[ControlClient]:
    bench = SimBench(tmp_path / "b", seats=2, seed=3)
    bench.start()
    server = ControlServer(bench, bench.ctl_path)
    server.start()
    try:
        with ControlClient(bench.ctl_path) as client:
            yield client
    finally:
        server.close()
        bench.stop()


def test_verbs_do_what_they_say(ctl: ControlClient) -> None:
    assert ctl("draw", "Ah")["card"] == "Ah"
    nxt = ctl("draw")
    assert nxt["left"] == 50 and nxt["card"] != "Ah"
    assert ctl("chips", 3, 1260)["chips"] == {"6": 1, "4": 2, "3": 2, "2": 2}
    assert ctl("board", 0, "Kd")["board"][0] == "Kd"
    ctl("door", "open")
    ctl("fault", "shoe", "corrupt", 0.5)
    state = ctl("state")
    assert state["shoe"]["drawn"] == ["Ah", nxt["card"]]
    assert state["shoe"]["door"] == "open" and state["shoe"]["faults"] == {"corrupt-crc": 0.5}
    assert state["chips"]["zones"] == {"3": 1260}
    assert state["shoe"]["sent"]["CARD_DRAWN"] == 2
    assert ctl("reboot", "chips")["boot_id"] == 2
    assert ctl("unplug", "shoe", 0.05)["unplugged_for"] == 0.05


def test_the_verbs_a_rig_works_the_devices_with(ctl: ControlClient) -> None:
    """``load`` (a deck in a given order), ``tag`` (any tag), chips in given denominations."""
    assert ctl("load", "Ah", "Kd", "2c")["left"] == 3
    assert [ctl("draw")["card"] for _ in range(2)] == ["Ah", "Kd"]
    assert ctl("tag", "deadbeef") == {"ok": True, "uid": "DEADBEEF", "card": "DEADBEEF"}
    assert ctl("chips", 3, 100, "3=2", "2=10")["chips"] == {"3": 2, "2": 10}
    assert ctl("state")["chips"]["zones"] == {"3": 100}
    assert "not worth 400" in ctl.request("chips", 3, 400, "3=2")["error"]
    assert "CODE must be 1..7" in ctl.request("chips", 3, 0, "9=0")["error"]
    assert "named twice" in ctl.request("load", "Ah", "Ah")["error"]
    assert "UID must be" in ctl.request("tag", "xyz")["error"]
    state = ctl("state")
    assert state["chips"]["zones"] == {"3": 100} and state["shoe"]["left"] == 1


def test_one_shot_verbs_for_tests(ctl: ControlClient) -> None:
    """Faults on the next frame only, a tag of no card, a status frame, cables, counters."""
    ctl("load", "Ah", "Kd", "2c", "3c")
    assert ctl("fault", "shoe", "duplicate", "once")["once"] == ["duplicate"]
    ctl("fault", "chips", "corrupt", "next")
    state = ctl("state")
    assert state["shoe"]["once"] == ["duplicate"] and state["chips"]["once"] == ["corrupt-crc"]
    ctl("draw")  # takes the duplicate; the next draw takes nothing
    ctl("draw")
    state = ctl("state")
    assert state["shoe"]["once"] == [] and state["shoe"]["injected"] == {"duplicate": 1}
    assert state["shoe"]["faults"] == {}  # no rate was set
    stray = ctl("draw", "unregistered")
    assert stray["card"] is None and len(stray["uid"]) == 14
    assert ctl("state")["shoe"]["drawn"][-1] == stray["uid"]
    assert ctl("status", "door=open", "empty=yes") == {
        "ok": True, "door": "open", "empty": True, "jam": False, "error": 0}
    assert ctl("state")["shoe"]["door"] == "open"
    assert ctl("unplug", "chips")["unplugged_for"] is None
    assert ctl("state")["chips"]["plugged"] is False
    assert "unplugged already" in ctl.request("unplug", "chips")["error"]
    assert ctl("plug", "chips", "reboot")["boot_id"] == 2
    assert ctl("window", "shoe", 1)["window"] == 1
    assert ctl("stall", "shoe", 0.05, "next")["after_next"] is True
    shoe = ctl("state")["shoe"]
    assert shoe["window"] == 1 and {"pending", "retransmitted", "overflowed"} <= set(shoe)


@pytest.mark.parametrize(("verb", "args", "error"), [
    ("draw", ["Zz"], "'Zz' is not a card"),
    ("draw", ["Ah", "Kd"], "usage: draw [CARD|unregistered]"),
    ("chips", ["99", "100"], "ZONE must be"),
    ("chips", ["3", "-5"], "AMOUNT must be"),
    ("chips", ["3", "lots"], "AMOUNT must be an integer"),
    ("board", ["5", "Ah"], "SLOT must be 0..4"),
    ("door", ["ajar"], "door must be open or closed"),
    ("unplug", ["camera", "1"], "device must be shoe or chips"),
    ("unplug", ["shoe", "0"], "SECONDS must be"),
    ("fault", ["shoe", "gremlins", "0.1"], "fault kind must be one of"),
    ("fault", ["chips", "split", "2"], "RATE must be"),
    ("fault", ["shoe", "split", "twice"], "RATE must be a number"),
    ("status", ["door=ajar"], "door must be open or closed"),
    ("status", ["empty=maybe"], "empty must be yes or no"),
    ("status", ["colour=red"], "status takes door=, empty=, jam=, error="),
    ("status", ["door=open", "door=closed"], "door= given twice"),
    ("status", ["error=300"], "error must be 0..255"),
    ("plug", ["shoe"], "the shoe is plugged in already"),
    ("plug", ["chips", "gently"], "the second argument can only be reboot"),
    ("stall", ["shoe"], "usage: stall shoe|chips SECONDS [next]"),
    ("stall", ["chips", "0"], "SECONDS must be"),
    ("stall", ["shoe", "1", "later"], "the third argument can only be next"),
    ("window", ["shoe", "0"], "FRAMES must be 1..1024"),
    ("window", ["camera", "5"], "device must be shoe or chips"),
    ("chiptags", ["3"], "usage: chiptags ZONE UID..."),
    ("chiptags", ["3", "0433"], "UID must be 4..10 bytes of hex"),
    ("chiptags", ["3", "04A1B2C3"], "the chip sensors are not RFID readers"),
    ("fly", [], "unknown verb 'fly'"),
])
def test_a_bad_verb_or_argument_is_one_line_and_changes_nothing(
        ctl: ControlClient, verb: str, args: list[str], error: str) -> None:
    before = ctl("state")
    reply = ctl.request(verb, *args)
    assert reply["ok"] is False and error in reply["error"] and "\n" not in reply["error"]
    after = ctl("state")
    for side in ("shoe", "chips"):
        for key in ("drawn", "zones", "door", "faults", "boot_id", "plugged"):
            assert before[side].get(key) == after[side].get(key)
    assert before["board"] == after["board"]


def test_bad_requests_are_answered_and_the_server_lives_on(ctl: ControlClient) -> None:
    for line, error in ((b"not json", "bad JSON"), (b"[1, 2]", "JSON object"),
                        (b'{"verb": 3}', '"verb" must be a string'),
                        (b'{"verb": "draw", "args": [true]}', '"args" must be a list'),
                        (b'{"verb": "state", "x": 1}', "unknown request keys: x"),
                        (b'{"verb": "draw", "reply_after": 5}', '"reply_after" must be'),
                        (b'{"verb": "draw", "reply_after": -1}', '"reply_after" must be'),
                        (b'{"verb": "draw", "reply_after": true}', '"reply_after" must be'),
                        (b'{"verb": "draw", "reply_after": "1"}', '"reply_after" must be')):
        reply = ctl.send_line(line)
        assert reply["ok"] is False and error in reply["error"], reply
    assert ctl("state")["shoe"]["left"] == 52
    reply = ctl.send_line(b"x" * (MAX_LINE * 2))
    assert reply == {"ok": False, "error": f"request line longer than {MAX_LINE} bytes"}


def test_a_reply_held_back_comes_after_the_verb_ran(ctl: ControlClient) -> None:
    # the daemon benchmark's timed draw: the frame goes out at once, the reply no sooner than
    # asked, so it does not wake the client while the frame crosses
    done = ctl("draw", reply_after=0.2)
    received = time.monotonic()
    assert done["left"] == 51 and received - float(done["written"]) >= 0.2
    assert ctl("state")["shoe"]["left"] == 51


def test_sim_run_refuses_an_entry_it_did_not_make(tmp_path: Path) -> None:
    d = tmp_path / "t"
    d.mkdir()
    (d / "table.toml").write_text("# mine\n")
    done = subprocess.run([sys.executable, "-m", "table_controller", "sim", "run", "--dir",
                           str(d)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "table.toml exists" in done.stderr
    assert (d / "table.toml").read_text() == "# mine\n"


def test_sim_run_starts_again_on_its_own_directory_and_ctl_reports(tmp_path: Path) -> None:
    d = tmp_path / "t"
    for _ in range(2):
        with sim_run(d) as proc:
            done = subprocess.run([sys.executable, "-m", "table_controller", "sim", "ctl",
                                   "--dir", str(d), "draw", "Qs"], capture_output=True,
                                  text=True, timeout=120)
            assert done.returncode == 0 and '"card": "Qs"' in done.stdout
            bad = subprocess.run([sys.executable, "-m", "table_controller", "sim", "ctl",
                                  "--dir", str(d), "draw", "Qs"], capture_output=True,
                                 text=True, timeout=120)
            assert bad.returncode == 1 and "Qs is not in the shoe" in bad.stderr
        assert proc.returncode == 0
        assert not (d / "shoe").exists() and not (d / "ctl.sock").exists()


def test_the_commodity_readers_pn532_shoe_and_rfid_chips(tmp_path: Path) -> None:
    from table_controller.cli.sim import CHIP_SENSORS, SHOES
    from table_controller.simtable.rig import CHIP_SENSORS as RIG_CHIPS
    from table_controller.simtable.rig import SHOES as RIG_SHOES

    assert (SHOES, CHIP_SENSORS) == (RIG_SHOES, RIG_CHIPS)  # sim run offers what the rig does
    d = tmp_path / "b"
    bench = SimBench(d, seats=2, seed=3, shoe="pn532", chips="rfid")
    bench.start()
    server = ControlServer(bench, bench.ctl_path)
    server.start()
    try:
        urls = bench.urls()
        assert urls["shoe"].startswith(f"pn532://{d / 'shoe'}?poll=")
        assert urls["chips"] == f"rfidchips://{d / 'chips'}"
        config = (d / "table.toml").read_text()
        assert f'shoe = "{urls["shoe"]}"' in config and f'chips = "{urls["chips"]}"' in config
        assert 'chip_registry = "chip_registry.json"' in config
        assert (d / "chip_registry.json").exists()
        with ControlClient(bench.ctl_path) as ctl:
            assert ctl("draw", "Ah")["card"] == "Ah"  # no daemon polls: the feeder goes on
            assert ctl("chips", 3, 1260)["chips"] == {"6": 1, "4": 2, "3": 2, "2": 2}
            state = ctl("state")
            assert state["shoe"]["antenna"] == "Ah" and state["shoe"]["drawn"] == ["Ah"]
            assert state["shoe"]["left"] == 51
            assert state["chips"]["zones"] == {"3": 1260} and len(state["chips"]["tags"]["3"]) == 7
            assert ctl("chips", 3, 0) and ctl("state")["chips"]["zones"] == {}
            # a tag of no registered chip, laid as it is (a foreign chip on the felt)
            assert ctl("chiptags", 5, "04a1b2c3d4e5f6")["tags"] == ["04A1B2C3D4E5F6"]
            assert ctl("state")["chips"]["tags"]["5"] == ["04A1B2C3D4E5F6"]
            assert "must be 4..10 bytes" in ctl.request("chiptags", 5, "xyz")["error"]
            assert ctl.request("door", "open")["error"] == "a PN532 shoe has no door"
            assert "no rate faults" in ctl.request("fault", "shoe", "drop", "0.5")["error"]
            assert ctl("fault", "chips", "drop", "0.5")["faults"] == {"drop-frame": 0.5}
            assert ctl("reboot", "shoe")["boot_id"] is None
            assert ctl("unplug", "chips", 0.05)["unplugged_for"] == 0.05
    finally:
        server.close()
        bench.stop()


def test_the_ack_wait_reaches_the_devices_and_a_bad_one_is_refused(tmp_path: Path) -> None:
    bench = SimBench(tmp_path / "b", seats=2, seed=3, retransmit=10.0)
    bench.start()
    try:
        assert bench.shoe is not None and bench.chips is not None
        assert bench.shoe.link.retransmit_after == bench.chips.link.retransmit_after == 10.0
    finally:
        bench.stop()
    d = tmp_path / "t"
    done = subprocess.run([sys.executable, "-m", "table_controller", "sim", "run", "--dir",
                           str(d), "--retransmit", "0"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and "0 s is outside 0.001..600 s" in done.stderr
    assert not d.exists() or not any(d.iterdir())
