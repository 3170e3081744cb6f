"""Which of two turned views' poses to keep when they disagree: the one seen square from itself.

Rules this module keeps:

1. Pure: the candidate poses and a way to seek the card on the view turned by an angle in,
   one pose or None out.
2. A card's edges are sampled best along its own axes: a pose is kept when the view turned by
   its own angle (the card then lies square) finds it again; exactly one candidate may.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar


class _Pose(Protocol):
    @property
    def centre(self) -> tuple[float, float]: ...

    @property
    def angle_deg(self) -> float: ...


P = TypeVar("P", bound=_Pose)


def same_pose(a: _Pose, b: _Pose) -> bool:
    """Whether two poses found for one card agree (within 3 px and 2 degrees)."""
    return (abs(a.centre[0] - b.centre[0]) <= 3.0 and abs(a.centre[1] - b.centre[1]) <= 3.0
            and abs(a.angle_deg - b.angle_deg) <= 2.0)


def seen_square(candidates: Sequence[P], seek: Callable[[float], P | None]) -> P | None:
    """Return the one candidate that the view turned by its own angle finds again, or None.

    Two turned views that disagree (a card between neighbours lying at other angles: one
    view's rows run into a neighbour) each fitted the card at a slope; on the view turned by
    the true card's angle the card lies square and is found where it lies, so the right
    candidate finds itself again and a wrong one finds another pose (or none).
    """
    kept = [c for c in candidates if (again := seek(c.angle_deg)) is not None
            and same_pose(again, c)]
    return kept[0] if len(kept) == 1 else None
