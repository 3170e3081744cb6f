"""The ink's hue, which a glare or a blur cannot change: a check on the fallback reads.

A glare adds white light and a blur mixes the ink with the paper: either moves the ink's
colour (against the paper's) towards zero along a straight line, never to another hue. A
four-colour deck prints its suits in four inks (clubs green, diamonds blue), which the whole
face's features see only through luminance and redness; under a hard motion blur the washed-out
and difference reads (:func:`hardware.camera.washedout.read_washed_out`,
:func:`~hardware.camera.facebank.read_by_difference`), which compare luminance only, read a
green club as the blue diamond of its rank (tuning design synth-9103, hard plain scenes).

Rules this module keeps:

1. Colour per pixel: ``(B - G) / white`` and ``(R - max(G, B)) / white`` (``white`` the
   card's white under the local light, as :func:`~hardware.camera.facebank.face_features`
   takes it); the ink's colour is its mean over the ink of the two faces compared (grown by
   the blur) less its mean over the rest of the card (the paper: a tinted light shifts both).
2. The observation's ink colour is explained by a face when it is a non-negative multiple of
   that face's (:func:`hue_residual`). A read is refuted only when its face leaves more than
   :data:`HUE_MAX_RESIDUAL` unexplained and the rival's face explains the ink at least twice
   as well: refusing is the safe direction, and a deck whose suits share their inks (red and
   black) gives the same colour to the pips of both twins, which it never tells apart.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from functools import partial

import cv2
import numpy as np
import numpy.typing as npt

from hardware.camera.readings import Image

#: A face's pixel is ink where its luminance is under this share of the card's white.
INK_LEVEL = 0.7
#: The ink region grown by this (stored px; a hard scene's blur spreads the ink that far).
INK_GROW = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))
#: The card's border (stored px) left out of ink and paper alike.
BORDER_PX = 6
#: Most of the observation's ink colour a read's face may leave unexplained. Tuning design
#: synth-9103 poker, hard plain scenes (seed 5271310): the fallback reads that were right left
#: at most 0.031 (the rival at least 0.23); the three read wrong left 0.14-0.18 (the rival
#: at most 0.004).
HUE_MAX_RESIDUAL = 0.06
_WHITE_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (17, 17))

F64 = npt.NDArray[np.float64]


def _white(patch: Image) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32],
                                  npt.NDArray[np.float32]]:
    """Return a BGR patch as float, its luminance and its local white."""
    img = np.asarray(patch.astype(np.float32), np.float32)
    gray = np.asarray(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), np.float32)
    white = np.maximum(cv2.GaussianBlur(cv2.dilate(gray, _WHITE_KERNEL), (0, 0), 10.0), 16.0)
    return img, gray, np.asarray(white, np.float32)


def _luminance(patch: Image) -> npt.NDArray[np.float32]:
    """Return :func:`_colour`'s luminance alone (the same array, without the colour planes)."""
    _, gray, white = _white(patch)
    return np.asarray(gray / white, np.float32)


def _colour(patch: Image) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Return a BGR patch's luminance and colour (two planes) against its local white."""
    img, gray, white = _white(patch)
    b, g, r = cv2.split(img)
    colour = np.stack([(b - g) / white, (r - np.maximum(g, b)) / white], -1)
    return np.asarray(gray / white, np.float32), np.asarray(colour, np.float32)


#: What :func:`ink_colours` takes from two read-only faces alone (the faces' own arrays,
#: ``read`` and ``rival``; ink and paper masks; the two faces' ink colours), by the faces'
#: identity: the registered faces (:attr:`.facebank.FaceBank.patches`, read-only) are the same
#: arrays frame after frame. Bounded (:data:`_FACE_PAIRS_MAX`).
_FACE_PAIRS: OrderedDict[tuple[int, int],
                         tuple[Image, Image, npt.NDArray[np.bool_], npt.NDArray[np.bool_],
                               F64, F64]] = OrderedDict()
_FACE_PAIRS_MAX = 128


