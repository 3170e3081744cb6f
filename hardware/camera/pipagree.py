"""A pip card's suit twin read where the stored faces and the frame's own corners agree.

Rules this module keeps:

1. Only a pair :func:`~hardware.camera.twindecide.decide_twin` left undecided, of a 2 to 10
   (courts are decided on the corners alone there, :data:`~hardware.camera.finetwins.FINE_RANKS`).
2. Two measures must name the same card, each on its own clearly: the stored faces (the
   comparison at the faces' own blur and the one at the observation's blur, each leaning that
   way over the whole difference region by ``suit_blur_min_position``, above the frame's
   measured noise, neither half leaning the other way) and the corner boxes at the frame's own
   resolution (:meth:`~hardware.camera.finetwins.FineFaces.decide`: every available box
   fitting 0.8 and leaning that way by 0.3 and 3 times its noise, at least two boxes). The
   corners never read a pip pair alone: on hard frames a pip corner box leaned clearly the
   wrong way on right reads (benchmark run 65).
3. Pure: no state; the bank's fine comparison is kept per cut by the bank.
"""

from __future__ import annotations

from hardware.camera.blurmatch import blurred_pair_check, lean_noise
from hardware.camera.facebank import FaceBank, Match
from hardware.camera.finetwins import FINE_RANKS
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.suits import SuitCheck, pair_check
from hardware.camera.twinconflict import blurred_unmatched
from hardware.camera.twindecide import signed_read
from hardware.camera.twinleans import above_noise, index_lean_stands, lean_stands


def stored_lean(observed: F32, best: F32, twin: F32, params: RecognizerParams) -> int:
    """+1 (``best``), -1 (``twin``) where both stored comparisons lean so clearly; else 0.

    The comparison at the faces' own blur and the one against the faces blurred as the
    observation is must each fit ``suit_min_fit``, lean the same way by
    ``suit_blur_min_position`` over the whole difference region with no half leaning the
    other way, and stand above the frame's noise (measured: a lean whose noise cannot be
    measured is not taken); the blurred one must match the frame's blur
    (:func:`~hardware.camera.twinconflict.blurred_unmatched`) and hold at the blur the corner
    indices show (:func:`~hardware.camera.twinleans.index_lean_stands`).
    """
    p = params
    sharp = pair_check(observed, best, twin)
    if sharp.fit < p.suit_min_fit or abs(sharp.position) < p.suit_blur_min_position:
        return 0
    sign = 1 if sharp.position > 0 else -1
    if not _leans(sharp, sign, p.suit_blur_min_position):
        return 0
    noise = lean_noise(observed, best, twin, joint=False)
    if noise is None or not above_noise(sharp.position, noise, p):
        return 0
    blurred = blurred_pair_check(observed, best, twin)
    if (blurred.fit < p.suit_min_fit or blurred_unmatched(blurred, p)
            or not _leans(blurred, sign, p.suit_blur_min_position)):
        return 0
    if not (lean_stands(observed, best, twin, blurred.position, p)
            and index_lean_stands(observed, best, twin, float(sign), p)):
        return 0
    return sign


def _leans(check: SuitCheck, sign: int, min_position: float) -> bool:
    """Whether ``check`` leans towards ``sign`` by ``min_position``, neither half the other way."""
    if sign * check.position < min_position:
        return False
    return check.worst_half >= 0.0 if sign > 0 else check.best_half <= 0.0


def agreed_twin(observed: F32, match: Match, bank: FaceBank,
                params: RecognizerParams) -> tuple[Match, float] | None:
    """Read a pip card's suit twin where :func:`stored_lean` and the corners agree.

    ``match.second`` is the best card's suit twin. Returns the match of the card read (its
    ``card`` and ``second`` swapped when the twin is read; the twin must score ``min_score``)
    and the weakest corner's lean towards it, or None.
    """
    if (match.second is None or bank.fine is None or match.card.rank in FINE_RANKS):
        return None
    best, twin = bank.luminance(match.card), bank.luminance(match.second)
    sign = stored_lean(observed, best, twin, params)
    if sign == 0:
        return None
    fine_sign, lean = bank.fine.decide(observed, match.card, match.second)
    if fine_sign != sign:
        return None
    return signed_read(match, sign, lean, params)
