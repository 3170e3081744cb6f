"""Board camera: face matching vs corner-index template matching, on rendered 1920x1080 scenes.

For each deck design (kennard, svg-cards) and level (medium, hard): fresh cameras are calibrated
from their ArUco markers (the real calibration path), the design's 52 faces are registered, and
random boards are rendered and read. Thresholds were tuned on kennard scenes from other seeds
(see docs/vision.md); nothing is retuned between the designs.

Counted per slot whose truth is a visible card: correct, uncertain (uncertain / occluded / empty
reported) and wrong (another card reported with confidence). A card reported on an empty slot,
or a different card reported on an occluded slot, also counts as wrong. Time: ms per frame of
``BoardRecognizer.read`` on one core (OpenCV and BLAS on one thread,
:func:`hardware.camera.onecore.one_core`; median wall and CPU, p99 and max
CPU: CPU time is this thread's, what the shared machine's load does not inflate), in the same
run as the
baseline: the corner rank/suit index matched against fixed templates (taken from the kennard
deck, as the well-known OpenCV card detector ships its own), always answering unless its match
score is under 0.5, on the same card positions. Beside it, per frame of our method: the CPU
time of ``cv2.imdecode`` of the same frame encoded as JPEG q90 (what a camera's MJPEG frame
adds; the frame read is the rendered one, as always), and decode + read CPU and wall (median,
p99).

Situations (``BENCH_VISION_SITUATION_DECKS``: folders, comma-separated; each
:class:`hardware.sim.situations.Situation` on each, ``BENCH_VISION_SITUATION_FRAMES`` frames
(default a quarter of the frames) at ``BENCH_VISION_SITUATION_LEVELS``, default ``medium``):
the method column names the situation. The design column gives the card size the faces'
proportions give. Every scene has its own seed (:func:`extra_seed`, :func:`situation_seed`),
however many folders are listed.

``BENCH_VISION_STREAM=N``: N frames fed as a camera delivers them (JPEG and PNG decoded, then
read; the recogniser warmed up first, as a board source does when opened, unless
``BENCH_VISION_STREAM_COLD=1``; ``BENCH_VISION_MATCH_UNTIL_MS``: under that bound on a frame's
matches,
:attr:`~hardware.camera.recognizer.BoardRecognizer.match_until_s`, the cards put off to the next
frame counted), CPU per frame against the 100 ms of 10 fps
(median, p99, max; wall median and p99 beside; and the same for the frames whose whole
board was unchanged and by how many cards each frame read matched afresh);
hands dealt in front of a fixed camera
(:func:`stream_scenes`), for each design of ``BENCH_VISION_STREAM_DECKS`` (default kennard) at
medium and hard.
At the end, every other design's and situation deck's counts pooled by situation, card size and
level, each against the issue's target (99.9% medium, 99% hard, 0 wrong) with the Wilson 95%
lower bound beside it, and the decode + read CPU per frame against 20 ms.

``BENCH_VISION_SITUATIONS``: only these situations (comma-separated values, e.g.
``overlap,placing``; each keeps the seeds it has in the whole run).
``BENCH_VISION_SKIP_REPO=1`` leaves out the two repository designs and the wrong-deck runs.
``BENCH_VISION_SLOTS=FILE`` appends every slot's truth and reading to FILE, one line each, to
compare two versions of the code on the same scenes.

Environment: ``BENCH_VISION_FRAMES`` (frames per design and level, default 600),
``BENCH_VISION_PER_CAMERA`` (frames per calibrated camera, default 20),
``BENCH_VISION_SEED`` (seed base, default :data:`SEED_BASE`), ``BENCH_VISION_EXTRA`` (folders of
other deck designs, ``<rank><suit>.png`` each, separated by commas: measured after the two designs
of the repository, with our method only, same levels and frames), ``BENCH_VISION_REGISTER``
(``images``, the default: faces registered from the folder; ``camera``: captured by each
calibrated camera, :func:`camera_registered`; ``camera-nofine``: so, without fine faces),
``BENCH_VISION_WARM=1`` (each camera's recogniser warmed up before its first frame, as a board
source does when opened, :data:`WARM`).
"""

from __future__ import annotations

