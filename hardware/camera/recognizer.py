"""Board recognition: which slots hold a card, and which card, from one camera frame.

Rules this module keeps:

1. The camera is fixed: the calibrated homography maps the board area to a small canonical
   top-down view (:mod:`hardware.camera.locator`); no marker detection per frame.
2. A slot is ``"empty"`` (felt), ``"card"`` (one card-sized rectangle whose face matches one
   registered face clearly better than every other), ``"occluded"`` (something that is neither felt
   nor a card covers or touches it: a dealer's hand) or ``"uncertain"``.
3. Never a guess: a card is reported only when its face match passes
   :func:`hardware.camera.facebank.decide`; otherwise the slot is ``"uncertain"`` with the best
   candidate kept only as a hint (``SlotReading.candidate``).
4. Faces are compared in both orientations (a card may lie upside down).

The names the other parts use (readings, parameters, face bank, locator) are re-exported here.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import cv2
import numpy as np

from hardware.camera.difference import in_suit, read_by_difference
from hardware.camera.facebank import (
    PATCH_MASK,
    PATCH_SIZE,
    STORED_PATCH_SIZE,
    FaceBank,
    Match,
    decide,
    face_features,
    face_patch,
    suit_twins,
)
from hardware.camera.fallback import glare_lifted, indices_read, twin_not_shown
from hardware.camera.framecuts import FrameCuts
from hardware.camera.geometry import BoardGeometry
from hardware.camera.inkhue import FaceTones
from hardware.camera.locator import (
    CANON_MARGIN_MM,
    CANON_PX_PER_MM,
    COLOURED_FELT_FRACTION,
    FELT_CHANNELS,
    FELT_MAX_BRIGHTNESS,
    MAX_SLOPE,
    CardLocator,
    CardPose,
    FeltChannel,
)
from hardware.camera.partial import (
    HIDDEN_GROW_PX,
)
from hardware.camera.readings import (
    F32,
    BoardReading,
    FloatArray,
    Image,
    RecognizerParams,
    SlotReading,
    SlotStatus,
)
from hardware.camera.refine import nudged_pose, reposed_pose
from hardware.camera.sides import SHADOW_CLEAR_PX, beside_only, shadow_offset
from hardware.camera.visibleread import VisibleRead
from hardware.camera.warmup import FaceWarmer
from hardware.camera.washedout import read_washed_out

__all__ = [
    "CANON_MARGIN_MM", "CANON_PX_PER_MM", "COLOURED_FELT_FRACTION", "FELT_CHANNELS",
    "FELT_MAX_BRIGHTNESS", "MAX_SLOPE", "PATCH_MASK", "PATCH_SIZE", "STORED_PATCH_SIZE",
    "BoardReading", "BoardRecognizer", "CardLocator", "CardPose", "FaceBank", "FeltChannel",
    "Match", "RecognizerParams", "SlotReading", "SlotStatus", "decide", "face_features",
    "face_patch", "suit_twins",
]


#: A card's reading is kept from the previous frame when its pose moved at most this much
#: (canonical px, degrees) ...
UNCHANGED_POSE_PX = 1.5
UNCHANGED_ANGLE_DEG = 1.0
#: ... and at most UNCHANGED_PIXELS of its canonical pixels (grey, 3x3 box-blurred) changed by
#: more than UNCHANGED_LEVEL (sensor noise of the hard scenes, sigma 12 in the frame, is
#: about 3 there).
UNCHANGED_LEVEL = 24
UNCHANGED_PIXELS = 4
#: A card between two neighbours is placed by its shadow (:func:`.sides.shadow_offset`) when
#: the best-scoring slide of its face lies within this (canonical px) of it.
SHADOW_FACE_AGREE_PX = 2.0
#: A card between two neighbours with at most this slack (canonical px either way) is read at
#: its best slide as any located card (located cards lie within about 2 px of the truth).
#: Too little room to seek a shadow clear of the slack's ends (:data:`.sides.SHADOW_CLEAR_PX`).
SLACK_LOCATED_PX = SHADOW_CLEAR_PX + 0.5
#: A frame whose whole canonical view (grey, 3x3 box-blurred) has at most this many pixels
#: differing by more than UNCHANGED_LEVEL from the last frame read in full is not read again:
#: that frame's reading is returned (:meth:`BoardRecognizer.read`). Sensor noise of the hard
#: scenes leaves every pixel within 12 of the earlier frame's; a hand, a card or a moving
#: glare moves thousands.
UNCHANGED_BOARD_PIXELS = UNCHANGED_PIXELS
#: A frame not read again fills the suit-twin caches (:mod:`.warmup`, units of 1-3 ms) until its
#: read has taken this much CPU (s): such a frame costs about 1.5 ms of read beside a 5-7 ms
#: JPEG decode, and stays under 15 ms with the unit that crosses the deadline.
WARM_UNTIL_S = 0.004
#: A bound on a frame's matching, measured and not set by default (benchmark run 42): with
#: :attr:`BoardRecognizer.match_until_s` set to it, a frame read in full matches no card afresh
#: after its read has taken this much CPU (s), beyond its first one and those put off in an
#: earlier frame: such a slot reads ``uncertain`` and is matched in the next frame read in full
#: where it is located (:meth:`BoardRecognizer._put_off`). A frame's decode (5-7 ms) and read
#: up to here leave about one card's match (3-6 ms) under 20 ms. Which frames hit it depends on
#: the machine's load: unset, a recogniser reads the same whatever the load.
MATCH_UNTIL_S = 0.008


class BoardRecognizer(FrameCuts, VisibleRead):
    """Reads the board slots (status, card, confidence) from frames of a calibrated camera.

    :param bank: the registered faces of the deck in use.
    """

    def __init__(
        self,
        world_to_image: FloatArray,
        geometry: BoardGeometry,
        bank: FaceBank,
        felt_ratio: float,
        params: RecognizerParams | None = None,
        felt_channel: FeltChannel = "green",
        reference: Image | None = None,
    ) -> None:
        super().__init__(world_to_image, geometry, felt_ratio, params, felt_channel, reference)
        self.bank = bank
        #: Per slot, the last card identified there: its pose, the canonical grey pixels it
        #: was identified from, and the reading (:meth:`_identify_unless_unchanged`).
        self._last: dict[int, tuple[CardPose, tuple[int, int, Image], SlotReading]] = {}
        self._grey: Image | None = None
        #: The canonical grey view of the last frame read in full, and its reading (None unless
        #: every slot of it read a card or empty).
        self._board: tuple[Image, BoardReading] | None = None
        #: Slots whose card was not located again this frame (:meth:`_unchanged_pose`).
        self._unchanged: set[int] = set()
        #: This frame's located cards (:meth:`_neighbours_over`).
        self._poses: list[CardPose | None] = []
        #: Cards identified, cards whose earlier reading was kept, and cards of those not
        #: located again either (for the benchmark).
        self.identified = 0
        self.reused = 0
        self.not_located = 0
        #: Frames whose whole board was unchanged, answered with the last full read's reading.
        self.unchanged_frames = 0
        #: What the tone reads take from the registered faces (:class:`.inkhue.FaceTones`:
        #: whether the deck prints its suits in more than two inks, each rank's tones),
        #: computed when first needed or ahead by the warm-up.
        self.tones = FaceTones({(c.rank, c.suit): f for c, f in bank.patches.items()})
        #: The suit-twin checks' caches and the tones, filled in the frames not read again
        #: (:mod:`.warmup`).
        self.warmer = FaceWarmer(bank, self.tones)
        # Last, each card's faces' differences the glare check asks (:class:`.glare.HiddenRivals`),
        # then each card's own glare, which it leaves out of a frame's (:meth:`_own_glare`).
        self.warmer.extend(self._hidden_rivals().units() + self._own_glare_units())
        #: No card is matched afresh past this much thread CPU of a frame's read, beyond the
        #: first (None: no bound, the default; :data:`MATCH_UNTIL_S` was measured).
        self.match_until_s: float | None = None
        self._deadline = float("inf")
        self._matched_now = 0
        #: Slots whose match was put off, matched first thing when next located; and how many
        #: matches were put off (for the benchmark).
        self._put_off_slots: set[int] = set()
        self.put_off = 0
        #: The cards cut upright at the stored size in this frame (:meth:`_upright`), by pose
        #: and side, and the frame they were cut from.
        self._cuts: dict[tuple[CardPose, bool], Image] = {}
        self._cut_from: Image | None = None
        #: This frame's :meth:`_neighbours_over` answers, by pose and side.
        self._overs: dict[tuple[CardPose, bool], Image | None] = {}
        #: Read a card left uncertain again at its pose nudged to its best face's best fit
        #: (:meth:`_nudged`, benchmark run 58). Off: on unseen designs (benchmark run 60) it
        #: read a 5 of spades as the club at a nudged pose, where the located pose had left
        #: the two undecided; a confident wrong read costs more than the few cards it adds.
        self.nudge_poses = False

    def warm_up(self) -> None:
        """Compute every unit of the warm-up now (:class:`~hardware.camera.warmup.FaceWarmer`).

        What the frames not read again would compute ahead, a few units each (0.4-0.8 s of CPU
        per deck: the tones', the twins', the close rivals' and the glare check's units): the
        same caches, so every reading is the same; no frame pays for them afterwards (the first
        card read pays the deck's inks, 80-200 ms, unless about 35 frames of an unchanged board
        came first).
        A board source calls it when opened (:meth:`.source.FrameBoardSource.open`), before
        its first frame.
        """
        self.warmer.work(float("inf"))

    def read(self, frame: Image) -> BoardReading:
        """Read all slots of ``frame`` (BGR, the calibrated camera's size).

        A card that lies where it lay in the previous frame, over pixels that did not change
        (:data:`UNCHANGED_LEVEL`), keeps its reading from then instead of being matched again:
        a camera delivering 10 frames a second sees the same board for seconds. Such a card is
        not located again either (:meth:`_unchanged_pose`); the other slots' location and every
        slot's occlusion are decided on every frame.

        A frame whose whole board is unchanged (:data:`UNCHANGED_BOARD_PIXELS`) since the last
        frame read in full is not read at all: that frame's reading is returned, provided each
        of its slots read a card or empty (an occluded or uncertain slot is read again on every
        frame, as before). The frame it is compared with is not updated by the frames skipped,
        so a slow drift adds up until it is noticed. Such a frame has time to spare: it fills
        the caches of the suit-twin checks (:class:`~hardware.camera.warmup.FaceWarmer`, up to
        :data:`WARM_UNTIL_S` of CPU), which a frame where a card is laid would otherwise fill.
        """
        started = time.thread_time()
        canon = self.warp_board(frame)
        grey = np.asarray(cv2.blur(cv2.cvtColor(canon, cv2.COLOR_BGR2GRAY), (3, 3)), np.uint8)
        board = self._board
        if board is not None and board[0].shape == grey.shape:
            diff = cv2.absdiff(grey, board[0])
            if int(np.count_nonzero(diff > UNCHANGED_LEVEL)) <= UNCHANGED_BOARD_PIXELS:
                self.unchanged_frames += 1
                # Time to spare: work of the registered faces done ahead of a frame that
                # would pay for it (the same caches it would fill; the same readings).
                self.warmer.work(started + WARM_UNTIL_S)
                return board[1]
        self._grey = grey
        budget = self.match_until_s
        self._deadline = float("inf") if budget is None else started + budget
        self._matched_now = 0
        self._cuts, self._cut_from, self._overs = {}, None, {}
        try:
            reading = self._read(frame, canon)
        finally:
            self._grey = None
            self._cuts, self._cut_from, self._overs = {}, None, {}
        # Only a board whose every slot was decided (a card read, or empty) is kept: an
        # occluded or uncertain verdict with nothing moving may be noise on a borderline, and
        # the next frame's read may settle it.
        settled = all(s.status in ("card", "empty") for s in reading.slots)
        self._board = (grey, reading) if settled else None
        return reading

    def _read(self, frame: Image, canon: Image) -> BoardReading:
        fg = self.foreground(canon)
        fg.setflags(write=False)
        self.fits_kept_on(fg)
        try:
            return self._read_located(frame, fg)
        finally:
            self.fits_kept_on(None)

    def _read_located(self, frame: Image, fg: Image) -> BoardReading:
        poses: list[CardPose | None] = []
        fallbacks: list[SlotStatus] = []
        self._unchanged = set()
        for slot in range(self.geometry.slots):
            kept = self._unchanged_pose(slot)
            if kept is not None:
                # The card lies where it was identified, over the same pixels: located as then.
                self._unchanged.add(slot)
                self.not_located += 1
                poses.append(kept)
                fallbacks.append("card")
                continue
            pose, status = self._find_card(fg, slot)
            poses.append(pose)
            fallbacks.append(status)
        for _ in range(2):
            if not self._retry_with_neighbours_cut(fg, poses, fallbacks):
                break
        self._poses = poses
        foreign = fg.copy()
        quads = [self._quad(p, grow=3.0) if p else None for p in poses]
        for q in quads:
            if q is not None:
                cv2.fillPoly(foreign, [np.round(q).astype(np.int32)], 0)
        card_area = self.card_px[0] * self.card_px[1]
        unresolved = [s for s, st in enumerate(fallbacks) if st == "uncertain"]
        unknown = [s for s in unresolved if self._card_sized(fg, s)]
        out: list[SlotReading] = []
        for slot, pose in enumerate(poses):
            region = np.zeros_like(fg)
            if pose is not None:
                q = self._quad(pose, grow=self.params.band_px)
            else:
                centre = (self.canon_x(self.geometry.slot_centre_mm(slot)[0]),
                          self.canon_size[1] / 2)
                q = self._quad(CardPose(centre, 0.0, slot), grow=self.params.band_px)
            cv2.fillPoly(region, [np.round(q).astype(np.int32)], 255)
            for other in unresolved:
                if other != slot:
                    # A neighbour that could not be located is unknown, not foreign, in its own
                    # columns; if it spans no more than a card's height it is taken for an
                    # overlapping card, and a little of our side is left to it as well. A hand
                    # reaching over our card is caught below (our card merges with it).
                    reach = 0.15 * self.card_px[0] if other in unknown else 0.0
                    a = int(self.canon_x(other * self.geometry.slot_width_mm) - reach)
                    b = int(np.ceil(
                        self.canon_x((other + 1) * self.geometry.slot_width_mm) + reach
                    ))
                    region[:, max(a, 0) : max(b, 0)] = 0
            n_foreign = int(np.count_nonzero(foreign & region))
            occluded: SlotReading | None = None
            by_foreign = n_foreign > self.params.foreign_fraction * card_area
            if by_foreign:
                conf = min(1.0, n_foreign / (0.2 * card_area))
                occluded = SlotReading("occluded", confidence=conf)
            elif pose is not None and self._merged_with_unknown(fg, poses, slot, unknown):
                occluded = SlotReading("occluded", confidence=0.5)
            over = self._over(poses, slot)
            if occluded is not None:
                # A located card beside a hand may still be read: on a clear win, or on any
                # read when the hand only touches sides showing the card's paper (.sides).
                near = (self._identify_unless_unchanged(frame, pose, over) if pose is not None
                        else None)
                beside = (by_foreign and pose is not None and near is not None
                          and near.status == "card" and beside_only(
                              self._view, fg, foreign & region, pose.centre, pose.angle_deg,
                              self.card_px))
                out.append(near if near is not None and (self._clear(near) or beside)
                           else occluded)
                continue
            if pose is None:
                self._last.pop(slot, None)
                status = fallbacks[slot]
                out.append(SlotReading(status, confidence=0.9 if status == "empty" else 0.0))
                continue
            out.append(self._identify_unless_unchanged(frame, pose, over))
        return BoardReading(tuple(out))

    def _over(self, poses: Sequence[CardPose | None], slot: int) -> list[FloatArray]:
        """Return the located neighbours' quads (grown) over ``slot``'s card (:mod:`.partial`)."""
        pose = poses[slot]
        if pose is None:
            return []
        mine = self._quad(pose).astype(np.float32)
        out = []
        for n in (slot - 1, slot + 1):
            other = poses[n] if 0 <= n < len(poses) else None
            if other is None:
                continue
            quad = self._quad(other, grow=HIDDEN_GROW_PX)
            area, _ = cv2.intersectConvexConvex(mine, quad.astype(np.float32))
            if area > 0:
                out.append(quad)
        return out

    def _identify_unless_unchanged(
        self, frame: Image, pose: CardPose, over: Sequence[FloatArray] = ()
    ) -> SlotReading:
        """:meth:`_identify`, or the slot's last reading if the card and its pixels are the same.

        Kept when the pose is within :data:`UNCHANGED_POSE_PX` / :data:`UNCHANGED_ANGLE_DEG` of
        the last one and, over the card's box in the canonical view (grey, 3x3 box-blurred), at
        most :data:`UNCHANGED_PIXELS` pixels differ by more than :data:`UNCHANGED_LEVEL` from the
        frame it was identified in: noise does not move a pixel that far, a card put in its
        place, a hand or a moving glare moves hundreds.
        """
        grey = self._grey
        if grey is None:
            return self._identify(frame, pose, over)
        last = self._last.get(pose.slot)
        if last is not None and pose.slot in self._unchanged and pose is last[0]:
            self.reused += 1
            return last[2]
        if last is not None:
            old_pose, (x0, y0, old_box), reading = last
            moved = float(np.hypot(pose.centre[0] - old_pose.centre[0],
                                   pose.centre[1] - old_pose.centre[1]))
            if (moved <= UNCHANGED_POSE_PX
                    and abs(pose.angle_deg - old_pose.angle_deg) <= UNCHANGED_ANGLE_DEG
                    and pose.slack == old_pose.slack):
                box = grey[y0 : y0 + old_box.shape[0], x0 : x0 + old_box.shape[1]]
                diff = cv2.absdiff(box, old_box)
                if int(np.count_nonzero(diff > UNCHANGED_LEVEL)) <= UNCHANGED_PIXELS:
                    self.reused += 1
                    return reading
        if self._put_off(pose.slot):
            return SlotReading("uncertain")
        reading = self._identify(frame, pose, over)
        self.identified += 1
        self._matched_now += 1
        self._put_off_slots.discard(pose.slot)
        # The pose and pixels of the frame the card was identified in are kept (not updated
        # by later frames), so a slow drift adds up until it is noticed.
        h, w = grey.shape
        quad = self._quad(pose, grow=2.0)
        x0, y0 = (int(v) for v in np.clip(np.floor(quad.min(axis=0)), 0, [w, h]))
        x1, y1 = (int(v) for v in np.clip(np.ceil(quad.max(axis=0)) + 1, 0, [w, h]))
        self._last[pose.slot] = (pose, (x0, y0, grey[y0:y1, x0:x1].copy()), reading)
        return reading

    def _put_off(self, slot: int) -> bool:
        """Whether ``slot``'s match is put off to a later frame (the frame's CPU is spent).

        Never the frame's first match, nor a slot put off before: a card laid is matched in
        the first frame read in full where it is located, or in the next one.
        """
        if (self._matched_now == 0 or slot in self._put_off_slots
                or time.thread_time() < self._deadline):
            return False
        self._put_off_slots.add(slot)
        self.put_off += 1
        return True

    def _unchanged_pose(self, slot: int) -> CardPose | None:
        """Return the pose of the card last identified in ``slot`` if its pixels are unchanged.

        The test of :meth:`_identify_unless_unchanged` (at most :data:`UNCHANGED_PIXELS` of the
        card's box differ by more than :data:`UNCHANGED_LEVEL` from the frame it was identified
        in), made before locating: an edge moved by half a pixel changes the pixels along it by
        about half the card's contrast with the felt, far more than that level, so a card whose
        box is unchanged lies where it was located then and is not located again.
        """
        grey = self._grey
        last = self._last.get(slot)
        if grey is None or last is None:
            return None
        pose, (x0, y0, old_box), _ = last
        box = grey[y0 : y0 + old_box.shape[0], x0 : x0 + old_box.shape[1]]
        if box.shape != old_box.shape:
            return None
        diff = cv2.absdiff(box, old_box)
        if int(np.count_nonzero(diff > UNCHANGED_LEVEL)) > UNCHANGED_PIXELS:
            return None
        return pose

    def _clear(self, reading: SlotReading) -> bool:
        """Whether a card read beside something not a card meets the stricter thresholds."""
        p = self.params
        return (reading.status == "card" and reading.score >= p.near_hand_min_score
                and reading.separation >= p.near_hand_min_separation
                and reading.discriminant >= p.near_hand_min_discriminant)

    def _identify(
        self, frame: Image, pose: CardPose, over: Sequence[FloatArray] = (),
        nudged: bool = False, reposed: bool = False,
    ) -> SlotReading:
        """Identify the card at ``pose``; ``over``: located neighbours' quads lying over it.

        A card left ``uncertain`` is read once more at the pose nearby where its best face
        matches best (:meth:`_nudged`). ``nudged``: this is that read, by the whole face, its
        suit-twin decision and their checks only; no second looks (the ink's tone, the
        washed-out, close-face, corner-index and visible-part reads) and no further nudge.
        ``reposed``: the read at the pose a card no face fitted was moved to (far better fitted
        there, :func:`~.refine.reposed_pose`), read as any located card but for a further move.
        """
        p = self.params
        sliding = pose.slack > 0
        vec: F32 | None = None
        if not sliding:
            vec = face_features(self.card_patch(frame, pose), p.red_weight)
            match = self.bank.match(vec, p)
        else:
            # Both side edges hidden: slide along the card's width, keep the best-scoring
            # position.
            a = np.deg2rad(pose.angle_deg)
            (cx, cy), slid = pose.centre, pose

            def moved(off: float) -> CardPose:
                return CardPose((cx + off * np.cos(a), cy + off * np.sin(a)), slid.angle_deg,
                                slid.slot)

            tries: list[tuple[Match, float, F32]] = []
            for off in np.arange(-pose.slack, pose.slack + 0.5, 1.0):
                slid_vec = face_features(self.card_patch(frame, moved(off)), p.red_weight)
                tries.append((self.bank.match(slid_vec, p), float(off), slid_vec))
            match, best, vec = max(tries, key=lambda t: t[0].score)
            shadow = (None if self._grey is None else shadow_offset(
                self._grey, pose.centre, pose.angle_deg, self.card_px, pose.slack))
            if shadow is not None and abs(shadow - best) <= SHADOW_FACE_AGREE_PX:
                # The side lying on a neighbour shows its shadow, where the face put it too:
                # the card is located, and read as any other.
                pose, sliding = moved(shadow), False
                vec = face_features(self.card_patch(frame, pose), p.red_weight)
                match = self.bank.match(vec, p)
            else:
                # Slack within the fits' own error (as far as a located card may lie off):
                # the best slide is as located as any card.
                pose, sliding = moved(best), pose.slack > SLACK_LOCATED_PX
        reading = decide(match, p)
        if (reading.status == "uncertain" and vec is not None and p.glare_check
                and match.score < p.min_score):
            reading = glare_lifted(self.bank, p, vec, match, reading)
        seen: list[F32] = []
        cuts: dict[bool, Image] = {}

        def upright(flipped: bool) -> Image:
            """Return the card cut at the stored size, upright (:meth:`_upright`, once)."""
            if flipped not in cuts:
                cuts[flipped] = self._upright(frame, pose, flipped)
            return cuts[flipped]

        def observed() -> F32:
            """Return the observation's luminance at the stored size, upright (once)."""
            if not seen:
                seen.append(self._observed(frame, pose, match.flipped))
            return seen[0]

        def observed_as(chosen: Match) -> F32:
            """Return the observation upright the way ``chosen`` lay (as :func:`observed`)."""
            if chosen.flipped == match.flipped:
                return observed()
            return self._observed(frame, pose, chosen.flipped)

        def overlying() -> Image | None:
            """Where a located neighbour may lie over the card (:meth:`_neighbours_over`)."""
            return self._neighbours_over(pose, match.flipped)

        twin_decided = False
        if reading.status == "uncertain" and not sliding and self._twin_left(match):
            reading, match = self._decide_suit(observed(), match, reading,
                                               lambda: upright(match.flipped))
            twin_decided = reading.status == "card"
        if reading.status == "card":
            reading = self._verify(observed, match, reading, twin_decided, overlying,
                                   lambda: upright(match.flipped))
        if reading.status == "card" and p.index_check:
            reading = self._check_index(observed(), match, reading, overlying)
        if (reading.status == "card"
                and self._ink_kept(frame, pose, match.flipped, reading, match) is None):
            reading = SlotReading("uncertain", None, 0.5 * reading.confidence, match.card,
                                  match.score, match.margin, match.discriminant,
                                  match.separation)
        first = reading
        # The second looks at a card the whole face left uncertain (not at a nudged pose).
        looks = not sliding and not nudged
        if reading.status == "uncertain" and looks and vec is not None and self._many_inks():
            reading = self._tone_read(frame, pose, vec, match, observed) or reading
        if reading.status == "uncertain" and looks and p.washed_check:
            inked = match
            if vec is not None and p.washed_ink_group and not self._many_inks():
                inked = self._in_ink(upright(match.flipped), vec, match)
            lum = observed_as(inked)
            washed = read_washed_out(lum, inked, self.bank, p,
                                     self._neighbours_over(pose, inked.flipped))
            washed = twin_not_shown(self.bank, p, lum, washed)
            reading = self._inks_kept(frame, pose, match, inked.flipped, washed) or reading
        if reading.status == "uncertain" and looks and p.difference_check:
            shown = match
            if vec is not None and self._many_inks():
                # The suit the ink's tone names, the rank left to the difference.
                suit = self.tones.suit_by_tone(upright(match.flipped), match.card.rank)
                shown = in_suit(match, vec, suit, self.bank, p)
            elif vec is not None and p.difference_ink_group:
                shown = self._in_ink(upright(match.flipped), vec, match)
            lum = observed_as(shown)
            differs = read_by_difference(
                lum, shown, self.bank, p,
                lambda x, y: self._paper_shown(lambda: upright(shown.flipped), x, y))
            differs = twin_not_shown(self.bank, p, lum, differs)
            reading = self._inks_kept(frame, pose, match, shown.flipped, differs) or reading
        if reading.status == "uncertain" and looks and p.difference_check:
            named = indices_read(observed(), match, self.bank, p, overlying())
            named = twin_not_shown(self.bank, p, observed(), named)
            reading = self._inks_kept(frame, pose, match, match.flipped, named) or reading
        if reading.status == "uncertain" and looks and over:
            reading = self._read_visible(frame, pose, over) or reading
        if reading.status == "card" and p.glare_check:
            reading = self._glare_confirmed(observed(), upright(match.flipped), reading,
                                            overlying)
        if reading.status == "card":
            reading = self._fine_vetoed(
                observed, match, reading, twin_decided or reading is not first,
                lambda card: self._ink_tells(frame, pose, match.flipped, card))
        far = match.score < p.min_score  # no face fits: located off (benchmark run 64)?
        if reading.status == "uncertain" and looks and not reposed and (self.nudge_poses or far):
            reading = self._nudged(frame, pose, over, reading, match.score, far)
        return reading

    def _nudged(self, frame: Image, pose: CardPose, over: Sequence[FloatArray],
                reading: SlotReading, start: float, far: bool = False) -> SlotReading:
        """Read the card again where its face fits best near ``pose`` (:mod:`.refine`).

        A card located a millimetre or a degree off (an edge along a felt's printed line, a
        side half under a neighbour) matches every face less well and its close rivals' checks
        compare misaligned strokes. The pose is nudged to where the best registered face scores
        highest (``start``: its score at ``pose``) and the card identified there by the whole
        face, its suit-twin decision and their checks (close rivals, corner indices, the ink's
        tone, a glare's rivals); ``reading`` stands unless that reads a card. The second looks
        are not made there: the washed-out read took a neighbour's print over a 5 of diamonds
        half under it for a 6's ink half a pixel from where it had found none (synth-9126
        bridge, hard pushed, benchmark run 58).

        ``far`` (on whatever ``nudge_poses`` says): no face fits the card as located (``start``
        under ``min_score``). The search goes up to 3 mm and the pose found stands only where
        the best face's score rose by a twentieth (:func:`~.refine.reposed_pose`): the card was
        located off (an edge along a printed line, benchmark run 64), and is read there as any
        located card, the second looks too, but not moved again.
        """
        p = self.params

        def score(at: CardPose) -> float:
            return self.bank.match(face_features(self.card_patch(frame, at), p.red_weight),
                                   p).score

        moved = (reposed_pose if far else nudged_pose)(pose, score, start)
        if moved is None:
            return reading
        again = self._identify(frame, moved, over, nudged=not far, reposed=far)
        return again if again.status == "card" else reading
