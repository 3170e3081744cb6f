"""Journaling: what each input and each output of the core becomes in the journal.

Rules this module keeps:

1. One table per concern. :data:`JOURNAL_RULES` maps every output type of the core to a function
   returning its entry ``(kind, payload)``, or to ``None`` for an output that is not journaled
   on its own (a prompt, an announcement, an applied input: the input's entry and its text
   carry them; a reply: the command endpoint journals it). :data:`INPUT_TEXTS` gives the text of
   a ``device_event`` entry per input type. A new output type is one line here (and one in
   :mod:`.publishing`); a test checks that every output type has a rule.
2. Journal first: the caller publishes only what :meth:`Journaler.input` or
   :meth:`Journaler.outputs` returned from without raising. Those entries are committed
   durably, their anchor deferred (``Journal.append(..., anchor=False)``): the caller publishes,
   then calls :meth:`Journaler.sync_anchor` (the journal also writes it before its next commit,
   so the anchor is never more than one entry behind).
3. Link faults are journaled at most :data:`LINK_FAULTS_PER_SECOND` a second per device, the
   rest counted in the next entry's ``suppressed_before``.
4. Every :data:`CHECKPOINT_EVERY` hands, once the entries of the input that ended a hand are
   written and no hand is open, a ``checkpoint`` entry holds the state recovery would rebuild
   (:func:`.recovery.checkpoint_state`): a restart replays only what follows it.
5. Once a gaming day has ended (``[journal] archive_at``), at the first moment no hand is open
   (a hand's end, or :meth:`Journaler.between_hands`, which the daemon calls every
   :data:`ARCHIVE_CHECK` seconds), a checkpoint is written and the entries before it are
   archived (:mod:`table_controller.journal.archiving`). Never during a hand. The wall clock
   is passed in (``wall``).
6. The WAL is copied into the database once a hand ended, once its outputs were published
   (:meth:`Journaler.checkpoint_wal`, which the daemon calls then), so SQLite's own checkpoint
   (every 1,000 pages, inside whichever commit crosses them, and the slow commit after it)
   does not fall on a card's commit.
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
import os
import time
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from hardware.base import DeviceEvent
from table_controller.controller.events import (
    Announcement,
    Applied,
    BoardSeen,
    CardRead,
    ControllerInput,
    DeviceDown,
    DeviceUp,
    HandEnded,
    HandStarted,
    HoldEntered,
    HoldLifted,
    IrregularityRaised,
    Output,
    Prompt,
    Reply,
    Resolved,
    TraySeen,
    ZoneSeen,
    ZoneTags,
)
from table_controller.journal import EntryKind, Journal
from table_controller.journal.archive import ArchiveRecord, gaming_day

log = logging.getLogger(__name__)

#: A journal entry to append: ``(entry kind, payload)``.
Draft = tuple[str, dict[str, Any]]
_O = TypeVar("_O")

#: Output type -> its journal entry, or ``None`` when it is not journaled on its own.
JOURNAL_RULES: dict[type, Callable[[Any], Draft] | None] = {
    Prompt: None, Announcement: None, Applied: None, Reply: None,
}
#: Input type -> the text of its ``device_event`` entry (when no output gives one).
INPUT_TEXTS: dict[type, Callable[[Any], str]] = {}
#: Link faults journaled per device and second, at most.
LINK_FAULTS_PER_SECOND = 5
#: How many journaled reads the resend filter remembers (a shoe buffers at most 1,024).
READ_MEMORY = 8192
#: A checkpoint is journaled every this many hands (rule 4).
CHECKPOINT_EVERY = 10
#: Seconds between the daemon's checks whether a gaming day has ended (rule 5).
ARCHIVE_CHECK = 60.0
#: Reads a checkpoint keeps for the resend filter (those a shoe may resend after a restart:
#: the last hands' reads, never acknowledged if the daemon died at once).
CHECKPOINT_READS = 256


def journal_rule(cls: type[_O]) -> Callable[[Callable[[_O], Draft]], Callable[[_O], Draft]]:
    """Register the decorated function as the journal rule of output type ``cls``."""
    def register(fn: Callable[[_O], Draft]) -> Callable[[_O], Draft]:
        JOURNAL_RULES[cls] = fn
        return fn
    return register


def input_text(cls: type[_O]) -> Callable[[Callable[[_O], str]], Callable[[_O], str]]:
    """Register the decorated function as the entry text of input type ``cls``."""
    def register(fn: Callable[[_O], str]) -> Callable[[_O], str]:
        INPUT_TEXTS[cls] = fn
        return fn
    return register


def output_types() -> tuple[type, ...]:
    """Every output type of the core (the members of ``Output``)."""
    return typing.get_args(Output)


@journal_rule(HandStarted)
def _hand_started(o: HandStarted) -> Draft:
    return "hand_start", {"text": f"hand {o.number} starts", "number": o.number,
                          "config": dict(o.config)}


@journal_rule(HandEnded)
def _hand_ended(o: HandEnded) -> Draft:
    word = "voided" if o.voided else "ends"
    return "hand_end", {"text": f"hand {o.number} {word}", "voided": o.voided,
                        "final_stacks": {str(s): v for s, v in o.final_stacks.items()}}


@journal_rule(IrregularityRaised)
def _irregularity(o: IrregularityRaised) -> Draft:
    return "decision", {"text": f"irregularity {o.id} ({o.kind}): {o.text}",
                        "irregularity": o.to_dict(), "secret": dict(o.secret)}


@journal_rule(HoldEntered)
def _hold(o: HoldEntered) -> Draft:
    return "hold", {"text": f"table held: {o.reason}", "reason": o.reason,
                    "irregularity": o.irregularity}


@journal_rule(HoldLifted)
def _hold_lifted(o: HoldLifted) -> Draft:
    return "resolution", {"text": f"hold lifted: {o.note}", "note": o.note}


@journal_rule(Resolved)
def _resolved(o: Resolved) -> Draft:
    return "resolution", {"text": f"irregularity {o.irregularity} resolved: {o.note}",
                          "irregularity": o.irregularity, "note": o.note}


@input_text(ZoneSeen)
def _zone_text(inp: ZoneSeen) -> str:
    return f"chip zone {inp.zone} reports {dict(inp.counts)}"


@input_text(ZoneTags)
def _zone_tags_text(inp: ZoneTags) -> str:
    return f"chip zone {inp.zone} reads {len(inp.uids)} chip tags"


@input_text(TraySeen)
def _tray_text(inp: TraySeen) -> str:
    return f"tray reports {dict(inp.counts)}"


@input_text(BoardSeen)
def _board_text(inp: BoardSeen) -> str:
    board = " ".join(c or "--" for c in inp.slots)
    hidden = f" (slots {', '.join(str(i + 1) for i in inp.occluded)} hidden)" \
        if inp.occluded else ""
    return f"camera sees the board {board}{hidden}"


@input_text(CardRead)
def _card_text(inp: CardRead) -> str:
    return f"card tag {inp.uid} read"


@input_text(DeviceDown)
def _down_text(inp: DeviceDown) -> str:
    return f"{inp.device} lost: {inp.reason}"


@input_text(DeviceUp)
def _up_text(inp: DeviceUp) -> str:
    return f"{inp.device} back: {inp.reason}"


def entry_text(inp: ControllerInput, out: list[Output]) -> str:
    """Return the text of an input's ``device_event`` entry: what it did, else what it was."""
    applied = [o.text for o in out if isinstance(o, Applied)]
    if applied:
        return "; ".join(applied)
    irr = [f"irregularity {o.id}: {o.text}" for o in out if isinstance(o, IrregularityRaised)]
    if irr:
        return "; ".join(irr)
    text = INPUT_TEXTS.get(type(inp))
    if text is not None:
        return text(inp)
    return f"{inp.to_dict()['kind']} input"