import os
import statistics
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from calibration.camera import CameraProfile, calibrate_camera, profile_with_patches
from calibration.faces import CAPTURE_FRAMES, load_face_folder
from hardware.camera.geometry import card_size_name
from hardware.camera.onecore import one_core
from hardware.camera.recognizer import (
    STORED_PATCH_SIZE,
    BoardRecognizer,
    CardPose,
    face_patch,
)
from hardware.sim import scene as S
from hardware.sim.faces import face_folder
from hardware.sim.situations import Situation, printed_felt, render_situation
from table_controller.engine.cards import FULL_DECK, Card
from table_controller.errors import CalibrationError

Image = npt.NDArray[np.uint8]
ROOT = Path(__file__).resolve().parents[1]
DESIGNS = ("kennard", "svg-cards")
LEVELS = (S.Level.MEDIUM, S.Level.HARD)
#: Fresh seeds: tuning used kennard seeds 1-7, 1000-5100 only (earlier runs: 70000+ to 110000+).
SEED_BASE = 100_000


@dataclass
class Counts:
    cards: int = 0
    correct: int = 0
    uncertain: int = 0
    wrong: int = 0
    empty_slots: int = 0
    empty_read: int = 0
    occluded_slots: int = 0
    boards: int = 0
    boards_all_correct: int = 0
    ms: list[float] = field(default_factory=list)
    calibration_failures: list[str] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    #: Per frame read: CPU and wall time of ``cv2.imdecode`` of the frame as JPEG q90 (the
    #: reading is of the rendered frame itself, as always; this is the decode a camera's
    #: MJPEG frame adds).
    decode_cpu_ms: list[float] = field(default_factory=list)
    decode_ms: list[float] = field(default_factory=list)


class CornerBaseline:
    """Corner-index template matching: rank + suit corner against fixed (kennard) templates."""

    def __init__(self, faces: dict[Card, Image]) -> None:
        rows = []
        for card in FULL_DECK:
            rows.append(self._features(face_patch(faces[card])))
        self.matrix = np.stack(rows)

    @staticmethod
    def _features(patch: Image) -> npt.NDArray[np.float32]:
        w, h = STORED_PATCH_SIZE
        corner = patch[2 : int(0.3 * h), 2 : int(0.2 * w)]
        gray = cv2.cvtColor(corner, cv2.COLOR_BGR2GRAY).astype(np.float32).reshape(-1)
        gray -= gray.mean()
        gray /= max(float(np.linalg.norm(gray)), 1e-6)
        return gray

    def identify(self, recognizer: BoardRecognizer, frame: Image, pose: CardPose) -> Card | None:
        patch = recognizer.card_patch(frame, pose, STORED_PATCH_SIZE)
        best, best_card = -1.0, None
        for view in (patch, np.asarray(cv2.rotate(patch, cv2.ROTATE_180), np.uint8)):
            scores = np.einsum("ij,j->i", self.matrix, self._features(view))
            i = int(np.argmax(scores))
            if scores[i] > best:
                best, best_card = float(scores[i]), FULL_DECK[i]
        return best_card if best >= 0.5 else None


def _time_decode(image: Image, c: Counts) -> None:
    """Time ``cv2.imdecode`` of ``image`` encoded as JPEG q90 (as a camera's MJPEG frame)."""
    blob = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])[1]
    t0, c0 = time.perf_counter(), time.thread_time()
    cv2.imdecode(blob, cv2.IMREAD_COLOR)
    c.decode_cpu_ms.append((time.thread_time() - c0) * 1000)
    c.decode_ms.append((time.perf_counter() - t0) * 1000)


def _score(truth: tuple[S.SlotTruth, ...], cards: list[tuple[str, Card | None]], c: Counts) -> None:
    c.boards += 1
    all_ok = True
    for t, (status, card) in zip(truth, cards, strict=True):
        if t.status == "card":
            c.cards += 1
            if status == "card" and card == t.card:
                c.correct += 1
            elif status == "card":
                c.wrong += 1
                all_ok = False
            else:
                c.uncertain += 1
                all_ok = False
        elif t.status == "empty":
            c.empty_slots += 1
            if status == "card":
                c.wrong += 1
                all_ok = False
            elif status == "empty":
                c.empty_read += 1
        else:
            c.occluded_slots += 1
            if status == "card" and card != t.card:
                c.wrong += 1
                all_ok = False
    c.boards_all_correct += all_ok


