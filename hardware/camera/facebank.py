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
3. Suit twins the whole face cannot separate are decided where their faces differ, in
   :mod:`.twindecide`; a read's checks against its other close rivals are in :mod:`.rivalrules`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import cv2
import numpy as np

from hardware.camera.finetwins import FineFaces
from hardware.camera.index import IndexBank
from hardware.camera.indexonly import IndexOnly
from hardware.camera.readings import F32, Image, RecognizerParams, SlotReading, SlotStatus
from hardware.camera.suits import LineX, face_luminance, line_fit, read_only
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
#: How many of the best cards a :class:`Match` lists (:func:`.washedout.read_washed_out`).
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
        undecided are compared on the frame's corner indices,
        :func:`~hardware.camera.twindecide.decide_twin`).
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


def same_colour(a: Card, b: Card) -> bool:
    """Return whether two cards' suits share a colour (clubs / spades, hearts / diamonds)."""
    return (a.suit in _RED) == (b.suit in _RED)


def suit_twins(a: Card, b: Card) -> bool:
    """Return whether two cards share rank and colour (clubs / spades, hearts / diamonds)."""
    return a.rank == b.rank and a.suit != b.suit and same_colour(a, b)


def twin_of(card: Card) -> Card:
    """Return ``card``'s suit twin: its rank in the other suit of its colour."""
    return next(c for c in (Card(card.rank, s) for s in range(4)) if suit_twins(card, c))


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
