"""The journal's hash chain: entries, their hashes, and the verified state kept in memory.

Rules this module keeps:

1. Each entry stores ``hash = SHA-256(previous hash + canonical content)``; the first entry
   chains from :data:`GENESIS_HASH`. The content is every column of the row (sequence number,
   kind, times, hand number, payload), so a change to any stored field changes the hash.
2. :class:`Chain` accepts rows one at a time, in order, and refuses (with
   :class:`~table_controller.errors.JournalDamagedError`) a row of the wrong type, a gap, a row
   that does not chain, an altered row, an unknown kind, or a hand bracket out of order.
3. Everything the journal looks up (a command's reply by ``(console, seq)``, a hand's entries,
   the last entry of a kind) is derived here from accepted rows, never from an SQLite index or a
   side table: a damaged page can only make a read fail, never answer wrongly.
4. A chain may be *resumed* from a verified ``checkpoint`` entry (:meth:`Chain.resumed`): its
   summary (:meth:`Chain.summary`) carries what the entries before it would have given (the
   counts, the last entry of each kind, the configurations, each console's last command) and
   the hashes of those entries (*pins*). Rows before the checkpoint are then known only by
   their pins: a pinned row is checked against its pin; any other is not known
   (:class:`NotVerified`) until the whole chain is verified.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from table_controller.errors import JournalDamagedError, JournalError

#: ``prev_hash`` of entry 1.
GENESIS_HASH = "0" * 64

#: One row of the ``entries`` table, whichever schema stores it (:mod:`.layout`).
Row = tuple[Any, Any, Any, Any, Any, Any, Any, Any]


class EntryKind(StrEnum):
    """What an entry records."""

    DEVICE_EVENT = "device_event"
    DEALER_COMMAND = "dealer_command"
    DECISION = "decision"
    HOLD = "hold"
    RESOLUTION = "resolution"
    HAND_START = "hand_start"
    HAND_END = "hand_end"
    #: The configuration that shapes decisions (first start, or a journaled change).
    CONFIG = "config"
    #: The daemon started (and how it found the previous run).
    START = "start"
    #: The daemon stopped cleanly.
    STOP = "stop"
    #: A deliberate operator act on the journal itself (a damaged tail accepted).
    OPERATOR = "operator"
    #: The table's state between hands (recovery starts from the last one), with a summary
    #: of the chain before it (an open verifies from a checkpoint, not from entry 1).
    CHECKPOINT = "checkpoint"
    #: Entries moved into a sealed archive file (:mod:`.archive`): the payload lists every
    #: archive of the journal so far (file, sequence range, hashes, SHA-256 of the file).
    ARCHIVE = "archive"

    def describe(self) -> str:
        """Plain words, e.g. ``"device event"``."""
        return self.value.replace("_", " ")


@dataclass(frozen=True, slots=True)
class Entry:
    """One committed journal entry.

    :param seq: sequence number, 1, 2, 3, ... without gaps.
    :param kind: what the entry records.
    :param wall_time: wall-clock time (seconds since the epoch) passed in by the caller.
    :param mono_time: monotonic time passed in by the caller.
    :param hand: number of the hand open when the entry was written (``None`` between hands).
    :param payload: the JSON data (read-only mapping).
    :param prev_hash: hash of the previous entry (:data:`GENESIS_HASH` for entry 1).
    :param hash: SHA-256 hex digest of ``prev_hash`` + this entry's canonical content.
    """

    seq: int
    kind: EntryKind
    wall_time: float
    mono_time: float
    hand: int | None
    payload: Mapping[str, Any]
    prev_hash: str
    hash: str


@dataclass(frozen=True, slots=True)
class HandRecord:
    """All entries of one hand, ``hand_start`` first.

    :param hand: the hand number assigned by the journal.
    :param entries: every entry of the hand in order.
    :param complete: ``True`` when the hand's ``hand_end`` entry has been written.
    """

    hand: int
    entries: tuple[Entry, ...]
    complete: bool


def _mapping(value: Any) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def canonical_json(payload: Mapping[str, Any]) -> str:
    """Serialise a payload the one way the hash chain depends on (sorted keys, no spaces).

    >>> canonical_json({"b": 1, "a": [1, 2]})
    '{"a":[1,2],"b":1}'

    Read-only mappings (an :attr:`Entry.payload`) and tuples are accepted.

    :raises JournalError: if the payload is not JSON-serialisable or holds NaN / infinity.
    """
    try:
        return json.dumps(
            payload, sort_keys=True, separators=(",", ":"), allow_nan=False, default=_mapping
        )
    except (TypeError, ValueError) as exc:
        raise JournalError(f"payload is not plain JSON: {exc}") from exc


def entry_hash(
    prev_hash: str,
    seq: int,
    kind: str,
    wall_time: float,
    mono_time: float,
    hand: int | None,
    payload_json: str,
) -> str:
    """Return the chain hash of one entry (hex SHA-256 of the previous hash + the content)."""
    content = json.dumps(
        [seq, kind, repr(float(wall_time)), repr(float(mono_time)), hand, payload_json],
        separators=(",", ":"),
    )
    return hashlib.sha256((prev_hash + content).encode("utf-8")).hexdigest()


def freeze(value: Any) -> Any:
    """Turn parsed JSON into read-only mappings and tuples."""
    if isinstance(value, dict):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """Turn a frozen payload (read-only mappings, tuples) back into plain dicts and lists."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [thaw(v) for v in value]
    return value


