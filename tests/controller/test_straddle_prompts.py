"""The straddle at the table: the dealer's command, the prompt, and the chip check of the post.

The live straddle, a house rule (``straddle``, default ``off``: the Poker TDA rules list no
straddle; no rule-book section confirmed for it, see ``docs/engine.md``, Sources).
"""

from __future__ import annotations

from table_controller.controller.events import Announcement
from tests.controller.helpers import Harness


def _harness(rule: str = "utg") -> Harness:
    h = Harness(straddle=rule)
    h.seat_players(4)
    return h


def test_straddle_is_refused_where_the_house_does_not_play_it() -> None:
    h = _harness("off")
    reply = h.cmd("straddle", seat=4)
    assert not reply.accepted and "not played" in reply.reason


def test_only_the_seat_under_the_gun_may_straddle() -> None:
    h = _harness()
    reply = h.cmd("straddle", seat=3)
    assert not reply.accepted and "under the gun" in reply.reason
    assert not h.cmd("straddle", seat=4, choice="maybe").accepted


def test_straddle_prompt_and_chip_check_like_a_blind() -> None:
    h = _harness()
    reply = h.ok("straddle", seat=4)
    assert reply.result == {"seat": 4, "straddle": 200}
    said = [o for o in h.outputs if isinstance(o, Announcement) and o.kind == "straddle"]
    assert said and said[-1].text == "seat 4 straddles the next hand: 200"
    h.ok("start")
    for seat, amount in ((2, 50), (3, 100)):
        assert h.step()["seat"] == seat
        h.add(seat, amount)
    prompt = h.core.prompt
    assert prompt is not None and prompt.text == "Seat 4 posts the straddle: 200"
    assert dict(prompt.step) == {"kind": "post", "seat": 4, "post_kind": "straddle",
                                 "amount": 200}
    h.add(4, 100)  # not yet the straddle: the post waits
    assert h.step()["post_kind"] == "straddle"
    h.add(4, 100)  # the straddle is in front of seat 4: posted
    assert h.step() == {"kind": "deal_hole", "seat": 2, "round": 1}
    hand = h.core.hand
    assert hand is not None and hand.straddle_seat == 4
    assert hand.status().bets == {2: 50, 3: 100, 4: 200}


def test_straddle_taken_back_before_the_hand() -> None:
    h = _harness()
    h.ok("straddle", seat=4)
    assert h.ok("straddle", seat=4, choice="off").result == {"seat": 4, "straddle": 0}
    assert not h.cmd("straddle", seat=4, choice="off").accepted  # nothing to take back
    h.ok("start")
    h.post_blinds()
    hand = h.core.hand
    assert hand is not None and hand.straddle_seat is None
