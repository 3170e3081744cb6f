"""The snapshot codec: object graphs of the project's classes as JSON, and back."""

from __future__ import annotations

import doctest
import json
from collections import deque
from types import MappingProxyType
from typing import Any

import pytest

from table_controller.engine import snapshot
from table_controller.engine.cards import Card
from table_controller.engine.model import Street
from table_controller.engine.snapshot import SnapshotError, dump, load
from table_controller.engine.table import Table, TableConfig


def test_doctests() -> None:
    assert doctest.testmod(snapshot).failed == 0


def roundtrip(obj: object, **externals: object) -> Any:
    data = json.loads(json.dumps(dump(obj, externals), sort_keys=True))
    return load(data, externals)


def test_values_keep_their_types_order_and_sharing() -> None:
    shared = [Card.parse("Ah")]
    value = {"a": (1, 2.5, None), 3: {Street.FLOP, Street.TURN}, "q": deque([1, 2], maxlen=5),
             "p": MappingProxyType({"k": frozenset({"x"})}), "s1": shared, "s2": shared,
             "inf": float("inf"), (1, "t"): "tuple key"}
    again = roundtrip(value)
    assert again == value and list(again) == list(value)
    assert again["s1"] is again["s2"]
    assert again["q"].maxlen == 5 and isinstance(again["p"], MappingProxyType)


def test_a_table_round_trips_with_its_hand() -> None:
    table = Table(TableConfig(seats=6, small_blind=5, big_blind=10))
    for seat in (1, 3, 5):
        table.seat_player(seat, f"p{seat}", 1000)
    table.start_hand()
    again = roundtrip(table)
    assert dump(again) == dump(table)
    assert again.status() == table.status()


def test_externals_are_named_not_written() -> None:
    deck = {"04AA": Card.parse("Ah")}
    data = dump({"deck": deck}, {"deck": deck})
    assert "04AA" not in json.dumps(data)
    other = {"04AA": Card.parse("Ah")}
    assert load(data, {"deck": other})["deck"] is other
    with pytest.raises(SnapshotError, match="external"):
        load(data)


def test_what_cannot_be_written_or_read_is_refused() -> None:
    with pytest.raises(SnapshotError, match="cannot snapshot"):
        dump({"f": print})
    with pytest.raises(SnapshotError, match="cannot snapshot"):
        dump({"x": object()})
    good = dump(Card.parse("Ah"))
    bad = json.loads(json.dumps(good).replace("table_controller.engine.cards:Card",
                                              "os:system"))
    with pytest.raises(SnapshotError, match="outside the project"):
        load(bad)
    with pytest.raises(SnapshotError, match="version"):
        load({**good, "version": 99})
    with pytest.raises(SnapshotError, match="other code"):
        load({**good, "code": {"table_controller.engine.cards": "0" * 16}})
