"""Dealer commands ``show`` and ``muck`` at the showdown (command schema, console, core)."""

from __future__ import annotations

import pytest

from table_controller.cli.console import help_text, parse_line
from table_controller.controller.events import Applied, HandEnded
from table_controller.feeds.messages import CommandError, parse_command

from .helpers import Harness


def test_show_and_muck_are_commands() -> None:
    assert parse_command({"command": "show", "seat": 3}) == ("show", {"seat": 3})
    assert parse_command({"command": "show", "seat": 3, "cards": "Ah Kd"}) == (
        "show", {"seat": 3, "cards": "Ah Kd"})
    assert parse_command({"command": "muck", "seat": 3}) == ("muck", {"seat": 3})
    with pytest.raises(CommandError, match=r"muck\.seat"):
        parse_command({"command": "muck", "seat": 11})
    with pytest.raises(CommandError, match="unknown argument 'cards'"):
        parse_command({"command": "muck", "seat": 3, "cards": "Ah Kd"})


def test_console_parses_and_lists_them() -> None:
    assert parse_line("show 3 Ah Kd") == {"command": "show", "seat": 3, "cards": "Ah Kd"}
    assert parse_line("show 3") == {"command": "show", "seat": 3}
    assert parse_line("muck 4") == {"command": "muck", "seat": 4}
    text = help_text()
    assert "show <seat> [cards]" in text and "muck <seat>" in text


def showdown() -> Harness:
    """Seat 2 holds AA, seat 3 KK, seat 1 2-3; everyone checks to the river (no sensors)."""
    h = Harness(chips=False)
    h.seat_players(3)
    h.ok("start")
    h.post_blinds()
    h.deal("Ah", "Kd", "2c", "As", "Kh", "3c")
    h.ok("call", seat=1)
    h.ok("call", seat=2)
    h.ok("check", seat=3)
    h.ok("confirm")
    for cards in (("9s", "Qc", "Jd", "7h"), ("5s", "2d"), ("6s", "8d")):
        h.deal(*cards)
        for s in (2, 3, 1):
            h.ok("check", seat=s)
    assert h.step() == {"kind": "show", "seat": 2}
    return h


def test_a_mucked_hand_cannot_win() -> None:
    h = showdown()
    h.ok("muck", seat=2)  # aces, thrown away unshown
    assert h.step() == {"kind": "show", "seat": 3}
    h.ok("show", seat=3)
    h.ok("show", seat=1)
    while h.step()["kind"] == "award":
        h.ok("confirm")
    ended = [o for o in h.outputs if isinstance(o, HandEnded)]
    assert ended[0].final_stacks == {1: 9900, 2: 9900, 3: 10200}
    events = [o.data.get("event") for o in h.outputs if isinstance(o, Applied)]
    assert events.count("muck") == 1 and events.count("show") == 2


def test_a_hand_must_be_shown_in_full_and_right() -> None:
    h = showdown()
    reply = h.cmd("show", seat=2, cards="Ah")
    assert not reply.accepted and "both" in reply.reason
    reply = h.cmd("show", seat=2, cards="Ah Ad")
    assert not reply.accepted and "dealt" in reply.reason
    assert h.step() == {"kind": "show", "seat": 2}  # a refused show changed nothing
    h.ok("show", seat=2, cards="As Ah")
    h.ok("muck", seat=3)
    h.ok("muck", seat=1)
    while h.step()["kind"] == "award":
        h.ok("confirm")
    ended = [o for o in h.outputs if isinstance(o, HandEnded)]
    assert ended[0].final_stacks == {1: 9900, 2: 10200, 3: 9900}


def test_the_last_hand_in_a_pot_cannot_muck() -> None:
    h = showdown()
    h.ok("muck", seat=2)
    h.ok("muck", seat=3)
    assert h.step()["kind"] == "award"  # the only hand left wins without showing
    assert h.step()["payouts"] == {"1": 300}
    assert not h.cmd("muck", seat=1).accepted
