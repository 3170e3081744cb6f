"""The core's device inputs: ticks, chip zones, card reads, the camera's board, device health.

A part of :class:`~.core.TableCore` (a mixin it inherits), kept apart so the core module keeps
to the state machine. The rules these handlers keep are the core's (see :mod:`.core`): a card
that does not fit the step the engine expects is an irregularity and is never applied; the
board and chip checks report each finding once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from calibration.chip_registry import ChipOnTwoZones, ChipRegistry, UnknownChip
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
    ZoneTags,
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
    chip_registry: ChipRegistry | None
    chip_settle: float
    _zone_tags: dict[int, tuple[str, ...]]
    _unknown_chips: set[tuple[int, str]]
    _two_zones: dict[str, tuple[tuple[int, ...], float]]
    _two_zones_raised: set[str]

    if TYPE_CHECKING:  # supplied by TableCore (see its documentation)
        @property
        def held(self) -> bool:  # noqa: D102
            ...

        def _unseen_slots(self) -> list[int]: ...

        def settle_chips(self, now: float, out: list[Output]) -> None:  # noqa: D102
            ...

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
        self._raise_two_zones(now, out)
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

    def _on_zone_tags(self, inp: ZoneTags, now: float, out: list[Output]) -> None:
        """Count an RFID zone's tags through the chip registry, then check them as chips.

        A tag the registry does not know is an ``unknown_chip`` at once (named by zone and
        UID); a tag read on two zones is a ``chip_on_two_zones`` once it lasts the settle
        window (a chip slid from one spot to the next is read on both for a moment). Each is
        reported once while it lasts; the counts of every known tag go to the chip check as a
        zone report would.
        """
        registry = self.chip_registry
        if registry is None:
            return
        self._zone_tags[inp.zone] = inp.uids
        counted = registry.amounts(self._zone_tags)
        unknown = {(f.zone, f.uid) for f in counted.findings if isinstance(f, UnknownChip)}
        for zone, uid in sorted(unknown - self._unknown_chips):
            self.raise_irregularity(Finding(
                "unknown_chip", f"Zone {zone}: chip tag {uid} is not in the chip registry",
                {"zone": zone, "uid": uid}), out)
        self._unknown_chips = unknown
        doubled = {f.uid: f.zones for f in counted.findings if isinstance(f, ChipOnTwoZones)}
        self._two_zones = {uid: self._two_zones.get(uid, (zones, now))
                           for uid, zones in doubled.items()}
        self._two_zones_raised &= set(doubled)
        self._raise_two_zones(now, out)
        for zone in sorted(counted.counts):
            self._on_zone(ZoneSeen(zone, counted.counts[zone]), now, out)

    def _raise_two_zones(self, now: float, out: list[Output]) -> None:
        for uid, (zones, since) in sorted(self._two_zones.items()):
            if uid in self._two_zones_raised or now - since < self.chip_settle:
                continue
            self._two_zones_raised.add(uid)
            names = ", ".join(map(str, zones[:-1])) + f" and {zones[-1]}"
            self.raise_irregularity(Finding(
                "chip_on_two_zones", f"Chip tag {uid} is read on zones {names} at once",
                {"uid": uid, "zones": list(zones)}), out)

    def _tags_deadline(self) -> float | None:
        """When a chip read on two zones becomes an irregularity (``None``: none pending)."""
        times = [since + self.chip_settle for uid, (_z, since) in self._two_zones.items()
                 if uid not in self._two_zones_raised]
        return min(times) if times else None

    def _on_zone(self, inp: ZoneSeen, now: float, out: list[Output]) -> None:
        if self._chips is None:
            return
        self._chips.see(inp.zone, inp.counts)
        if self._hand is None:
            return
        self.settle_chips(now, out)

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
        if isinstance(event, UnknownTag):
            self.raise_irregularity(Finding(
                "unknown_card",
                f"Tag {inp.uid} is not in the active deck (expected: {describe_step(step)})",
                {"uid": inp.uid}), out)
            return
        if isinstance(event, DuplicateCard):
            self.raise_irregularity(Finding(
                "duplicate_card", "A card already drawn this hand came out again "
                                  f"(expected: {describe_step(step)})",
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
                    "duplicate_card", "A card already on the table was drawn again "
                                      f"(expected: {describe_step(step)})",
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
