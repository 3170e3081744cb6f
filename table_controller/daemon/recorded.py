"""The configuration that shapes decisions, recorded in the journal so recovery is exact.

Rules this module keeps:

1. :func:`decision_config` is everything that changes what the core decides from the same
   inputs: table id and seats, stakes, rake, house rules, the chip settle window, the camera
   window, the deck profile (every tag and its card), the chip zones and the camera profile's
   identity (a hash of its file). Endpoints, keys, device URLs and timings are not in it.
2. The first start on a journal appends a ``config`` entry holding it and its
   :func:`fingerprint`. A start whose configuration differs from the last recorded one is
   refused (:class:`~table_controller.errors.ConfigError`, naming the keys that differ) before
   anything is replayed, unless the operator asks for the change (``run
   --accept-config-change``): then, between hands only, the new configuration is journaled as
   a ``config`` entry with the keys that changed.
3. Replay applies each recorded configuration at the point it was journaled
   (:func:`apply_config`), so hands played before a change are replayed under the
   configuration they were played with. Seats and chip zones cannot change on a journal (the
   table's layout): that needs a new journal.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from calibration.chips import ChipConfig
from hardware.shoe.resolver import TagResolver
from table_controller.config import ControllerConfig
from table_controller.controller.core import TableCore
from table_controller.controller.dealing import DealingRules
from table_controller.controller.house_rules import HouseRules
from table_controller.engine import Card, RakeRule
from table_controller.errors import ConfigError
from table_controller.journal import canonical_json

#: Keys that cannot change on one journal (the table's layout).
FIXED = ("table.id", "table.seats", "chips.denominations", "chips.zones")


def _file_hash(path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        raise ConfigError(f"calibration.camera_profile: cannot read {path}: {exc}") from exc


def deck_fingerprint(cards: Mapping[str, str]) -> str:
    """Return the identity of a deck profile (its tags and cards)."""
    return hashlib.sha256(canonical_json(cards).encode()).hexdigest()[:16]


def decision_config(config: ControllerConfig, *, settle: float, camera_window: float | None,
                    deck: Mapping[str, Card], chips: ChipConfig) -> dict[str, Any]:
    """Return the configuration that shapes decisions, as plain JSON (rule 1)."""
    cards = {uid.upper(): str(card) for uid, card in sorted(deck.items())}
    house = config.house_rules or HouseRules()
    return {
        "table": {"id": config.table.id, "seats": config.table.seats},
        "stakes": dataclasses.asdict(config.stakes),
        "rake": dataclasses.asdict(config.rake),
        "house_rules": dataclasses.asdict(house),
        "settle": float(settle),
        "camera_window": camera_window,
        "deck": {"fingerprint": deck_fingerprint(cards), "cards": cards},
        "chips": {"denominations": {str(k): v for k, v in sorted(chips.denominations.items())},
                  "zones": {str(k): v for k, v in sorted(chips.zones.items())}},
        "camera_profile": _file_hash(config.calibration.camera_profile),
    }


def fingerprint(recorded: Mapping[str, Any]) -> str:
    """Return the fingerprint of a decision configuration (16 hex digits)."""
    return hashlib.sha256(canonical_json(recorded).encode()).hexdigest()[:16]


def _flat(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, Mapping) and prefix != "deck.cards.":
        out: dict[str, Any] = {}
        for k, v in value.items():
            if f"{prefix}{k}" == "deck.cards":
                continue  # named by the deck's fingerprint
            out.update(_flat(v, f"{prefix}{k}."))
        return out
    return {prefix.rstrip("."): value}


def differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """Return ``"key: old -> new"`` for each key that differs, in key order.

    >>> differences({"settle": 1.0, "stakes": {"big_blind": 100}},
    ...             {"settle": 1.5, "stakes": {"big_blind": 100}})
    ['settle: 1.0 -> 1.5']
    """
    a, b = _flat(old), _flat(new)
    return [f"{k}: {a.get(k)!r} -> {b.get(k)!r}" for k in sorted(a.keys() | b.keys())
            if a.get(k) != b.get(k)]


def fixed_changes(diffs: list[str]) -> list[str]:
    """Return the differences that no configuration change may make (rule 3)."""
    return [d for d in diffs if any(d.startswith(f"{k}:") or d.startswith(f"{k}.")
                                    for k in FIXED)]


def apply_config(core: TableCore, recorded: Mapping[str, Any]) -> None:
    """Make the core decide as under ``recorded`` (between hands; rule 3)."""
    stakes, rake = recorded["stakes"], recorded["rake"]
    rule = None
    if rake["percent"] > 0:
        rule = RakeRule(round(rake["percent"] * 100), rake["cap"] or 10**12,
                        rake["no_flop_no_drop"])
    core.table.config = dataclasses.replace(
        core.table.config, small_blind=stakes["small_blind"], big_blind=stakes["big_blind"],
        ante=stakes["ante"], bb_ante=stakes["bb_ante"], rake=rule)
    if core.chips is not None:
        core.chips.settle = float(recorded["settle"])
    core.camera_window = recorded["camera_window"]
    if isinstance(core.rules, DealingRules):
        core.rules.house = HouseRules(**recorded["house_rules"])
        core.table.config = dataclasses.replace(core.table.config,
                                                **core.rules.house.table_options())
    cards = {uid: Card.parse(text) for uid, text in recorded["deck"]["cards"].items()}
    core.resolver = TagResolver(cards)