def deck_folder(design: str) -> Path:
    """Return the faces folder of a design name (kennard, a folder under examples/cards) or path."""
    if "/" in design:
        return Path(design)
    return face_folder(design) if design == "kennard" else ROOT / "examples" / "cards" / design


#: How the faces are registered (``BENCH_VISION_REGISTER``): ``images`` (the face folder,
#: :func:`calibrate_camera`), ``camera`` (each of the 52 shown alone in slot 3 to the camera
#: and captured, as ``vision capture-faces`` does), ``camera-nofine`` (so, without the faces at
#: the frame's resolution, as before they were kept).
REGISTER = os.environ.get("BENCH_VISION_REGISTER", "images")
#: ``BENCH_VISION_WARM=1``: each calibrated camera's recogniser does its warm-up
#: (:meth:`~hardware.camera.recognizer.BoardRecognizer.warm_up`, not timed) before its first
#: one-off frame, as a board source does when opened: the per-frame CPU a deployed camera pays.
#: By default the one-off frames read with a fresh recogniser (the cards of its first frames
#: pay the deck's inks and the twins' blurs; every reading is the same either way).
WARM = os.environ.get("BENCH_VISION_WARM", "") == "1"
#: Frames of each card lying still that a camera registration averages
#: (``BENCH_VISION_CAPTURE_FRAMES``; default the real flow's, :data:`CAPTURE_FRAMES`; 1: one
#: frame per card, as before run 76).
CAPTURE_FRAME_COUNT = int(os.environ.get("BENCH_VISION_CAPTURE_FRAMES", str(CAPTURE_FRAMES)))
#: ``BENCH_VISION_SLOTS``: a file that gets one line per slot our method read (the design,
#: level and situation, frame, slot, truth and answer), so that two versions of the code run
#: on the same scenes can be compared reading by reading (``diff``).
SLOT_LOG = os.environ.get("BENCH_VISION_SLOTS", "")


def _log_slots(label: str, frame: int, truth: tuple[S.SlotTruth, ...],
               answers: list[tuple[str, Card | None]]) -> None:
    """Append the frame's readings to :data:`SLOT_LOG` (when set)."""
    if not SLOT_LOG:
        return
    with open(SLOT_LOG, "a", encoding="utf-8") as out:
        for slot, (t, (status, card)) in enumerate(zip(truth, answers, strict=True)):
            shown = f"{t.status}:{t.card}" if t.card is not None else t.status
            got = f"{status}:{card}" if card is not None else status
            out.write(f"{label} frame {frame} slot {slot}: truth {shown}, read {got}\n")


def camera_registered(profile: CameraProfile, faces: dict[Card, Image], cam: S.CameraSetup,
                      rng: np.random.Generator, fine: bool = True) -> CameraProfile:
    """Return ``profile`` with its faces captured from ``cam``.

    Each card lies alone in slot 3, turned by up to 2 degrees and moved by up to 2 mm, lit as
    when the camera was calibrated (the installer registers the deck under the table's light),
    for :data:`CAPTURE_FRAME_COUNT` frames (their own sensor noise each) that are averaged, as
    :class:`~calibration.faces.FaceRegistration` does.
    """
    capture = profile.face_capture(slot=2)
    cx, cy = profile.geometry.slot_centre_mm(2)
    clean = S.Perturbations(noise_sigma=2.0, jpeg_quality=90)
    for card in FULL_DECK:
        where = (cx + rng.uniform(-2, 2), cy + rng.uniform(-2, 2))
        placement = [S.Placement(card, 2, where, float(rng.uniform(-2, 2)))]
        shots = [S.render(faces, placement, cam, rng, clean).image
                 for _ in range(CAPTURE_FRAME_COUNT)]
        capture.add(card, *shots)
    return profile_with_patches(profile, capture.patches(),
                                capture.fine_faces() if fine else None, captured=True)


