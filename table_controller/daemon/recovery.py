"""Recovery: replay the journal through the core, with the ``now`` each input was recorded with.

Rules this module keeps:

1. Every ``device_event`` and every *accepted* ``dealer_command`` is replayed, in journal order,
   through the same :meth:`TableCore.handle` the live daemon uses: the state is rebuilt exactly
   (cards, bets, pots, holds, irregularities, prompt numbers).
2. Nothing is journaled or published while replaying; what a crash left incomplete (a hand
   bracket, a PHH file) is completed by the caller afterwards.
3. The daemon's clock never goes behind the journal (:class:`Clock`): after a reboot the
   system's monotonic clock starts again from zero, the core's timers must not go back with it.
4. Each recorded ``config`` entry is applied where it stands (:mod:`.recorded`): a hand is
   replayed under the configuration it was played with. A start under a configuration other
   than the last recorded one is refused before anything is replayed (:func:`check_config`).
5. Every start is journaled (``start``, saying whether the previous run stopped cleanly and
   which holds stay in force), every clean stop too (``stop``).
6. Replay starts from the journal's last ``checkpoint`` (:func:`checkpoint_state`): the core
   is built under the configuration recorded at it, its state loaded, and only the entries
   after it replayed; the result is the core a replay of every entry builds (tested). A
   checkpoint that does not load (written by other code) is logged and everything replayed.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from table_controller.controller.checkpoint import SnapshotError, core_state, restore_core
from table_controller.controller.core import TableCore
from table_controller.controller.events import (
    DealerCommand,
    HandEnded,
    Reply,
    input_from_dict,
)
from table_controller.daemon.journaling import ReadMemory
from table_controller.daemon.recorded import (
    apply_config,
    differences,
    fingerprint,
    fixed_changes,
)
from table_controller.errors import ConfigError
from table_controller.journal import EntryKind, Journal, thaw

log = logging.getLogger(__name__)


class Clock:
    """The daemon's monotonic time: ``time.monotonic()`` plus an offset, never behind the journal.

    :param offset: seconds added to the system's monotonic clock.
    """

    def __init__(self, offset: float = 0.0) -> None:
        self.offset = offset

    def __call__(self) -> float:
        """Return the daemon's monotonic time."""
        return time.monotonic() + self.offset

    def not_before(self, last: float) -> None:
        """Move the clock ahead of ``last`` (the journal's latest time) if it is behind."""
        if time.monotonic() < last:
            self.offset = last - time.monotonic() + 0.001
            log.warning("the monotonic clock is behind the journal (reboot): offset %.3f s",
                        self.offset)


@dataclass(frozen=True, slots=True)
class Replayed:
    """What a replay did: ``inputs`` replayed, ``last`` the latest ``mono_time`` seen."""

    inputs: int
    last: float


def checkpoint_state(core: TableCore, reads: ReadMemory) -> dict[str, Any]:
    """Return what a checkpoint holds: the core's whole state and the reads lately journaled."""
    return {"core": core_state(core), "reads": reads.recent()}


def _from_checkpoint(core: TableCore, journal: Journal, reads: ReadMemory,
                     configured: str | None) -> tuple[int, float, str | None]:
    """Load the last checkpoint into ``core`` (rule 6).

    :returns: the checkpoint's sequence number (0: none loaded), its ``mono_time``, and the
        fingerprint of the configuration the core is under now.
    :raises JournalDamagedError: if the checkpoint cannot be read back as verified.
    """
    found = journal.last_checkpoint()
    if found is None:
        return 0, 0.0, configured
    entry, state = found
    at = journal.config_for(entry.seq)
    if at is not None:
        recorded = thaw(at.payload["config"])
        if fingerprint(recorded) != configured:
            apply_config(core, recorded)
            configured = fingerprint(recorded)
    try:
        restore_core(core, state["core"])
    except (SnapshotError, KeyError, TypeError) as exc:
        log.warning("journal %s: checkpoint entry %d does not load (%s): replaying every "
                    "entry", journal.path, entry.seq, exc)
        return 0, 0.0, configured
    reads.restore(state.get("reads", []))
    log.info("recovery starts from checkpoint entry %d (after hand %s)", entry.seq,
             entry.payload.get("hand"))
    return entry.seq, entry.mono_time, configured


def replay(core: TableCore, journal: Journal, reads: ReadMemory,
           hand_ended: Callable[[HandEnded], None], *, configured: str | None = None,
           checkpoints: bool = True) -> Replayed:
    """Replay ``journal`` through ``core``; remember its reads; report each hand that ended.

    :param configured: fingerprint of the configuration ``core`` was built with; a recorded
        ``config`` entry with another is applied to the core where it stands (rule 4).
    :param checkpoints: start from the last checkpoint (rule 6); ``False``: replay every entry.
    :raises JournalDamagedError: if an entry cannot be read back as verified.
    """
    n = 0
    since, last = 0, 0.0
    if checkpoints:
        since, last, configured = _from_checkpoint(core, journal, reads, configured)
    for entry in journal.entries(since=since):
        last = max(last, entry.mono_time)
        if entry.kind is EntryKind.CONFIG:
            recorded = thaw(entry.payload["config"])
            if fingerprint(recorded) != configured:
                apply_config(core, recorded)
                configured = fingerprint(recorded)
            continue
        if entry.kind is EntryKind.DEVICE_EVENT:
            inp = input_from_dict(entry.payload["input"])
        elif entry.kind is EntryKind.DEALER_COMMAND:
            if not entry.payload.get("reply", {}).get("accepted"):
                continue
            body = dict(thaw(entry.payload["command"]))
            inp = DealerCommand(str(body.pop("command")), body)
        else:
            continue
        reads.seen(inp)
        out = core.handle(inp, entry.mono_time)
        n += 1
        for o in out:
            if isinstance(o, Reply) and not o.accepted:
                log.error("replay: journal entry %d was accepted, now refused: %s",
                          entry.seq, o.reason)
            if isinstance(o, HandEnded) and not o.voided:
                hand_ended(o)
    return Replayed(n, last)


