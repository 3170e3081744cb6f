"""The controller core: reconciles device reads and dealer commands with the engine (sans-IO).

``TableCore.handle(input, now) -> list[Output]`` is the whole interface; ``decide(command, now)``
answers what a command would get, without changing anything. No I/O and no clock: the daemon
passes resolved device events and dealer commands in, with the monotonic time they happened,
and journals, publishes and acts on the outputs. Replaying the journaled inputs with the same
``now`` values rebuilds the exact state (the daemon's recovery).

Rules this module keeps:

1. The engine says what comes next (``hand.expected()``). A card from the shoe goes to that step
   (hole card, burn, board card) or it is an irregularity and is *not* applied: a tag outside the
   active deck, a card already seen, a card when none is due (see :mod:`.irregularities`). A
   read's tag is resolved once, here, and the rules get the resolved event.
2. The camera's stable board must show each board card in its slot, in order, and the same card
   the shoe read for that slot (:mod:`.board`); each finding is reported once per slot and card.
3. The chip sensors must agree with the layout the hand implies (:mod:`.chips`); a difference
   that outlasts the settle window is a ``chip_difference``. Posts, the collection and each pot's
   push complete by themselves when the sensors show them done (or by ``confirm``); bets, calls
   and raises are dealer commands whose chips the sensors then check.
4. Unsafe irregularities hold the table through :meth:`TableCore.enter_hold`, the one path.
   While held, dealer actions, ``start`` and ``confirm`` are refused; ``resolve`` records how
   each irregularity was settled, ``resume`` lifts the hold once every unsafe one is resolved,
   ``void`` / ``misdeal`` end the hand and resolve everything open.
5. Every command is decided first, changing nothing (:mod:`.dealer_commands`), then applied
   once if accepted; every command yields exactly one :class:`Reply`.
6. The live state does not grow with the table's life: resolved irregularities beyond a window
   live only in the journal (:class:`~.irregularities.IrregularityLog`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from calibration.chip_registry import ChipRegistry
from calibration.chips import ChipConfig
from hardware.base import CardDrawn, CardIdentified, DuplicateCard, UnknownTag
from hardware.shoe.resolver import TagResolver
from table_controller.controller.chips import ChipCheck
from table_controller.controller.dealer_commands import decide_command
from table_controller.controller.device_inputs import DeviceInputs
from table_controller.controller.events import (
    Announcement,
    BoardSeen,
    CardRead,
    ControllerInput,
    DealerCommand,
    DeviceDown,
    DeviceUp,
    HandEnded,
    HandStarted,
    HoldEntered,
    HoldLifted,
    IrregularityRaised,
    Output,
    Prompt,
    ReadsLost,
    Resolved,
    Restarted,
    ShoeState,
    Tick,
    TraySeen,
    ZoneSeen,
    ZoneTags,
)
from table_controller.controller.irregularities import (
    KINDS,
    Decision,
    Finding,
    Irregularity,
    IrregularityLog,
    IrregularityRules,
    refused,
)
from table_controller.controller.records import applied_output
from table_controller.controller.snapshot import table_summary, table_view
from table_controller.controller.steps import step_to_dict
from table_controller.engine import LIVE_POSTS as ENGINE_LIVE_POSTS
from table_controller.engine import (
    ActionKind,
    ActStep,
    AwardStep,
    BoardStep,
    BurnStep,
    Card,
    CardError,
    CollectStep,
    Deal,
    Hand,
    HandOverStep,
    HandStatus,
    Input,
    PostStep,
    Record,
    ShowStep,
    Street,
    Table,
    TableConfig,
    describe_step,
)
from table_controller.engine.answers import default_input
from table_controller.engine.describe import payouts_text
from table_controller.errors import RuleError

__all__ = ["CRITICAL_DEVICES", "LIVE_POSTS", "Irregularity", "TableCore"]

#: Posts that stay in front of the seat (its bet); the others go straight to the pot zone.
LIVE_POSTS = ENGINE_LIVE_POSTS  # the straddle too: checked in the seat's zone like a blind
#: Devices whose loss during a hand holds the table.
CRITICAL_DEVICES = frozenset({"shoe", "chips"})


class TableCore(DeviceInputs):
    """The table's controller state machine (sans-IO); implements :class:`~.TableHost`.

    :param config: stakes and seats of the table (engine :class:`TableConfig`).
    :param deck: the active deck profile: tag UID -> card.
    :param chips: chip-sensor calibration; ``None`` = no chip sensors (posts, collections and
        pushes then need ``confirm``).
    :param settle: seconds a chip difference may last before it is an irregularity.
    :param rules: irregularity hooks (extension point, see :mod:`.irregularities`); default the
        dealing rules (:mod:`.dealing`).
    :param devices: device names tracked for health.
    :param camera_window: seconds the camera may take to show a board card the shoe dealt
        before it is a ``board_missing`` irregularity; ``None`` = no camera to check with.
    :param chip_registry: tag UID -> chip, for RFID chip readers (:class:`ZoneTags` inputs);
        ``None`` = the chip sensors report counts themselves.
    """

    def __init__(
        self,
        config: TableConfig,
        deck: Mapping[str, Card],
        chips: ChipConfig | None = None,
        *,
        settle: float = 1.5,
        rules: IrregularityRules | None = None,
        devices: Sequence[str] = ("shoe", "chips", "camera"),
        camera_window: float | None = None,
        chip_registry: ChipRegistry | None = None,
    ) -> None:
        self.table = Table(config)
        self.resolver = TagResolver(deck)
        self._chips = ChipCheck(chips, settle) if chips is not None else None
        self.camera_window = camera_window
        self._dealt_at: dict[int, float] = {}
        self._missing: set[int] = set()
        if rules is None:
            from table_controller.controller.dealing import DealingRules
            rules = DealingRules()
        self.rules: IrregularityRules = rules
        self._hand: Hand | None = None
        self._hand_number = 0
        self.devices: dict[str, str] = dict.fromkeys(devices, "ok")
        self.critical_devices = CRITICAL_DEVICES
        self.log = IrregularityLog()
        self.holds: list[tuple[str, int | None]] = []
        self.prompt: Prompt | None = None
        self.last_announcement: Announcement | None = None
        self.board_seen: BoardSeen | None = None
        self.tray: tuple[tuple[int, int], ...] = ()
        self._prompts = 0
        self._board_flags: set[tuple[int, str, str]] = set()
        self._announced: set[str] = set()
        self._burns: list[Card | None] = []
        self._awards: list[AwardStep] = []
        self.chip_registry = chip_registry
        self.chip_settle = settle
        self._zone_tags: dict[int, tuple[str, ...]] = {}
        self._unknown_chips: set[tuple[int, str]] = set()
        self._two_zones: dict[str, tuple[tuple[int, ...], float]] = {}
        self._two_zones_raised: set[str] = set()
        self._update_prompt([])

    # -- the one entry point -----------------------------------------------------------------

    def handle(self, inp: ControllerInput, now: float) -> list[Output]:
        """Take one input that happened at monotonic time ``now``; return what follows from it."""
        out: list[Output] = []
        if isinstance(inp, DealerCommand):
            self._run_command(inp, now, out)
        elif isinstance(inp, CardRead):
            event = self.resolver.resolve(CardDrawn(inp.uid, inp.shoe_ms, now))
            if isinstance(event, CardIdentified | UnknownTag | DuplicateCard) and not \
                    self.rules.on_card(self, inp, event, now, out):
                self._on_card(inp, event, now, out)
        elif isinstance(inp, BoardSeen | ZoneSeen | Tick | ShoeState) and \
                self.rules.intercept(self, inp, now, out):
            pass
        elif isinstance(inp, Tick):
            self._on_tick(now, out)
        elif isinstance(inp, ZoneSeen):
            self._on_zone(inp, now, out)
        elif isinstance(inp, ZoneTags):
            self._on_zone_tags(inp, now, out)
        elif isinstance(inp, TraySeen):
            self.tray = inp.counts
        elif isinstance(inp, BoardSeen):
            self.check_board(inp, out)
        elif isinstance(inp, DeviceDown):
            self._on_device_down(inp, out)
        elif isinstance(inp, DeviceUp):
            self._on_device_up(inp, out)
        elif isinstance(inp, ReadsLost):
            self._on_reads_lost(inp, out)
        elif isinstance(inp, Restarted):
            self._on_restarted(now, out)
        self.rules.after_input(self, now, out)
        self._update_prompt(out)
        return out

    def decide(self, cmd: DealerCommand, now: float) -> Decision:
        """Decide ``cmd`` at ``now`` without changing anything (its reply and its effect)."""
        try:
            decision = self.rules.decide(self, cmd, now)
            return decision if decision is not None else decide_command(self, cmd, now)
        except RuleError as err:
            return refused(err.message)
        except CardError as err:  # a card that does not parse
            return refused(str(err))

    def preview(self, inp: DealerCommand, now: float) -> list[Output]:
        """Return the :class:`Reply` :meth:`handle` would give ``inp``, changing nothing."""
        return [self.decide(inp, now).reply]

    def _run_command(self, cmd: DealerCommand, now: float, out: list[Output]) -> None:
        decision = self.decide(cmd, now)
        reply = decision.reply
        if decision.effect is not None and reply.accepted:
            try:
                decision.effect(now, out)
            except RuleError as err:  # pragma: no cover - the decision said it fits: a bug
                reply = refused(err.message).reply
        out.append(reply)

    # -- queries (and the TableHost interface) -----------------------------------------------

    @property
    def hand(self) -> Hand | None:
        """The hand in progress."""
        return self._hand

    @property
    def hand_number(self) -> int:
        """The number of the hand in progress (or of the last one)."""
        return self._hand_number

    @property
    def chips(self) -> ChipCheck | None:
        """The chip check (``None`` without chip sensors)."""
        return self._chips

    @property
    def awards(self) -> Sequence[AwardStep]:
        """The pots pushed so far this hand."""
        return tuple(self._awards)

    @property
    def held(self) -> bool:
        """Tell whether the table is held."""
        return bool(self.holds)

    @property
    def irregularities(self) -> list[Irregularity]:
        """The live irregularities: the open ones and the most recently resolved, by id."""
        return list(self.log)

    @property
    def next_irregularity_id(self) -> int:
        """The id the next raised irregularity gets."""
        return self.log.next_id

    def open_irregularities(self) -> list[Irregularity]:
        """Irregularities not yet resolved, oldest first."""
        return self.log.open()

    def next_deadline(self) -> float | None:
        """When a :class:`Tick` could next change something (``None`` = nothing pending)."""
        if self._hand is None or self.held:
            return None
        times = [t for t in (self._chips.next_deadline() if self._chips else None,
                             self._board_deadline(), self._tags_deadline()) if t is not None]
        return min(times) if times else None

    def camera_deadline(self) -> float | None:
        """When the camera window of the earliest board card not seen yet ends (``None``: none).

        The time a :class:`Tick` would raise ``board_missing``; the daemon may hold its ticks
        back until the camera had that long to look (a camera slowed down by the machine).
        """
        if self._hand is None or self.held:
            return None
        return self._board_deadline()

    def _unseen_slots(self) -> list[int]:
        """Return the board slots dealt that the camera does not show (none at the awards)."""
        # the board is swept while the pots are pushed: the camera may see it empty before the
        # chip sensors show the pushes done (two paths to the daemon, either order when busy)
        hand = self._hand
        if hand is not None and isinstance(hand.expected(), AwardStep):
            return []
        seen = self.board_seen
        out = []
        for slot in sorted(self._dealt_at):
            if slot in self._missing:
                continue
            if seen is not None and (seen.slots[slot] is not None or slot in seen.occluded):
                continue
            out.append(slot)
        return out

    def _board_deadline(self) -> float | None:
        if self.camera_window is None:
            return None
        slots = self._unseen_slots()
        if not slots:
            return None
        return min(self._dealt_at[s] for s in slots) + self.camera_window

    def secret_cards(self) -> set[str]:
        """Codes of the cards no public or dealer message may name: unshown hole cards, burns."""
        out: set[str] = {c.code for c in self._burns if c is not None}
        hand = self._hand
        if hand is None:
            return out
        out.update(c.code for c in hand.hidden_hole_cards())
        return out

    @property
    def burns(self) -> Sequence[Card | None]:
        """The burn cards of the hand (surveillance only)."""
        return tuple(self._burns)

    def view(self, *, secret: bool = False) -> dict[str, Any]:
        """Return the whole table state (the feeds' snapshot); hole cards under ``hole_cards``.

        :param secret: add surveillance-only details (burn cards, details of the live
            irregularities).
        """
        return table_view(self, secret=secret)

    def summary(self) -> dict[str, Any]:
        """Return the ``status`` command's result."""
        return table_summary(self)

    # -- holds, irregularities, announcements ------------------------------------------------

    def enter_hold(self, reason: str, irregularity: int | None, out: list[Output]) -> None:
        """Hold the table (the one fail-safe path): dealing and actions stop until resumed."""
        self.holds.append((reason, irregularity))
        out.append(HoldEntered(reason, irregularity))

    def raise_irregularity(self, finding: Finding, out: list[Output]) -> int:
        """Raise an irregularity: number, record, report it (and hold if its kind holds)."""
        kind = KINDS[finding.kind]
        irr = self.log.add(finding, kind, self._hand_number if self._hand is not None else None)
        out.append(IrregularityRaised(irr.id, irr.kind, irr.text, irr.remedy, irr.hold,
                                      irr.data, irr.secret))
        if kind.hold:
            self.enter_hold(f"{finding.text} (irregularity {irr.id})", irr.id, out)
        return irr.id

    def resolve_irregularity(self, irr_id: int, note: str, out: list[Output]) -> None:
        """Record how an open irregularity was settled (nothing if it is not open)."""
        if self.log.resolve(irr_id, note):
            out.append(Resolved(irr_id, note))

    def announce(self, kind: str, text: str, out: list[Output], **data: Any) -> None:
        """Say something aloud (an :class:`Announcement`)."""
        a = Announcement(kind, text, data)
        self.last_announcement = a
        out.append(a)

    def refuse_if_held(self) -> Decision | None:
        """Return a refusal naming the holds if the table is held."""
        if self.holds:
            return refused(f"the table is held: {'; '.join(r for r, _ in self.holds)}")
        return None

    def forget_board_flags(self) -> None:
        """Forget the board irregularities reported this hand (a board dealt again)."""
        self._board_flags.clear()

    def forget_card(self, card: Card) -> None:
        """Put a card back into the stub: the shoe may deal it again this hand."""
        self.resolver.forget(card)

    def set_burn(self, index: int, card: Card) -> None:
        """Correct the surveillance record of burn ``index`` (a replacement burn)."""
        if index < len(self._burns):
            self._burns[index] = card

    # -- hands -------------------------------------------------------------------------------

    def start_hand(self, now: float, out: list[Output]) -> None:
        """Start the next hand (decided by the ``start`` command)."""
        hand = self.table.start_hand()
        self._hand = hand
        self._hand_number += 1
        self.resolver.new_shuffle()
        self._board_flags.clear()
        self._announced.clear()
        self._burns = []
        self._awards = []
        self._dealt_at.clear()
        self._missing.clear()
        out.append(HandStarted(self._hand_number, hand.config.to_dict()))
        self.announce("hand_start", f"Hand {self._hand_number}: button at seat {hand.button}",
                      out, hand=self._hand_number, button=hand.button, seats=list(hand.seats))
        self.after_change(now, out)

    def void_hand(self, word: str, reason: str, out: list[Output]) -> dict[int, int]:
        """Void the hand in progress (``misdeal`` / ``void``); every seat gets its chips back."""
        hand = self._hand
        assert hand is not None
        refunds = hand.void()
        self.table.finish_hand(hand)
        self._hand = None
        if self._chips is not None:
            self._chips.clear()
        note = f"hand {self._hand_number} voided ({word}: {reason})"
        for irr in self.open_irregularities():
            self.resolve_irregularity(irr.id, note, out)
        if self.holds:
            self.holds.clear()
            out.append(HoldLifted(note))
        out.append(HandEnded(self._hand_number, True, dict(hand.final_stacks), hand))
        self.announce(word, f"{word.capitalize()}: {reason}. Every player gets back what it put "
                            f"in; the button stays at seat {hand.button}", out,
                      refunds={str(s): v for s, v in refunds.items()})
        return refunds

    # -- prompts -----------------------------------------------------------------------------

    def _prompt_content(self) -> tuple[str, dict[str, Any]]:
        if self.holds:
            open_ids = [i.id for i in self.open_irregularities() if i.hold]
            reason = "; ".join(r for r, _ in self.holds)
            first = self.log.first_open(hold=True)
            remedy = first.remedy if first is not None else "Resume when ready."
            return (f"Table held: {reason}. {remedy}",
                    {"kind": "hold", "reason": reason, "irregularities": open_ids})
        if self._hand is None:
            button = self.table.next_button()
            if button is None:
                return "Seat at least two players with chips", {"kind": "seat_players"}
            return (f"Start the next hand (button at seat {button})",
                    {"kind": "start_hand", "button": button})
        custom = self.rules.prompt(self)
        if custom is not None:
            return custom
        step = self._hand.expected()
        text = describe_step(step)
        if isinstance(step, BurnStep):
            text = f"Tap the table, then {text[0].lower()}{text[1:]}"
        return text, step_to_dict(step)

    def _update_prompt(self, out: list[Output]) -> None:
        text, step = self._prompt_content()
        cur = self.prompt
        if cur is not None and cur.text == text and cur.step == step:
            return
        self._prompts += 1
        self.prompt = Prompt(self._prompts, text, step)
        out.append(self.prompt)

    # -- engine ------------------------------------------------------------------------------

    def apply(self, inp: Input, now: float, out: list[Output]) -> Record:
        """Apply one engine input (raises :class:`RuleError`, changing nothing, if illegal)."""
        hand = self._hand
        assert hand is not None
        record = hand.apply(inp)
        out.append(applied_output(hand, record))
        self._after_record(hand, record, out)
        if isinstance(record.step, BoardStep):
            self._dealt_at[record.step.slot] = now
            if self.board_seen is not None:  # a stale card already in that slot, for one
                self.check_board(self.board_seen, out)
        self.after_change(now, out)
        return record

    def _after_record(self, hand: Hand, rec: Record, out: list[Output]) -> None:
        step = rec.step
        if isinstance(step, BurnStep) and isinstance(rec.input, Deal):
            self._burns.append(rec.input.card)
        if isinstance(step, AwardStep):
            self._awards.append(step)
        if isinstance(step, ActStep) and rec.kind is not None:
            if (rec.kind is ActionKind.RAISE and step.seat == hand.bb_seat
                    and rec.street is Street.PREFLOP and step.legal.can_check):
                self.announce("bb_raises_option",
                              f"The big blind, seat {step.seat}, raises its option to "
                              f"{rec.to:,}", out, seat=step.seat, to=rec.to)
            if rec.kind in (ActionKind.BET, ActionKind.RAISE):
                verb = "bets" if rec.kind is ActionKind.BET else "raises to"
                self.announce("raise", f"Seat {step.seat} {verb} {rec.to:,}", out,
                              seat=step.seat, to=rec.to, bet=rec.kind is ActionKind.BET)
            if rec.all_in:
                self.announce("all_in", f"Seat {step.seat} is all-in", out, seat=step.seat,
                              amount=rec.amount, to=rec.to)
        nxt = hand.expected()
        if (isinstance(nxt, ActStep) and nxt.seat == hand.bb_seat
                and hand.street is Street.PREFLOP and nxt.legal.can_check
                and "bb_option" not in self._announced):
            self._announced.add("bb_option")
            self.announce("bb_option", f"Option to the big blind, seat {nxt.seat}", out,
                          seat=nxt.seat)
        if isinstance(nxt, ShowStep) and "showdown" not in self._announced:
            self._announced.add("showdown")
            self.announce("showdown", f"Showdown: seat {nxt.seat} shows first", out,
                          seat=nxt.seat)

    def after_change(self, now: float, out: list[Output]) -> None:
        """Finish the hand if it is over, else take the steps the chip sensors show done."""
        hand = self._hand
        if hand is None:
            return
        if isinstance(hand.expected(), HandOverStep):
            self._finish(now, out)
            return
        self.settle_chips(now, out)

    def settle_chips(self, now: float, out: list[Output]) -> None:
        """Take the steps the chip sensors show done, then check the chips against the hand.

        The hand's status is built once for both when no step is taken (a card, an action:
        the common case), as it is the costliest part of an input.
        """
        chips = self._chips
        if chips is None:
            return
        st = self._auto_advance(now, out)
        hand = self._hand
        if hand is not None:
            chips.refresh(chips.layout(st if st is not None else hand), now)

    def _finish(self, now: float, out: list[Output]) -> None:
        hand = self._hand
        assert hand is not None
        self.table.finish_hand(hand)
        self._hand = None
        if self._chips is not None:
            self._chips.clear()
        out.append(HandEnded(self._hand_number, False, dict(hand.final_stacks), hand))
        if self._awards:
            self.announce("payouts", payouts_text(self._awards), out,
                          pots=[{"pot_index": a.pot_index, "amount": a.amount,
                                 "payouts": {str(s): v for s, v in a.payouts.items()},
                                 "odd_chip_seats": list(a.odd_chip_seats), "rake": a.rake}
                                for a in sorted(self._awards, key=lambda a: a.pot_index)])
        button = self.table.next_button()
        if button is not None:
            self.announce("button", f"Move the button to seat {button}", out, seat=button)

    def _auto_advance(self, now: float, out: list[Output]) -> HandStatus | None:
        """Apply posts, the collection and pushes the chip sensors show done.

        :returns: the hand's status if it was built and no step was taken since (for the
            caller's chip layout), else ``None``.
        """
        chips = self._chips
        if chips is None or self.held:
            return None
        for _ in range(64):
            hand = self._hand
            if hand is None:
                return None
            step = hand.expected()
            if not isinstance(step, PostStep | CollectStep | AwardStep):
                return None  # a card, an action or a showdown: never from the chip sensors
            st = hand.status()
            want = chips.step_want(step, st, hand.seats)
            if want is None:
                return st
            inp = default_input(step)
            assert inp is not None
            if not chips.matches(want):
                return st
            if not isinstance(step, PostStep) and not chips.moved(st, want, now):
                return st
            record = hand.apply(inp)
            out.append(applied_output(hand, record))
            self._after_record(hand, record, out)
            if isinstance(hand.expected(), HandOverStep):
                self._finish(now, out)
                return None
        return None