def _face_pair(read: Image, rival: Image) -> tuple[npt.NDArray[np.bool_],
                                                   npt.NDArray[np.bool_], F64, F64]:
    """Ink and paper of two faces (rule 1) and each face's ink colour there (once per pair)."""
    key = (id(read), id(rival))
    kept = not read.flags.writeable and not rival.flags.writeable
    got = _FACE_PAIRS.get(key) if kept else None
    if got is not None and got[0] is read and got[1] is rival:
        return got[2], got[3], got[4], got[5]
    lr, cr = _colour(read)
    lv, cv = _colour(rival)
    ink = cv2.dilate(((lr < INK_LEVEL) | (lv < INK_LEVEL)).astype(np.uint8), INK_GROW) > 0
    inside = np.zeros_like(ink)
    b = BORDER_PX
    inside[b:-b, b:-b] = True
    ink &= inside
    paper = inside & ~ink
    zero = np.zeros(2)
    if not ink.any() or not paper.any():
        out_r, out_v = zero, zero
    else:
        out_r, out_v = (np.asarray(c[ink].mean(axis=0) - c[paper].mean(axis=0), np.float64)
                        for c in (cr, cv))
    if kept:
        _FACE_PAIRS[key] = (read, rival, ink, paper, out_r, out_v)
        if len(_FACE_PAIRS) > _FACE_PAIRS_MAX:
            _FACE_PAIRS.popitem(last=False)
    return ink, paper, out_r, out_v


def ink_colours(observed: Image, read: Image, rival: Image) -> tuple[F64, F64, F64]:
    """Return the ink colour of the read's face, the rival's face and the observation.

    All three are BGR patches of the same size, upright; the ink is where either face has
    ink (rule 1). What two read-only faces alone give is computed once per pair of face
    arrays (:func:`_face_pair`).
    """
    ink, paper, out_r, out_v = _face_pair(read, rival)
    if not ink.any() or not paper.any():
        zero = np.zeros(2)
        return zero, zero, zero
    _, co = _colour(observed)
    return out_r, out_v, np.asarray(co[ink].mean(axis=0) - co[paper].mean(axis=0), np.float64)


def hue_residual(observed: F64, face: F64) -> float:
    """How much of the observed ink colour no non-negative multiple of ``face``'s explains."""
    n = float(face @ face)
    k = max(0.0, float(observed @ face) / n) if n > 1e-9 else 0.0
    return float(np.linalg.norm(observed - k * face))


def hue_refutes(observed: Image, read: Image, rival: Image) -> bool:
    """Whether the observation's ink colour refutes ``read``'s face for ``rival``'s (rule 2)."""
    cr, cv, co = ink_colours(observed, read, rival)
    own = hue_residual(co, cr)
    return own > HUE_MAX_RESIDUAL and hue_residual(co, cv) <= 0.5 * own


# --- The suit from the ink's colour, on decks that print their suits in more than two inks ---
#
# 3. The ink's *tone*: its colour (``B - G`` and ``R - max(G, B)``, mean over the ink less the
#    paper's) divided by how much darker than the paper the same pixels are (:func:`ink_tone`).
#    A blur mixes ink with paper and a light's strength scales both: the ratio stays the ink's
#    own (black: near 0; green: ``B - G`` well below 0; blue: above 0); a glare's white adds
#    to the three channels alike and cancels in both differences. A camera's white balance
#    moves the paper and the ink alike (the paper is subtracted).
# 4. Two tones are of different inks (:func:`other_inks`) when one is black (a tone under
#    :data:`INKS_APART`) and the other is not, or both are coloured and their hues lie more
#    than :data:`HUE_APART_DEG` apart: a light and a dark red are one ink to a camera whose
#    exposure varies. A deck prints its suits in more than two inks when its suits' median
#    tones (each face's own ink) fall into more than two such groups (:class:`SuitInks`,
#    decided once from the registered faces). Only there is the tone used to read a suit
#    (:func:`suit_by_tone`); a red-and-black deck reads exactly as without it.