def run_config(design: str, level: S.Level, frames: int, per_camera: int, seed: int,
               show: str | None = None, baseline_too: bool = True,
               situation: Situation = Situation.PLAIN) -> tuple[Counts, Counts]:
    """Measure one design and level; ``show`` renders another design's faces (wrong deck).

    ``design`` is ``kennard`` (shipped), a folder name under ``examples/cards`` or a path to a
    folder of faces. ``situation`` renders the boards in one of :class:`Situation` (plain: as
    :func:`hardware.sim.scene.render_board`, the same random draws as before it existed).
    """
    faces = load_face_folder(deck_folder(design))
    shown = faces if show is None else load_face_folder(deck_folder(show))
    baseline = CornerBaseline(load_face_folder(face_folder("kennard")))
    rng = np.random.default_rng(seed)
    ours, base = Counts(), Counts()
    done = 0
    while done < frames:
        cam = S.make_camera(rng, level, S.geometry_for_faces(shown))
        if situation is Situation.PRINTED_FELT:
            cam = printed_felt(cam, rng)
        calib = S.render(faces, [], cam, rng, S.Perturbations(noise_sigma=2.0, jpeg_quality=90))
        try:
            profile = calibrate_camera(calib.image, faces, design=design)
            if REGISTER != "images":
                capture_rng = np.random.default_rng([seed, done])
                profile = camera_registered(profile, faces, cam, capture_rng,
                                            fine=REGISTER == "camera")
            recognizer = profile.recognizer()
            if WARM:
                recognizer.warm_up()  # as a board source does when opened, before its first frame
        except CalibrationError as exc:
            # An installer would move the camera; counted and reported, a new camera drawn.
            ours.calibration_failures.append(str(exc))
            continue
        for _ in range(min(per_camera, frames - done)):
            if situation is Situation.PLAIN:
                scene = S.render_board(shown, S.random_board(rng), rng, level, cam)
            else:
                scene = render_situation(shown, S.random_board(rng), rng, level, cam, situation)
            t0, c0 = time.perf_counter(), time.thread_time()
            reading = recognizer.read(scene.image)
            ours.ms.append((time.perf_counter() - t0) * 1000)
            ours.cpu_ms.append((time.thread_time() - c0) * 1000)
            answered: list[tuple[str, Card | None]] = [(s.status, s.card) for s in reading.slots]
            _score(scene.truth, answered, ours)
            _log_slots(f"{Path(design).name}/{level.value}/{situation.value}", done,
                       scene.truth, answered)
            _time_decode(scene.image, ours)
            if not baseline_too:
                done += 1
                continue
            fg = recognizer.foreground(recognizer.warp_board(scene.image))
            t0, c0 = time.perf_counter(), time.thread_time()
            answers: list[tuple[str, Card | None]] = []
            for slot in range(5):
                pose, status = recognizer._find_card(fg, slot)
                if pose is None:
                    answers.append((status, None))
                    continue
                card = baseline.identify(recognizer, scene.image, pose)
                answers.append(("card", card) if card else ("uncertain", None))
            base.ms.append((time.perf_counter() - t0) * 1000)
            base.cpu_ms.append((time.thread_time() - c0) * 1000)
            _score(scene.truth, answers, base)
            done += 1
    return ours, base


