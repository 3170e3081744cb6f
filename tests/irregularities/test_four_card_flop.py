"""The four-card flop remedy, a house rule (``four_card_flop``).

``redeal`` (the default, Robert's Rules of Poker, Hold'em 2-3: the four cards go back into the
stub, which is shuffled and cut, and the flop is dealt again without a burn; the scenario
``scenarios/irregularities/flop_too_many.toml`` plays it) or ``scramble`` (Poker TDA rules,
4-card flops: the four are scrambled face down, one is picked at random as the next burn, the
other three are the flop).
"""

from __future__ import annotations

from table_controller.controller.dealing import DealingRules
from table_controller.controller.events import IrregularityRaised, Resolved
from table_controller.controller.house_rules import HouseRules
from table_controller.engine import Card
from tests.controller.helpers import Harness


def _four_card_flop(choice: str) -> Harness:
    h = Harness(chips=False)
    h.core.rules = DealingRules(HouseRules(four_card_flop=choice))
    h.seat_players(3)
    h.ok("start")
    h.post_blinds()
    h.deal("As", "Kd", "2c", "Ah", "Kh", "7d")
    for _ in range(3):
        step = h.step()
        h.ok("check" if step["legal"]["can_check"] else "call", seat=step["seat"])
    h.collect()
    h.deal("3c", "Qs", "Jd", "4h")  # the burn and the flop
    h.card("5c")  # a fourth card turned up with the flop, before any flop action
    h.board("Qs", "Jd", "4h", "5c")
    kinds = [o.kind for o in h.outputs if isinstance(o, IrregularityRaised)]
    assert kinds[-1] == "flop_too_many", kinds
    return h


def test_four_card_flop_is_redealt_by_default() -> None:
    assert HouseRules().four_card_flop == "redeal"
    h = _four_card_flop("redeal")
    assert h.step()["remedy"] == "reshuffle" and h.step()["cards"] == 4


def test_four_card_flop_scrambled_tda() -> None:
    h = _four_card_flop("scramble")
    prompt = h.core.prompt
    assert prompt is not None and prompt.step["remedy"] == "scramble"
    assert "Poker TDA rules, 4-card flops" in prompt.text
    h.board("Jd", "5c")  # still being laid: nothing taken
    hand = h.core.hand
    assert hand is not None and hand.board == ()
    h.board("Jd", "5c", "Qs")  # three of the four face up: the flop
    board: tuple[Card | None, ...] = hand.board
    assert [None if card is None else card.code for card in board] == ["Jd", "5c", "Qs"]
    for _ in range(3):
        h.ok("check", seat=h.step()["seat"])
    # the fourth card (4h) became the burn before the turn; the turn comes from the shoe
    assert h.step()["kind"] == "board" and h.step()["slot"] == 3
    resolved = [o for o in h.outputs if isinstance(o, Resolved)]
    assert any("burn before the turn" in o.note for o in resolved), resolved


def test_a_card_drawn_during_the_scramble_is_held_not_dealt_tda() -> None:
    """Poker TDA rules, 4-card flops: the flop comes from the four scrambled cards only."""
    h = _four_card_flop("scramble")
    h.card("9s")  # read by the shoe while the four cards are scrambled
    raised = [o for o in h.outputs if isinstance(o, IrregularityRaised)]
    assert raised[-1].kind == "card_during_scramble"
    hand = h.core.hand
    assert hand is not None and hand.board == () and h.core.held
    h.ok("resolve", irregularity=raised[-1].id, note="the 9s is set aside")
    h.ok("resume")
    h.board("Jd", "5c", "Qs")  # the flop, laid from the four
    laid: tuple[Card | None, ...] = hand.board
    assert [None if c is None else c.code for c in laid] == ["Jd", "5c", "Qs"]
    for _ in range(3):
        h.ok("check", seat=h.step()["seat"])
    # the fourth scrambled card is the burn before the turn, as without the stray card
    assert h.step()["kind"] == "board" and h.step()["slot"] == 3
