"""``table-controller replay``: text and JSON output, summary, exit status."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from table_controller.cli import build_parser, main, replay

DATA = Path(__file__).parent / "data" / "phh"
#: A large corpus of real hand histories to replay (a folder), when one is given.
CORPUS = Path(os.environ["TC_PHH_CORPUS"]) if os.environ.get("TC_PHH_CORPUS") else None

GOOD = """variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [5, 10, 0]
min_bet = 10
starting_stacks = [1000, 1000, 1000]
actions = ["d dh p1 AhAd", "d dh p2 KhKd", "d dh p3 2c2d", "p3 f", "p1 f"]
finishing_stacks = [995, 1005, 1000]
"""


def run(argv: list[str]) -> tuple[int, str]:
    args = build_parser().parse_args(["replay", *argv])
    assert args.handler is replay.run
    out = io.StringIO()
    status = replay.run(args, out)
    return status, out.getvalue()


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def test_repo_hands_all_match_with_odd_chips_apart() -> None:
    status, text = run(["--json", str(DATA)])
    assert status == 0
    lines = json_lines(text)
    summary = lines[-1]["summary"]
    hands = lines[:-1]
    assert summary["hands"] == len(hands) == 96
    assert summary["mismatched"] == 0 and summary["errors"] == 0
    assert summary["odd_chip"] == 4
    assert summary["matched"] == 91 and summary["no_expected"] == 1
    for hand in hands:
        assert {"file", "finishing_stacks", "expected", "match", "error"} <= hand.keys()
        assert hand["error"] is None
        if hand["status"] == "odd_chip":
            assert hand["odd_chip"] is True and hand["match"] is False
            assert all(abs(d) == 0.5 for d in hand["differences"].values())
            assert sum(hand["finishing_stacks"]) == sum(hand["expected"])
        elif hand["expected"] is None:
            assert hand["match"] is None
        else:
            assert hand["match"] is True
            assert hand["finishing_stacks"] == hand["expected"]


def test_text_output_lists_odd_chips_apart_and_summary_last() -> None:
    status, text = run([str(DATA / "pluribus" / "32"), str(DATA / "wsop")])
    assert status == 0
    lines = text.splitlines()
    assert lines[-1].startswith("summary: ")
    assert "odd-chip differences (1" in text
    assert "0 mismatched, 0 errors" in lines[-1]
    assert any(": match: ours [" in line for line in lines)


def test_mismatch_and_error_give_exit_status_1(tmp_path: Path) -> None:
    (tmp_path / "good.phh").write_text(GOOD)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "bad.phh").write_text(GOOD.replace("[995, 1005, 1000]",
                                                           "[995, 1000, 1005]"))
    (tmp_path / "illegal.phh").write_text(GOOD.replace('"p3 f", "p1 f"', '"p1 f"'))
    (tmp_path / "broken.phh").write_text("variant = ")
    status, text = run(["--json", str(tmp_path)])
    assert status == 1
    lines = json_lines(text)
    by_name = {Path(d["file"]).name: d for d in lines[:-1]}
    assert by_name["good.phh"]["match"] is True
    assert by_name["bad.phh"]["match"] is False and by_name["bad.phh"]["status"] == "mismatched"
    assert by_name["bad.phh"]["differences"] == {"p2": 5, "p3": -5}
    illegal = by_name["illegal.phh"]
    assert illegal["match"] is None
    assert illegal["error"]["action"] == "p1 f" and illegal["error"]["rule"] == "turn"
    assert by_name["broken.phh"]["error"]["rule"] == "phh"
    assert lines[-1]["summary"] == {"hands": 4, "matched": 1, "odd_chip": 0, "mismatched": 1,
                                    "errors": 2, "no_expected": 0}


POSTS = """variant = "NT"
antes = [0, 0, 0, 0]
blinds_or_straddles = [5, 10, 0, 0]
min_bet = 10
starting_stacks = [1000, 1000, 1000, 1000]
actions = ["d dh p1 AhAd", "d dh p2 KhKd", "d dh p3 2c2d", "d dh p4 7s8s", "p3 cc", "p4 f",
  "p1 f", "p2 f"]
finishing_stacks = [995, 990, 1030, 985]
_posts = [{player = "p4", kind = "missed_big", amount = 10, live = true},
  {player = "p4", kind = "dead_small", amount = 5, live = false}]
"""


def test_missed_blind_posts_field_is_applied(tmp_path: Path) -> None:
    # p4 comes back posting a live big blind and a dead small blind: p3 calls the big blind,
    # p4 folds its live blind, and p3 wins 40 (blinds 5 + 10, p4's 10 live + 5 dead, its call).
    (tmp_path / "posts.phh").write_text(POSTS)
    status, text = run(["--json", str(tmp_path / "posts.phh")])
    assert status == 0, text
    hand = json_lines(text)[0]
    assert hand["status"] == "matched", hand
    assert hand["finishing_stacks"] == [995, 990, 1030, 985]
    (tmp_path / "without.phh").write_text(POSTS.split("_posts")[0])
    status, text = run(["--json", str(tmp_path / "without.phh")])
    assert status == 1  # without the posts the file no longer adds up
    assert json_lines(text)[0]["status"] in ("mismatched", "error")


def test_only_mismatch_fails(tmp_path: Path) -> None:
    (tmp_path / "bad.phh").write_text(GOOD.replace("[995, 1005, 1000]", "[995, 1000, 1005]"))
    status, text = run([str(tmp_path / "bad.phh")])
    assert status == 1
    assert "MISMATCH" in text


def test_missing_path_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _ = run([str(tmp_path / "nope")])
    assert status == 2
    assert "no such file" in capsys.readouterr().err


def test_console_command_end_to_end() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "table_controller", "replay", "--json",
         str(DATA / "wsop" / "2023-43-5-68.phh")],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    first = json.loads(proc.stdout.splitlines()[0])
    assert first["match"] is True
    assert main(["replay", str(DATA / "wsop" / "2023-43-5-1.phh")]) == 0


@pytest.mark.slow
@pytest.mark.skipif(CORPUS is None or not CORPUS.is_dir(),
                    reason="set TC_PHH_CORPUS to a folder of hand histories to replay")
def test_a_corpus_of_real_hand_histories_all_match() -> None:
    assert CORPUS is not None
    status, text = run(["--json", str(CORPUS)])
    summary = json_lines(text)[-1]["summary"]
    assert status == 0
    assert summary["hands"] > 0
    assert summary["mismatched"] == 0 and summary["errors"] == 0
    assert summary["matched"] + summary["odd_chip"] + summary["no_expected"] == summary["hands"]