def stream_scenes(faces: dict[Card, Image], rng: np.random.Generator, level: S.Level,
                  cam: S.CameraSetup, frames: int, per_step: int = 10) -> list[S.Scene]:
    """Frames as a fixed camera sees hands dealt: empty, flop, turn, river, ``per_step`` each.

    What a dealer does, street by street: the first frame shows the dealer's hand laying the
    street's last card (the hand half over it, the card a few millimetres short of where it
    comes to rest, as :attr:`~hardware.sim.situations.Situation.PLACING`; the empty board's
    first frame: a hand over the felt, the cards just swept away), the second the cards at rest
    with the hand drawing back over some of the board, then the board unchanged, except one
    frame halfway where a hand passes over the board and leaves the cards as they were. The
    light is drawn once per hand (a room's light does not change between frames); the sensor
    noise and JPEG are fresh in every frame. ``per_step`` under 4 keeps only the first frames.
    """
    out: list[S.Scene] = []
    while len(out) < frames:
        placements = S.place_cards(rng, S.random_board(rng), level, cam.geometry)
        pert = S.sample_perturbations(rng, level, cam)
        for shown in (0, 3, 4, 5):
            on = [p for p in placements if p.slot < shown]
            laid = [p for p in on if p.slot == shown - 1]
            for k in range(per_step):
                hand: S.Hand | None = None
                cards = on
                if k == 0 and laid:
                    last = laid[0]
                    x, y = last.centre_mm
                    short = replace(last, centre_mm=(x + float(rng.uniform(-3, 3)),
                                                     y + float(rng.uniform(3, 12))))
                    cards = [short if p is last else p for p in on]
                    hand = replace(S.random_hand(rng, cam.geometry),
                                   centre_mm=(x + float(rng.uniform(-15, 15)),
                                              y + float(rng.uniform(80, 100))),
                                   angle_deg=float(rng.uniform(-15, 15)))
                elif k == 0 or (k == 1 and laid) or (k == per_step // 2 and per_step >= 4):
                    hand = S.random_hand(rng, cam.geometry)
                out.append(S.render(faces, cards, cam, rng, pert, hand))
    return out[:frames]


#: ``BENCH_VISION_STREAM_COLD=1``: the stream's recogniser starts without its warm-up (as before
#: benchmark run 86): the frames not read again do it a few units at a time, and the first card
#: read pays for the deck's inks. By default it is warmed before the first frame, as
#: :meth:`~hardware.camera.source.FrameBoardSource.open` does.
STREAM_COLD = os.environ.get("BENCH_VISION_STREAM_COLD", "") == "1"


def extra_seed(seed_base: int, deck: int, level: int) -> int:
    """The scene seed of an extra design's plain scenes: ``seed_base + 1000 + 100 * deck + 10 *
    level`` for the first twenty designs (the seeds every earlier run recorded); designs past
    the twentieth go to their own block above all the others', so no two scenes share a seed."""
    if deck < 20:
        return seed_base + 1000 + 100 * deck + 10 * level
    return seed_base + 100_000 + 100 * deck + 10 * level


def situation_seed(seed_base: int, situation: int, deck: int, level: int) -> int:
    """The scene seed of a situation run: ``seed_base + 3000 + 100 * situation + 10 * deck +
    level`` for the first ten designs (the seeds every earlier run recorded); each further ten
    designs take a block of their own ``10_000`` higher, so no two scenes share a seed however
    many designs are listed."""
    block, deck_in_block = divmod(deck, 10)
    return seed_base + 3000 + 10_000 * block + 100 * situation + 10 * deck_in_block + level


def run_stream(frames: int, seed: int, fps: float = 10.0, design: str = "kennard",
               level: S.Level = S.Level.MEDIUM) -> list[str]:
    """A camera delivering frames continuously: decode (JPEG q90 as MJPEG, and PNG) + read.

    Frames are rendered first (:func:`stream_scenes`, one calibrated camera), encoded, then fed
    in order at ``fps`` on the time line to one recogniser per encoding: per frame the CPU time
    of ``cv2.imdecode`` and of ``BoardRecognizer.read``, whether the two fit in one frame
    interval, how many cards were matched afresh and how many kept their earlier reading
    (pixels unchanged), and the reads scored against the truth.
    """
    faces = load_face_folder(deck_folder(design))
    rng = np.random.default_rng(seed)
    cam = S.make_camera(rng, level, S.geometry_for_faces(faces))
    calib = S.render(faces, [], cam, rng, S.Perturbations(noise_sigma=2.0, jpeg_quality=90))
    profile = calibrate_camera(calib.image, faces)
    scenes = stream_scenes(faces, rng, level, cam, frames)
    name = Path(design).name or design
    out = []
    for kind, params in (("jpeg q90", [cv2.IMWRITE_JPEG_QUALITY, 90]), ("png", [])):
        recognizer = profile.recognizer()
        if not STREAM_COLD:
            recognizer.warm_up()  # as a board source does when opened, before its first frame
        bound = os.environ.get("BENCH_VISION_MATCH_UNTIL_MS")
        recognizer.match_until_s = None if bound is None else float(bound) / 1000
        ext = ".jpg" if kind.startswith("jpeg") else ".png"
        blobs = [cv2.imencode(ext, sc.image, params)[1] for sc in scenes]
        dec, rd, late = [], [], 0
        wall: list[float] = []
        # per frame: how many cards were matched afresh (0: every card kept its reading)
        matched: list[int] = []
        counts = Counts()
        for blob, sc in zip(blobs, scenes, strict=True):
            before = getattr(recognizer, "identified", 0)
            skipped = getattr(recognizer, "unchanged_frames", 0)
            w0, c0 = time.perf_counter(), time.thread_time()
            frame = np.asarray(cv2.imdecode(blob, cv2.IMREAD_COLOR), np.uint8)
            c1 = time.thread_time()
            reading = recognizer.read(frame)
            c2 = time.thread_time()
            wall.append((time.perf_counter() - w0) * 1000)
            dec.append((c1 - c0) * 1000)
            rd.append((c2 - c1) * 1000)
            # -1: the whole board unchanged, not read again
            same = getattr(recognizer, "unchanged_frames", 0) > skipped
            matched.append(-1 if same else getattr(recognizer, "identified", 0) - before)
            late += (c2 - c0) > 1.0 / fps
            _score(sc.truth, [(r.status, r.card) for r in reading.slots], counts)
        total = [a + b for a, b in zip(dec, rd, strict=True)]
        out.append(f"stream {name} {level.value} {kind} at {fps:g} fps, {frames} frames: decode "
                   f"{statistics.median(dec):.1f} ms, read {statistics.median(rd):.1f} ms "
                   f"(mean {statistics.fmean(rd):.1f}), both {statistics.median(total):.1f} ms "
                   f"median / {statistics.fmean(total):.1f} mean / "
                   f"{np.percentile(total, 99):.1f} ms p99 / {max(total):.1f} ms max CPU "
                   f"(wall {statistics.median(wall):.1f} median / "
                   f"{np.percentile(wall, 99):.1f} p99); "
                   f"{late} frames over the "
                   f"{1000 / fps:.0f} ms interval; cards matched "
                   f"{getattr(recognizer, 'identified', '-')}, kept "
                   f"{getattr(recognizer, 'reused', '-')} (not located again "
                   f"{getattr(recognizer, 'not_located', '-')}; put off to the next frame "
                   f"{getattr(recognizer, 'put_off', '-')}); frames whose whole board "
                   f"was unchanged (not read again) {matched.count(-1)}; cards {counts.cards}: "
                   f"{counts.correct} read, {counts.uncertain} not, {counts.wrong} wrong")
        for k in sorted(set(matched)):
            cost = [t for t, m in zip(total, matched, strict=True) if m == k]
            what = ("the whole board unchanged (not read again)" if k < 0 else
                    f"read, {k} card(s) matched afresh")
            out.append(f"  {kind}, frames {what}: {len(cost)}, "
                       f"decode + read {statistics.median(cost):.1f} ms median / "
                       f"{np.percentile(cost, 99):.1f} p99 / {max(cost):.1f} max CPU")
    return out


#: The issue's targets: share of visible cards read per level (0 wrong reads everywhere), and CPU
#: per 1080p frame on one core, decode included.
TARGET_READ = {"medium": 0.999, "hard": 0.99}
TARGET_FRAME_CPU_MS = 20.0


class Pool:
    """Counts pooled per (situation, card size, level) across designs, for the targets table.

    "met" is the count's own share against the target; the Wilson 95% lower bound beside it says
    what the count can show (about 3,000 cards all read are needed to show 99.9%).
    """

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str, str], Counts] = {}

    def add(self, situation: str, size: str, level: str, c: Counts) -> None:
        into = self.counts.setdefault((situation, size, level), Counts())
        for name in ("cards", "correct", "uncertain", "wrong", "boards", "boards_all_correct"):
            setattr(into, name, getattr(into, name) + getattr(c, name))
        into.cpu_ms += c.cpu_ms
        into.decode_cpu_ms += c.decode_cpu_ms

    def table(self) -> list[str]:
        """Rows: cards read against the level's target, wrong reads, decode + read CPU."""
        out = ["| situation | card size | level | cards | read | 95% lower bound | target | met "
               "| wrong | decode + read CPU ms: median / p99 |",
               "|---|---|---|---|---|---|---|---|---|---|"]
        for (situation, size, level), c in sorted(self.counts.items()):
            target = TARGET_READ.get(level)
            met = ("-" if target is None or not c.cards else
                   "yes" if c.correct >= target * c.cards and not c.wrong else "no")
            both = [a + b for a, b in zip(c.decode_cpu_ms, c.cpu_ms, strict=True)]
            cpu = (f"{statistics.median(both):.1f} / {np.percentile(both, 99):.1f}" if both
                   else "-")
            out.append(f"| {situation} | {size} | {level} | {c.cards} | {c.correct} "
                       f"({_pct(c.correct, c.cards)}) | {_wilson_low(c.correct, c.cards)} | "
                       f"{'-' if target is None else f'{100 * target:g}%'} | {met} | {c.wrong} "
                       f"| {cpu} |")
        every = [a + b for c in self.counts.values()
                 for a, b in zip(c.decode_cpu_ms, c.cpu_ms, strict=True)]
        if every:
            median = statistics.median(every)
            out.append("")
            out.append(f"decode + read CPU per frame over every row: median {median:.1f} ms, "
                       f"p99 {np.percentile(every, 99):.1f} ms (target {TARGET_FRAME_CPU_MS:g} "
                       f"ms: {'met' if median <= TARGET_FRAME_CPU_MS else 'not met'} at the "
                       "median, at this run's load)")
        return out


