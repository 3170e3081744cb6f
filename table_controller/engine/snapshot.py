"""Snapshots: the engine's live objects (a :class:`~.table.Table` and its hand) as plain JSON.

A checkpoint of the table (written to the journal at hand boundaries) must rebuild the very
state a replay of every entry would: every field, shared objects shared again, dict order kept.
:func:`dump` walks an object graph and returns JSON data; :func:`load` builds it again.

Rules this module keeps:

1. Only plain data and instances of classes of the project's own packages
   (:data:`PACKAGES`) are written; anything else (a function, a socket, a lock) raises
   :class:`SnapshotError`, never a silent loss. Loading builds instances of those classes only,
   without calling their ``__init__`` (no code of the snapshot's choosing runs).
2. Each instance is written with its class and its fields; the snapshot names the identity of
   each module whose classes it holds (a hash of its source, :func:`code_identity`), and
   loading refuses a snapshot written by other code (an upgrade since): the caller then falls
   back to a full replay. :data:`VERSION` names the format.
3. An object met twice is written once and referenced after (``{"$r": n}``): the table's hand
   and the controller's are one object again after :func:`load`. Dicts keep their order and
   the type of their keys; sets are written sorted, so the same state is the same JSON.
4. ``externals`` name objects that are not written (the deck, the chip calibration): they are
   configuration, rebuilt by the caller, and put back where they were by name.

>>> from table_controller.engine.table import Table, TableConfig
>>> table = Table(TableConfig(seats=6, small_blind=5, big_blind=10))
>>> table.seat_player(1, "ann", 1000)
>>> again = load(dump(table))
>>> dump(again) == dump(table), again.status().seats[1].player
(True, 'ann')
"""

from __future__ import annotations

import enum
import hashlib
import importlib
import json
from collections import deque
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from table_controller.errors import TableError

#: Format of :func:`dump`'s output.
VERSION = 1
#: Packages whose classes a snapshot may hold.
PACKAGES = ("table_controller.", "hardware.", "calibration.")

_PLAIN = (str, int, float, bool, type(None))


class SnapshotError(TableError):
    """An object cannot be written to, or read back from, a snapshot."""


def _name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _class(name: str) -> type:
    module, _, qual = name.partition(":")
    if not module.startswith(PACKAGES) or not qual:
        raise SnapshotError(f"snapshot names a class outside the project: {name!r}")
    try:
        obj: Any = importlib.import_module(module)
        for part in qual.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        raise SnapshotError(f"snapshot names an unknown class {name!r}") from None
    if not isinstance(obj, type):
        raise SnapshotError(f"snapshot names {name!r}, which is not a class")
    return obj


def _fields(obj: object) -> dict[str, Any]:
    """Every attribute of an instance: its ``__dict__`` and its slots, sorted by name."""
    out: dict[str, Any] = {}
    for cls in reversed(type(obj).__mro__):
        for slot in cls.__dict__.get("__slots__", ()):
            if slot not in ("__dict__", "__weakref__") and hasattr(obj, slot):
                out[slot] = getattr(obj, slot)
    out.update(getattr(obj, "__dict__", {}))
    return dict(sorted(out.items()))  # the order of assignment is not state


class _Writer:
    def __init__(self, externals: Mapping[str, object]) -> None:
        self.externals = {id(v): k for k, v in externals.items()}
        self.memo: dict[int, int] = {}
        self.keep: list[object] = []  # keeps ids unique while writing
        self.modules: set[str] = set()

    def ref(self, obj: object) -> tuple[int, bool]:
        key = id(obj)
        if key in self.memo:
            return self.memo[key], False
        self.memo[key] = len(self.memo)
        self.keep.append(obj)
        return self.memo[key], True

    def named(self, cls: type) -> str:
        self.modules.add(cls.__module__)
        return _name(cls)

    def write(self, obj: Any) -> Any:
        if isinstance(obj, _PLAIN):
            if isinstance(obj, float) and (obj != obj or obj in (float("inf"), float("-inf"))):
                return {"$f": repr(obj)}
            return obj
        if id(obj) in self.externals:
            return {"$x": self.externals[id(obj)]}
        if isinstance(obj, enum.Enum):
            return {"$e": self.named(type(obj)), "v": self.write(obj.value)}
        n, first = self.ref(obj)
        if not first:
            return {"$r": n}
        if type(obj) is list:
            return {"$l": [self.write(v) for v in obj], "#": n}
        if type(obj) is tuple:
            return {"$t": [self.write(v) for v in obj], "#": n}
        if type(obj) is deque:
            return {"$q": [self.write(v) for v in obj], "m": obj.maxlen, "#": n}
        if type(obj) is dict or type(obj) is MappingProxyType:
            tag = "$d" if type(obj) is dict else "$p"
            return {tag: [[self.write(k), self.write(v)] for k, v in obj.items()], "#": n}
        if type(obj) in (set, frozenset):
            items = sorted((self.write(v) for v in obj),
                           key=lambda v: json.dumps(v, sort_keys=True))
            return {"$s" if type(obj) is set else "$z": items, "#": n}
        cls = type(obj)
        if not cls.__module__.startswith(PACKAGES) or callable(obj):
            raise SnapshotError(f"cannot snapshot a {_name(cls)}")
        if isinstance(obj, tuple):  # a NamedTuple
            return {"$o": self.named(cls), "t": [self.write(v) for v in obj], "#": n}
        fields = _fields(obj)
        return {"$o": self.named(cls), "f": {k: self.write(v) for k, v in fields.items()}, "#": n}


