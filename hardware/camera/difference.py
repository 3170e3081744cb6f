"""Close faces read where they differ: designs whose faces of a suit share one picture.

Rules this module keeps:

1. A card the whole face leaves uncertain is read only when, against every close card (suit
   twins aside), the observation leans towards it where the two faces differ, and its corner
   indices do (:func:`read_by_difference`); its suit twin is decided by the twin rules.
2. Pure: the observation's luminance and a :class:`~hardware.camera.facebank.Match` in, a
   reading or None out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from hardware.camera.facebank import FaceBank, Match, twin_of, whole_contrast
from hardware.camera.finedecide import RANK_MIN_MEAN, RANK_NOISE_RATIO
from hardware.camera.index import IndexRead
from hardware.camera.readings import F32, RecognizerParams, SlotReading
from hardware.camera.rivalrules import close_rivals, index_only_refutes
from hardware.camera.suits import SuitCheck, pair_check
from hardware.camera.twindecide import decide_twin, sharp_read_refused, sharp_twin_read
from table_controller.engine.cards import FULL_DECK, Card

#: Where a pair's corner templates lean neither way, the comparison at the frame's blur decides
#: only when the two faces, blurred as the observation is, differ over their region by at least
#: this many times what that comparison's fit leaves unexplained
#: (:meth:`~hardware.camera.indexonly.IndexOnly.resolved`). A blurred 3 of spades leaned 1.25
#: towards the 5 there at 0.91 (synth-8106 bridge, hard, tuning seed 1811710); on 110 hard frames
#: of eleven designs with such pairs no other card's lean passed against the truth, and the truth's
#: passed at 0.65-6.8 (42 of 47 at 1.2 or more).
INDEX_RESOLVED = 1.2
#: Where the camera resolves the pair this well
#: (:meth:`~hardware.camera.indexonly.IndexOnly.resolved`), the lean over both indices at the
#: frame's blur may be the twin rules' for a blurred comparison (``suit_blur_min_position``,
#: ``suit_blur_min_half``) instead of ``index_only_min_position`` and ``index_only_min_half``.
INDEX_CLEAR = 2.5


def read_by_difference(observed: F32, match: Match, bank: FaceBank,
                       params: RecognizerParams,
                       paper_shown: Callable[[Card, Card], bool] | None = None,
                       ) -> SlotReading | None:
    """Read a card the whole face left uncertain among faces that differ in little.

    Some designs print one picture for every card of a suit and tell the ranks apart by the
    corner index alone: the whole faces then correlate at 0.99 and more, every card of the
    suit scores within a hair of the best, and no separation is possible on the whole face
    however clearly the index shows. Where two faces differ (their difference region, the
    index), the observation can still sit clearly on one side. A candidate X (the best card,
    then the close card it lost to most) is read when, against every card scoring within
    ``difference_score_gap`` of the best (:attr:`Match.close`; suit twins aside):

    - over the two faces' difference region, it leans towards X by ``difference_min_position``
      (:func:`~hardware.camera.suits.pair_check`, fit at least ``difference_min_fit``);
    - where X's and the rival's corner indices differ, they lean towards X by
      ``difference_min_index`` (:meth:`~hardware.camera.index.IndexRead.position`): a glare
      that washes a pip out moves the whole difference region towards the rank that lacks it,
      the printed index stays;
    - the region is not washed out (its contrast at least ``difference_min_contrast`` times
      the whole card's, :func:`region_washed_out`);

    X scores at least ``min_score``, its corner indices name no other rank
    (``index_veto_close``), and a suit twin among the close cards (or the close cards of the
    twin suit, tested on their rank in X's suit) is decided for X by :func:`decide_twin`. The
    positions are antisymmetric (the rival's lean against X is minus X's against it), so two
    candidates cannot both pass; after the best card and the close card each refused one
    lost to most, the other close cards that may be read are tried, best first. Reported as
    :func:`~hardware.camera.washedout.read_washed_out` does: separation and
    discriminant 0 (never read beside a hand), half the confidence.

    For a rival told apart by the corners alone (an index-only pair) whose region the sharp
    faces fit under ``difference_min_fit``, the faces blurred as the observation is decide
    instead, where they fit: both indices at the frame's blur on their own bounds
    (:func:`index_only_lean`), the corner templates leaning towards X.

    Where the corner indices lean neither way (within ``difference_min_index`` of 0), the
    pair is read on the face when ``paper_shown(X, rival)`` holds: the white where the rival
    has ink X lacks is X's own paper, no glare there
    (:meth:`~hardware.camera.rivals.RivalChecks._paper_shown`), so no wash moved the region
    towards X.

    :param observed: the observation's luminance, upright
        (:func:`~hardware.camera.suits.observed_luminance`).
    """
    p = params
    if len(match.close) > p.difference_max_close:
        return None
    scores = dict(zip(match.close, match.close_scores, strict=True))
    index = bank.index.read(observed)
    x: Card | None = match.card
    tried: set[Card] = set()
    # The close cards a tried candidate passed against: such a card cannot pass against it
    # (the positions are antisymmetric), so it cannot be read.
    beaten: set[Card] = set()
    leads: dict[Card, bool] = {}

    def may_lead(c: Card) -> bool:
        """Whether ``c``, not tried yet, could be read (:func:`_may_lead`, once per card)."""
        if c in tried or c in beaten:
            return False
        if c not in leads:
            leads[c] = _may_lead(c, scores, index, p)
        return leads[c]

    while x is not None and x not in tried:
        tried.add(x)
        lean, beaten_by = _difference_lean(observed, x, scores, match, bank, index, p,
                                           may_lead, beaten, paper_shown)
        if lean is not None:
            return SlotReading("card", x, 0.5 * float(np.clip(min(scores[x], lean), 0.0, 1.0)),
                               None, scores[x], 0.0, 0.0, 0.0)
        x = beaten_by
        if x is None or not may_lead(x):
            # No card it lost to clearly: the close cards not tried yet that could be read and
            # that no tried candidate passed against, best first.
            x = next((c for c in match.close if may_lead(c)), None)
    return None


def in_suits(match: Match, vec: F32, suits: frozenset[int] | None, bank: FaceBank,
             params: RecognizerParams) -> Match:
    """Return the whole-face match among the cards of ``suits`` alone, or ``match`` itself."""
    if suits is None:
        return match
    return bank.match(vec, params, [c for c in FULL_DECK if c.suit not in suits])


def in_suit(match: Match, vec: F32, suit: int | None, bank: FaceBank,
            params: RecognizerParams) -> Match:
    """Return the whole-face match among the cards of ``suit`` alone, or ``match`` itself.

    On a deck printing its suits in more than two inks, the suit the ink's tone names
    (:meth:`~hardware.camera.inkhue.FaceTones.suit_by_tone`) rules the other suits out; what
    is left to :func:`read_by_difference` is the rank, which a court picture shared by all
    courts leaves to the corner index. ``match`` is kept when no suit is named.
    """
    if suit is None:
        return match
    return bank.match(vec, params, [c for c in FULL_DECK if c.suit != suit])


def _may_lead(x: Card, scores: dict[Card, float], index: IndexRead,
              params: RecognizerParams) -> bool:
    """Whether X passes :func:`_difference_lean`'s first tests (score, corner index veto)."""
    p = params
    if scores[x] < p.min_score:
        return False
    pos = index.positions(x)
    others = np.delete(pos.reshape(13, 4), x.rank, axis=0).reshape(-1)
    known = others[~np.isnan(others)]
    return not (known.size and float(known.min()) <= -p.index_veto_close)


def _difference_lean(observed: F32, x: Card, scores: dict[Card, float], match: Match,
                     bank: FaceBank, index: IndexRead, params: RecognizerParams,
                     may_lead: Callable[[Card], bool] | None = None,
                     beaten: set[Card] | None = None,
                     paper_shown: Callable[[Card, Card], bool] | None = None,
                     ) -> tuple[float | None, Card | None]:
    """How clearly X shows against every close card where they differ (None: not clearly).

    Also returns the close card the observation leaned towards most against X (a candidate to
    try next), when one did. ``may_lead`` tells whether a close card could still be read
    (:func:`_may_lead`, not tried yet): once X is refuted and neither the card it lost to most
    so far nor any close card left to compare could be, nothing can be read whatever the rest
    shows, and the rest is not compared. ``beaten``: the close cards X passes against are
    added to it (none of them can pass against X).
    """
    p = params
    sx = scores[x]
    if not _may_lead(x, scores, index, p):
        return None, None
    rivals, twin_needed = close_rivals(x, scores)
    lean = 1.0
    worst: tuple[float, Card] | None = None
    contrast = p.difference_min_contrast * whole_contrast(observed, bank.whole_face(x))
    # Index-only rivals of another rank that only the corners at the frame's own resolution
    # can still show X against (fine_rank_lean, the costly test: asked last, once every other
    # rival passed), each with the lean it passes on when they do (None: theirs).
    fine_needed: list[tuple[Card, float | None]] = []
    order = sorted(rivals, key=lambda c: (-scores.get(c, -1.0), c))
    for k, y in enumerate(order):
        if bank.index_only.pair(x, y):
            # Faces told apart by their corners alone: as any close card (below), except that
            # where the corner templates do not tell the two apart, or the region at the
            # faces' own blur does not lean far enough, the comparison at the observation's
            # blur over both indices may decide instead (:func:`index_only_lean`).
            check = pair_check(observed, bank.luminance(x), bank.luminance(y))
            blurred = bank.index_only.check(observed, x, y)
            # The sharp faces misfit a blurred index (fit under difference_min_fit) where the
            # faces blurred as the observation is still fit it: only the latter may decide.
            misfit = check.fit < p.difference_min_fit
            if ((misfit and blurred.fit < p.difference_min_fit)
                    or _washed_out(check, blurred, contrast, p)):
                return None, None
            at = index.position(x, y)
            if at is not None and at <= -p.difference_min_index:
                at_lean: float | None = None
            elif misfit:
                # Read only where the corner templates lean towards X as well, and both
                # indices at the frame's blur, on their own bounds (index_only_lean): a
                # blurred king of diamonds fitted the jack's sharp face at 0.54, both
                # indices at the frame's blur leaning 1.10 / 0.68 towards the king.
                at_lean = (index_only_lean(observed, x, y, bank, p)
                           if at is not None and at >= p.difference_min_index else None)
            elif at is None or at < p.difference_min_index:
                # The corner templates (sharp) lean neither way: a blur that smears thin
                # strokes leaves them undecided. The comparison at the frame's own blur, on
                # its stricter bounds, decides, where the camera resolves the pair
                # (INDEX_RESOLVED; a blurred 9 of clubs: templates -0.19 against the 8, both
                # indices at the frame's blur 0.93 / 0.91 towards the 9). So too where no
                # corner template tells the two apart at all (``at`` None: a 6 and an 8 of
                # one central-symbol design): a hard frame's 8 of clubs, its green index
                # smeared, leaned 1.38 towards the 6 at the frame's blur, resolved at 0.87,
                # and was read as the 6 (benchmark run 91).
                at_lean = (index_only_lean(observed, x, y, bank, p)
                           if bank.index_only.resolved(observed, x, y) >= INDEX_RESOLVED
                           else None)
                if (at_lean is not None and p.difference_undecided_fine
                        and bank.fine is not None and x.rank != y.rank):
                    # That comparison alone leans: the fine corners must show X as well
                    # (asked after the loop; a blurred 9 of diamonds leaned 0.73 towards the
                    # 8 there, its templates at -0.006, benchmark run 102).
                    fine_needed.append((y, at_lean))
                    continue
            elif check.position >= p.difference_min_position and at is not None:
                # Still not where the frame's own blur leans the other way, nor where X's
                # rank rests on less than both indices show (rank_unshown: its costly last
                # test, the fine corners, asked after the loop).
                at_lean = (None if index_only_refutes(observed, x, y, bank, p)
                           else check.position)
                if at_lean is not None and rank_needs_fine(observed, x, y, bank, p):
                    fine_needed.append((y, at_lean))
                    continue
            else:
                at_lean = index_only_lean(observed, x, y, bank, p)
            if at_lean is None:
                # The card it lost to: by the sharp region, or by both indices at the frame's
                # blur (on their own bounds), whichever leans further towards it.
                lost = check.position
                if (blurred.fit >= p.difference_min_fit
                        and -blurred.position >= p.index_only_min_position
                        and -blurred.best_half >= p.index_only_min_half):
                    lost = min(lost, blurred.position)
                if -lost >= p.difference_min_position and y in scores and (
                        worst is None or lost < worst[0]):
                    worst = (lost, y)
                if _fine_may_show(observed, x, y, at, bank, p):
                    # The stored faces leave the pair undecided (the indices a few pixels
                    # at their blur) with nothing leaning against X: the corners at the
                    # frame's own resolution may still show X's rank (fine_rank_lean,
                    # asked after the loop).
                    fine_needed.append((y, None))
                    continue
                lean = -1.0
            else:
                if beaten is not None:
                    beaten.add(y)
                if lean >= p.difference_min_position:
                    lean = min(lean, at_lean)
        else:
            check = pair_check(observed, bank.luminance(x), bank.luminance(y))
            if check.fit < p.difference_min_fit or check.contrast < contrast:
                # Not aligned, or washed out where the two differ (region_washed_out).
                return None, None
            if check.position < p.difference_min_position:
                if -check.position >= p.difference_min_position and y in scores and (
                        worst is None or check.position < worst[0]):
                    worst = (check.position, y)
                lean = -1.0
            elif lean >= p.difference_min_position or beaten is not None:
                at = index.position(x, y)
                # (the bound where a glare may have washed the rival's ink: asked only where
                # paper_shown can say so)
                bound = (p.difference_min_index if paper_shown is None
                         else max(p.difference_min_index, p.difference_unpapered_index))
                if at is not None and (
                        at <= -p.difference_min_index
                        or (at < bound and (paper_shown is None or not paper_shown(x, y)))):
                    # The index against X; or, where a glare may have washed the rival's ink
                    # out (the white there not shown to be X's paper), the index not clearly
                    # for X (the index is then the evidence that decides).
                    lean = -1.0
                else:
                    if beaten is not None:
                        beaten.add(y)
                    lean = min(lean, check.position)
        if (lean < p.difference_min_position and may_lead is not None
                and (worst is None or not may_lead(worst[1]))
                and not any(z in scores and may_lead(z) for z in order[k + 1:])):
            return None, None
    if lean < p.difference_min_position:
        return None, worst[1] if worst is not None else None
    if twin_needed:
        twin = twin_of(x)
        # The twins' sharp comparison as decide_twin's first, at this rule's fit (a red
        # index blurred on a one-picture design fits the twins' mean at 0.6-0.8); else the
        # twin rules as they are.
        # A sharp read the twin decision would refuse (:func:`~.twindecide.sharp_read_refused`:
        # a pip card's lean nothing on the frame measures and its corners do not confirm, one
        # the faces blurred as the observation is contradict): decide_twin decides.
        fx, ft = bank.luminance(x), bank.luminance(twin)
        sharp = pair_check(observed, fx, ft)
        if not sharp_twin_read(observed, fx, ft, sharp, p, p.difference_min_fit) or (
                sharp_read_refused(observed, x, twin, bank, p)):
            st = scores.get(twin, sx - 1.0)
            decided = decide_twin(observed, replace(match, card=x, second=twin, score=sx,
                                                    margin=sx - st), bank, p)
            if decided is None or decided[0].card != x:
                return None, None
        lean = min(lean, sharp.position)
    for y, passed_on in fine_needed:
        shown = fine_rank_lean(observed, x, y, bank)
        if shown is None:
            return None, worst[1] if worst is not None else None
        lean = min(lean, shown if passed_on is None else passed_on)
        if beaten is not None:
            beaten.add(y)
    return lean, None


def _fine_may_show(observed: F32, x: Card, y: Card, at: float | None, bank: FaceBank,
                   params: RecognizerParams) -> bool:
    """Whether only the fine corners are left to show X against Y (an index-only pair).

    For a pair of different ranks whose faces differ only in the corners, left undecided by
    the stored faces (their region, the corner templates, both indices at the frame's
    blur): neither the corner templates (``difference_min_index``) nor both indices at the
    frame's blur (:func:`~.rivalrules.index_only_refutes`) lean towards Y, and the profile
    keeps its fine faces.
    """
    p = params
    return (bank.fine is not None and x.rank != y.rank
            and not (at is not None and at <= -p.difference_min_index)
            and not index_only_refutes(observed, x, y, bank, p))



def _washed_out(sharp: SuitCheck, blurred: SuitCheck, contrast: float,
                params: RecognizerParams) -> bool:
    """Whether a pair's corner indices are washed out (their contrast under ``contrast``).

    For faces told apart by their corners alone. A glare lifts the ink towards the white at
    any blur; a blur spreads a thin index stroke's ink over its surroundings, which lowers its
    contrast against the sharp faces (:func:`~hardware.camera.suits.pair_check`) but not
    against the two faces blurred as the observation is (:meth:`IndexOnly.check
    <hardware.camera.indexonly.IndexOnly.check>`). Where the latter fits, its contrast is
    the index's own; else the sharp faces' is taken.
    """
    if blurred.fit >= params.difference_min_fit:
        return blurred.contrast < contrast
    return sharp.contrast < contrast


def index_only_lean(observed: F32, x: Card, y: Card, bank: FaceBank,
                     params: RecognizerParams) -> float | None:
    """X's lean against Y over both indices at the observation's blur (None: not clear).

    For faces that differ only in their corners (:class:`~hardware.camera.indexonly.IndexOnly`):
    at least ``index_only_min_position`` over both indices and ``index_only_min_half`` on each
    half, with a fit of ``difference_min_fit``. Where the corner templates do not tell a 6 and
    an 8 apart (one short stroke), the region at the faces' own blur alone read a blurred 6 of
    hearts as the 8 (0.41 of the way; synth-9102 poker, hard plain, tuning seed 5257000); at
    the frame's blur it leaned 0.45 / 0.18, and is not read.
    """
    p = params
    check = bank.index_only.check(observed, x, y)
    if check.fit < p.difference_min_fit:
        return None
    if check.position >= p.index_only_min_position and check.worst_half >= p.index_only_min_half:
        return check.position
    if (check.position >= p.suit_blur_min_position and check.worst_half >= p.suit_blur_min_half
            and bank.index_only.resolved(observed, x, y) >= INDEX_CLEAR):
        return check.position
    return None


def rank_unshown(observed: F32, x: Card, y: Card, bank: FaceBank,
                 params: RecognizerParams) -> bool:
    """Whether X's rank rests on less than both corner indices show against Y's.

    Where X's and Y's faces differ only in their corners and name different ranks (courts that
    share one picture), the sharp faces' region, the corner templates and a blob of index ink
    (:func:`~hardware.camera.suits.ink_check`) weigh a few dozen pixels of a blurred glyph:
    X must also lean towards its own face over both indices at the frame's blur, on their own
    bounds (:func:`index_only_lean`). On hard boards of a four-colour deck whose twelve courts
    share one picture, two kings of diamonds and a king and a queen of hearts were read as
    the jacks (the jack's ink found at 1.46 with the king's at 0.42, corner templates 0.96
    towards the jack): at the frame's blur they leaned 0.15-0.52 towards the jack, resolved
    0.95-1.56. Suit twins are left to the twin rules.

    Where the stored faces leave the pair unresolved, the corner indices at the frame's own
    resolution may show X's rank instead: the fine comparison
    (:func:`fine_rank_lean`: every available corner where the two differ fitting 0.8 and
    leaning towards X by 0.3 and twice its noise, at least two of them, 0.5 on average)
    deciding for X. On designs printing one central symbol on every number card (ranks 2-10
    of a suit share one picture) an 8 of clubs leaned 0.36 over both indices at the stored
    faces' blur (fit 0.82) and was refused, while its two index corners at the frame's
    resolution leaned 1.14 and 1.10 towards the 8 at a noise of 0.04 (benchmark run 69; the
    bounds of two ranks since run 84, the suit twins' 3 times the noise and 0.6 before).
    """
    return rank_needs_fine(observed, x, y, bank, params) and not fine_shows(observed, x, y, bank)


def rank_needs_fine(observed: F32, x: Card, y: Card, bank: FaceBank,
                    params: RecognizerParams) -> bool:
    """:func:`rank_unshown` short of its last test: whether only :func:`fine_shows` can show X.

    ``rank_unshown`` is this and not ``fine_shows``. The fine comparison is the costly part
    (a blur fitted per pair on the frame's corner boxes, about 10 ms); a caller that refuses X
    on any of several tests may ask it last, when nothing cheaper refused X already: every
    test is a pure function of the observation, so the answer is the same in any order.
    """
    return (x.rank != y.rank and bank.index_only.pair(x, y)
            and index_only_lean(observed, x, y, bank, params) is None)


def fine_rank_lean(observed: F32, x: Card, y: Card, bank: FaceBank) -> float | None:
    """Return the weakest corner's lean towards X where the fine corners decide X, or None.

    :meth:`~hardware.camera.finetwins.FineFaces.decide` on the view ``observed`` was cut
    from, on the bounds of two ranks (:data:`~hardware.camera.finedecide.RANK_NOISE_RATIO`,
    :data:`~hardware.camera.finedecide.RANK_MIN_MEAN`); None without the profile's fine faces
    or a view noted for ``observed``.
    """
    if bank.fine is None:
        return None
    sign, lean = bank.fine.decide(observed, x, y, RANK_NOISE_RATIO, RANK_MIN_MEAN)
    return lean if sign == 1 else None


def fine_shows(observed: F32, x: Card, y: Card, bank: FaceBank) -> bool:
    """Whether the corners at the frame's own resolution decide X against Y.

    :meth:`~hardware.camera.finetwins.FineFaces.decide` on the view ``observed`` was cut
    from; False without the profile's fine faces or a view noted for ``observed``.
    """
    return fine_rank_lean(observed, x, y, bank) is not None