#: Darkness (share of the paper's grey) under which the ink is too washed out to show a tone.
TONE_MIN_DARKNESS = 0.04
#: A tone under this is black ink's (rule 4).
INKS_APART = 0.25
#: Two coloured inks whose hues (the tone's angle) lie more than this apart (degrees) differ.
HUE_APART_DEG = 30.0
#: 6. Print the rank's four faces share (one court picture for all suits: the same colours at
#:    the same pixels) shows no suit's tone: its ink is left out of the region the tones are
#:    taken over, and so is the paper it may blur into (grown as the ink is); the corner
#:    indices and pips, where the faces differ, remain. A pixel is shared where every face's
#:    B, G and R lie within SHARED_LEVEL of the first's. Left out only when at least
#:    MIN_OWN_INK_PX of the suits' own ink remain.
SHARED_LEVEL = 24
MIN_OWN_INK_PX = 40
#: 8. The paper the tones are measured against is the card's own (:func:`_clean_paper`): a
#:    picture the rank's four faces share prints light colours too (a jack's yellow coat, a
#:    face's skin), lighter than :data:`INK_LEVEL`, which rule 6 left in the paper, so that
#:    black ink showed a tone of (0.25, -0.15), a blue ink's hue, and no suit was named
#:    (synth-9198 poker, one court picture). The paper's colour is taken within PAPER_NEAR_PX
#:    of the suits' own ink (round the corner indices, which print on plain paper), and the
#:    print all four faces share that lies more than :data:`SHARED_LEVEL` from it in B, G or R
#:    is left out of the paper; kept only where at least MIN_PAPER_PX of paper remain.
#:    Of that paper, the lightest quarter (grey at or above PAPER_LIGHTEST_PCT percent of it):
#:    on a deck registered by the camera, the picture's edges differ from capture to capture
#:    and count as the suits' own ink, and the paper next to them is the picture's light
#:    ground (synth-117 poker: a pink ground, median BGR (200, 208, 245) against the paper's
#:    (227, 244, 250)), which taken for the paper left the real paper out.
PAPER_NEAR_PX = 6
PAPER_LIGHTEST_PCT = 75.0
MIN_PAPER_PX = 200
#: A suit is read from the tone when the observation lies within this share of the distance
#: between its face's tone and the nearest other suit's, and every other suit's face is at least
#: :data:`INKS_APART` from it.
TONE_MAX_SHARE = 0.35


def ink_tone(patch: Image, ink: npt.NDArray[np.bool_], paper: npt.NDArray[np.bool_]) -> F64 | None:
    """Return ``patch``'s ink colour per unit of darkness over ``ink`` (rule 3), or None."""
    img = patch.astype(np.float32)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    white = float(grey[paper].mean())
    dark = white - float(grey[ink].mean())
    if dark < TONE_MIN_DARKNESS * max(white, 16.0):
        return None
    ink_colour, paper_colour = _colour_means(img, (ink, paper))
    return np.asarray((ink_colour - paper_colour) / dark, np.float64)


def _colour_means(img: npt.NDArray[np.float32], masks: tuple[Mask, ...]
                  ) -> list[npt.NDArray[np.float32]]:
    """Return :func:`ink_tone`'s mean colour (``b - g``, ``r - max(g, b)``) over each mask.

    The same float32 values as ``np.stack(planes, -1)[mask].mean(axis=0)``, to the last bit:
    numpy reduces an (n, 2) array over its first axis by adding its rows in order, which is
    each plane's running sum over the mask (``np.cumsum``) at its end, then divided by n
    (tests/vision/test_same_values_cheaper.py). Made so without the (n, 2) copies, whose boolean
    indexing and row-by-row mean were most of a tone's cost. An empty mask: numpy's mean.
    """
    b, g, r = cv2.split(img)
    planes = (b - g, r - np.maximum(g, b))
    out: list[npt.NDArray[np.float32]] = []
    for where in masks:
        n = int(np.count_nonzero(where))
        if n == 0:
            out.append(np.asarray(np.stack(planes, -1)[where].mean(axis=0), np.float32))
            continue
        sums = np.array([np.cumsum(plane[where])[-1] for plane in planes], np.float32)
        out.append(np.asarray(sums / np.float32(n), np.float32))
    return out


def other_inks(a: F64, b: F64) -> bool:
    """Whether two tones are of different inks (rule 4)."""
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if na < INKS_APART or nb < INKS_APART:
        return (na < INKS_APART) != (nb < INKS_APART)
    cos = float(a @ b) / (na * nb)
    return cos < float(np.cos(np.deg2rad(HUE_APART_DEG)))


Mask = npt.NDArray[np.bool_]


def _raw_ink(face: Image) -> Mask:
    """Return where ``face`` has ink (not grown)."""
    return np.asarray(_luminance(face) < INK_LEVEL, np.bool_)


def _grown(raw: Mask) -> tuple[Mask, Mask]:
    """Return the ink ``raw`` grown, and the paper, inside the border."""
    ink = cv2.dilate(raw.astype(np.uint8), INK_GROW) > 0
    inside = np.zeros_like(ink)
    b = BORDER_PX
    inside[b:-b, b:-b] = True
    return ink & inside, inside & ~ink


