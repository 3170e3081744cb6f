"""Learning and checking the chip zones from the sensors: a guided walk around the felt.

Sans-IO: the command line feeds zone reports with the time (``feed(zone, counts, now)``,
``tick(now)``) and prints what :class:`ZoneLearner` / :class:`ZoneChecker` say.

Learning (``calibrate chips learn``): for each place in turn (seat 1 .. seat N, then the pot,
then the tray if it has a zone of its own) the technician puts one stack on that place's spot.
The one zone that shows chips, unchanged for ``settle`` seconds, is that place's zone; the
stack is then taken away (the zone must read empty again) and the next place is asked for.

Rules this module keeps:

1. One stack at a time: two unassigned zones showing chips at once is refused (said, not
   guessed), and nothing is learnt until only one does.
2. A zone is learnt once: a zone already given to a place is never given to another.
3. Chips are money: a stack whose value differs from ``stack`` (when given) is not accepted,
   and a denomination code the calibration does not know is named (its value is unknown).
4. Nothing is saved until every place has its zone (:meth:`ZoneLearner.result`).

Checking (``calibrate chips check --sensor``): every zone the calibration names must show the
known stack, unchanged for ``settle`` seconds; :class:`ZoneChecker` says which do and which
do not (and by how much).

>>> learner = ZoneLearner(["seat 1", "pot"], stack=100, settle=1.0)
>>> learner.prompt()
'put a stack of 100 on seat 1 (1 of 2)'
>>> learner.feed(7, {4: 1}, now=0.0)
[]
>>> learner.tick(1.5)
['seat 1 is zone 7 - take the stack away']
>>> learner.feed(7, {}, now=2.0)
['put a stack of 100 on pot (2 of 2)']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from calibration.chips import DEFAULT_DENOMINATIONS, ChipConfig, build_chip_config
from table_controller.errors import CalibrationError


def _value(counts: Mapping[int, int], values: Mapping[int, int]) -> int | None:
    if any(code not in values for code in counts):
        return None
    return sum(values[c] * n for c, n in counts.items())


def _unknown(counts: Mapping[int, int], values: Mapping[int, int]) -> list[int]:
    return sorted(c for c in counts if c not in values)


@dataclass
class ZoneLearner:
    """Learn which sensor zone is each place, one stack at a time (see the module rules).

    :param roles: the places in the order they are asked for (``"seat N"``, ``"pot"``,
        ``"tray"``).
    :param stack: the value of the test stack (``None``: any non-empty stack).
    :param settle: seconds a stack must read unchanged.
    :param denominations: denomination code -> chip value.
    """

    roles: Sequence[str]
    stack: int | None = None
    settle: float = 1.0
    denominations: Mapping[int, int] = field(default_factory=lambda: dict(DEFAULT_DENOMINATIONS))
    learnt: dict[str, int] = field(default_factory=dict)
    _zones: dict[int, dict[int, int]] = field(default_factory=dict)
    _since: dict[int, float] = field(default_factory=dict)
    _candidate: int | None = None
    _clearing: int | None = None
    _said: str = ""

    def __post_init__(self) -> None:
        if not self.roles or len(set(self.roles)) != len(self.roles):
            raise CalibrationError("chip learning needs distinct places to learn")
        if "pot" not in self.roles:
            raise CalibrationError("chip learning needs the pot among the places")

    @property
    def done(self) -> bool:
        """Tell whether every place has its zone and the last stack is gone."""
        return len(self.learnt) == len(self.roles) and self._clearing is None

    @property
    def current(self) -> str | None:
        """The place asked for now (``None`` when all are learnt)."""
        return next((r for r in self.roles if r not in self.learnt), None)

    def prompt(self) -> str:
        """Return what the technician must do now."""
        if self._clearing is not None:
            role = next(r for r, z in self.learnt.items() if z == self._clearing)
            return f"{role} is zone {self._clearing} - take the stack away"
        place = self.current
        if place is None:
            return "every place has its zone"
        what = f"a stack of {self.stack:,}" if self.stack is not None else "a stack of chips"
        n = len(self.learnt) + 1
        return f"put {what} on {place} ({n} of {len(self.roles)})"

    def feed(self, zone: int, counts: Mapping[int, int], now: float) -> list[str]:
        """Take one zone report; return the lines to show (new instructions or refusals)."""
        clean = {c: n for c, n in counts.items() if n}
        if self._zones.get(zone) != clean:
            self._zones[zone] = clean
            self._since[zone] = now
        if self._clearing is not None:
            if self._clearing == zone and not clean:
                self._clearing = None
                return self._say(self.prompt())
            return []
        return self.tick(now)

    def tick(self, now: float) -> list[str]:
        """Let time pass; return the lines to show."""
        if self._clearing is not None or self.current is None:
            return []
        taken = set(self.learnt.values())
        loaded = sorted(z for z, c in self._zones.items() if c and z not in taken)
        if not loaded:
            return []
        if len(loaded) > 1:
            return self._say("one stack at a time: zones " + ", ".join(map(str, loaded))
                             + " all show chips; take all but one away")
        zone = loaded[0]
        counts = self._zones[zone]
        unknown = _unknown(counts, self.denominations)
        if unknown:
            return self._say(f"zone {zone} shows denomination codes "
                             f"{', '.join(map(str, unknown))} that the chip set does not have")
        value = _value(counts, self.denominations)
        if self.stack is not None and value != self.stack:
            return self._say(f"zone {zone} shows {value:,}, not {self.stack:,}: recount the "
                             "stack")
        if now - self._since[zone] < self.settle:
            return []
        role = self.current
        assert role is not None
        self.learnt[role] = zone
        self._clearing = zone
        return self._say(self.prompt())

    def _say(self, text: str) -> list[str]:
        if text == self._said:
            return []
        self._said = text
        return [text]

    def result(self) -> ChipConfig:
        """Return the learnt calibration.

        :raises CalibrationError: a place is still without a zone.
        """
        missing = [r for r in self.roles if r not in self.learnt]
        if missing:
            raise CalibrationError("no zone learnt for " + ", ".join(missing) + "; nothing saved")
        return build_chip_config(self.denominations, {z: r for r, z in self.learnt.items()})


@dataclass
class ZoneChecker:
    """Check that every zone of a calibration shows the known stack ``stack``.

    :param config: the calibration to check.
    :param stack: the value every zone must show.
    :param settle: seconds a zone must read unchanged.
    """

    config: ChipConfig
    stack: int
    settle: float = 1.0
    _zones: dict[int, dict[int, int]] = field(default_factory=dict)
    _since: dict[int, float] = field(default_factory=dict)

    def feed(self, zone: int, counts: Mapping[int, int], now: float) -> None:
        """Take one zone report."""
        clean = {c: n for c, n in counts.items() if n}
        if self._zones.get(zone) != clean:
            self._zones[zone] = clean
            self._since[zone] = now

    def verdicts(self, now: float) -> dict[int, str]:
        """Return ``zone -> "ok"`` or what is wrong with it, for every calibrated zone."""
        out: dict[int, str] = {}
        for zone, role in sorted(self.config.zones.items()):
            if role == "tray":
                continue
            counts = self._zones.get(zone)
            if counts is None:
                out[zone] = f"{role}: no report from zone {zone}"
                continue
            unknown = _unknown(counts, self.config.denominations)
            if unknown:
                out[zone] = (f"{role}: zone {zone} shows unknown denomination codes "
                             f"{', '.join(map(str, unknown))}")
                continue
            value = self.config.value(counts)
            if value != self.stack:
                out[zone] = f"{role}: zone {zone} shows {value:,}, expected {self.stack:,}"
            elif now - self._since[zone] < self.settle:
                out[zone] = f"{role}: zone {zone} settling"
            else:
                out[zone] = "ok"
        return out

    def ok(self, now: float) -> bool:
        """Tell whether every calibrated zone shows the stack, settled."""
        return all(v == "ok" for v in self.verdicts(now).values())