class _Reader:
    def __init__(self, externals: Mapping[str, object]) -> None:
        self.externals = externals
        self.memo: dict[int, object] = {}

    def read(self, data: Any) -> Any:
        if isinstance(data, _PLAIN):
            return data
        if isinstance(data, list) or not isinstance(data, dict):
            raise SnapshotError(f"snapshot holds a bare {type(data).__name__}")
        if "$f" in data:
            return float(data["$f"])
        if "$x" in data:
            if data["$x"] not in self.externals:
                raise SnapshotError(f"snapshot needs the external object {data['$x']!r}")
            return self.externals[data["$x"]]
        if "$e" in data:
            cls = _class(data["$e"])
            if not issubclass(cls, enum.Enum):
                raise SnapshotError(f"{data['$e']!r} is not an enum")
            return cls(self.read(data["v"]))
        if "$r" in data:
            if data["$r"] not in self.memo:
                raise SnapshotError(f"snapshot refers to object {data['$r']} before it")
            return self.memo[data["$r"]]
        n = int(data.get("#", -1))
        if "$l" in data:
            out: list[Any] = []
            self.memo[n] = out
            out.extend(self.read(v) for v in data["$l"])
            return out
        if "$q" in data:
            q: deque[Any] = deque(maxlen=data["m"])
            self.memo[n] = q
            q.extend(self.read(v) for v in data["$q"])
            return q
        if "$d" in data:
            d: dict[Any, Any] = {}
            self.memo[n] = d
            for k, v in data["$d"]:
                d[self.read(k)] = self.read(v)
            return d
        if "$t" in data or "$p" in data or "$s" in data or "$z" in data:
            # immutable containers cannot hold themselves: build the items first
            if "$t" in data:
                value: Any = tuple(self.read(v) for v in data["$t"])
            elif "$p" in data:
                value = MappingProxyType({self.read(k): self.read(v) for k, v in data["$p"]})
            elif "$s" in data:
                value = {self.read(v) for v in data["$s"]}
            else:
                value = frozenset(self.read(v) for v in data["$z"])
            self.memo[n] = value
            return value
        if "$o" in data:
            return self._instance(data, n)
        raise SnapshotError(f"snapshot holds an unknown item {sorted(data)!r}")

    def _instance(self, data: dict[str, Any], n: int) -> object:
        cls = _class(data["$o"])
        if "t" in data:
            value = cls(*(self.read(v) for v in data["t"]))
            self.memo[n] = value
            return value
        obj: object = object.__new__(cls)
        self.memo[n] = obj
        for k, v in data["f"].items():
            object.__setattr__(obj, k, self.read(v))
        return obj


_CODE: dict[str, str] = {}


def code_identity(module: str) -> str:
    """Return the identity of a module's code (a hash of its source file, 16 hex digits)."""
    if module not in _CODE:
        mod = importlib.import_module(module)
        path = getattr(mod, "__file__", None)
        try:
            with open(str(path), "rb") as f:
                _CODE[module] = hashlib.sha256(f.read()).hexdigest()[:16]
        except OSError:
            _CODE[module] = "unknown"
    return _CODE[module]


def dump(obj: object, externals: Mapping[str, object] | None = None) -> dict[str, Any]:
    """Return ``obj`` as plain JSON data (see the module rules).

    :param externals: objects not to write, by name (rule 4).
    :raises SnapshotError: if the graph holds something that cannot be written.
    """
    writer = _Writer(externals or {})
    root = writer.write(obj)
    return {"version": VERSION, "code": {m: code_identity(m) for m in sorted(writer.modules)},
            "root": root}


def load(data: Mapping[str, Any], externals: Mapping[str, object] | None = None) -> Any:
    """Build again what :func:`dump` wrote.

    :param externals: the objects :func:`dump` was told not to write, by the same names.
    :raises SnapshotError: another format version, a class outside the project or changed
        since, or malformed data.
    """
    if data.get("version") != VERSION:
        raise SnapshotError(f"snapshot version {data.get('version')!r}, expected {VERSION}")
    code = data.get("code")
    if not isinstance(code, Mapping):
        raise SnapshotError("snapshot does not say which code wrote it")
    changed = sorted(m for m, ident in code.items()
                     if not str(m).startswith(PACKAGES) or code_identity(str(m)) != ident)
    if changed:
        raise SnapshotError(f"snapshot written by other code ({', '.join(changed)} changed)")
    try:
        return _Reader(externals or {}).read(data["root"])
    except (KeyError, TypeError, ValueError) as exc:
        raise SnapshotError(f"snapshot is malformed: {exc!r}") from exc