def _regions(faces: list[Image]) -> tuple[Mask, Mask]:
    """Return where any of ``faces`` has ink (grown) and the paper, inside the border.

    Print all of ``faces`` share is left out of the ink (rule 6), and of the paper.
    """
    return _suits_ink([_raw_ink(face) for face in faces], faces)


def _suits_ink(raws: list[Mask], faces: list[Image]) -> tuple[Mask, Mask]:
    """Return the grown ink of ``raws`` but the print ``faces`` share, and the paper (rule 6)."""
    raw = np.logical_or.reduce(raws)
    ink, paper = _grown(raw)
    first = faces[0].astype(np.int16)
    alike = np.ones(raw.shape, bool)
    for face in faces[1:]:
        alike &= np.abs(face.astype(np.int16) - first).max(axis=2) <= SHARED_LEVEL
    shared = raw & alike
    if not shared.any():
        return ink, paper
    own, _ = _grown(raw & ~shared)
    spread, _ = _grown(shared)
    kept = own & ~spread
    # Only where the suits' own ink is enough to show a tone; else as before.
    if int(np.count_nonzero(kept)) < MIN_OWN_INK_PX:
        return ink, paper
    return kept, _clean_paper(paper, kept, faces[0], alike)


def _clean_paper(paper: Mask, kept: Mask, face: Image, alike: Mask) -> Mask:
    """Return ``paper`` without the light print all the rank's faces share (rule 8).

    ``kept``: the suits' own ink (rule 6); ``face``: one of the faces; ``alike``: where every
    face prints the same colour. The paper's colour is taken next to the suits' own ink
    (within :data:`PAPER_NEAR_PX`: the paper round the corner indices), over its lightest
    quarter (:data:`PAPER_LIGHTEST_PCT`: print is darker than the paper it is printed on); a
    shared pixel more than
    :data:`SHARED_LEVEL` from it in B, G or R is print, and it is left out of the paper with
    what it blurs into (grown as the ink is). Left as before when under :data:`MIN_PAPER_PX`
    of paper would remain, or the paper next to the own ink is under that.
    """
    near_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE,
                                            (2 * PAPER_NEAR_PX + 1, 2 * PAPER_NEAR_PX + 1))
    near = (cv2.dilate(kept.astype(np.uint8), near_kernel) > 0) & paper
    if int(np.count_nonzero(near)) < MIN_PAPER_PX:
        return paper
    near_bgr = face[near].astype(np.float32)
    grey = near_bgr @ np.array([0.114, 0.587, 0.299], np.float32)
    lightest = near_bgr[grey >= np.percentile(grey, PAPER_LIGHTEST_PCT)]
    reference = np.median(lightest, axis=0)
    printed = alike & (np.abs(face.astype(np.float32) - reference).max(axis=2) > SHARED_LEVEL)
    spread = cv2.dilate(printed.astype(np.uint8), INK_GROW) > 0
    clean = paper & ~spread
    return clean if int(np.count_nonzero(clean)) >= MIN_PAPER_PX else paper


def suit_by_tone(observed: Image, faces: dict[int, Image]) -> int | None:
    """Return the suit (a key of ``faces``) whose ink tone the observation shows, or None.

    ``faces``: one rank's registered faces by suit (BGR patches of the observation's size,
    upright). The tones are taken over where any of them has ink (rule 3); the suit is read
    when the observation lies within :data:`TONE_MAX_SHARE` of the way from its face's tone to
    the nearest other suit's and every other face's tone is of another ink (rule 4).
    """
    suits = list(faces)
    ink, paper = _regions([faces[s] for s in suits])
    if not ink.any() or not paper.any():
        return None
    return _suit_from_tones(observed, suits, ink, paper,
                            [ink_tone(faces[s], ink, paper) for s in suits])


def _suit_from_tones(observed: Image, suits: list[int], ink: Mask, paper: Mask,
                     tones: list[F64 | None]) -> int | None:
    """Return :func:`suit_by_tone`'s suit given the faces' regions and tones."""
    seen = ink_tone(observed, ink, paper)
    if seen is None or any(t is None for t in tones):
        return None
    known = [t for t in tones if t is not None]
    dist = [float(np.linalg.norm(seen - t)) for t in known]
    best = int(np.argmin(dist))
    rest = [t for i, t in enumerate(known) if i != best]
    if not all(other_inks(known[best], t) for t in rest):
        return None
    apart = min(float(np.linalg.norm(known[best] - t)) for t in rest)
    if dist[best] > TONE_MAX_SHARE * apart:
        return None
    return suits[best]


