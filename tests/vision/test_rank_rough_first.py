"""The rank veto's close cards compared first at the blur the second's comparison found.

``RivalChecks._rank_refuted`` asks each close card of another rank (``fine_rank_close``)
whether the corners at the frame's own resolution refute the read against it; each such
comparison (``fine_lean``) searched its own blur, half its cost. Since benchmark run 126 a
close card is compared first at the blur the read's comparison with its second found
(``FineFaces.rough_lean``, no search): where a corner leans to the read there by
``ROUGH_NOISE_RATIO`` times its noise and ``ROUGH_MIN_LEAN`` (``roughly_confirms``), the read
stands against that card without the searched comparison. Elsewhere the searched one decides,
as before.

The kept frame is run 93's (``test_rank_fine_close``): the 5 of diamonds of
``synth-9224-bridge`` upside down under a gloss streak, read by the whole face as the 8 with
the 9 second. The right read (the 5, the 8 second, the 9 third) is kept with one blur search
(the 8's) where main made two; the wrong read (the 8, the 9 second, the 5 third) is refused
as before: its rough comparison with the 5 confirms nothing, so the searched one is made.
Fails on main (no ``rough_lean``, two searches).
"""

from __future__ import annotations

import numpy as np
import pytest

from hardware.camera import finetwins as ft
from hardware.camera.finedecide import RANK_NOISE_RATIO, fine_refutes, roughly_confirms
from hardware.camera.readings import RecognizerParams, SlotReading

from .conftest import Faces
from .test_rank_fine_close import EIGHT, FIVE, NINE, _match, _seen


def _searches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    search = ft._blur

    def counted(cuts):  # type: ignore[no-untyped-def]
        calls.append(1)
        return search(cuts)

    monkeypatch.setattr(ft, "_blur", counted)
    return calls


def test_right_read_kept_with_one_search(kennard: Faces, monkeypatch: pytest.MonkeyPatch) -> None:
    checks, observed = _seen(kennard, RecognizerParams())
    calls = _searches(monkeypatch)
    right = SlotReading("card", FIVE, 0.827, None, 0.827)
    kept = checks._fine_vetoed(lambda: observed, _match(FIVE, EIGHT, NINE), right, False)
    assert kept.status == "card" and kept.card == FIVE
    assert len(calls) == 1  # the 5 against the 8; the 9 only at the 8's blur
    fine = checks.bank.fine
    assert fine is not None
    seen = fine.lean(observed, FIVE, EIGHT)
    assert seen is not None
    rough = fine.rough_lean(observed, FIVE, NINE, seen.blur)
    assert roughly_confirms(rough)
    # The searched comparison (made here for the test) refutes nothing either.
    assert not fine.refutes(observed, FIVE, NINE, RANK_NOISE_RATIO)
    # Kept now: no rough comparison is made again.
    assert fine.rough_lean(observed, FIVE, NINE, seen.blur) is None
    assert fine.rough_lean(observed, NINE, FIVE, seen.blur) is None


def test_wrong_read_still_refused(kennard: Faces, monkeypatch: pytest.MonkeyPatch) -> None:
    checks, observed = _seen(kennard, RecognizerParams())
    calls = _searches(monkeypatch)
    wrong = SlotReading("card", EIGHT, 0.827, None, 0.827)
    refused = checks._fine_vetoed(lambda: observed, _match(EIGHT, NINE, FIVE), wrong, False)
    assert refused.status == "uncertain" and refused.card is None
    assert len(calls) == 2  # the 8 against the 9, then against the 5 searched
    fine = checks.bank.fine
    assert fine is not None
    assert fine.lean(observed, EIGHT, FIVE) is not None


def test_lean_at_the_searched_blur_is_the_searched_lean(kennard: Faces) -> None:
    checks, observed = _seen(kennard, RecognizerParams())
    fine = checks.bank.fine
    assert fine is not None
    seen = fine.lean(observed, EIGHT, FIVE)
    assert seen is not None and seen.corners
    view = fine._view(observed)
    assert view is not None
    again = ft.fine_lean(view[1].frame, view[1].quad, EIGHT, FIVE, fine, view[1].hidden,
                         seen.blur)
    assert again == seen
    assert fine_refutes(again, RANK_NOISE_RATIO) and not roughly_confirms(again)
    assert np.isfinite(seen.corners[0].noise)
