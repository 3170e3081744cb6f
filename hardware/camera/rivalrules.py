"""A read against its close rivals: which cards it is compared with, and what refutes it.

Rules this module keeps:

1. Of the cards close to a read, a suit twin is left to the twin rules
   (:mod:`.twindecide`), and a card of another rank in the other suit of the read's colour
   needs them too, its rank in the read's suit being the rival (:func:`close_rivals`).
2. A read is refuted against one rival where faces told apart by their corners alone lean
   towards the rival at the frame's blur (:func:`index_only_refutes`), where a glare washed
   out the region the two faces differ in (:func:`region_washed_out`), or where the rival's
   own ink is there and the read's own is not (:func:`ink_refuted`).
3. A pip card's suit-twin read, however decided, is refused where the frame's blur leaves the
   twins' difference on one half of the card only and nothing on the frame measures the sharp
   faces' lean (:func:`twin_blurred_away`), unless the corners at the frame's own resolution
   confirm it.
"""

from __future__ import annotations

from collections.abc import Iterable

from hardware.camera.blurmatch import blurred_pair_check, lean_noise
from hardware.camera.facebank import FaceBank, same_colour, suit_twins, twin_of, whole_contrast
from hardware.camera.readings import F32, RecognizerParams
from hardware.camera.suits import ink_check, pair_check
from hardware.camera.twinconflict import PIP_RANKS, blurred_unmatched
from hardware.camera.twindecide import corners_confirm
from table_controller.engine.cards import Card


def close_rivals(x: Card, close: Iterable[Card]) -> tuple[set[Card], bool]:
    """Split the cards ``close`` to ``x`` into the rivals to compare it with, and the twin need.

    A suit twin of ``x`` is left to the twin rules (``True``); a card of another rank in the
    other suit of ``x``'s colour needs the twin rules too, and its rank in ``x``'s suit is the
    rival; any other card is a rival itself.
    """
    rivals: set[Card] = set()
    twin_needed = False
    for y in close:
        if y == x:
            continue
        if suit_twins(x, y):
            twin_needed = True
        elif y.rank != x.rank and y.suit != x.suit and same_colour(x, y):
            twin_needed = True
            rivals.add(Card(y.rank, x.suit))
        else:
            rivals.add(y)
    return rivals, twin_needed


def index_only_refutes(observed: F32, x: Card, y: Card, bank: FaceBank,
                       params: RecognizerParams) -> bool:
    """Whether faces told apart by their corners alone show Y rather than X at the frame's blur.

    For such a pair (:meth:`IndexOnly.pair`) the evidence is a few dozen pixels of index ink,
    and the comparison closest to what the camera shows is both faces blurred as the
    observation is (:meth:`IndexOnly.check`): where it fits and leans towards Y at all
    (position under 0), neither the sharp faces' region, nor the corner templates, nor a blob
    of ink can read X (a blurred 7 of hearts read as the 2: templates +1.5 towards the 2,
    the 2's ink found in a blob, its own blur -0.12). False for any other pair.
    """
    if not bank.index_only.pair(x, y):
        return False
    at_blur = bank.index_only.check(observed, x, y)
    return at_blur.fit >= params.difference_min_fit and at_blur.position < 0.0


def region_washed_out(observed: F32, card: Card, rival: Card, bank: FaceBank,
                      params: RecognizerParams) -> bool:
    """Whether a glare washed out the region where ``card``'s and ``rival``'s faces differ.

    A glare lifts ink towards the card's white: over the region where the two faces differ
    (:func:`~hardware.camera.suits.pair_check`), the observation's contrast against the faces'
    then falls well under its contrast over the whole card, and what is left there (a 2 whose
    lower stroke is gone looks like a 7) is no evidence for either. Washed out when the
    region's contrast is under ``difference_min_contrast`` times the whole card's.
    """
    check = pair_check(observed, bank.luminance(card), bank.luminance(rival))
    return check.contrast < params.difference_min_contrast * whole_contrast(
        observed, bank.whole_face(card))



def ink_refuted(observed: F32, card: Card, rival: Card, bank: FaceBank,
                params: RecognizerParams) -> bool:
    """Whether the rival's own ink refutes a read whose own ink against it is not there.

    A glare that washes out one of an 8's pips makes its whole face the 7's; what is left of
    the 8's own ink (``ink_check``'s ``rival`` at ``washed_veto_rival`` or below) refutes the
    7 when none of the 7's own ink is found (``own`` under ``washed_min_own``: a 7 has none an
    8 lacks) and its corner indices do not lean towards it (position at most
    ``washed_veto_index``).
    """
    p = params
    # The corner indices first: read once per observation (the index check reads them too).
    at = bank.index.read(observed).position(card, rival)
    if at is not None and at > p.washed_veto_index:
        return False
    ink = ink_check(observed, bank.luminance(card), bank.luminance(rival))
    return ink.own < p.washed_min_own and ink.rival <= p.washed_veto_rival


def twin_blurred_away(observed: F32, card: Card, bank: FaceBank,
                      params: RecognizerParams) -> bool:
    """Whether a pip card's suit-twin read rests on a difference the frame's blur took away.

    The twin rules read a pip card by the sharp faces' lean over the region the twins differ
    in, taken as it is where the frame's noise cannot be measured against it
    (:func:`~hardware.camera.blurmatch.lean_noise` None) and the faces blurred as the
    observation is still match (:func:`~.twinconflict.blurred_unmatched` not). Those blurred
    faces may differ on one half of the card only (``halves`` 1: one corner's print, the
    pips' difference smoothed away): the camera then does not resolve what the pips differ
    in, and the sharp faces' lean over them is the blur's misfit, as likely towards the
    twin as towards the card. The blurred read needs both halves already
    (:func:`~.twindecide.decide_twin`); here any twin read is refused so, unless the corners
    at the frame's own resolution confirm it (:func:`~.twindecide.corners_confirm`). A 9 of
    clubs under a horizontal motion blur was read as the spade by the difference read: the
    sharp faces at 0.74 towards the spade (fit 0.95, noise not measurable), the blurred ones
    on one half, 147 pixels of region against the sharp faces' 3,090, the corners deciding
    neither (synth-9246 poker, normal indices in four corners, hard pushed; benchmark run 98).
    """
    if card.rank not in PIP_RANKS:
        return False
    twin = twin_of(card)
    fc, ft = bank.luminance(card), bank.luminance(twin)
    blurred = blurred_pair_check(observed, fc, ft)
    if blurred.halves >= 2 or blurred_unmatched(blurred, params):
        return False
    if lean_noise(observed, fc, ft, joint=False) is not None:
        return False
    return not corners_confirm(observed, card, twin, bank)
