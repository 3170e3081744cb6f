"""A faster ``__init__`` for the frozen, slotted dataclasses made on every input.

Rules this module keeps:

1. :func:`quick_init` changes only how fast an instance is built: the ``__init__`` it gives a
   class takes the same parameters (names, order, defaults, default factories) and sets the
   same values as the one ``dataclasses`` wrote; instances stay frozen, compare, hash, print
   and ``dataclasses.replace`` as before (the tests check it on every class it is used on).
2. It refuses (``TypeError``) any class it cannot build exactly so: not a frozen, slotted
   dataclass, or one with ``__post_init__``, ``init=False`` or keyword-only fields.

Why: the ``__init__`` of a frozen dataclass sets each field through ``object.__setattr__``
(looked up and called generically per field); calling each slot's own setter instead takes
about half the time. A hand replayed makes a few dozen of these objects (steps, pots, configs).

>>> from dataclasses import dataclass, field
>>> @quick_init
... @dataclass(frozen=True, slots=True)
... class Point:
...     x: int
...     y: int = 0
...     tags: dict[str, int] = field(default_factory=dict)
>>> Point(1), Point(1, 2, {"a": 1}) == Point(x=1, y=2, tags={"a": 1})
(Point(x=1, y=0, tags={}), True)
"""

from __future__ import annotations

import dataclasses
import inspect
from types import FunctionType
from typing import TypeVar, cast

T = TypeVar("T")


def quick_init(cls: type[T]) -> type[T]:
    """Give a frozen, slotted dataclass an ``__init__`` that sets its slots directly.

    :raises TypeError: if the class is not one :func:`quick_init` can build exactly as the
        dataclass ``__init__`` does (see rule 2).
    """
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} is not a frozen, slotted dataclass")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} has a __post_init__")
    defaults = {name: p.default for name, p in inspect.signature(cls.__init__).parameters.items()}
    names: dict[str, object] = {}
    args: list[str] = []
    body: list[str] = []
    for i, f in enumerate(dataclasses.fields(cls)):  # type: ignore[arg-type]
        if not f.init or f.kw_only:
            raise TypeError(f"{cls.__name__}.{f.name} is not a plain positional field")
        names[f"_set{i}"] = cls.__dict__[f.name].__set__  # the slot's own setter
        if f.default is not dataclasses.MISSING:
            names[f"_default{i}"] = f.default
            args.append(f"{f.name}=_default{i}")
        elif f.default_factory is not dataclasses.MISSING:
            names[f"_factory{i}"] = f.default_factory
            args.append(f"{f.name}=_NO_VALUE")
            body.append(f"if {f.name} is _NO_VALUE: {f.name} = _factory{i}()")
            names["_NO_VALUE"] = defaults[f.name]  # the dataclass's own marker (its signature)
        else:
            args.append(f.name)
        body.append(f"_set{i}(self, {f.name})")
    source = f"def __init__(self, {', '.join(args)}):\n    " + "\n    ".join(body or ["pass"])
    exec(source, names)  # as dataclasses writes its own __init__
    init = cast(FunctionType, names["__init__"])
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    init.__annotations__ = dict(cls.__init__.__annotations__)  # the same signature, typed
    setattr(cls, "__init__", init)  # noqa: B010 - a method replaced on purpose
    return cls