def _wilson_low(n: int, d: int, z: float = 1.96) -> str:
    """The Wilson score interval's lower end for ``n`` of ``d`` (what the count can show)."""
    if not d:
        return "-"
    p = n / d
    centre = p + z * z / (2 * d)
    spread = z * float(np.sqrt(p * (1 - p) / d + z * z / (4 * d * d)))
    return f"{max(0.0, 100 * (centre - spread) / (1 + z * z / d)):.2f}%"


def _pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:.2f}%" if d else "-"


def _size_name(design: str) -> str:
    faces = load_face_folder(deck_folder(design))
    return card_size_name(S.geometry_for_faces(faces).card_mm)


def _row(name: str, design: str, level: str, c: Counts) -> str:
    return (f"| {name} | {design} | {level} | {c.cards} | {c.correct} ({_pct(c.correct, c.cards)})"
            f" | {c.uncertain} | {c.wrong} | {_pct(c.boards_all_correct, c.boards)} | "
            f"{statistics.median(c.ms):.1f} / {statistics.median(c.cpu_ms):.1f} / "
            f"{min(c.ms):.1f} | {np.percentile(c.cpu_ms, 99):.1f} / {max(c.cpu_ms):.1f} |"
            f"{_decode_cells(c)}")


def _decode_cells(c: Counts) -> str:
    """The JPEG decode columns: decode CPU, and decode + read CPU and wall (median / p99)."""
    if not c.decode_cpu_ms:
        return " - | - | - |"
    both = [a + b for a, b in zip(c.decode_cpu_ms, c.cpu_ms, strict=True)]
    both_wall = [a + b for a, b in zip(c.decode_ms, c.ms, strict=True)]
    return (f" {statistics.median(c.decode_cpu_ms):.1f} / {np.percentile(c.decode_cpu_ms, 99):.1f}"
            f" | {statistics.median(both):.1f} / {np.percentile(both, 99):.1f} | "
            f"{statistics.median(both_wall):.1f} / {np.percentile(both_wall, 99):.1f} |")


