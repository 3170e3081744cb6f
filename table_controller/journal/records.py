"""Dealer commands as the journal records them: one entry each, keyed by ``(console, seq)``."""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from table_controller.errors import JournalError
from table_controller.journal.chain import canonical_json


@dataclass(frozen=True)
class CommandRecord:
    """A dealer command and its reply, to journal (:meth:`.Journal.append_commands`)."""

    console: str
    seq: int
    command: Mapping[str, Any]
    reply: Mapping[str, Any]
    #: the name of the CURVE key that authenticated the console
    key: str | None = None


def command_payloads(records: Sequence[CommandRecord],
                     stored: Container[tuple[str, int]]) -> list[dict[str, Any]]:
    """Check ``records`` and return their ``dealer_command`` payloads, in order.

    :param stored: the ``(console, seq)`` already journaled.
    :raises JournalError: if a ``(console, seq)`` is in ``stored`` or given twice, or on a bad
        console id, seq or reply.
    """
    payloads: list[dict[str, Any]] = []
    given: set[tuple[str, int]] = set()
    for r in records:
        if not r.console or not isinstance(r.console, str):
            raise JournalError(f"console id must be a non-empty string, got {r.console!r}")
        if isinstance(r.seq, bool) or not isinstance(r.seq, int) or r.seq < 0:
            raise JournalError(f"command seq must be an integer >= 0, got {r.seq!r}")
        if (r.console, r.seq) in stored or (r.console, r.seq) in given:
            raise JournalError(f"reply for console {r.console!r} seq {r.seq} already stored")
        given.add((r.console, r.seq))
        canonical_json(r.reply)
        payload: dict[str, Any] = {"console": r.console, "seq": r.seq, "command": r.command,
                                   "reply": r.reply}
        if r.key is not None:
            payload["key"] = r.key
        payloads.append(payload)
    return payloads
