"""Chip reconciliation: what each sensor zone should hold, and a settle window for differences.

The physical layout the controller expects during a hand (``docs/architecture.md``, Controller):

- a seat's zone holds that seat's bet of the current round (blinds, bets, calls, raises);
- the pot zone holds every pot (antes, dead blinds and collected bets go straight there);
- zones of seats not in the hand hold nothing; the tray is not checked.

Rules this module keeps:

1. A difference between the sensed and the expected value of a zone is only an irregularity once
   it has lasted ``settle`` seconds unchanged (chips land a moment before or after the dealer's
   command). Any change of either value restarts the window; agreeing again clears it.
2. Time is passed in (``now``); nothing here reads a clock.
3. Chips of an unknown denomination cannot be valued: the zone's value is unknown (``-1``) and
   differs from anything expected.
4. A zone *showed* its expected value once a report at that value came in while it was expected
   (or the zone already read so when the expectation was set). The collection and the pushes
   only complete from the sensors on zones that showed their value before the step: a zone
   still read at 0 because the report of the chips just bet has not arrived is not "collected".

>>> from calibration.chips import default_chip_config
>>> check = ChipCheck(default_chip_config(3), settle=1.0)
>>> check.see(1, ((2, 2),))
10
>>> check.refresh({1: 0, 2: 0, 3: 0, 4: 0}, now=5.0)
>>> check.due(5.5), check.due(6.0)
([], [(1, 10, 0)])
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from calibration.chips import ChipConfig
from table_controller.engine import (
    LIVE_POSTS,
    AwardStep,
    CollectStep,
    Hand,
    HandStatus,
    Phase,
    PostStep,
    PotView,
)
from table_controller.errors import CalibrationError


@dataclass(slots=True)
class _Diff:
    sensed: int
    expected: int
    since: float
    reported: bool = False


class ChipCheck:
    """Sensed zone values, expected values, and the differences waiting out the settle window.

    :param config: the chip calibration (zones and denominations).
    :param settle: seconds a difference may last before it is reported.
    """

    def __init__(self, config: ChipConfig, settle: float = 1.5) -> None:
        self.config = config
        self.settle = settle
        #: The calibration's seat zones and pot zone, computed once (the config is frozen).
        self.seat_zones: Mapping[int, int] = dict(config.seat_zones)
        self.pot_zone = config.pot_zone
        self.sensed: dict[int, int] = {}
        self._diffs: dict[int, _Diff] = {}
        self._want: dict[int, int] = {}
        self._shown: dict[int, bool] = {}

    def see(self, zone: int, counts: tuple[tuple[int, int], ...]) -> int:
        """Record a zone report; return its value (``-1`` if a denomination is unknown)."""
        try:
            value = self.config.value(dict(counts))
        except CalibrationError:
            value = -1
        self.sensed[zone] = value
        if self._want.get(zone) == value:
            self._shown[zone] = True
        return value

    def showed(self, zone: int, value: int) -> bool:
        """Tell whether ``zone`` is expected at ``value`` and a report showed it there."""
        return self._want.get(zone) == value and self._shown.get(zone, False)

    def zone_name(self, zone: int) -> str:
        """Plain words for a zone, e.g. ``"seat 3's zone (zone 3)"``."""
        role = self.config.role(zone)
        if role is None:
            return f"zone {zone}"
        if role.startswith("seat "):
            return f"{role}'s zone (zone {zone})"
        return f"the {role} zone (zone {zone})"

    def layout(self, hand: Hand | HandStatus) -> dict[int, int]:
        """Return what every seat zone and the pot zone should hold now.

        :param hand: the hand (its bets, phase and pots are read, no status is built), or its
            status when the caller has it already.
        """
        if isinstance(hand, Hand):  # the bets, the phase and the pots alone, not a status
            bet = hand.bet
            out = {zone: bet(seat) for seat, zone in self.seat_zones.items()}
            phase = hand.phase
            pots: Iterable[PotView] = () if phase in (Phase.OVER, Phase.VOID) else hand.pots()
        else:
            bets = hand.bets
            out = {zone: bets.get(seat, 0) for seat, zone in self.seat_zones.items()}
            phase = hand.phase
            pots = () if phase in (Phase.OVER, Phase.VOID) else hand.pots
        out[self.pot_zone] = sum(p.amount for p in pots)
        return out

    def step_want(self, step: PostStep | CollectStep | AwardStep, st: HandStatus,
                  seats: Collection[int]) -> dict[int, int] | None:
        """Return what the zones a post, the collection or a push changes read once it is done.

        A live post (a blind, a straddle) lands in the seat's zone, on its bet; the other posts
        go to the pot zone; the collection empties the zones of the hand's ``seats`` into the
        pot; a push takes its amount out of the pot.

        :param st: the hand's status before the step.
        :returns: ``None`` for a live post of a seat without a zone (the sensors cannot see it).
        """
        pot_zone = self.pot_zone
        if isinstance(step, PostStep):
            if step.kind not in LIVE_POSTS:
                return {pot_zone: sum(p.amount for p in st.pots) + step.amount}
            zone = self.seat_zones.get(step.seat)
            return None if zone is None else {zone: st.bets.get(step.seat, 0) + step.amount}
        if isinstance(step, CollectStep):
            want = {z: 0 for s, z in self.seat_zones.items() if s in seats}
            want[pot_zone] = sum(p.amount for p in step.into_pots)
            return want
        return {pot_zone: sum(p.amount for p in st.pots) - step.amount}

    def moved(self, st: HandStatus, want: Mapping[int, int], now: float) -> bool:
        """Tell whether the sensors saw the chips move for a collection or a push.

        Each zone the step empties or lowers must first have shown what it holds before the
        step (the bets, the pot: ``st``) and then read ``want``: a zone still at 0 because the
        report of the chips just bet has not come in is not a collection (a stale reading).
        """
        before = self.layout(st)
        self.refresh(before, now)
        return all(self.showed(z, before[z]) for z, v in want.items()
                   if before.get(z, 0) not in (0, v))

    def matches(self, expected: Mapping[int, int]) -> bool:
        """Tell whether every zone in ``expected`` was sensed at that value."""
        return all(self.sensed.get(z) == v for z, v in expected.items())

    def refresh(self, expected: Mapping[int, int], now: float) -> None:
        """Compare every sensed zone with ``expected`` and (re)start or clear the windows."""
        for zone, value in expected.items():
            if self._want.get(zone) != value:
                self._want[zone] = value
                self._shown[zone] = self.sensed.get(zone) == value
        for zone, sensed in self.sensed.items():
            want = expected.get(zone)
            if want is None or sensed == want:
                self._diffs.pop(zone, None)
                continue
            d = self._diffs.get(zone)
            if d is None or d.sensed != sensed or d.expected != want:
                self._diffs[zone] = _Diff(sensed, want, now)

    def due(self, now: float) -> list[tuple[int, int, int]]:
        """Return ``(zone, sensed, expected)`` of differences past the window (each once)."""
        out = []
        for zone, d in sorted(self._diffs.items()):
            if not d.reported and now - d.since >= self.settle:
                d.reported = True
                out.append((zone, d.sensed, d.expected))
        return out

    def next_deadline(self) -> float | None:
        """Earliest time a pending difference becomes due (``None`` = none pending)."""
        times = [d.since + self.settle for d in self._diffs.values() if not d.reported]
        return min(times) if times else None

    def restart(self, now: float) -> None:
        """Restart every window at ``now`` (after a resume: the dealer corrected the chips)."""
        for d in self._diffs.values():
            d.since = now
            d.reported = False

    def clear(self) -> None:
        """Forget the differences and expectations (no hand in progress)."""
        self._diffs.clear()
        self._want.clear()
        self._shown.clear()

    @property
    def pending(self) -> dict[int, tuple[int, int]]:
        """Zones that differ now: ``zone -> (sensed, expected)``."""
        return {z: (d.sensed, d.expected) for z, d in self._diffs.items()}