class ReadMemory:
    """Reads journaled lately, by ``(uid, shoe time)``: a resend of one is dropped.

    A shoe resends what it never saw acknowledged, whatever hand the table is in by then, so
    this is not cleared at hand starts; it keeps the last :data:`READ_MEMORY` reads (far more
    than a shoe's resend buffer), the oldest forgotten first.
    """

    def __init__(self, size: int = READ_MEMORY) -> None:
        self.size = size
        self._reads: dict[tuple[str, int], None] = {}

    def seen(self, inp: ControllerInput) -> bool:
        """Tell whether ``inp`` is a read already journaled; remember it if it is new."""
        if not isinstance(inp, CardRead) or inp.shoe_ms is None:
            return False
        key = (inp.uid, inp.shoe_ms)
        if key in self._reads:
            return True
        self._reads[key] = None
        if len(self._reads) > self.size:
            del self._reads[next(iter(self._reads))]
        return False

    def recent(self, n: int = CHECKPOINT_READS) -> list[list[str | int]]:
        """Return the last ``n`` reads remembered, oldest first, as ``[uid, shoe ms]``."""
        keys = list(self._reads)[-n:] if n else []
        return [[uid, ms] for uid, ms in keys]

    def restore(self, reads: list[list[str | int]]) -> None:
        """Remember ``reads`` (what :meth:`recent` returned), after what is remembered."""
        for uid, ms in reads:
            self._reads[(str(uid), int(ms))] = None
        while len(self._reads) > self.size:
            del self._reads[next(iter(self._reads))]