def main() -> None:
    one_core()
    frames = int(os.environ.get("BENCH_VISION_FRAMES", "600"))
    per_camera = int(os.environ.get("BENCH_VISION_PER_CAMERA", "20"))
    seed_base = int(os.environ.get("BENCH_VISION_SEED", str(SEED_BASE)))
    print(f"frames per design and level: {frames}, {per_camera} per calibrated camera; "
          f"1920x1080; cv2 threads 1; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores; seeds {seed_base}+", flush=True)
    header = ("| method / situation | design (card size) | level | cards | correct | uncertain "
              "| wrong | boards all "
              "correct | ms/frame: median wall / median CPU / min wall | CPU ms: p99 / max "
              "| JPEG q90 decode CPU ms: median / p99 | decode + read CPU ms: median / p99 "
              "| decode + read wall ms: median / p99 |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    rows: list[str] = []
    extra: list[str] = []
    pool = Pool()
    skip_repo = os.environ.get("BENCH_VISION_SKIP_REPO", "") == "1"
    for d_i, design in enumerate(() if skip_repo else DESIGNS):
        for l_i, level in enumerate(LEVELS):
            t0 = time.time()
            ours, base = run_config(design, level, frames, per_camera,
                                    seed_base + 100 * d_i + 10 * l_i)
            rows.append(_row("face matching (ours)", design, level.value, ours))
            rows.append(_row("corner index (baseline)", design, level.value, base))
            for failure in ours.calibration_failures:
                extra.append(f"{design}/{level.value}: a camera failed to calibrate: {failure}")
            extra.append(f"{design}/{level.value}: empty slots {ours.empty_slots} "
                         f"(read empty {ours.empty_read}), occluded slots {ours.occluded_slots}; "
                         f"p90 {np.percentile(ours.ms, 90):.1f} ms; wall {time.time() - t0:.0f} s")
            print(rows[-2], flush=True)
            print(rows[-1], flush=True)
    # A wrong deck registered: calibrated with one design, shown the other.
    wrong_deck = max(50, frames // 6)
    pairs = () if skip_repo else (("kennard", "svg-cards"), ("svg-cards", "kennard"))
    for d_i, (design, show) in enumerate(pairs):
        ours, _ = run_config(design, S.Level.MEDIUM, wrong_deck, per_camera,
                             seed_base + 500 + d_i, show=show)
        extra.append(f"wrong deck (profile {design}, cards {show}, medium): {ours.cards} cards, "
                     f"{ours.correct} read (same rank and suit), {ours.uncertain} uncertain, "
                     f"{ours.wrong} wrong")
    others = [d for d in os.environ.get("BENCH_VISION_EXTRA", "").split(",") if d]
    for d_i, folder in enumerate(others):
        for l_i, level in enumerate(LEVELS):
            ours, _ = run_config(folder.rstrip("/") + "/", level, frames, per_camera,
                                 extra_seed(seed_base, d_i, l_i), baseline_too=False)
            name = f"{Path(folder).name} ({_size_name(folder)})"
            rows.append(_row("face matching (ours)", name, level.value, ours))
            pool.add("plain (whole run)", _size_name(folder), level.value, ours)
            print(rows[-1], flush=True)
            if ours.wrong:
                extra.append(f"{name}/{level.value}: {ours.wrong} wrong")
    situation_decks = [d for d in os.environ.get("BENCH_VISION_SITUATION_DECKS", "").split(",")
                       if d]
    situation_frames = int(os.environ.get("BENCH_VISION_SITUATION_FRAMES", str(frames // 4)))
    situation_levels = [S.Level(v) for v in
                        os.environ.get("BENCH_VISION_SITUATION_LEVELS", "medium").split(",")]
    only = {v for v in os.environ.get("BENCH_VISION_SITUATIONS", "").split(",") if v}
    unknown = only - {s.value for s in Situation}
    if unknown:
        raise SystemExit(f"BENCH_VISION_SITUATIONS: unknown situation(s) {sorted(unknown)}; "
                         f"known: {', '.join(s.value for s in Situation)}")
    sit_rows: list[str] = []
    for s_i, situation in enumerate(Situation):
        if only and situation.value not in only:
            continue  # the seeds stay those of the whole run
        for d_i, folder in enumerate(situation_decks):
            for l_i, level in enumerate(situation_levels):
                ours, _ = run_config(folder.rstrip("/") + "/", level, situation_frames,
                                     per_camera, situation_seed(seed_base, s_i, d_i, l_i),
                                     baseline_too=False, situation=situation)
                name = f"{Path(folder).name} ({_size_name(folder)})"
                sit_rows.append(_row(situation.value, name, level.value, ours))
                pool.add(situation.value, _size_name(folder), level.value, ours)
                print(sit_rows[-1], flush=True)
    rows += sit_rows
    stream = int(os.environ.get("BENCH_VISION_STREAM", "0"))
    stream_decks = [d for d in os.environ.get("BENCH_VISION_STREAM_DECKS", "kennard").split(",")
                    if d]
    if stream:
        for d_i, design in enumerate(stream_decks):
            for l_i, level in enumerate(LEVELS):
                for line in run_stream(stream, seed_base + 9000 + 100 * d_i + 10 * l_i,
                                       design=design, level=level):
                    extra.append(line)
                    print(line, flush=True)
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")
    print(header)
    print("\n".join(rows))
    print()
    print("\n".join(extra))
    if pool.counts:
        print("\nPooled over the designs (other designs and situation decks):")
        print("\n".join(pool.table()))


if __name__ == "__main__":
    main()