def complete_brackets(core: TableCore, journal: Journal, now: float) -> None:
    """Journal the hand bracket a crash left out (the core's hand and the journal's disagree).

    :raises JournalError: if the write fails.
    """
    if journal.current_hand is not None and core.hand is None:
        journal.append("hand_end", {"text": f"hand {journal.current_hand} ends (completed "
                                            "at recovery)"}, wall_time=time.time(),
                       mono_time=now)
    elif journal.current_hand is None and core.hand is not None:
        journal.append("hand_start", {"text": f"hand {core.hand_number} starts (completed "
                                              "at recovery)"}, wall_time=time.time(),
                       mono_time=now)


@dataclass(frozen=True, slots=True)
class ConfigCheck:
    """What :func:`check_config` found: the configuration to run with and what to journal.

    :param config: the decision configuration of this start.
    :param fingerprint: its fingerprint.
    :param record: ``"first start"`` or ``"changed"`` (journal a ``config`` entry), or ``None``.
    :param changed: the keys that changed (``"key: old -> new"``).
    """

    config: dict[str, Any]
    fingerprint: str
    record: str | None
    changed: tuple[str, ...] = ()


def check_config(journal: Journal, current: dict[str, Any], *,
                 accept_change: bool) -> ConfigCheck:
    """Compare this start's configuration with the last one the journal recorded.

    :raises ConfigError: one line naming the keys that differ, when the configuration differs
        and the change is not asked for, is asked for during a hand, or touches the table's
        layout (seats, chip zones, table id).
    """
    fp = fingerprint(current)
    last = journal.last_of(EntryKind.CONFIG)
    if last is None:
        return ConfigCheck(current, fp, "first start")
    diffs = differences(thaw(last.payload["config"]), current)
    if not diffs:
        return ConfigCheck(current, fp, None)
    where = f"journal {journal.path} (config entry {last.seq})"
    fixed = fixed_changes(diffs)
    if fixed:
        raise ConfigError(f"{where}: cannot change on this journal: {'; '.join(fixed)} "
                          "(a new layout needs a new journal)")
    if not accept_change:
        raise ConfigError(f"{where} was recorded under another configuration: "
                          f"{'; '.join(diffs)}; start with the recorded configuration, or "
                          "between hands with --accept-config-change")
    if journal.current_hand is not None:
        raise ConfigError(f"{where}: hand {journal.current_hand} is in progress: the "
                          f"configuration can change between hands only ({'; '.join(diffs)})")
    return ConfigCheck(current, fp, "changed", tuple(diffs))


def record_config(core: TableCore, journal: Journal, check: ConfigCheck, now: float) -> None:
    """Journal this start's configuration if :func:`check_config` said so, and apply it.

    :raises JournalError: if the write fails.
    """
    if check.record is None:
        return
    text = (f"configuration recorded at first start (fingerprint {check.fingerprint})"
            if check.record == "first start" else
            f"configuration changed by the operator: {'; '.join(check.changed)} (fingerprint "
            f"{check.fingerprint})")
    journal.append(EntryKind.CONFIG, {"text": text, "fingerprint": check.fingerprint,
                                      "config": check.config, "changed": list(check.changed)},
                   wall_time=time.time(), mono_time=now)
    apply_config(core, check.config)


def journal_start(journal: Journal, core: TableCore, now: float) -> None:
    """Journal this start, saying how the previous run ended (rule 5).

    The previous run stopped cleanly when a ``stop`` entry follows its ``start`` entry; a
    journal with a ``start`` and no ``stop`` after it was left by a crash or a power cut.

    :raises JournalError: if the write fails.
    """
    start, stop = journal.last_of(EntryKind.START), journal.last_of(EntryKind.STOP)
    if start is None:
        previous = "first start" if journal.last_seq == 0 or stop is None else "unknown"
    elif stop is not None and stop.seq > start.seq:
        previous = "clean"
    else:
        previous = "unclean"
    words = {"first start": "first start on this journal",
             "unknown": "the previous run left no start entry",
             "clean": "the previous run stopped cleanly",
             "unclean": f"the previous run (started at entry {start.seq if start else 0}) did "
                        "not stop cleanly (crash or power cut)"}[previous]
    held = [reason for reason, _ in core.holds]
    text = f"daemon started: {words}" + (f"; the table stays held: {'; '.join(held)}"
                                         if held else "")
    journal.append(EntryKind.START, {"text": text, "previous": previous, "held": held,
                                     "pid": os.getpid()},
                   wall_time=time.time(), mono_time=now)


def journal_stop(journal: Journal, code: int, now: float) -> None:
    """Journal a clean stop with the exit status.

    :raises JournalError: if the write fails.
    """
    journal.append(EntryKind.STOP, {"text": f"daemon stopped (exit status {code})",
                                    "exit": code}, wall_time=time.time(), mono_time=now)
