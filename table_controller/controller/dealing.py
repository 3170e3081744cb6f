"""Dealing irregularities: detection from the sensors, the standard remedy, the record.

:class:`DealingRules` plugs into the controller core through the extension point of
:mod:`.irregularities` (``intercept`` / ``on_card`` / ``decide`` / ``after_input`` / ``prompt``,
on the core's typed :class:`~.irregularities.TableHost` interface). It sees every input before
the core, handles the ones a remedy is waiting for, and tells the core's prompt what the dealer
must do. The rules follow the Poker TDA rules (2019) and Robert's Rules of Poker (v11); where
they differ or leave room, :class:`~.house_rules.HouseRules` holds the house's choice.

Rules this module keeps:

1. Misdeal (``misdeal``, holds): the first or second card of the deal exposed by the dealer, two
   or more hole cards exposed, two or more boxed cards, the deal started at the wrong seat, a seat
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
   the flop is taken back from the engine and dealt again without a burn (house rule
   ``four_card_flop = redeal``, Robert's Rules of Poker, Hold'em 2-3), or, with ``scramble``
   (Poker TDA rules, 4-card flops), the four are scrambled face down: the three the camera shows in
   the flop slots are the flop and the fourth becomes the burn before the turn; a card the
   shoe reads while the four are scrambled is set aside, never applied, and holds the table
   (``card_during_scramble``).
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
   rebuilds it exactly. A command is decided without changing it (:meth:`DealingRules.decide`)
   and applied once.

Dealer commands (the dealer reports what no sensor sees):

- ``exposed`` (``seat``, ``round``): the dealer exposed that hole card.
- ``boxed``: the card just drawn was face up in the deck.
- ``misdealt`` (``what`` = wrong_start | wrong_seat | skipped | dealt_in | wrong_count | button;
  ``seat``). ``wrong_start`` (the deal began at the wrong seat) is a misdeal whenever it is
  noticed before substantial action (TDA 2024 rule 35-A-2; Robert's Rules of Poker v11,
  Misdeals 1(h)); ``wrong_seat`` (a card pitched to the wrong seat) is one when it is the first
  card of the deal, or any card with the house rule ``wrong_seat_misdeal = "any_card"``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from hardware.base import DuplicateCard, UnknownTag
from table_controller.controller.dealing_kinds import (
    MISDEALT,
    STREET_NAME,
    HandState,
    Replacement,
    card_at,
    replacement_prompt,
)
from table_controller.controller.dealing_sensors import SensorRemedies
from table_controller.controller.events import (
    BoardSeen,
    CardRead,
    DealerCommand,
    Output,
    Reply,
    ShoeState,
    Tick,
    ZoneSeen,
)
from table_controller.controller.house_rules import HouseRules
from table_controller.controller.irregularities import (
    Decision,
    Finding,
    IrregularityRules,
    RuleInput,
    TableHost,
    TagEvent,
    refused,
)
from table_controller.controller.steps import step_to_dict
from table_controller.engine import (
    ActStep,
    BoardStep,
    BurnStep,
    Card,
    Deal,
    DealHoleStep,
    Hand,
    Street,
    describe_step,
)
from table_controller.engine.corrections import (
    NEXT_STREET,
    actions,
    deal_complete,
    deal_position,
    last_card,
    replace_card,
    substantial_action,
)
from table_controller.errors import RuleError

__all__ = ["MISDEALT", "DealingRules", "ShoeState"]


class DealingRules(SensorRemedies, IrregularityRules):
    """The dealing irregularities' rules (misdeals, exposed and premature cards, burns, chips).

    :param house: the house's choices (defaults: Poker TDA / Robert's Rules).
    """

    def __init__(self, house: HouseRules | None = None) -> None:
        self.house = house or HouseRules()
        self.state: HandState | None = None

    # -- the hooks ---------------------------------------------------------------------------

    #: The dealer commands the dealing rules add (what no sensor sees).
    commands = frozenset({"exposed", "boxed", "misdealt"})

    def intercept(self, core: TableHost, inp: RuleInput, now: float,
                  out: list[Output]) -> bool:
        """Handle the inputs a rule or a pending remedy is about; leave the others to the core."""
        st = self._state(core)
        if isinstance(inp, ShoeState):
            self.on_shoe(core, st, inp, out)
            return True
        if st is None or core.hand is None:
            return False
        if isinstance(inp, BoardSeen):
            if st.scramble is not None:
                return self.scrambled_flop(core, st, inp, now, out)
            return self.on_board_seen(core, st, inp, out)
        if isinstance(inp, ZoneSeen):
            self.on_zone_seen(core, inp, out)
            return False
        if isinstance(inp, Tick):
            return self.on_tick(core, now, out)
        return False

    def on_card(self, core: TableHost, read: CardRead, event: TagEvent, now: float,
                out: list[Output]) -> bool:
        """Take a card a remedy waits for (a replacement) or drawn during the betting."""
        st = self._state(core)
        if st is None or core.hand is None:
            return False
        return self._on_card(core, st, read, event, out)

    def after_input(self, core: TableHost, now: float, out: list[Output]) -> None:
        """Take the burns a remedy already has (premature or exposed cards) when they are due."""
        st = self._state(core)
        if st is not None and core.hand is None and not st.closed:
            self._close(core, st, out)
        if st is not None and core.hand is not None and st.reshuffle:
            self.settle_reshuffle(core, st, list(core.hand.status().board), out)
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
                core.apply(Deal(card), now, out)  # drawn already: the engine takes it as the burn
            except RuleError as err:  # never expected: the card was kept out of the hand
                if irr is not None:
                    core.resolve_irregularity(
                        irr, f"the card could not be the burn ({err.message}): burn from the "
                             "shoe", out)
                return
            for c in st.reshuffle.get(street, ([], []))[0]:
                core.forget_card(c)  # back into the stub: the shoe may deal it again
            if irr is not None:
                core.resolve_irregularity(
                    irr, f"the card became the burn before the {STREET_NAME[street]}", out)

    def prompt(self, core: TableHost) -> tuple[str, dict[str, Any]] | None:
        """Prompt a pending remedy: a replacement card, a reshuffle, a board to re-lay."""
        st = self._state(core)
        hand = core.hand
        if st is None or hand is None or not (st.replacements or st.board_fix or st.reshuffle
                                              or st.scramble):
            return None
        if st.scramble is not None:
            return ("Four-card flop (Poker TDA rules, 4-card flops): scramble the four cards "
                    "face down; one picked at random is the burn before the turn; turn the other "
                    "three up as the flop", {**step_to_dict(hand.expected()), "remedy": "scramble",
                                    "cards": 4})
        step = hand.expected()
        rep = self._due_replacement(core, st)
        if rep is not None:
            return replacement_prompt(rep)
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
                    f"and deal the {STREET_NAME[step.street]} without a burn: "
                    f"{describe_step(step)[0].lower()}{describe_step(step)[1:]}")
            return text, {**step_to_dict(step), "remedy": "reshuffle", "cards": n}
        return None

    # -- per-hand state ----------------------------------------------------------------------

    def _peek(self, core: TableHost) -> HandState | None:
        """Return the hand's state as :meth:`_state` would give it, without keeping a new one."""
        if core.hand is None:
            return self.state
        if self.state is None or self.state.number != core.hand_number:
            return HandState(core.hand_number)
        return self.state

    def _state(self, core: TableHost) -> HandState | None:
        if core.hand is None:
            return self.state
        if self.state is None or self.state.number != core.hand_number:
            self.state = HandState(core.hand_number)
        return self.state

    def _close(self, core: TableHost, st: HandState, out: list[Output]) -> None:
        """Record, once the hand is over, the remedies it never reached."""
        st.closed = True
        waiting = [*st.premature_irr, *(r.irregularity for r in st.replacements)]
        for _cards, irrs in st.reshuffle.values():
            waiting.extend(irrs)
        waiting.extend(irr for _card, irr in st.burn_for.values() if irr is not None)
        if st.board_fix is not None:
            waiting.append(st.board_fix[0])
        if st.scramble is not None:
            waiting.append(st.scramble[1])
        for irr in waiting:
            core.resolve_irregularity(irr, "the hand ended before the remedy was needed", out)

    # -- commands ----------------------------------------------------------------------------

    def decide(self, core: TableHost, cmd: DealerCommand, now: float) -> Decision | None:
        """Decide the rules' commands (and ``confirm`` of a board fix, a refused ``misdeal``)."""
        name = cmd.name
        st = self._peek(core)
        if (name == "confirm" and st is not None and st.board_fix is not None
                and not core.held and core.hand is not None):
            irr = st.board_fix[0]

            def confirmed(now: float, out: list[Output]) -> None:
                kept = self._state(core)
                assert kept is not None
                kept.board_fix = None
                core.resolve_irregularity(irr, "the dealer confirmed the board is laid in order",
                                          out)
            return Decision(Reply(True, "", {"irregularity": irr}), confirmed)
        if name == "misdeal":
            return self._check_misdeal(core)
        if name not in self.commands:
            return None
        held = core.refuse_if_held() if name != "boxed" else None
        if held is not None:
            return held
        hand = core.hand
        if hand is None or st is None:
            return refused("no hand in progress")
        try:
            if name == "exposed":
                return self._cmd_exposed(core, hand, st, cmd.args)
            if name == "boxed":
                return self._cmd_boxed(core, hand, st)
            return self._cmd_misdealt(core, hand, cmd.args)
        except (KeyError, ValueError, TypeError) as exc:
            return refused(f"{name}: bad or missing argument ({exc})")

    def _check_misdeal(self, core: TableHost) -> Decision | None:
        hand = core.hand
        if (hand is None or self.house.misdeal_after_substantial_action == "allow"
                or not substantial_action(hand, self.house.substantial_action)):
            return None
        return refused("substantial action has taken place: no misdeal, the hand goes on "
                       "(the floor can void the hand)")

    def _misdeal_finding(self, hand: Hand, why: str, data: dict[str, Any], *,
                         misdeal: bool = True,
                         secret: Mapping[str, Any] | None = None) -> Finding:
        if misdeal and not substantial_action(hand, self.house.substantial_action):
            return Finding("misdeal", f"Misdeal: {why}", data, secret or {})
        tail = "substantial action has taken place" if misdeal else "not a misdeal by the rule"
        return Finding("no_misdeal", f"{why[0].upper()}{why[1:]}; {tail}: the hand goes on",
                       data, secret or {})

    def misdeal_or_not(self, core: TableHost, why: str, data: dict[str, Any],
                       out: list[Output], *, misdeal: bool = True,
                       secret: Mapping[str, Any] | None = None) -> int:
        """Raise a misdeal (or, after substantial action, a no-misdeal); return its id."""
        assert core.hand is not None
        return core.raise_irregularity(self._misdeal_finding(core.hand, why, data,
                                                             misdeal=misdeal, secret=secret), out)

    @staticmethod
    def _raising(core: TableHost, finding: Finding, result: Mapping[str, Any],
                 then: Callable[[int, list[Output]], None] | None = None,
                 before: Callable[[list[Output]], None] | None = None) -> Decision:
        """Accept a command that raises ``finding`` (its id is the next one)."""
        def effect(now: float, out: list[Output]) -> None:
            if before is not None:
                before(out)
            irr = core.raise_irregularity(finding, out)
            if then is not None:
                then(irr, out)
        return Decision(Reply(True, "", {"irregularity": core.next_irregularity_id, **result}),
                        effect)

    def _cmd_misdealt(self, core: TableHost, hand: Hand, args: Mapping[str, Any]) -> Decision:
        what = str(args["what"])
        if what not in MISDEALT:
            return refused(f"misdealt.what: one of {', '.join(MISDEALT)}, got {what!r}")
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
                why = (f"{why}, after the first card: move the card to the seat it belongs to "
                       "(house rule wrong_seat_misdeal = first_card)")
        finding = self._misdeal_finding(hand, why, data, misdeal=misdeal)
        return self._raising(core, finding, {"kind": finding.kind})

    def _cmd_exposed(self, core: TableHost, hand: Hand, st: HandState,
                     args: Mapping[str, Any]) -> Decision:
        seat, rnd = int(args["seat"]), int(args["round"])
        pos = deal_position(hand, seat, rnd)  # RuleError if not dealt
        if (seat, rnd) in st.exposed:
            return refused(f"seat {seat}'s card {rnd} is already reported exposed")
        if seat in hand.status().shown:
            return refused(f"seat {seat} already showed its hand")
        exposed = len(st.exposed) + 1
        card = hand.status().hole_cards[seat][rnd - 1]
        data = {"seat": seat, "round": rnd, "position": pos + 1}
        secret = {"card": None if card is None else card.code}
        started = bool(actions(hand))
        finding: Finding | None = None
        if not started:
            limit = self.house.exposed_cards_misdeal
            if self.house.exposed_first_two_misdeal and pos < 2:
                finding = self._misdeal_finding(
                    hand, f"the {'first' if pos == 0 else 'second'} card of the deal was "
                          f"exposed (seat {seat})", data, secret=secret)
            elif limit and exposed >= limit:
                finding = self._misdeal_finding(hand, f"{exposed} hole cards were exposed", data,
                                                secret=secret)
        result: dict[str, Any]
        if finding is not None:
            result, stays = {"kind": finding.kind}, None
        else:
            stays = started and self.house.exposed_after_action == "stays"
            result = {"replace": not stays}
            finding = Finding(
                "exposed_hole_card",
                f"Seat {seat}'s card {rnd} was exposed after the action started: it stays in "
                "play" if stays else f"Seat {seat}'s card {rnd} was exposed: after the deal the "
                "next card replaces it and it becomes the burn", data, secret)

        def then(irr: int, out: list[Output]) -> None:
            if stays:
                core.resolve_irregularity(irr, "the card stays in play (the action had started)",
                                          out)
            elif stays is not None:
                state = self._state(core)
                assert state is not None
                state.replacements.append(Replacement("hole", seat, rnd, card, irr, True, True))

        def before(out: list[Output]) -> None:
            state = self._state(core)
            assert state is not None
            state.exposed.append((seat, rnd))
            core.announce("exposed_card", f"Exposed card: seat {seat}'s card {rnd}", out,
                          seat=seat, round=rnd)
        return self._raising(core, finding, result, then, before)

    def _cmd_boxed(self, core: TableHost, hand: Hand, st: HandState) -> Decision:
        where = last_card(hand)
        if where is None:
            return refused("no card was drawn this hand")
        kind, seat, index = where
        if kind == "board":
            return refused("the last card is a board card: it is face up anyway")
        if any(r.where == kind and r.seat == seat and r.index == index
               for r in st.replacements):
            return refused("that card is already reported")
        boxed = st.boxed + 1
        old = card_at(hand, kind, seat, index)
        what = f"seat {seat}'s card {index}" if kind == "hole" else "the burn card"
        data = {"where": kind, "seat": seat, "index": index, "boxed": boxed}
        secret = {"card": None if old is None else old.code}
        limit = self.house.boxed_cards_misdeal
        late = substantial_action(hand, self.house.substantial_action)
        misdeal = bool(limit and boxed >= limit and not late)
        finding = (self._misdeal_finding(hand, f"{boxed} boxed cards were found in the deck",
                                         data, secret=secret) if misdeal
                   else Finding("boxed_card", f"A boxed card was dealt as {what}", data, secret))

        def then(irr: int, out: list[Output]) -> None:
            state = self._state(core)
            assert state is not None
            state.boxed += 1
            if not misdeal:
                state.replacements.append(Replacement(kind, seat, index, old, irr, False, False))
        return self._raising(core, finding, {"kind": finding.kind} if misdeal else {}, then)

    # -- cards -------------------------------------------------------------------------------

    def _due_replacement(self, core: TableHost, st: HandState) -> Replacement | None:
        hand = core.hand
        if hand is None or not st.replacements:
            return None
        for rep in st.replacements:
            if not rep.after_deal:
                return rep
        if deal_complete(hand) and isinstance(hand.expected(), ActStep):
            return st.replacements[0]
        return None

    @staticmethod
    def _identify(core: TableHost, inp: CardRead, event: TagEvent,
                  out: list[Output]) -> Card | None:
        """Return the card of a resolved read; raise the core's kinds for bad tags."""
        if isinstance(event, UnknownTag):
            core.raise_irregularity(Finding("unknown_card",
                                            f"Tag {inp.uid} is not in the active deck",
                                            {"uid": inp.uid}), out)
            return None
        if isinstance(event, DuplicateCard):
            core.raise_irregularity(Finding("duplicate_card", "A card already drawn this hand "
                                                              "came out again",
                                            {"uid": inp.uid, "first_uid": event.first_uid},
                                            {"card": event.card.code}), out)
            return None
        return event.card

    def _card_during_scramble(self, core: TableHost, st: HandState, inp: CardRead,
                              event: TagEvent, out: list[Output]) -> bool:
        """Hold a card the shoe reads while a four-card flop is scrambled (TDA, 4-card flops).

        The flop comes from the four scrambled cards: a card drawn meanwhile is never applied.
        It is set aside (never judged on the board) and the table holds for the floor.
        """
        card = self._identify(core, inp, event, out)
        if card is None:
            return True
        st.aside.append(card)
        core.raise_irregularity(Finding(
            "card_during_scramble", "A card was drawn from the shoe while the four-card flop "
                                    "is scrambled: it is set aside, not dealt",
            {"street": "flop", "uid": inp.uid}, {"card": card.code}), out)
        return True

    def _on_card(self, core: TableHost, st: HandState, inp: CardRead, event: TagEvent,
                 out: list[Output]) -> bool:
        hand = core.hand
        assert hand is not None
        if core.held:
            return False
        if st.scramble is not None:
            return self._card_during_scramble(core, st, inp, event, out)
        rep = self._due_replacement(core, st)
        step = hand.expected()
        premature = (rep is None and isinstance(step, ActStep)
                     and hand.street in NEXT_STREET)
        if rep is None and not premature:
            return False
        card = self._identify(core, inp, event, out)
        if card is None:
            return True
        if rep is not None:
            try:
                replace_card(hand, rep.where, rep.seat, rep.index, card)
            except RuleError as err:
                core.raise_irregularity(
                    Finding("card_not_due", f"The replacement card does not fit: "
                                                    f"{err.message}",
                                    {"uid": inp.uid}, {"card": card.code}), out)
                return True
            st.replacements.remove(rep)
            if rep.where == "burn":
                core.set_burn(rep.index, card)  # the surveillance record of the burns
            what = (f"seat {rep.seat}'s card {rep.index}" if rep.where == "hole"
                    else f"the {rep.where} card")
            if rep.becomes_burn and rep.old is not None:
                st.burn_for.setdefault(Street.FLOP, (rep.old, None))
                note = f"{what} replaced by the next card; the exposed card becomes the burn"
            else:
                note = f"{what} replaced by the next card; the boxed card is set aside"
            core.announce("replacement", f"Replacement dealt for {what}", out,
                           where=rep.where, seat=rep.seat, index=rep.index)
            core.resolve_irregularity(rep.irregularity, note, out)
            return True
        due = NEXT_STREET[hand.street]
        if st.premature_street is not due:
            st.premature, st.premature_street, st.premature_irr = [], due, []
        st.premature.append(card)
        n = len(st.premature)
        bet_street = hand.street.value
        if n == 1:
            irr = core.raise_irregularity(Finding(
                "extra_card", f"A card was drawn while the {bet_street} betting is open: it "
                              f"becomes the burn before the {STREET_NAME[due]}",
                {"street": due.value}, {"card": card.code}), out)
            st.premature_irr.append(irr)
        elif (n == 2 and self.house.extra_cards_after_deal == "misdeal"
              and hand.street is Street.PREFLOP and not actions(hand)):
            # RRoP Hold'em 2: two or more extra cards dealt after the deal
            self.misdeal_or_not(core, "two or more extra cards were dealt", {"cards": n}, out,
                                 secret={"cards": [c.code for c in st.premature]})
        elif n == 2:
            irr = core.raise_irregularity(Finding(
                f"premature_{STREET_NAME[due]}",
                f"The {STREET_NAME[due]} was dealt before the {bet_street} betting was over",
                {"street": due.value}, {"cards": [c.code for c in st.premature]}), out)
            st.premature_irr.append(irr)
            # the first card is no longer "an extra card": it is this premature street's burn
            core.resolve_irregularity(st.premature_irr[0],
                                      f"part of the premature {STREET_NAME[due]}", out)
        elif n > 1 + {Street.FLOP: 3, Street.TURN: 1, Street.RIVER: 1}[due]:
            core.raise_irregularity(Finding("card_not_due", f"Another card was drawn during the "
                                                f"{bet_street} betting",
                                {"uid": inp.uid}, {"card": card.code}), out)
        return True

    def _settle_premature(self, core: TableHost, st: HandState, street: Street,
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


