"""The controller core: reconciles device reads and dealer commands with the engine (sans-IO).

``TableCore.handle(input, now) -> list[Output]`` is the whole interface. No I/O and no clock: the
daemon passes resolved device events and dealer commands in, with the monotonic time they
happened, and journals, publishes and acts on the outputs. Replaying the journaled inputs with the
same ``now`` values rebuilds the exact state (the daemon's recovery).

Rules this module keeps:

1. The engine says what comes next (``hand.expected()``). A card from the shoe goes to that step
   (hole card, burn, board card) or it is an irregularity and is *not* applied: a tag outside the
   active deck, a card already seen, a card when none is due (see :mod:`.irregularities`).
2. The camera's stable board must show each board card in its slot, in order, and the same card
   the shoe read for that slot; a mismatch, a wrong slot or a card seen before the shoe drew it is
   an irregularity (each reported once per slot and card).
3. The chip sensors must agree with the layout the hand implies (:mod:`.chips`); a difference
   that outlasts the settle window is a ``chip_difference``. Posts, the collection and each pot's
   push complete by themselves when the sensors show them done (or by ``confirm``); bets, calls
   and raises are dealer commands whose chips the sensors then check.
4. Unsafe irregularities hold the table through :meth:`TableCore.enter_hold`, the one path.
   While held, dealer actions, ``start`` and ``confirm`` are refused; ``resolve`` records how
   each irregularity was settled, ``resume`` lifts the hold once every unsafe one is resolved,
   ``void`` / ``misdeal`` end the hand and resolve everything open.
5. A refused command changes nothing (each command checks before it mutates; engine inputs are
   transactional). Every command yields exactly one :class:`Reply`.
"""

from __future__ import annotations

import copy
import copyreg
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from calibration.chips import ChipConfig
from hardware.base import CardDrawn, CardIdentified, DuplicateCard, RepeatedRead, UnknownTag
from hardware.shoe.resolver import TagResolver
from table_controller.controller.chips import ChipCheck
from table_controller.controller.events import (
    Announcement,
    Applied,
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
    Reply,
    Resolved,
    Restarted,
    ShoeState,
    Tick,
    TraySeen,
    ZoneSeen,
)
from table_controller.controller.irregularities import (
    KINDS,
    CardContext,
    Finding,
    IrregularityRules,
)
from table_controller.controller.steps import award_text, payouts_text, step_to_dict
from table_controller.engine import (
    Act,
    ActionKind,
    ActStep,
    AwardStep,
    BoardStep,
    BurnStep,
    Card,
    CardError,
    Collect,
    CollectStep,
    Deal,
    DealHoleStep,
    Hand,
    HandOverStep,
    Input,
    Muck,
    Post,
    PostKind,
    PostStep,
    Push,
    Record,
    Show,
    ShowStep,
    Street,
    Table,
    TableConfig,
    describe_step,
)
from table_controller.errors import RuleError


def _reduce_proxy(proxy: MappingProxyType[Any, Any]) -> tuple[Any, tuple[dict[Any, Any]]]:
    return MappingProxyType, (dict(proxy),)


# Engine snapshots and calibration hold read-only mappings; :meth:`TableCore.preview` deep-copies
# the core, so teach ``copy`` (and pickle) to rebuild them.
copyreg.pickle(MappingProxyType, _reduce_proxy)

#: Posts that stay in front of the seat (its bet); the others go straight to the pot zone.
LIVE_POSTS = frozenset({PostKind.SMALL_BLIND, PostKind.BIG_BLIND, PostKind.NEW_PLAYER,
                        PostKind.MISSED_BIG})
#: Devices whose loss during a hand holds the table.
CRITICAL_DEVICES = frozenset({"shoe", "chips"})

_ACTIONS = {"fold": ActionKind.FOLD, "check": ActionKind.CHECK, "call": ActionKind.CALL,
            "bet": ActionKind.BET, "raise": ActionKind.RAISE, "all_in": ActionKind.ALL_IN}
_ACTION_WORDS = {ActionKind.FOLD: "folds", ActionKind.CHECK: "checks", ActionKind.CALL: "calls",
                 ActionKind.BET: "bets", ActionKind.RAISE: "raises to",
                 ActionKind.ALL_IN: "goes all-in"}
_COMMANDS = frozenset({"start", "seat", "unseat", "buy_in", "sit_out", "sit_in", "misdeal",
                       "void", "hold", "resume", "confirm", "resolve", "status", "show",
                       "muck"})
_STREET_WORDS = {Street.FLOP: "the flop", Street.TURN: "the turn", Street.RIVER: "the river"}


