"""The checks a board read must pass against its close rivals' faces (:class:`RivalChecks`).

The whole face's best card is read only where it agrees with its close rivals (its suit twin,
the best card of another rank) where their faces differ, and where its corner indices name no
other rank; a read left only by its suit twin is decided by the indices and the pips. The
methods of :class:`~hardware.camera.recognizer.BoardRecognizer` that do so, kept here by job.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

from hardware.camera.facebank import RANKED, FaceBank, Match, suit_twins, twin_of, whole_contrast
from hardware.camera.finedecide import (
    CAPTURED_NOISE_RATIO,
    NOISE_RATIO,
    RANK_MIN_MEAN,
    RANK_NOISE_RATIO,
    fine_confirms_indices,
    roughly_confirms,
)
from hardware.camera.finetwins import FINE_RANKS
from hardware.camera.glare import HiddenRivals, Mask, glare_mask
from hardware.camera.glaretwin import glare_twin_lean
from hardware.camera.pipagree import agreed_twin
from hardware.camera.readings import F32, Image, RecognizerParams, SlotReading
from hardware.camera.rivalrules import ink_refuted, region_washed_out, twin_blurred_away
from hardware.camera.suits import index_leans, index_positions, pair_check
from hardware.camera.twindecide import decide_twin, signed_read, twin_refuted
from table_controller.engine.cards import FULL_DECK, Card

#: The face rules out a rank its corner indices name when, over the two faces' difference
#: region and on each half of the card, it leans this far towards the read
#: (:meth:`RivalChecks._face_rules_out`; +1: the read's face, -1: the rival's).
INDEX_WAIVE_LEAN = 0.5
#: The ranks whose suit-twin reads the fine comparison may refuse
#: (:meth:`RivalChecks._fine_vetoed`): :data:`~hardware.camera.finetwins.FINE_RANKS`.
FINE_VETO_RANKS = FINE_RANKS


class RivalChecks:
    """A read's checks against its close rivals, on the registered faces ``bank``."""

    bank: FaceBank
    params: RecognizerParams
    _hidden: HiddenRivals | None = None
    #: The last glare found: the patch it was found on, the card read, the mask and its flag.
    _glare_seen: tuple[Image, Card, tuple[Mask, bool]] | None = None
    #: Per card, where :func:`~hardware.camera.glare.glare_mask` finds a glare on the
    #: registered face itself (:meth:`_own_glare`).
    _own_glares: dict[Card, Mask] | None = None

    def _paper_shown(self, patch: Callable[[], Image] | None, card: Card,
                     rival: Card) -> bool:
        """Whether the white where ``rival`` has ink is ``card``'s own paper, not a glare's.

        :func:`~hardware.camera.rivalrules.region_washed_out` takes a region without contrast
        for a glare's doing; but where the region is the rival's ink, the right card shows
        its paper there with no glare at all. A glare adds white: where the paper over the
        rival's ink (mostly on the face, not the corner indices) is not lifted
        (:meth:`~hardware.camera.glare.HiddenRivals.unglared`), and a glare able to wash ink
        out would show on this card's paper (:func:`~hardware.camera.glare.glare_mask`), the
        white is the card's own: the face rules the rival out (synth-9121 poker, hard gloss:
        a 7 of hearts refused against the 8 with no glare over the 8's extra pip).
        """
        if patch is None:
            return False
        glare, seen = self._glare_on(patch(), card)
        return seen and self._hidden_rivals().unglared(card, rival, glare)

    def _glare_on(self, patch: Image, card: Card) -> tuple[Mask, bool]:
        """Return :func:`~hardware.camera.glare.glare_mask` of ``patch`` read as ``card``.

        The checks of one read ask it of the same cut (once per rival, then once more): the
        last answer is kept while the same patch object and card are asked.
        """
        last = self._glare_seen
        if last is not None and last[0] is patch and last[1] == card:
            return last[2]
        mask, shows = glare_mask(patch, self.bank.luminance(card))
        own = self._own_glare(card)
        found = (mask & ~own if own.any() else mask), shows
        self._glare_seen = (patch, card, found)
        return found

    def _own_glare(self, card: Card) -> Mask:
        """Return the glare :func:`~hardware.camera.glare.glare_mask` finds on ``card``'s own face.

        Found on the registered face itself (once per card): that is the face's own print, not
        a glare.
        The mask takes the face's paper (luminance from
        :data:`~hardware.camera.glare.PAPER_LEVEL`) as one white. A court picture filled with
        a pale tint (a light blue at 0.85-0.95) is paper to it too, and where that fill is
        most of the paper it sets the level: the true white around it then stands above the
        level as a glare would, on every frame and on the clean registered face alike (over
        220 generated tuning folders, 43 had faces, mostly courts, whose own patch showed a
        glare of 4,000-19,000 of its 20,160 px). Every court of a one-picture design then had
        the other courts as rivals the "glare" hid, which the corner indices had to rule out
        one by one, and clubs of synth-9260 poker (jumbo indices, four colours) were left
        ``uncertain`` on plain medium frames (benchmark run 105). What the registered face
        shows already is left out of the observation's mask; a face whose own patch shows no
        glare (most cards of those folders, every card of the other 177) is unchanged.
        """
        if self._own_glares is None:
            self._own_glares = {}
        own = self._own_glares.get(card)
        if own is None:
            try:
                own = glare_mask(self.bank.patches[card], self.bank.luminance(card))[0]
            except np.linalg.LinAlgError:
                # A noiseless face's paper can sit on too few distinct rows or columns for the
                # white's plane (synth-8119 poker): no own glare found, the mask as it was.
                own = np.zeros(self.bank.patches[card].shape[:2], bool)
            self._own_glares[card] = own
        return own

    def _own_glare_units(self) -> list[Callable[[], object]]:
        """Return units finding each card's own glare (:meth:`_own_glare`), for the warm-up.

        The mask depends on the registered face alone: made ahead (:mod:`.warmup`), the read
        of a card first seen after the warm-up finds it kept instead of paying for it (about
        0.5 ms a card; the same mask, so the same readings).
        """
        return [partial(self._own_glare, card) for card in FULL_DECK]

    def _hidden_rivals(self) -> HiddenRivals:
        if self._hidden is None:
            self._hidden = HiddenRivals(self.bank.luminance)
        return self._hidden

    def _glare_confirmed(self, observed: F32, patch: Image, reading: SlotReading,
                         neighbours: Callable[[], Image | None] | None = None
                         ) -> SlotReading:
        """Keep a read only if its corner indices confirm it against what a glare may hide.

        Where a glare (:func:`~hardware.camera.glare.glare_mask`) lies over part of the face, a
        card that differs from the read almost only there (a pip the glare may have washed out:
        :meth:`~hardware.camera.glare.HiddenRivals.hidden`) cannot be ruled out by the face;
        only the corner indices can decide it. Refused unless they lean towards the read by
        ``difference_min_index`` against every such card (:meth:`.index.IndexRead.position`;
        none telling the two apart is no confirmation). A streak over a 3 of diamonds' middle
        pip left a 2's face (synth-9121 bridge, hard gloss, seed 2003811; the indices at -0.31,
        towards the 3). The uncovered corner indices must also not lean to the same suit's
        card with one more pip (:meth:`_washed_pip_shown`) unless no glare was found where one
        would show: where the paper is too near white for a glare to show on it, an empty
        mask is no evidence; where a glare is found, a streak beside it may wash a pip out
        that too little of the mask covers for
        :meth:`~hardware.camera.glare.HiddenRivals.hidden` (a 5 of diamonds read as the 4 at
        0.42, the indices at -0.18 towards the 5: synth-9196 bridge, hard gloss, scene seed
        8803891; benchmark run 87). Where a glare would show and none is found, no pip was
        washed out: a 4 of spades with no glare on it, a neighbour over one corner and the
        other corners undecided between it and the 5, is read (synth-9201 poker, hard askew).

        :param patch: the card cut at the stored faces' size, upright (BGR).
        :param neighbours: where a located neighbour may lie over the card
            (:meth:`_neighbours_over`), for :meth:`_washed_pip_shown`.
        """
        card = reading.card
        if card is None:
            return reading
        glare, shows = self._glare_on(patch, card)
        rivals = self._hidden_rivals().hidden(card, glare)
        index = self.bank.index.read(observed) if rivals else None
        at = [index.position(card, rival) for rival in rivals] if index is not None else []
        confirmed = all(a is not None and a >= self.params.difference_min_index for a in at)
        # No glare where one would show: no pip washed out either.
        unglared = shows and not glare.any()
        if confirmed and (unglared or self._washed_pip_shown(observed, card, neighbours)):
            return reading
        return _refused(reading, card)

    def _washed_pip_shown(self, observed: F32, card: Card,
                          neighbours: Callable[[], Image | None] | None) -> bool:
        """Whether the corner indices do not name a card one washed-out pip would make ``card``.

        Asked where the paper is too near white for a glare to show on it
        (:func:`~hardware.camera.glare.glare_mask`'s second answer False: an empty mask is no
        evidence; run 80), and where a glare is found (a streak beside the mask may wash a
        pip out all the same; run 87). Against each card of
        ``card``'s suit that differs from it by one
        blob of its own ink (:meth:`~hardware.camera.glare.HiddenRivals.one_blob`: the 3
        behind a 2, the 8 behind a 7), the corner indices must lean towards ``card``
        (:meth:`.index.IndexRead.positions` above 0; refused where none tells the two
        apart). A corner a located neighbour or a hand may lie over
        (``neighbours``, :meth:`.index.IndexBank.covered`) is left out: its print may be the
        neighbour's, and a half-covered card's covered index leaned to the rival; when no
        uncovered corner tells the two apart (every corner covered, or the uncovered ones
        blank on a design printing two indices), all are asked. A 3 of spades whose middle
        pip a gloss streak washed out on paper at the sensor's top was read as the 2 at 0.73,
        both indices leaning to the 3 (synth-9181 poker, hard gloss, scene seed 2603801;
        benchmark run 77).
        """
        rivals = self._hidden_rivals().one_blob(card)
        if not rivals:
            return True
        index = self.bank.index.read(observed)
        every = index.positions(card)
        over = neighbours() if neighbours is not None else None
        pos = every if over is None else index.positions(card, self.bank.index.covered(over))
        # No uncovered corner telling the two apart (NaN): every corner is asked.
        return all(bool(np.where(np.isnan(pos[r.index]), every[r.index], pos[r.index]) > 0.0)
                   for r in rivals)

    def _check_index(self, observed: F32, match: Match, reading: SlotReading,
                     neighbours: Callable[[], Image | None] | None = None) -> SlotReading:
        """Keep a read only if its corner indices do not name another rank.

        Against every card of another rank (not only the close rivals of the whole face: a
        washed-out four may match the five's face best and the four's only third), the corners
        that tell the two apart (:meth:`hardware.camera.index.IndexRead.positions`); refused
        when one of them puts the observation at ``-index_veto`` or beyond, or at
        ``-index_veto_close`` when the whole face barely separated the read. A corner a
        located neighbour may lie over (``neighbours``, :meth:`_neighbours_over`) is left out,
        as :meth:`_indices_clear` leaves it: the print there may be the neighbour's. A rank
        the face plainly rules out (:meth:`_face_rules_out`) vetoes nothing.
        """
        p = self.params
        over = neighbours() if neighbours is not None else None
        skip = self.bank.index.covered(over) if over is not None else None
        pos = self.bank.index.read(observed).positions(match.card, skip)
        veto = p.index_veto_close if match.separation < p.index_close_below else p.index_veto
        named = [FULL_DECK[k] for k in np.flatnonzero(pos <= -veto)
                 if FULL_DECK[k].rank != match.card.rank]
        if named and not all(self._face_rules_out(observed, match.card, r) for r in named):
            return SlotReading("uncertain", None, 0.5 * reading.confidence, match.card,
                               match.score, match.margin, match.discriminant, match.separation)
        return reading

    def _face_rules_out(self, observed: F32, card: Card, rival: Card) -> bool:
        """Whether the face shows ``card``, not ``rival``, where the two differ, plainly.

        The corner indices are the evidence of last resort: where a glare or a wash hides part
        of the face (the reason :meth:`_check_index` asks every other rank), the index decides.
        Where the two faces' whole difference region is seen (:func:`~.suits.pair_check`: fit
        at least ``difference_min_fit``, contrast not washed out, as
        :func:`~.rivalrules.region_washed_out`) and the observation leans towards ``card`` by
        :data:`INDEX_WAIVE_LEAN` over it and on each half, the face has ruled the rival out:
        a small index blurred can name a rank the whole face plainly is not (synth-9121
        poker, gloss and bright, seed 2000000: seven right reads refused, their indices at
        -0.73 to -2.3 towards a club of another rank, the face at 0.66-1.19 towards the read
        where measured). A rival a glare may hide is the index's to decide still
        (:meth:`_glare_confirmed`).
        """
        p = self.params
        check = pair_check(observed, self.bank.luminance(card), self.bank.luminance(rival))
        floor = p.difference_min_contrast * whole_contrast(observed, self.bank.whole_face(card))
        return (check.fit >= p.difference_min_fit and check.contrast >= floor
                and check.position >= INDEX_WAIVE_LEAN and check.worst_half >= INDEX_WAIVE_LEAN)

    def _verify(
        self, observed: Callable[[], F32], match: Match, reading: SlotReading,
        twin_decided: bool, neighbours: Callable[[], Image | None] | None = None,
        patch: Callable[[], Image] | None = None,
    ) -> SlotReading:
        """Keep a read only if it agrees with the close rivals' faces where they differ.

        The rivals: the second-best card if it is the read's suit twin (unless
        :meth:`_decide_suit` already decided between the two) and the best card that is not,
        each when the read's separation from it is under ``pair_check_below``; refused when the
        observation leans towards the rival there (:class:`RecognizerParams`). A glare streak
        that washes out two pips of a six makes the whole face close to a four's, but not its
        corner indices. ``neighbours``: where a located neighbour may lie over the card
        (:meth:`_neighbours_over`), for :meth:`_indices_clear`; ``patch``: the card cut at the
        stored size, upright (BGR), for :meth:`_paper_shown`.
        """
        p = self.params
        rivals: list[Card] = []
        if (not twin_decided and match.second is not None
                and suit_twins(match.card, match.second)
                and match.separation < p.pair_check_below):
            rivals.append(match.second)
        if match.other is not None and match.separation_others < p.pair_check_below:
            rivals.append(match.other)
        for rival in rivals:
            best, other = self.bank.luminance(match.card), self.bank.luminance(rival)
            if suit_twins(match.card, rival):
                refused = (twin_refuted(observed(), match.card, rival, self.bank, p)
                           and not self._glare_twin(observed(), match.card, rival, patch) > 0)
            else:
                corners = index_positions(observed(), best, other)
                refused = (bool(corners) and max(corners) < p.rank_index_min) or (
                    p.washed_check and ink_refuted(observed(), match.card, rival, self.bank, p)
                ) or (region_washed_out(observed(), match.card, rival, self.bank, p)
                      and not self._indices_clear(observed(), match.card, rival,
                                                  neighbours() if neighbours else None)
                      and not self._paper_shown(patch, match.card, rival))
            if refused:
                return SlotReading("uncertain", None, 0.5 * reading.confidence, match.card,
                                   match.score, match.margin, match.discriminant,
                                   match.separation)
        return reading

    def _fine_vetoed(self, observed: Callable[[], F32], match: Match, reading: SlotReading,
                     twin_read: bool, inked: Callable[[Card], bool] | None = None
                     ) -> SlotReading:
        """Refuse a suit-twin read the corner indices at the frame's own resolution contradict.

        First, any read whose close second (within ``pair_check_below``) is a card of another
        rank the two faces tell apart by their corners alone (``bank.index_only.pair``: one
        central symbol) is refused where those corners decide the second on the bounds of two
        ranks (``fine_rank_veto``; :data:`~hardware.camera.finedecide.RANK_NOISE_RATIO`): a 6
        of diamonds under a gloss streak read as the 8 whose corners leaned to the 6 by five
        and seven times their noise (benchmark run 88).

        A suit-twin read: ``twin_read`` (made by the twin decision or by a second look: the
        washed-out, difference, index or tone read, the visible part's), or a whole-face read
        whose second best is its suit twin within ``pair_check_below``; a court
        (:data:`FINE_VETO_RANKS`), or any card where the faces were captured by the camera
        (``FineFaces.captured``: two captures of twins differ by the capture's own defects as
        well, so the stored patches' margin between them is no evidence; benchmark run 72:
        a 9, a 3 and a 7 read as their twins with confidence 0.62-0.88); on such a deck a
        read whose second best of any other card lies within ``pair_check_below`` is
        confirmed against that card the same way. Refused when
        ``fine_twin_veto`` is set, the profile has its fine faces and they lean clearly
        towards the twin (:meth:`~hardware.camera.finetwins.FineFaces.refutes`): the stored
        faces' blurred twin rule read a queen of spades as the club on a one-picture design
        whose corners, at the frame's resolution, leaned to the spade (benchmark run 62).
        Also refused when the fine faces cannot confirm it: no available corner leans clearly
        towards the read (:meth:`~hardware.camera.finetwins.FineFaces.confirms`; a glare over
        both indices of a one-picture jack left them fitting 0.72-0.75, benchmark run 67). No
        view noted for the observation: kept.

        ``inked`` (:meth:`~hardware.camera.tonechecks.ToneChecks._ink_tells`): whether the
        ink's colour tells the read card's suit. A court whose four suits share one picture on a
        deck of more than two inks differs from its twin in the ink's colour, which the fine
        faces (luminance) do not weigh: where the ink tells the card's suit, a read the fine
        comparison with its twin does not confirm is kept (synth-9198: jacks, queens and kings
        whose small corner indices, blurred, confirmed neither suit).
        """
        fine, card = self.bank.fine, reading.card
        near = match.second is not None and match.separation < self.params.pair_check_below
        if (card is not None and twin_read and self.params.twin_blur_check
                and twin_of(card) in match.close
                and twin_blurred_away(observed(), card, self.bank, self.params)):
            return _refused(reading, card)
        if (fine is not None and card is not None and self.params.fine_rank_veto and near
                and self._rank_refuted(observed, match, card)):
            return _refused(reading, card)
        if (fine is None or card is None or not self.params.fine_twin_veto
                or (card.rank not in FINE_VETO_RANKS and not fine.captured)):
            return reading
        close = near and match.second is not None and suit_twins(match.card, match.second)
        twin = twin_of(card)
        if twin_read or close:
            rival = twin
        elif fine.captured and near and match.second is not None:
            # A captured deck: the close second of another rank too (a 4 of clubs read as the
            # 7 where one central symbol leaves the indices alone to tell them, run 72).
            rival = match.second if match.card == card else match.card
        else:
            return reading
        # Not confirmed covers refuted: a corner leaning clearly to the rival and none to the
        # card (:func:`~hardware.camera.finedecide.fine_refutes`) confirms nothing either.
        ratio = (CAPTURED_NOISE_RATIO if fine.captured and card.rank not in FINE_VETO_RANKS
                 else NOISE_RATIO)
        if rival == card or fine.confirms(observed(), card, rival, ratio) is not False:
            return reading
        if (fine.captured and card.rank not in FINE_VETO_RANKS
                and fine.confirms_indexed(observed(), card, rival, ratio)):
            # A captured pip card: its corners that show a pip and no index lean weakly or
            # the wrong way on right reads; the index corners alone confirm (run 114).
            return reading
        if inked is not None and rival.rank == card.rank and inked(card):
            return reading
        if (self.params.twin_index_ratio > 0 and not fine.captured and rival == twin
                and card.rank in FINE_VETO_RANKS and self.bank.index_only.pair(card, rival)
                and fine_confirms_indices(fine.lean(observed(), card, rival),
                                          self.params.twin_index_ratio)):
            # A court whose picture its suit twin shares: the two index corners alone tell
            # them apart, and both lean to the read (run 116).
            return reading
        return _refused(reading, card)

    def _rank_refuted(self, observed: Callable[[], F32], match: Match, card: Card) -> bool:
        """Whether the corners at the frame's own resolution show another rank than ``card``.

        Asked where the close second is a card of another rank the two faces tell apart by
        their corners alone (``bank.index_only.pair``: one central symbol): refuted where the
        corners decide that second on the bounds of two ranks (``fine_rank_veto``;
        :data:`~hardware.camera.finedecide.RANK_NOISE_RATIO`; a 6 of diamonds under a gloss
        streak read as the 8 whose corners leaned to the 6 by five and seven times their
        noise, benchmark run 88). Where they decide neither (``fine_rank_close``), each close
        card (``match.close``, the :data:`~hardware.camera.facebank.RANKED` best: a fine
        comparison costs 5-10 ms) of another rank the corners alone tell from ``card`` is
        asked whether the corners refute the read against it
        (:meth:`~hardware.camera.finetwins.FineFaces.refutes` at the same noise bound): on
        such a design every pip card of a suit scores close to the read, and the card shown
        need not be the second (a 5 of diamonds under a gloss streak read as the 8, its
        corners undecided against the 9 and leaning to the 5 by 1.9-5.3 times their noise,
        the 5 the third card; benchmark run 93). So too where they decide the read over its
        second (``fine_rank_close_decided``): the corners of a 6 of diamonds under a gloss
        streak leaned to the 8 against the 9 and to the 6 against the 8 by 5-18 times their
        noise, the 6 the third or fourth card (benchmark run 102).
        """
        fine = self.bank.fine
        second = match.second if match.card == card else match.card
        if fine is None or second is None or second.rank == card.rank:
            return False
        pair = self.bank.index_only.pair
        if not pair(card, second):
            return False
        verdict = fine.decide(observed(), card, second, RANK_NOISE_RATIO, RANK_MIN_MEAN)[0]
        if verdict == -1:
            return True
        if not self.params.fine_rank_close or (verdict == 1
                                               and not self.params.fine_rank_close_decided):
            return False
        seen = fine.lean(observed(), card, second)
        blur = seen.blur if seen is not None and seen.corners else None
        return any(not (blur is not None
                        and roughly_confirms(fine.rough_lean(observed(), card, other, blur)))
                   and fine.refutes(observed(), card, other, RANK_NOISE_RATIO)
                   for other in match.close[:RANKED]
                   if other.rank != card.rank and pair(card, other))

    def _indices_clear(self, observed: F32, card: Card, rival: Card,
                       ignore: Image | None = None) -> bool:
        """Whether both corner indices, printed as clearly as the card, name ``card``.

        :func:`~hardware.camera.rivalrules.region_washed_out` refuses a read whose difference
        region against the rival has lost its contrast: a glare over a 2's index makes it a 7.
        But where the region is ink the rival alone has (a 7's middle pip against a 6), the
        right card shows white there, the region's fitted contrast is near 0 with no glare at
        all, and a 6 was refused however clearly its indices read 6 (GNOME paris, hard plain,
        bright and printed felt: 9 of 10 refused reads, tuning seed 5500000). A glare washes
        ink out, never prints it: when each of the two corner index boxes (where they tell the
        two apart) keeps its own contrast (at least ``difference_min_contrast`` times the whole
        card's, as the region's must) and leans towards ``card`` by ``index_clear_min``, the
        indices are there to be read and the region's whiteness is the card's own.

        ``ignore`` (:meth:`_neighbours_over`): an index box a located neighbour (grown by its
        shadow's reach) may lie over is no evidence either way, and is left out; the other
        must then be clear alone. Cards overlapping by a few millimetres hide one corner index
        of the card beneath (GNOME atlasnye-skat, overlap: 7s and 7h refused against the 8
        with the whole face at 0.95-0.97, tuning seed 5200000).
        """
        p = self.params
        fb, fr = self.bank.luminance(card), self.bank.luminance(rival)
        leans = index_leans(observed, fb, fr)
        if len(leans) < 2:
            return False
        if ignore is not None:
            leans = index_leans(observed, fb, fr, ignore)
            if not leans:
                return False
        floor = p.difference_min_contrast * whole_contrast(observed, self.bank.whole_face(card))
        return all(lean >= p.index_clear_min and contrast >= floor for lean, contrast in leans)

    def _twin_left(self, match: Match) -> bool:
        """Whether only the best card's suit twin stands in the way of a read."""
        p = self.params
        if match.second is None or not suit_twins(match.card, match.second):
            return False
        residual = float(np.sqrt(max(1.0 - match.score * match.score, 0.0)))
        separated = (match.separation_others >= p.min_separation
                     or match.separation_others >= p.min_separation_residual * residual)
        return (match.score >= p.min_score and separated
                and match.discriminant_others >= p.min_discriminant)

    def _decide_suit(
        self, observed: F32, match: Match, reading: SlotReading,
        patch: Callable[[], Image] | None = None,
    ) -> tuple[SlotReading, Match]:
        """Read the twin its indices and pips show (:func:`decide_twin`); else ``reading``.

        A pip pair :func:`decide_twin` leaves undecided is read where the stored faces and the
        corners at the frame's resolution each name the same card clearly
        (:func:`~hardware.camera.pipagree.agreed_twin`, ``pip_twin_agree``), or where the
        region's pixels off a glare do (:meth:`_glare_twin`).
        Returns the reading and the match it stands on (the twin's when the twin is read).

        :param observed: the observation's luminance (:func:`~hardware.camera.suits.pair_check`).
        :param patch: the card cut at the stored size, upright (BGR), for the glare.
        """
        decided = decide_twin(observed, match, self.bank, self.params)
        if decided is None and self.params.pip_twin_agree:
            decided = agreed_twin(observed, match, self.bank, self.params)
        if decided is None and match.second is not None and patch is not None:
            lean = self._glare_twin(observed, match.card, match.second, patch)
            if lean != 0.0:
                decided = signed_read(match, 1 if lean > 0 else -1, abs(lean), self.params)
        if decided is None:
            return reading, match
        read, lean = decided
        conf = float(np.clip(min(read.score, match.discriminant_others, lean), 0.0, 1.0))
        return SlotReading("card", read.card, conf, None, read.score, match.margin,
                           match.discriminant, match.separation), read


    def _glare_twin(self, observed: F32, card: Card, twin: Card,
                    patch: Callable[[], Image] | None) -> float:
        """Return the lean between pip suit twins off the glare on the card, or 0.0.

        :func:`~hardware.camera.glaretwin.glare_twin_lean` (``glare_twin_check``), with the
        glare :meth:`_glare_on` finds on ``patch`` read as ``card``; courts and a card without
        its cut are left to the other rules (0.0).
        """
        if (not self.params.glare_twin_check or patch is None
                or card.rank in FINE_RANKS or twin.rank in FINE_RANKS):
            return 0.0
        glare, _ = self._glare_on(patch(), card)
        if not glare.any():
            return 0.0
        return glare_twin_lean(observed, self.bank.luminance(card), self.bank.luminance(twin),
                               glare, self.params)


def _refused(reading: SlotReading, card: Card) -> SlotReading:
    """Return ``reading`` left ``uncertain``, ``card`` its hint, at half its confidence."""
    return SlotReading("uncertain", None, 0.5 * reading.confidence, card, reading.score,
                       reading.margin, reading.discriminant, reading.separation)
