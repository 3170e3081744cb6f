"""``sim dealer``: a trainee at the keys against a running daemon and ``sim run``.

The trainee reads each line the practice dealer prints and types the next key only once the
prompt it answers is on the screen (a reader thread hands the lines over; every wait is on a
line, with a generous limit for a failure, never a sleep).
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import subprocess
import sys
import threading
import tomllib
from pathlib import Path

import pytest

from table_controller import phh
from table_controller.simtable.devices.control import ControlClient
from tests.simtable.simprocs import TIMEOUT, daemon, sim_run, wait_for

pytestmark = pytest.mark.timeout(300)

#: The cards the trainee names, in the order the prompts ask for them: the big blind (dealt
#: first heads-up) gets the aces, the button the kings; burn, flop, burn, turn, burn, river.
CARDS = ["As", "Kd", "Ah", "Kc", "2c", "7d", "9h", "Js", "3s", "4d", "5c", "6h"]
#: The players' actions, in the order the daemon asks: preflop the button calls and the big
#: blind checks, on the flop the big blind bets 200 and the button calls, then checks.
ACTIONS = ["call", "check", "bet {} 200", "call", "check", "check", "check", "check"]
PROMPT = re.compile(r"^\[(\d+)\] (.*)$")


class Trainee:
    """``table-controller sim dealer`` with a person's habits: read the screen, then type."""

    def __init__(self, directory: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "table_controller", "sim", "dealer", "--dir", str(directory)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            encoding="utf-8", env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.lines: queue.Queue[str] = queue.Queue()
        self.screen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put("")  # the end of the output

    def line(self) -> str:
        """Return the next line on the screen."""
        try:
            line = self.lines.get(timeout=TIMEOUT)
        except queue.Empty:
            raise AssertionError("the screen stayed still:\n" + "\n".join(self.screen)) from None
        if not line and self.proc.poll() is not None:
            raise AssertionError("sim dealer ended:\n" + "\n".join(self.screen))
        self.screen.append(line)
        return line

    def prompt(self) -> tuple[int, str]:
        """Read until the next prompt; return its id and text."""
        while not (m := PROMPT.match(self.line())):
            pass
        return int(m.group(1)), m.group(2)

    def type(self, key: str, answer: str) -> str:
        """Type ``key``; read until a line that starts with ``answer`` (after the indent)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(key + "\n")
        self.proc.stdin.flush()
        while not (line := self.line()).strip().startswith(answer):
            assert not PROMPT.match(line) or answer == "", (key, line, self.screen)
        return line.strip()

    def close(self) -> int:
        """Type ``q`` (unless it ended already); return the exit status."""
        assert self.proc.stdin is not None
        with contextlib.suppress(BrokenPipeError):  # it left on an earlier q
            self.proc.stdin.write("q\n")
        with contextlib.suppress(BrokenPipeError):
            self.proc.stdin.close()
        return self.proc.wait(TIMEOUT)


def deal_a_hand(t: Trainee) -> list[str]:
    """Answer every prompt of one hand from the keys; return the prompts' texts."""
    cards, actions, texts = list(CARDS), list(ACTIONS), []
    started = refused = False
    while True:
        _id, text = t.prompt()
        texts.append(text)
        if text.startswith("Seat at least two players"):
            t.type("seat 1 Alice 10000", "OK: seat 1")
            t.type("seat 2 Bob 10000", "OK: seat 2")
        elif text.startswith("Start the next hand"):
            if started:
                return texts
            started = True
            t.type("n", "OK: start")
        elif re.match(r"Seat \d posts the (small|big) blind", text):
            t.type("b", "")
        elif re.search(r"hole card|burn and deal|flop card|Deal the (turn|river)", text):
            if not refused:  # a key the prompt does not ask for changes nothing
                assert "does not fit" in t.type("c", "refused:")
                refused = True
            card = cards.pop(0)
            assert t.type(f"d {card}", "drew").startswith(f"drew {card} ")
        elif m := re.match(r"Seat (\d) to act: ", text):
            action = actions.pop(0)
            words = action.format(m.group(1)) if "{}" in action else f"{action} {m.group(1)}"
            t.type(words, f"OK: {words}")
        elif text.startswith("Collect the bets"):
            t.type("c", "collected:")
        elif re.match(r"Seat \d shows", text):
            t.type("s", "OK: confirm")
        elif text.startswith("Main pot"):
            t.type("p", "pushed")
        else:
            raise AssertionError(f"unexpected prompt {text!r}:\n" + "\n".join(t.screen))


def test_a_trainee_deals_a_whole_hand_by_keys_and_the_phh_matches(tmp_path: Path) -> None:
    d = tmp_path / "t"
    with sim_run(d, "--seats", "2") as sim, daemon(d / "table.toml"):
        t = Trainee(d)
        try:
            texts = deal_a_hand(t)
        finally:
            status = t.close()
        with ControlClient(d / "ctl.sock") as ctl:
            state = ctl("state")
        files = wait_for("the hand's PHH file", lambda: sorted((d / "phh").glob("*.phh")))
    assert sim.returncode == 0 and status == 0, "\n".join(t.screen)
    screen = "\n".join(t.screen)
    assert "laid 7d in board slot 0" in screen and "laid 6h in board slot 4" in screen
    assert "570 to seat 2, 30 rake" in screen  # the aces' pot, less the 5 % rake
    assert any(x.startswith("Seat 2 shows") for x in texts)
    assert state["shoe"]["drawn"] == CARDS
    assert state["board"] == [None] * 5 and state["chips"]["zones"] == {}
    hand = phh.load(files[0])
    # heads-up the button (seat 1, Alice) posts the small blind; the big blind is dealt first
    assert (hand.players, hand.seats) == (("Bob", "Alice"), (2, 1))
    h = CARDS
    assert tomllib.loads(files[0].read_text())["actions"] == [
        f"d dh p1 {h[0]}{h[2]}", f"d dh p2 {h[1]}{h[3]}", "p2 cc", "p1 cc",
        f"d db {h[5]}{h[6]}{h[7]}", "p1 cbr 200", "p2 cc", f"d db {h[9]}", "p1 cc", "p2 cc",
        f"d db {h[11]}", "p1 cc", "p2 cc", f"p1 sm {h[0]}{h[2]}", f"p2 sm {h[1]}{h[3]}"]
    assert hand.finishing_stacks == (10_270, 9_700)
    assert phh.replay(hand).status == phh.MATCHED  # our engine replays what was written


def test_piped_keys_seat_players_start_a_hand_and_draw(tmp_path: Path) -> None:
    d = tmp_path / "t"
    with sim_run(d, "--seats", "2"), daemon(d / "table.toml"):
        keys = "seat 1 Alice 10000\nseat 2 Bob 10000\nn\nfly 3\nb\nq\n"
        done = subprocess.run([sys.executable, "-m", "table_controller", "sim", "dealer",
                               "--dir", str(d)], input=keys, capture_output=True, text=True,
                              timeout=300)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "OK: seat 1 Alice 10000" in out and "OK: seat 2 Bob 10000" in out
    assert "OK: start" in out
    assert "refused: " in out  # 'fly 3' is no command: said, and the session goes on
    assert "in front of seat" in out  # the blind's chips went down


TUTORIAL = Path(__file__).resolve().parents[2] / "docs" / "tutorial.md"


def tutorial() -> tuple[list[str], list[str]]:
    """Return the tutorial's commands (its first code blocks) and its transcript's lines."""
    text = TUTORIAL.read_text()
    head, _, rest = text.partition("<!-- transcript: begin -->")
    transcript = rest.partition("<!-- transcript: end -->")[0]
    commands = re.findall(r"```\n\s*(table-controller [^\n]+)\n\s*```", head)
    lines = transcript.strip().removeprefix("```text").removesuffix("```").strip("\n")
    return commands, lines.splitlines()


def test_the_tutorial_works_as_written(tmp_path: Path) -> None:
    commands, transcript = tutorial()
    assert commands == ["table-controller sim run --dir ~/practice --seats 2",
                        "table-controller run --config ~/practice/table.toml",
                        "table-controller sim dealer --dir ~/practice"]
    d = tmp_path / "practice"  # ~/practice; the daemon() helper runs the second command
    with sim_run(d, "--seats", "2"), daemon(d / "table.toml"):
        t = Trainee(d)  # the third command
        try:
            for want in transcript:
                if want.startswith("> "):
                    assert t.proc.stdin is not None
                    t.proc.stdin.write(want[2:] + "\n")
                    t.proc.stdin.flush()
                else:
                    assert t.line() == want, "\n".join(t.screen)
        finally:
            status = t.close()
        files = wait_for("the hand's PHH file", lambda: sorted((d / "phh").glob("*.phh")))
    assert status == 0
    assert transcript[-1] == "> q" and len(transcript) > 80
    text = TUTORIAL.read_text()
    assert f"phh/{files[0].name}" in text
    hand = tomllib.loads(files[0].read_text())
    assert hand["actions"][:2] == ["d dh p1 AsAh", "d dh p2 KdKc"]
    assert f"finishing_stacks = {hand['finishing_stacks']}" in text
