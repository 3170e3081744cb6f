"""The core's device inputs: ticks, chip zones, card reads, the camera's board, device health.

A part of :class:`~.core.TableCore` (a mixin it inherits), kept apart so the core module keeps
to the state machine. The rules these handlers keep are the core's (see :mod:`.core`): a card
that does not fit the step the engine expects is an irregularity and is never applied; the
board and chip checks report each finding once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hardware.base import CardIdentified, DuplicateCard, UnknownTag
from table_controller.controller.board import board_findings
from table_controller.controller.chips import ChipCheck
from table_controller.controller.events import (
    BoardSeen,
    CardRead,
    DeviceDown,
    DeviceUp,
    Output,
    ReadsLost,
    ZoneSeen,
)
from table_controller.controller.irregularities import (
    CardContext,
    Finding,
    IrregularityRules,
    TagEvent,
)
from table_controller.engine import Hand, Input, Record, describe_step
from table_controller.engine.answers import card_input, wants_card
from table_controller.errors import RuleError


class DeviceInputs:
    """The handlers of device inputs; :class:`~.core.TableCore` supplies the state."""

    _hand: Hand | None
    _hand_number: int
    _chips: ChipCheck | None
    camera_window: float | None
    _dealt_at: dict[int, float]
    _missing: set[int]
    _board_flags: set[tuple[int, str, str]]
    board_seen: BoardSeen | None
    devices: dict[str, str]
    critical_devices: frozenset[str]
    rules: IrregularityRules

    if TYPE_CHECKING:  # supplied by TableCore (see its documentation)
        @property
        def held(self) -> bool:  # noqa: D102
            ...

        def _unseen_slots(self) -> list[int]: ...

        def _auto_advance(self, now: float, out: list[Output]) -> None: ...

        def secret_cards(self) -> set[str]:  # noqa: D102
            ...

        def raise_irregularity(self, finding: Finding, out: list[Output]) -> int:  # noqa: D102
            ...

        def announce(self, kind: str, text: str, out: list[Output],  # noqa: D102
                     **data: Any) -> None:
            ...

        def apply(self, inp: Input, now: float, out: list[Output]) -> Record:  # noqa: D102
            ...

    def _on_tick(self, now: float, out: list[Output]) -> None:
        if self._hand is None or self.held:
            return
        if self.camera_window is not None:
            for slot in self._unseen_slots():
                if now - self._dealt_at[slot] >= self.camera_window:
                    self._missing.add(slot)
                    self.raise_irregularity(Finding(
                        "board_missing",
                        f"The camera does not see board slot {slot + 1}, which the shoe dealt",
                        {"slot": slot}), out)
        if self._chips is None:
            return
        for zone, sensed, expected in self._chips.due(now):
            what = "chips of an unknown denomination" if sensed < 0 else f"{sensed:,}"
            self.raise_irregularity(Finding(
                "chip_difference",
                f"{self._chips.zone_name(zone)} shows {what}, expected {expected:,}",
                {"zone": zone, "role": self._chips.config.role(zone), "expected": expected,
                 "sensed": sensed}), out)

    def _on_zone(self, inp: ZoneSeen, now: float, out: list[Output]) -> None:
        if self._chips is None:
            return
        self._chips.see(inp.zone, inp.counts)
        if self._hand is None:
            return
        self._auto_advance(now, out)
        if self._hand is not None:
            self._chips.refresh(self._chips.layout(self._hand), now)

    def _on_card(self, inp: CardRead, event: TagEvent, now: float, out: list[Output]) -> None:
        hand = self._hand
        if hand is None:
            self.raise_irregularity(Finding(
                "card_between_hands", "A card was drawn from the shoe with no hand in progress",
                {"uid": inp.uid}), out)
            return
        if self.held:
            code = event.card.code if isinstance(event, CardIdentified | DuplicateCard) else None
            self.raise_irregularity(Finding(
                "card_while_held", "A card was drawn while the table is held", {"uid": inp.uid},
                {"card": code}), out)
            return
        step = hand.expected()
        expected = f"expected: {describe_step(step)}"
        if isinstance(event, UnknownTag):
            self.raise_irregularity(Finding(
                "unknown_card", f"Tag {inp.uid} is not in the active deck ({expected})",
                {"uid": inp.uid}), out)
            return
        if isinstance(event, DuplicateCard):
            self.raise_irregularity(Finding(
                "duplicate_card", f"A card already drawn this hand came out again ({expected})",
                {"uid": inp.uid, "first_uid": event.first_uid}, {"card": event.card.code}), out)
            return
        card = event.card
        finding = self.rules.check_card(CardContext(card, inp.uid, hand, step))
        if finding is not None:
            self.raise_irregularity(finding, out)
            return
        if not wants_card(step):
            self.raise_irregularity(Finding(
                "card_not_due", f"A card was drawn but no card is due: {describe_step(step)}",
                {"uid": inp.uid}, {"card": card.code}), out)
            return
        try:
            self.apply(card_input(card), now, out)
        except RuleError as err:
            if err.rule == "duplicate-card":
                self.raise_irregularity(Finding(
                    "duplicate_card", f"A card already on the table was drawn again ({expected})",
                    {"uid": inp.uid}, {"card": card.code}), out)
            else:
                self.raise_irregularity(Finding(
                    "card_not_due", f"The card does not fit: {err.message}", {"uid": inp.uid},
                    {"card": card.code}), out)

    def check_board(self, seen: BoardSeen, out: list[Output]) -> None:
        """Run the board checks on a camera reading (and keep it as the last one seen)."""
        self.board_seen = seen
        hand = self._hand
        if hand is None:
            return
        for found in board_findings(hand.status(), seen, self.secret_cards()):
            if found.flag in self._board_flags:
                continue
            self._board_flags.add(found.flag)
            self.raise_irregularity(found.finding, out)
            if found.exposed_seat is not None:
                self.announce("exposed_card", f"Exposed card: a hole card of seat "
                                              f"{found.exposed_seat} is face up", out,
                              seat=found.exposed_seat, slot=found.finding.data["slot"])

    def _on_device_down(self, inp: DeviceDown, out: list[Output]) -> None:
        if self.devices.get(inp.device) == "lost":
            return
        self.devices[inp.device] = "lost"
        self.announce("device", f"The {inp.device} was lost: {inp.reason}", out,
                      device=inp.device, link="lost")
        if self._hand is not None and inp.device in self.critical_devices:
            self.raise_irregularity(Finding(
                "device_lost", f"The {inp.device} was lost during the hand",
                {"device": inp.device, "reason": inp.reason}), out)

    def _on_restarted(self, now: float, out: list[Output]) -> None:
        """Restart the timers after a daemon restart (devices report afresh)."""
        if self._chips is not None:
            self._chips.restart(now)
        self._dealt_at = {slot: now for slot in self._dealt_at}
        self.announce("restart", "The controller restarted"
                      + (f"; hand {self._hand_number} carries on" if self._hand else ""), out)

    def _on_reads_lost(self, inp: ReadsLost, out: list[Output]) -> None:
        """Raise the reads a device discarded: unsafe during a hand (cards or chips missing)."""
        if self._hand is None:
            self.announce("device", f"The {inp.device} lost {inp.count} reads between hands",
                          out, device=inp.device, lost=inp.count)
            return
        self.raise_irregularity(Finding(
            "reads_lost", f"The {inp.device} discarded {inp.count} reads the controller never "
                          "received", {"device": inp.device, "count": inp.count}), out)

    def _on_device_up(self, inp: DeviceUp, out: list[Output]) -> None:
        if self.devices.get(inp.device) == "ok":
            return
        self.devices[inp.device] = "ok"
        self.announce("device", f"The {inp.device} is back", out, device=inp.device,
                      link="ok")
