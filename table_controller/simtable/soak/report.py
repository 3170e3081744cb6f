"""The soak's report: what a run did and found, and its verdict (:attr:`SoakReport.ok`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class SoakReport:
    """What a soak did and found (``ok`` is the verdict)."""

    options: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    hands_played: int = 0
    prompts: int = 0
    cards_drawn: int = 0
    cards_assigned: int = 0
    misassigned: list[str] = field(default_factory=list)
    lost_cards: list[str] = field(default_factory=list)
    link_faults: dict[str, int] = field(default_factory=dict)
    link_faults_must_show: int = 0
    link_faults_shown: int = 0
    link_faults_journaled: int = 0
    device_counters: dict[str, dict[str, int]] = field(default_factory=dict)
    unplugs: int = 0
    unplugs_shown: int = 0
    replugs_stolen: int = 0
    kills: int = 0
    quiet_kills: int = 0
    restarts_ok: int = 0
    state_mismatches: list[str] = field(default_factory=list)
    cards_compared: int = 0
    replays_checked: int = 0
    replays_answered_from_record: int = 0
    duplicate_command_records: int = 0
    refused_on_replay: int = 0
    chips_before: int = 0
    chips_after: int = 0
    rake: int = 0
    chip_checks: int = 0
    rebuys: int = 0
    chip_differences: list[str] = field(default_factory=list)
    crashes: int = 0
    irregularities: dict[str, int] = field(default_factory=dict)
    holds: int = 0
    hands_in_journal: int = 0
    incomplete_hands: list[int] = field(default_factory=list)
    hand_history_files: int = 0
    hand_histories_missing: dict[str, int] = field(default_factory=dict)
    journal_entries: int = 0
    leaks: dict[str, Any] = field(default_factory=dict)
    daemon_exit: int | None = None
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing was lost, misassigned, duplicated or crashed, and chips agree."""
        return (not self.misassigned and not self.lost_cards and not self.state_mismatches
                and not self.chip_differences
                and not self.errors and self.crashes == 0 and self.duplicate_command_records == 0
                and self.refused_on_replay == 0 and not self.incomplete_hands
                and self.link_faults_shown >= self.link_faults_must_show
                and self.unplugs_shown == self.unplugs
                and self.replays_answered_from_record == self.replays_checked
                and self.restarts_ok == self.kills and self.daemon_exit in (0, None)
                and not self.leaks.get("leaks")
                and (not self.leaks or self.leaks.get("surveillance_hole_cards", 0) > 0))

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form (with ``ok``)."""
        return {**dataclasses.asdict(self), "ok": self.ok}

    def lines(self) -> list[str]:
        """Return the report in plain words."""
        return [
            f"hands {self.hands_played}, prompts {self.prompts}, {self.seconds:.1f} s",
            f"cards drawn {self.cards_drawn}, assigned {self.cards_assigned}, "
            f"misassigned {len(self.misassigned)}, lost at a kill {len(self.lost_cards)}",
            f"link faults injected {sum(self.link_faults.values())} {self.link_faults}; "
            f"that must show {self.link_faults_must_show}, shown {self.link_faults_shown}; "
            f"link-fault entries in the journal {self.link_faults_journaled}",
            f"unplugs {self.unplugs}, shown {self.unplugs_shown} (plugged in again because "
            f"another process had locked the new pty: {self.replugs_stolen})",
            f"kills {self.kills} (quiet {self.quiet_kills}), restarts that resumed "
            f"{self.restarts_ok}, state mismatches {len(self.state_mismatches)} (hole cards "
            f"compared across quiet kills {self.cards_compared})",
            f"resent commands {self.replays_checked}, answered from the record "
            f"{self.replays_answered_from_record}; duplicate command records "
            f"{self.duplicate_command_records}",
            f"chips bought in {self.chips_before:,} ({self.rebuys} rebuys), after "
            f"{self.chips_after:,} + rake {self.rake:,}; checks {self.chip_checks}, "
            f"differences {len(self.chip_differences)}",
            f"crashes {self.crashes}; irregularities {self.irregularities}; holds {self.holds}",
            f"hands in the journal {self.hands_in_journal}, incomplete {self.incomplete_hands}; "
            f"hand histories {self.hand_history_files}, missing {self.hand_histories_missing}",
            *([f"public-side subscribers: messages {self.leaks.get('messages')}, showdowns "
               f"{self.leaks.get('showdowns')}, all-ins {self.leaks.get('all_ins')}, leaks "
               f"{len(self.leaks.get('leaks', []))}, surveillance hole cards (control) "
               f"{self.leaks.get('surveillance_hole_cards')}"] if self.leaks else []),
            *(f"leak: {m}" for m in self.leaks.get("leaks", [])[:10]),
            *(f"error: {e}" for e in self.errors),
            *(f"misassigned: {m}" for m in self.misassigned[:10]),
            *(f"lost card: {m}" for m in self.lost_cards[:10]),
            *(f"state mismatch: {m}" for m in self.state_mismatches[:10]),
            *(f"chip difference: {m}" for m in self.chip_differences[:10]),
        ]