#: 7. The ink's hue alone (:func:`suit_by_hue`): a light brighter than at calibration clips
#:    the paper to the sensor's white, which takes darkness from the ink but not its colour, so
#:    the tone grows along its own hue (a green club's ``(-0.49, -0.61)`` seen at ``(-0.84,
#:    -1.08)`` on synth-1 poker, bright): its angle stays the ink's. Only where the rank's inks
#:    are clearly apart: every face tone black (under :data:`INKS_APART`) or coloured (at least
#:    twice it), none between (a court picture mixing inks gives tones of 0.2-0.3: synth-9144),
#:    and the observed tone coloured (at least twice :data:`INKS_APART`). A suit is named by
#:    the hue when the observed tone lies within HUE_NAMES_DEG of its coloured face tone and
#:    at least HUE_NAMES_DEG nearer it than any other coloured face's (a blue and a green ink
#:    lie 55-60 degrees apart on synth-7 and synth-20). Black ink is the tone rule's.
HUE_NAMES_DEG = 30.0


def _angle_deg(a: F64, b: F64) -> float:
    cos = float(a @ b) / max(float(np.linalg.norm(a)) * float(np.linalg.norm(b)), 1e-9)
    return float(np.degrees(np.arccos(np.clip(cos, -1.0, 1.0))))


def _suit_from_hue(seen: F64 | None, suits: list[int],
                   tones: list[F64 | None]) -> int | None:
    """Return the suit whose face's ink hue the observed tone ``seen`` shows (rule 7), or None."""
    known = [t for t in tones if t is not None]
    if seen is None or len(known) != len(tones):
        return None
    norms = [float(np.linalg.norm(t)) for t in known]
    if any(INKS_APART <= n < 2.0 * INKS_APART for n in norms):
        return None
    if float(np.linalg.norm(seen)) < 2.0 * INKS_APART:
        return None
    angles = sorted((_angle_deg(seen, t), s) for s, t, n in zip(suits, known, norms, strict=True)
                    if n >= INKS_APART)
    if not angles or angles[0][0] > HUE_NAMES_DEG:
        return None
    if len(angles) > 1 and angles[1][0] - angles[0][0] < HUE_NAMES_DEG:
        return None
    return angles[0][1]


def own_tone(face: Image) -> F64 | None:
    """Return a face's ink tone over its own ink (rule 4), or None."""
    ink, paper = _regions([face])
    return ink_tone(face, ink, paper) if ink.any() and paper.any() else None


class SuitInks:
    """Whether a deck prints its suits in more than two inks (rule 4), from its faces."""

    def __init__(self, patches: dict[tuple[int, int], Image],
                 tone_of: Callable[[tuple[int, int]], F64 | None] | None = None) -> None:
        """Decide from ``patches``: (rank, suit) -> the registered face (BGR, stored size).

        ``tone_of``: (rank, suit) -> :func:`own_tone` of its face (:meth:`FaceTones.own`
        keeps them).
        """
        medians: list[F64] = []
        for suit in range(4):
            tones = []
            for rank in range(13):
                face = patches.get((rank, suit))
                if face is None:
                    continue
                tone = own_tone(face) if tone_of is None else tone_of((rank, suit))
                if tone is not None:
                    tones.append(tone)
            medians.append(np.median(np.stack(tones), axis=0) if tones else np.zeros(2))
        #: Each suit's median ink tone, and the groups of suits sharing an ink.
        self.tones = medians
        groups: list[list[int]] = []
        for suit, tone in enumerate(medians):
            for group in groups:
                if not other_inks(medians[group[0]], tone):
                    group.append(suit)
                    break
            else:
                groups.append([suit])
        self.groups = groups
        self.many = len(groups) > 2


