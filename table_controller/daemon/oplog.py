"""The operator's log: one line for each thing a technician or the floor acts on.

Rules this module keeps:

1. One table: :data:`OPLOG_RULES` maps every output type of the core to the line it is logged
   as (level and text), or to ``None`` for an output that is not an operator's concern (a
   prompt, an applied card, a reply). A test checks that every output type has a rule.
2. Once each: the core reports a hold, an irregularity, a resolution and a device lost or back
   once (it does not repeat them), so each appears once in the log. Lines are one line each,
   journald-friendly: warnings for what stops or endangers play (a hold, an irregularity, a
   device lost), info for what restores it.
3. Never a hole card: the texts logged are the public texts (the secret parts of an
   irregularity go to the journal and the surveillance feed only).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from table_controller.controller.events import (
    Announcement,
    Applied,
    HandEnded,
    HandStarted,
    HoldEntered,
    HoldLifted,
    IrregularityRaised,
    Output,
    Prompt,
    Reply,
    Resolved,
)

log = logging.getLogger("table_controller.table")

Line = tuple[int, str]
_O = TypeVar("_O")

#: Output type -> its log line, or ``None`` when it is not logged.
OPLOG_RULES: dict[type, Callable[[Any], Line | None] | None] = {
    Prompt: None, Applied: None, Reply: None, HandStarted: None, HandEnded: None,
}


def oplog_rule(cls: type[_O]) -> Callable[[Callable[[_O], Line | None]],
                                          Callable[[_O], Line | None]]:
    """Register the decorated function as the log rule of output type ``cls``."""
    def register(fn: Callable[[_O], Line | None]) -> Callable[[_O], Line | None]:
        OPLOG_RULES[cls] = fn
        return fn
    return register


@oplog_rule(HoldEntered)
def _hold(o: HoldEntered) -> Line:
    return logging.WARNING, f"table held: {o.reason}"


@oplog_rule(HoldLifted)
def _lifted(o: HoldLifted) -> Line:
    return logging.INFO, f"hold lifted: {o.note}"


@oplog_rule(IrregularityRaised)
def _irregularity(o: IrregularityRaised) -> Line:
    holds = " (holds the table)" if o.hold else ""
    return logging.WARNING, f"irregularity {o.id} ({o.kind}){holds}: {o.text}"


@oplog_rule(Resolved)
def _resolved(o: Resolved) -> Line:
    return logging.INFO, f"irregularity {o.irregularity} resolved: {o.note}"


@oplog_rule(Announcement)
def _announcement(o: Announcement) -> Line | None:
    if o.kind == "device":
        link = o.data.get("link")
        if link == "lost" or o.data.get("alert") == "deck_mismatch":
            return logging.WARNING, o.text
        return logging.INFO, o.text
    if o.kind == "restart":
        return logging.INFO, o.text
    return None


def log_outputs(out: Iterable[Output]) -> None:
    """Log the lines of ``out`` an operator cares about."""
    for o in out:
        rule = OPLOG_RULES.get(type(o))
        if rule is None:
            continue
        line = rule(o)
        if line is not None:
            log.log(line[0], "%s", line[1])
