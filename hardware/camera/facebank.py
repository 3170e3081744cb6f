"""Registered faces as matching features, and the decision rule of one face match.

Rules this module keeps:

1. A face patch is compared as lighting-normalised luminance and redness (:func:`face_features`),
   in both orientations (a card may lie upside down).
2. Never a guess: :func:`decide` reports a card only when the best face scores at least
   ``min_score``, is separated from the second-best card by ``min_separation`` (the margin
   measured in units of how far apart the two faces are; or by ``min_separation_residual`` times
   the residual's norm when the face matches closely) and wins every pairwise
   discriminant test against the next candidates by ``min_discriminant``; otherwise the slot is
   ``"uncertain"`` with the best candidate kept only as a hint (``SlotReading.candidate``).
3. Suit twins the whole face cannot separate are decided where their faces differ
   (:func:`decide_twin`): at the faces' own light blur first, then at the observation's blur.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

import cv2
import numpy as np

from hardware.camera.blurmatch import blurred_pair_check, lean_noise
from hardware.camera.finetwins import FINE_RANKS, FineFaces
from hardware.camera.index import IndexBank
from hardware.camera.indexonly import IndexOnly
from hardware.camera.readings import F32, Image, RecognizerParams, SlotReading, SlotStatus
from hardware.camera.suits import (
    LineX,
    SuitCheck,
    face_luminance,
    ink_check,
    line_fit,
    pair_check,
    read_only,
)
from hardware.camera.twinconflict import blurred_names_twin, blurred_unmatched
from hardware.camera.twinleans import above_noise, blurred_read_stands, corners_deny, lean_stands
from table_controller.engine.cards import FULL_DECK, SUITS, Card
from table_controller.errors import CalibrationError

#: Size of a face patch used for matching (width, height), and the stored size (twice that).
PATCH_SIZE = (60, 84)
STORED_PATCH_SIZE = (120, 168)


def _patch_mask() -> Image:
    """Pixels of a face patch used for matching: inside the rounded card, off the very edge."""
    pw, ph = PATCH_SIZE
    mask = np.zeros((ph, pw), np.uint8)
    r = int(0.09 * pw)
    inset = 2
    cv2.rectangle(mask, (inset + r, inset), (pw - 1 - inset - r, ph - 1 - inset), 255, -1)
    cv2.rectangle(mask, (inset, inset + r), (pw - 1 - inset, ph - 1 - inset - r), 255, -1)
    for cx, cy in ((inset + r, inset + r), (pw - 1 - inset - r, inset + r),
                   (inset + r, ph - 1 - inset - r), (pw - 1 - inset - r, ph - 1 - inset - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1)
    return mask


PATCH_MASK = _patch_mask()
#: How many of the best cards a :class:`Match` lists (:func:`read_washed_out`).
RANKED = 6
_MASK_IDX = PATCH_MASK.reshape(-1) > 0
_DILATE = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9))


def face_features(patch: Image, red_weight: float) -> F32:
    """Feature vector of a ``PATCH_SIZE`` BGR patch: lighting-normalised luminance and redness.

    Luminance is divided by a smooth upper envelope (the card's white under the local light),
    then z-normalised; redness ``(R - max(G, B)) / white`` keeps its absolute level so black
    cards stay near zero. The result has unit norm.
    """
    img = patch.astype(np.float32)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    white = cv2.GaussianBlur(cv2.dilate(gray, _DILATE), (0, 0), 5.0)
    np.maximum(white, 16.0, out=white)
    b, g, r = cv2.split(img)
    lum = cv2.GaussianBlur(np.asarray(gray / white, np.float32), (0, 0), 0.8)
    redness = np.asarray((r - np.maximum(g, b)) / white, np.float32)
    red = cv2.GaussianBlur(redness, (0, 0), 0.8)
    lv = lum.reshape(-1)[_MASK_IDX]
    lv = lv - lv.mean()
    lv /= max(float(np.linalg.norm(lv)), 1e-6)
    rv = red.reshape(-1)[_MASK_IDX] * np.float32(red_weight / np.sqrt(lv.size) * 4.0)
    vec = np.concatenate([lv, rv]).astype(np.float32)
    vec /= max(float(np.linalg.norm(vec)), 1e-6)
    return vec


def face_patch(face_bgra: Image, size: tuple[int, int] = STORED_PATCH_SIZE) -> Image:
    """Resize a full-resolution face (BGRA, transparent outside the card) to a BGR patch.

    Transparent pixels become white (they are cut by :data:`PATCH_MASK` anyway).
    """
    face = face_bgra.astype(np.float32)
    alpha = face[..., 3:4] / 255 if face.shape[2] == 4 else np.ones_like(face[..., :1])
    bgr = face[..., :3] * alpha + 255 * (1 - alpha)
    out = cv2.resize(bgr, size, interpolation=cv2.INTER_AREA)
    return np.asarray(np.clip(out + 0.5, 0, 255), dtype=np.uint8)


def _read_only_view(face: Image) -> Image:
    """Return a read-only view of a registered face (the caller's array stays as it was)."""
    view = face.view()
    view.setflags(write=False)
    return view


class FaceBank:
    """The registered faces of the deck in use, as matching features (both orientations).

    :param patches: card -> BGR patch of ``STORED_PATCH_SIZE`` (what the profile file stores).
    :param fine: the faces at the resolution they were registered at, where known
        (:class:`~hardware.camera.finetwins.FineFaces`: suit twins the stored faces leave
        undecided are compared on the frame's corner indices, :func:`decide_twin`).
    """

    def __init__(self, patches: Mapping[Card, Image], params: RecognizerParams,
                 fine: FineFaces | None = None) -> None:
        self.fine = fine
        missing = [c.code for c in FULL_DECK if c not in patches]
        if missing:
            raise CalibrationError(f"face bank lacks {len(missing)} cards: {' '.join(missing)}")
        # Read-only views: what the checks take from the faces alone is kept per face array
        # (:func:`.inkhue.ink_colours`).
        self.patches = {c: _read_only_view(patches[c]) for c in FULL_DECK}
        shape = (STORED_PATCH_SIZE[1], STORED_PATCH_SIZE[0], 3)
        for card, p in self.patches.items():
            if p.shape != shape:
                raise CalibrationError(
                    f"face {card.code}: stored patch has shape {p.shape}, expected {shape}"
                )
        #: One matrix per template blur (rows: card 0 upright, card 0 upside down, card 1, ...).
        self.matrices: list[F32] = []
        for sigma in params.template_blur:
            rows: list[F32] = []
            for card in FULL_DECK:
                resized = cv2.resize(self.patches[card], PATCH_SIZE, interpolation=cv2.INTER_AREA)
                small = np.asarray(cv2.GaussianBlur(resized, (0, 0), sigma), np.uint8)
                for view in (small, np.asarray(cv2.rotate(small, cv2.ROTATE_180), np.uint8)):
                    rows.append(face_features(view, params.red_weight))
            self.matrices.append(np.stack(rows))
        self.matrix: F32 = self.matrices[0]
        #: Each face's luminance at the stored size, and its corner indices, computed once.
        #: Read-only: :func:`~hardware.camera.suits.pair_check` computes each pair's share once.
        self._luminance: dict[Card, F32] = {
            c: read_only(face_luminance(self.patches[c])) for c in FULL_DECK}
        self.index = IndexBank(self._luminance)
        #: Which faces differ only in their corner indices, and the check between two.
        self.index_only = IndexOnly(self._luminance)
        #: Each face's share of :func:`whole_contrast`'s fit (computed when first needed).
        self._whole: dict[Card, LineX] = {}

    def luminance(self, card: Card) -> F32:
        """Return the registered face's luminance for :func:`hardware.camera.suits.pair_check`."""
        lum = self._luminance.get(card)
        if lum is None:
            lum = self._luminance[card] = read_only(face_luminance(self.patches[card]))
        return lum

    def whole_face(self, card: Card) -> LineX:
        """Return the face's share of :func:`whole_contrast` (the same result, computed once)."""
        lx = self._whole.get(card)
        if lx is None:
            lx = self._whole[card] = LineX(_whole(self.luminance(card)))
        return lx

    def match(
        self, vec: F32, params: RecognizerParams, exclude: Card | Iterable[Card] | None = None
    ) -> Match:
        """Compare an observed feature vector with every face but ``exclude`` (a card or cards).

        Left out: a card in tests, a rank's suits the ink's colour refuted (:mod:`.inkhue`).

        The template blur whose best card scores highest is used (a blurred frame is compared
        with equally blurred faces); margin, separation and discriminant are taken at that blur.
        """
        best_level = -np.inf
        chosen: F32 = self.matrices[0]
        scores: F32 = np.zeros(0, np.float32)
        for matrix in self.matrices:
            # Row by row (np.vecdot, one thread, 0.09 ms for 104 x 8880), not @: a BLAS
            # matrix-vector product spins up threads; einsum costs 0.21 ms.
            s = np.asarray(np.vecdot(matrix, vec), np.float32)
            for out in ((exclude,) if isinstance(exclude, Card) else exclude or ()):
                s[2 * out.index : 2 * out.index + 2] = -np.inf
            if float(s.max()) > best_level:
                best_level, chosen, scores = float(s.max()), matrix, s
        per_card = np.maximum(scores[0::2], scores[1::2])
        order = np.argsort(per_card)[::-1]
        best = int(order[0])
        margin = float(per_card[best] - per_card[int(order[1])])

        def view(i: int) -> F32:
            return np.asarray(chosen[2 * i + (0 if scores[2 * i] >= scores[2 * i + 1] else 1)])

        t_best = view(best)
        # The margin in units of the two faces' distance: |t_best - t_second| = sqrt(2 (1 - c)).
        # Two faces that differ only in a few small pips (a club and a spade of the same rank,
        # court cards drawn alike) cannot produce a large margin however clear the observation.
        c_second = float(t_best @ view(int(order[1])))
        separation = margin / float(np.sqrt(max(2.0 * (1.0 - c_second), 1e-6)))
        disc = 1.0
        card = FULL_DECK[best]
        # The same against the rivals that are not the best card's suit twin (same rank, same
        # colour): what the whole face decides when only the suit is left to the index and pips.
        disc_others = 1.0
        rest = order[1:]
        others = [int(i) for i in rest[~_TWINS[best, rest]]]
        for rival in order[1 : 1 + params.discriminant_rivals]:
            diff = t_best - view(int(rival))
            d = float(vec @ diff) / max(float(diff @ diff) / 2, 1e-6)
            disc = min(disc, d)
        for rival in others[: params.discriminant_rivals]:
            diff = t_best - view(rival)
            disc_others = min(disc_others, float(vec @ diff) / max(float(diff @ diff) / 2, 1e-6))
        c_other = float(t_best @ view(others[0]))
        sep_others = float(per_card[best] - per_card[others[0]]) / float(
            np.sqrt(max(2.0 * (1.0 - c_other), 1e-6)))
        second = FULL_DECK[int(order[1])]
        top = order[:RANKED]
        # Every card within the gap of the best score, best first (read_by_difference).
        near = order[: max(int(np.count_nonzero(
            per_card >= per_card[best] - params.difference_score_gap)), 1)]
        return Match(card, float(per_card[best]), margin, disc, separation, second,
                     bool(scores[2 * best + 1] > scores[2 * best]), disc_others, sep_others,
                     FULL_DECK[others[0]], tuple(FULL_DECK[int(i)] for i in top),
                     tuple(float(per_card[int(i)]) for i in top),
                     tuple(FULL_DECK[int(i)] for i in near),
                     tuple(float(per_card[int(i)]) for i in near))

    @classmethod
    def from_faces(cls, faces: Mapping[Card, Image], params: RecognizerParams) -> FaceBank:
        """Build from full-resolution BGRA faces (``calibration.faces.load_face_folder``)."""
        return cls({c: face_patch(f) for c, f in faces.items()}, params, FineFaces(faces))


@dataclass(frozen=True, slots=True)
class Match:
    """How one observed face compares with the registered faces.

    :param score: correlation with the best card's face (1 = identical).
    :param margin: best score minus the second-best card's.
    :param discriminant: the worst, over the next rivals, of where the observation falls between
        the best face (1) and the rival's face (-1) along the line joining them.
    :param separation: the margin divided by the distance between the best and the second-best
        faces' feature vectors (both unit vectors).
    """

    card: Card
    score: float
    margin: float
    discriminant: float
    separation: float = 0.0
    #: The second-best card, and whether the best face matched upside down.
    second: Card | None = None
    flipped: bool = False
    #: Discriminant and separation against the best rival that is not a suit twin.
    discriminant_others: float = 0.0
    separation_others: float = 0.0
    #: The best rival that is not the best card's suit twin (another rank, or the other colour).
    other: Card | None = None
    #: The :data:`RANKED` best cards, best first, and their scores.
    ranked: tuple[Card, ...] = ()
    ranked_scores: tuple[float, ...] = ()
    #: Every card scoring within ``difference_score_gap`` of the best, best first, and their
    #: scores (:func:`read_by_difference`).
    close: tuple[Card, ...] = ()
    close_scores: tuple[float, ...] = ()


_RED = frozenset((SUITS.index("d"), SUITS.index("h")))


def suit_twins(a: Card, b: Card) -> bool:
    """Return whether two cards share rank and colour (clubs / spades, hearts / diamonds)."""
    return a.rank == b.rank and a.suit != b.suit and ((a.suit in _RED) == (b.suit in _RED))


#: ``_TWINS[i, j]``: whether ``FULL_DECK[i]`` and ``FULL_DECK[j]`` are suit twins.
_TWINS = np.array([[suit_twins(a, b) for b in FULL_DECK] for a in FULL_DECK], bool)


def decide(match: Match, params: RecognizerParams) -> SlotReading:
    """Turn a :class:`Match` into a reading: ``"card"`` only if every threshold is met."""
    p = params
    conf = float(np.clip(min(match.score, match.discriminant), 0.0, 1.0))
    residual = float(np.sqrt(max(1.0 - match.score * match.score, 0.0)))
    separated = (match.separation >= p.min_separation
                 or match.separation >= p.min_separation_residual * residual)
    ok = match.score >= p.min_score and separated and match.discriminant >= p.min_discriminant
    status: SlotStatus = "card" if ok else "uncertain"
    return SlotReading(
        status, match.card if ok else None, conf if ok else 0.5 * conf,
        None if ok else match.card, match.score, match.margin, match.discriminant,
        match.separation,
    )


def decide_twin(
    observed: F32, match: Match, bank: FaceBank, params: RecognizerParams
) -> tuple[Match, float] | None:
    """Decide between the best card and its suit twin (``match.second``) on their difference.

    First :func:`~hardware.camera.suits.pair_check` at the faces' own light blur, for the best
    card only (``suit_min_position``, ``suit_min_fit``, ``suit_min_half``); then, if that
    fails and ``suit_blur_check`` is set, :func:`~hardware.camera.blurmatch.blurred_pair_check`
    (both faces blurred as the observation is), for whichever twin the observation leans
    towards (``suit_blur_min_position`` on the whole region, ``suit_blur_min_half`` on each
    half, both measured: one half's region is one corner's print, benchmark run 87; the
    twin must also reach ``min_score``). Either way the lean must be at least
    ``suit_noise_ratio`` times the lean the frame's noise alone gives against those faces
    (:func:`~hardware.camera.blurmatch.lean_noise`,
    :func:`~hardware.camera.twinleans.lean_stands`), and a blurred read must hold at the blur
    the corner indices show (:func:`~hardware.camera.twinleans.index_lean_stands`): at that
    size, blur and light the camera may not resolve the little the twins differ in (a small index
    symbol, pips blurred to blobs), and with the cut moved by half a pixel each way
    (:func:`~hardware.camera.twinleans.offset_lean_stands`, ``suit_blur_offset_px``: where
    the twins differ in dot-sized pips the blurred lean can turn on the cut's offset), nor
    where the corners at the frame's resolution decide the other twin (``corners_deny``).
    Returns the match of the card read (its
    ``card`` and ``second`` swapped when the twin is read) and how far the observation leaned,
    or None: the two stay undecided.

    Left undecided so, a pair of courts (:data:`~hardware.camera.finetwins.FINE_RANKS`) is
    compared on the corner indices at the frame's own resolution where the bank has its
    faces so (``bank.fine``,
    :meth:`~hardware.camera.finetwins.FineFaces.decide`), unless the stored faces' sharp
    comparison leans the other way by ``twin_veto_position``.

    :param observed: the observation's luminance, upright
        (:func:`~hardware.camera.suits.observed_luminance`).
    """
    decided = _stored_twin(observed, match, bank, params)
    if decided is not None or bank.fine is None or match.card.rank not in FINE_RANKS:
        return decided
    assert match.second is not None
    sign, lean = bank.fine.decide(observed, match.card, match.second)
    if sign == 0 or sign * pair_check(observed, bank.luminance(match.card), bank.luminance(
            match.second)).position < params.twin_veto_position:
        return None
    return signed_read(match, sign, lean, params)


def signed_read(match: Match, sign: int, lean: float,
                params: RecognizerParams) -> tuple[Match, float] | None:
    """``match`` (``sign`` > 0) or its twin read (card and second swapped), with ``lean``.

    The twin must score ``min_score`` (the best score less the margin); else None.
    """
    if sign > 0:
        return match, lean
    if match.second is None or match.score - match.margin < params.min_score:
        return None
    return replace(match, card=match.second, second=match.card,
                   score=match.score - match.margin), lean


def _stored_twin(
    observed: F32, match: Match, bank: FaceBank, params: RecognizerParams
) -> tuple[Match, float] | None:
    """:func:`decide_twin` on the stored faces (the sharp, then the blurred comparison)."""
    assert match.second is not None
    p = params
    best, twin = bank.luminance(match.card), bank.luminance(match.second)
    check = pair_check(observed, best, twin)
    if sharp_twin_read(observed, best, twin, check, p, p.suit_min_fit):
        if sharp_unconfirmed(observed, match.card, match.second, bank, p) or (
                p.suit_blur_check and blurred_names_twin(observed, match.card, best, twin, p)):
            return None
        return match, check.position
    if not p.suit_blur_check:
        return None
    blurred = blurred_pair_check(observed, best, twin)
    if blurred.fit < p.suit_min_fit or blurred_unmatched(blurred, p) or blurred.halves < 2:
        return None
    if blurred.position >= p.suit_blur_min_position and blurred.worst_half >= p.suit_blur_min_half:
        if not blurred_read_stands(observed, best, twin, blurred.position, 1.0, p) or (
                corners_deny(observed, match.card, match.second, bank.fine, p)):
            return None
        return match, blurred.position
    if (-blurred.position >= p.suit_blur_min_position
            and -blurred.best_half >= p.suit_blur_min_half
            and match.score - match.margin >= p.min_score):
        if not blurred_read_stands(observed, best, twin, blurred.position, -1.0, p) or (
                corners_deny(observed, match.second, match.card, bank.fine, p)):
            return None
        return signed_read(match, -1, -blurred.position, p)
    return None


def sharp_twin_read(observed: F32, best: F32, twin: F32, check: SuitCheck,
                    params: RecognizerParams, min_fit: float) -> bool:
    """Whether the comparison at the faces' own blur (``check``) reads ``best`` over ``twin``.

    ``suit_min_position`` on the whole region, ``suit_min_half`` on each half, a fit of at
    least ``min_fit``, and a position above the frame's noise against the sharp faces
    (:func:`~hardware.camera.twinleans.above_noise`): on a blurred frame the sharp faces fit
    nowhere well, and a lean of 0.7 towards a club is no more than that misfit gives.
    """
    p = params
    return (check.position >= p.suit_min_position and check.fit >= min_fit
            and check.worst_half >= p.suit_min_half
            and above_noise(check.position, lean_noise(observed, best, twin, joint=False), p))


def sharp_unresolved(observed: F32, best: F32, twin: F32, params: RecognizerParams) -> bool:
    """Whether nothing on this frame shows that the sharp twin comparison is more than misfit.

    :func:`sharp_twin_read` asks the lean to stand above the frame's noise against the sharp
    faces, but takes it as it is where that noise cannot be measured
    (:func:`~hardware.camera.blurmatch.lean_noise` None: too little print where the twins
    agree); the blurred comparison is the other measure, and where the two faces blurred as
    the observation is no longer differ enough to be compared (:func:`blurred_unmatched`),
    the frame's blur has smoothed away what the twins differ in. With neither, the sharp lean
    is blur misfit as much as the card: a 6 of spades read as the club at 0.73 (synth-9152
    bridge, jumbo indices, bright hard, blur sigma 3 px and 12 px of motion; benchmark runs
    64 and 68). Asked of a pip card's read (:func:`sharp_unconfirmed`).

    Nor does a measured noise make the sharp lean evidence where the two faces blurred as the
    observation is no longer differ at all (no region left to compare, fit 0): the frame has
    blurred away what the twins differ in, and the sharp faces' misfit there can stand far
    above the noise it is measured against. A 7 of clubs of a two-colour design whose club
    and spade differ in little ink was read as the spade at 2.6 (noise 0.99; bridge, hard,
    blur about 3 px with motion; benchmark run 77).
    """
    blurred = blurred_pair_check(observed, best, twin)
    if blurred.fit <= 0.0:
        return True
    if lean_noise(observed, best, twin, joint=False) is not None:
        return False
    return blurred_unmatched(blurred, params)


def sharp_unconfirmed(observed: F32, card: Card, twin: Card, bank: FaceBank,
                      params: RecognizerParams) -> bool:
    """Whether a pip card's sharp twin read of ``card`` over ``twin`` is refused.

    Refused where nothing measures the sharp lean (:func:`sharp_unresolved`) unless the
    corner boxes at the frame's own resolution confirm ``card``
    (:meth:`~hardware.camera.finetwins.FineFaces.confirms`: a corner fitting 0.8 and leaning
    towards ``card`` by 0.3 and three times its noise; no fine faces or no view noted: not
    confirmed). On pip cards the fine comparison neither reads nor refutes a twin (its pip
    corners can lean the wrong way, :data:`~hardware.camera.finetwins.FINE_RANKS`); here it
    may only keep a read the sharp rule made: a medium 9 of spades whose faces blurred as the
    frame no longer differed was kept so, its three corners at 0.58-0.86 over noises of 0.13-0.14
    (synth-3 bridge, benchmark run 68), while the 6 of spades read as the club leaned
    towards the spade there, within its noise. A court's read is the fine comparison's
    already (:meth:`~hardware.camera.rivals.RivalChecks._fine_vetoed`): never refused here.
    """
    if card.rank in FINE_RANKS:
        return False
    if not sharp_unresolved(observed, bank.luminance(card), bank.luminance(twin), params):
        return False
    return not corners_confirm(observed, card, twin, bank)


def corners_confirm(observed: F32, card: Card, twin: Card, bank: FaceBank) -> bool:
    """Whether the corners at the frame's resolution confirm ``card`` (no fine faces: no)."""
    return bank.fine is not None and bank.fine.confirms(observed, card, twin) is True


def twin_refuted(observed: F32, card: Card, twin: Card, bank: FaceBank,
                 params: RecognizerParams) -> bool:
    """Whether the observation fails to show ``card`` rather than its suit twin ``twin``.

    Refuted when, where the two faces differ, it leans towards the twin at the faces' own blur
    (``twin_veto_position`` on the whole region and ``twin_veto_half`` on one half), or, with
    ``suit_blur_check``, not clearly towards ``card`` against the two faces blurred as the
    observation is (``twin_blur_veto_position``, ``twin_blur_veto_half``). The blurred
    comparison is skipped when the comparison at the faces' own blur already reads ``card``
    by the rule :func:`decide_twin` reads a twin with (:func:`sharp_twin_read`) and the
    frame's noise against the two faces could be measured (refuted then only where the faces
    blurred as the observation is name the twin, :func:`blurred_names_twin`), and replaced
    by that comparison (at the blurred bounds, fit at least ``suit_min_fit``, its lean above
    the frame's noise where that is measured: :func:`~hardware.camera.twinleans.above_noise`)
    when no blur could be matched (:func:`blurred_unmatched`). The blurred lean must also
    stand above the frame's noise, as the twin decision asks
    (:func:`~hardware.camera.twinleans.lean_stands`), unless the corners at the frame's own
    resolution confirm ``card`` (:func:`corners_confirm`).
    """
    p = params
    best, other = bank.luminance(card), bank.luminance(twin)
    check = pair_check(observed, best, other)
    if check.position < p.twin_veto_position and check.worst_half < p.twin_veto_half:
        return True
    if (sharp_twin_read(observed, best, other, check, p, p.suit_min_fit)
            and lean_noise(observed, best, other, joint=False) is not None):
        # Read by the sharp rule above a measured noise: unless the faces blurred as the
        # observation is name the twin (:func:`blurred_names_twin`).
        return p.suit_blur_check and blurred_names_twin(observed, card, best, other, p)
    if not p.suit_blur_check:
        return False
    blurred = blurred_pair_check(observed, best, other)
    if blurred_unmatched(blurred, p):
        # No blur could be matched on these faces: the comparison at their own blur decides,
        # by the blurred rule's bounds, where it fits the twins and leans above the frame's
        # noise against them.
        if check.fit < p.suit_min_fit or not above_noise(
                check.position, lean_noise(observed, best, other, joint=False), p):
            return True
        blurred = check
    return (blurred.position < p.twin_blur_veto_position
            or blurred.worst_half < p.twin_blur_veto_half
            or (not lean_stands(observed, best, other, blurred.position, p)
                and not corners_confirm(observed, card, twin, bank)))


def _rivals(x: Card, close: Iterable[Card]) -> tuple[set[Card], bool]:
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
        elif y.rank != x.rank and y.suit != x.suit and (y.suit in _RED) == (x.suit in _RED):
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


#: The card's own border (stored-patch pixels) left out of :func:`whole_contrast`.
_WHOLE_BORDER = 4


def _whole(lum: F32) -> F32:
    b = _WHOLE_BORDER
    return np.asarray(lum[b:-b, b:-b].reshape(-1))


def whole_contrast(observed: F32, face: F32 | LineX) -> float:
    """Return the observation's contrast against a face over the whole card (border left out).

    :param face: the face's luminance, or its share of the fit (:meth:`FaceBank.whole_face`).
    """
    a, _ = line_fit(face if isinstance(face, LineX) else _whole(face), _whole(observed))
    return float(a)


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
