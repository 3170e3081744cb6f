"""What the board camera reports: per-slot readings, and the thresholds that decide them.

Rules this module keeps:

1. Data only: the readings are frozen values, the thresholds one frozen record
   (:class:`RecognizerParams`); the decisions are made in :mod:`hardware.camera.facebank`
   (face matching) and :mod:`hardware.camera.recognizer` (slots).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from table_controller.engine.cards import Card

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]
F32 = npt.NDArray[np.float32]
SlotStatus = Literal["card", "empty", "uncertain", "occluded"]


@dataclass(frozen=True, slots=True)
class RecognizerParams:
    """Decision thresholds, set on kennard and nine tuning designs, never on a measured one.

    See ``docs/vision.md``, "How the thresholds were set".
    """

    min_score: float = 0.80
    min_separation: float = 0.05
    #: ... or, when the observation matches the best face closely, a separation of at least this
    #: fraction of the residual's norm ``sqrt(1 - score**2)`` (faces that differ only in a small
    #: corner index: court cards drawn alike in all four suits).
    min_separation_residual: float = 0.2
    min_discriminant: float = 0.40
    discriminant_rivals: int = 4
    empty_fraction: float = 0.06
    foreign_fraction: float = 0.004
    band_px: float = 4.0
    fill_fraction: float = 0.9
    #: A slot no other try located is sought once more on its non-felt closed over gaps up to
    #: this share of a card's width (:mod:`hardware.camera.inkgaps`): a four-colour deck's
    #: felt-coloured index or pip at the card's edge notches it by up to 0.12 of a card's width
    #: (green clubs on green felt; benchmark run 128). 0: not sought so.
    ink_gap_share: float = 0.13
    size_tolerance: float = 0.07
    red_weight: float = 1.5
    template_blur: tuple[float, ...] = (0.7,)
    #: Stricter thresholds for a located card that something not a card touches (a hand next to
    #: it): read only when the face wins this clearly, else ``"occluded"``.
    near_hand_min_score: float = 0.90
    near_hand_min_separation: float = 0.08
    near_hand_min_discriminant: float = 0.75
    #: Suit twins (same rank and colour) the whole face cannot separate are decided on the
    #: region where their faces differ (:mod:`hardware.camera.suits`): the observation must lie
    #: at least this far towards the best face (+1) from halfway (0), the rival at -1, and fit
    #: the twins there with at least this correlation.
    suit_min_position: float = 0.7
    suit_min_fit: float = 0.8
    #: ... and each half of the card alone must lean towards the best face at least this much.
    suit_min_half: float = 0.4
    #: When that fails, the same against the two faces blurred as the observation is
    #: (:func:`hardware.camera.blurmatch.blurred_pair_check`: a moving card, a lens out of focus):
    #: the card read is the twin the observation leans towards by at least
    #: ``suit_blur_min_position`` on the whole region and ``suit_blur_min_half`` on each half
    #: (the best card or its twin, whichever; the fit at least ``suit_min_fit``).
    suit_blur_check: bool = True
    suit_blur_min_position: float = 0.5
    suit_blur_min_half: float = 0.3
    #: Either way (the faces' own blur or the observation's), the lean must stand out of what
    #: the frame gives by itself: at least ``suit_noise_ratio`` times the lean the same
    #: difference shows where the two faces agree (:func:`hardware.camera.blurmatch.lean_noise`).
    suit_noise_ratio: float = 2.0
    #: A read by the blurred comparison must hold with the cut moved by this much (stored-patch
    #: pixels, about 0.25 mm) each way across and down
    #: (:func:`hardware.camera.twinleans.offset_lean_stands`): where the twins differ in pips
    #: a few pixels across, half a pixel of offset turned a lean of -0.78 into +0.87
    #: (benchmark run 90). 0: not asked.
    suit_blur_offset_px: float = 0.5
    #: ... and not where the corner boxes at the frame's own resolution decide the other twin
    #: (:meth:`hardware.camera.finetwins.FineFaces.denies`; each box aligned on its own): a 7
    #: of spades being placed, its cut a pixel off, leaned 1.48 towards the club there, its
    #: three corners -2.9 to -3.7 at 3.7-6.7 times their noise (benchmark run 90).
    blurred_twin_corner_veto: bool = True
    #: A pip card's suit-twin read (the twin rules' or a second look's) is refused where the
    #: two faces blurred as the observation is differ on one half of the card only and the
    #: frame's noise cannot be measured against the sharp lean, unless the corners at the
    #: frame's own resolution confirm it (:func:`hardware.camera.rivalrules.twin_blurred_away`;
    #: a 9 of clubs under motion blur read as the spade, benchmark run 98).
    twin_blur_check: bool = True
    #: Where the faces blurred as the observation is differ nowhere by the difference level
    #: (no pixel left to compare), the twins are compared on that fainter difference
    #: (:func:`hardware.camera.faintpair.faint_twin_sign`, the blurred rule's bounds) and read
    #: only where the lean stands at least this many times the frame's measured noise there
    #: (benchmark run 95). 0: not compared so.
    suit_faint_noise_ratio: float = 3.0
    #: Where that noise cannot be measured (too few offsets land on agreeing print), the
    #: largest change of the faint lean with the cut moved ``suit_blur_offset_px`` each way
    #: (:func:`hardware.camera.faintpair.offset_spread`) stands for it, each moved cut leaning
    #: the same way (benchmark run 101). False: no read there.
    suit_faint_offset_noise: bool = True
    #: A twin read on the faces blurred as the observation is must not lean the other way at
    #: the blur the corner boxes at the frame's resolution show
    #: (:func:`hardware.camera.twinleans.corner_blur_stands`; benchmark run 95).
    suit_corner_blur_check: bool = True
    #: A read is checked against each close rival where the two faces differ
    #: (:func:`hardware.camera.suits.pair_check`): the second-best card when it is the read's
    #: suit twin, and the best card of another rank or colour, each when the separation from it
    #: is under this. Against the twin the read is refused (``"uncertain"``) when the
    #: observation leans towards the twin both on the whole region (position under
    #: ``twin_veto_position``) and on one half of the card (under ``twin_veto_half``).
    pair_check_below: float = 0.2
    twin_veto_position: float = -0.2
    twin_veto_half: float = -0.2
    #: ... or (``suit_blur_check``) when, against the two faces blurred as the observation is,
    #: it leans less than ``twin_blur_veto_position`` towards the read on the whole region or
    #: less than ``twin_blur_veto_half`` on one half: a blurred club can match the spade's
    #: sharp face better than the club's.
    twin_blur_veto_position: float = 0.3
    twin_blur_veto_half: float = 0.0
    #: A pip card's twin read on the sharp faces (:func:`hardware.camera.twindecide.decide_twin`)
    #: must also pass the check a whole-face read of it passes against its twin
    #: (:func:`hardware.camera.twindecide.twin_refuted`): where the frame's noise against the
    #: sharp faces cannot be measured, the faces blurred as the observation is must lean to the
    #: read. A 5 of spades of a two-colour design was read as the club at 0.76 on the sharp
    #: faces (noise not measured) while the blurred faces, fitting 0.99, leaned 0.66 to the
    #: spade on both halves (bridge, hard plain; an unseen measurement, benchmark run 119).
    twin_read_verified: bool = True
    #: A pip card's twin read on the sharp faces is refused where the faces blurred as the
    #: observation is would read the twin by ``decide_twin``'s bounds, however noisy that
    #: comparison is (:func:`hardware.camera.twinconflict.blurred_contradicts`; benchmark
    #: run 127's wrong read of a 2 of spades as the club).
    twin_blur_contradiction: bool = True
    #: A pip card's twin read on the sharp faces is refused too where the faces blurred as the
    #: observation is, matched on the frame, do not lean to the read by
    #: ``twin_blur_veto_position`` (:func:`hardware.camera.twinconflict.blurred_withholds`):
    #: a blurred spade can match the club's sharp face better than the spade's, above the
    #: frame's noise, which measures spread and not that misfit. An 8 of spades of a
    #: two-colour design whose club and spade differ in little ink was read as the club on
    #: the sharp faces (0.93, fit 0.85, noise 0.44) while the blurred faces, fitting 0.98,
    #: leaned 0.07 to the spade (bridge, hard plain; benchmark run 134).
    twin_blur_agreement: bool = True
    #: Where the faces blurred as the observation is no longer differ (or the frame's noise
    #: against the sharp faces is not measured:
    #: :func:`hardware.camera.twindecide.sharp_unresolved`), the corners at the frame's
    #: resolution may keep a pip card's sharp twin read only where the observation fits the
    #: sharp faces over their difference region (``SuitCheck.fit``) by at least this
    #: (:func:`hardware.camera.twindecide.sharp_unconfirmed`): a fit that low says the frame
    #: is blurred far past the sharp faces, and their lean is that misfit. A 5 of spades of a
    #: two-colour design was read as the club at 1.09, fit 0.86, every corner leaning to the
    #: club (bridge, hard plain); measured over 20 designs' sharp twin reads in benchmark
    #: run 139 (0 disables).
    twin_corner_keep_min_fit: float = 0.9
    #: Pip suit twins under a glare (:mod:`hardware.camera.glaretwin`): where the glare found
    #: on the card covers at least ``glare_twin_min_cover`` of the region where the twins
    #: differ, they are compared again on the region's pixels off the glare, on the sharp twin
    #: rule's bounds; a half leaning past ``glare_twin_max_lean`` (a face's own difference is
    #: 1) is the streak's edge, not the card, and decides nothing. On medium gloss frames a
    #: streak over one half turned it 1.2-1.9 the wrong way while the pixels off it leaned
    #: 0.6-1.4 to the truth on both halves (an 8 and a 3 of spades; benchmark run 123).
    glare_twin_check: bool = True
    glare_twin_min_cover: float = 0.1
    glare_twin_max_lean: float = 3.0
    #: A court twin pair the stored faces leave undecided and the corners at the frame's own
    #: resolution decide (:func:`hardware.camera.twindecide.decide_twin`) is not read where
    #: both measurements put the observation well past the card decided (+1 is that card's
    #: own face): the stored faces' sharp comparison by more than ``twin_fine_max_position``
    #: and the weakest corner box's lean by more than ``twin_fine_max_lean``. A jack of spades
    #: on a hard bright frame of a one-picture design (synth-9263 poker) lay at 2.20 and its
    #: four corners at 1.43-1.71 towards the club, and the club was read; kings of clubs of
    #: the same design (bright and dim hard frames) lay at 2.38-2.78 and 1.45-1.88 (read
    #: right, now refused: there the comparison cannot tell the twins apart). Over 31 such
    #: decisions on court-only boards of 14 one-picture tuning designs (plain, bright, dim;
    #: medium and hard; all right) the sharp comparison reached 1.83 (a jack of clubs of
    #: synth-9263, dim, its weakest corner at 1.05) and the weakest corner 1.58 (sharp 0.0),
    #: never both (benchmark run 107).
    twin_fine_max_position: float = 1.6
    twin_fine_max_lean: float = 1.2
    #: A suit-twin read, however it was made, is refused where the corner indices compared at
    #: the frame's own resolution lean clearly towards the twin
    #: (:func:`hardware.camera.finedecide.fine_refutes`; the profile's fine faces needed).
    fine_twin_veto: bool = True
    #: A court's suit-twin read the corners do not confirm at 3 times their noise is kept on
    #: a design whose twins share their picture (``FaceBank.index_only.pair``: they differ in
    #: the corner boxes alone) where both index corners (top left, bottom right) fit and lean
    #: towards the read by 0.3 and this many times their own placebo noise, and no corner
    #: leans so towards the twin (:func:`hardware.camera.finedecide.fine_confirms_indices`);
    #: 0: not. It measures how far past its noise an index lean stands: over 1,182 court twin
    #: comparisons of 17 shared-picture tuning designs (hard, plain and eight situations;
    #: benchmark run 116) no pair of index corners leaned towards the wrong twin at 1.72 to 3
    #: times their noise (the weaker corner), while 17 right reads refused leaned both at
    #: 2.0-3.0.
    twin_index_ratio: float = 2.0
    #: A read whose close second (within ``pair_check_below``) is a card of another rank the
    #: two faces tell apart by their corners alone (one central symbol) is refused where the
    #: corners at the frame's own resolution decide the second on the bounds of two ranks
    #: (:meth:`~hardware.camera.rivals.RivalChecks._fine_vetoed`; the profile's fine faces
    #: needed; benchmark run 88: a 6 of diamonds read as the 8 under a gloss streak).
    fine_rank_veto: bool = True
    #: Where those corners decide nothing between the read and its close second, each close
    #: card (within ``difference_score_gap`` of the best score; the six best) of another rank
    #: that the faces tell apart by their corners alone is asked too: the read is refused where
    #: the corners refute it against one of them (one corner fitting and leaning clearly
    #: towards it, at :data:`~hardware.camera.finedecide.RANK_NOISE_RATIO` times its noise,
    #: none towards the read; :func:`~hardware.camera.finedecide.fine_refutes`). On a
    #: central-symbol design every pip card of a suit is close to every other; a 5 of
    #: diamonds under a gloss streak was read as the 8, its second the 9 undecided, the 5
    #: third or fifth (benchmark run 93).
    fine_rank_close: bool = True
    #: ... and where those corners decide the read over its close second too: beating the
    #: second says nothing of a close third. Two 6s of diamonds under a gloss streak
    #: (central-symbol designs, medium) were read as the 8 by the whole face (separation
    #: 0.06-0.10), the 9 second; their corners decided the 8 over the 9 and leaned to the 6
    #: against the 8 by 5-18 times their noise (benchmark run 102).
    fine_rank_close_decided: bool = True
    #: A pip card's suit twin the rules above leave undecided is read where the stored faces
    #: (at their own blur and at the observation's) and the corner boxes at the frame's own
    #: resolution each name the same card clearly (:func:`hardware.camera.pipagree.agreed_twin`).
    pip_twin_agree: bool = True
    #: Faces blurred as the observation is keep about its contrast where they differ (1 when
    #: the blur matches). A fitted contrast over this means the blur found was more than the
    #: frame's (:func:`hardware.camera.twinconflict.blurred_unmatched`): that blurred
    #: comparison is no evidence; the twin veto then takes the comparison at the faces' own
    #: blur with the blurred rule's bounds, and no twin is read from it (``twin_refuted``,
    #: ``decide_twin``).
    twin_blur_max_contrast: float = 1.25
    #: Against another rank the read is refused when neither corner index leans towards the
    #: read face at least this much (:func:`hardware.camera.suits.index_positions`): pips a
    #: glare washes out can make the whole face another rank's, the printed index stays.
    rank_index_min: float = -0.5
    #: The corner indices read on their own against every card (:mod:`hardware.camera.index`):
    #: a read is refused when, against some card of another rank, the corners that tell the
    #: two apart put the observation at ``-index_veto`` or beyond (-1 is that card's index),
    #: or at ``-index_veto_close`` when the whole face separated the read from its second-best
    #: by less than ``index_close_below``.
    index_check: bool = True
    index_veto: float = 1.0
    index_veto_close: float = 0.7
    index_close_below: float = 0.2
    #: A card the whole face leaves uncertain is read from the ink its close rivals lack
    #: (:func:`hardware.camera.washedout.read_washed_out`): a glare washes ink out, never prints
    #: it. Rivals within ``washed_score_gap`` of the candidate's score; the candidate's own ink
    #: at ``washed_min_own`` or more in some blob (else its corner indices at
    #: ``washed_min_index`` or more against that rival), no rival's own ink (every blob of it
    #: at ``washed_min_rival`` or more).
    washed_check: bool = True
    washed_score_gap: float = 0.1
    washed_min_own: float = 0.7
    washed_min_rival: float = -0.2
    washed_min_index: float = 0.5
    #: A read checked against a close rival of another rank (``pair_check_below``) is refused
    #: when none of its own ink is there, the rival's is (``rival`` at ``washed_veto_rival`` or
    #: below) and its corner indices lean no further towards it than ``washed_veto_index``
    #: (:func:`hardware.camera.rivalrules.ink_refuted`).
    washed_veto_rival: float = -1.0
    washed_veto_index: float = 0.0
    #: A card the whole face leaves uncertain among faces that differ in little (every card
    #: scoring within ``difference_score_gap`` of the best: designs whose cards of a suit share
    #: one picture and differ in the corner index alone) is read where the faces differ
    #: (:func:`hardware.camera.difference.read_by_difference`): the candidate must lean towards
    #: its own face by ``difference_min_position`` against every such card, over the two
    #: faces' difference region (:func:`hardware.camera.suits.pair_check`, fit at least
    #: ``difference_min_fit``), and its corner indices by ``difference_min_index`` where they tell
    #: the two apart; at most ``difference_max_close`` such cards are compared.
    difference_check: bool = True
    difference_score_gap: float = 0.1
    difference_min_position: float = 0.3
    difference_min_index: float = 0.2
    #: ... and by this where ``paper_shown`` does not hold for the pair (the white where the
    #: rival has ink the read lacks is not shown to be the card's own paper: a glare may have
    #: washed the rival's ink out there): a 3 of hearts whose middle pip a glare washed out
    #: was read as the 2 with its blurred indices 0.24 towards the 2 (synth-9286 poker, hard
    #: placing; benchmark run 119, an unseen measurement).
    difference_unpapered_index: float = 0.4
    difference_min_fit: float = 0.6
    difference_max_close: int = 40
    #: A read checked against a close rival of another rank (``pair_check_below``), and each
    #: comparison :func:`hardware.camera.difference.read_by_difference` makes, is refused when the
    #: observation's contrast over the two faces' difference region is under this fraction of
    #: its contrast over the whole card (:func:`hardware.camera.rivalrules.region_washed_out`: a
    #: glare over the index).
    difference_min_contrast: float = 0.5
    #: Against a close card whose face differs from X's only in the corner indices (the
    #: registered faces tell: :class:`hardware.camera.indexonly.IndexOnly`), where the corner
    #: templates give no position or the region leans less than ``difference_min_position``,
    #: the observation, compared with both faces blurred as it is, must lean towards X by
    #: ``index_only_min_position`` over both indices and ``index_only_min_half`` on each half.
    index_only_min_position: float = 0.7
    index_only_min_half: float = 0.4
    #: Where the corner templates lean neither way between X and a close card of another rank
    #: told apart by the corners alone, the comparison at the frame's blur over both indices
    #: is the only measurement that decides: the corners at the frame's own resolution must
    #: then decide X too (:func:`hardware.camera.difference.fine_rank_lean`; the profile's fine
    #: faces needed, none: as before). A hard frame's 9 of diamonds on a central-symbol design,
    #: its two index corners a blob too small to tell an 8 from a 9 (templates -0.006), leaned
    #: 0.73 towards the 8 at the frame's blur (resolved 1.58) and was read as the 8, its fine
    #: corners not compared (a neighbour a few millimetres away; benchmark run 102).
    difference_undecided_fine: bool = True
    #: On a deck of two inks, the difference read compares only the cards printed in the ink
    #: the observation's tone shows (:meth:`~hardware.camera.inkhue.FaceTones.inks_by_tone`;
    #: benchmark run 85: a red and a black one-picture court differ in their small indices
    #: alone, which that read weighs by luminance).
    difference_ink_group: bool = True
    #: ... and so does the washed-out read.
    washed_ink_group: bool = True
    #: On a deck of more than two inks, a whole-face read whose ink names no suit stands where
    #: each card of its rank in another suit among the close cards (``difference_score_gap``)
    #: shows the read's ink tone (the tone can never tell the two) and scored at least this
    #: under it (:meth:`~hardware.camera.tonechecks.ToneChecks._rank_apart`). Benchmark run
    #: 117, hard frames of eight four-colour designs, both sizes (plain, gloss, dim, pushed;
    #: 746 cards shown): where the whole face's best card was another suit of the card shown,
    #: it scored 0.000-0.013 over it (18 of 19; the 19th, 0.085, was a red 2 over the black
    #: one under a gloss, two tones the rule leaves to the ink); the kings of synth-9279, whose
    #: tones are one red, read right 0.070-0.097 over the other king.
    ink_unnamed_rank_gap: float = 0.05
    #: On a deck of more than two inks, the tone read
    #: (:meth:`~hardware.camera.tonechecks.ToneChecks._tone_read`) takes the suit the ink's
    #: hue names (:meth:`~hardware.camera.inkhue.FaceTones.suit_by_hue`) where the tone names
    #: none, as the ink check every read passes (``_ink_kept``) does (benchmark run 124: hard
    #: frames of four-colour designs whose diamond and club of one rank the whole face could
    #: not separate, the tone naming no suit: bright, dim and upside-down scenes).
    tone_read_hue: bool = True
    #: A card whose whole-face score is under ``min_score`` is scored again with the ink a
    #: glare lifted left out (:func:`hardware.camera.glare.glare_score`); if that reaches
    #: ``min_score``, the separation and discriminant rules decide as for any card.
    glare_check: bool = True
    #: ... and a read whose difference region against a close rival is washed out is kept
    #: when both corner index boxes keep their contrast and lean towards it by this much
    #: (``BoardRecognizer._indices_clear``).
    index_clear_min: float = 0.5
    #: A card the corner-index read leaves uncertain between ranks whose faces differ only in
    #: their corners (one central symbol) is read where the fine faces decide it against every
    #: close card of another rank (:func:`~hardware.camera.fallback.fine_ranks_read`, on the
    #: rank veto's bounds; benchmark run 100).
    fine_rank_read: bool = True
    #: ... only where every card of the suit whose face differs from it in the corners alone
    #: (``IndexOnly.alike_ranks``: on such a design every other number card of the suit) is
    #: among the close cards, each decided against: the card shown is then one of those
    #: compared. A wrong card decided against a close rank fits as well as a right one where
    #: the card shown is neither (benchmark run 103: a 6 of hearts decided against the 4,
    #: every corner fitting 0.989 and leaning 0.59-0.73, an 8 shown; 14 such wrong pairs on
    #: 23 designs, fits 0.74-0.99), so only the card shown, compared, refuses it.
    fine_rank_read_all_alike: bool = True
    #: ... where every corner compared fits the observation (R^2) at least this well and leans
    #: towards the card read by at most ``fine_rank_read_max_lean`` (1: as far as the card's own
    #: face): corners fitting 0.85 and leaning past the read card by up to 3.9 (neither face
    #: shown) read a 4 of diamonds of synth-9228 as the 6 (benchmark run 100). Run 103, 23
    #: one-central-symbol designs, both sizes: every wrong card decided against a close rank
    #: whose corners leant past 1.5 fitted 0.74-0.91 (6 pairs); the 27 right reads made with
    #: no bounds fitted 0.87-0.995 (25 at 0.95 or more) and leant 1.0-1.87 at most (25 within
    #: 1.5; 23 within both).
    fine_rank_read_min_fit: float = 0.95
    fine_rank_read_max_lean: float = 1.5
    #: ... trying every close card scoring ``min_score`` as the read, not only the best two:
    #: on such a design the card shown scored third to fifth among nine close ranks of its
    #: suit within 0.0005 (benchmark run 108); two cards cannot both be decided against each
    #: other, so at most one is read.
    fine_rank_read_every_close: bool = True
    #: ... a close card of the suit whose face differs from the read elsewhere too (the ace,
    #: its symbol drawn larger than the number cards') decided against on the corners as well,
    #: instead of leaving the read to the other rules: on the four-colour one-central-symbol
    #: design synth-9265 the ace was among the close cards of nearly every number card left
    #: ``uncertain`` (benchmark run 108).
    fine_rank_read_elsewhere: bool = True
    #: ... one corner deciding alone where a located neighbour may lie over every other corner
    #: box the two differ in, at this many times its own noise (the twins' ``NOISE_RATIO``,
    #: above the two ranks' 2; inf: never alone; benchmark run 108).
    fine_rank_read_alone_ratio: float = 3.0


@dataclass(frozen=True, slots=True)
class SlotReading:
    """What one slot shows in one frame.

    :param confidence: 0..1; for ``"card"`` how clearly the face won, for other statuses how sure
        the status is.
    :param candidate: best face when the status is ``"uncertain"`` (a hint, never a read).
    """

    status: SlotStatus
    card: Card | None = None
    confidence: float = 0.0
    candidate: Card | None = None
    score: float = 0.0
    margin: float = 0.0
    discriminant: float = 0.0
    separation: float = 0.0

    def as_json(self) -> dict[str, object]:
        """Return the JSON form used by ``table-controller vision read --json``."""
        return {
            "status": self.status,
            "card": self.card.code if self.card else None,
            "confidence": round(float(self.confidence), 4),
        }


@dataclass(frozen=True, slots=True)
class BoardReading:
    """All slots of one frame, left to right."""

    slots: tuple[SlotReading, ...]

    def cards(self) -> tuple[Card | None, ...]:
        """Return the card read in each slot (None unless the status is ``"card"``)."""
        return tuple(s.card if s.status == "card" else None for s in self.slots)
