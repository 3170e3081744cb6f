"""The dealing rules' remedies seen by the sensors: the board camera, the chip zones, the shoe.

Rules this module keeps (see :mod:`.dealing` for the whole list):

1. Burns (``missed_burn``, ``doubled_burn``): the camera shows the board shifted by one; found
   before action on that street, the dealer is told the board to lay (a ``fix_board`` prompt)
   and the irregularity is resolved once the camera shows it. A fourth card turned up with the
   flop before any flop action (``flop_too_many``) is taken back with the flop.
2. Cards set aside by a remedy are never judged on the board meanwhile.
3. Chips: a collection or a push the sensors show wrong holds the table with one irregularity
   naming the amounts (``collect_difference``, ``payout_difference``, ``pot_wrong_seat``).
4. The shoe opened or empty during a hand holds the table, once per opening.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from table_controller.controller.dealing_kinds import (
    FIRST_SLOT,
    STREET_NAME,
    HandState,
    Replacement,
)
from table_controller.controller.events import (
    BoardSeen,
    IrregularityRaised,
    Output,
    ShoeState,
    ZoneSeen,
)
from table_controller.controller.house_rules import HouseRules
from table_controller.controller.irregularities import Finding, TableHost
from table_controller.engine import (
    AwardStep,
    BoardStep,
    Card,
    CollectStep,
    Deal,
    Street,
)
from table_controller.engine.corrections import (
    actions,
    burn_cards,
    deal_position,
    take_back_board,
)
from table_controller.errors import RuleError


class SensorRemedies:
    """The dealing remedies driven by the camera, the chip sensors and the shoe's state."""

    house: HouseRules

    def misdeal_or_not(self, core: TableHost, why: str, data: dict[str, Any],
                       out: list[Output], *, misdeal: bool = True,
                       secret: Mapping[str, Any] | None = None) -> int:
        """Raise a misdeal (or, after substantial action, a no-misdeal); return its id."""
        raise NotImplementedError


    def on_board_seen(self, core: TableHost, st: HandState, inp: BoardSeen,
                  out: list[Output]) -> bool:
        """Judge a camera reading with the remedies in mind, then the core's checks."""
        hand = core.hand
        assert hand is not None
        board = list(hand.status().board)
        seen = {s: c for s, c in enumerate(inp.slots) if c is not None
                and s not in inp.occluded}
        hidden = set(inp.occluded)
        aside = {c.code for c in st.aside} | {c.code for c in st.premature}
        for s, code in seen.items():
            if code in aside:
                hidden.add(s)
        if self.flop_too_many(core, st, seen, out):
            board = list(hand.status().board)
            aside = {c.code for c in st.aside}
            hidden.update(s for s, code in seen.items() if code in aside)
        if st.board_fix is None:
            judged = {s: code for s, code in seen.items() if code not in aside}
            self.detect_burn_error(core, st, board, judged, out)
        if st.board_fix is not None:
            codes = [None if c is None else c.code for c in board]
            right = all(s < len(codes) and codes[s] == code
                        for s, code in seen.items() if code not in aside)
            if right:
                irr, _kind = st.board_fix
                st.board_fix = None
                core.resolve_irregularity(irr, "the board was laid in order", out)
            else:
                hidden.update(range(5))
        mark = len(out)
        core.check_board(BoardSeen(inp.slots, tuple(sorted(hidden))), out)
        for o in out[mark:]:
            if isinstance(o, IrregularityRaised) and o.kind == "exposed_card":
                self.camera_exposure(core, st, o, out)
        return True

    def flop_too_many(self, core: TableHost, st: HandState, seen: Mapping[int, str],
                       out: list[Output]) -> bool:
        """Tell (and act) when one more card was turned up with the flop, before any action."""
        hand = core.hand
        assert hand is not None
        if (len(st.premature) != 1 or st.premature_street is not Street.TURN
                or hand.street is not Street.FLOP or actions(hand, Street.FLOP)
                or st.premature[0].code not in seen.values()):
            return False
        last = hand.log[-1] if hand.log else None
        if last is None or not isinstance(last.step, BoardStep) or last.step.slot != 2:
            return False  # the card was not drawn right after the flop
        try:
            flop = take_back_board(hand, 3)
        except RuleError:  # pragma: no cover - the conditions above make it three board cards
            return False
        extra = st.premature[0]
        cards = [*flop, extra]
        old = list(st.premature_irr)
        st.premature, st.premature_street, st.premature_irr = [], None, []
        irr = core.raise_irregularity(Finding("flop_too_many", "The flop was dealt with four cards",
                                  {"street": "flop", "cards": 4},
                                  {"cards": [c.code for c in cards]}), out)
        for i in old:
            core.resolve_irregularity(i, "part of a flop dealt with too many cards", out)
        if self.house.four_card_flop == "scramble":  # Poker TDA rules, 4-card flops
            st.scramble = (cards, irr)
            st.aside.extend(cards)
            core.forget_board_flags()
            return True
        st.reshuffle[Street.FLOP] = (cards, [irr])
        st.aside.extend(cards)
        for c in cards:
            core.forget_card(c)
        core.forget_board_flags()
        return True

    def scrambled_flop(self, core: TableHost, st: HandState, inp: BoardSeen, now: float,
                       out: list[Output]) -> bool:
        """Take the flop laid from a scrambled four-card flop (Poker TDA rules, 4-card flops).

        Once the camera shows three of the four cards in the flop slots, they are the flop (in
        the order laid) and the fourth is the burn before the turn.
        """
        if st.scramble is None:
            return False
        cards, irr = st.scramble
        by_code = {c.code: c for c in cards}
        laid = [inp.slots[s] if s < len(inp.slots) and s not in inp.occluded else None
                for s in range(3)]
        if None in laid or len(set(laid)) != 3 or not set(laid) <= set(by_code):
            return True  # not yet the flop: the four cards are never judged meanwhile
        st.scramble = None
        for c in cards:
            st.aside.remove(c)
        for code in laid:
            assert code is not None
            core.apply(Deal(by_code[code]), now, out)
        burn = next(c for c in cards if c.code not in laid)
        st.burn_for[Street.TURN] = (burn, irr)
        return True

    def camera_exposure(self, core: TableHost, st: HandState, irr: IrregularityRaised,
                         out: list[Output]) -> None:
        """Apply the dealing rules to a hole card the camera saw face up before any action."""
        hand = core.hand
        seat = irr.secret.get("seat")
        code = irr.secret.get("card")
        if hand is None or not isinstance(seat, int) or not isinstance(code, str):
            return
        cards = hand.status().hole_cards.get(seat, ())
        rnd = next((i + 1 for i, c in enumerate(cards) if c is not None and c.code == code), 0)
        if not rnd or (seat, rnd) in st.exposed or actions(hand):
            return
        st.exposed.append((seat, rnd))
        pos = deal_position(hand, seat, rnd)
        data = {"seat": seat, "round": rnd, "position": pos + 1, "camera": irr.id}
        if self.house.exposed_first_two_misdeal and pos < 2:
            self.misdeal_or_not(core, f"the {'first' if pos == 0 else 'second'} card of the "
                                       f"deal was exposed (seat {seat})", data, out,
                                 secret={"card": code})
            return
        limit = self.house.exposed_cards_misdeal
        if limit and len(st.exposed) >= limit:
            self.misdeal_or_not(core, f"{len(st.exposed)} hole cards were exposed", data, out,
                                 secret={"card": code})
            return
        st.replacements.append(Replacement("hole", seat, rnd, Card.parse(code), irr.id, True,
                                            True))

    def settle_reshuffle(self, core: TableHost, st: HandState, board: list[Card | None],
                          out: list[Output]) -> None:
        """Resolve the reshuffles whose street was dealt."""
        for street, (cards, irrs) in list(st.reshuffle.items()):
            first = FIRST_SLOT[street]
            if len(board) > first:
                del st.reshuffle[street]
                for c in cards:
                    if c in st.aside:
                        st.aside.remove(c)
                for irr in irrs:
                    core.resolve_irregularity(
                        irr, f"the {STREET_NAME[street]} was dealt without a burn after "
                             f"{len(cards)} card(s) went back into the stub", out)

    def detect_burn_error(self, core: TableHost, st: HandState, board: list[Card | None],
                           seen: Mapping[int, str], out: list[Output]) -> None:
        """Find a missed or doubled burn the board shows before action on the street."""
        hand = core.hand
        assert hand is not None
        burns = burn_cards(hand)
        if not burns:
            return
        street = {1: Street.FLOP, 2: Street.TURN, 3: Street.RIVER}.get(len(burns))
        if street is None or actions(hand, street):
            return  # found after action on that street: the core's board checks apply
        burn = burns[-1]
        first = FIRST_SLOT[street]
        codes = [None if c is None else c.code for c in board]
        kind = ""
        shifted = all(s - 1 < len(codes) and codes[s - 1] == code
                      for s, code in seen.items() if s > first)
        if burn is not None and seen.get(first) == burn.code and shifted:
            # the dealer laid the burn as the street's first card and the rest one slot on
            kind, slot = "missed_burn", first
            text = f"The card burned before the {STREET_NAME[street]} is on the board"
            secret: dict[str, Any] = {"burn": burn.code}
        else:
            shown = list(seen.values())
            for s, code in seen.items():
                # a card in one slot only (a misread can show a card twice), the one the shoe
                # dealt for the next slot, and the card of this slot nowhere on the board
                if first <= s and s + 1 < len(codes) and codes[s + 1] == code \
                        and shown.count(code) == 1 and codes[s] not in shown:
                    kind, slot = "doubled_burn", s
                    text = (f"Board slot {s + 1} shows the card dealt for slot {s + 2}: two "
                            f"cards were burned before the {STREET_NAME[street]}")
                    secret = {"burn": None if burn is None else burn.code}
                    break
        if not kind:
            return
        irr = core.raise_irregularity(
            Finding(kind, text, {"street": street.value, "slot": slot}, secret),
                          out)
        st.board_fix = (irr, kind)

    # -- chips -------------------------------------------------------------------------------

    def on_zone_seen(self, core: TableHost, inp: ZoneSeen, out: list[Output]) -> None:
        """Raise a pot pushed to a seat that did not win it."""
        hand = core.hand
        chips = core.chips
        if hand is None or chips is None or core.held:
            return
        step = hand.expected()
        if not isinstance(step, AwardStep):
            return
        seat = next((s for s, z in chips.config.seat_zones.items() if z == inp.zone), None)
        paid = {s for a in core.awards for s in a.payouts}  # pots pushed already this hand
        if seat is None or seat in step.payouts or seat in paid:
            return
        value = chips.see(inp.zone, inp.counts)
        if value == 0:
            return
        winners = ", ".join(str(s) for s in sorted(step.payouts))
        core.raise_irregularity(Finding("pot_wrong_seat",
                            f"Chips ({value:,}) were pushed to seat {seat}; pot {step.pot_index} "
                            f"({step.amount:,}) goes to seat {winners}",
                            {"seat": seat, "zone": inp.zone, "sensed": value, "expected": 0,
                             "pot_index": step.pot_index,
                             "payouts": {str(s): a for s, a in step.payouts.items()}}), out)

    def on_tick(self, core: TableHost, now: float, out: list[Output]) -> bool:
        """Raise a collection or a push the sensors show wrong (once, for the pot zone)."""
        hand = core.hand
        chips = core.chips
        if hand is None or chips is None or core.held:
            return False
        deadline = chips.next_deadline()
        if deadline is None or now < deadline:
            return False
        step = hand.expected()
        if not isinstance(step, CollectStep | AwardStep):
            return False
        seat_zones = [z for s, z in chips.config.seat_zones.items() if s in hand.seats]
        if any(chips.sensed.get(z, 0) != 0 for z in seat_zones):
            return False
        pot_zone = chips.config.pot_zone
        sensed = chips.sensed.get(pot_zone)
        pots = sum(p.amount for p in hand.status().pots)
        if isinstance(step, CollectStep):
            expected = sum(p.amount for p in step.into_pots)
            if sensed is None or sensed == expected:
                return False
            kind = "collect_difference"
            text = f"The pot zone shows {sensed:,} after the collection; expected {expected:,}"
        else:
            expected = pots - step.amount
            if sensed is None or sensed in (expected, pots):
                return False
            kind = "payout_difference"
            text = (f"The pot zone shows {sensed:,} after pot {step.pot_index} was pushed; "
                    f"expected {expected:,}")
        chips.due(now)  # reported here, once, instead of zone by zone
        core.raise_irregularity(Finding(kind, text, {"zone": pot_zone, "sensed": sensed,
                                         "expected": expected}), out)
        return True

    # -- the shoe ----------------------------------------------------------------------------

    def on_shoe(self, core: TableHost, st: HandState | None, inp: ShoeState,
                 out: list[Output]) -> None:
        """Raise the shoe opened or empty during a hand (once per opening)."""
        if st is None or core.hand is None:
            return
        for flag, kind, text in (("door", "shoe_opened", "The shoe was opened during the hand"),
                                 ("empty", "shoe_empty", "The shoe is empty during the hand")):
            on = inp.door_open if flag == "door" else inp.empty
            if on and flag not in st.shoe_flags:
                st.shoe_flags.add(flag)
                core.raise_irregularity(Finding(kind, text, {"door_open": inp.door_open,
                                                 "empty": inp.empty}), out)
            elif not on:
                st.shoe_flags.discard(flag)