class NotVerified(LookupError):
    """A row before a resumed chain's start that no pin covers (verify the whole chain)."""


def _is_hex64(value: Any) -> bool:
    if not isinstance(value, str) or len(value) != 64:
        return False
    try:
        bytes.fromhex(value)
    except ValueError:
        return False
    return True


class Chain:
    """The verified prefix of one journal, in memory.

    :param where: the journal's path, named in every error.
    """

    def __init__(self, where: str) -> None:
        self.where = where
        #: Entries before the verified window (0: the whole chain is verified).
        self.base = 0
        self._base_head = GENESIS_HASH
        #: seq -> hash of entries before the window known from a checkpoint's summary.
        self.pins: dict[int, str] = {}
        self._digests: list[bytes] = []
        self.last_hand = 0
        self.open_hand: int | None = None
        #: hand number -> (seq of its ``hand_start``, seq of its ``hand_end`` or ``None``).
        self.hands: dict[int, tuple[int, int | None]] = {}
        #: ``(console, command seq)`` -> seq of the ``dealer_command`` entry.
        self.commands: dict[tuple[str, int], int] = {}
        #: console -> its highest command seq.
        self.last_command: dict[str, int] = {}
        #: entry kind -> seq of its last entry.
        self.last_of: dict[EntryKind, int] = {}
        #: seq of every ``config`` entry, in order.
        self.configs: list[int] = []
        #: The ``archives`` list of the last ``archive`` entry accepted (``None``: none seen).
        self.archives: tuple[Mapping[str, Any], ...] | None = None

    @classmethod
    def resumed(cls, where: str, summary: Mapping[str, Any], prev_hash: str) -> Chain:
        """Return a chain that starts at a checkpoint entry (rule 4), before accepting it.

        :param summary: the checkpoint's ``chain`` (what :meth:`summary` returned when it was
            written); the checkpoint's own row must be accepted next.
        :param prev_hash: the checkpoint row's ``prev_hash`` (checked when the rows after it
            reach the anchored head).
        :raises JournalDamagedError: if the summary is malformed.
        """
        chain = cls(where)
        try:
            chain.base = int(summary["count"])
            chain.last_hand = int(summary["last_hand"])
            chain.last_of = {EntryKind(k): int(v) for k, v in summary["last_of"].items()}
            chain.configs = [int(c) for c in summary["configs"]]
            chain.last_command = {str(k): int(v) for k, v in summary["last_command"].items()}
            chain.pins = {int(k): str(v) for k, v in summary["pins"].items()}
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise chain.bad(chain.base + 1, f"checkpoint summary is malformed: {exc!r}") from None
        if summary.get("open_hand") is not None or not _is_hex64(prev_hash) or chain.base < 0:
            raise chain.bad(chain.base + 1, "checkpoint summary is malformed")
        chain._base_head = prev_hash
        chain.pins[chain.base] = prev_hash
        return chain

    def summary(self) -> dict[str, Any]:
        """Return what a checkpoint written next records of the chain before it (rule 4)."""
        pins = {seq for seq in (*self.last_of.values(), *self.configs) if seq}
        return {"count": self.count, "last_hand": self.last_hand, "open_hand": self.open_hand,
                "last_of": {k.value: v for k, v in self.last_of.items()},
                "configs": list(self.configs), "last_command": dict(self.last_command),
                "pins": {str(seq): self.digest(seq) for seq in sorted(pins)}}

    @property
    def complete(self) -> bool:
        """``True`` when every entry from 1 was verified (not resumed from a checkpoint)."""
        return self.base == 0

    @property
    def count(self) -> int:
        """Number of entries accepted (= the last sequence number)."""
        return self.base + len(self._digests)

    @property
    def head(self) -> str:
        """Hash of the last accepted entry (:data:`GENESIS_HASH` when none)."""
        return self._digests[-1].hex() if self._digests else self._base_head

    def digest(self, seq: int) -> str:
        """Return the hash of accepted entry ``seq`` (:data:`GENESIS_HASH` for 0).

        :raises NotVerified: for an entry before a resumed chain's window that is not pinned.
        """
        if seq > self.base:
            return self._digests[seq - self.base - 1].hex()
        if seq == 0:
            return GENESIS_HASH
        pin = self.pins.get(seq)
        if pin is None:
            raise NotVerified(seq)
        return pin

    def known(self, seq: int) -> bool:
        """Tell whether entry ``seq`` can be checked without verifying the whole chain."""
        return seq > self.base or seq in self.pins

    def bad(self, seq: int, why: str) -> JournalDamagedError:
        """Return the error for entry ``seq``."""
        return JournalDamagedError(
            f"journal {self.where} does not verify: first bad sequence number {seq}: {why}"
        )

    def check(self, row: Row) -> Entry:
        """Check a row already accepted (read again): it must be the same, bit for bit.

        A row past the accepted prefix is accepted (:meth:`accept`) instead.

        :raises JournalDamagedError: if it differs from what was verified.
        """
        seq = row[0]
        if isinstance(seq, int) and not isinstance(seq, bool) and 0 < seq <= self.count:
            # a pinned row before the window: its own prev_hash, covered by its pinned hash
            prev = self.digest(seq - 1) if seq - 1 > self.base or self.complete or \
                seq - 1 in self.pins else str(row[6])
            entry = self._parse(row, prev)
            if entry.hash != self.digest(seq):
                raise self.bad(seq, "changed since it was verified")
            return entry
        return self.accept(row)

    def accept(self, row: Row) -> Entry:
        """Verify the next row, add it to the chain and return its entry.

        :raises JournalDamagedError: naming the sequence number (see the module rules).
        """
        self.add(row)
        return self._entry(row)

    def add(self, row: Row) -> None:
        """Verify the next row and add it to the chain (the payload is parsed only if needed).

        :raises JournalDamagedError: naming the sequence number (see the module rules).
        """
        seq = row[0]
        expected = self.count + 1
        if seq != expected or isinstance(seq, bool):
            raise self.bad(expected, f"entry {expected} is missing (next is {seq!r})")
        k = self._verified_kind(row, self.head)
        hand = row[4]
        if k is EntryKind.HAND_START:
            if self.open_hand is not None or hand != self.last_hand + 1:
                raise self.bad(seq, "hand start out of order")
            self.last_hand = hand
            self.open_hand = hand
            self.hands[hand] = (seq, None)
        elif hand != self.open_hand:
            raise self.bad(seq, f"hand number {hand}, expected {self.open_hand}")
        if k is EntryKind.HAND_END:
            if self.open_hand is None:
                raise self.bad(seq, "hand end with no hand open")
            self.hands[self.open_hand] = (self.hands[self.open_hand][0], seq)
            self.open_hand = None
        if k is EntryKind.DEALER_COMMAND:
            key = _command_key(self._entry(row).payload)
            # the first wins (:meth:`Journal.append_command` never records one twice; a plain
            # ``append`` of a command is not an answer to give again)
            if key is not None and key not in self.commands:
                self.commands[key] = seq
                self.last_command[key[0]] = max(key[1], self.last_command.get(key[0], -1))
        if k is EntryKind.ARCHIVE:
            try:
                self.archives = archives_of(self._entry(row))
            except JournalDamagedError:
                raise self.bad(seq, "an archive entry without its list of archives") from None
        self.last_of[k] = seq
        if k is EntryKind.CONFIG:
            self.configs.append(seq)
        self._digests.append(bytes.fromhex(row[7]))

    def _parse(self, row: Row, prev: str) -> Entry:
        self._verified_kind(row, prev)
        return self._entry(row)

    def _verified_kind(self, row: Row, prev: str) -> EntryKind:
        seq, kind, wall, mono, hand, payload, prev_hash, digest = row
        if not (isinstance(kind, str) and isinstance(wall, float) and isinstance(mono, float)
                and (hand is None or (isinstance(hand, int) and not isinstance(hand, bool)))
                and isinstance(payload, str) and _is_hex64(prev_hash) and _is_hex64(digest)):
            raise self.bad(seq, "a stored field has the wrong type (damaged)")
        if prev_hash != prev:
            raise self.bad(seq, f"does not chain to entry {seq - 1}")
        if entry_hash(prev, seq, kind, wall, mono, hand, payload) != digest:
            raise self.bad(seq, "content does not match its hash (altered)")
        try:
            return EntryKind(kind)
        except ValueError:
            raise self.bad(seq, f"unknown kind {kind!r}") from None

    def _entry(self, row: Row) -> Entry:
        """Build the entry of a row whose hash was checked."""
        seq, kind, wall, mono, hand, payload, prev_hash, digest = row
        try:
            data = json.loads(payload)
        except ValueError:
            raise self.bad(seq, "payload is not JSON") from None
        if not isinstance(data, dict):
            raise self.bad(seq, "payload is not a JSON object")
        return Entry(seq, EntryKind(kind), wall, mono, hand, freeze(data), prev_hash, digest)


def archives_of(entry: Entry) -> tuple[Mapping[str, Any], ...]:
    """Return the ``archives`` list of an ``archive`` entry (records as read-only mappings).

    :raises JournalDamagedError: if the payload has no list of records.
    """
    records = entry.payload.get("archives")
    if not isinstance(records, tuple) or not all(isinstance(r, Mapping) for r in records):
        raise JournalDamagedError(f"archive entry {entry.seq} has no list of archives")
    return records


def _command_key(payload: Mapping[str, Any]) -> tuple[str, int] | None:
    console, seq = payload.get("console"), payload.get("seq")
    if isinstance(console, str) and isinstance(seq, int) and not isinstance(seq, bool):
        return console, seq
    return None