@dataclass(slots=True)
class Irregularity:
    """One irregularity as the core keeps it (``resolution`` set once resolved)."""

    id: int
    kind: str
    text: str
    remedy: str
    hold: bool
    hand: int | None
    data: Mapping[str, Any] = field(default_factory=dict)
    secret: Mapping[str, Any] = field(default_factory=dict)
    resolution: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form safe for every feed (``secret`` left out)."""
        return {"id": self.id, "kind": self.kind, "text": self.text, "remedy": self.remedy,
                "hold": self.hold, "hand": self.hand, "resolved": self.resolution is not None,
                "resolution": self.resolution, **dict(self.data)}


class TableCore:
    """The table's controller state machine (sans-IO).

    :param config: stakes and seats of the table (engine :class:`TableConfig`).
    :param deck: the active deck profile: tag UID -> card.
    :param chips: chip-sensor calibration; ``None`` = no chip sensors (posts, collections and
        pushes then need ``confirm``).
    :param settle: seconds a chip difference may last before it is an irregularity.
    :param rules: irregularity hooks (extension point, see :mod:`.irregularities`).
    :param devices: device names tracked for health.
    :param camera_window: seconds the camera may take to show a board card the shoe dealt
        before it is a ``board_missing`` irregularity; ``None`` = no camera to check with.
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
    ) -> None:
        self.table = Table(config)
        self.resolver = TagResolver(deck)
        self.chips = ChipCheck(chips, settle) if chips is not None else None
        self.camera_window = camera_window
        self._dealt_at: dict[int, float] = {}
        self._missing: set[int] = set()
        if rules is None:  # issue 6: the dealing irregularities by default
            from table_controller.controller.dealing import DealingRules
            rules = DealingRules()
        self.rules: IrregularityRules = rules
        self.hand: Hand | None = None
        self.hand_number = 0
        self.devices: dict[str, str] = dict.fromkeys(devices, "ok")
        self.irregularities: list[Irregularity] = []
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
        self._last_hand: Hand | None = None
        self._update_prompt([])

    # -- the one entry point -----------------------------------------------------------------

    def handle(self, inp: ControllerInput, now: float) -> list[Output]:
        """Take one input that happened at monotonic time ``now``; return what follows from it."""
        out: list[Output] = []
        if self.rules.intercept(self, inp, now, out):
            pass
        elif isinstance(inp, Tick):
            self._on_tick(now, out)
        elif isinstance(inp, CardRead):
            self._on_card(inp, now, out)
        elif isinstance(inp, ZoneSeen):
            self._on_zone(inp, now, out)
        elif isinstance(inp, TraySeen):
            self.tray = inp.counts
        elif isinstance(inp, BoardSeen):
            self._on_board(inp, out)
        elif isinstance(inp, DeviceDown):
            self._on_device_down(inp, out)
        elif isinstance(inp, DeviceUp):
            self._on_device_up(inp, out)
        elif isinstance(inp, ReadsLost):
            self._on_reads_lost(inp, out)
        elif isinstance(inp, Restarted):
            self._on_restarted(now, out)
        elif isinstance(inp, ShoeState):
            pass  # judged by the dealing rules (issue 6), in ``rules.intercept``
        elif isinstance(inp, DealerCommand):
            self._on_command(inp, now, out)
        else:  # pragma: no cover - the union is closed
            raise TypeError(f"not a controller input: {inp!r}")
        self.rules.after_input(self, now, out)
        self._update_prompt(out)
        return out

    def preview(self, inp: ControllerInput, now: float) -> list[Output]:
        """Return what :meth:`handle` would return, without changing anything."""
        return copy.deepcopy(self).handle(inp, now)

    # -- queries -----------------------------------------------------------------------------

    @property
    def held(self) -> bool:
        """Tell whether the table is held."""
        return bool(self.holds)

    def open_irregularities(self) -> list[Irregularity]:
        """Irregularities not yet resolved, oldest first."""
        return [i for i in self.irregularities if i.resolution is None]

    def next_deadline(self) -> float | None:
        """When a :class:`Tick` could next change something (``None`` = nothing pending)."""
        if self.hand is None or self.held:
            return None
        times = [t for t in (self.chips.next_deadline() if self.chips else None,
                             self._board_deadline()) if t is not None]
        return min(times) if times else None

    def _unseen_slots(self) -> list[int]:
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
        hand = self.hand
        if hand is None:
            return out
        st = hand.status()
        for seat, cards in st.hole_cards.items():
            if seat in st.shown:
                continue
            out.update(c.code for c in cards if c is not None)
        return out

    def view(self, *, secret: bool = False) -> dict[str, Any]:
        """Return the whole table state (the feeds' snapshot); hole cards under ``hole_cards``.

        :param secret: add surveillance-only details (burn cards, irregularity details).
        """
        ts = self.table.status()
        hand = self.hand
        st = hand.status() if hand is not None else None
        seats: dict[str, Any] = {}
        for s, v in ts.seats.items():
            d: dict[str, Any] = {"player": v.player, "stack": v.stack, "bet": 0,
                                 "sitting_out": v.sitting_out, "in_hand": False,
                                 "folded": False, "all_in": False}
            if st is not None and s in st.seats:
                d.update(stack=st.stacks[s], bet=st.bets.get(s, 0), in_hand=True,
                         folded=s in st.folded, all_in=s in st.all_in)
            seats[str(s)] = d
        state: dict[str, Any] = {
            "hand": self.hand_number if hand is not None else None,
            "hands_played": ts.hands_played,
            "rake_total": ts.rake_total,
            "button": st.button if st is not None else ts.button,
            "seats": seats,
            "phase": st.phase.value if st is not None else "between_hands",
            "street": st.street.value if st is not None else None,
            "board": [None if c is None else c.code for c in st.board] if st else [],
            "pots": [p.to_dict() for p in st.pots] if st is not None else [],
            "to_act": st.to_act if st is not None else None,
            "current_bet": st.current_bet if st is not None else 0,
            "hole_cards": {str(s): [None if c is None else c.code for c in cs]
                           for s, cs in st.hole_cards.items()} if st is not None else {},
            "shown": {str(s): [c.code for c in cs] for s, cs in st.shown.items()}
            if st is not None else {},
            "prompt": self.prompt.to_dict() if self.prompt is not None else None,
            "held": self.held,
            "holds": [r for r, _ in self.holds],
            "irregularities": [i.to_dict() for i in self.open_irregularities()],
            "devices": dict(self.devices),
            "last_announcement": None if self.last_announcement is None
            else self.last_announcement.to_dict(),
            "chips": {"pending": {str(z): list(v) for z, v in self.chips.pending.items()}}
            if self.chips is not None else None,
        }
        if secret:
            state["burn_cards"] = [None if c is None else c.code for c in self._burns]
            state["irregularity_details"] = {str(i.id): dict(i.secret)
                                             for i in self.irregularities if i.secret}
        return state

    def summary(self) -> dict[str, Any]:
        """Return the ``status`` command's result."""
        ts = self.table.status()
        stacks = {str(s): v.stack for s, v in ts.seats.items()}
        in_play = sum(v.stack for v in ts.seats.values())
        if self.hand is not None:
            st = self.hand.status()
            for s in st.seats:
                stacks[str(s)] = st.stacks[s]
            in_play = sum(int(v) for v in stacks.values()) + sum(st.bets.values()) + sum(
                p.amount for p in st.pots)
        return {
            "hands_played": ts.hands_played, "hand": self.hand_number if self.hand else None,
            "stacks": stacks, "chips_in_play": in_play, "rake_total": ts.rake_total,
            "held": self.held, "holds": [r for r, _ in self.holds],
            "prompt": self.prompt.to_dict() if self.prompt else None,
            "irregularities": [i.to_dict() for i in self.irregularities],
            "devices": dict(self.devices),
            # what the camera last reported (None: no camera report yet): a dealer may wait for
            # it to show the board cards dealt, or an empty board before the next hand
            "camera_board": None if self.board_seen is None else list(self.board_seen.slots),
            "board": [None if c is None else c.code for c in self.hand.status().board]
            if self.hand is not None else [],
        }

    # -- holds -------------------------------------------------------------------------------

    def enter_hold(self, reason: str, irregularity: int | None, out: list[Output]) -> None:
        """Hold the table (the one fail-safe path): dealing and actions stop until resumed."""
        self.holds.append((reason, irregularity))
        out.append(HoldEntered(reason, irregularity))

    def _raise(self, finding: Finding, out: list[Output]) -> Irregularity:
        kind = KINDS[finding.kind]
        irr = Irregularity(len(self.irregularities) + 1, finding.kind, finding.text, kind.remedy,
                           kind.hold, self.hand_number if self.hand is not None else None,
                           dict(finding.data), dict(finding.secret))
        self.irregularities.append(irr)
        out.append(IrregularityRaised(irr.id, irr.kind, irr.text, irr.remedy, irr.hold,
                                      irr.data, irr.secret))
        if kind.hold:
            self.enter_hold(f"{finding.text} (irregularity {irr.id})", irr.id, out)
        return irr

    def _announce(self, kind: str, text: str, out: list[Output], **data: Any) -> None:
        a = Announcement(kind, text, data)
        self.last_announcement = a
        out.append(a)

    # -- prompts -----------------------------------------------------------------------------

    def _next_button(self) -> int | None:
        trial = copy.deepcopy(self.table)
        try:
            return trial.start_hand().button
        except RuleError:
            return None

    def _prompt_content(self) -> tuple[str, dict[str, Any]]:
        if self.holds:
            open_ids = [i.id for i in self.open_irregularities() if i.hold]
            reason = "; ".join(r for r, _ in self.holds)
            first = next((i for i in self.open_irregularities() if i.hold), None)
            remedy = first.remedy if first is not None else "Resume when ready."
            return (f"Table held: {reason}. {remedy}",
                    {"kind": "hold", "reason": reason, "irregularities": open_ids})
        if self.hand is None:
            button = self._next_button()
            if button is None:
                return "Seat at least two players with chips", {"kind": "seat_players"}
            return (f"Start the next hand (button at seat {button})",
                    {"kind": "start_hand", "button": button})
        custom = self.rules.prompt(self)
        if custom is not None:
            return custom
        step = self.hand.expected()
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

    def _apply(self, inp: Input, now: float, out: list[Output]) -> Record:
        """Apply one engine input (raises :class:`RuleError`, changing nothing, if illegal)."""
        hand = self.hand
        assert hand is not None
        record = hand.apply(inp)
        out.append(self._applied(record))
        self._after_record(record, out)
        if isinstance(record.step, BoardStep):
            self._dealt_at[record.step.slot] = now
            if self.board_seen is not None:  # a stale card already in that slot, for one
                self._on_board(self.board_seen, out)
        self._after_change(now, out)
        return record

    def _applied(self, rec: Record) -> Applied:
        step, inp = rec.step, rec.input
        if isinstance(step, PostStep):
            return Applied(describe_step(step).replace(" posts ", " posted "),
                           {"event": "post", "seat": step.seat, "post_kind": step.kind.value,
                            "amount": rec.amount})
        if isinstance(step, DealHoleStep):
            assert isinstance(inp, Deal)
            return Applied(f"Hole card {step.round} dealt to seat {step.seat}",
                           {"event": "hole_card", "seat": step.seat, "round": step.round,
                            "hole_card": None if inp.card is None else inp.card.code})
        if isinstance(step, BurnStep):
            assert isinstance(inp, Deal)
            return Applied(f"Card burned before {_STREET_WORDS[step.street]}",
                           {"event": "burn", "street": step.street.value},
                           {"burn": None if inp.card is None else inp.card.code})
        if isinstance(step, BoardStep):
            assert isinstance(inp, Deal)
            code = None if inp.card is None else inp.card.code
            return Applied(f"Board card {step.slot + 1}: {code}",
                           {"event": "board", "slot": step.slot, "card": code})
        if isinstance(step, ActStep):
            assert rec.kind is not None
            words = _ACTION_WORDS[rec.kind]
            amount = ""
            if rec.kind in (ActionKind.BET, ActionKind.RAISE):
                amount = f" {rec.to:,}"
            elif rec.kind is ActionKind.CALL:
                amount = f" {rec.amount:,}"
            tail = " (all-in)" if rec.all_in else ""
            return Applied(f"Seat {step.seat} {words}{amount}{tail}",
                           {"event": "action", "seat": step.seat, "action": rec.kind.value,
                            "amount": rec.amount, "to": rec.to, "all_in": rec.all_in})
        if isinstance(step, CollectStep):
            return Applied(describe_step(step).replace("Collect the bets", "Bets collected"),
                           {"event": "collect", "pots": [p.to_dict() for p in step.into_pots]})
        if isinstance(inp, Show) and rec.seat is not None:
            assert self.hand is not None
            cards = self.hand.status().shown.get(rec.seat, ())
            codes = [c.code for c in cards]
            return Applied(f"Seat {rec.seat} shows {' '.join(codes)}",
                           {"event": "show", "seat": rec.seat, "cards": codes})
        if isinstance(inp, Muck):
            return Applied(f"Seat {inp.seat} mucks", {"event": "muck", "seat": inp.seat})
        if isinstance(step, AwardStep):
            return Applied(award_text(step),
                           {"event": "push", "pot_index": step.pot_index, "amount": step.amount,
                            "payouts": {str(s): a for s, a in step.payouts.items()},
                            "odd_chip_seats": list(step.odd_chip_seats), "rake": step.rake})
        return Applied(f"{type(inp).__name__} applied", {"event": type(inp).__name__.lower()})

    def _after_record(self, rec: Record, out: list[Output]) -> None:
        hand = self.hand
        assert hand is not None
        step = rec.step
        if isinstance(step, BurnStep) and isinstance(rec.input, Deal):
            self._burns.append(rec.input.card)
        if isinstance(step, AwardStep):
            self._awards.append(step)
        if isinstance(step, ActStep) and rec.kind is not None:
            if (rec.kind is ActionKind.RAISE and step.seat == hand.bb_seat
                    and rec.street is Street.PREFLOP and step.legal.can_check):
                self._announce("bb_raises_option",
                               f"The big blind, seat {step.seat}, raises its option to "
                               f"{rec.to:,}", out, seat=step.seat, to=rec.to)
            if rec.kind in (ActionKind.BET, ActionKind.RAISE):
                verb = "bets" if rec.kind is ActionKind.BET else "raises to"
                self._announce("raise", f"Seat {step.seat} {verb} {rec.to:,}", out,
                               seat=step.seat, to=rec.to, bet=rec.kind is ActionKind.BET)
            if rec.all_in:
                self._announce("all_in", f"Seat {step.seat} is all-in", out, seat=step.seat,
                               amount=rec.amount, to=rec.to)
        nxt = hand.expected()
        if (isinstance(nxt, ActStep) and nxt.seat == hand.bb_seat
                and hand.street is Street.PREFLOP and nxt.legal.can_check
                and "bb_option" not in self._announced):
            self._announced.add("bb_option")
            self._announce("bb_option", f"Option to the big blind, seat {nxt.seat}", out,
                           seat=nxt.seat)
        if isinstance(nxt, ShowStep) and "showdown" not in self._announced:
            self._announced.add("showdown")
            self._announce("showdown", f"Showdown: seat {nxt.seat} shows first", out,
                           seat=nxt.seat)

    def _after_change(self, now: float, out: list[Output]) -> None:
        hand = self.hand
        if hand is None:
            return
        if isinstance(hand.expected(), HandOverStep):
            self._finish(now, out)
            return
        self._auto_advance(now, out)
        if self.hand is not None and self.chips is not None:
            self.chips.refresh(self.chips.layout(self.hand), now)

    def _finish(self, now: float, out: list[Output]) -> None:
        hand = self.hand
        assert hand is not None
        self.table.finish_hand(hand)
        self.hand = None
        self._last_hand = hand
        if self.chips is not None:
            self.chips.clear()
        out.append(HandEnded(self.hand_number, False, dict(hand.final_stacks), hand))
        if self._awards:
            self._announce("payouts", payouts_text(self._awards), out,
                           pots=[{"pot_index": a.pot_index, "amount": a.amount,
                                  "payouts": {str(s): v for s, v in a.payouts.items()},
                                  "odd_chip_seats": list(a.odd_chip_seats), "rake": a.rake}
                                 for a in sorted(self._awards, key=lambda a: a.pot_index)])
        button = self._next_button()
        if button is not None:
            self._announce("button", f"Move the button to seat {button}", out, seat=button)

    def _auto_advance(self, now: float, out: list[Output]) -> None:
        """Apply posts, the collection and pushes the chip sensors show done."""
        chips = self.chips
        if chips is None or self.held:
            return
        for _ in range(64):
            hand = self.hand
            if hand is None:
                return
            step = hand.expected()
            st = hand.status()
            pot_zone = chips.config.pot_zone
            pot = sum(p.amount for p in st.pots)
            inp: Input
            if isinstance(step, PostStep):
                if step.kind in LIVE_POSTS:
                    zone = chips.config.seat_zones.get(step.seat)
                    if zone is None:
                        return
                    want = {zone: st.bets.get(step.seat, 0) + step.amount}
                else:
                    want = {pot_zone: pot + step.amount}
                inp = Post(step.seat, step.kind)
            elif isinstance(step, CollectStep):
                want = {z: 0 for s, z in chips.config.seat_zones.items() if s in hand.seats}
                want[pot_zone] = sum(p.amount for p in step.into_pots)
                inp = Collect()
            elif isinstance(step, AwardStep):
                want = {pot_zone: pot - step.amount}
                inp = Push(step.pot_index)
            else:
                return
            if not chips.matches(want):
                return
            if not isinstance(step, PostStep) and not self._chips_moved(want, now):
                return
            record = hand.apply(inp)
            out.append(self._applied(record))
            self._after_record(record, out)
            if isinstance(hand.expected(), HandOverStep):
                self._finish(now, out)
                return

    def _chips_moved(self, want: Mapping[int, int], now: float) -> bool:
        """Tell whether the sensors saw the chips move for a collection or a push.

        Each zone the step empties or lowers must first have shown what it holds before the
        step (the bets, the pot) and then read ``want``: a zone still at 0 because the report of the
        chips just bet has not come in is not a collection (a stale reading).
        """
        chips = self.chips
        assert chips is not None and self.hand is not None
        before = chips.layout(self.hand)
        chips.refresh(before, now)
        return all(chips.showed(z, before[z]) for z, v in want.items()
                   if before.get(z, 0) not in (0, v))

    # -- device inputs -----------------------------------------------------------------------

    def _on_tick(self, now: float, out: list[Output]) -> None:
        if self.hand is None or self.held:
            return
        if self.camera_window is not None:
            for slot in self._unseen_slots():
                if now - self._dealt_at[slot] >= self.camera_window:
                    self._missing.add(slot)
                    self._raise(Finding(
                        "board_missing",
                        f"The camera does not see board slot {slot + 1}, which the shoe dealt",
                        {"slot": slot}), out)
        if self.chips is None:
            return
        for zone, sensed, expected in self.chips.due(now):
            what = "chips of an unknown denomination" if sensed < 0 else f"{sensed:,}"
            self._raise(Finding(
                "chip_difference",
                f"{self.chips.zone_name(zone)} shows {what}, expected {expected:,}",
                {"zone": zone, "role": self.chips.config.role(zone), "expected": expected,
                 "sensed": sensed}), out)

    def _on_zone(self, inp: ZoneSeen, now: float, out: list[Output]) -> None:
        if self.chips is None:
            return
        self.chips.see(inp.zone, inp.counts)
        if self.hand is None:
            return
        self._auto_advance(now, out)
        if self.hand is not None:
            self.chips.refresh(self.chips.layout(self.hand), now)

    def _on_card(self, inp: CardRead, now: float, out: list[Output]) -> None:
        event = self.resolver.resolve(CardDrawn(inp.uid, inp.shoe_ms, now))
        if isinstance(event, RepeatedRead):
            return
        hand = self.hand
        if hand is None:
            self._raise(Finding("card_between_hands",
                                "A card was drawn from the shoe with no hand in progress",
                                {"uid": inp.uid}), out)
            return
        if self.held:
            self._raise(Finding("card_while_held", "A card was drawn while the table is held",
                                {"uid": inp.uid}, {"card": _code_of(event)}), out)
            return
        step = hand.expected()
        if isinstance(event, UnknownTag):
            self._raise(Finding("unknown_card",
                                f"Tag {inp.uid} is not in the active deck ({_step_words(step)})",
                                {"uid": inp.uid}), out)
            return
        if isinstance(event, DuplicateCard):
            self._raise(Finding("duplicate_card",
                                f"A card already drawn this hand came out again "
                                f"({_step_words(step)})",
                                {"uid": inp.uid, "first_uid": event.first_uid},
                                {"card": event.card.code}), out)
            return
        assert isinstance(event, CardIdentified)
        card = event.card
        finding = self.rules.check_card(CardContext(card, inp.uid, hand, step))
        if finding is not None:
            self._raise(finding, out)
            return
        if not isinstance(step, DealHoleStep | BurnStep | BoardStep):
            self._raise(Finding("card_not_due",
                                f"A card was drawn but no card is due: {describe_step(step)}",
                                {"uid": inp.uid}, {"card": card.code}), out)
            return
        try:
            self._apply(Deal(card), now, out)
        except RuleError as err:
            if err.rule == "duplicate-card":
                self._raise(Finding("duplicate_card",
                                    f"A card already on the table was drawn again "
                                    f"({_step_words(step)})",
                                    {"uid": inp.uid}, {"card": card.code}), out)
            else:
                self._raise(Finding("card_not_due", f"The card does not fit: {err.message}",
                                    {"uid": inp.uid}, {"card": card.code}), out)

    def _on_board(self, inp: BoardSeen, out: list[Output]) -> None:
        self.board_seen = inp
        hand = self.hand
        if hand is None:
            return
        st = hand.status()
        board = list(st.board)
        holes = {c.code: s for s, cs in st.hole_cards.items() for c in cs if c is not None}
        secrets = self.secret_cards()
        for slot, code in enumerate(inp.slots):
            if code is None or slot in inp.occluded:
                continue
            try:
                card = Card.parse(code)
            except ValueError:
                continue
            known = slot < len(board) and board[slot] is not None
            if known and board[slot] == card:
                continue
            if card.code in holes:
                kind, text = "exposed_card", f"A hole card is face up in board slot {slot + 1}"
                data: dict[str, Any] = {"slot": slot}
                secret: dict[str, Any] = {"card": code, "seat": holes[card.code]}
            elif card in board:
                kind = "board_wrong_slot"
                text = (f"The card {code} is in board slot {slot + 1}; the shoe dealt it to "
                        f"slot {board.index(card) + 1}")
                data, secret = {"slot": slot, "card": code, "dealt_slot": board.index(card)}, {}
            elif known:
                expected = board[slot]
                assert expected is not None
                kind = "board_mismatch"
                text = (f"Board slot {slot + 1} shows {code} but the shoe read "
                        f"{expected.code}")
                data, secret = {"slot": slot, "seen": code, "shoe": expected.code}, {}
            elif slot < len(board):
                continue  # the shoe's card for this slot is unknown: nothing to compare
            else:
                kind = "board_early"
                text = f"A card is in board slot {slot + 1} before the shoe drew it"
                data, secret = {"slot": slot}, {"card": code}
            if kind != "exposed_card" and card.code in secrets:
                # a burn card (or another secret) must not be named outside surveillance
                text = f"Board slot {slot + 1} shows a card that is not the board's ({kind})"
                secret = {**secret, **data, "card": code}
                data = {"slot": slot}
            flag = (slot, code, kind)
            if flag in self._board_flags:
                continue
            self._board_flags.add(flag)
            self._raise(Finding(kind, text, data, secret), out)
            if kind == "exposed_card":
                self._announce("exposed_card", f"Exposed card: a hole card of seat "
                                               f"{holes[card.code]} is face up", out,
                               seat=holes[card.code], slot=slot)

    def _on_device_down(self, inp: DeviceDown, out: list[Output]) -> None:
        if self.devices.get(inp.device) == "lost":
            return
        self.devices[inp.device] = "lost"
        self._announce("device", f"The {inp.device} was lost: {inp.reason}", out,
                       device=inp.device, link="lost")
        if self.hand is not None and inp.device in CRITICAL_DEVICES:
            self._raise(Finding("device_lost", f"The {inp.device} was lost during the hand",
                                {"device": inp.device, "reason": inp.reason}), out)

    def _on_restarted(self, now: float, out: list[Output]) -> None:
        """Restart the timers after a daemon restart (devices report afresh)."""
        if self.chips is not None:
            self.chips.restart(now)
        self._dealt_at = {slot: now for slot in self._dealt_at}
        self._announce("restart", "The controller restarted"
                       + (f"; hand {self.hand_number} carries on" if self.hand else ""), out)

    def _on_reads_lost(self, inp: ReadsLost, out: list[Output]) -> None:
        """Raise the reads a device discarded: unsafe during a hand (cards or chips missing)."""
        if self.hand is None:
            self._announce("device", f"The {inp.device} lost {inp.count} reads between hands",
                           out, device=inp.device, lost=inp.count)
            return
        self._raise(Finding("reads_lost", f"The {inp.device} discarded {inp.count} reads the "
                                          "controller never received",
                            {"device": inp.device, "count": inp.count}), out)

    def _on_device_up(self, inp: DeviceUp, out: list[Output]) -> None:
        if self.devices.get(inp.device) == "ok":
            return
        self.devices[inp.device] = "ok"
        self._announce("device", f"The {inp.device} is back", out, device=inp.device,
                       link="ok")

    # -- dealer commands ---------------------------------------------------------------------

    def _on_command(self, cmd: DealerCommand, now: float, out: list[Output]) -> None:
        args = cmd.args
        try:
            if cmd.name in _ACTIONS:
                reply = self._cmd_act(_ACTIONS[cmd.name], args, now, out)
            else:
                fn: Callable[[Mapping[str, Any], float, list[Output]], Reply] | None = (
                    getattr(self, f"_cmd_{cmd.name}", None) if cmd.name in _COMMANDS else None)
                if fn is None:
                    reply = Reply(False, f"unknown command {cmd.name!r}")
                else:
                    reply = fn(args, now, out)
        except RuleError as err:
            reply = Reply(False, err.message)
        except CardError as err:
            reply = Reply(False, str(err))
        out.append(reply)

    def _refuse_if_held(self) -> Reply | None:
        if self.holds:
            return Reply(False, f"the table is held: {'; '.join(r for r, _ in self.holds)}")
        return None

    def _cmd_act(self, kind: ActionKind, args: Mapping[str, Any], now: float,
                 out: list[Output]) -> Reply:
        refused = self._refuse_if_held()
        if refused is not None:
            return refused
        hand = self.hand
        if hand is None:
            return Reply(False, "no hand in progress")
        step = hand.expected()
        if not isinstance(step, ActStep):
            return Reply(False, f"nobody is to act now; expected: {describe_step(step)}")
        seat = int(args["seat"])
        if seat != step.seat:
            return Reply(False, f"it is seat {step.seat}'s turn, not seat {seat}'s")
        to = int(args.get("amount", args.get("to", 0)))
        rec = self._apply(Act(seat, kind, to), now, out)
        return Reply(True, "", {"seat": seat, "action": rec.kind.value if rec.kind else kind.value,
                                "amount": rec.amount, "to": rec.to, "all_in": rec.all_in})

    def _cmd_start(self, args: Mapping[str, Any], now: float, out: list[Output]) -> Reply:
        refused = self._refuse_if_held()
        if refused is not None:
            return refused
        if self.hand is not None:
            return Reply(False, f"hand {self.hand_number} is in progress")
        lost = [d for d in sorted(CRITICAL_DEVICES) if self.devices.get(d) == "lost"]
        if lost:
            return Reply(False, f"the {' and '.join(lost)} {'is' if len(lost) == 1 else 'are'} "
                                "lost: cannot start a hand")
        hand = self.table.start_hand()
        self.hand = hand
        self.hand_number += 1
        self.resolver.new_shuffle()
        self._board_flags.clear()
        self._announced.clear()
        self._burns = []
        self._awards = []
        self._dealt_at.clear()
        self._missing.clear()
        out.append(HandStarted(self.hand_number, hand.config.to_dict()))
        self._announce("hand_start", f"Hand {self.hand_number}: button at seat {hand.button}",
                       out, hand=self.hand_number, button=hand.button,
                       seats=list(hand.seats))
        self._after_change(now, out)
        return Reply(True, "", {"hand": self.hand_number, "button": hand.button,
                                "seats": list(hand.seats)})

    def _cmd_seat(self, args: Mapping[str, Any], now: float, out: list[Output]) -> Reply:
        seat, player, stack = int(args["seat"]), str(args["player"]), int(args["stack"])
        self.table.seat_player(seat, player, stack)
        self._announce("seat", f"{player} takes seat {seat} with {stack:,}", out, seat=seat,
                       player=player, stack=stack)
        return Reply(True, "", {"seat": seat, "player": player, "stack": stack})

    def _cmd_unseat(self, args: Mapping[str, Any], now: float, out: list[Output]) -> Reply:
        seat = int(args["seat"])
        chips = self.table.unseat(seat)
        self._announce("unseat", f"Seat {seat} leaves with {chips:,}", out, seat=seat,
                       cashed_out=chips)
        return Reply(True, "", {"seat": seat, "cashed_out": chips})

    def _cmd_buy_in(self, args: Mapping[str, Any], now: float, out: list[Output]) -> Reply:
        seat, amount = int(args["seat"]), int(args["amount"])
        self.table.buy_in(seat, amount)
        return Reply(True, "", {"seat": seat, "amount": amount,
                                "stack": self.table.status().seats[seat].stack})

    def _cmd_sit_out(self, args: Mapping[str, Any], now: float, out: list[Output]) -> Reply:
        seat = int(args["seat"])
        self.table.sit_out(seat)
        return Reply(True, "", {"seat": seat})

    def _cmd_sit_in(self, args: Mapping[str, Any], now: float, out: list[Output]) -> Reply:
        seat = int(args["seat"])
        self.table.sit_in(seat)
        return Reply(True, "", {"seat": seat})

    def _void(self, word: str, reason: str, out: list[Output]) -> Reply:
        hand = self.hand
        if hand is None:
            return Reply(False, "no hand in progress")
        refunds = hand.void()
        self.table.finish_hand(hand)
        self.hand = None
        self._last_hand = hand
        if self.chips is not None:
            self.chips.clear()
        note = f"hand {self.hand_number} voided ({word}: {reason})"
        for irr in self.open_irregularities():
            irr.resolution = note
            out.append(Resolved(irr.id, note))
        if self.holds:
            self.holds.clear()
            out.append(HoldLifted(note))
        out.append(HandEnded(self.hand_number, True, dict(hand.final_stacks), hand))
        self._announce(word, f"{word.capitalize()}: {reason}. Every player gets back what it put "
                             f"in; the button stays at seat {hand.button}", out,
                       refunds={str(s): v for s, v in refunds.items()})
        return Reply(True, "", {"hand": self.hand_number,
                                "refunds": {str(s): v for s, v in refunds.items()}})

    def _cmd_misdeal(self, args: Mapping[str, Any], now: float, out: list[Output]) -> Reply:
        return self._void("misdeal", str(args["reason"]), out)

    def _cmd_void(self, args: Mapping[str, Any], now: float, out: list[Output]) -> Reply:
        return self._void("void", str(args["reason"]), out)

    def _cmd_hold(self, args: Mapping[str, Any], now: float, out: list[Output]) -> Reply:
        reason = str(args["reason"])
        self.enter_hold(f"held by the dealer: {reason}", None, out)
        return Reply(True, "", {"holds": [r for r, _ in self.holds]})

    def _cmd_resume(self, args: Mapping[str, Any], now: float, out: list[Output]) -> Reply:
        if not self.holds:
            return Reply(False, "the table is not held")
        blocking = [i.id for i in self.open_irregularities() if i.hold]
        if blocking:
            ids = ", ".join(str(i) for i in blocking)
            return Reply(False, f"resolve irregularit{'y' if len(blocking) == 1 else 'ies'} "
                                f"{ids} first")
        note = str(args.get("note", "resumed"))
        self.holds.clear()
        out.append(HoldLifted(note))
        self._announce("resume", f"Play resumes: {note}", out)
        if self.chips is not None and self.hand is not None:
            self.chips.restart(now)
        self._after_change(now, out)
        return Reply(True, "", {})

    def _cmd_resolve(self, args: Mapping[str, Any], now: float, out: list[Output]) -> Reply:
        open_ = self.open_irregularities()
        wanted = args.get("irregularity")
        if wanted is None:
            if not open_:
                return Reply(False, "no open irregularity to resolve")
            target = open_[0]
        else:
            found = [i for i in self.irregularities if i.id == int(wanted)]
            if not found:
                return Reply(False, f"no irregularity {wanted}")
            target = found[0]
            if target.resolution is not None:
                return Reply(False, f"irregularity {wanted} is already resolved: "
                                    f"{target.resolution}")
        note = str(args["note"])
        target.resolution = note
        out.append(Resolved(target.id, note))
        return Reply(True, "", {"irregularity": target.id,
                                "open": [i.id for i in self.open_irregularities()]})

    def _cmd_confirm(self, args: Mapping[str, Any], now: float, out: list[Output]) -> Reply:
        refused = self._refuse_if_held()
        if refused is not None:
            return refused
        wanted = args.get("prompt")
        if wanted is not None and (self.prompt is None or self.prompt.id != int(wanted)):
            current = self.prompt.id if self.prompt is not None else None
            return Reply(False, f"prompt {wanted} is not the current prompt ({current})")
        hand = self.hand
        if hand is None:
            return Reply(False, "no hand in progress: use start")
        step = hand.expected()
        inp: Input
        if isinstance(step, PostStep):
            inp = Post(step.seat, step.kind)
        elif isinstance(step, CollectStep):
            inp = Collect()
        elif isinstance(step, ShowStep):
            inp = Show(step.seat)
        elif isinstance(step, AwardStep):
            inp = Push(step.pot_index)
        elif isinstance(step, ActStep):
            return Reply(False, f"seat {step.seat} must act: {describe_step(step)}")
        else:
            return Reply(False, f"deal that card from the shoe: {describe_step(step)}")
        self._apply(inp, now, out)
        return Reply(True, "", {"confirmed": step_to_dict(step)})

    def _cmd_show(self, args: Mapping[str, Any], now: float, out: list[Output]) -> Reply:
        """``show`` (seat, optional ``cards``): the seat tables its hand, in full, to win."""
        refused = self._refuse_if_held()
        if refused is not None:
            return refused
        if self.hand is None:
            return Reply(False, "no hand in progress")
        seat = int(args["seat"])
        cards = tuple(Card.parse(c) for c in str(args.get("cards", "")).split())
        self._apply(Show(seat, cards), now, out)
        return Reply(True, "", {"seat": seat})

    def _cmd_muck(self, args: Mapping[str, Any], now: float, out: list[Output]) -> Reply:
        """``muck`` (seat): the seat throws its hand away at the showdown; it cannot win."""
        refused = self._refuse_if_held()
        if refused is not None:
            return refused
        if self.hand is None:
            return Reply(False, "no hand in progress")
        seat = int(args["seat"])
        self._apply(Muck(seat), now, out)
        return Reply(True, "", {"seat": seat})

    def _cmd_status(self, args: Mapping[str, Any], now: float, out: list[Output]) -> Reply:
        return Reply(True, "", self.summary())


def _code_of(event: object) -> str | None:
    card = getattr(event, "card", None)
    return card.code if isinstance(card, Card) else None


def _step_words(step: object) -> str:
    if isinstance(step, DealHoleStep | BurnStep | BoardStep | PostStep | ActStep | CollectStep
                  | ShowStep | AwardStep | HandOverStep):
        return f"expected: {describe_step(step)}"
    return "no step"