class FaceTones:
    """What the tone reads take from the registered faces alone, each part computed once.

    5. The same arrays and tones as :class:`SuitInks` and :func:`suit_by_tone` compute in each
       call: each face's ink and own tone, and per rank the four faces' joint regions and
       their tones. :meth:`units` are the parts in small pieces (about 1-3 ms each), for
       frames with time to spare (:mod:`hardware.camera.warmup`).

    :param patches: (rank, suit) -> the registered face (BGR, stored size; not changed later).
    """

    def __init__(self, patches: dict[tuple[int, int], Image]) -> None:
        self.patches = patches
        self._own: dict[tuple[int, int], F64 | None] = {}
        self._raw: dict[tuple[int, int], Mask] = {}
        self._regions: dict[int, tuple[Mask, Mask]] = {}
        self._shared: dict[int, bool] = {}
        self._tones: dict[tuple[int, int], F64 | None] = {}
        self._inks: SuitInks | None = None

    def raw(self, key: tuple[int, int]) -> Mask:
        """Return the face's ink, not grown."""
        if key not in self._raw:
            self._raw[key] = _raw_ink(self.patches[key])
        return self._raw[key]

    def own(self, key: tuple[int, int]) -> F64 | None:
        """Return :func:`own_tone` of the face ``key``."""
        if key not in self._own:
            ink, paper = _grown(self.raw(key))
            face = self.patches[key]
            self._own[key] = ink_tone(face, ink, paper) if ink.any() and paper.any() else None
        return self._own[key]

    def suit_inks(self) -> SuitInks:
        """Return the deck's :class:`SuitInks`."""
        if self._inks is None:
            self._inks = SuitInks(self.patches, self.own)
        return self._inks

    def regions(self, rank: int) -> tuple[Mask, Mask]:
        """Return where any of the rank's four faces has ink (grown; rule 6), and the paper."""
        if rank not in self._regions:
            raws = [self.raw((rank, s)) for s in range(4)]
            self._regions[rank] = _suits_ink(raws, [self.patches[(rank, s)] for s in range(4)])
            self._shared[rank] = not np.array_equal(self._regions[rank][0],
                                                    _grown(np.logical_or.reduce(raws))[0])
        return self._regions[rank]

    def shared(self, rank: int) -> bool:
        """Whether the rank's four faces share print that the tones leave out (rule 6)."""
        self.regions(rank)
        return self._shared[rank]

    def tone(self, rank: int, suit: int) -> F64 | None:
        """Return the face's ink tone over its rank's joint regions."""
        if (rank, suit) not in self._tones:
            ink, paper = self.regions(rank)
            self._tones[(rank, suit)] = ink_tone(self.patches[(rank, suit)], ink, paper)
        return self._tones[(rank, suit)]

    def suit_by_tone(self, observed: Image, rank: int) -> int | None:
        """Return :func:`suit_by_tone` of ``observed`` against the rank's four faces."""
        ink, paper = self.regions(rank)
        if not ink.any() or not paper.any():
            return None
        suits = list(range(4))
        return _suit_from_tones(observed, suits, ink, paper, [self.tone(rank, s) for s in suits])

    def inks_by_tone(self, observed: Image, rank: int) -> frozenset[int] | None:
        """Return the suits printed in the ink ``observed`` shows, or None.

        On a deck of two inks (:class:`SuitInks`: two groups), the group whose faces' mean
        tone, over the rank's joint regions, :func:`_suit_from_tones` names against the other.
        """
        groups = self.suit_inks().groups
        if len(groups) != 2:
            return None
        ink, paper = self.regions(rank)
        if not ink.any() or not paper.any():
            return None
        tones = [self.tone(rank, s) for s in range(4)]
        known = [t for t in tones if t is not None]
        if len(known) != 4:
            return None
        means: list[F64 | None] = []
        for group in groups:
            members = [known[s] for s in group]
            if any(other_inks(members[0], t) for t in members[1:]):
                return None
            means.append(np.mean(np.stack(members), axis=0))
        named = _suit_from_tones(observed, [0, 1], ink, paper, means)
        return None if named is None else frozenset(groups[named])

    def suit_by_hue(self, observed: Image, rank: int) -> int | None:
        """Return the suit whose ink hue ``observed`` shows (rule 7), against the rank's faces."""
        ink, paper = self.regions(rank)
        if not ink.any() or not paper.any():
            return None
        suits = list(range(4))
        return _suit_from_hue(ink_tone(observed, ink, paper), suits,
                              [self.tone(rank, s) for s in suits])

    def _warm_tone(self, rank: int, suit: int) -> None:
        if self.suit_inks().many:
            self.tone(rank, suit)

    def units(self) -> list[Callable[[], object]]:
        """Return the parts in small pieces.

        The faces' own tones, the deck's inks, then (only on a deck of more than two inks: the
        tone reads are made there alone) each rank's regions and tones.
        """
        out: list[Callable[[], object]] = [partial(self.own, key) for key in self.patches]
        out.append(self.suit_inks)
        out += [partial(self._warm_tone, r, s) for r in range(13) for s in range(4)]
        return out
