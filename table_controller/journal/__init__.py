"""The table's journal: durable, hash-chained SQLite log, command idempotency and game recall.

Public API (see :mod:`table_controller.journal.store`):

- :class:`Journal` — ``Journal.open(path)``, ``append(kind, payload, wall_time=, mono_time=)``,
  ``append_command(...)``, ``append_commands(records)`` (a group commit; :mod:`.records`),
  ``reply_for(console_id, seq)``, ``entries(since=)``, ``last_seq``,
  ``verify()``, ``current_hand``, ``hand_entries(n)``, ``recent_hands(n=10)``.
  ``last_of(kind)``, ``config_for(seq)``, ``append_checkpoint(state, ...)``,
  ``last_checkpoint()``, ``verified_from``, ``schema``; ``Journal.open(path, full=True)``
  verifies every entry (otherwise from a checkpoint at least ``WINDOW_HANDS`` hands back);
  ``Journal.open(path, schema=1)`` creates a journal of the old on-disk schema (tests);
  ``archive(cuts, at=, wall_time=, mono_time=)``, ``cuts_before(day, at)``, ``archives``,
  ``live_since()`` (daily archive files, :mod:`.archiving`). Writes are serialised by a
  lock (one at a time, from any thread); ``watch`` (:class:`WriteWatch`, :mod:`.watch`) tells
  which threads are inside one.
- :class:`Entry`, :class:`EntryKind`, :class:`HandRecord`.
- The hash chain (:mod:`.chain`), the read paths (:mod:`.reads`), the anchor beside the file
  (:mod:`.anchor`), the archive files (:mod:`.archive`, :mod:`.archiving`), the verification
  (:mod:`.verifying`), the on-disk schemas (:mod:`.layout`, :mod:`.compact`), accepting a
  damaged journal and migrating an old schema (:mod:`.repair`). Damage raises
  :class:`~table_controller.errors.JournalDamagedError`.

Hand histories (PHH) are :mod:`table_controller.phh`, not journal code.
"""

from table_controller.journal.store import (
    GENESIS_HASH,
    CommandRecord,
    Entry,
    EntryKind,
    HandRecord,
    Journal,
    canonical_json,
    thaw,
)
from table_controller.journal.watch import WriteWatch

__all__ = [
    "GENESIS_HASH",
    "CommandRecord",
    "Entry",
    "EntryKind",
    "HandRecord",
    "Journal",
    "WriteWatch",
    "canonical_json",
    "thaw",
]
