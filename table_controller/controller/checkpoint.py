"""Checkpoints of the controller core: its whole state between hands, as plain JSON.

Recovery loads the last checkpoint the journal holds and replays only the entries after it
(:mod:`table_controller.daemon.recovery`); the result must be the very core a replay of every
entry builds. So nothing is chosen field by field: :func:`core_state` writes every attribute of
the core (the engine's table and hand, the dealing rules, the irregularity log, the chip
check, the resolver, the prompts) through :mod:`table_controller.engine.snapshot`, and
:func:`restore_core` puts them back.

Rules this module keeps:

1. Configuration is not state: the deck, the chip calibration and the chip tag registry are
   *externals* (:data:`EXTERNALS`), written by name and taken from the core being restored,
   which the caller builds from the configuration the journal recorded at the checkpoint.
2. Restoring changes nothing unless the whole state loads: a checkpoint written by other code,
   or for a core with other attributes, raises :class:`~.engine.snapshot.SnapshotError` and
   leaves the core as it was (the caller replays everything instead).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from table_controller.controller.core import TableCore
from table_controller.engine.snapshot import SnapshotError, dump, load

__all__ = ["EXTERNALS", "SnapshotError", "core_state", "restore_core"]

#: The configuration objects a checkpoint names instead of writing (rule 1).
EXTERNALS = ("deck", "chip_config", "chip_registry")


def _externals(core: TableCore) -> dict[str, object]:
    found: dict[str, object | None] = {
        "deck": core.resolver.cards,
        "chip_config": core.chips.config if core.chips is not None else None,
        "chip_registry": core.chip_registry,
    }
    return {k: v for k, v in found.items() if v is not None}


def core_state(core: TableCore) -> dict[str, Any]:
    """Return the whole state of ``core`` as plain JSON data.

    :raises SnapshotError: if the core holds something a snapshot cannot write (a bug).
    """
    return dump(vars(core), _externals(core))


def restore_core(core: TableCore, state: Mapping[str, Any]) -> None:
    """Make ``core`` (built from the configuration in force) the core ``state`` was taken of.

    :raises SnapshotError: if the state cannot be loaded; ``core`` is then unchanged (rule 2).
    """
    attrs = load(state, _externals(core))
    if not isinstance(attrs, dict) or set(attrs) != set(vars(core)):
        theirs = set(attrs) if isinstance(attrs, dict) else set()
        raise SnapshotError(f"checkpoint is of another core (attributes differ: "
                            f"{sorted(theirs ^ set(vars(core)))})")
    for name, value in attrs.items():
        setattr(core, name, value)