class Journaler:
    """Appends the daemon's entries to the journal (journal errors are raised to the caller).

    :param journal: the open journal.
    :param after: output type -> what to do once its entry is committed (the daemon writes the
        PHH file of a hand that ended).
    :param checkpoint: returns the state to checkpoint (rule 4); ``None``: no checkpoints.
    :param every: hands between checkpoints.
    :param archive_at: the hour gaming days start: archive once one has ended (rule 5;
        ``None``: never, or without checkpoints).
    :param wall: the wall clock (seconds since the epoch).
    """

    def __init__(self, journal: Journal,
                 after: Mapping[type, Callable[[Any], None]] | None = None, *,
                 checkpoint: Callable[[], dict[str, Any]] | None = None,
                 every: int = CHECKPOINT_EVERY, archive_at: datetime.time | None = None,
                 wall: Callable[[], float] = time.time) -> None:
        self.journal = journal
        self.wall = wall
        self.archive_at = archive_at if checkpoint is not None else None
        #: The gaming day the live journal was last found to start in (rule 5).
        self._live_day: datetime.date | None = None
        self.after = dict(after or {})
        self._faults: dict[str, tuple[float, int, int]] = {}
        self.checkpoint = checkpoint
        self.every = every
        last = journal.last_of(EntryKind.CHECKPOINT)
        self._checkpointed = int(last.payload.get("hand", 0)) if last is not None else 0

    def input(self, inp: ControllerInput, out: list[Output], now: float) -> None:
        """Journal one device input (one ``device_event`` entry), then its outputs' entries.

        :raises JournalError: if a write fails.
        """
        self.journal.append("device_event", {"input": inp.to_dict(),
                                             "text": entry_text(inp, out)},
                            wall_time=self.wall(), mono_time=now, anchor=False)
        self.outputs(out, now)

    def outputs(self, out: list[Output], now: float) -> None:
        """Journal the entries the outputs imply (brackets, holds, decisions, resolutions).

        :raises JournalError: if a write fails.
        """
        wall = self.wall()
        for o in out:
            rule = JOURNAL_RULES[type(o)]
            if rule is None:
                continue
            kind, payload = rule(o)
            self.journal.append(kind, payload, wall_time=wall, mono_time=now, anchor=False)
            after = self.after.get(type(o))
            if after is not None:
                after(o)
        if self.checkpoint is not None and any(isinstance(o, HandEnded) for o in out):
            self._maybe_checkpoint(self.checkpoint, now)
            self.between_hands(now)

    def between_hands(self, now: float) -> list[ArchiveRecord]:
        """Archive the entries of the gaming days that have ended, if no hand is open (rule 5).

        :param now: the monotonic time.
        :returns: the archives made (none: a hand is open, or the day has not ended).
        :raises JournalError: if a write fails.
        """
        journal, at = self.journal, self.archive_at
        if at is None or self.checkpoint is None or journal.current_hand is not None:
            return []
        wall = self.wall()
        today = gaming_day(wall, at)
        if self._live_day is None:
            since = journal.live_since()
            if since is None:
                return []
            self._live_day = gaming_day(since, at)
        if self._live_day >= today:
            return []
        cut = journal.append_checkpoint(self.checkpoint(), wall_time=wall, mono_time=now)
        self._checkpointed = journal.last_hand
        done = journal.archive([cut.seq], at=at, wall_time=wall, mono_time=now,
                               day=today - datetime.timedelta(days=1))
        self._live_day = today
        for rec in done:
            log.info("journal: entries %d..%d archived to %s (gaming day %s)", rec.first,
                     rec.last, rec.file, rec.day)
        return done

    def sync_anchor(self) -> None:
        """Write the anchor the last entries deferred (once what they imply is published).

        :raises JournalError: if it cannot be written.
        """
        self.journal.sync_anchor()

    def checkpoint_wal(self) -> None:
        """Copy the journal's WAL into its database and start the WAL over (rule 6).

        :raises JournalError: if it cannot be written.
        """
        self.journal.checkpoint_wal()

    def _maybe_checkpoint(self, state: Callable[[], dict[str, Any]], now: float) -> None:
        journal = self.journal
        if journal.current_hand is not None or journal.last_hand - self._checkpointed < \
                self.every:
            return
        journal.append_checkpoint(state(), wall_time=self.wall(), mono_time=now)
        self._checkpointed = journal.last_hand

    def link_fault(self, device: str, event: DeviceEvent, now: float) -> None:
        """Journal a link fault (errors must survive a power cycle), at most a few a second.

        :raises JournalError: if a write fails.
        """
        start, written, suppressed = self._faults.get(device, (now, 0, 0))
        if now - start >= 1.0:
            start, written = now, 0
        if written >= LINK_FAULTS_PER_SECOND:
            self._faults[device] = (start, written, suppressed + 1)
            return
        fields = {k: (v.hex() if isinstance(v, bytes) else v)
                  for k, v in dataclasses.asdict(event).items()}
        payload: dict[str, Any] = {
            "text": f"{device} link: {type(event).__name__} {fields}",
            "link_fault": {"device": device, "type": type(event).__name__, **fields},
        }
        if suppressed:
            payload["suppressed_before"] = suppressed
        self.journal.append("decision", payload, wall_time=self.wall(), mono_time=now)
        self._faults[device] = (start, written + 1, 0)

    def device_alert(self, device: str, kind: str, text: str, data: Mapping[str, Any],
                     now: float) -> None:
        """Journal a device alert that is not a core input (a ``decision``, not replayed).

        :raises JournalError: if a write fails.
        """
        self.journal.append("decision", {"text": text, "device_alert": {
            "device": device, "kind": kind, **data}}, wall_time=self.wall(), mono_time=now)


def write_phh(ended: HandEnded, phh_dir: Path, players: Mapping[int, str], table_id: str, *,
              overwrite: bool, when: datetime.datetime | None = None) -> None:
    """Write the PHH file of a hand that ended (a hand PHH cannot express is logged, skipped).

    ``when``: the hand's time (written as ``time`` / ``time_zone``); ``None`` when not known
    (a file completed at recovery).
    """
    from table_controller.phh import PhhError, dumps, history_from_hand

    path = phh_dir / f"hand-{ended.number:06d}.phh"
    if path.exists() and not overwrite:
        return
    try:
        text = dumps(history_from_hand(ended.hand, players=dict(players),
                                       extra={"hand": ended.number, "table": table_id},
                                       when=when))
    except PhhError as exc:
        log.warning("hand %d: no PHH file: %s", ended.number, exc)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
