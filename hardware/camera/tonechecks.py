"""A read's checks by its ink's colour, for decks of many suit inks (:class:`ToneChecks`).

On a deck printing its suits in more than two inks the whole face weighs colour only as
redness; these checks take the suit from the ink's tone and hue
(:mod:`hardware.camera.inkhue`). The methods of
:class:`~hardware.camera.recognizer.BoardRecognizer` that do so, kept here by job.
"""

from __future__ import annotations

from collections.abc import Callable

from hardware.camera.difference import in_suits
from hardware.camera.facebank import Match, decide
from hardware.camera.finetwins import FINE_RANKS
from hardware.camera.inkhue import FaceTones, hue_refutes, other_inks
from hardware.camera.locator import CardPose
from hardware.camera.readings import F32, Image, SlotReading
from hardware.camera.rivals import RivalChecks
from table_controller.engine.cards import Card


class ToneChecks(RivalChecks):
    """The ink-colour checks of a read, on the registered faces' tones ``tones``."""

    tones: FaceTones

    def _upright(self, frame: Image, pose: CardPose, flipped: bool) -> Image:
        """Return the card at ``pose`` at the stored faces' size, upright (the recogniser's)."""
        raise NotImplementedError

    def _neighbours_over(self, pose: CardPose, flipped: bool) -> Image | None:
        """Return where another located card overlaps the card at ``pose`` (the recogniser's)."""
        raise NotImplementedError

    def _many_inks(self) -> bool:
        """Whether the deck's suits are printed in more than two inks (decided once)."""
        return self.tones.suit_inks().many

    def _tone_names_other(self, frame: Image, pose: CardPose, flipped: bool,
                          card: Card) -> bool:
        """Whether the ink's tone names another suit than ``card``'s (a read to refuse).

        On a deck printing its suits in more than two inks the whole face weighs colour only as
        redness, so a blue diamond and a green club of one rank differ to it in pip shape alone,
        and a hard frame's blur can make the shape lean the wrong way (10 and 6 of diamonds read
        as clubs, benchmark run 35). A blur or a glare changes the ink's brightness, not its
        tone (:func:`.inkhue.suit_by_tone`, which names a suit only when it is clear): a read
        whose ink names another suit of its rank is refused, and the tone read (:meth:`_tone_read`)
        may then read the suit the ink shows.
        """
        patch = self._upright(frame, pose, flipped)
        suit = self.tones.suit_by_tone(patch, card.rank)
        return suit is not None and suit != card.suit

    def _ink_tells(self, frame: Image, pose: CardPose, flipped: bool, card: Card) -> bool:
        """Whether the ink's colour tells ``card``'s suit, on a court of one picture.

        On a deck printing its suits in more than two inks (:meth:`_many_inks`), a rank whose
        four faces share print (:meth:`.inkhue.FaceTones.shared`: one picture for every suit)
        differs from suit to suit in the corner indices, their shape and their ink's colour.
        True when the ink's tone (:meth:`.inkhue.FaceTones.suit_by_tone`, over the suits' own
        ink against the card's own paper) names ``card``'s suit; the card cut ``flipped``.

        Also asked of a pip card where the faces were captured by the camera
        (``FineFaces.captured``; :data:`~hardware.camera.finetwins.FINE_RANKS` excluded): such
        a read is confirmed on the fine faces against its close card of the same rank, and the
        fine faces are luminance, so a blue diamond and a green club of one rank differ there
        in pip shape alone, through the capture's own blur and sampling (benchmark run 110:
        on four-colour designs the fine fit stayed at 0.54-0.65 where the face images fitted
        0.8-0.98). The ink's colour tells those suits apart whatever the capture's blur; a
        deck registered from images never asks a pip card's fine confirmation.
        """
        if not self._many_inks():
            return False
        if not self.tones.shared(card.rank) and not self._captured_pip(card):
            return False
        patch = self._upright(frame, pose, flipped)
        return self.tones.suit_by_tone(patch, card.rank) == card.suit

    def _captured_pip(self, card: Card) -> bool:
        """Whether ``card`` is a pip card (no court) of a deck captured by the camera."""
        fine = self.bank.fine
        return fine is not None and fine.captured and card.rank not in FINE_RANKS

    def _ink_kept(self, frame: Image, pose: CardPose, flipped: bool,
                  read: SlotReading | None, match: Match | None = None) -> SlotReading | None:
        """Return ``read``, or None where its ink's tone does not name its suit as it must.

        On a deck printing its suits in more than two inks (:meth:`_many_inks`) every read that
        names a card passes here, whatever path made it. The whole face weighs colour only as
        redness, the washed-out, difference and corner-index reads none at all: to them a blue
        diamond and a green club of one rank (or a black spade) differ in shape alone, and on
        a design whose twelve courts share one picture in the corner index's small suit sign
        only (synth-13 poker, synth-9134: a jack, queen and king of diamonds read as the clubs
        by the washed-out read, benchmark runs 57, 58). The ink's tone
        (:meth:`.inkhue.FaceTones.suit_by_tone`; where it names none, the ink's hue alone,
        :meth:`~.inkhue.FaceTones.suit_by_hue`: a bright light clips the paper and stretches
        the tone along its hue) is what tells those suits apart: a read whose ink names
        another suit of its rank is refused, and so is one whose ink names no suit, unless it
        is a whole-face read (``match``: the whole face's) with no card of its rank in another
        suit among the whole face's close cards (``match.close``) but those the ink's tone can
        never tell from it, well under it (:meth:`_rank_apart`). A card
        turned ``flipped`` is cut as the read took it. Refusing is the safe direction.
        """
        if read is None or read.card is None or not self._many_inks():
            return read
        card = read.card
        patch = self._upright(frame, pose, flipped)
        suit = self.tones.suit_by_tone(patch, card.rank)
        if suit is None:
            suit = self.tones.suit_by_hue(patch, card.rank)
        if suit == card.suit:
            return read
        if suit is None and match is not None and self._rank_apart(match, card):
            return read
        return None

    def _rank_apart(self, match: Match, card: Card) -> bool:
        """Whether the whole face alone tells ``card`` from its rank's other close suits.

        True when no card of ``card``'s rank in another suit is among the whole face's close
        cards (``match.close``), or when each such card's face shows the same ink tone as
        ``card``'s over the rank's regions (:func:`.inkhue.other_inks` false: the ink's tone
        can never tell the two apart, whatever the frame) and scored at least
        ``ink_unnamed_rank_gap`` under ``card`` (a close card without its score counts as
        under the gap). Four kings in four pictures of their own, mostly the same reds, blues
        and yellows whatever the suit (synth-9279): the tone over the pictures is one red for
        three suits, no suit is named, and the whole face, which sees the pictures, is what
        tells them apart. Where the two faces' tones differ (a red and a black 2, a blue and a
        green court), a tone naming neither is the frame's doing (a gloss, a blur) and the
        read is refused as before.
        """
        others = [c for c in match.close if c.rank == card.rank and c.suit != card.suit]
        if not others:
            return True
        scores = dict(zip(match.close, match.close_scores, strict=False))  # may lack scores
        own, gap = scores.get(card), self.params.ink_unnamed_rank_gap
        tone = self.tones.tone(card.rank, card.suit)
        if own is None or tone is None:
            return False
        for other in others:
            theirs = self.tones.tone(other.rank, other.suit)
            if (other not in scores or own - scores[other] < gap or theirs is None
                    or other_inks(tone, theirs)):
                return False
        return True

    def _tone_read(self, frame: Image, pose: CardPose, vec: F32, match: Match,
                   observed: Callable[[], F32]) -> SlotReading | None:
        """Read the best card's rank in the suit its ink's tone shows, or None.

        On a deck printing its suits in more than two inks (:meth:`_many_inks`), the suit whose
        ink the observation shows (:func:`.inkhue.suit_by_tone`) is read when the whole face,
        with that rank's other suits left out, reads it on every threshold and the close
        rivals' checks (:meth:`_verify`, :meth:`_check_index`) keep it: the ink's colour tells
        the suits apart, the whole face the rank.
        """
        p = self.params
        rank = match.card.rank
        patch = self._upright(frame, pose, match.flipped)
        suit = self.tones.suit_by_tone(patch, rank)
        if suit is None and p.tone_read_hue:
            suit = self.tones.suit_by_hue(patch, rank)
        if suit is None:
            return None
        toned = self.bank.match(vec, p, [Card(rank, s) for s in range(4) if s != suit])
        if toned.card != Card(rank, suit) or toned.flipped != match.flipped:
            return None
        reading = decide(toned, p)
        if reading.status != "card":
            return None
        overlying = lambda: self._neighbours_over(pose, match.flipped)  # noqa: E731
        reading = self._verify(observed, toned, reading, False, overlying)
        if reading.status == "card" and p.index_check:
            reading = self._check_index(observed(), toned, reading, overlying)
        return reading if reading.status == "card" else None

    def _in_ink(self, patch: Image, vec: F32, match: Match) -> Match:
        """Return the whole-face match among the cards of the ink ``patch`` shows, or ``match``.

        On a deck of two inks (:meth:`.inkhue.FaceTones.inks_by_tone`, on the best card's
        rank): a red and a black court of one rank sharing one picture differ in their small
        corner indices alone, which the washed-out and difference reads weigh by luminance
        (a queen of spades refused against the queen of hearts, lean 0.57 of the way).
        """
        group = self.tones.inks_by_tone(patch, match.card.rank)
        return in_suits(match, vec, group, self.bank, self.params)

    def _inks_kept(self, frame: Image, pose: CardPose, match: Match, flipped: bool,
                   read: SlotReading | None) -> SlotReading | None:
        """Return a second look's ``read``, or None where an ink check refuses it.

        Both checks: :meth:`_hue_shown`, then :meth:`_ink_kept` on the card cut ``flipped``.
        """
        return self._ink_kept(frame, pose, flipped, self._hue_shown(frame, pose, match, read))

    def _hue_shown(self, frame: Image, pose: CardPose, match: Match,
                   read: SlotReading | None) -> SlotReading | None:
        """Return a fallback read, or None when its ink's hue shows the whole face's best card."""
        if read is None or read.card is None:
            return read
        rival = match.card if read.card != match.card else match.second
        if rival is None:
            return read
        patch = self._upright(frame, pose, match.flipped)
        refuted = hue_refutes(patch, self.bank.patches[read.card], self.bank.patches[rival])
        return None if refuted else read
