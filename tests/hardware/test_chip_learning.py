"""Learning and checking chip zones from the sensors: the learner, then the command on a pty."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from calibration.chip_learning import ZoneChecker, ZoneLearner
from calibration.chips import default_chip_config, load_chip_config
from hardware.sim.chips import SimChipSensor
from table_controller.errors import CalibrationError


def test_learner_one_place_at_a_time() -> None:
    lr = ZoneLearner(["seat 1", "seat 2", "pot"], stack=100, settle=1.0)
    assert lr.feed(4, {4: 1}, 0.0) == []
    assert lr.tick(0.5) == []  # not settled yet
    assert lr.tick(1.0) == ["seat 1 is zone 4 - take the stack away"]
    assert lr.feed(9, {4: 1}, 1.2) == []  # another stack while the first is still there
    assert lr.feed(4, {}, 1.3) == ["put a stack of 100 on seat 2 (2 of 3)"]
    # zone 9 already shows a stack: it is seat 2's once settled
    assert lr.tick(2.3) == ["seat 2 is zone 9 - take the stack away"]
    assert lr.feed(9, {}, 2.4) == ["put a stack of 100 on pot (3 of 3)"]
    # two stacks at once are refused, then the right one is taken
    assert lr.feed(1, {4: 1}, 3.0) == []
    assert lr.feed(2, {3: 4}, 3.0) == ["one stack at a time: zones 1, 2 all show chips; "
                                       "take all but one away"]
    lr.feed(2, {}, 3.5)
    assert lr.tick(4.0) == ["pot is zone 1 - take the stack away"]
    assert not lr.done
    lr.feed(1, {}, 4.1)
    assert lr.done
    cfg = lr.result()
    assert dict(cfg.zones) == {4: "seat 1", 9: "seat 2", 1: "pot"}


def test_learner_refuses_a_wrong_or_unknown_stack() -> None:
    lr = ZoneLearner(["seat 1", "pot"], stack=100, settle=0.0)
    assert lr.feed(3, {3: 3}, 0.0) == ["zone 3 shows 75, not 100: recount the stack"]
    assert lr.feed(3, {99: 1}, 0.1) == ["zone 3 shows denomination codes 99 that the chip set "
                                        "does not have"]
    assert lr.learnt == {}
    with pytest.raises(CalibrationError, match="no zone learnt for seat 1, pot; nothing saved"):
        lr.result()
    with pytest.raises(CalibrationError, match="pot"):
        ZoneLearner(["seat 1"])


def test_checker_names_each_wrong_zone() -> None:
    cfg = default_chip_config(2)  # zones 1, 2 seats; 3 the pot
    ch = ZoneChecker(cfg, 100, settle=0.5)
    ch.feed(1, {4: 1}, 0.0)
    ch.feed(2, {3: 3}, 0.0)
    v = ch.verdicts(1.0)
    assert v[1] == "ok"
    assert v[2] == "seat 2: zone 2 shows 75, expected 100"
    assert v[3] == "pot: no report from zone 3"
    ch.feed(2, {4: 1}, 1.0)
    ch.feed(3, {4: 1}, 1.0)
    assert not ch.ok(1.2) and ch.ok(1.5)


def _cli(*args: str) -> subprocess.Popen[str]:
    exe = str(Path(sys.executable).with_name("table-controller"))
    return subprocess.Popen([exe, "calibrate", "chips", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_calibrate_chips_learn_and_check_over_a_pty(tmp_path: Path) -> None:
    sim = SimChipSensor(range(1, 13), retransmit_after=0.05)
    sim.start()
    where = {"seat 1": 7, "seat 2": 3, "pot": 11}  # the felt's wiring, unknown to the command
    out = tmp_path / "chip_zones.toml"
    try:
        proc = _cli("learn", str(out), "--sensor", f"serial://{sim.path}", "--seats", "2",
                    "--stack", "100", "--settle", "0.2", "--timeout", "120")
        assert proc.stdout is not None
        lines: list[str] = []
        for line in proc.stdout:  # the technician does what each line says
            lines.append(line.rstrip())
            if "put a stack of 100 on " in line:
                place = line.split(" on ", 1)[1].split(" (")[0]
                sim.set_zone(where[place], {4: 1})
            elif "take the stack away" in line:
                zone = int(line.split(" is zone ")[1].split(" ")[0])
                sim.set_zone(zone, {})
        assert proc.wait(60) == 0, (lines, proc.stderr.read() if proc.stderr else "")
        assert dict(load_chip_config(out).zones) == {7: "seat 1", 3: "seat 2", 11: "pot"}
        assert any(ln.startswith("3/3") for ln in lines)

        # check: a known stack of 100 on every zone; one is short, then fixed
        for zone in where.values():
            sim.set_zone(zone, {4: 1})
        sim.set_zone(3, {3: 3})
        check = _cli("check", str(out), "--sensor", f"serial://{sim.path}", "--stack", "100",
                     "--settle", "0.2", "--timeout", "120")
        assert check.stdout is not None
        fixed = threading.Event()
        for line in check.stdout:
            if "seat 2: zone 3 shows 75, expected 100" in line and not fixed.is_set():
                fixed.set()
                sim.set_zone(3, {4: 1})
            if line.startswith("ok: every zone shows 100"):
                break
        assert check.wait(60) == 0
        assert fixed.is_set()
    finally:
        sim.close()


def test_learn_times_out_and_saves_nothing(tmp_path: Path) -> None:
    sim = SimChipSensor(range(1, 5), retransmit_after=0.05)
    sim.start()
    out = tmp_path / "z.toml"
    try:
        proc = _cli("learn", str(out), "--sensor", f"serial://{sim.path}", "--seats", "2",
                    "--timeout", "1")
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 1
        assert "timed out" in err and "nothing saved" in err and err.count("\n") == 1
        assert not out.exists()
    finally:
        sim.close()


def test_calibrate_chips_register_reads_a_stack_of_rfid_chips(tmp_path: Path) -> None:
    from calibration.chip_registry import load_registry
    from hardware.sim.rfidchips import SimRfidChips

    sim = SimRfidChips(range(1, 5), retransmit_after=0.05)
    sim.start()
    reg = tmp_path / "chips.json"
    url = f"rfidchips://{sim.path}"
    try:
        sim.place(2, [f"04C0{i:04X}" for i in range(20)])
        proc = _cli("register", str(reg), "--sensor", url, "--zone", "2", "--denomination",
                    "4", "--count", "20", "--settle", "0.2")
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert "registered 20 new chips of denomination 4" in out
        registry = load_registry(reg)
        assert len(registry) == 20
        rec = registry.lookup("04C00007")
        assert rec is not None and rec.denomination == 4 and rec.chip_set == "house"
        # the same tags as another denomination: refused, the file unchanged
        before = reg.read_text()
        proc = _cli("register", str(reg), "--sensor", url, "--zone", "2", "--denomination",
                    "5", "--settle", "0.2")
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 1 and "already registered as denomination 4" in err
        assert reg.read_text() == before
        # a stack whose count disagrees is refused
        proc = _cli("register", str(reg), "--sensor", url, "--zone", "2", "--denomination",
                    "4", "--count", "21", "--settle", "0.2")
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 1 and "reads 20 tags, counted 21" in err
    finally:
        sim.close()
