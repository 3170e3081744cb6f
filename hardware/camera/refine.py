"""A located card's pose nudged to where its face matches best, for a card left uncertain.

Rules this module keeps:

1. Only a card the whole read left ``uncertain`` is nudged; the pose found is read again by
   the caller's rules (the whole face and its checks), nothing is read on the nudge alone.
2. The nudge is a search over the card's centre and angle, each move taken only when the best
   registered face's score over the card rises by :data:`REFINE_MIN_GAIN`, within
   :data:`REFINE_MAX_SHIFT_PX` and :data:`REFINE_MAX_TURN_DEG` of the located pose: a card
   located about a millimetre off (an edge along a felt's printed line, a card half under a
   neighbour) lies within that; anything further is not that card's pose.
3. A card whose best face fits it under ``min_score`` where it was located is searched
   further (:func:`reposed_pose`: up to :data:`REPOSE_MAX_SHIFT_PX`), and the pose found
   stands only when the best face's score rose by :data:`REPOSE_MIN_GAIN` there: a card
   located a millimetre or two off on a printed felt loses a tenth or more of its score, the
   noise of a card located right moves it by a hundredth or two.
4. Pure: the pose and a scoring function in, a pose (or None) out.
"""

from __future__ import annotations

from collections.abc import Callable

from hardware.camera.locator import CardPose

#: The first step along each axis (canonical px, 1.2 a millimetre) and of the angle (degrees);
#: each later round halves both.
REFINE_STEP_PX = 1.0
REFINE_STEP_DEG = 0.6
#: Rounds of the search (each at half the last round's steps).
REFINE_ROUNDS = 2
#: Moves per round at most.
REFINE_MOVES = 3
#: How far the nudged pose may lie from the located one: the centre (canonical px, 2 mm) and
#: the angle (degrees).
REFINE_MAX_SHIFT_PX = 2.5
REFINE_MAX_TURN_DEG = 2.0
#: A move is taken only when the best face's score rises by this much (noise moves it less).
REFINE_MIN_GAIN = 0.002


#: The wider search of a card its best face fits under ``min_score`` (:func:`reposed_pose`):
#: first steps (canonical px, degrees), halved each round, how far it may go (3 mm), and the
#: gain of the best face's score the pose found must show over the located one.
REPOSE_STEP_PX = 1.5
REPOSE_STEP_DEG = 1.0
REPOSE_ROUNDS = 3
REPOSE_MAX_SHIFT_PX = 3.6
REPOSE_MAX_TURN_DEG = 2.5
REPOSE_MIN_GAIN = 0.05


def nudged_pose(pose: CardPose, score: Callable[[CardPose], float],
                start: float) -> CardPose | None:
    """Return the pose near ``pose`` whose cut the best registered face matches best, or None.

    ``score``: the best registered face's whole-face score of the card cut at a pose;
    ``start``: its score at ``pose``. Coordinate moves (centre across and along, angle), the
    best of the six taken while it gains :data:`REFINE_MIN_GAIN`, for :data:`REFINE_ROUNDS`
    rounds of halving steps. None when no move gained (the located pose is the best).
    """
    best, _ = _climb(pose, score, start, REFINE_STEP_PX, REFINE_STEP_DEG, REFINE_ROUNDS,
                     REFINE_MAX_SHIFT_PX, REFINE_MAX_TURN_DEG)
    return None if best is pose else best


def reposed_pose(pose: CardPose, score: Callable[[CardPose], float],
                 start: float) -> CardPose | None:
    """Return the pose within 3 mm where the best face fits far better than at ``pose``, or None.

    As :func:`nudged_pose` with wider steps and bounds (:data:`REPOSE_STEP_PX`,
    :data:`REPOSE_MAX_SHIFT_PX`, ...), for a card whose best face scores under ``min_score``
    at the located pose; the pose found is returned only when the best face's score there is
    at least :data:`REPOSE_MIN_GAIN` over ``start`` (a pose that merely fits a little better is
    the noise's, not the card's).
    """
    best, best_score = _climb(pose, score, start, REPOSE_STEP_PX, REPOSE_STEP_DEG,
                              REPOSE_ROUNDS, REPOSE_MAX_SHIFT_PX, REPOSE_MAX_TURN_DEG)
    return None if best is pose or best_score < start + REPOSE_MIN_GAIN else best


def _climb(pose: CardPose, score: Callable[[CardPose], float], start: float, step: float,
           turn: float, rounds: int, max_shift: float,
           max_turn: float) -> tuple[CardPose, float]:
    """Coordinate moves from ``pose`` while the score gains; the best pose and its score."""
    best, best_score = pose, start
    (x0, y0), a0 = pose.centre, pose.angle_deg
    for _ in range(rounds):
        for _ in range(REFINE_MOVES):
            (x, y), a = best.centre, best.angle_deg
            tries = [((x + dx, y + dy), a + da) for dx, dy, da in (
                (step, 0.0, 0.0), (-step, 0.0, 0.0), (0.0, step, 0.0), (0.0, -step, 0.0),
                (0.0, 0.0, turn), (0.0, 0.0, -turn))]
            moved: tuple[float, CardPose] | None = None
            for centre, angle in tries:
                if (abs(centre[0] - x0) > max_shift or abs(centre[1] - y0) > max_shift
                        or abs(angle - a0) > max_turn):
                    continue
                cand = CardPose(centre, angle, pose.slot)
                s = score(cand)
                if moved is None or s > moved[0]:
                    moved = (s, cand)
            if moved is None or moved[0] < best_score + REFINE_MIN_GAIN:
                break
            best_score, best = moved
        step, turn = step / 2, turn / 2
    return best, best_score
