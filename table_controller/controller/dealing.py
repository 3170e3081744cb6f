"""Dealing irregularities (issue 6): detection from the sensors, the standard remedy, the record.

:class:`DealingRules` plugs into the controller core through the extension point of
:mod:`.irregularities` (``intercept`` / ``after_input`` / ``prompt``). It sees every input before
the core, handles the ones a remedy is waiting for, and tells the core's prompt what the dealer
must do. The rules follow the Poker TDA rules (2019) and Robert's Rules of Poker (v11); where
they differ or leave room, :class:`~.house_rules.HouseRules` holds the house's choice.

Rules this module keeps:

1. Misdeal (``misdeal``, holds): the first or second card of the deal exposed by the dealer, two
   or more hole cards exposed, two or more boxed cards, the first card to the wrong seat, a seat
   dealt in or skipped, a wrong number of cards, the button in the wrong place - only before
   substantial action (:func:`~table_controller.engine.corrections.substantial_action`). After
   it, ``no_misdeal``: the hand goes on, and the dealer's ``misdeal`` command is refused (house
   choice); the floor can still ``void``. A misdeal is replayed with the same button and blinds
   (the engine's ``Table`` does not move the button after a voided hand).
2. Other exposed hole card (``exposed_hole_card``, or the core's ``exposed_card`` when the camera
   sees it face up before any action): dealing goes on; the next card after the deal replaces
   it, and the exposed card becomes the burn before the flop.
3. A card drawn while a betting round is open is never applied where it does not belong: one
   card (``extra_card``) becomes the burn of the next street; more (``premature_flop``,
   ``premature_turn``, ``premature_river``) are set aside with the burn kept: after the betting,
   a premature flop or river goes back into the stub, which is shuffled and cut, and is dealt
   again without a burn; a premature turn card is set aside, the would-be river is dealt as the
   turn after a burn, and the set-aside card is shuffled into the stub for a river dealt without
   a burn. A fourth card turned up with the flop before any flop action (``flop_too_many``):
   the flop is taken back from the engine and dealt again without a burn.
4. Burns (``missed_burn``, ``doubled_burn``): the shoe's reads already put the cards in their
   right order in the engine; the camera then shows the board shifted by one (the burn card on
   the board, or a board card missing). Found before action on that street, the dealer is told
   the board to lay (a ``fix_board`` prompt); the irregularity is resolved once the camera shows
   it (or the dealer confirms). Later, the core's board checks apply.
5. The deck is suspect (``boxed_card``, ``shoe_opened``, ``shoe_empty``; the core's
   ``unknown_card`` and ``duplicate_card``): the table holds and the floor decides; a fouled
   deck voids the hand. A boxed card the floor lets play is replaced by the next card.
6. Chips (``collect_difference``, ``payout_difference``, ``pot_wrong_seat``): a collection or a
   push the sensors show wrong holds the table with one irregularity naming the amounts (bets
   keep the core's ``chip_difference``).
7. Every remedy that completes by itself (a replacement dealt, a burn taken, a board re-laid) is
   recorded as the irregularity's resolution; the others are resolved by the floor (``resolve``).
8. The rules' state is plain data kept per hand, changed only by inputs: the journal's replay
   (and the core's deep-copied preview) rebuilds it exactly.

Dealer commands (the dealer reports what no sensor sees):

- ``exposed`` (``seat``, ``round``): the dealer exposed that hole card.
- ``boxed``: the card just drawn was face up in the deck.
- ``misdealt`` (``what`` = wrong_seat | skipped | dealt_in | wrong_count | button; ``seat``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hardware.base import CardDrawn, CardIdentified, DuplicateCard, RepeatedRead, UnknownTag
from table_controller.controller.events import (
    BoardSeen,
    CardRead,
    DealerCommand,
    IrregularityRaised,
    Output,
    Reply,
    Resolved,
    ShoeState,
    Tick,
    ZoneSeen,
)
from table_controller.controller.house_rules import HouseRules
from table_controller.controller.irregularities import Finding, IrregularityRules, register_kind
from table_controller.controller.steps import step_to_dict
from table_controller.engine import (
    ActStep,
    AwardStep,
    BoardStep,
    BurnStep,
    Card,
    CollectStep,
    Deal,
    DealHoleStep,
    Street,
    describe_step,
)
from table_controller.engine.corrections import (
    NEXT_STREET,
    actions,
    burn_cards,
    deal_complete,
    deal_position,
    last_card,
    replace_card,
    substantial_action,
    take_back_board,
)
from table_controller.errors import RuleError

if TYPE_CHECKING:
    from table_controller.controller.core import TableCore

__all__ = ["MISDEALT", "DealingRules", "ShoeState"]

register_kind(
    "misdeal", "a misdeal before substantial action",
    "Misdeal: stop dealing, gather every card, shuffle and cut; the hand is replayed with the "
    "same button and blinds (send misdeal).", hold=True)
register_kind(
    "no_misdeal", "a dealing error that is not a misdeal",
    "No misdeal: the hand goes on. The floor rules on the seat's hand (a hand with the wrong "
    "number of cards is dead); resolve once done.", hold=False)
register_kind(
    "exposed_hole_card", "the dealer exposed a hole card",
    "Deal on. After the deal the next card replaces the exposed card, which becomes the burn "
    "before the flop (once the action has started, the card stays in play).", hold=False)
register_kind(
    "boxed_card", "a card was face up in the deck (boxed)",
    "The deck is suspect: the floor checks it (a fouled deck voids the hand). If play goes "
    "on, the boxed card is set aside like a scrap of paper and the next card replaces it.",
    hold=True)
register_kind(
    "extra_card", "a card was drawn before the betting round is over",
    "Finish the betting; the card becomes the burn before the next street.", hold=False)
register_kind(
    "premature_flop", "the flop was dealt before the betting was over",
    "Finish the betting. The burn stays; the flop cards go back into the stub, which is "
    "shuffled and cut, and a new flop is dealt without a burn.", hold=False)
register_kind(
    "flop_too_many", "the flop was dealt with too many cards",
    "The burn stays; every flop card goes back into the stub, which is shuffled and cut, and "
    "a new flop is dealt without a burn.", hold=False)
register_kind(
    "premature_turn", "the turn was dealt before the betting was over",
    "Set the card aside and finish the betting; burn and deal the would-be river as the turn; "
    "after that round, shuffle the set-aside card into the stub, cut, and deal the river "
    "without a burn.", hold=False)
register_kind(
    "premature_river", "the river was dealt before the betting was over",
    "Finish the betting. The burn stays; the card goes back into the stub, which is shuffled "
    "and cut, and the river is dealt again without a burn.", hold=False)
register_kind(
    "missed_burn", "a board card was dealt where the burn was due",
    "The card on the board that should have been burned is the burn: take it off face down, "
    "lay the board cards in order as prompted, and deal on.", hold=False)
register_kind(
    "doubled_burn", "two cards were burned before a board card",
    "The second burned card is the board's: turn it up in its slot, lay the board cards in "
    "order as prompted, and deal on.", hold=False)
register_kind(
    "shoe_opened", "the shoe was opened during the hand",
    "The deck is suspect: stop and call the floor; the floor checks the deck (a fouled deck "
    "voids the hand), then resolve and resume.", hold=True)
register_kind(
    "shoe_empty", "the shoe ran out of cards during the hand",
    "The deck is suspect: stop and call the floor; the floor counts the deck (a fouled deck "
    "voids the hand), then resolve and resume.", hold=True)
register_kind(
    "collect_difference", "the collected chips do not match the bets",
    "Recount the pot zone against the bets collected; put the difference right, then resolve "
    "and resume.", hold=True)
register_kind(
    "payout_difference", "the chips pushed from the pot do not match the award",
    "Recount the push: put the pot zone right for the award prompted, then resolve and "
    "resume.", hold=True)
register_kind(
    "pot_wrong_seat", "a pot was pushed to a seat that did not win it",
    "Take the chips back from that seat and push the pot to its winner; then resolve and "
    "resume.", hold=True)

#: ``misdealt`` reasons and their words.
MISDEALT: Mapping[str, str] = {
    "wrong_seat": "a card was dealt to the wrong seat",
    "skipped": "a seat entitled to a hand was skipped",
    "dealt_in": "a seat not entitled to a hand was dealt in",
    "wrong_count": "a seat got the wrong number of cards",
    "button": "the button was in the wrong place",
}
_STREET = {Street.FLOP: "flop", Street.TURN: "turn", Street.RIVER: "river"}
_FIRST_SLOT = {Street.FLOP: 0, Street.TURN: 3, Street.RIVER: 4}
_BURNS_BEFORE = {Street.FLOP: 1, Street.TURN: 2, Street.RIVER: 3}


@dataclass(slots=True)
class _Replacement:
    where: str
    seat: int | None
    index: int
    old: Card | None
    irregularity: int
    becomes_burn: bool
    after_deal: bool


@dataclass(slots=True)
class _HandState:
    """What the rules remember about the hand in progress (reset at each hand)."""

    number: int
    exposed: list[tuple[int, int]] = field(default_factory=list)
    boxed: int = 0
    replacements: list[_Replacement] = field(default_factory=list)
    #: street -> (card, irregularity) burned before it without a new draw
    burn_for: dict[Street, tuple[Card, int | None]] = field(default_factory=dict)
    #: cards drawn while the betting round was open: (street they were due for, cards, irr)
    premature: list[Card] = field(default_factory=list)
    premature_street: Street | None = None
    premature_irr: list[int] = field(default_factory=list)
    #: street -> (cards to shuffle back into the stub before it, irregularities)
    reshuffle: dict[Street, tuple[list[Card], list[int]]] = field(default_factory=dict)
    #: the cards set aside until their reshuffle (never judged on the board meanwhile)
    aside: list[Card] = field(default_factory=list)
    #: a burn error being corrected: (irregularity, kind)
    board_fix: tuple[int, str] | None = None
    shoe_flags: set[str] = field(default_factory=set)
    closed: bool = False


class DealingRules(IrregularityRules):
    """The dealing irregularities' rules (misdeals, exposed and premature cards, burns, chips).

    :param house: the house's choices (defaults: Poker TDA / Robert's Rules).
    """

    def __init__(self, house: HouseRules | None = None) -> None:
        self.house = house or HouseRules()
        self.state: _HandState | None = None

    # -- the hooks ---------------------------------------------------------------------------

    def intercept(self, core: Any, inp: Any, now: float, out: list[Any]) -> bool:
        """Handle the inputs a rule or a pending remedy is about; leave the others to the core."""
        st = self._state(core)
        if isinstance(inp, DealerCommand):
            return self._on_command(core, inp, now, out)
        if isinstance(inp, ShoeState):
            self._on_shoe(core, st, inp, out)
            return True
        if st is None or core.hand is None:
            return False
        if isinstance(inp, CardRead):
            return self._on_card(core, st, inp, now, out)
        if isinstance(inp, BoardSeen):
            return self._on_board(core, st, inp, out)
        if isinstance(inp, ZoneSeen):
            self._on_zone(core, inp, out)
            return False
        if isinstance(inp, Tick):
            return self._on_tick(core, now, out)
        return False

    def after_input(self, core: Any, now: float, out: list[Any]) -> None:
        """Take the burns a remedy already has (premature or exposed cards) when they are due."""
        st = self._state(core)
        if st is not None and core.hand is None and not st.closed:
            self._close(core, st, out)
        if st is not None and core.hand is not None and st.reshuffle:
            self._settle_reshuffle(core, st, list(core.hand.status().board), out)
        if st is None or not (st.burn_for or st.premature):
            return
        for _ in range(3):
            hand = core.hand
            if hand is None or core.held:
                return
            step = hand.expected()
            if not isinstance(step, BurnStep):
                return
            street = step.street
            prem = st.premature_street
            if prem is street and st.premature:
                self._settle_premature(core, st, street, out)
            pending = st.burn_for.pop(street, None)
            if pending is None:
                return
            card, irr = pending
            try:
                core._apply(Deal(card), now, out)  # drawn already: the engine takes it as the burn
            except RuleError as err:  # never expected: the card was kept out of the hand
                if irr is not None:
                    _resolve(core, irr, f"the card could not be the burn ({err.message}): burn "
                                        "from the shoe", out)
                return
            for c in st.reshuffle.get(street, ([], []))[0]:
                self._forget(core, c)  # back into the stub: the shoe may deal it again
            if irr is not None:
                _resolve(core, irr, f"the card became the burn before the {_STREET[street]}",
                         out)

    def prompt(self, core: Any) -> tuple[str, dict[str, Any]] | None:
        """Prompt a pending remedy: a replacement card, a reshuffle, a board to re-lay."""
        st = self._state(core)
        hand = core.hand
        if st is None or hand is None or not (st.replacements or st.board_fix or st.reshuffle):
            return None
        step = hand.expected()
        rep = self._due_replacement(core, st)
        if rep is not None:
            return _replacement_prompt(rep)
        if st.board_fix is not None:
            board = [None if c is None else c.code for c in hand.status().board]
            laid = ", ".join(f"slot {i + 1} {c}" for i, c in enumerate(board) if c)
            what = "Missed burn" if st.board_fix[1] == "missed_burn" else "Doubled burn"
            fix = ("take the burn card off the board face down" if st.board_fix[1] ==
                   "missed_burn" else "turn the second burned card up")
            text = (f"{what}: {fix}; lay the board as {laid} (the camera checks it, or "
                    f"confirm); then {describe_step(step)[0].lower()}{describe_step(step)[1:]}")
            return text, {"kind": "fix_board", "remedy": st.board_fix[1], "board": board,
                          "then": step_to_dict(step)}
        if isinstance(step, BoardStep) and step.street in st.reshuffle:
            cards, _ = st.reshuffle[step.street]
            n = len(cards)
            text = (f"Shuffle the {n} premature card{'s' if n != 1 else ''} into the stub, cut, "
                    f"and deal the {_STREET[step.street]} without a burn: "
                    f"{describe_step(step)[0].lower()}{describe_step(step)[1:]}")
            return text, {**step_to_dict(step), "remedy": "reshuffle", "cards": n}
        return None

    # -- per-hand state ----------------------------------------------------------------------

    def _state(self, core: TableCore) -> _HandState | None:
        if core.hand is None:
            return self.state
        if self.state is None or self.state.number != core.hand_number:
            self.state = _HandState(core.hand_number)
        return self.state

    def _close(self, core: TableCore, st: _HandState, out: list[Output]) -> None:
        """Record, once the hand is over, the remedies it never reached."""
        st.closed = True
        waiting = [*st.premature_irr, *(r.irregularity for r in st.replacements)]
        for _cards, irrs in st.reshuffle.values():
            waiting.extend(irrs)
        waiting.extend(irr for _card, irr in st.burn_for.values() if irr is not None)
        if st.board_fix is not None:
            waiting.append(st.board_fix[0])
        for irr in waiting:
            _resolve(core, irr, "the hand ended before the remedy was needed", out)

    # -- commands ----------------------------------------------------------------------------

    def _on_command(self, core: TableCore, cmd: DealerCommand, now: float,
                    out: list[Output]) -> bool:
        name = cmd.name
        st = self._state(core)
        if (name == "confirm" and st is not None and st.board_fix is not None
                and not core.held and core.hand is not None):
            irr, _kind = st.board_fix
            st.board_fix = None
            _resolve(core, irr, "the dealer confirmed the board is laid in order", out)
            out.append(Reply(True, "", {"irregularity": irr}))
            return True
        if name == "misdeal":
            reply = self._check_misdeal(core)
            if reply is None:
                return False
        elif name in ("exposed", "boxed", "misdealt"):
            refused = core._refuse_if_held() if name != "boxed" else None
            if refused is not None:
                reply = refused
            elif core.hand is None or st is None:
                reply = Reply(False, "no hand in progress")
            else:
                try:
                    if name == "exposed":
                        reply = self._cmd_exposed(core, st, cmd.args, out)
                    elif name == "boxed":
                        reply = self._cmd_boxed(core, st, out)
                    else:
                        reply = self._cmd_misdealt(core, st, cmd.args, out)
                except (KeyError, ValueError, TypeError) as exc:
                    reply = Reply(False, f"{name}: bad or missing argument ({exc})")
                except RuleError as err:
                    reply = Reply(False, err.message)
        else:
            return False
        out.append(reply)
        return True

    def _check_misdeal(self, core: TableCore) -> Reply | None:
        hand = core.hand
        if (hand is None or self.house.misdeal_after_substantial_action == "allow"
                or not substantial_action(hand, self.house.substantial_action)):
            return None
        return Reply(False, "substantial action has taken place: no misdeal, the hand goes on "
                            "(the floor can void the hand)")

    def _misdeal_or_not(self, core: TableCore, why: str, data: dict[str, Any],
                        out: list[Output], *, misdeal: bool = True,
                        secret: Mapping[str, Any] | None = None) -> Reply:
        hand = core.hand
        assert hand is not None
        if misdeal and not substantial_action(hand, self.house.substantial_action):
            irr = core._raise(Finding("misdeal", f"Misdeal: {why}", data, secret or {}), out)
            return Reply(True, "", {"irregularity": irr.id, "kind": "misdeal"})
        tail = "substantial action has taken place" if misdeal else "not a misdeal by the rule"
        irr = core._raise(Finding("no_misdeal", f"{why[0].upper()}{why[1:]}; {tail}: the hand "
                                                f"goes on", data, secret or {}), out)
        return Reply(True, "", {"irregularity": irr.id, "kind": "no_misdeal"})

    def _cmd_misdealt(self, core: TableCore, st: _HandState, args: Mapping[str, Any],
                      out: list[Output]) -> Reply:
        what = str(args["what"])
        if what not in MISDEALT:
            return Reply(False, f"misdealt.what: one of {', '.join(MISDEALT)}, got {what!r}")
        hand = core.hand
        assert hand is not None
        seat = args.get("seat")
        data: dict[str, Any] = {"what": what}
        why = MISDEALT[what]
        if seat is not None:
            data["seat"] = int(seat)
            why = f"{why} (seat {int(seat)})"
        misdeal = True
        if what == "wrong_seat" and self.house.wrong_seat_misdeal == "first_card":
            dealt = sum(isinstance(r.step, DealHoleStep) for r in hand.log)
            if dealt > 1:
                misdeal = False
                why = f"{why}, after the first card: move the card to the seat it belongs to"
        return self._misdeal_or_not(core, why, data, out, misdeal=misdeal)

    def _cmd_exposed(self, core: TableCore, st: _HandState, args: Mapping[str, Any],
                     out: list[Output]) -> Reply:
        hand = core.hand
        assert hand is not None
        seat, rnd = int(args["seat"]), int(args["round"])
        pos = deal_position(hand, seat, rnd)  # RuleError if not dealt
        if (seat, rnd) in st.exposed:
            return Reply(False, f"seat {seat}'s card {rnd} is already reported exposed")
        if seat in hand.status().shown:
            return Reply(False, f"seat {seat} already showed its hand")
        st.exposed.append((seat, rnd))
        card = hand.status().hole_cards[seat][rnd - 1]
        data = {"seat": seat, "round": rnd, "position": pos + 1}
        secret = {"card": None if card is None else card.code}
        core._announce("exposed_card", f"Exposed card: seat {seat}'s card {rnd}", out,
                       seat=seat, round=rnd)
        started = bool(actions(hand))
        if not started:
            if self.house.exposed_first_two_misdeal and pos < 2:
                return self._misdeal_or_not(
                    core, f"the {'first' if pos == 0 else 'second'} card of the deal was "
                          f"exposed (seat {seat})", data, out, secret=secret)
            limit = self.house.exposed_cards_misdeal
            if limit and len(st.exposed) >= limit:
                return self._misdeal_or_not(
                    core, f"{len(st.exposed)} hole cards were exposed", data, out,
                    secret=secret)
        if started and self.house.exposed_after_action == "stays":
            irr = core._raise(Finding("exposed_hole_card",
                                      f"Seat {seat}'s card {rnd} was exposed after the action "
                                      "started: it stays in play", data, secret), out)
            _resolve(core, irr.id, "the card stays in play (the action had started)", out)
            return Reply(True, "", {"irregularity": irr.id, "replace": False})
        irr = core._raise(Finding("exposed_hole_card",
                                  f"Seat {seat}'s card {rnd} was exposed: after the deal the "
                                  "next card replaces it and it becomes the burn", data, secret),
                          out)
        st.replacements.append(_Replacement("hole", seat, rnd, card, irr.id, True, True))
        return Reply(True, "", {"irregularity": irr.id, "replace": True})

    def _cmd_boxed(self, core: TableCore, st: _HandState, out: list[Output]) -> Reply:
        hand = core.hand
        assert hand is not None
        where = last_card(hand)
        if where is None:
            return Reply(False, "no card was drawn this hand")
        kind, seat, index = where
        if kind == "board":
            return Reply(False, "the last card is a board card: it is face up anyway")
        if any(r.where == kind and r.seat == seat and r.index == index
               for r in st.replacements):
            return Reply(False, "that card is already reported")
        st.boxed += 1
        old = _card_at(hand, kind, seat, index)
        what = f"seat {seat}'s card {index}" if kind == "hole" else "the burn card"
        data = {"where": kind, "seat": seat, "index": index, "boxed": st.boxed}
        secret = {"card": None if old is None else old.code}
        limit = self.house.boxed_cards_misdeal
        late = substantial_action(hand, self.house.substantial_action)
        if limit and st.boxed >= limit and not late:
            return self._misdeal_or_not(core, f"{st.boxed} boxed cards were found in the deck",
                                        data, out, secret=secret)
        irr = core._raise(Finding("boxed_card", f"A boxed card was dealt as {what}", data,
                                  secret), out)
        st.replacements.append(_Replacement(kind, seat, index, old, irr.id, False, False))
        return Reply(True, "", {"irregularity": irr.id})

    # -- cards -------------------------------------------------------------------------------

    def _due_replacement(self, core: TableCore, st: _HandState) -> _Replacement | None:
        hand = core.hand
        if hand is None or not st.replacements:
            return None
        for rep in st.replacements:
            if not rep.after_deal:
                return rep
        if deal_complete(hand) and isinstance(hand.expected(), ActStep):
            return st.replacements[0]
        return None

    def _identify(self, core: TableCore, inp: CardRead, now: float,
                  out: list[Output]) -> Card | None:
        """Resolve a read as the core does; raise the core's kinds for bad tags."""
        event = core.resolver.resolve(CardDrawn(inp.uid, inp.shoe_ms, now))
        if isinstance(event, RepeatedRead):
            return None
        if isinstance(event, UnknownTag):
            core._raise(Finding("unknown_card", f"Tag {inp.uid} is not in the active deck",
                                {"uid": inp.uid}), out)
            return None
        if isinstance(event, DuplicateCard):
            core._raise(Finding("duplicate_card", "A card already drawn this hand came out "
                                                  "again", {"uid": inp.uid,
                                                            "first_uid": event.first_uid},
                                {"card": event.card.code}), out)
            return None
        assert isinstance(event, CardIdentified)
        return event.card

    def _on_card(self, core: TableCore, st: _HandState, inp: CardRead, now: float,
                 out: list[Output]) -> bool:
        hand = core.hand
        assert hand is not None
        if core.held:
            return False
        rep = self._due_replacement(core, st)
        step = hand.expected()
        premature = (rep is None and isinstance(step, ActStep)
                     and hand.street in NEXT_STREET)
        if rep is None and not premature:
            return False
        card = self._identify(core, inp, now, out)
        if card is None:
            return True
        if rep is not None:
            try:
                replace_card(hand, rep.where, rep.seat, rep.index, card)
            except RuleError as err:
                core._raise(Finding("card_not_due", f"The replacement card does not fit: "
                                                    f"{err.message}",
                                    {"uid": inp.uid}, {"card": card.code}), out)
                return True
            st.replacements.remove(rep)
            if rep.where == "burn" and rep.index < len(core._burns):
                core._burns[rep.index] = card  # the surveillance record of the burns
            what = (f"seat {rep.seat}'s card {rep.index}" if rep.where == "hole"
                    else f"the {rep.where} card")
            if rep.becomes_burn and rep.old is not None:
                st.burn_for.setdefault(Street.FLOP, (rep.old, None))
                note = f"{what} replaced by the next card; the exposed card becomes the burn"
            else:
                note = f"{what} replaced by the next card; the boxed card is set aside"
            core._announce("replacement", f"Replacement dealt for {what}", out,
                           where=rep.where, seat=rep.seat, index=rep.index)
            _resolve(core, rep.irregularity, note, out)
            return True
        due = NEXT_STREET[hand.street]
        if st.premature_street is not due:
            st.premature, st.premature_street, st.premature_irr = [], due, []
        st.premature.append(card)
        n = len(st.premature)
        bet_street = hand.street.value
        if n == 1:
            irr = core._raise(Finding(
                "extra_card", f"A card was drawn while the {bet_street} betting is open: it "
                              f"becomes the burn before the {_STREET[due]}",
                {"street": due.value}, {"card": card.code}), out)
            st.premature_irr.append(irr.id)
        elif (n == 2 and self.house.extra_cards_after_deal == "misdeal"
              and hand.street is Street.PREFLOP and not actions(hand)):
            # RRoP Hold'em 2: two or more extra cards dealt after the deal
            self._misdeal_or_not(core, "two or more extra cards were dealt", {"cards": n}, out,
                                 secret={"cards": [c.code for c in st.premature]})
        elif n == 2:
            irr = core._raise(Finding(
                f"premature_{_STREET[due]}",
                f"The {_STREET[due]} was dealt before the {bet_street} betting was over",
                {"street": due.value}, {"cards": [c.code for c in st.premature]}), out)
            st.premature_irr.append(irr.id)
            # the first card is no longer "an extra card": it is this premature street's burn
            _resolve(core, st.premature_irr[0], f"part of the premature {_STREET[due]}", out)
        elif n > 1 + {Street.FLOP: 3, Street.TURN: 1, Street.RIVER: 1}[due]:
            core._raise(Finding("card_not_due", f"Another card was drawn during the "
                                                f"{bet_street} betting",
                                {"uid": inp.uid}, {"card": card.code}), out)
        return True

    def _settle_premature(self, core: TableCore, st: _HandState, street: Street,
                          out: list[Output]) -> None:
        """Place the premature cards once the betting is over and ``street``'s burn is due."""
        burn, rest = st.premature[0], st.premature[1:]
        irrs = list(st.premature_irr)
        st.premature, st.premature_street, st.premature_irr = [], None, []
        if not rest:
            st.burn_for[street] = (burn, irrs[0] if irrs else None)
            return
        irr = irrs[-1]
        if street is Street.TURN:
            # the premature turn card waits for the river; the turn comes after a new burn
            st.burn_for[Street.RIVER] = (burn, None)
            st.reshuffle[Street.RIVER] = (rest, [irr])
            st.aside.extend(rest)
            return
        st.burn_for[street] = (burn, None)
        st.reshuffle[street] = (rest, [irr])
        st.aside.extend(rest)

    @staticmethod
    def _forget(core: TableCore, card: Card) -> None:
        """Put the card back into the stub: the shoe may deal it again this hand."""
        core.resolver._drawn.pop(card, None)

    # -- the board ---------------------------------------------------------------------------

    def _on_board(self, core: TableCore, st: _HandState, inp: BoardSeen,
                  out: list[Output]) -> bool:
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
        if self._flop_too_many(core, st, seen, out):
            board = list(hand.status().board)
            aside = {c.code for c in st.aside}
            hidden.update(s for s, code in seen.items() if code in aside)
        if st.board_fix is None:
            judged = {s: code for s, code in seen.items() if code not in aside}
            self._detect_burn_error(core, st, board, judged, out)
        if st.board_fix is not None:
            codes = [None if c is None else c.code for c in board]
            right = all(s < len(codes) and codes[s] == code
                        for s, code in seen.items() if code not in aside)
            if right:
                irr, _kind = st.board_fix
                st.board_fix = None
                _resolve(core, irr, "the board was laid in order", out)
            else:
                hidden.update(range(5))
        mark = len(out)
        core._on_board(BoardSeen(inp.slots, tuple(sorted(hidden))), out)
        for o in out[mark:]:
            if isinstance(o, IrregularityRaised) and o.kind == "exposed_card":
                self._camera_exposure(core, st, o, out)
        return True

    def _flop_too_many(self, core: TableCore, st: _HandState, seen: Mapping[int, str],
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
        irr = core._raise(Finding("flop_too_many", "The flop was dealt with four cards",
                                  {"street": "flop", "cards": 4},
                                  {"cards": [c.code for c in cards]}), out)
        for i in old:
            _resolve(core, i, "part of a flop dealt with too many cards", out)
        st.reshuffle[Street.FLOP] = (cards, [irr.id])
        st.aside.extend(cards)
        for c in cards:
            self._forget(core, c)
        core._board_flags.clear()
        return True

    def _camera_exposure(self, core: TableCore, st: _HandState, irr: IrregularityRaised,
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
            self._misdeal_or_not(core, f"the {'first' if pos == 0 else 'second'} card of the "
                                       f"deal was exposed (seat {seat})", data, out,
                                 secret={"card": code})
            return
        limit = self.house.exposed_cards_misdeal
        if limit and len(st.exposed) >= limit:
            self._misdeal_or_not(core, f"{len(st.exposed)} hole cards were exposed", data, out,
                                 secret={"card": code})
            return
        st.replacements.append(_Replacement("hole", seat, rnd, Card.parse(code), irr.id, True,
                                            True))

    def _settle_reshuffle(self, core: TableCore, st: _HandState, board: list[Card | None],
                          out: list[Output]) -> None:
        for street, (cards, irrs) in list(st.reshuffle.items()):
            first = _FIRST_SLOT[street]
            if len(board) > first:
                del st.reshuffle[street]
                for c in cards:
                    if c in st.aside:
                        st.aside.remove(c)
                for irr in irrs:
                    _resolve(core, irr, f"the {_STREET[street]} was dealt without a burn after "
                                        f"{len(cards)} card(s) went back into the stub", out)

    def _detect_burn_error(self, core: TableCore, st: _HandState, board: list[Card | None],
                           seen: Mapping[int, str], out: list[Output]) -> None:
        hand = core.hand
        assert hand is not None
        burns = burn_cards(hand)
        if not burns:
            return
        street = {1: Street.FLOP, 2: Street.TURN, 3: Street.RIVER}.get(len(burns))
        if street is None or actions(hand, street):
            return  # found after action on that street: the core's board checks apply
        burn = burns[-1]
        first = _FIRST_SLOT[street]
        codes = [None if c is None else c.code for c in board]
        kind = ""
        shifted = all(s - 1 < len(codes) and codes[s - 1] == code
                      for s, code in seen.items() if s > first)
        if burn is not None and seen.get(first) == burn.code and shifted:
            # the dealer laid the burn as the street's first card and the rest one slot on
            kind, slot = "missed_burn", first
            text = f"The card burned before the {_STREET[street]} is on the board"
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
                            f"cards were burned before the {_STREET[street]}")
                    secret = {"burn": None if burn is None else burn.code}
                    break
        if not kind:
            return
        irr = core._raise(Finding(kind, text, {"street": street.value, "slot": slot}, secret),
                          out)
        st.board_fix = (irr.id, kind)

    # -- chips -------------------------------------------------------------------------------

    def _on_zone(self, core: TableCore, inp: ZoneSeen, out: list[Output]) -> None:
        hand = core.hand
        chips = core.chips
        if hand is None or chips is None or core.held:
            return
        step = hand.expected()
        if not isinstance(step, AwardStep):
            return
        seat = next((s for s, z in chips.config.seat_zones.items() if z == inp.zone), None)
        paid = {s for a in core._awards for s in a.payouts}  # pots pushed already this hand
        if seat is None or seat in step.payouts or seat in paid:
            return
        value = chips.see(inp.zone, inp.counts)
        if value == 0:
            return
        winners = ", ".join(str(s) for s in sorted(step.payouts))
        core._raise(Finding("pot_wrong_seat",
                            f"Chips ({value:,}) were pushed to seat {seat}; pot {step.pot_index} "
                            f"({step.amount:,}) goes to seat {winners}",
                            {"seat": seat, "zone": inp.zone, "sensed": value, "expected": 0,
                             "pot_index": step.pot_index,
                             "payouts": {str(s): a for s, a in step.payouts.items()}}), out)

    def _on_tick(self, core: TableCore, now: float, out: list[Output]) -> bool:
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
        core._raise(Finding(kind, text, {"zone": pot_zone, "sensed": sensed,
                                         "expected": expected}), out)
        return True

    # -- the shoe ----------------------------------------------------------------------------

    def _on_shoe(self, core: TableCore, st: _HandState | None, inp: ShoeState,
                 out: list[Output]) -> None:
        if st is None or core.hand is None:
            return
        for flag, kind, text in (("door", "shoe_opened", "The shoe was opened during the hand"),
                                 ("empty", "shoe_empty", "The shoe is empty during the hand")):
            on = inp.door_open if flag == "door" else inp.empty
            if on and flag not in st.shoe_flags:
                st.shoe_flags.add(flag)
                core._raise(Finding(kind, text, {"door_open": inp.door_open,
                                                 "empty": inp.empty}), out)
            elif not on:
                st.shoe_flags.discard(flag)


def _card_at(hand: Any, where: str, seat: int | None, index: int) -> Card | None:
    st = hand.status()
    if where == "hole" and seat is not None:
        card: Card | None = st.hole_cards[seat][index - 1]
        return card
    if where == "burn":
        burns: list[Card | None] = burn_cards(hand)
        return burns[index]
    board: Card | None = st.board[index]
    return board


def _replacement_prompt(rep: _Replacement) -> tuple[str, dict[str, Any]]:
    why = "exposed" if rep.becomes_burn else "boxed"
    if rep.where == "hole":
        tail = "it becomes the burn" if rep.becomes_burn else "it is set aside"
        return (f"Deal seat {rep.seat} a replacement for its {why} card {rep.index} ({tail})",
                {"kind": "deal_hole", "seat": rep.seat, "round": rep.index,
                 "replacement": why})
    street = {0: "flop", 1: "turn", 2: "river"}[rep.index]
    return (f"Burn a replacement for the {why} burn card (it is set aside)",
            {"kind": "burn", "street": street, "replacement": why})


def _resolve(core: TableCore, irr_id: int, note: str, out: list[Output]) -> None:
    """Record how an irregularity was settled by its remedy (once)."""
    for irr in core.irregularities:
        if irr.id == irr_id and irr.resolution is None:
            irr.resolution = note
            out.append(Resolved(irr.id, note))
