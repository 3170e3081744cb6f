"""The dealer console as a person types into it: editing keys, history, completion, names."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from table_controller.cli.console import interactive, prompt_session
from table_controller.cli.console_text import (
    LineError,
    completions,
    format_status,
    parse_line,
)

LEFT, UP, TAB, ENTER = "\x1b[D", "\x1b[A", "\t", "\r"


Step = tuple[str, str | None, int]


def _typed(steps: list[Step] | str, history: Path) -> list[str]:
    """Type into the console's editor; return the lines it handed over.

    Each step is (keys, what the line must show before the next step - ``None``: anything -,
    and how many lines must have been handed over by then). The next keys go in once the
    editor shows that (waited for, not timed). Keys that show nothing yet (Up before the
    history file is loaded) are pressed again until they do.
    """
    plan: list[Step] = [(steps, None, 0)] if isinstance(steps, str) else steps
    seen: list[str] = []

    async def handle(line: str) -> str | None:
        seen.append(line)
        return ""

    async def body() -> None:
        with create_pipe_input() as inp:
            editor = prompt_session(history, input=inp, output=DummyOutput())

            async def typist() -> None:
                for keys, shows, lines in plan:
                    inp.send_text(keys)
                    waited = 0
                    while len(seen) < lines or (shows is not None
                                                and editor.default_buffer.text != shows):
                        await asyncio.sleep(0.01)
                        waited += 1
                        if waited % 50 == 0 and keys == UP:
                            inp.send_text(keys)
                inp.close()  # Ctrl-D after the keys: the console ends

            typing = asyncio.create_task(typist())
            await asyncio.wait_for(interactive(handle, editor), 60)
            await typing

    asyncio.run(body())
    return seen


def test_arrow_keys_edit_the_line(tmp_path: Path) -> None:
    assert _typed("fod 3" + LEFT * 3 + "l" + ENTER, tmp_path / "h") == ["fold 3"]


def test_tab_completes_a_command(tmp_path: Path) -> None:
    assert _typed([("stat" + TAB, "status", 0), (ENTER, None, 1)],
                  tmp_path / "h") == ["status"]


def test_up_recalls_the_last_line_and_history_survives_a_restart(tmp_path: Path) -> None:
    hist = tmp_path / "state" / "history"
    assert _typed([("fold 3" + ENTER, None, 1), (UP, "fold 3", 1), (ENTER, None, 2)],
                  hist) == ["fold 3", "fold 3"]
    # a new console, the same history file
    assert _typed([(UP, "fold 3", 0), (ENTER, None, 1)], hist) == ["fold 3"]


def test_an_unwritable_history_falls_back_to_memory(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert _typed("start" + ENTER, blocker / "history") == ["start"]
    assert "history not kept" in capsys.readouterr().err


@pytest.mark.parametrize(("before", "words"), [
    ("", None), ("sta", ["start", "status"]), ("res", ["resume", "resolve"]),
    ("resolve ", ["irregularity=", "note="]), ("resolve irregularity=2 n", ["note="]),
    ("dance ", []),
])
def test_completions(before: str, words: list[str] | None) -> None:
    got = list(completions(before))
    if words is None:
        assert "fold" in got and "help" in got
    else:
        assert got == words


@pytest.mark.parametrize(("line", "body"), [
    ('seat 3 "Dan Smith" 10000', {"command": "seat", "seat": 3, "player": "Dan Smith",
                                  "stack": 10000}),
    ("seat 3 Dan Smith 10000", {"command": "seat", "seat": 3, "player": "Dan Smith",
                                "stack": 10000}),
    ("seat 3 'Anne-Marie O Neil' 500", {"command": "seat", "seat": 3,
                                        "player": "Anne-Marie O Neil", "stack": 500}),
    ('hold "pot short"', {"command": "hold", "reason": "pot short"}),
    ("resolve irregularity=4 chips recounted", {"command": "resolve", "irregularity": 4,
                                                "note": "chips recounted"}),
])
def test_names_with_spaces(line: str, body: dict[str, object]) -> None:
    assert parse_line(line) == body


@pytest.mark.parametrize(("line", "message"), [
    ("stauts", "did you mean 'status'?"),
    ("fodl 3", "did you mean 'fold'?"),
    ("xyzzy", "type help for the list"),
    ("resolve irregularty=2 ok", "did you mean 'irregularity'?"),
    ('seat 3 "Dan Smith 10000', "no closing quotation"),
    ("seat 3 Dan", "seat"),
    ("bet 3 99999999999999999999999", "must be a number"),
])
def test_mistakes_get_one_line_with_a_hint(line: str, message: str) -> None:
    with pytest.raises(LineError) as info:
        parse_line(line)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_status_reads_at_a_glance() -> None:
    text = format_status({
        "hand": 12, "hands_played": 11, "held": True, "holds": ["chip_difference"],
        "stacks": {"2": 500, "10": 12000}, "chips_in_play": 12500, "rake_total": 35,
        "prompt": {"id": 40, "text": "Table on hold"},
        "irregularities": [{"id": 3, "kind": "chip_difference", "text": "zone 2 shows 0",
                            "hold": True, "resolved": False},
                           {"id": 2, "kind": "unknown_card", "text": "x", "hold": True,
                            "resolved": True}],
        "devices": {"shoe": "ok"}, "phh_dir": "/var/lib/t/phh"})
    lines = text.splitlines()
    assert lines[0] == "hand 12 in progress (11 played) - HELD: chip_difference"
    assert "stacks: seat 2 500 | seat 10 12,000" in text
    assert "  irregularity 3 (chip_difference): zone 2 shows 0 [holds]" in lines
    assert "irregularity 2" not in text
    assert "phh_dir: /var/lib/t/phh" in lines


@pytest.mark.parametrize("endpoint", ["nonsense", "tcp://", "tcp://127.0.0.1:notaport"])
def test_a_bad_endpoint_is_one_line_and_exit_2(endpoint: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from table_controller.cli import main

    assert main(["console", "--connect", endpoint, "-c", "status"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"cannot connect to {endpoint!r}" in err
    assert "Traceback" not in err


def test_post_choice_by_name_after_a_name_with_spaces() -> None:
    from table_controller.cli.console_text import parse_line
    assert parse_line("seat 3 Dan Smith 10000 post=now") == {
        "command": "seat", "seat": 3, "player": "Dan Smith", "stack": 10000, "post": "now"}
    assert parse_line("sit_in 3 now") == {"command": "sit_in", "seat": 3, "post": "now"}
