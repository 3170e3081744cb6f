"""The soak's accounting: what the journal says happened, against what the dealer did.

:func:`read_journal` replays the journal through a fresh core (read-only) into
:class:`JournalFacts`: the card assigned to each seat, burn and board slot, hand brackets,
command records, link-fault entries. :func:`compare_cards` and :func:`check_histories` fill a
:class:`~.report.SoakReport` from them (cards drawn vs assigned, incomplete hands, missing hand
histories and why).
"""

from __future__ import annotations

import contextlib
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table_controller.simtable.rig import SimRig
from table_controller.simtable.soak.report import SoakReport


def step_key(step: Mapping[str, Any]) -> tuple[Any, ...]:
    """Where a card goes: ``("hole", seat, round)``, ``("burn", street)``, ``("board", slot)``."""
    kind = step.get("kind")
    if kind == "deal_hole":
        return ("hole", int(step["seat"]), int(step["round"]))
    if kind == "burn":
        return ("burn", str(step["street"]))
    if kind == "board":
        return ("board", int(step["slot"]))
    return ("not-a-card-step", str(kind))


@dataclass(slots=True)
class JournalFacts:
    """What the journal says happened, read by replaying it through a fresh core."""

    assigned: list[tuple[int, tuple[Any, ...], str]] = field(default_factory=list)
    holes: dict[int, dict[int, list[str]]] = field(default_factory=dict)
    shown: dict[int, set[int]] = field(default_factory=dict)
    burns: dict[int, list[str]] = field(default_factory=dict)
    hand_starts: Counter[int] = field(default_factory=Counter)
    hand_ends: Counter[int] = field(default_factory=Counter)
    voided: set[int] = field(default_factory=set)
    commands: Counter[tuple[str, int]] = field(default_factory=Counter)
    entries: int = 0
    refused_on_replay: int = 0
    link_faults: int = 0


def read_journal(config_path: Path) -> JournalFacts:
    """Replay the journal of ``config_path``'s table through a new core (read-only).

    :raises JournalError: if the journal does not verify.
    """
    from table_controller.config import load_config
    from table_controller.controller.events import (
        Applied,
        DealerCommand,
        HandEnded,
        HandStarted,
        Reply,
        input_from_dict,
    )
    from table_controller.daemon import build_core
    from table_controller.journal import EntryKind, Journal, thaw

    config = load_config(config_path)
    core = build_core(config)
    facts = JournalFacts()
    hand = 0
    with contextlib.closing(Journal.open(config.journal.path, readonly=True)) as journal:
        journal.verify()
        for entry in journal.entries():
            facts.entries += 1
            if entry.kind is EntryKind.HAND_START:
                facts.hand_starts[int(entry.hand or 0)] += 1
                continue
            if entry.kind is EntryKind.HAND_END:
                facts.hand_ends[int(entry.hand or 0)] += 1
                continue
            if entry.kind is EntryKind.DECISION and "link_fault" in entry.payload:
                facts.link_faults += 1
                continue
            if entry.kind is EntryKind.DEVICE_EVENT:
                inp = input_from_dict(entry.payload["input"])
            elif entry.kind is EntryKind.DEALER_COMMAND:
                body = dict(thaw(entry.payload["command"]))
                console = str(entry.payload.get("console", ""))
                seq = int(entry.payload.get("seq", 0))
                facts.commands[(console, seq)] += 1
                if not entry.payload.get("reply", {}).get("accepted"):
                    continue
                inp = DealerCommand(str(body.pop("command")), body)
            else:
                continue
            for o in core.handle(inp, entry.mono_time):
                if isinstance(o, HandStarted):
                    hand = o.number
                elif isinstance(o, HandEnded) and o.voided:
                    facts.voided.add(o.number)
                elif isinstance(o, Reply) and not o.accepted:
                    facts.refused_on_replay += 1
                elif isinstance(o, Applied):
                    _take_applied(facts, hand, o.data, o.secret)
    return facts


def _take_applied(facts: JournalFacts, hand: int, data: Mapping[str, Any],
                  secret: Mapping[str, Any]) -> None:
    ev = data.get("event")
    if ev == "hole_card" and data.get("hole_card"):
        seat, card = int(data["seat"]), str(data["hole_card"])
        facts.assigned.append((hand, ("hole", seat, int(data["round"])), card))
        facts.holes.setdefault(hand, {}).setdefault(seat, []).append(card)
    elif ev == "burn" and secret.get("burn"):
        facts.assigned.append((hand, ("burn", str(data["street"])), str(secret["burn"])))
        facts.burns.setdefault(hand, []).append(str(secret["burn"]))
    elif ev == "board" and data.get("card"):
        facts.assigned.append((hand, ("board", int(data["slot"])), str(data["card"])))
    elif ev == "show":
        facts.shown.setdefault(hand, set()).add(int(data["seat"]))




def compare_cards(report: SoakReport, drawn: Sequence[tuple[int, tuple[Any, ...], str]],
                  assigned: Sequence[tuple[int, tuple[Any, ...], str]]) -> None:
    """Compare the cards the shoe drew (per step) with the cards the journal assigned."""
    report.cards_drawn, report.cards_assigned = len(drawn), len(assigned)
    for i in range(max(len(drawn), len(assigned))):
        d = drawn[i] if i < len(drawn) else None
        a = assigned[i] if i < len(assigned) else None
        if d != a:
            report.misassigned.append(f"card {i + 1}: the shoe drew {d}, the journal has {a}")


NO_PHH = re.compile(r"hand (\d+): no PHH file: (\w+)")


def check_histories(report: SoakReport, rig: SimRig, facts: JournalFacts) -> None:
    """Check the journal's hand brackets and command records, and the hand history files."""
    report.journal_entries = facts.entries
    report.link_faults_journaled = facts.link_faults
    report.refused_on_replay = facts.refused_on_replay
    report.duplicate_command_records = sum(n - 1 for n in facts.commands.values() if n > 1)
    hands = sorted(set(facts.hand_starts) | set(facts.hand_ends))
    report.hands_in_journal = len(hands)
    report.incomplete_hands = [h for h in hands
                               if facts.hand_starts[h] != 1 or facts.hand_ends[h] != 1]
    phh = rig.phh_dir
    files = {p.name for p in phh.glob("hand-*.phh")} if phh.exists() else set()
    report.hand_history_files = len(files)
    reasons: dict[int, str] = {}
    with contextlib.suppress(OSError):
        for m in NO_PHH.finditer((rig.dir / "daemon.log").read_text(errors="replace")):
            reasons[int(m[1])] = m[2]
    missing: Counter[str] = Counter()
    for h in hands:
        if h in facts.voided or f"hand-{h:06d}.phh" in files:
            continue
        missing[f"PHH refused: {reasons[h]}" if h in reasons else "no file, no reason"] += 1
    report.hand_histories_missing = dict(missing)
    if missing.get("no file, no reason"):
        report.errors.append(f"{missing['no file, no reason']} hands without a hand history "
                             "and without a logged reason")

