from __future__ import annotations

import json
from pathlib import Path

import pytest

from table_controller.cli import main
from table_controller.journal import EntryKind, Journal
from table_controller.journal.compact import deflate
from table_controller.journal.recall import describe_entry, format_hands

T0 = 1_764_400_000.0


def _fill(path: Path, hands: int) -> None:
    with Journal.open(path) as j:
        t = T0
        for h in range(hands):
            t += 60
            j.append(EntryKind.HAND_START, {"text": f"hand starts, button seat {h % 6 + 1}",
                                            "button": h % 6 + 1}, wall_time=t, mono_time=t)
            j.append(EntryKind.DEVICE_EVENT, {"text": "shoe: card to seat 1", "seat": 1,
                                              "hole_card": "Ah"}, wall_time=t + 1, mono_time=t)
            j.append_command("c1", h, {"command": "raise", "seat": 3, "to": 400},
                             {"accepted": h % 2 == 0, "reason": "" if h % 2 == 0 else "too small",
                              "result": {}}, wall_time=t + 2, mono_time=t)
            j.append(EntryKind.HOLD, {"reason": "chip count differs in zone pot"},
                     wall_time=t + 3, mono_time=t)
            j.append(EntryKind.RESOLUTION, {"note": "recounted"}, wall_time=t + 4, mono_time=t)
            if h < hands - 1:
                j.append(EntryKind.HAND_END, {"text": "pot 800 to seat 3"},
                         wall_time=t + 5, mono_time=t)


def test_recall_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.db"
    _fill(path, 12)
    assert main(["recall", "--journal", str(path)]) == 0
    out = capsys.readouterr().out
    assert "12 hands, chain verified" in out
    assert "Hand 3 -" in out and "Hand 2 -" not in out  # the last ten: 3..12
    assert "Hand 12 -" in out and "IN PROGRESS" in out
    assert "dealer command from c1 #3: raise seat=3 to=400 -> refused (too small)" in out
    assert "table held: chip count differs in zone pot" in out
    assert "resolved: recounted" in out
    assert '"hole_card": "Ah"' in out  # recall is for surveillance: it shows everything


def test_recall_json_and_hands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.db"
    _fill(path, 3)
    assert main(["recall", "--journal", str(path), "--hands", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [h["hand"] for h in data["hands"]] == [2, 3]
    assert data["hands"][0]["complete"] and not data["hands"][1]["complete"]
    kinds = [e["kind"] for e in data["hands"][0]["entries"]]
    assert kinds == ["hand_start", "device_event", "dealer_command", "hold", "resolution",
                     "hand_end"]


def test_recall_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["recall"]) == 1
    assert "give --journal" in capsys.readouterr().err
    assert main(["recall", "--journal", str(tmp_path / "none.db")]) == 1
    assert "no journal" in capsys.readouterr().err
    path = tmp_path / "j.db"
    _fill(path, 2)
    import sqlite3

    conn = sqlite3.connect(path)
    conn.execute("UPDATE entries SET payload = ? WHERE seq = 3", (deflate("{}"),))
    conn.commit()
    conn.close()
    assert main(["recall", "--journal", str(path)]) == 1
    assert "first bad sequence number 3" in capsys.readouterr().err


def test_recall_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.db"
    Journal.open(path).close()
    assert main(["recall", "--journal", str(path)]) == 0
    assert "no hands in the journal" in capsys.readouterr().out
    assert format_hands([]) == "no hands in the journal"


def test_recall_from_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "table.toml"
    text = example.read_text().replace(
        'path = "~/.local/state/table-controller/T1/journal.db"', 'path = "j.db"')
    cfg = tmp_path / "t.toml"
    cfg.write_text(text)
    _fill(tmp_path / "j.db", 1)
    assert main(["recall", "--config", str(cfg)]) == 0
    assert "Hand 1 -" in capsys.readouterr().out


def test_describe_without_text(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.db") as j:
        e = j.append(EntryKind.HAND_START, {}, wall_time=T0, mono_time=0.0)
        assert describe_entry(e) == "hand 1 starts"
        e = j.append(EntryKind.DECISION, {"x": 1}, wall_time=T0, mono_time=0.0)
        assert describe_entry(e) == "decision"
