"""``quick_init``: the same ``__init__`` as the dataclass one, only faster to run."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any

import pytest

from table_controller.engine import model
from table_controller.engine.frozen import quick_init
from table_controller.phh import ReplayResult
from table_controller.phh import model as phh_model

QUICK = [
    model.HandConfig, model.ActStep, model.PotView, model.CollectStep, model.ShowStep,
    model.AwardStep, model.HandOverStep, model.Post, model.Act, model.Show, model.Muck,
    phh_model.PhhAction, phh_model.HandHistory, ReplayResult,
]


def _reference(cls: type) -> type:
    """The same fields in a plain frozen, slotted dataclass (its ``__init__`` as dataclasses
    writes it)."""
    specs: list[Any] = []
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            specs.append((f.name, f.type, dataclasses.field(default=f.default)))
        elif f.default_factory is not dataclasses.MISSING:
            specs.append((f.name, f.type, dataclasses.field(default_factory=f.default_factory)))
        else:
            specs.append((f.name, f.type))
    return dataclasses.make_dataclass(cls.__name__, specs, frozen=True, slots=True)


@pytest.mark.parametrize("cls", QUICK, ids=lambda c: c.__name__)
def test_quick_init_takes_and_sets_what_the_dataclass_init_does(cls: type) -> None:
    reference = _reference(cls)
    assert inspect.signature(cls) == inspect.signature(reference)
    required = [f for f in dataclasses.fields(cls)
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    values: list[Any] = [object() for _ in required]  # distinct markers, one per field
    ours, theirs = cls(*values), reference(*values)
    for f in dataclasses.fields(cls):
        assert getattr(ours, f.name) == getattr(theirs, f.name), f.name
    every = [object() for _ in dataclasses.fields(cls)]
    ours = cls(**{f.name: v for f, v in zip(dataclasses.fields(cls), every, strict=True)})
    assert [getattr(ours, f.name) for f in dataclasses.fields(cls)] == every
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(ours, dataclasses.fields(cls)[0].name, 1)
    with pytest.raises(TypeError):
        cls(*values, *([0] * (len(dataclasses.fields(cls)) - len(values) + 1)))


def test_quick_init_default_factories_give_a_new_value_each_time() -> None:
    a = ReplayResult("matched", None, None)
    b = ReplayResult("matched", None, None)
    assert a.differences == {} and a.differences is not b.differences
    assert dataclasses.replace(a, status="odd_chip").status == "odd_chip"
    assert a == b and hash(model.Act(3, model.ActionKind.CALL)) == hash(
        model.Act(3, model.ActionKind.CALL, 0))


def test_quick_init_refuses_what_it_cannot_build_exactly() -> None:
    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        x: int

    @dataclasses.dataclass(slots=True)
    class NotFrozen:
        x: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class PostInit:
        x: int

        def __post_init__(self) -> None:
            pass

    @dataclasses.dataclass(frozen=True, slots=True)
    class KeywordOnly:
        x: int = dataclasses.field(kw_only=True)

    for cls in (NoSlots, NotFrozen, PostInit, KeywordOnly):
        with pytest.raises(TypeError):
            quick_init(cls)
